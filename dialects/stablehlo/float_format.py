"""Exact MLIR spelling of floating-point literals (LLVM ``APFloat`` emulation).

MLIR prints a float as ``%.6e``-style text when that text reads back to the same bits,
otherwise as APFloat's shortest round-trip form (``3.40282347E+38``), and infinities,
NaNs and anything without a ``.`` as a hexadecimal bit pattern (``0xFF800000``). xDSL's
own printer approximates this with Python formatting and differs on denormals, rounding
and hex case; this module reproduces LLVM's ``IEEEFloat::toString`` digit by digit so a
printed constant is byte-identical to jaxlib's and never changes value.

>>> format_float_bits(0xFF800000, FLOAT_FORMATS["f32"])
'0xFF800000'
>>> format_float_bits(0x3F800000, FLOAT_FORMATS["f32"])
'1.000000e+00'
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal


@dataclass(frozen=True)
class FloatFormat:
    """Bit layout of one MLIR float type.

    ``nan_style``: ``ieee`` (all-ones exponent is inf/NaN), ``fn`` (only all-ones is NaN,
    no infinities), ``fnuz`` (only ``0x80...`` is NaN, no negative zero, no infinities),
    ``none`` (finite only).
    """

    name: str
    width: int
    exponent_bits: int
    mantissa_bits: int
    bias: int
    nan_style: Literal["ieee", "fn", "fnuz", "none"] = "ieee"

    @property
    def precision(self) -> int:
        """Significand bits including the implicit one (APFloat's ``precision``)."""
        return self.mantissa_bits + 1

    @property
    def min_exponent(self) -> int:
        return 1 - self.bias

    @property
    def max_exponent(self) -> int:
        top = (1 << self.exponent_bits) - 1
        return (top - 1 if self.nan_style == "ieee" else top) - self.bias


FLOAT_FORMATS: dict[str, FloatFormat] = {
    f.name: f
    for f in (
        FloatFormat("f64", 64, 11, 52, 1023),
        FloatFormat("f32", 32, 8, 23, 127),
        FloatFormat("tf32", 19, 8, 10, 127),
        FloatFormat("f16", 16, 5, 10, 15),
        FloatFormat("bf16", 16, 8, 7, 127),
        FloatFormat("f8E5M2", 8, 5, 2, 15),
        FloatFormat("f8E4M3", 8, 4, 3, 7),
        FloatFormat("f8E3M4", 8, 3, 4, 3),
        FloatFormat("f8E4M3FN", 8, 4, 3, 7, "fn"),
        FloatFormat("f8E5M2FNUZ", 8, 5, 2, 16, "fnuz"),
        FloatFormat("f8E4M3FNUZ", 8, 4, 3, 8, "fnuz"),
        FloatFormat("f8E4M3B11FNUZ", 8, 4, 3, 11, "fnuz"),
        FloatFormat("f6E2M3FN", 6, 2, 3, 1, "none"),
        FloatFormat("f6E3M2FN", 6, 3, 2, 3, "none"),
        FloatFormat("f4E2M1FN", 4, 2, 1, 1, "none"),
    )
}


@dataclass(frozen=True)
class Decoded:
    """``kind`` is zero/normal (value ``(-1)**negative * significand * 2**exponent``),
    inf or nan."""

    kind: Literal["zero", "finite", "inf", "nan"]
    negative: bool
    significand: int = 0
    exponent: int = 0

    def value(self) -> Fraction:
        v = Fraction(self.significand) * Fraction(2) ** self.exponent
        return -v if self.negative else v


def decode(bits: int, fmt: FloatFormat) -> Decoded:
    """Split a bit pattern into APFloat's (significand, exponent) view."""
    sign = (bits >> (fmt.width - 1)) & 1
    exp_field = (bits >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    mantissa = bits & ((1 << fmt.mantissa_bits) - 1)
    all_ones = (1 << fmt.exponent_bits) - 1
    if fmt.nan_style == "ieee" and exp_field == all_ones:
        return Decoded("nan" if mantissa else "inf", bool(sign))
    if fmt.nan_style == "fn" and exp_field == all_ones and mantissa == (1 << fmt.mantissa_bits) - 1:
        return Decoded("nan", bool(sign))
    if fmt.nan_style == "fnuz" and sign and exp_field == 0 and mantissa == 0:
        return Decoded("nan", True)
    if exp_field == 0 and mantissa == 0:
        return Decoded("zero", bool(sign))
    if exp_field == 0:  # denormal
        return Decoded("finite", bool(sign), mantissa, fmt.min_exponent - fmt.mantissa_bits)
    significand = mantissa | (1 << fmt.mantissa_bits)
    return Decoded("finite", bool(sign), significand, exp_field - fmt.bias - fmt.mantissa_bits)


def round_to_format(value: Fraction, negative: bool, fmt: FloatFormat) -> Decoded | None:
    """Nearest-even rounding of an exact decimal into ``fmt``; None on overflow."""
    mag = abs(value)
    if mag == 0:
        return Decoded("zero", negative)
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    elif Fraction(2) ** (e + 1) <= mag:
        e += 1
    e = max(e, fmt.min_exponent)
    scale_exp = e - fmt.mantissa_bits
    q = mag / Fraction(2) ** scale_exp
    n = q.numerator // q.denominator
    rem = q - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    if n == 1 << fmt.precision:
        n >>= 1
        scale_exp += 1
        e += 1
    if n == 0:
        return Decoded("zero", negative)
    if e > fmt.max_exponent:
        return None
    # Normalise to the same (significand, exponent) view decode() produces.
    if n >= 1 << fmt.mantissa_bits:
        return Decoded("finite", negative, n, scale_exp)
    return Decoded("finite", negative, n, fmt.min_exponent - fmt.mantissa_bits)


def _adjust_int(significand: int, exp: int, precision: int) -> tuple[int, int]:
    bits = significand.bit_length()
    bits_required = (precision * 196 + 58) // 59
    if bits <= bits_required:
        return significand, exp
    tens = (bits - bits_required) * 59 // 196
    if not tens:
        return significand, exp
    return significand // 10**tens, exp + tens


def _adjust_digits(buffer: list[str], exp: int, precision: int) -> tuple[list[str], int]:
    n = len(buffer)
    if n <= precision:
        return buffer, exp
    first = n - precision
    if buffer[first - 1] < "5":
        while first < n and buffer[first] == "0":
            first += 1
        return buffer[first:], exp + first
    buffer = list(buffer)
    for i in range(first, n):
        if buffer[i] == "9":
            first += 1
        else:
            buffer[i] = chr(ord(buffer[i]) + 1)
            break
    if first == n:
        return ["1"], exp + first
    return buffer[first:], exp + first


def apfloat_to_string(
    d: Decoded, fmt: FloatFormat, precision: int, max_padding: int, truncate_zero: bool
) -> str:
    """LLVM ``IEEEFloat::toString`` for a finite non-zero or zero value."""
    out = "-" if d.negative else ""
    if d.kind == "zero":
        if max_padding:
            return out + "0"
        if truncate_zero:
            return out + "0.0E+0"
        return out + "0.0" + "0" * max(precision - 1, 0) + "e+00"
    if not precision:
        precision = 2 + fmt.precision * 59 // 196
    significand, exp = d.significand, d.exponent
    trailing = (significand & -significand).bit_length() - 1
    exp += trailing
    significand >>= trailing
    if exp > 0:
        significand <<= exp
        exp = 0
    elif exp < 0:
        significand *= 5 ** (-exp)
    significand, exp = _adjust_int(significand, exp, precision)
    buffer: list[str] = []  # least significant digit first
    in_trail = True
    while significand:
        significand, digit = divmod(significand, 10)
        if in_trail and not digit:
            exp += 1
        else:
            buffer.append(str(digit))
            in_trail = False
    buffer, exp = _adjust_digits(buffer, exp, precision)
    ndigits = len(buffer)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or ndigits + exp > precision
    else:
        msd = exp + ndigits - 1
        scientific = False if msd >= 0 else -msd > max_padding
    digits = buffer[::-1]
    if scientific:
        exp += ndigits - 1
        out += digits[0] + "."
        if ndigits == 1 and truncate_zero:
            out += "0"
        else:
            out += "".join(digits[1:])
        if not truncate_zero and precision > ndigits - 1:
            out += "0" * (precision - ndigits + 1)
        out += "E" if truncate_zero else "e"
        out += "+" if exp >= 0 else "-"
        exp_text = str(abs(exp))
        if not truncate_zero and len(exp_text) < 2:
            exp_text = "0" + exp_text
        return out + exp_text
    if exp >= 0:
        return out + "".join(digits) + "0" * exp
    whole = exp + ndigits
    if whole > 0:
        return out + "".join(digits[:whole]) + "." + "".join(digits[whole:])
    return out + "0." + "0" * (-whole) + "".join(digits)


def _hex(bits: int) -> str:
    return f"0x{bits:X}"


def format_float_bits(bits: int, fmt: FloatFormat) -> str:
    """MLIR's ``printFloatValue`` for the value with bit pattern ``bits``."""
    d = decode(bits, fmt)
    if d.kind in ("inf", "nan"):
        return _hex(bits)
    text = apfloat_to_string(d, fmt, 6, 0, False)
    if d.kind == "zero":
        return text
    back = round_to_format(Fraction(text), d.negative, fmt)
    if back is not None and back.kind == d.kind and back.value() == d.value():
        return text
    text = apfloat_to_string(d, fmt, 0, 3, True)
    if "." in text:
        return text
    return _hex(bits)


def float_to_bits(value: float, fmt: FloatFormat) -> int:
    """Bits of a Python float rounded to ``fmt`` (nearest even)."""
    if fmt.name == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if fmt.name == "f32":
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if value != value:  # NaN: the canonical quiet NaN of the format
        if fmt.nan_style == "fnuz":
            return 1 << (fmt.width - 1)
        return (1 << (fmt.width - 1)) - 1 if fmt.nan_style == "fn" else (
            ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits | 1 << (fmt.mantissa_bits - 1)
        )
    negative = value < 0 or (value == 0 and struct.pack("<d", value)[7] & 0x80 != 0)
    if value in (float("inf"), float("-inf")):
        if fmt.nan_style != "ieee":
            raise ValueError(f"{fmt.name} has no infinity")
        return (int(negative) << (fmt.width - 1)) | ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
    d = round_to_format(Fraction(value), negative, fmt)
    if d is None:
        raise ValueError(f"{value} overflows {fmt.name}")
    return encode(d, fmt)


def parse_float_text(text: str, fmt: FloatFormat) -> int:
    """Bits of a decimal literal rounded exactly to ``fmt`` (no double rounding)."""
    negative = text.strip().startswith("-")
    d = round_to_format(Fraction(text), negative, fmt)
    if d is None:
        raise ValueError(f"{text} overflows {fmt.name}")
    return encode(d, fmt)


def encode(d: Decoded, fmt: FloatFormat) -> int:
    """Inverse of :func:`decode` for zero and finite values."""
    sign = int(d.negative) << (fmt.width - 1)
    if d.kind == "zero":
        return 0 if fmt.nan_style == "fnuz" else sign
    significand, exponent = d.significand, d.exponent
    if significand < 1 << fmt.mantissa_bits:  # denormal
        return sign | significand
    exp_field = exponent + fmt.mantissa_bits + fmt.bias
    return sign | exp_field << fmt.mantissa_bits | (significand & ((1 << fmt.mantissa_bits) - 1))
