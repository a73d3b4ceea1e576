"""``<dialect>.constant {attrs} dense<...> : T``: the constant op CHLO and Shardy both define.

MLIR prints both as ``attr-dict $value``; the result type is the value's type::

    %0 = chlo.constant dense<1.000000e+00> : tensor<4xf32>
    %1 = sdy.constant {foo} dense<[1, 2]> : tensor<2xi32>

Each dialect subclasses :class:`DenseConstantOp` with its ``name`` and traits.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.irdl import IRDLOperation, prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


class DenseConstantOp(IRDLOperation):
    """A constant whose ``value`` is a dense elements attribute of the result's type."""

    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)

    def __init__(self, value: DenseIntOrFPElementsAttr) -> None:
        super().__init__(properties={"value": value}, result_types=[value.type])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        attrs = parser.parse_optional_attr_dict()
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error(f"{cls.name} expects a dense elements attribute")
        op = cls(value)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)

    def verify_(self) -> None:
        if self.value.type != self.output.type:
            raise VerifyException(
                f"'{self.name}' result type {self.output.type} differs from the value's {self.value.type}"
            )
