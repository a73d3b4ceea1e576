"""The ``jax-donate-opt`` command: :mod:`.cli` (its first module), :mod:`.driver` (the
``xdsl-opt``-style driver and its xDSL path), :mod:`.jaxlib_path` (the same passes on jaxlib's
C++ MLIR), :mod:`.text_route` (that path's model read from the text in a forked child)."""
