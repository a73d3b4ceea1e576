"""Random-program generators and oracles for the reliability campaign (docs/reliability.md).

* :mod:`tests.fuzz.jax_programs`: hypothesis strategies building random JAX programs (with
  pytrees of inputs and outputs, random donate sets, an optional 4-device sharding);
* :mod:`tests.fuzz.jit_oracle`: runs one program through ``jax_use_donated.jit`` and plain
  ``jax.jit`` and checks results, invalidated inputs, the compiled aliasing and XLA's copies;
* :mod:`tests.fuzz.xla_facts`: aliasing, copies and temp bytes read from compiled programs;
* :mod:`tests.fuzz.stablehlo_modules`: random StableHLO modules (pretty and generic text);
* :mod:`tests.fuzz.xla_exec`: parse and verify MLIR text with jaxlib, compile and run it with
  XLA;
* :mod:`tests.fuzz.pass_oracle`: runs ``jax-donate-opt`` on a module and checks the output
  against the input with jaxlib and XLA;
* :mod:`tests.fuzz.sharded_worker`: the sharded jit campaign, in its own process;
* :mod:`tests.fuzz.campaign`: long campaigns that log progress and keep going past failures.
"""
