"""Random-program generators and oracles for the reliability campaign (issue 6).

* :mod:`tests.fuzz.jax_programs`: hypothesis strategies building random JAX programs (with
  pytrees of inputs and outputs and random donate sets) for the jit hook;
* :mod:`tests.fuzz.jit_oracle`: runs one program through ``jax_use_donated.jit`` and plain
  ``jax.jit`` and checks results, invalidated inputs, the compiled aliasing and XLA's copies;
* :mod:`tests.fuzz.stablehlo_modules`: random StableHLO modules (pretty and generic text);
* :mod:`tests.fuzz.xla_exec`: compile and run MLIR module text with XLA, parse and verify it
  with jaxlib's MLIR.
"""
