"""The PIMC bot (solvers.pimc) on both backends: its problems against `search.encode` (JAX) and
`convert.from_state` (CPU) and its scores against the CPU reference solver on real Gonin Kan
states, and its choice against its own scores and the heuristic.

States come from random play of the engine (deal 1..3, both seat counts), so every position is
reachable and every observation is the engine's own (KAN-46).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.bots import uniform_random
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import PLAY
from kanjax.games.kan.heuristic import make_heuristic
from kanjax.games.kan.views import header_slots
from solvers import convert, pimc, pimc_jax, search
from solvers import reference as ref


def play_states(env, count: int, seed: int, min_trick: int = 0,
                contract: bool = False) -> list:
    """`count` states in trick play (trick index >= `min_trick`; with `contract`, under a
    Yonin contract) met in random matches."""
    step, init = jax.jit(env.step), jax.jit(env.init)
    key = jax.random.PRNGKey(seed)
    out, state = [], init(key)
    while len(out) < count:
        key, k1, k2 = jax.random.split(key, 3)
        if bool(state.terminated):
            state = init(k1)
            continue
        g = header_slots(env, state)
        if int(g["phase"]) == PLAY and int(g["trick"]) >= min_trick and (
                not contract or int(g["contract"]) > 0):
            out.append(state)
        state = step(state, uniform_random(k1, None, state.legal_action_mask), k2)
    return out


def true_holders(state) -> jax.Array:
    loc = state._loc.astype(jnp.int32)
    return jnp.where((loc >= 0) & (loc < 8), loc, -1)


def mover_position(env, state):
    """The state's double-dummy position, seen from the side of the player to move."""
    pos, _ = convert.from_state(env, state)
    return pos if pos.side[pos.to_move] else pos.other_side()


def target(env, state) -> int:
    """The mover's side's target (KAN-29): T(d) for the kankei, U(d) = 17 - T(d) else
    (Gambari: the bid t, KAN-67)."""
    g = header_slots(env, state)
    t = int(g["target"]) if int(g.get("target", -1)) >= 0 else ks.KANKEI_TARGET[int(g["deal"])]
    return int(t if g["kankei"][int(state.current_player)] > 0 else 17 - t)


@pytest.mark.parametrize("players", [5, 6])
def test_problems_equal_encode_kan24_to_kan29(players):
    """The problem built in JAX from an observation and the true layout is `search.encode`'s
    (suit words in relative ranks, points, the current trick, scalars, side, goal)."""
    env = kanjax.make("gonin_kan", players=players)

    @jax.jit
    def problem(obs, holders):
        v = pimc_jax._view(env, obs)
        return pimc_jax._problem(env, v, pimc_jax._cards(env, v), holders)

    for state in play_states(env, 30, players):
        obs = env.observe(state, state.current_player.astype(jnp.int32))
        got = problem(obs, true_holders(state))
        pos = mover_position(env, state)
        t = target(env, state)
        want = search.encode([dataclasses.replace(pos, root_moves=None)],
                             [(t, int(got["scalars"][-1]) - t)])
        for field in ("hands", "points", "trick", "scalars", "side", "goal", "window"):
            np.testing.assert_array_equal(np.asarray(got[field]), getattr(want, field)[0],
                                          err_msg=field)


@pytest.fixture(scope="module")
def bot():
    return pimc_jax.JaxPimc(kanjax.make("gonin_kan"), samples=4, lanes=16)


@pytest.fixture(scope="module")
def scores(bot):
    return jax.jit(bot.scores)


@pytest.fixture(scope="module")
def endings(bot):
    """(states, observations, masks) of late tricks (small enough for the reference)."""
    states = play_states(bot.env, 12, 7, min_trick=6)
    obs = jnp.stack([bot.env.observe(s, s.current_player.astype(jnp.int32)) for s in states])
    return states, obs, jnp.stack([s.legal_action_mask for s in states])


def test_scores_on_the_true_layout_are_the_reference_goals_kan29(bot, scores, endings):
    """Given the true layout, a move scores 1 iff the mover's side still reaches its target
    against perfect play (the CPU reference solver), moves of one class alike."""
    states, obs, masks = endings
    b = len(states)
    holders = jnp.broadcast_to(jnp.stack([true_holders(s) for s in states])[:, None],
                               (b, bot.samples, 53))
    ok = jnp.zeros((b, bot.samples), bool).at[:, 0].set(True)
    active = jnp.arange(b) % 4 != 0  # and nothing is searched for the others
    moves, score = scores(obs, masks, active, holders, ok)
    asked = 0
    for i, state in enumerate(states):
        pos = mover_position(bot.env, state)
        values = ref.move_values(pos)
        got = {int(m): float(s) for m, s in zip(moves[i], score[i], strict=True) if m >= 0}
        if len(values) == 1 or not active[i]:
            assert got == {}, "no search for a forced move or an inactive game"
            continue
        asked += 1
        t = target(bot.env, state)
        assert got == {m: float(v >= t) for m, v in values.items()}, i
    assert asked >= 4


