"""The jaxlib path's fork helper (:mod:`.opt.child`) and signature splicer
(:mod:`.opt.signatures`), which both routes (text and bindings) use."""

from __future__ import annotations

import threading
import time
import warnings
from typing import Any

import pytest

from jax_use_donated.adapters.jaxlib_ir import set_arg_donations, symbol_name
from jax_use_donated.opt import jaxlib_io, signatures
from jax_use_donated.opt.child import Child, Link


def test_a_child_answers_length_prefixed_messages() -> None:
    def echo(link: Link) -> None:
        while (message := link.receive()) is not None:
            link.send(message[::-1])

    child = Child(echo)
    big = bytes(range(256)) * (1 << 16)  # 16 MiB: many pipe buffers, one message
    for payload in (b"abc", b"", big):
        assert child.send(payload)
        assert child.receive() == payload[::-1]
    assert child.finish()  # closing our end ends its loop: exit code 0
    assert child.pid is None and not child.send(b"late") and child.receive() is None


def test_a_failing_child_is_a_missing_message_and_a_failed_exit() -> None:
    def fail(link: Link) -> None:
        raise RuntimeError("the child fails")

    child = Child(fail)
    assert child.receive() is None
    assert not child.finish()


def test_cancel_kills_a_busy_child_and_reaps_it() -> None:
    child = Child(lambda link: time.sleep(60))
    pid = child.pid
    assert pid is not None
    start = time.perf_counter()
    child.cancel()
    assert time.perf_counter() - start < 5 and child.pid is None
    with pytest.raises(ChildProcessError):
        import os

        os.waitpid(pid, 0)
    child.cancel()  # twice: nothing left to do


def test_forking_beside_a_thread_warns_of_nothing() -> None:
    """Python 3.12+ warns of ``fork()`` in a multi-threaded process; the helper does not."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            child = Child(lambda link: link.send(b"ok"))
            assert child.receive() == b"ok" and child.finish()
    finally:
        stop.set()
        thread.join()
    assert [str(w.message) for w in caught] == []


MODULE = """
module {
  func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<f32>) -> (tensor<4xf32> {jax.result_info = "r"}) {
    %0 = stablehlo.negate %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  module @inner {
    func.func private @g(%arg0: tensor<2xi32> {jax.buffer_donor = true}) -> tensor<2xi32> {
      %0 = stablehlo.abs %arg0 : tensor<2xi32>
      return %0 : tensor<2xi32>
    }
  }
}
"""


def _module() -> tuple[Any, dict[str, Any]]:
    module = jaxlib_io.parse(MODULE.encode())
    return module, {symbol_name(f): f for f in jaxlib_io.functions_with_donors(module)}


@pytest.mark.parametrize("rebuild", [True, False], ids=["builder", "printed alone"])
def test_the_splice_is_jaxlib_s_print_of_the_rewritten_module(
        rebuild: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Top-level and nested functions; each line rebuilt from the argument dictionaries, or
    (where the builder would not rebuild it) printed alone: the same text either way."""
    if not rebuild:
        monkeypatch.setattr(signatures.SignatureBuilder, "check",
                            classmethod(lambda cls, func, line, dicts: None))
    module, functions = _module()
    before = jaxlib_io.print_verified_module(module)
    splicer = signatures.Splicer(functions)
    assert splicer.locate(before)
    assert set(splicer.spans) == {"main", "g"}
    assert all((b is not None) == rebuild for b in splicer.builders.values())
    set_arg_donations(functions["main"], {0: 0}, [])
    set_arg_donations(functions["g"], {}, [0])  # unchanged
    assert splicer.changed() == ["main"]
    after = splicer.splice(before, splicer.changed())
    assert after == jaxlib_io.print_module(module)
    assert "tf.aliasing_output = 0 : i32" in after and after != before


def test_a_signature_found_twice_or_not_at_all_is_not_located() -> None:
    module, functions = _module()
    text = jaxlib_io.print_verified_module(module)
    line = text.splitlines()[1].strip()
    assert line.startswith("func.func public @main(")
    assert signatures.signature_span(text, "main") is not None
    assert signatures.signature_span(text + "  " + line + "\n", "main") is None
    assert signatures.signature_span("module {\n}\n", "main") is None
    splicer = signatures.Splicer(functions)
    assert not splicer.locate("module {\n}\n", ["main"])
    assert splicer.locate(text, ["main"]) and "g" not in splicer.spans
