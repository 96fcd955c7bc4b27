"""The CPU backend (`solvers.cpu`) on the Kan games' rules: Gonin Kan (5 seats, and the 6-player
game's 5 active seats), Yonin Kan and Gambari Kan. Exact values and every move's value against
the plain-Python reference on random endings (the joker's rules KAN-25..KAN-27 and KAN-54,
point cards KAN-3, mid-trick roots, root limits, random sides) and short whole deals; the kan
questions (the kankei's target KAN-29, the contracts KAN-31 / KAN-32 as goals) against the
reference; a subset against the JAX search; the move generator against each engine's legal
mask along random deals.

The numba functions compile once a process (about a minute on the 2-core CI machine in a fresh
checkout; numba's cache loads them in seconds later); every test shares them.
"""

from __future__ import annotations

import dataclasses
import random

import jax
import numpy as np
import pytest

from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import CONTRACT
from solvers import api
from solvers import reference as ref
from solvers.convert import deal_state, from_state
from solvers.cpu import backend as cpu
from solvers.position import Position, Rules
from tests.solvers.rules import game_rules
from tests.solvers.test_convert import deal_text
from tests.solvers.test_reference_solver import mini, random_position

VARIANTS = {"gonin_kan": game_rules("gonin_kan"), "yonin_kan": game_rules("yonin_kan"),
            "gambari_kan": game_rules("gambari_kan")}
MINI = {"mini_gonin": mini(VARIANTS["gonin_kan"], 9),  # J Q K A, JK: 3 tricks, JK in trick 2
        "mini_yonin": mini(VARIANTS["yonin_kan"], 9, drop=(48,)),  # 4 tricks, low JK last
        "mini_gambari": mini(VARIANTS["gambari_kan"], 10)}  # Q K A, JK: 4 tricks


def endings(rules: Rules, count: int, seed: int, most: int) -> list[Position]:
    """Random positions 1..`most` tricks from the end, mid-trick as often as not, the joker
    dealt in most."""
    rng = random.Random(seed)
    return [random_position(rules, rng, rng.randint(1, most), rng.randrange(rules.n),
                            with_joker=rng.random() < 0.7) for _ in range(count)]


def whole_deals(rules: Rules, count: int, seed: int) -> list[Position]:
    """Random whole deals of the mini rules, the joker dealt, at trick 1's first card or later
    in it."""
    rng = random.Random(seed)
    return [random_position(rules, rng, rules.n_tricks, rng.randrange(rules.n),
                            with_joker=True) for _ in range(count)]


def _check_values(positions: list[Position]) -> None:
    sols = api.solve(positions, all_moves=True, backend="cpu", threads=2)
    for pos, sol in zip(positions, sols, strict=True):
        solver = ref.Solver(pos.rules, pos.trump, pos.side)
        assert sol.value == solver.value(pos), pos
        assert sol.move_ids == {m: solver.value(ref.play(pos, m))
                             for m in ref.legal_moves(pos)}, pos


@pytest.mark.parametrize("game", VARIANTS)
def test_values_and_every_move_equal_the_reference(game):
    """80 endings a variant, up to 3 tricks (Gonin) or 4 from the end."""
    rules = VARIANTS[game]
    _check_values(endings(rules, 80, seed=len(game), most=3 if rules.n == 5 else 4))


@pytest.mark.parametrize("game", MINI)
def test_short_whole_deals_equal_the_reference(game):
    """Whole deals from trick 1 (where the joker may not be led: KAN-25, KAN-54)."""
    _check_values(whole_deals(MINI[game], 12, seed=len(game)))


@pytest.mark.slow
@pytest.mark.parametrize("game", [*VARIANTS, *MINI])
def test_thousands_of_endings_equal_the_reference(game):
    rules = VARIANTS.get(game) or MINI[game]
    _check_values(endings(rules, 1000, seed=7, most=4) if game in VARIANTS
                  else whole_deals(rules, 200, seed=7))


