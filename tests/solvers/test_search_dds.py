"""The JAX solver's whist values against DDS (through endplay), every strain and leader.

Positions: random bridge deals played at random (the reference rules) down to `cards` cards
per hand, then solved for each of the five strains and four leaders of the deal's next trick
(a strain's four leaders share one table: `api.solve` groups them). The default run checks
20 deals with 7 cards a hand (400 problems) and double-dummy tables of endings; `slow` checks
500 deals with 9 cards a hand, 12 whole 13-card deals with one strain and leader each, and
the double-dummy tables of 3 whole deals against DDS's own (CalcDDtable). Whole deals for
every strain and leader in the default run are not in the tests: the search visits about
10^5..10^6 nodes per whole deal, seconds of CPU each even with every lane busy, so the 400
problems of 20 deals would take far beyond the test budget (see BENCHMARKS.md).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

pytest.importorskip("endplay")

from kanjax.core.pbn import SEATS  # noqa: E402
from kanjax.games.whist.engine import TRUMPS as WHIST_TRUMPS  # noqa: E402
from solvers import api, bench, search  # noqa: E402
from solvers import reference as ref  # noqa: E402
from solvers.convert import from_pbn  # noqa: E402
from solvers.dds import (  # noqa: E402
    dds_move_values,
    dds_table,
    dds_value,
    random_whist_position,
)
from solvers.position import Position  # noqa: E402
from tests.solvers.rules import WHIST  # noqa: E402
from tests.solvers.test_solve_cli import SUITS  # noqa: E402

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
    solved = api.solve(positions, lanes=32, backend="jax")
    mism = [(p, s.value, dds_value(p)) for p, s in zip(positions, solved, strict=True)
            if s.value != dds_value(p)]
    assert not mism, mism[:3]


def test_values_equal_dds_every_strain_and_leader():
    check(endings(10, 7, seed=1))


def test_a_strains_leaders_share_a_table():
    """The four leaders of a deal and strain, one group (one lane, one table): DDS's values
    in far fewer nodes than four searches on tables of their own, with more groups than
    lanes (60 groups, 32 lanes: the searcher `check`'s `solve` compiled); with more lanes
    than groups (10), idle lanes take problems of groups already started, on their own
    tables: the same values."""
    positions = endings(12, 7, seed=4)
    groups = api._same_deal(positions)
    want = [dds_value(p) for p in positions]
    searcher = search.searcher(WHIST, 32, 12, 4)
    alone = searcher.run(search.encode(positions))
    shared = searcher.run(search.encode(positions, groups=groups))
    assert alone[0].tolist() == shared[0].tolist() == want
    assert shared[1].sum() < 0.8 * alone[1].sum()
    stolen = searcher.run(search.encode(positions[:40], groups=groups[:40]))
    assert stolen[0].tolist() == want[:40]


def test_dd_table_of_one_suit_a_hand_equals_dds():
    """Each seat holds a whole suit: the side holding the trumps takes every trick; at no
    trump, the declarer's left-hand opponent leads his suit and takes every trick."""
    deal = from_pbn(SUITS, "NT", "N")
    [table] = api.dd_tables([deal], backend="jax")
    assert table == dds_table(deal)
    assert table["NT"] == {"N": 0, "E": 0, "S": 0, "W": 0}
    assert table["S"] == table["D"] == {"N": 13, "E": 0, "S": 13, "W": 0}


def test_dd_tables_of_endings_equal_dds():
    """Tables of 7-card endings: the declarer's tricks are what is left after his left-hand
    opponent's side's (DDS, one SolveBoard a strain and leader)."""
    deals = endings(5, 7, seed=6)[::20]  # 25 groups: `check`'s searcher
    for deal, table in zip(deals, api.dd_tables(deals, lanes=32, backend="jax"), strict=True):
        for strain, row in table.items():
            for k, seat in enumerate(SEATS):
                leader = (k + 1) % 4
                pos = dataclasses.replace(deal, trump=WHIST_TRUMPS.index(strain) - 1,
                                          leader=leader, side=tuple(
                                              (s - leader) % 2 == 0 for s in range(4)))
                assert row[seat] == 7 - dds_value(pos), (deal, strain, seat)


def test_every_move_equals_dds_mid_trick():
    positions = endings(4, 5, seed=2)[::7]
    rng = random.Random(0)
    positions = [ref.play(p, rng.choice(ref.legal_moves(p))) for p in positions]
    positions = [dataclasses.replace(p, taken=0, taken_other=0) for p in positions]
    for p, s in zip(positions, api.solve(positions, all_moves=True, lanes=16, backend="jax"),
                    strict=True):
        assert s.move_ids == dds_move_values(p)


def test_winning_run_is_kept_in_the_table():
    """A nine-card ending where the table once answered for a position that only agreed on
    the ranks above a winning card's run (rank equivalence had tried the run's top card for
    the whole run): N-S took 4 tricks in the search, 3 at DDS, with North or South leading."""
    hands = ((10, 11, 18, 26, 31, 39, 43, 45, 47), (0, 1, 9, 14, 16, 19, 44, 50, 51),
             (5, 8, 24, 25, 27, 30, 32, 34, 41), (6, 12, 13, 17, 20, 21, 29, 33, 37))
    positions = [Position(WHIST, hands, -1, leader, (True, False, True, False), tricks_done=4)
                 for leader in (0, 2)]
    got, *_ = search.searcher(WHIST, 32, 12, 4).run(search.encode(positions))  # `check`'s
    assert got.tolist() == [dds_value(p) for p in positions] == [3, 3]


@pytest.mark.slow
def test_values_equal_dds_500_deals():
    check(endings(500, 9, seed=3))


@pytest.mark.slow
def test_whole_deals_equal_dds():
    """Whole 13-card deals, a random strain and leader each: minutes on a 2-core CPU, where
    every strain and leader of 500 deals would take hours (BENCHMARKS.md)."""
    check(bench.whist_positions(12, 13, seed=5))


@pytest.mark.slow
def test_whole_deal_tables_equal_dds():
    """The double-dummy tables of whole deals (every strain and declarer) against DDS's
    CalcDDtable."""
    import numpy as np

    rng = np.random.default_rng(7)
    deals = [random_whist_position(rng, -1, 0) for _ in range(3)]
    assert api.dd_tables(deals, backend="jax") == [dds_table(d) for d in deals]
