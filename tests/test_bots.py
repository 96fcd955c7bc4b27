"""The uniform random bot: always legal, uniform over the legal actions; a game's random bot
(`make_random`): its own where it names one (`Bots.random_bot`), else the uniform one."""

import jax
import numpy as np

import kanjax
from kanjax.bots import make_random, uniform_random


def test_uniform_random_is_legal_and_uniform():
    legal = np.zeros(228, bool)
    legal[[0, 31, 32, 100, 227]] = True
    keys = jax.random.split(jax.random.PRNGKey(0), 20_000)
    picks = np.asarray(jax.jit(jax.vmap(uniform_random, in_axes=(0, None, None)))(
        keys, None, legal))
    values, counts = np.unique(picks, return_counts=True)
    assert values.tolist() == [0, 31, 32, 100, 227]
    assert np.all(np.abs(counts / 20_000 - 0.2) < 0.015)


def test_uniform_random_single_legal_action():
    for a in (0, 5, 63, 64, 227):
        legal = np.zeros(228, bool)
        legal[a] = True
        assert int(uniform_random(jax.random.PRNGKey(a), None, legal)) == a


def test_make_random_is_uniform_unless_the_game_names_its_own():
    for game in kanjax.games():
        env = kanjax.make(game)
        assert (make_random(env) is uniform_random) == (env.random_bot is None), game
    assert kanjax.make("konkan").random_bot is not None
