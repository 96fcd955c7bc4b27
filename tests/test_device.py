"""Whole matches on the default device (a GPU where one is installed) equal the CPU's: the
`gpu` tests that the accelerator check runs (`scripts/accelerator_check.py`, issue 45 item 5);
on a CPU-only machine both sides are the CPU."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.rollout import make_rollout

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("game, flags", [("gonin_kan", {"n_rounds": 1}), ("whist", {})])
def test_matches_on_the_default_device_equal_the_cpus(game, flags):
    env = kanjax.make(game, **flags)
    run = make_rollout(env)
    key, seating = jax.random.PRNGKey(7), jnp.zeros((8, env.num_players), jnp.int32)
    here = run(key, seating)
    assert {d.platform for d in here.returns.devices()} == {jax.default_backend()}
    cpu = jax.devices("cpu")[0]
    there = run(jax.device_put(key, cpu), jax.device_put(seating, cpu))
    assert {d.platform for d in there.returns.devices()} == {"cpu"}
    np.testing.assert_array_equal(np.asarray(here.returns), np.asarray(there.returns))
    np.testing.assert_array_equal(np.asarray(here.steps), np.asarray(there.steps))
