"""Pass options as the command line spells them: kebab-case names, bare boolean flags, help text.

xDSL maps ``-p 'name{key=value ...}'`` onto a pass's dataclass fields. :class:`KebabOptions`
(a mixin for our passes and frontend) keeps that mapping and adds:

* ``{strict}``: a bare boolean option means ``true`` (xDSL refuses it: "Incompatible types:
  given (), expected <class 'bool'>");
* errors that name options in kebab-case, as they are written (``keep-unpaired-donors``) and
  list the valid ones, e.g. ``jax-plan-donation: unknown option 'nope'; options: mode, ...``;
* ``Literal`` fields list their choices in errors.

Each option's one-line meaning is the field's ``metadata["doc"]`` (see :func:`option`);
:func:`describe` renders the pass's options from the fields, for ``jax-donate-opt --help``.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from typing import Any, ClassVar, Literal, Self, TypeVar, get_args, get_origin, get_type_hints

from xdsl.utils.arg_spec import ArgSpec, ArgSpecConvertible

T = TypeVar("T")


def option(default: T, doc: str, bare: object = None,
           aliases: dict[object, object] | None = None) -> T:
    """A dataclass field with ``default`` and a one-line meaning shown by ``--help``;
    ``bare``: the value of the option written alone (``{report}``); ``aliases``: other
    spellings of values (``{True: "text"}`` reads ``report=true`` as ``report=text``)."""
    return dataclasses.field(default=default,
                             metadata={"doc": doc, "bare": bare, "aliases": aliases or {}})


def kebab(name: str) -> str:
    """``keep_unpaired_donors`` -> ``keep-unpaired-donors``."""
    return name.replace("_", "-")


def _spell(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclasses.dataclass(frozen=True)
class KebabOptions(ArgSpecConvertible):
    """Reads ``name{...}`` specs with bare boolean flags and kebab-case diagnostics."""

    name: ClassVar[str]

    @classmethod
    def option_fields(cls) -> dict[str, dataclasses.Field[Any]]:
        """The options, by kebab-case name, in declaration order."""
        return {kebab(f.name): f for f in dataclasses.fields(cls) if f.init}

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> Self:
        fields = cls.option_fields()
        hints = get_type_hints(cls)
        given: dict[str, tuple[Any, ...]] = {}
        for key, values in spec.parameters.items():
            field = fields.get(kebab(key))
            if field is None:
                raise ValueError(f"{cls.name}: unknown option '{kebab(key)}'; options: "
                                 f"{', '.join(fields) or '(none)'}")
            if values == () and field.metadata.get("bare") is not None:
                values = (field.metadata["bare"],)
            aliases = field.metadata.get("aliases") or {}
            if len(values) == 1 and values[0] in aliases:
                values = (aliases[values[0]],)
            given[field.name] = _checked(cls.name, kebab(key), values, hints[field.name])
        return super().from_spec(ArgSpec(spec.name, given))


def _checked(owner: str, key: str, values: tuple[Any, ...], hint: Any) -> tuple[Any, ...]:
    """``values`` for an option of type ``hint``, or a :class:`ValueError` in the user's words."""
    if hint is bool:
        if values == ():
            return (True,)
        if len(values) != 1 or not isinstance(values[0], bool):
            raise ValueError(f"{owner}: option '{key}' takes true or false (a bare '{key}' "
                             f"means true), got {','.join(map(_spell, values))}")
    elif get_origin(hint) is Literal and (len(values) != 1 or values[0] not in get_args(hint)):
        choices = ", ".join(map(str, get_args(hint)))
        if not values:
            raise ValueError(f"{owner}: option '{key}' needs a value, one of {choices}")
        raise ValueError(f"{owner}: unknown {key} '{','.join(map(_spell, values))}'; "
                         f"expected one of {choices}")
    return values


def summary(cls: type) -> str:
    """The first line of ``cls``'s docstring, without reST markup."""
    return next(iter((inspect.getdoc(cls) or "").splitlines()), "").replace("``", "")


def describe(cls: type[KebabOptions], width: int = 100) -> str:
    """``name: summary``, then per option ``key=default`` and its meaning, wrapped to
    ``width`` columns."""
    lines = [f"{cls.name}: {summary(cls)}"]
    rows = [(f"{key}={_spell(field.default)}", str(field.metadata.get("doc", "")))
            for key, field in cls.option_fields().items()]
    column = max((len(key) for key, _ in rows), default=0) + 4
    for key, doc in rows:
        lines.append(textwrap.fill(doc, width, initial_indent=f"  {key:<{column - 2}}",
                                   subsequent_indent=" " * column, break_on_hyphens=False))
    return "\n".join(lines)
