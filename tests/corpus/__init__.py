"""A corpus of real JAX programs lowered to StableHLO/CHLO/Shardy text (see ``programs.py``)."""
