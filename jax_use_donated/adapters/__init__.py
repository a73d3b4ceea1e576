"""Adapters that build the IR-neutral :class:`~jax_use_donated.analysis.model.FunctionModel`
from a concrete IR library (``xdsl_ir`` for xDSL)."""
