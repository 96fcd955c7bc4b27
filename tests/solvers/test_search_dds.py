"""The JAX solver's whist values against DDS (through endplay), every strain and leader.

Positions: random bridge deals played at random (the reference rules) down to `cards` cards
per hand, then solved for each of the five strains and four leaders of the deal's next trick.
The default run checks 20 deals with 7 cards a hand (400 problems); `slow` checks 500 deals
with 9 cards a hand, and 12 whole 13-card deals with one strain and leader each. Whole deals
for every strain and leader are not in the tests: the search visits about 10^5..10^6 nodes
per whole deal, seconds of CPU each even with every lane busy, so the 400 problems of 20
deals would take far beyond the test budget (see BENCHMARKS.md).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

pytest.importorskip("endplay")

from solvers import api, bench  # noqa: E402
from solvers import reference as ref  # noqa: E402
from solvers.dds import dds_move_values, dds_value  # noqa: E402
from solvers.position import WHIST, Position  # noqa: E402

STRAINS = (-1, 0, 1, 2, 3)  # NT, S, H, D, C


def endings(deals: int, cards: int, seed: int) -> list[Position]:
    """Each random deal at `cards` cards a hand, for every strain and leader; the side is
    the leader's partnership and counts only what is still to come."""
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        ids = list(range(52))
        rng.shuffle(ids)
        hands = tuple(tuple(sorted(ids[13 * s:13 * s + cards])) for s in range(4))
        for trump in STRAINS:
            for leader in range(4):
                side = tuple((s - leader) % 2 == 0 for s in range(4))
                out.append(Position(WHIST, hands, trump, leader, side,
                                    tricks_done=13 - cards))
    return out


def check(positions: list[Position]) -> None:
    solved = api.solve(positions, lanes=32)
    mism = [(p, s.value, dds_value(p)) for p, s in zip(positions, solved, strict=True)
            if s.value != dds_value(p)]
    assert not mism, mism[:3]


def test_values_equal_dds_every_strain_and_leader():
    check(endings(20, 7, seed=1))


def test_every_move_equals_dds_mid_trick():
    positions = endings(4, 5, seed=2)[::7]
    rng = random.Random(0)
    positions = [ref.play(p, rng.choice(ref.legal_moves(p))) for p in positions]
    positions = [dataclasses.replace(p, taken=0, taken_other=0) for p in positions]
    for p, s in zip(positions, api.solve(positions, all_moves=True, lanes=16), strict=True):
        assert s.moves == dds_move_values(p)


def test_winning_run_is_kept_in_the_table():
    """A nine-card ending where the table once answered for a position that only agreed on
    the ranks above a winning card's run (rank equivalence had tried the run's top card for
    the whole run): N-S took 4 tricks in the search, 3 at DDS, with North or South leading."""
    hands = ((10, 11, 18, 26, 31, 39, 43, 45, 47), (0, 1, 9, 14, 16, 19, 44, 50, 51),
             (5, 8, 24, 25, 27, 30, 32, 34, 41), (6, 12, 13, 17, 20, 21, 29, 33, 37))
    check([Position(WHIST, hands, -1, leader, (True, False, True, False), tricks_done=4)
           for leader in (0, 2)])


@pytest.mark.slow
def test_values_equal_dds_500_deals():
    check(endings(500, 9, seed=3))


@pytest.mark.slow
def test_whole_deals_equal_dds():
    """Whole 13-card deals, a random strain and leader each: minutes on a 2-core CPU, where
    every strain and leader of 500 deals would take hours (BENCHMARKS.md)."""
    check(bench.whist_positions(12, 13, seed=5))
