"""Property tests (hypothesis) of the Kan engines over random matches.

Invariants: cards are conserved (KAN-1, KAN-8, KAN-23), the legal mask is non-empty until
the end, points never exceed 16 (KAN-3), round scores follow the tables (KAN-40..KAN-42,
KAN-62, KAN-68), and every match ends within the env's step bound.
"""

import functools

import jax
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kanjax
from kanjax.bots import uniform_random
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import summary
from kanjax.rollout import game_key, step_keys

ENVS = {  # one config a table (the compiles are most of the cost; the differential tests
    # cover the other scoring flags against the references)
    "gonin_5p": ("gonin_kan", {"n_rounds": 2}),
    "gonin_6p": ("gonin_kan", {"players": 6, "n_rounds": 2, "shippo_jo": True}),
    "yonin": ("yonin_kan", {"n_rounds": 3, "yonin_joker_trick1_contract": "any"}),
    "gambari": ("gambari_kan", {"n_rounds": 4, "gambari_min_target": 5}),
}


@functools.cache
def _engine(name):
    game, flags = ENVS[name]
    env = kanjax.make(game, **flags)

    def step(state, gkey):
        pkey, skey = step_keys(env, gkey, state)
        action = uniform_random(pkey, None, state.legal_action_mask)
        nxt = env.step(state, action, skey)
        return nxt, action, summary(nxt)

    init = jax.jit(lambda k: (lambda s: (s, summary(s)))(env.init(k)))
    return env, init, jax.jit(step)


def _np(d):
    return {k: np.asarray(v) for k, v in d.items()}


@settings(max_examples=8, deadline=None)
@given(name=st.sampled_from(sorted(ENVS)), seed=st.integers(0, 2**31 - 1))
def test_KAN_invariants_hold_in_random_matches(name, seed):
    env, init, step = _engine(name)
    gkey = game_key(jax.random.PRNGKey(seed), 0)
    state, s = init(gkey)
    s = _np(s)
    in_hands = int((s["hand_owner"] >= 0).sum())
    deck = int(env.deck.sum())
    assert in_hands == deck  # KAN-8: all cards dealt, 10 to each active player
    for _ in range(env.max_steps):
        if bool(state.terminated):
            break
        mask = np.asarray(state.legal_action_mask)
        assert mask.any(), "empty legal mask before the end"
        state, action, s1 = step(state, gkey)
        s1 = _np(s1)
        action = int(action)
        held = int((s1["hand_owner"] >= 0).sum())
        if bool(s1["deal_done"]) and not bool(state.terminated):
            assert held == deck and np.bincount(s1["hand_owner"][s1["hand_owner"] >= 0]).max() == 10
        elif not bool(s1["deal_done"]):
            assert held == in_hands - (action <= ks.LEAD_JK + 3), "a card appeared or vanished"
        assert 0 <= s1["points"].sum() <= 16  # KAN-3
        rewards = np.asarray(state.rewards)
        if rewards.any():  # a round ended: KAN-40 — every kankei gets Rk, every mukankei Rm
            kankei = s["kankei"].copy()
            if env.num_players == 6:
                kankei[int(s["dealer"])] = True  # the sitting-out dealer is a kankei (KAN-17)
            rk, rm = set(rewards[kankei].tolist()), set(rewards[~kankei].tolist())
            assert len(rk) == 1 and len(rm) == 1, rewards
            if env.config.variant == "gambari":  # KAN-68: v to the lone kankei, -v each
                ratio = 2 if env.config.gambari_scoring == "per_opponent" else 1
                assert rk == {-ratio * v for v in rm}
            elif env.config.scoring == "standard" and env.num_players == 5:
                assert rk == {-v for v in rm}  # KAN-41: the standard table is symmetric
            if (env.num_players, env.config.scoring) != (5, "standard") and (
                    env.config.gambari_scoring == "per_opponent"):
                assert abs(rewards.sum()) < 1e-6  # KAN-42, 6p, Yonin, Gambari: zero-sum
        in_hands, s = held, s1
    assert bool(state.terminated) and not bool(state.truncated)
    assert int(state.step_count) <= env.max_steps
