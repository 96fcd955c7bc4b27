"""Turns of several actions (kanjax/api.py, docs/turns.md), on the prototype game of
tests/staged_env.py: the conformance suite under jit and vmap, every started turn completes,
`turn_done` marks turn ends, rollouts and records handle staged selections, and the n-card
follow of DBF-25 through `trick.follow_n_mask`."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kanjax import records
from kanjax.conformance import check_env
from kanjax.core import trick
from kanjax.games import GAMES
from kanjax.rollout import make_rollout
from tests.staged_env import PLAY, SUIT, StagedEnv


@pytest.fixture(scope="module")
def env() -> StagedEnv:
    return StagedEnv()


@pytest.fixture(scope="module")
def trajectory(env):
    """64 random games, every state and action: (states by step, actions by step)."""
    step = jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(7), 64)
    state = jax.vmap(env.init)(keys)
    states, actions = [state], []
    pick = jax.jit(jax.vmap(lambda k, m: jax.random.choice(k, m.shape[0], p=m / m.sum())))
    for t in range(env.max_steps):
        if bool(jnp.all(state.terminated)):
            break
        a = pick(jax.random.split(jax.random.PRNGKey(t), 64),
                 state.legal_action_mask.astype(jnp.float32))
        state = step(state, a)
        states.append(state)
        actions.append(np.asarray(a))
    return [jax.tree.map(np.asarray, s) for s in states], actions


def test_conformance_under_jit_and_vmap(env):
    check_env(env, batch=3)


def test_every_started_turn_completes_and_turn_done_marks_its_end(env, trajectory):
    states, actions = trajectory
    plays = turns = 0
    for t, a in enumerate(actions):
        before, after = states[t], states[t + 1]
        live = ~before.terminated
        done = np.asarray(jax.vmap(env.turn_done)(after))
        assert (done[live] == (a[live] == PLAY)).all()  # only `play` ends a turn
        same = after.current_player == before.current_player
        assert same[live & ~done & ~after.terminated].all()  # a turn keeps its mover
        plays += int((live & (a == PLAY)).sum())
        turns += int((live & done).sum())
    assert plays == turns > 0
    last = states[-1]
    assert last.terminated.all() and not last.illegal_action.any()
    np.testing.assert_allclose(last._won.sum(1), 16)  # every card was played in a trick


def test_DBF_21_DBF_25_multi_card_leads_and_n_card_follows_fire(env, trajectory):
    states, actions = trajectory
    two_leads = short_suit_follows = 0
    for t, a in enumerate(actions):
        s = states[t]
        ends = (a == PLAY) & ~s.terminated
        count = s._picked.sum(1)
        leading = s._trick[:, 4] == 0
        two_leads += int((ends & leading & (count == 2)).sum())
        led = s._trick[:, 0][:, None]
        of_led = (SUIT[None] == led) & s._picked
        short_suit_follows += int((ends & ~leading & (count == 2) & (of_led.sum(1) == 1)).sum())
    assert two_leads > 20 and short_suit_follows > 0


def test_DBF_25_follow_n_mask_forces_the_led_suit_up_to_n():
    suit = np.array([0, 0, 0, 1, 1, 1])
    hand = np.array([True, False, False, True, True, True])  # one card of suit 0
    none = np.zeros(6, bool)
    of_led = suit == 0

    def picks(picked, n):
        return np.flatnonzero(trick.follow_n_mask(hand, picked, of_led, n)).tolist()

    assert picks(none, 1) == [0]  # n = 1: follow_mask
    assert picks(none, 2) == [0, 3, 4, 5]  # room for the one led card either way
    assert picks(np.arange(6) == 0, 2) == [3, 4, 5]  # the led card picked: any other
    assert picks(np.arange(6) == 3, 2) == [0]  # an other card first: the led one is owed
    assert picks(none, 3) == [0, 3, 4, 5]
    assert picks(np.isin(np.arange(6), [0, 3]), 2) == []  # n picked: nothing more


def test_rollouts_play_staged_turns_to_the_end(env):
    run = make_rollout(env)
    out = run(jax.random.PRNGKey(3), jnp.zeros((8, 2), jnp.int32))
    assert bool(out.state.terminated.all())
    np.testing.assert_allclose(np.asarray(out.returns).sum(1), 1.0, rtol=1e-6)


def test_records_replay_staged_turns(monkeypatch):
    monkeypatch.setitem(GAMES, "staged_test", "tests.staged_env:make_staged")
    record = records.play_record("staged_test", seed=5)
    assert "play" in record["actions"] and any(a.startswith("pick") for a in record["actions"])
    assert records.replay(record).ok
    bad = dict(record, actions=[*record["actions"][:1], "play", "play"])
    assert not records.replay(bad).ok
