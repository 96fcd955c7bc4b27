"""The conformance suite every kanjax game must pass (pgx's `api_test`, made stricter).

`check_env(env)` plays a few random matches to the end and checks: the State contract
(fields, dtypes, shapes), that `init`/`step`/`observe` compile once, that a vmapped batch of
B games equals B single games step by step, that the legal mask is non-empty until the end
and all-True after it, that matches end within `env.max_steps`, that terminal states stay put,
that an illegal action makes the mover forfeit without corrupting anything, and that every
player's observation of every state has the spec's shape and dtype and lies within its
bounds (`env.observation_spec()`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Env, State
from kanjax.bots import uniform_random
from kanjax.rollout import game_key, step_keys

COMMON_FIELDS = {
    "current_player": (jnp.int8, ()),
    "terminated": (jnp.bool_, ()),
    "truncated": (jnp.bool_, ()),
    "illegal_action": (jnp.bool_, ()),
    "step_count": (jnp.int32, ()),
}


def check_state_contract(env: Env, state: State) -> None:
    for name, (dtype, shape) in COMMON_FIELDS.items():
        x = getattr(state, name)
        assert x.dtype == dtype and x.shape == shape, f"{name}: {x.dtype}{x.shape}"
    assert state.legal_action_mask.dtype == jnp.bool_
    assert state.legal_action_mask.shape == (env.num_actions,)
    assert state.rewards.dtype == jnp.float32
    assert state.rewards.shape == (env.num_players,)


class _TraceCounter:
    """Wraps a function and counts how often jit traces it."""

    def __init__(self, fn):
        self.fn, self.count = fn, 0

    def __call__(self, *args):
        self.count += 1
        return self.fn(*args)


def _random_actions(key: jax.Array, states: State) -> jax.Array:
    keys = jax.random.split(key, states.legal_action_mask.shape[0])
    return jax.vmap(uniform_random, in_axes=(0, None, 0))(keys, None, states.legal_action_mask)


def check_env(env: Env, batch: int = 3, seed: int = 0, compare_steps: int = 40) -> dict:
    """Run the whole suite on `env`; returns a few figures (steps per game) for the caller."""
    key = jax.random.PRNGKey(seed)
    init_c, step_c, obs_c = _TraceCounter(env.init), _TraceCounter(env.step), _TraceCounter(
        env.observe
    )
    init_b = jax.jit(jax.vmap(init_c))
    step_b = jax.jit(jax.vmap(step_c))
    obs_b = jax.jit(jax.vmap(obs_c))
    init_1, step_1 = jax.jit(env.init), jax.jit(env.step)
    keys_b = jax.jit(jax.vmap(lambda k, s: step_keys(env, k, s)[1]))
    actions_b = jax.jit(_random_actions)

    gkeys = jax.vmap(lambda g: game_key(key, g))(jnp.arange(batch))
    states = init_b(gkeys)
    check_state_contract(env, jax.tree.map(lambda x: x[0], states))
    singles = [init_1(gkeys[g]) for g in range(batch)]
    _assert_batch_equals_singles(states, singles, "init")

    spec = env.observation_spec()
    assert env.observation_spec().shape == spec.shape
    assert set(env.observation_spec().slices()) == {f.name for f in spec.fields}
    check_observations(env, obs_b, states, "init")

    returns = np.zeros((batch, env.num_players), np.float64)
    ended_at = np.full(batch, -1)
    akey = jax.random.PRNGKey(seed + 1)
    for t in range(env.max_steps + 1):
        done = np.asarray(states.terminated | states.truncated)
        mask = np.asarray(states.legal_action_mask)
        assert mask.any(axis=1).all(), f"empty legal mask at step {t}"
        assert mask[done].all(), "terminal state without an all-True mask"
        assert np.all(np.asarray(states.current_player)[~done] >= 0)
        if done.all():
            break
        akey, sub = jax.random.split(akey)
        actions = actions_b(sub, states)
        skeys = keys_b(gkeys, states)
        nxt = step_b(states, actions, skeys)
        if t < compare_steps:
            singles = [step_1(singles[g], actions[g], skeys[g]) for g in range(batch)]
            _assert_batch_equals_singles(nxt, singles, f"step {t}")
        check_observations(env, obs_b, nxt, f"step {t}")
        newly = np.asarray(nxt.terminated | nxt.truncated) & ~done
        ended_at[newly] = t + 1
        returns += np.asarray(nxt.rewards)
        states = nxt
    assert (ended_at > 0).all(), f"a match did not end within max_steps={env.max_steps}"
    assert not np.asarray(states.illegal_action).any()

    # A terminal state stays put and pays nothing.
    again = step_b(states, jnp.zeros(batch, jnp.int32), skeys)
    for a, b in zip(jax.tree.leaves(again.replace(rewards=states.rewards)),
                    jax.tree.leaves(states), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert not np.asarray(again.rewards).any()

    _check_illegal_action(env, init_b(gkeys), step_b, skeys)
    assert init_c.count == 1 and step_c.count == 1 and obs_c.count == 1, (
        f"recompiled: init {init_c.count}, step {step_c.count}, observe {obs_c.count}"
    )
    return {"steps": ended_at.tolist(), "returns": returns.tolist()}


def check_observations(env: Env, obs_b, states: State, where: str) -> None:
    """Every player's observation of the batch `states` (`obs_b`: the jitted, vmapped
    `observe`): the spec's shape and dtype, every element within its field's bounds."""
    spec = env.observation_spec()
    low, high = spec.bounds()
    batch = states.step_count.shape[0]
    for p in range(env.num_players):
        obs = obs_b(states, jnp.full(batch, p, jnp.int32))
        assert obs.shape == (batch, *spec.shape) and obs.dtype == spec.dtype, (
            f"{where}: observation {obs.dtype}{obs.shape}, spec {spec.dtype}{spec.shape}")
        obs = np.asarray(obs)
        bad = (obs < low) | (obs > high)
        if bad.any():
            g, i = np.argwhere(bad)[0]
            name = next(k for k, sl in spec.slices().items() if sl.start <= i < sl.stop)
            raise AssertionError(f"{where}: player {p}'s observation of game {g}: field "
                                 f"{name!r} element {i - spec.slices()[name].start} = "
                                 f"{obs[g, i]}, outside {low[i]}..{high[i]}")


def _check_illegal_action(env: Env, states: State, step_b, skeys) -> None:
    mask = np.asarray(states.legal_action_mask)
    illegal = np.argmin(mask, axis=1)  # the first illegal action of each game
    assert not mask[np.arange(len(illegal)), illegal].any(), "every action legal at the start"
    out = step_b(states, jnp.asarray(illegal, jnp.int32), skeys)
    assert np.asarray(out.terminated).all() and np.asarray(out.illegal_action).all()
    rewards = np.asarray(out.rewards)
    movers = np.asarray(states.current_player)
    np.testing.assert_allclose(rewards.sum(1), 0, atol=1e-5)
    assert (rewards[np.arange(len(movers)), movers] == env.illegal_action_penalty).all()
    assert np.asarray(out.legal_action_mask).all()


def _assert_batch_equals_singles(batched: State, singles: list[State], where: str) -> None:
    for g, single in enumerate(singles):
        for path_leaf, leaf in zip(jax.tree_util.tree_leaves_with_path(batched),
                                   jax.tree.leaves(single), strict=True):
            path, bleaf = path_leaf
            np.testing.assert_array_equal(
                np.asarray(bleaf[g]), np.asarray(leaf),
                err_msg=f"{where}: vmap differs from a single game (game {g}, {path})",
            )
