"""The user's names for the leaves of a lowering, recovered from the library that made the jit.

JAX names a lowered argument after the function it traced (``debug_info.arg_names``). For a
plain ``jax.jit`` that is the user's function, and the name is the user's own
(``params['w']``). A library that calls ``jax.jit`` on the user's behalf traces its own
function over its own split of the arguments, so JAX names what the library made of them:
``model.states[0][1]`` under ``nnx.jit``, ``dynamic_donate['first'][0]`` under
``eqx.filter_jit``. This module recovers the user's names while the lowering runs, from the
library's own structure of the arguments the user passed:

* the flat arguments JAX lowers are the very objects the library passed to ``jax.jit``
  (:func:`~.jax_internals.jit_call` reads them from JAX's frames);
* the library's entry point, further out on the stack, still holds the user's arguments
  (Equinox's ``_call``: ``args``, ``kwargs`` and the wrapper's signature; Flax NNX's
  ``JitWrapped``: ``args``, ``kwargs`` and the user's function);
* each of the user's arguments is walked as the library walks it (NNX: the object graph,
  ``nnx.graph.iter_graph``, Variables by their raw value; Equinox: the pytree's key paths),
  and every array leaf the library passed is matched by identity to the user's path, so no
  name is inferred from another name.

A leaf the library does not show (an array captured by the jitted function, a library's
bookkeeping) keeps JAX's path, marked as such (:attr:`LeafName.user` is ``False``; texts add
:data:`LIBRARY_MARK`). Results are named the same way where the library's output structure is
fixed (Equinox returns ``(marker, dynamic_out, static)``; NNX returns ``(updated args, updated
kwargs, out)``, whose updated states are named after the inputs they update)::

    >>> name = LeafName("model.l1.kernel", "model.states[0][1]", user=True)
    >>> name.text
    'model.l1.kernel'
    >>> LeafName("dynamic_donate['fun'][0]", "dynamic_donate['fun'][0]", user=False).text
    "dynamic_donate['fun'][0] [library path]"
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jax_use_donated.dropin import jax_internals

LIBRARY_MARK = "[library path]"
"""Appended, in texts, to a leaf named by a library's internal split (no user path found)."""


@dataclass(frozen=True)
class LeafName:
    """How the user names one leaf, and how JAX names it."""

    path: str
    """The user's path (``model.l1.kernel``), else JAX's (``model.states[0][1]``)."""
    jax_path: str
    """JAX's name of the lowered leaf (``debug_info.arg_names``, ``result_info``)."""
    user: bool = True
    """``path`` is the user's own name; ``False``: the library's internal path, kept because
    the library does not show this leaf to the user (texts mark it with :data:`LIBRARY_MARK`)."""

    @property
    def text(self) -> str:
        """``path``, marked when it is not the user's."""
        return self.path if self.user else f"{self.path} {LIBRARY_MARK}"


@dataclass
class UserNames:
    """The user's names of one lowering's leaves."""

    library: str | None = None
    """The library that called ``jax.jit`` (``"flax.nnx"``, ``"equinox"``), or ``None``."""
    leaves: list[str | None] = field(default_factory=list)
    """Per flat dynamic argument leaf (JAX's order): the user's path, ``None`` if not found."""
    result: Callable[[str], tuple[str, bool] | None] | None = None
    """JAX's result path -> (the user's path, is the user's) where the library's output
    structure is known."""

    def arg(self, leaf: int | None, jax_path: str | None) -> LeafName:
        """The name of flat argument leaf ``leaf``, JAX's ``jax_path`` as the fallback."""
        jax_path = jax_path or (f"argument {leaf}" if leaf is not None else "")
        found = self.leaves[leaf] if leaf is not None and 0 <= leaf < len(self.leaves) else None
        if found is not None:
            return LeafName(found, jax_path)
        return LeafName(jax_path, jax_path, user=self.library is None)

    def result_name(self, jax_path: str | None) -> str | None:
        """The display text of a result JAX names ``jax_path``."""
        if jax_path is None:
            return None
        if self.result is not None:
            named = self.result(jax_path)
            if named is not None:
                path, user = named
                return path if user else f"{path} {LIBRARY_MARK}"
        if self.library is not None:
            return f"{jax_path} {LIBRARY_MARK}"
        return jax_path


