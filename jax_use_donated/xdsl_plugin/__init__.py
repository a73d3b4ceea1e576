"""The ``xdsl-opt`` plugin: the ``jax`` frontend and target (JAX's text read and printed
bit-exactly), the passes ``jax-plan-donation``, ``jax-verify-donation`` and
``jax-reuse-donated-destinations``, and the ``xdsl.universe`` entry point that offers them
(:mod:`.universe`). Kept import-free: ``xdsl-opt`` loads the entry point on every start."""