def test_policy_plays_a_best_scored_move_else_the_heuristic_jit_vmap(bot, scores, endings):
    """The one-game policy (under jit and vmap) plays the heuristic's choice among the moves
    of best mean over the sampled layouts."""
    _, obs, masks = endings
    b = obs.shape[0]
    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(b))
    actions = jax.jit(jax.vmap(bot.policy))(keys, obs, masks)
    holders, ok = jax.jit(jax.vmap(bot.sampler))(keys, obs)
    assert bool(ok.all())
    moves, score = scores(obs, masks, jnp.ones(b, bool), holders, ok)
    heuristic = jax.jit(jax.vmap(make_heuristic(bot.env)))
    for i in range(b):
        mask = np.asarray(masks[i])
        if (moves[i] >= 0).any():
            best = np.asarray(moves[i])[np.asarray(score[i]) == float(np.max(score[i]))]
            mask = np.isin(np.arange(mask.size), best) & mask
        want = heuristic(keys[i][None], obs[i][None], jnp.asarray(mask)[None])[0]
        assert int(actions[i]) == int(want), i
        assert bool(masks[i][int(actions[i])])


def test_pimc_rejects_other_games():
    with pytest.raises(ValueError, match="whist"):
        pimc.Pimc(kanjax.make("whist"))
    with pytest.raises(ValueError, match="yonin_kan.*JAX search"):
        pimc_jax.JaxPimc(kanjax.make("yonin_kan"))
    with pytest.raises(ValueError, match="whist"):
        pimc.make_bot(kanjax.make("whist"))


@pytest.mark.parametrize("players", [5, 6])
def test_cpu_layout_positions_are_the_engines_kan24_to_kan29(players):
    """On the true layout, the CPU path's position is `convert.from_state`'s from the
    mover's side, its goal the side's target (KAN-29)."""
    env = kanjax.make("gonin_kan", players=players)
    rules = convert.rules_of(env)
    for state in play_states(env, 20, players + 10):
        obs = env.observe(state, state.current_player.astype(jnp.int32))
        t = env.layout_position(env.layout_view(np.asarray(obs)), np.asarray(true_holders(state)))
        pos = convert.position_of(t, rules)
        assert pos == dataclasses.replace(mover_position(env, state), root_moves=None)
        total = pos.taken + pos.taken_other + ref.remaining(pos)
        assert t["goal"] == (target(env, state), total - target(env, state))


@pytest.fixture(scope="module")
def cpu_bot():
    return pimc.Pimc(kanjax.make("gonin_kan"), samples=4)


def test_cpu_scores_on_the_true_layout_are_the_reference_goals_kan29(cpu_bot, endings):
    """As `test_scores_on_the_true_layout_are_the_reference_goals_kan29`, on the CPU search."""
    states, obs, masks = endings
    b = len(states)
    holders = jnp.broadcast_to(jnp.stack([true_holders(s) for s in states])[:, None],
                               (b, cpu_bot.samples, 53))
    ok = np.zeros((b, cpu_bot.samples), bool)
    ok[:, 0] = True
    views = [cpu_bot.env.layout_view(o) for o in np.asarray(obs)]
    got = cpu_bot.scores(views, np.asarray(holders), ok)
    for i, state in enumerate(states):
        pos = mover_position(cpu_bot.env, state)
        values = ref.move_values(pos)
        t = target(cpu_bot.env, state)
        searched = cpu_bot.env.searched(views[i], np.asarray(masks[i]), cpu_bot.max_cards)
        assert searched == (len(values) > 1), i
        assert got[i] == {m: float(v >= t) for m, v in values.items()}, i