PLAIN = UserNames()
"""A lowering made by the user's own ``jax.jit``: JAX's names are the user's."""


def recover(lowering: jax_internals.Lowering) -> UserNames:
    """The user's names for ``lowering``'s leaves; call it while the lowering runs (it reads
    the call stack). A plain ``jax.jit`` (or no call on the stack) gives :data:`PLAIN`."""
    try:
        call = jax_internals.jit_call(sys._getframe(1))
    except Exception:
        call = None
    if call is None:
        return PLAIN
    caller: str | None = None
    for frame in _outward(call.caller):
        for adapter in _ADAPTERS:
            if adapter.matches(frame):
                try:
                    return adapter.names(frame, call.leaves)
                except Exception:  # a library version we do not know: its paths, marked
                    return UserNames(adapter.library, [None] * len(call.leaves))
        filename = frame.f_code.co_filename
        if _is_user_code(filename):
            break
        if caller is None and not _is_jax_or_ours(filename):
            caller = filename
    library = _installed_package(caller) if caller is not None else None
    if library is not None:  # another library called jax.jit: its names, marked
        return UserNames(library, [None] * len(call.leaves))
    return PLAIN


def _outward(frame: Any) -> Iterator[Any]:
    while frame is not None:
        yield frame
        frame = frame.f_back


_SITE_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")
_JAX_DIR = os.path.dirname(os.path.abspath(jax_internals.jax.__file__))
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_user_code(filename: str) -> bool:
    path = os.path.abspath(filename)
    return not (_is_jax_or_ours(filename) or any(m in path for m in _SITE_MARKERS))


def _is_jax_or_ours(filename: str) -> bool:
    path = os.path.abspath(filename)
    return (path.startswith(_JAX_DIR) or path.startswith(_PACKAGE_DIR)
            or filename.startswith("<") or "importlib" in path)


def _installed_package(filename: str) -> str | None:
    """The top-level package an installed file belongs to (``.../site-packages/flax/x.py`` ->
    ``"flax"``), else ``None``."""
    path = os.path.abspath(filename)
    for marker in _SITE_MARKERS:
        if marker in path:
            rest = path.split(marker, 1)[1]
            return rest.split(os.sep, 1)[0].removesuffix(".py") or None
    return None


# --------------------------------------------------------------------------------------------
# Paths of the user's arguments


def keystr(path: Sequence[Any]) -> str:
    """``jax.tree_util.keystr`` of a key path."""
    import jax

    return jax.tree_util.keystr(tuple(path))


def _bound_arguments(fun: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                     signature: inspect.Signature | None = None) -> list[tuple[str, Any]]:
    """``(name, value)`` per argument as the user's function names them (``args[i]`` where its
    signature cannot bind them)."""
    try:
        sig = signature if signature is not None else inspect.signature(fun)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return ([(f"args[{i}]", a) for i, a in enumerate(args)]
                + [(k, v) for k, v in kwargs.items()])
    out: list[tuple[str, Any]] = []
    for name, value in bound.arguments.items():
        kind = sig.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            out += [(f"{name}[{i}]", v) for i, v in enumerate(value)]
        elif kind is inspect.Parameter.VAR_KEYWORD:
            out += [(k, v) for k, v in value.items()]
        else:
            out.append((name, value))
    return out


def _pytree_paths(name: str, value: Any) -> Iterator[tuple[str, Any]]:
    """``(name + keystr(path), leaf)`` for every leaf of a pytree, in JAX's order."""
    import jax

    for path, leaf in jax.tree_util.tree_flatten_with_path(value)[0]:
        yield name + keystr(path), leaf


