"""XLA's all-reduce combiner in the model (:mod:`jax_use_donated.analysis.collectives`): which
all-reduces become one, and the order the ops are put back in. The executable's side (a
``shard_map`` data-parallel step whose kernels XLA aliases copy-free only because of the
combiner) is checked by ``tests/test_public_steps.py`` (``shard_map_dp``)."""

from __future__ import annotations

from jax_use_donated.analysis.collectives import combine_all_reduces, combine_groups
from jax_use_donated.analysis.model import Arg, FunctionModel, Op, Result, TensorInfo

F32 = TensorInfo("tensor<4xf32>", (4,), "f32", 32)
I32 = TensorInfo("tensor<4xi32>", (4,), "i32", 32)


def _op(index: int, name: str, operands: list[int], result: int,
        t: TensorInfo = F32) -> Op:
    return Op(index, name, operands, [result], [t] * len(operands), [t])


def _step(second_type: TensorInfo = F32) -> FunctionModel:
    """Two layers' gradients all-reduced, each update reading its own; then an all-reduce of
    the second update (it depends on the second gradient's all-reduce)."""
    args = [Arg(i, i, F32, F32.text) for i in range(3)]
    ops = [
        _op(0, "stablehlo.dot_general", [0, 1], 10),       # gradient 0
        _op(1, "stablehlo.all_reduce", [10], 11),           # its psum
        _op(2, "stablehlo.add", [0, 11], 12),               # update 0
        _op(3, "stablehlo.dot_general", [2, 1], 13, second_type),
        _op(4, "stablehlo.all_reduce", [13], 14, second_type),
        _op(5, "stablehlo.add", [2, 14], 15, second_type),  # update 1
        _op(6, "stablehlo.all_reduce", [15], 16, second_type),
    ]
    fn = FunctionModel("step", args, ops, [Result(0, 12, F32, F32.text),
                                           Result(1, 16, second_type, second_type.text)])
    fn.check()
    return fn


def _same(op: Op) -> object:
    return "all_reduce(add)"


def test_independent_all_reduces_combine_and_a_dependent_one_starts_a_group() -> None:
    fn = _step()
    assert combine_groups(fn, _same) == [[1, 4]]  # 6 depends on 4: left alone
    out = combine_all_reduces(fn, _same)
    out.check()
    assert [op.name for op in out.ops] == [
        "stablehlo.dot_general", "stablehlo.dot_general", "stablehlo.all_reduce",
        "stablehlo.add", "stablehlo.add", "stablehlo.all_reduce"]
    combined = out.ops[2]
    assert combined.operands == [10, 13] and combined.results == [11, 14]
    assert [op.index for op in out.ops] == list(range(6))
    # update 0 now follows the second layer's gradient (it waits for the combined psum)
    assert out.ops[3].operands == [0, 11]


def test_other_keys_and_other_element_types_stay_apart() -> None:
    assert combine_groups(_step(), lambda op: f"groups={op.index % 2}") == []
    assert combine_groups(_step(I32), _same) == []
    fn = _step()
    assert combine_all_reduces(fn, lambda op: None) is fn  # no key: nothing combined
