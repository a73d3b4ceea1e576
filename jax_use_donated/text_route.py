"""The jaxlib path's parallel route: the model read from the text while jaxlib parses.

Reading the model through jaxlib's Python bindings (:mod:`.adapters.jaxlib_ir`) costs more
than jaxlib's parse and print together; reading it from the text
(:mod:`.adapters.jax_text`) costs a fifth of that. So for a large input the driver forks
before it parses anything:

* the child parses and verifies the bytes with jaxlib, prints the module (with locations,
  when the input has any) and checks that the print *is* the input: then the text the parent
  reads is jaxlib's own spelling, the one :mod:`.adapters.jax_text` is tested on. It prints
  the module again without locations (the output), waits for the parent's rewrites, applies
  them with :func:`.jaxlib_ir.set_arg_donations`, puts each rewritten signature line
  (:func:`.print_ahead.signature_line`) in place of the old one and hands the text back;
* the parent meanwhile reads the model from the text, plans, emits the diagnostics into its
  sink and sends the rewrites (function -> aliases, buffer donors) over a pipe.

Whenever either side cannot finish (jaxlib refuses or re-spells the input, the text reader
meets something it does not know, a model cannot be built, the child dies),
:func:`run_in_parallel` returns ``None`` with the reason and the caller takes the bindings
route, which reports errors as always. Before any rewrite::

    // input (= jaxlib's print of it)       // parent: read, plan        // child: rewrite
    func.func public @main(%arg0: ...       pairs {@main: {0: 1}}  ->    func.func public @main(
        {tf.aliasing_output = 0 : i32}, ...                                %arg0: ... {tf.aliasing_output = 1 : i32}
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import struct
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jax_use_donated.adapters.jax_text import TextFunction, TextModule
    from jax_use_donated.jaxlib_module import Outcome

MIN_BYTES = 1 << 20
"""Inputs from this size on take the parallel route (below it the fork costs more than the
parallel parse saves)."""

Rewrites = dict[str, tuple[dict[int, int], list[int]]]
"""Function name -> (argument -> result it hosts, arguments left as buffer donors)."""


@dataclass
class Declined(Exception):
    """The parallel route cannot give the result (``reason`` says why)."""

    reason: str


# --------------------------------------------------------------------------------------------
# The child


def _send(fd: int, payload: bytes) -> None:
    data = struct.pack("<Q", len(payload)) + payload
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int) -> bytes | None:
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    return _read_exactly(fd, struct.unpack("<Q", head)[0])


def _read_exactly(fd: int, n: int) -> bytes | None:
    chunks: list[bytes] = []
    while n:
        chunk = os.read(fd, min(n, 1 << 22))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _child(data: bytes, allow_unregistered: bool, requests: int, replies: int,
           out: int) -> None:
    """Parse, check and print; write the text to ``out`` (a file the parent reads at the end:
    9 MB through a pipe cost the parent 0.3-0.5 s of GIL hand-overs to a reader thread) and
    reply ``ok`` with the names of the functions with donors, or ``declined`` and why; then
    wait for the parent's rewrites and send each rewritten function's signature line, before
    and after (``ok`` or ``declined``). Every reply is the status, then each part,
    NUL-separated."""
    from jax_use_donated.adapters.jaxlib_ir import set_arg_donations, symbol_name
    from jax_use_donated.jaxlib_module import (
        Unsupported,
        check_nesting,
        functions_with_donors,
        make_context,
        parse,
    )
    from jax_use_donated.print_ahead import signature_line

    def reply(status: str, *payload: bytes) -> None:
        _send(replies, b"\0".join((status.encode(), *payload)))

    try:
        check_nesting(data)  # jaxlib's printer is quadratic in the depth
        ctx = make_context(allow_unregistered)
        ctx.enable_multithreading(False)  # one core for the parent, which plans meanwhile
        module = parse(data, ctx=ctx)
    except Unsupported as err:
        reply("declined", str(err).encode())
        return
    debug = b"loc(" in data
    operation = module.operation
    printed = operation.get_asm(enable_debug_info=debug, assume_verified=True)
    if printed.rstrip("\n") != data.decode().rstrip("\n"):
        reply("declined", b"the input is not jaxlib's own print of it")
        return
    text = (operation.get_asm(enable_debug_info=False, assume_verified=True) if debug
            else printed) + "\n"
    functions = {symbol_name(f): f for f in functions_with_donors(module)}
    view = memoryview(text.encode())
    del text, printed
    while view:
        view = view[os.write(out, view):]
    before = {name: signature_line(f) for name, f in functions.items()}
    builders = {name: SignatureBuilder.check(f, before[name]) for name, f in functions.items()}
    reply("ok", json.dumps(list(functions)).encode())
    request = _receive(requests)
    if request is None:
        return  # the parent gave up
    rewrites: dict[str, list[Any]] = json.loads(request)
    lines: list[bytes] = []
    for name, (pairs, donors) in rewrites.items():
        func = functions.get(name)
        if func is None:
            reply("declined", f"@{name} has no donors for jaxlib".encode())
            return
        set_arg_donations(func, {int(k): v for k, v in pairs.items()}, donors)
        builder = builders[name]
        after = builder.line(func) if builder is not None else signature_line(func)
        lines += (before[name].encode(), after.encode())
    reply("ok", *lines)  # the input has no NUL byte (the driver checks), nor its lines


class SignatureBuilder:
    """A function's signature line rebuilt from its argument attribute dictionaries as jaxlib
    prints them one by one: ``head %arg0: T0 {d0}, %arg1: T1, ... tail`` (an empty dictionary
    is not printed). Used only where it rebuilds the line :func:`.print_ahead.signature_line`
    printed before the rewrite, byte for byte (:meth:`check`); 25 ms instead of 75 ms for a
    train step's 8,700 arguments.

    Before: ``func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> ...``;
    after a rewrite of ``arg_attrs``: the same line with ``{tf.aliasing_output = 1 : i32}``."""

    def __init__(self, head: str, args: list[str], tail: str) -> None:
        self.head, self.args, self.tail = head, args, tail

    @staticmethod
    def _dicts(func: Any) -> list[str]:
        attrs = func.attributes["arg_attrs"]
        return [str(attrs[i]) for i in range(len(attrs))]

    def build(self, dicts: list[str]) -> str:
        parts = [a if d == "{}" else f"{a} {d}" for a, d in zip(self.args, dicts, strict=True)]
        return self.head + ", ".join(parts) + self.tail

    def line(self, func: Any) -> str:
        """The signature line of ``func`` as it is now."""
        return self.build(self._dicts(func))

    @classmethod
    def check(cls, func: Any, line: str) -> SignatureBuilder | None:
        """A builder for ``func``, whose signature line is ``line``, or ``None`` where it
        would not rebuild ``line`` exactly."""
        from jax_use_donated.adapters.jaxlib_ir import symbol_name

        try:
            op = func.operation
            if "arg_attrs" not in op.attributes:
                return None
            block = op.regions[0].blocks[0]
            types: dict[Any, str] = {}
            args = []
            for i, arg in enumerate(block.arguments):
                t = arg.type
                text = types.get(t)
                if text is None:
                    text = types[t] = str(t)
                args.append(f"%arg{i}: {text}")
            start = line.find(f"@{symbol_name(op)}(")
            if start < 0:
                return None
            head = line[:start + len(symbol_name(op)) + 2]
            dicts = cls._dicts(op)
            if len(dicts) != len(args):
                return None
            joined = cls(head, args, "").build(dicts)
            if not line.startswith(joined):
                return None
            builder = cls(head, args, line[len(joined):])
            return builder if builder.build(dicts) == line else None
        except Exception:
            return None


def _shared_file() -> int:
    """An unnamed file (in memory where the system has ``memfd_create``) that a forked child
    writes and its parent reads."""
    if hasattr(os, "memfd_create"):
        with contextlib.suppress(OSError):
            return os.memfd_create("jax-donate-opt-text")
    return os.dup(tempfile.TemporaryFile().fileno())


def _read_all(fd: int) -> bytes:
    """The whole content of the file ``fd`` (from its start)."""
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    at = 0
    while at < size:
        chunk = os.pread(fd, size - at, at)
        if not chunk:
            break
        chunks.append(chunk)
        at += len(chunk)
    return b"".join(chunks)


def _status(reply: bytes | None) -> list[bytes]:
    if reply is None:
        raise Declined("the jaxlib child failed")
    status, _, payload = reply.partition(b"\0")
    if status != b"ok":
        raise Declined(payload.decode(errors="replace"))
    return payload.split(b"\0") if payload else []


class ParseChild:
    """A forked :func:`_child` for ``data``; :meth:`finish` sends the rewrites and returns
    the output, :meth:`cancel` stops the child."""

    def __init__(self, data: bytes, allow_unregistered: bool) -> None:
        self.data = data
        self.allow_unregistered = allow_unregistered
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        self.out = _shared_file()
        with warnings.catch_warnings():  # as print_ahead: the child runs jaxlib only
            warnings.simplefilter("ignore")
            pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(requests_write)
                os.close(replies_read)
                _child(data, allow_unregistered, requests_read, replies_write, self.out)
                code = 0
            except BaseException:
                pass
            finally:
                os._exit(code)
        os.close(requests_read)
        os.close(replies_write)
        self.pid: int | None = pid
        self.requests = requests_write
        self.replies = replies_read

    def finish(self, rewrites: Rewrites, with_donors: Sequence[str]) -> str:
        """The output text once ``rewrites`` are applied; :class:`Declined` when the child
        could not give it or jaxlib finds donors in other functions than ``with_donors``."""
        try:
            (names,) = _status(_receive(self.replies))
            if json.loads(names) != list(with_donors):
                raise Declined("jaxlib finds donors in other functions than the text reader")
            lines: list[bytes] = []
            if rewrites:
                payload = json.dumps({name: [{str(k): v for k, v in pairs.items()}, donors]
                                      for name, (pairs, donors) in rewrites.items()}).encode()
                _send(self.requests, payload)
                lines = _status(_receive(self.replies))
            text = _read_all(self.out).decode()
        except OSError:
            raise Declined("the jaxlib child failed") from None
        finally:
            self.cancel()
        for k in range(0, len(lines) - 1, 2):
            old, new = lines[k].decode(), lines[k + 1].decode()
            if new == old:
                continue
            at = text.find(old)
            if at < 0 or text.find(old, at + 1) >= 0:
                raise Declined("a rewritten signature is not found once in jaxlib's text")
            text = text[:at] + new + text[at + len(old):]
        return text

    def cancel(self) -> None:
        """Stop the child (done, or the route gave up) and close the pipes."""
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            for fd in (self.requests, self.replies, self.out):
                with contextlib.suppress(OSError):
                    os.close(fd)
            pid, self.pid = self.pid, None
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


EARLY: ParseChild | None = None
"""The child :func:`start_early` forked for the command line, until adopted or discarded."""

_VALUE_OPTIONS = frozenset({"-o", "--output-file", "-p", "--passes", "-f", "--frontend",
                            "-t", "--target"})


def start_early(argv: Sequence[str]) -> None:
    """Fork the jaxlib child for ``argv``'s input before the driver's imports (0.3-0.4 s of
    xDSL), so that jaxlib parses while they run. Speculative: the input is the one argument
    naming a file of at least :data:`MIN_BYTES`; :func:`adopt` takes the child only for the
    very bytes and options the driver ends up using, :func:`discard_early` stops it."""
    global EARLY
    if not hasattr(os, "fork") or any(a == "--path=xdsl" for a in argv):
        return
    candidates: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in _VALUE_OPTIONS:
            skip = True
            continue
        if a.startswith("-"):
            continue
        with contextlib.suppress(OSError, ValueError):
            if os.path.isfile(a) and os.path.getsize(a) >= MIN_BYTES:
                candidates.append(a)
    if len(candidates) != 1:
        return
    try:
        with open(candidates[0], "rb") as f:
            data = f.read()
        EARLY = ParseChild(data, "--allow-unregistered-dialect" in argv)
    except Exception:
        EARLY = None


def adopt(data: bytes, allow_unregistered: bool) -> ParseChild | None:
    """The early child if it parses ``data`` with these options, else ``None`` (it is then
    stopped)."""
    global EARLY
    child, EARLY = EARLY, None
    if child is None:
        return None
    if child.allow_unregistered == allow_unregistered and child.data == data:
        return child
    child.cancel()
    return None


def discard_early() -> None:
    """Stop an early child nobody adopted."""
    global EARLY
    child, EARLY = EARLY, None
    if child is not None:
        child.cancel()


# --------------------------------------------------------------------------------------------
# The parent


def _set_donations(fn: TextFunction, pairs: dict[int, int], donors: Sequence[int]) -> None:
    """:func:`.jaxlib_ir.set_arg_donations` on the text's attribute dictionaries, for a later
    pass of the same pipeline."""
    from jax_use_donated.analysis.errors import ALIASING_OUTPUT, BUFFER_DONOR

    kept = set(donors)
    for i in range(len(fn.arg_attrs)):
        d = dict(fn.arg_attrs[i] or {})
        d.pop(ALIASING_OUTPUT, None)
        d.pop(BUFFER_DONOR, None)
        if i in pairs:
            d[ALIASING_OUTPUT] = f"{pairs[i]} : i32"
        elif i in kept:
            d[BUFFER_DONOR] = "true"
        fn.arg_attrs[i] = d or None


def plan_text(module: TextModule, passes: Sequence[Any], outcome: Outcome) -> Rewrites:
    """``passes`` on the text's models, as :func:`.fast_path.run_pipeline` runs them on
    jaxlib's (diagnostics into the active sink, plans into ``outcome``); the rewrites to
    apply. :class:`Declined` where that function would give up."""
    from jax_use_donated.adapters.jax_text import TextModuleAdapter, TextUnsupported
    from jax_use_donated.analysis.errors import DonationError
    from jax_use_donated.analysis.orderings import ORDERING_NAMES, ordering_model
    from jax_use_donated.analysis.plan import plan_donation
    from jax_use_donated.transforms.plan_donation import JaxPlanDonation, JaxVerifyDonation

    rewrites: Rewrites = {}
    seconds = outcome.seconds
    for p in passes:
        if isinstance(p, JaxPlanDonation):
            if p.mode != "alias" or p.remove_matched_outputs or (p.xla_fallback and p.fusion_safe):
                raise Declined(f"{p.name}: options the xDSL pass refuses")
            if p.ordering != "auto" and p.ordering not in ORDERING_NAMES:
                raise Declined(f"{p.name}: unknown ordering")
            ordering, keep, fusion = p.effective_ordering, p.keep_existing_aliases, p.fusion_safe
        elif isinstance(p, JaxVerifyDonation):
            if p.ordering not in ORDERING_NAMES:
                raise Declined(f"{p.name}: unknown ordering")
            ordering, keep, fusion = p.ordering, True, False
        else:
            raise Declined(f"pass {p.name}")
        adapter = TextModuleAdapter(module, inline=ordering_model(ordering).xla)
        for fn_text in adapter.functions_with_donors():
            t0 = time.perf_counter()
            try:
                fn = adapter.build(fn_text)
                t1 = time.perf_counter()
                plan = plan_donation(fn, ordering, keep, fusion)
            except TextUnsupported as err:
                raise Declined(f"the text reader: {err}") from None
            except DonationError as err:
                raise Declined(f"@{fn_text.name}: {err.message}") from None
            t2 = time.perf_counter()
            outcome.plans.append((fn, plan))
            if isinstance(p, JaxPlanDonation):
                fallback = p._fallback(fn, plan)  # pyright: ignore[reportPrivateUsage]
                if p.strict and plan.unpaired:
                    raise Declined("a strict plan fails")
                p._report(fn, plan, None, None, fallback)  # pyright: ignore[reportPrivateUsage, reportArgumentType]
                pairs, donors = fallback.all_pairs(plan), sorted(fallback.buffer_donors)
                rewrites[fn_text.name] = (pairs, donors)
                _set_donations(fn_text, pairs, donors)
            seconds["model"] += t1 - t0
            seconds["plan"] += t2 - t1
    return rewrites


def run_in_parallel(data: bytes, passes: Sequence[Any], allow_unregistered: bool,
                    timings: dict[str, float]) -> tuple[Outcome, str]:
    """The outcome and output text of ``passes`` on ``data`` (see the module docstring);
    :class:`Declined` when the bindings route must run instead. Diagnostics are collected
    here and emitted by the caller (``outcome.warnings``)."""
    from jax_use_donated.adapters.jax_text import TextUnsupported, read_module
    from jax_use_donated.diagnostics import collect_diagnostics
    from jax_use_donated.jaxlib_module import Outcome

    if not hasattr(os, "fork"):
        raise Declined("no fork() here")
    mark = time.perf_counter()
    child = adopt(data, allow_unregistered)
    if child is None:
        child = ParseChild(data, allow_unregistered)
        timings["fork"] = time.perf_counter() - mark
    outcome = Outcome("")
    for step in ("read", "model", "plan"):
        outcome.seconds[step] = 0.0
    try:
        mark = time.perf_counter()
        try:
            module = read_module(data.decode())
        except TextUnsupported as err:
            raise Declined(f"the text reader: {err}") from None
        outcome.seconds["read"] = time.perf_counter() - mark
        with_donors = [f.name for f in module.functions.values()
                       if f.body is not None and f.has_donors]
        with collect_diagnostics() as sink:
            rewrites = plan_text(module, passes, outcome)
        outcome.warnings = list(sink.diagnostics)
    except BaseException:
        child.cancel()
        raise
    mark = time.perf_counter()
    text = child.finish(rewrites, with_donors)
    outcome.seconds["jaxlib wait"] = time.perf_counter() - mark
    return outcome, text
