"""Assertions for the user's own tests (public names; the implementation is
:mod:`jax_use_donated.dropin.assertions`)::

    import jax_use_donated.testing as judt

    def test_train_step_reuses_every_donated_buffer():
        judt.assert_copy_free(train_step, model, opt_state, batch)
"""

from jax_use_donated.dropin.assertions import assert_copy_free

__all__ = ["assert_copy_free"]