class _Identity:
    """User paths by the identity of their leaf objects, first occurrence first."""

    def __init__(self, named: Iterable[tuple[str, Any]]) -> None:
        self.paths: dict[int, deque[str]] = {}
        self.keep: list[Any] = []  # the objects stay alive while their ids are keys
        for path, leaf in named:
            if leaf is None or isinstance(leaf, (bool, int, float, complex, str)):
                continue  # interned values: an id says nothing
            self.paths.setdefault(id(leaf), deque()).append(path)
            self.keep.append(leaf)

    def names(self, leaves: Sequence[Any]) -> list[str | None]:
        out: list[str | None] = []
        for leaf in leaves:
            queue = self.paths.get(id(leaf))
            if not queue:
                out.append(None)
                continue
            out.append(queue.popleft() if len(queue) > 1 else queue[0])
        return out


# --------------------------------------------------------------------------------------------
# Libraries


class _Adapter:
    library: str = ""

    def matches(self, frame: Any) -> bool:
        raise NotImplementedError

    def names(self, frame: Any, leaves: list[Any]) -> UserNames:
        raise NotImplementedError


def _in_module(frame: Any, suffix: str, functions: Iterable[str]) -> bool:
    code = frame.f_code
    return code.co_name in functions and code.co_filename.replace(os.sep, "/").endswith(suffix)


class _Equinox(_Adapter):
    """``eqx.filter_jit``: ``_call(jit_wrapper, is_lower, args, kwargs)`` binds the user's
    arguments to the wrapped function's signature and passes ``jax.jit`` the array leaves of
    the first argument and of the rest (``dynamic_donate``/``dynamic_nodonate``: ``first``,
    ``rest`` and the function's own arrays, ``fun``). Its results are ``(marker, dynamic_out,
    static)``: ``result[1]`` is the user's output."""

    library = "equinox"

    def matches(self, frame: Any) -> bool:
        return _in_module(frame, "equinox/_jit.py", ("_call",))

    def names(self, frame: Any, leaves: list[Any]) -> UserNames:
        local = frame.f_locals
        wrapper, args, kwargs = local["jit_wrapper"], local["args"], local["kwargs"]
        signature = getattr(wrapper, "_signature", None)
        named: list[tuple[str, Any]] = []
        for name, value in _bound_arguments(None, tuple(args), dict(kwargs), signature):
            named += _pytree_paths(name, value)
        fun = getattr(wrapper, "_dynamic_fun", None)
        if fun is not None:
            label = getattr(wrapper, "fn", None) or "fun"
            named += _pytree_paths(f"<{label}>", fun)
        return UserNames(self.library, _Identity(named).names(leaves), _equinox_result)


_EQX_RESULT = re.compile(r"^result\[1\](.*)$")


def _equinox_result(jax_path: str) -> tuple[str, bool] | None:
    m = _EQX_RESULT.match(jax_path)
    if m is not None:
        return "result" + m.group(1), True
    return None


class _FlaxNnx(_Adapter):
    """``nnx.jit``: ``JitWrapped.__call__``/``lower``/``trace``/``eval_shape`` hold the user's
    ``args`` and ``kwargs`` and pass ``jax.jit`` Flax's split of them (``extract.to_tree``:
    each graph node becomes its states). Graph nodes are named by their graph paths, read
    with ``nnx.graph.iter_graph`` (attributes as ``.name``, mapping keys and sequence
    indices as ``[key]``); every other argument by its pytree path. Its results are
    ``(updated args, updated kwargs, out)``: ``result[2]`` is the user's output, and the
    updated states of argument ``i`` are the leaves of the same split, in the same order."""

    library = "flax.nnx"

    def matches(self, frame: Any) -> bool:
        return (_in_module(frame, "flax/nnx/transforms/compilation.py",
                           ("__call__", "lower", "trace", "eval_shape"))
                and hasattr(frame.f_locals.get("self"), "jitted_fn"))

    def names(self, frame: Any, leaves: list[Any]) -> UserNames:
        local = frame.f_locals
        wrapped, args, kwargs = local["self"], local["args"], local["kwargs"]
        named: list[tuple[str, Any]] = []
        for name, value in _bound_arguments(getattr(wrapped, "fun", None), tuple(args),
                                            dict(kwargs)):
            named += _nnx_paths(name, value)
        names = _Identity(named).names(leaves)
        return UserNames(self.library, names, _NnxResults(frame, names).name)