def test_root_limits_equal_the_reference():
    rng = random.Random(5)
    positions = []
    for rules in VARIANTS.values():
        for p in endings(rules, 20, seed=rules.n, most=3):
            moves = ref.legal_moves(p)
            positions.append(dataclasses.replace(p, root_moves=tuple(rng.sample(
                moves, rng.randint(1, len(moves))))))
    got = api.solve(positions, backend="cpu")
    assert [s.value for s in got] == [ref.value(p) for p in positions]


def kan_goals(pos: Position, target: int) -> list[tuple[Position, tuple[int, int]]]:
    """The kan questions of `solvers.pimc` and `TrickPlay.trick_goals` for the side of `pos` as
    the kankei: its target T (KAN-29), sukonku (T with the others at 0, KAN-31), juuroku
    (all 16, KAN-32), and the mukankei's: U = 17 - T, gyaku sukonku, gyaku juuroku."""
    other = pos.other_side()
    total = pos.taken + pos.taken_other + ref.remaining(pos)
    return [(pos, (target, total - target)), (pos, (target, 0)), (pos, (16, 0)),
            (other, (17 - target, total - 17 + target)), (other, (17 - target, 0)),
            (other, (16, 0))]


def _questions(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    rng = random.Random(seed)
    asks = []
    for rules in VARIANTS.values():
        for p in endings(rules, count, seed=seed + rules.n, most=3):
            asks += kan_goals(p, rng.choice(ks.KANKEI_TARGET[1:]))
    return asks


def test_kan_29_questions_equal_the_reference():
    """The targets and contracts as goals (`api.reaches`, `api.named_goals`)."""
    asks = _questions(25, seed=3)
    got = api.reaches([p for p, _ in asks], [g for _, g in asks], backend="cpu")
    assert got == [ref.reaches(p, *g) for p, g in asks]
    assert any(got) and not all(got)
    pos = asks[0][0]
    goals = {"sukonku": (True, 9, 0), "gyaku_juuroku": (False, 16, 0)}
    assert api.named_goals([pos], [goals], backend="cpu") == [
        {"sukonku": ref.reaches(pos, 9, 0),
         "gyaku_juuroku": ref.reaches(pos.other_side(), 16, 0)}]


def test_auto_picks_the_cpu_backend_for_kan_on_a_cpu():
    pos = endings(VARIANTS["gonin_kan"], 1, seed=0, most=2)
    assert api.backend_of(pos) == ("cpu" if jax.default_backend() == "cpu" else "jax")


@pytest.fixture(scope="module")
def jax_subset():
    """A few Gonin Kan endings (the JAX search compiles for each rules: one rules here, one
    program for values and one for goals)."""
    positions = endings(VARIANTS["gonin_kan"], 12, seed=21, most=3)
    asks = [q for p in positions[:4] for q in kan_goals(p, 9)]
    return positions, asks


def test_values_equal_the_jax_search(jax_subset):
    positions, _ = jax_subset
    want = api.solve(positions, lanes=8, tt_bits=8, backend="jax")
    assert [s.value for s in api.solve(positions, backend="cpu")] == [s.value for s in want]


def test_kan_29_questions_equal_the_jax_search(jax_subset):
    _, asks = jax_subset
    args = [p for p, _ in asks], [g for _, g in asks]
    assert api.reaches(*args, backend="cpu") == api.reaches(*args, lanes=8, tt_bits=8,
                                                           backend="jax")


@pytest.mark.parametrize(("game", "fields", "kw"), [
    ("gonin_kan", "players=6", {}),
    pytest.param("gonin_kan", "", {}, marks=pytest.mark.slow),
    pytest.param("yonin_kan", "", {}, marks=pytest.mark.slow),
    pytest.param("gambari_kan", "", {"leader": 1}, marks=pytest.mark.slow),
])
def test_kan_24_kan_27_move_generator_is_the_engine_mask(game, fields, kw):
    """Along a random deal through the engine (the 6-player game's sitting-out dealer
    included), the compiled move generator's moves at every card are the legal mask's
    (`TrickPlay.trick_position`; within the root limits of rules it does not play: Yonin's
    compulsory first lead, KAN-53), and the position's value and every move's are the reference's
    from five cards a hand on. One variant by default (the engine's step compiles for each:
    seconds), every one under `-m slow`."""
    rng = np.random.default_rng(len(game) + len(fields))
    env, state = deal_state(deal_text(game, rng, fields), key=jax.random.PRNGKey(0), **kw)
    step = jax.jit(env.step)
    key = jax.random.PRNGKey(1)
    checked = 0
    for _ in range(60):
        if bool(np.asarray(env.deal_done(state))):
            break
        if int(np.asarray(env.layout.unpack(state)["phase"])) == CONTRACT:
            state = step(state, ks.CONTRACT_NONE, key)  # Yonin: no contract
            continue
        pos, _ = from_state(env, state)
        mask = np.flatnonzero(np.asarray(state.legal_action_mask)[: ks.LEAD_JK + 4])
        got = [m for m in cpu.legal_moves(pos) if pos.root_moves is None or m in pos.root_moves]
        assert sorted(got) == mask.tolist(), pos  # a rule the solver does not play: root_moves
        if pos.cards_left <= 5 * pos.rules.n:
            [sol] = api.solve([pos], all_moves=True, backend="cpu")
            assert (sol.value, sol.move_ids) == (ref.value(pos), ref.move_values(pos))
        checked += 1
        state = step(state, int(rng.choice(mask)), key)
    assert checked >= 3 * 10


def test_more_seats_than_the_table_packs_are_refused():
    rules = dataclasses.replace(VARIANTS["gonin_kan"], game="kan_seven", n=7, n_tricks=7,
                                joker=("any",) * 7)
    with pytest.raises(ValueError, match=r"7 seats \(Rules.n\): the cpu backend takes 2..6"):
        cpu.check(rules)


@pytest.mark.parametrize("game", VARIANTS)
def test_next_start_key_and_pattern_equal_them_from_scratch(game):
    """The search derives a trick start's class key (without the slack) and holder pattern
    from the previous start's and the trick's cards (`search._next_start`): equal to them
    computed from the hands, along random tricks (joker leads and follows among them)."""
    from solvers.cpu import search

    rules = VARIANTS[game]
    codes, cfg = cpu._codes(rules)
    rng = random.Random(7)
    n = rules.n

    def start(p):
        hands = np.zeros((n, 4), np.int64)
        jk = cpu._encode(p, codes, hands, np.zeros(n, np.int64))
        live = np.bitwise_or.reduce(hands, axis=0)
        pat, key = np.zeros(4, np.int64), np.zeros(3, np.int64)
        search._pattern(hands, n, live, pat)
        search._class_key(hands, n, jk, live, cfg, -1, False, key)
        return jk, live, pat, key

    checked = 0
    for _ in range(60):
        pos = random_position(rules, rng, rng.randint(2, 5), 0, with_joker=rng.random() < 0.8)
        _, live0, pat0, key0 = start(pos)
        p, trick = pos, np.zeros(n, np.int64)
        for _ in range(n - 1):
            p = ref.play(p, rng.choice(ref.legal_moves(p)))
        cpu._encode(p, codes, np.zeros((n, 4), np.int64), trick)
        last = rng.choice(ref.legal_moves(p))
        trick[n - 1] = min(codes[last], search.JK_CODE)
        p = ref.play(p, last)
        if len(p.trick) or p.tricks_done == pos.tricks_done:
            continue
        jk1, live1, pat1, key1 = start(p)
        base, pat = np.zeros(2, np.int64), np.zeros(4, np.int64)
        search._next_start(trick, 0, n, pos.leader, jk1, live0, key0[:2], pat0, base, pat,
                           np.zeros(4, np.int64))
        assert list(base) == list(key1[:2]) and list(pat) == list(pat1), pos
        assert search._points_key(live1, cfg) == key1[2]
        checked += 1
    assert checked > 30
