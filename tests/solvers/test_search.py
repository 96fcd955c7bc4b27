"""The batched JAX solver (solvers.search, solvers.api) against the CPU reference solver.

Positions come from random play: a random deal, then random legal moves (the reference's
rules) until a chosen number of cards is left, so every position is reachable (the Kan
joker is never held in the last trick, KAN-25). One batch per game, so each game compiles
the search once.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from solvers import api, search
from solvers import reference as ref
from solvers.position import Position, Rules
from solvers.search import bounds, play, queue
from tests.solvers.rules import WHIST, game_rules

GAMES = {
    "whist": WHIST,
    "gonin_kan": game_rules("gonin_kan"),
    "yonin_kan": game_rules("yonin_kan"),
    "gambari_kan": game_rules("gambari_kan"),
}


def random_deal(rules: Rules, rng: random.Random) -> Position:
    """A uniformly random deal at its first card, trump and leader at random; the side is a
    random non-empty proper subset of the seats (the kankei, a partnership, ...)."""
    cards = list(rules.ids)
    rng.shuffle(cards)
    k = rules.n_tricks
    hands = tuple(tuple(sorted(cards[s * k:(s + 1) * k])) for s in range(rules.n))
    trump = rng.randrange(4) if rules.joker else rng.randrange(-1, 4)
    side = [rng.random() < 0.5 for _ in range(rules.n)]
    side[0], side[1] = True, False
    rng.shuffle(side)
    return Position(rules, hands, trump, rng.randrange(rules.n), tuple(side))


def random_position(rules: Rules, rng: random.Random, cards_left: int) -> Position:
    """Random play from a random deal until `cards_left` cards are in the hands."""
    pos = random_deal(rules, rng)
    while pos.cards_left > cards_left:
        pos = ref.play(pos, rng.choice(ref.legal_moves(pos)))
    return pos


def whist_cases() -> list[Position]:
    """Endings where a careless sure-trick count goes wrong (whist ids 13 * suit + rank, suits
    S H D C, rank 12 = A): the leader's top spades ruffed by East (hearts trump); North's
    K Q under partner's bare A (the partner wins and keeps the lead; the D 2 lead loses two
    tricks); the top trumps split between both sides; the top two trumps in one hand (later
    tricks); a low heart to partner's A K and A of diamonds; two top spades, partner
    discarding his small diamonds, then a low heart to his A (both no trump); the A of
    spades drawing East's bare K, then two length tricks (no trump); two top trumps drawing
    both opponents' trumps before the A of spades is cashed, and with West's third trump
    left to ruff it (hearts trump). North leads, N-S."""
    ns = (True, False, True, False)
    def pos(hands, trump):
        return Position(WHIST, tuple(tuple(sorted(h)) for h in hands), trump, 0, ns,
                        tricks_done=10)
    return [pos([(12, 11, 10), (13, 14, 15), (0, 1, 2), (26, 27, 28)], 1),
            pos([(11, 10, 26), (0, 15, 16), (12, 39, 40), (1, 27, 28)], -1),
            pos([(12, 13, 14), (11, 15, 16), (0, 26, 27), (1, 28, 29)], 0),
            pos([(26, 13, 14), (12, 11, 15), (0, 27, 39), (1, 28, 40)], 0),
            pos([(13, 26, 39), (0, 1, 2), (25, 24, 38), (51, 50, 49)], -1),
            pos([(12, 11, 13), (0, 1, 14), (25, 27, 28), (39, 40, 41)], -1),
            pos([(12, 1, 0), (11, 13, 14), (26, 27, 28), (39, 40, 41)], -1),
            pos([(25, 24, 12), (13, 1, 2), (26, 27, 28), (14, 39, 40)], 1),
            pos([(25, 24, 12), (13, 1, 2), (26, 27, 28), (14, 15, 16)], 1)]


def sample(name: str, count: int, seed: int) -> list[Position]:
    rules, rng = GAMES[name], random.Random(seed)
    n = rules.n
    cases = whist_cases() if name == "whist" else []
    return cases + [random_position(rules, rng, rng.randrange(1, 3 * n + 2))
                    for _ in range(count)]


@pytest.fixture(scope="module", params=sorted(GAMES))
def solved(request):
    positions = sample(request.param, 48, seed=7)
    return positions, api.solve(positions, all_moves=True, lanes=16, tt_bits=8, backend="jax")


def test_values_and_every_move_equal_the_reference(solved):
    positions, solutions = solved
    for pos, sol in zip(positions, solutions, strict=True):
        assert sol.value == ref.value(pos), pos
        assert sol.move_ids == ref.move_values(pos), pos


def test_a_window_resolves_the_value_only_within_it(solved):
    """`windows[i] = (lo, hi)` searches only the targets in (lo, hi]: the value when it lies
    within, hi when it is above, between the value and lo when it is below."""
    positions, solutions = solved
    shifts = [(-1, 1), (0, 0), (1, 3), (-3, -1), (-2, 2)]
    windows = [(s.value + a, s.value + b)
               for s, (a, b) in zip(solutions, itertools.cycle(shifts))]
    got = api.solve(positions, windows=windows, lanes=16, tt_bits=8, backend="jax")
    for pos, sol, (lo, hi), g in zip(positions, solutions, windows, got, strict=True):
        v = sol.value
        if lo <= v <= hi:
            assert g.value == v, pos
        elif v > hi:
            assert g.value == hi, pos
        else:
            assert v <= g.value <= lo, pos


@pytest.fixture(scope="module")
def wide():
    """16 entries a bucket (what `solve` takes from 11 cards a hand), in a table small enough
    to replace entries often; whist positions and their reference values."""
    positions = sample("whist", 48, seed=8)
    return (search.Searcher(WHIST, lanes=16, tt_bits=6, ways=16), search.encode(positions),
            [ref.value(p) for p in positions])


def test_wide_buckets_keep_the_values(wide):
    searcher, problems, values = wide
    got, *_ = searcher.run(problems)
    assert got.tolist() == values


def test_a_long_tail_goes_on_in_fewer_lanes(wide):
    """Once every problem has started and at most a quarter of the lanes are busy (here at
    once: patience 1), the busy lanes go on in a searcher of 4 lanes with their searches,
    stacks and tables as they were: the same values in the same nodes."""
    searcher, _, _ = wide
    rng = random.Random(3)
    positions = sample("whist", 24, seed=9) + [random_position(WHIST, rng, 24)]  # 6 a hand
    problems, values = search.encode(positions), [ref.value(p) for p in positions]
    want = searcher.run(problems)
    searcher.tail_patience = 1
    try:
        got = searcher.run(problems)
    finally:
        searcher.tail_patience = search.TAIL_PATIENCE
    assert list(searcher._tails) == [4]
    assert got[0].tolist() == values
    assert got[1].tolist() == want[1].tolist() and got[2].tolist() == want[2].tolist()


def test_threads_share_out_the_problems_and_keep_their_order(wide):
    """`run(threads=3)`: three searches side by side, each on every third problem; the
    answers come back in the problems' order, and each problem's search is its own."""
    searcher, problems, values = wide
    got, nodes, trick_nodes = searcher.run(problems, threads=3)
    assert got.tolist() == values
    assert (nodes > 0).all() and (trick_nodes <= nodes).all()
    first, first_nodes, _ = searcher.run(problems.take(np.arange(0, len(problems), 3)))
    assert first.tolist() == values[::3]
    assert first_nodes.tolist() == nodes[::3].tolist()  # the same search as the share alone


def test_default_threads_follow_the_environment(monkeypatch):
    monkeypatch.setenv("KANJAX_SOLVER_THREADS", "3")
    assert search.default_threads() == 3
    monkeypatch.delenv("KANJAX_SOLVER_THREADS")
    assert search.default_threads() == len(os.sched_getaffinity(0))  # tests run on the CPU


def test_a_deal_group_shares_its_table(solved):
    """Positions of one deal and trump (every leader at a trick's start; mid-trick, the other
    side) are one group (`api._same_deal`): solved one after another in a lane, on one table
    whose entries bound seat 0's side; the reference's values."""
    positions, _ = solved
    variants = []
    for pos in positions[:40]:
        other = tuple(not s for s in pos.side)
        variants.append(dataclasses.replace(pos, side=other, taken=pos.taken_other,
                                            taken_other=pos.taken))
        if not pos.trick:
            variants += [dataclasses.replace(pos, leader=s) for s in range(pos.rules.n)]
    assert len(set(api._same_deal(variants))) < len(variants) <= 256  # one compile
    got = api.solve(variants, lanes=16, tt_bits=8, backend="jax")
    assert [s.value for s in got] == [ref.value(p) for p in variants]


def test_a_group_takes_only_what_can_share(solved):
    positions, _ = solved
    pos = next(p for p in positions if not p.trick)
    two = [pos, dataclasses.replace(pos, leader=(pos.leader + 1) % pos.rules.n)]
    with pytest.raises(ValueError, match="only value problems with no root limit"):
        search.encode(two, goals=[None, (1, 0)], groups=[0, 0])
    with pytest.raises(ValueError, match="only value problems with no root limit"):
        search.encode(two, root_moves=[None, (pos.hands[two[1].leader][0],)], groups=[0, 0])
    other_trump = dataclasses.replace(two[1], trump=(pos.trump + 2) % 4)
    with pytest.raises(ValueError, match="same trump and sides that agree"):
        search.encode([pos, other_trump], groups=["deal", "deal"])
    if pos.rules.n > 2:
        moved = (pos.side[-1], *pos.side[:-1])  # neither the side nor its complement
        if moved not in (pos.side, tuple(not s for s in pos.side)):
            with pytest.raises(ValueError, match="same trump and sides that agree"):
                search.encode([pos, dataclasses.replace(pos, side=moved)], groups=[1, 1])
    assert search.encode(two, groups=["a", None]).group.tolist() == [0, 1]


def test_the_queue_keeps_groups_in_their_lanes_then_steals():
    """Problems 0-2 (group 0), 3-4 (group 1), 5 (group 2) on three lanes, which start them
    at 0, 3 and 5. The lane of problem 5 finds no group left and takes the last problem
    not started (4, from the back of group 1); then the lane of 3 takes 2 (from the back of
    group 0); then the lane of 0 takes 1 (the front of its own group); then none is left."""
    deal = random_deal(WHIST, random.Random(0))
    problems = search.encode([dataclasses.replace(deal, leader=k % 4) for k in range(6)],
                             groups=[0, 0, 0, 1, 1, 2])
    p = jax.tree.map(jnp.asarray, search.padded(problems))
    count, front, back, nxt = jnp.int32(6), p.start.at[:3].add(1), p.end, 3
    pids = jnp.array([0, 3, 5])
    for lane, want in ((2, 4), (1, 2), (0, 1), (2, 6)):
        done = jnp.arange(3) == lane
        new, front, back, nxt = queue.next_problems(
            p, count, done, jnp.zeros(3, bool), pids, front, back, nxt)
        assert int(new[lane]) == want
        pids = pids.at[lane].set(new[lane])


def test_tables_fit_the_memory_budget(monkeypatch):
    """`solve` gives each lane 2^16 entries for whole deals unless every lane's table would
    take more than `table_budget()` (`KANJAX_SOLVER_TABLE_MB`; on a CPU, 4 GiB): then fewer."""
    deal = random_deal(WHIST, random.Random(0))
    assert search.table_budget() == 4 * 2**30  # the tests run on the CPU
    assert api._searcher([deal] * 256, 256, None, 2).tt_size == 2**16
    monkeypatch.setenv("KANJAX_SOLVER_TABLE_MB", "64")
    s = api._searcher([deal] * 4096, 4096, None, 1)
    assert s.lanes == 4096 and s.tt_size == 256  # 2^8 x 4096 x 52 bytes <= 64 MiB < 2^9 x ...
    assert api._searcher([deal], 1, 10, 1).tt_size == 2**10  # asked for: as asked
    monkeypatch.setenv("KANJAX_SOLVER_TABLE_MB", "lots")
    with pytest.raises(ValueError, match="KANJAX_SOLVER_TABLE_MB='lots': want a number"):
        search.table_budget()


def test_trick_nodes_are_counted(solved):
    _, solutions = solved
    assert all(0 <= s.trick_nodes <= s.nodes for s in solutions)
    assert sum(s.trick_nodes for s in solutions) > 0


def test_rank_sets_cross_a_trick_end():
    """Partition search carries the ranks a result depends on back over a trick's end:
    `unsqueeze` puts back, empty, the ranks `squeeze` took out."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        cards = rng.choice(52, 4, replace=False)
        codes = jnp.asarray(16 * (cards // 13) + cards % 13, jnp.int32)
        words = jnp.asarray(rng.integers(0, 1 << 13, 4), jnp.uint32)
        played = np.zeros(4, np.uint32)
        for c in cards:
            played[c // 13] |= 1 << (c % 13)
        squeezed = play.squeeze(words[None], codes)[0]
        back = play.unsqueeze(squeezed, codes)
        np.testing.assert_array_equal(back, words & ~played)
        np.testing.assert_array_equal(play.squeeze(back[None], codes)[0], squeezed)


def test_master_trumps_count_across_both_hands():
    """A side's trumps above every opponent's take min(masters, its longest trump holding)
    tricks: North's A x x x with South's K Q take three (North's small trumps go under the
    K and Q); a bare A with K Q take two (the A falls with the K or Q when trumps are led)."""
    side = jnp.array([True, False, True, False])

    def masters(north: list[int]) -> tuple[int, int, int]:
        spades = [north, [4], [6, 5], [3]]  # relative ranks: 7 is the top trump
        hands = jnp.array([[sum(1 << r for r in ranks), 0, 0, 0] for ranks in spades],
                          jnp.uint32)
        seat, count, cards = bounds.top_trumps(hands, jnp.int32(0), side)
        return int(seat), int(count), int(cards[0])

    assert masters([7, 2, 1, 0]) == (0, 3, 0b11100000)
    assert masters([7]) == (0, 2, 0b11100000)


def test_goals_equal_the_reference(solved):
    positions, solutions = solved
    goals = []
    for pos, sol in zip(positions, solutions, strict=True):
        total = pos.taken + pos.taken_other + ref.remaining(pos)
        goals += [(sol.value, total - sol.value), (sol.value + 1, total - sol.value - 1),
                  (pos.taken + 1, pos.taken_other)]
    many = [p for p in positions for _ in range(3)]
    got = api.reaches(many, goals, lanes=16, tt_bits=8, backend="jax")
    assert got == [ref.reaches(p, *g) for p, g in zip(many, goals, strict=True)]
    assert got[0::3] == [True] * len(positions)  # value >= its value
    assert got[1::3] == [False] * len(positions)


@pytest.mark.slow
def test_first_move_of_a_whole_gambari_deal():
    """The deal's very first move, every move valued (a whole 30-card Gambari deal)."""
    rng = random.Random(3)
    positions = [random_deal(GAMES["gambari_kan"], rng) for _ in range(2)]
    for pos, sol in zip(positions, api.solve(positions, all_moves=True, lanes=16, backend="jax"),
                        strict=True):
        assert sol.value == ref.value(pos)
        assert sol.move_ids == ref.move_values(pos)
