"""Batched whole-match rollouts: every match ends, returns are the match scores, seating works."""

import jax
import jax.numpy as jnp
import numpy as np

import kanjax
from kanjax.bots import uniform_random
from kanjax.envs.kan import summary
from kanjax.rollout import game_key, rollout, step_keys


def first_legal(key, observation, legal_mask):
    return jnp.argmax(legal_mask).astype(jnp.int32)


def test_rollout_plays_whole_matches_with_seated_policies():
    env = kanjax.make("gonin_kan", n_rounds=1)
    seating = jnp.array([[0, 1, 0, 1, 0], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]], jnp.int32)
    out = rollout(env, jax.random.PRNGKey(0), 3, (uniform_random, first_legal), seating)
    assert np.asarray(out.state.terminated).all()
    assert not np.asarray(out.state.illegal_action).any()
    scores = np.asarray(jax.vmap(summary)(out.state)["scores"])
    np.testing.assert_allclose(np.asarray(out.returns), scores)  # rewards sum to match scores
    steps = np.asarray(out.steps)
    assert (steps > 10).all() and (steps <= env.max_steps).all()

    # Game 1 seats `first_legal` everywhere: replaying it by hand gives the same match.
    gkey = game_key(jax.random.PRNGKey(0), 1)
    state, step = env.init(gkey), jax.jit(env.step)
    skey = jax.jit(lambda s: step_keys(env, gkey, s)[1])
    while not bool(state.terminated):
        state = step(state, jnp.argmax(state.legal_action_mask), skey(state))
    assert int(state.step_count) == steps[1]
    np.testing.assert_allclose(np.asarray(summary(state)["scores"]), scores[1])
