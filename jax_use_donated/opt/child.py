"""One forked child with a pipe each way, for the jaxlib path's two forks (the text route's
planner, :mod:`.text_route`; the bindings route's print, :mod:`.print_ahead`).

The child runs ``work(link)`` and leaves with ``os._exit`` (0 when ``work`` returned, 1 when
it raised: no traceback, no Python teardown, no output of its own); messages are
length-prefixed (8 bytes, little-endian), so the reader knows a message came whole. Forking
is silent: Python 3.12+ warns of ``fork()`` in a multi-threaded process, and JAX (if
imported) of any fork, and neither warning applies to a child that runs only this package's
code or jaxlib's printer (the callers make sure of that)::

    child = Child(lambda link: link.send((link.receive() or b"").upper()))
    child.send(b"abc")
    assert child.receive() == b"ABC" and child.finish()

Standard library only: the ``jax-donate-opt`` command imports it before anything else.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import warnings
from collections.abc import Callable

_HEAD = struct.Struct("<Q")
_CHUNK = 1 << 22


def _send(fd: int, payload: bytes) -> None:
    """``payload`` with its length in front (written in two steps: no copy of a large one)."""
    for part in (_HEAD.pack(len(payload)), payload):
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view):]


def _read_exactly(fd: int, n: int) -> bytes | None:
    chunks: list[bytes] = []
    while n:
        chunk = os.read(fd, min(n, _CHUNK))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _receive(fd: int) -> bytes | None:
    """The next whole message, ``None`` at the end of the pipe (the writer is gone)."""
    head = _read_exactly(fd, _HEAD.size)
    if head is None:
        return None
    return _read_exactly(fd, _HEAD.unpack(head)[0])


class Link:
    """The child's end: :meth:`receive` what the parent sends, :meth:`send` to it."""

    def __init__(self, incoming: int, outgoing: int) -> None:
        self.incoming, self.outgoing = incoming, outgoing

    def send(self, payload: bytes) -> None:
        _send(self.outgoing, payload)

    def receive(self) -> bytes | None:
        """The parent's next message; ``None`` when the parent closed its end (gave up)."""
        return _receive(self.incoming)


class Child:
    """``work(link)`` in a forked child; the parent :meth:`send` s, :meth:`receive` s, then
    :meth:`finish` es (waits for the exit) or :meth:`cancel` s (kills it). ``OSError`` from
    ``fork`` or ``pipe`` reaches the caller."""

    def __init__(self, work: Callable[[Link], object]) -> None:
        down_read, down_write = os.pipe()
        up_read, up_write = os.pipe()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pid = os.fork()
        except OSError:
            for fd in (down_read, down_write, up_read, up_write):
                os.close(fd)
            raise
        if pid == 0:  # the child: work, then leave without any Python teardown
            code = 1
            try:
                os.close(down_write)
                os.close(up_read)
                work(Link(down_read, up_write))
                code = 0
            except BaseException:  # the parent sees a missing message or the exit code
                pass
            finally:
                os._exit(code)
        os.close(down_read)
        os.close(up_write)
        self.pid: int | None = pid
        self.outgoing: int | None = down_write
        self.incoming: int | None = up_read

    def send(self, payload: bytes) -> bool:
        """Send ``payload``; ``False`` when the child is gone (its next reply is missing)."""
        if self.outgoing is None:
            return False
        try:
            _send(self.outgoing, payload)
        except OSError:
            return False
        return True

    def receive(self) -> bytes | None:
        """The child's next message; ``None`` when it ended (or failed) without one."""
        if self.incoming is None:
            return None
        try:
            return _receive(self.incoming)
        except OSError:
            return None

    def finish(self) -> bool:
        """Close the pipes and wait for the child; whether it exited with 0."""
        self._close()
        return self._reap()

    def cancel(self) -> None:
        """Kill the child (if it still runs), close the pipes and reap it."""
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
        self._close()
        self._reap()

    def _close(self) -> None:
        for fd in (self.outgoing, self.incoming):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.outgoing = self.incoming = None

    def _reap(self) -> bool:
        pid, self.pid = self.pid, None
        if pid is None:
            return False
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return False
        return os.waitstatus_to_exitcode(status) == 0