class _NnxResults:
    """NNX result paths: ``result[2]...`` is the user's output; ``result[0][i]...`` the
    updated state of positional argument ``i`` (``result[1]['k']...`` of keyword ``k``), the
    leaves of the same split as that argument's input, so named after the input leaf whose
    JAX path has the same suffix."""

    def __init__(self, frame: Any, names: list[str | None]) -> None:
        import jax

        self.inputs: dict[str, str] = {}
        pure = frame.f_locals.get("pure_args"), frame.f_locals.get("pure_kwargs")
        if pure[0] is None:
            return
        flat = jax.tree_util.tree_flatten_with_path(pure)[0]
        if len(flat) != len(names):
            return
        for (path, _), name in zip(flat, names, strict=True):
            if name is not None:
                self.inputs[keystr(path)] = name

    def name(self, jax_path: str) -> tuple[str, bool] | None:
        if jax_path.startswith("result[2]"):
            return "result" + jax_path[len("result[2]"):], True
        m = re.match(r"^result(\[[01]\].*)$", jax_path)
        if m is not None:
            found = self.inputs.get(m.group(1))
            if found is not None:
                return found, True
        return None


def _nnx_paths(name: str, value: Any) -> Iterator[tuple[str, Any]]:
    """``(user path, raw leaf)`` of one argument as Flax splits it: graph nodes by graph path,
    Variables by their raw value; pytrees holding graph nodes are walked as pytrees down to
    them."""
    import jax
    from flax import nnx

    def is_node(x: Any) -> bool:
        return bool(nnx.graph.is_graph_node(x)) or isinstance(x, nnx.Variable)

    for path, leaf in jax.tree_util.tree_flatten_with_path(value, is_leaf=is_node)[0]:
        prefix = name + keystr(path)
        if is_node(leaf):
            yield from _graph_paths(prefix, leaf)
        else:
            yield prefix, leaf


def _graph_paths(prefix: str, node: Any) -> Iterator[tuple[str, Any]]:
    """``(prefix + graph path, raw value)`` of every Variable reachable from ``node``."""
    from flax import nnx

    if isinstance(node, nnx.Variable):
        yield from _pytree_paths(prefix, _raw(node))
        return
    nodes: dict[tuple[Any, ...], Any] = {}
    variables: list[tuple[tuple[Any, ...], Any]] = []
    for path, value in nnx.graph.iter_graph(node):
        path = tuple(path)
        nodes[path] = value
        if isinstance(value, nnx.Variable):
            variables.append((path, value))
    for path, variable in variables:
        text = prefix + "".join(_graph_key(nodes.get(path[:i]), key)
                                for i, key in enumerate(path))
        yield from _pytree_paths(text, _raw(variable))


def _raw(variable: Any) -> Any:
    for getter in ("get_raw_value", "raw_value"):
        value = getattr(variable, getter, None)
        if value is not None:
            return value() if callable(value) and getter.startswith("get_") else value
    return variable.value


def _graph_key(parent: Any, key: Any) -> str:
    """One step of a graph path: ``.name`` into an object (module, optimizer, named tuple),
    ``['key']``/``[i]`` into a mapping or a sequence."""
    if isinstance(parent, Mapping) or _is_state(parent):
        return f"[{key!r}]"
    if isinstance(key, int) or not isinstance(key, str) or not key.isidentifier():
        return f"[{key!r}]"
    return f".{key}"


def _is_state(x: Any) -> bool:
    from flax import nnx

    return isinstance(x, nnx.State)


_ADAPTERS: tuple[_Adapter, ...] = (_Equinox(), _FlaxNnx())
