"""Errors the donation rules raise, and the validation of donation attributes.

Adapters read attribute values into plain Python (``True``, ``3``, or the attribute's printed
text when it has another kind) and call :func:`read_donation`; every message is written here
once, so the xDSL pass and the jit hook say the same thing.
"""

from __future__ import annotations

from jax_use_donated.analysis.model import Arg, Donation, DonationKind, FunctionModel

BUFFER_DONOR = "jax.buffer_donor"
ALIASING_OUTPUT = "tf.aliasing_output"


class DonationError(Exception):
    """A donation assumption that does not hold; ``anchor`` is the adapter's object to point at
    (an op or ``None`` for the function)."""

    def __init__(self, message: str, anchor: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.anchor = anchor


def arg_label(arg_index: int, name: str | None) -> str:
    return f"'{name}' (%arg{arg_index})" if name else f"%arg{arg_index}"


def read_donation(
    arg_index: int,
    name: str | None,
    buffer_donor: object,
    aliasing_output: object,
    anchor: object = None,
) -> Donation:
    """Validate the two donation attributes of one argument.

    ``buffer_donor``/``aliasing_output`` are ``None`` when absent, a ``bool``/``int`` when well
    typed, else the attribute's text. Raises :class:`DonationError` on malformed values.
    """
    label = arg_label(arg_index, name)
    if buffer_donor is not None and not isinstance(buffer_donor, bool):
        raise DonationError(
            f"argument {label}: '{BUFFER_DONOR}' must be a boolean (true or false), "
            f"got {buffer_donor}",
            anchor,
        )
    if aliasing_output is not None and (
        isinstance(aliasing_output, bool) or not isinstance(aliasing_output, int)
    ):
        raise DonationError(
            f"argument {label}: '{ALIASING_OUTPUT}' must be an integer result index, "
            f"got {aliasing_output}",
            anchor,
        )
    if isinstance(aliasing_output, int):
        return Donation(DonationKind.ALIASING_OUTPUT, aliasing_output)
    if buffer_donor:
        return Donation(DonationKind.BUFFER_DONOR)
    return Donation()


def validate_function(fn: FunctionModel) -> None:
    """Check the whole-function donation invariants; raise :class:`DonationError` if broken.

    * a donated argument must be a ranked tensor;
    * ``tf.aliasing_output`` must name an existing result, and no two arguments may alias the
      same result.
    """
    owner_of: dict[int, Arg] = {}
    for arg in fn.donors:
        if arg.tensor is None:
            raise DonationError(
                f"argument {arg_label(arg.index, arg.loc.name)} of @{fn.name} is donated but "
                f"has type {arg.type_text}; only ranked tensors can be donated",
                arg.handle if arg.handle is not None else fn.handle,
            )
        k = arg.donation.alias_index
        if k is None:
            continue
        if not 0 <= k < len(fn.results):
            raise DonationError(
                f"argument {arg_label(arg.index, arg.loc.name)} of @{fn.name}: "
                f"'{ALIASING_OUTPUT} = {k}' is out of range: the function has "
                f"{len(fn.results)} result(s)",
                fn.handle,
            )
        if k in owner_of:
            other = owner_of[k]
            raise DonationError(
                f"arguments {arg_label(other.index, other.loc.name)} and "
                f"{arg_label(arg.index, arg.loc.name)} of @{fn.name} both alias result {k}",
                fn.handle,
            )
        owner_of[k] = arg


def multi_block_error(fn_name: str, blocks: int, anchor: object = None) -> DonationError:
    return DonationError(
        f"@{fn_name} has donated arguments but {blocks} blocks; donation analysis needs a "
        "single-block function body (structured control flow)",
        anchor,
    )