def test_cpu_pimc_decides_from_whole_hands(cpu_bot):
    """Trick 1 (whole hands, the CPU path's default): legal moves, each scored over the
    sampled layouts (a small node budget: open problems count 1/2)."""
    env = cpu_bot.env
    small = pimc.Pimc(env, samples=2, budget=20_000)
    states = play_states(env, 3, 11)
    obs = jnp.stack([env.observe(s, s.current_player.astype(jnp.int32)) for s in states])
    masks = jnp.stack([s.legal_action_mask for s in states])
    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(len(states)))
    holders, ok = (np.asarray(x) for x in small._sample(keys, obs))
    views = [env.layout_view(o) for o in np.asarray(obs)]
    scores = small.scores(views, holders, ok)
    assert small.max_cards == 10 and any(scores)
    for s, m in zip(scores, np.asarray(masks), strict=True):
        assert all(m[a] and 0 <= x <= 1 for a, x in s.items())
    actions = small.decide(keys, obs, masks, jnp.ones(len(states), bool))
    assert all(bool(m[int(a)]) for m, a in zip(masks, actions, strict=True))


def mover_goal_results(env, state) -> dict[int, bool]:
    """Each legal move's result for the mover's side by the reference solver: its target
    (KAN-29, KAN-48; Gambari's bid, KAN-67), or under a Yonin contract (KAN-60) the contract's
    goal (`TrickPlay.trick_goals`) for the declaring team, its failure for the other team."""
    g = header_slots(env, state)
    pos = mover_position(env, state)
    kankei = np.asarray(g["kankei"]) > 0
    kind = int(g["contract"]) if "contract" in g else ks.NO_CONTRACT
    out = {}
    for m in ref.legal_moves(pos):
        after = ref.play(pos, m)
        if kind == ks.NO_CONTRACT:
            t = target(env, state)
            total = pos.taken + pos.taken_other + ref.remaining(pos)
            out[m] = ref.reaches(after, t, total - t)
            continue
        declarer = int(g["declarer"])
        name = ("sukonku" if kind == ks.SKUNK else "juuroku")
        name = name if kankei[declarer] else "gyaku_" + name
        _, side_min, other_max = env.trick_goals(state)[name]
        mine = kankei[declarer] == kankei[int(state.current_player)]
        out[m] = (ref.reaches(after, side_min, other_max) if mine
                  else not ref.reaches(after.other_side(), side_min, other_max))
    return out


@pytest.fixture(scope="module", params=["yonin_kan", "gambari_kan"])
def other_kan(request):
    """A CPU PIMC bot for Yonin or Gambari Kan and late states of random matches (Yonin's
    include deal 1 with secret teams, KAN-52, and contracts, KAN-56)."""
    env = kanjax.make(request.param)
    bot = pimc.Pimc(env, samples=2)
    states = play_states(env, 24, 3, min_trick=6)
    if env.name == "yonin_kan":
        states += play_states(env, 4, 4, min_trick=5, contract=True)
    return bot, states


def test_cpu_positions_and_goals_yonin_gambari_kan48_to_kan67(other_kan):
    """On the true layout, the CPU path's position is `convert.from_state`'s from the mover's
    side (Yonin deal 1: the teams the layout's JK and trump jack name, KAN-50), and each
    move's scored goal is the reference's result for the mover's side."""
    bot, states = other_kan
    env = bot.env
    b = len(states)
    obs = jnp.stack([env.observe(s, s.current_player.astype(jnp.int32)) for s in states])
    masks = jnp.stack([s.legal_action_mask for s in states])
    views = [env.layout_view(o) for o in np.asarray(obs)]
    holders = np.broadcast_to(np.stack([true_holders(s) for s in states])[:, None],
                              (b, bot.samples, 53))
    ok = np.zeros((b, bot.samples), bool)
    ok[:, 0] = True
    got = bot.scores(views, holders, ok)
    rules = convert.rules_of(env)
    secret = contract = 0
    for i, state in enumerate(states):
        v = views[i]
        pos = convert.position_of(env.layout_position(v, np.asarray(true_holders(state))), rules)
        assert pos == dataclasses.replace(mover_position(env, state), root_moves=None), i
        secret += bool((v["kankei"] < 0).any())
        contract += int(v.get("contract", [0])[0]) > 0
        want = mover_goal_results(env, state)
        assert env.searched(v, np.asarray(masks[i]), bot.max_cards) == (len(want) > 1), i
        assert got[i] == {m: float(r) for m, r in want.items()}, i
    if env.name == "yonin_kan":
        assert secret and contract, (secret, contract)


def test_KAN_47_KAN_63_cpu_pimc_decides_yonin_gambari(other_kan):
    bot, states = other_kan
    env = bot.env
    obs = jnp.stack([env.observe(s, s.current_player.astype(jnp.int32)) for s in states[:4]])
    masks = jnp.stack([s.legal_action_mask for s in states[:4]])
    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(4))
    actions = bot.decide(keys, obs, masks, jnp.ones(4, bool))
    assert all(bool(m[int(a)]) for m, a in zip(masks, actions, strict=True))
