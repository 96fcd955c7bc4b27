"""The shared conformance suite (kanjax.conformance) on variants beyond each game's small flags
(those run in tests/test_every_game.py, for every registered game), and the observation specs
it checks against."""

import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import ObservationSpec, ObsField
from kanjax.conformance import check_env
from kanjax.games.whist.engine import WhistEnv

CASES = [
    ("gonin_kan", {"players": 6, "n_rounds": 1, "shippo_jo": True}),
    ("yonin_kan", {"n_rounds": 2}),
    ("gambari_kan", {"n_rounds": 2, "gambari_min_target": 6}),
    ("whist", {"trump": "H", "leader": "N"}),
]


@pytest.mark.parametrize("game,flags", CASES, ids=lambda v: str(v))
def test_conformance(game, flags):
    env = kanjax.make(game, **flags)
    figures = check_env(env, batch=3)
    assert all(0 < s <= env.max_steps for s in figures["steps"])


def test_make_rejects_unknown_game_and_flag():
    with pytest.raises(ValueError, match="unknown game 'gonin'"):
        kanjax.make("gonin")
    with pytest.raises(ValueError, match="unknown config key 'player'"):
        kanjax.make("gonin_kan", player=6)
    with pytest.raises(ValueError, match="zero_sum_5p"):
        kanjax.make("gonin_kan", players=6, scoring="zero_sum_5p")
    with pytest.raises(ValueError, match="unknown config key 'shippo_jo' for yonin_kan"):
        kanjax.make("yonin_kan", shippo_jo=True)
    with pytest.raises(ValueError, match="gambari_min_target=0"):
        kanjax.make("gambari_kan", gambari_min_target=0)
    with pytest.raises(ValueError, match="unknown config key 'players' for whist"):
        kanjax.make("whist", players=4)


def test_observation_spec_derives_shape_dtype_and_slices():
    small = ObservationSpec((ObsField("a", 2, -1, 9, ""), ObsField("b", 1, 0, 30000, "")))
    assert small.shape == (3,) and small.dtype == np.int16
    assert small.slices() == {"a": slice(0, 2), "b": slice(2, 3)}
    assert [x.tolist() for x in small.bounds()] == [[-1, -1, 0], [9, 9, 30000]]
    wide = ObservationSpec(small.fields + (ObsField("score", 4, -40000, 40000, ""),))
    assert wide.dtype == np.int32
    obs = small.assemble({"b": jnp.int32(7), "a": jnp.array([[True], [False]])})
    assert obs.dtype == jnp.int16 and obs.tolist() == [1, 0, 7]
    with pytest.raises(ValueError, match="observation field 'a': 3 values, want 2"):
        small.assemble({"a": jnp.zeros(3), "b": 0})


@pytest.mark.parametrize("game,flags", CASES, ids=lambda v: str(v))
def test_every_game_observes_in_its_spec(game, flags):
    env = kanjax.make(game, **flags)
    spec = env.observation_spec()
    assert spec.dtype in (np.int16, np.int32) and env.observation_spec().shape == spec.shape
    assert all(f.low <= f.high and f.size > 0 and f.meaning for f in spec.fields)


def test_observations_outside_their_bounds_fail_the_check():
    """Whist with a spec that allows 5 completed tricks at most: the check names the field."""
    fields = WhistEnv.observation_spec().fields
    tight = ObservationSpec(tuple(dataclasses.replace(f, high=5) if f.name == "trick" else f
                                  for f in fields))

    class Tight(WhistEnv):
        def observation_spec(self):
            return tight

    with pytest.raises(AssertionError, match="field 'trick' element 0 = 6, outside 0..5"):
        check_env(Tight(), batch=2)
