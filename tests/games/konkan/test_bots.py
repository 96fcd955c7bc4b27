"""Konkan's bots (`kanjax.games.konkan.heuristic`, `kanjax.games.konkan.random_bot`): both legal
under jit and vmap over whole games for n = 3 solo and 4 in pairs (n = 2 and 5 under `-m
slow`), the random bot what a
tournament's kind "random" plays, the heuristic's plan against the exact opening search, and
the heuristic opening more often than the random bots.

Cheap by design (one compile of the engine per player count, short games): each game seats
the heuristic against the Konkan random bot or uniform random play, and at every state of it
both Konkan bots are asked for a move (whoever sits there), so each is checked in the other's
positions too."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kanjax.bots import make_heuristic, make_random, uniform_random
from kanjax.games.konkan import heuristic as kh
from kanjax.games.konkan import meld as mk
from kanjax.games.konkan import spec as ks
from kanjax.games.konkan.random_bot import make_konkan_random
from kanjax.rollout import step_keys
from tests.games.konkan.helpers import make, position

BATCH = 4
HEUR, RAND, UNIFORM = 0, 1, 2


@functools.cache
def player(env):
    """A jitted (states int[BATCH], game keys, seating int[BATCH, n] of HEUR / RAND /
    UNIFORM) -> (final states, the first move each bot proposes [3, BATCH], an illegal move
    of each Konkan bot proposed at a live state [2], retracts by each bot [3], rounds each
    bot's seats ended opened and in all [3, 2]): the games played to their ends under vmap,
    every state's move proposed by every bot."""
    bots = (make_heuristic(env), make_random(env), uniform_random)
    B = BATCH
    sl = env.observation_spec().slices()["opened"]

    def body(c):
        s, gkeys, seating, acc = c
        live = ~(s.terminated | s.truncated)
        keys = jax.vmap(lambda k, st: step_keys(env, k, st))(gkeys, s)
        cur = jnp.maximum(s.current_player, 0).astype(jnp.int32)
        obs = jax.vmap(env.observe)(s, cur)
        acts = jnp.stack([jax.vmap(b)(keys[0], obs, s.legal_action_mask) for b in bots])
        legal = jnp.take_along_axis(s.legal_action_mask[None], acts[..., None], 2)[..., 0]
        mover = seating[jnp.arange(B), cur]
        act = acts[mover, jnp.arange(B)]
        s2 = env.step_batch(s, act, keys[1])
        ended = live & env.deal_done(s2) & ~s2.illegal_action
        opened = obs[:, sl] == 1  # the round's flags before its last step
        per_bot = jnp.arange(3)[:, None, None] == seating[None]  # [3, B, n]
        acc = {
            "first": jnp.where((s.step_count == acc["start"])[None], acts, acc["first"]),
            "start": acc["start"],
            "illegal": acc["illegal"] + (live[None] & ~legal[:2]).sum(1),
            "retract": acc["retract"] + ((jnp.arange(3)[:, None] == mover[None]) & live[None]
                                         & (act == ks.RETRACT)[None]).sum(1),
            "rounds": acc["rounds"] + jnp.stack([
                (per_bot & (ended[:, None] & opened)[None]).sum((1, 2)),
                (per_bot & ended[None, :, None]).sum((1, 2))], 1),
        }
        return s2, gkeys, seating, acc

    def run(states, gkeys, seating):
        acc = {"first": jnp.zeros((3, B), jnp.int32), "start": states.step_count,
               "illegal": jnp.zeros(2, jnp.int32), "retract": jnp.zeros(3, jnp.int32),
               "rounds": jnp.zeros((3, 2), jnp.int32)}
        s, _, _, acc = jax.lax.while_loop(
            lambda c: ~jnp.all(c[0].terminated | c[0].truncated), body,
            (states, gkeys, seating, acc))
        return s, acc

    return jax.jit(run), jax.jit(jax.vmap(env.init))


def seating(n: int, opponent: int) -> jnp.ndarray:
    """Lane b: the heuristic at the seats p with (p + b) even, `opponent` at the others (in
    pairs: a team each)."""
    return jnp.asarray([[HEUR if (p + b) % 2 == 0 else opponent for p in range(n)]
                        for b in range(BATCH)], jnp.int32)


def play(env, seats, seed: int = 0, states=None) -> dict:
    run, init = player(env)
    gkeys = jax.random.split(jax.random.PRNGKey(seed), BATCH)
    final, acc = run(init(gkeys) if states is None else states, gkeys, seats)
    out = {k: np.asarray(v) for k, v in acc.items()}
    out["terminated"] = np.asarray(final.terminated)
    return out


def check_legal(out: dict) -> None:
    """Every move either Konkan bot proposed at a live state was legal; the games ended (no
    truncation), and the heuristic never needed `retract` (its openings are planned whole)."""
    assert out["terminated"].all()
    assert out["illegal"].tolist() == [0, 0]
    assert out["retract"][HEUR] == 0


@pytest.mark.parametrize("flags", [
    pytest.param(dict(n=2, n_rounds=2, max_turns_per_round=40), marks=pytest.mark.slow),
    dict(n=3, n_rounds=1, max_turns_per_round=40, opening_requires_run=False),
    pytest.param(dict(n=5, n_rounds=1, max_turns_per_round=40, take_must_use_card=False),
                 marks=pytest.mark.slow),
], ids=["n2", "n3_no_run", "n5_take_free"])
def test_both_bots_are_legal_over_whole_games(flags):
    """n = 3 (n = 2 and 5 under `-m slow`: each player count compiles the engine and both bots
    again, about 20 CPU-seconds; n = 4: in pairs, below), the heuristic against the Konkan
    random bot; both open somewhere."""
    env = make(**flags)
    out = play(env, seating(env.n, RAND))
    check_legal(out)
    assert out["rounds"][HEUR, 0] > 0 and out["rounds"][RAND, 0] > 0


PAIRS = make(partnership=True, n_rounds=2, max_turns_per_round=60)


def test_in_pairs_the_heuristic_opens_more_often_than_random_bots():
    """n = 4 in pairs (the bots read nothing of the partnership: solo n = 4 plays the same
    observations), the heuristic's team against uniform random play and against the Konkan
    random bot: both bots legal, and the heuristic ends more rounds opened; the Konkan random
    bot opens far more often than uniform random play (what it is for: a tournament's random
    games reach openings)."""
    vs_uniform, vs_random = (play(PAIRS, seating(4, bot), seed) for bot, seed in
                             ((UNIFORM, 1), (RAND, 2)))
    for out in (vs_uniform, vs_random):
        check_legal(out)

    def share(out, bot):
        return out["rounds"][bot, 0] / out["rounds"][bot, 1]

    assert share(vs_uniform, HEUR) > 0.7 > 0.3 > share(vs_uniform, UNIFORM)
    assert share(vs_random, HEUR) > share(vs_random, RAND) > share(vs_uniform, UNIFORM)


def test_heuristic_moves_in_scripted_positions():
    """The first mover holding an opening (a run and a set, 54) picks the run first (the
    opening needs one); a player at his turn's start takes a discard that completes an opening
    (scenario 11) and draws where it completes nothing; an opened player holding the card a
    run's joker stands for picks it (to retrieve the joker). The games then play on."""
    drawing = ["6D 7D KS KD KC QH QS QC 2H 4S 9C 9H 3D JS", "", "", ""]
    states = [
        position(PAIRS, hands=["7H 8H 9H QS QD QC 2S 5S 9C 4D 3H JS 6C KD", "", "", ""]),
        position(PAIRS, hands=drawing, pile="8D", phase=ks.PHASE_DRAW),
        position(PAIRS, hands=drawing, pile="5C", phase=ks.PHASE_DRAW),
        position(PAIRS, hands=["5S 9H 2C", "", "", ""], melds=[(0, "TD JD QD KD AD"),
                                                                (1, "4S JK 6S")]),
    ]
    states = jax.tree.map(lambda *x: jnp.stack(x), *states)
    out = play(PAIRS, jnp.full((BATCH, 4), HEUR, jnp.int32), states=states)
    check_legal(out)
    assert [PAIRS.action_name(a) for a in out["first"][HEUR]] == [
        "pick 7H", "take", "draw", "pick 5S"]


def test_random_bot_is_the_tournament_random_kind():
    assert make_random(PAIRS).__qualname__ == make_konkan_random(PAIRS).__qualname__
    assert make_random(make(n=3)) is not uniform_random


# ---- the heuristic's plan ---------------------------------------------------------------------
def test_plan_never_claims_an_opening_the_exact_search_denies():
    """On random 15-card hands (with and without a taken card to use) the plan succeeds only
    where the exact opening search (`kanjax.games.konkan.meld.opening_batch`) finds an opening, and
    in most of those."""
    rng = np.random.default_rng(5)
    B = 128
    hands = np.zeros((B, ks.NUM_TYPES), np.int32)
    for b in range(B):
        for t in rng.choice(np.repeat(np.arange(ks.NUM_TYPES), ks.COPIES), 15, replace=False):
            hands[b, t] += 1
    hands = jnp.asarray(hands)
    c = jnp.argmax(hands > 0, 1).astype(jnp.int32)
    plan = jax.jit(jax.vmap(lambda h, c, use: kh._plan(
        h, jnp.int32(51), jnp.bool_(True), use, c, kh._candidates(h))[0], (0, 0, None)))
    for use in (False, True):
        exact = np.asarray(mk.opening_batch(hands, c, jnp.full(B, 51), jnp.ones(B, bool),
                                            True, use, width=64))
        ok = np.asarray(plan(hands, c, use))
        assert not (ok & ~exact).any()
        assert ok.sum() >= 0.9 * exact.sum() > 0
