"""The DDS adapter (`solvers.dds`) on endings whose answer is obvious, and its conventions
(side, taken, mid-trick, all-cards mode) against DDS's own double-dummy table."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("endplay")

from solvers.dds import (  # noqa: E402
    dds_move_values,
    dds_solve_all,
    dds_value,
    random_whist_position,
)
from solvers.position import NO_TRUMP, Position  # noqa: E402
from tests.solvers.rules import WHIST  # noqa: E402

NS, EW = (True, False, True, False), (False, True, False, True)
EXAMPLE = "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83"
# DDS's answer for EXAMPLE: tricks of the leader's side, strains S H D C NT x leaders N E S W.
EXAMPLE_TABLE = {0: (0, 13, 0, 13), 1: (6, 7, 6, 7), 2: (2, 12, 2, 12), 3: (2, 12, 2, 12),
                 NO_TRUMP: (0, 13, 0, 13)}


def cards(text: str) -> tuple[int, ...]:
    """'AS KS 2H' -> whist ids, sorted."""
    return tuple(sorted(13 * "SHDC".index(t[1]) + "23456789TJQKA".index(t[0])
                        for t in text.split()))


def hands_of(pbn: str) -> tuple[tuple[int, ...], ...]:
    """A PBN deal starting with N -> hands by seat."""
    out = []
    for hand in pbn[2:].split():
        out.append(tuple(sorted(13 * s + "23456789TJQKA".index(r)
                                for s, holding in enumerate(hand.split(".")) for r in holding)))
    return tuple(out)


def play(pos: Position, c: int) -> Position:
    """`pos` after card `c` (whist rules; the trick winner leads the next trick)."""
    hands = list(pos.hands)
    hands[pos.to_move] = tuple(x for x in hands[pos.to_move] if x != c)
    trick = pos.trick + (c,)
    led = c // 13 if not pos.trick else pos.led
    if len(trick) < 4:
        return Position(WHIST, tuple(hands), pos.trump, pos.leader, pos.side, trick, led,
                        pos.tricks_done, pos.taken, pos.taken_other)

    def strength(x: int) -> int:
        return (x % 13) + (26 if x // 13 == pos.trump else 13 if x // 13 == led else 0)

    winner = (pos.leader + max(range(4), key=lambda i: strength(trick[i]))) % 4
    mine = pos.side[winner]
    return Position(WHIST, tuple(hands), pos.trump, winner, pos.side, (), -1,
                    pos.tricks_done + 1, pos.taken + mine, pos.taken_other + (not mine))


def ending(n_hands: list[str], trump: int, leader: int, side=NS, **kw) -> Position:
    hands = tuple(cards(h) for h in n_hands)
    return Position(WHIST, hands, trump, leader, side, tricks_done=13 - max(map(len, hands)),
                    **kw)


def test_one_card_ending_the_ace_wins():
    pos = ending(["AS", "2S", "3S", "4S"], NO_TRUMP, 0)
    assert dds_value(pos) == 1
    assert dds_value(ending(["AS", "2S", "3S", "4S"], NO_TRUMP, 0, EW)) == 0
    assert dds_move_values(pos) == {cards("AS")[0]: 1}


def test_taken_is_added_and_side_chosen():
    pos = ending(["AS", "2S", "3S", "4S"], NO_TRUMP, 0, taken=7, taken_other=5)
    assert dds_value(pos) == 8
    pos = ending(["AS", "2S", "3S", "4S"], NO_TRUMP, 0, EW, taken=5, taken_other=7)
    assert dds_value(pos) == 5


def test_trump_ending_ruff():
    # N leads a spade; E, void in spades, ruffs with 2H and leads 3D, which nobody can
    # follow: E-W take both tricks. At no trump N's spades win both.
    pos = ending(["AS KS", "2H 3D", "2S 3S", "4S 5S"], 1, 0)
    assert dds_value(pos) == 0
    pos_nt = ending(["AS KS", "2H 3D", "2S 3S", "4S 5S"], NO_TRUMP, 0)
    assert dds_value(pos_nt) == 2


def test_ruff_takes_every_trick():
    # each hand one full suit; NT: N runs his spades; hearts trump: E ruffs and runs hearts
    full = [" ".join(r + s for r in "23456789TJQKA") for s in "SHDC"]
    assert dds_value(ending(full, NO_TRUMP, 0)) == 13
    assert dds_value(ending(full, 1, 0)) == 0
    assert dds_value(ending(full, 1, 0, EW)) == 13
    assert dds_value(ending(full, 0, 1)) == 13  # E leads a heart, N ruffs with spades


def test_mid_trick_current_trick_counts():
    # W led the 2S; N (to move) holds AS: N-S win this trick and the KH trick.
    hands = (cards("AS KH"), cards("3S 2H"), cards("4S 3H"), cards("5S"))
    pos = Position(WHIST, hands, NO_TRUMP, 3, NS, cards("2S"), 0, tricks_done=11,
                   taken=4, taken_other=7)
    assert pos.to_move == 0
    assert dds_value(pos) == 6
    assert dds_move_values(pos) == {cards("AS")[0]: 6}  # must follow suit


def test_all_cards_mode_values_each_card():
    # A finesse: N leads 2S toward S's AQ over W's bare KS: N-S take both tricks; N's 2H
    # instead lets W win 4H and S keeps only one of AS, QS.
    hands = ["2S 2H", "3S 3H", "AS QS", "KS 4H"]
    mv = dds_move_values(ending(hands, NO_TRUMP, 0))
    assert mv == {cards("2S")[0]: 2, cards("2H")[0]: 1}
    assert dds_value(ending(hands, NO_TRUMP, 0)) == 2
    restricted = ending(hands, NO_TRUMP, 0, root_moves=cards("2H"))
    assert dds_move_values(restricted) == {cards("2H")[0]: 1}
    assert dds_value(restricted) == 1


def test_example_deal_table():
    hands = hands_of(EXAMPLE)
    for trump, row in EXAMPLE_TABLE.items():
        for leader in range(4):
            side = tuple((s - leader) % 2 == 0 for s in range(4))
            pos = Position(WHIST, hands, trump, leader, side)
            assert dds_value(pos) == row[leader], (trump, leader)


def test_example_deal_line_is_consistent():
    # Down a line of play: a position's value is the best of its move values, and each move
    # value is the value of the position after the move (mid-trick positions included).
    rng = np.random.default_rng(1)
    pos = Position(WHIST, hands_of(EXAMPLE), 1, 1, NS)
    while pos.cards_left > 40:
        mv = dds_move_values(pos)
        best = max(mv.values()) if pos.side[pos.to_move] else min(mv.values())
        assert dds_value(pos) == best
        for c, v in mv.items():
            assert dds_value(play(pos, c)) == v
        pos = play(pos, sorted(mv)[int(rng.integers(len(mv)))])


def test_solve_all_equals_one_by_one():
    """DDS's threaded SolveAllBoards (`dds_solve_all`) gives each position's `dds_value`, over
    more boards than one call of DDS takes (200), mid-trick positions and root limits too."""
    rng = np.random.default_rng(3)
    deals = [random_whist_position(rng, int(rng.integers(-1, 4)), int(rng.integers(4)), "NS")
             for _ in range(210)]
    positions = [Position(WHIST, tuple(h[:5] for h in d.hands), d.trump, d.leader, d.side,
                          tricks_done=8) for d in deals]  # 5-card endings: quick to solve
    positions = [play(p, p.hands[p.leader][0]) if k % 3 == 0 else p
                 for k, p in enumerate(positions)]
    first = positions[1]
    positions.append(Position(WHIST, first.hands, first.trump, first.leader, first.side,
                              tricks_done=8, root_moves=first.hands[first.leader][-1:]))
    assert dds_solve_all(positions) == [dds_value(p) for p in positions]


def test_random_whist_position():
    a = random_whist_position(np.random.default_rng(7), 2, 3)
    b = random_whist_position(np.random.default_rng(7), 2, 3)
    assert a == b
    assert sorted(c for h in a.hands for c in h) == list(range(52))
    assert a.side == EW and a.leader == 3 and a.trump == 2
    assert random_whist_position(np.random.default_rng(7), 2, 3, "NS").side == NS
    assert 0 <= dds_value(a) <= 13
    with pytest.raises(ValueError, match="side must be"):
        random_whist_position(np.random.default_rng(7), 2, 3, "N")


def test_errors():
    from tests.solvers.rules import game_rules

    with pytest.raises(ValueError, match="partnership"):
        dds_value(ending(["AS", "2S", "3S", "4S"], NO_TRUMP, 0, (True, True, False, False)))
    rules = game_rules("yonin_kan")
    kan = Position(rules, tuple(rules.ids[10 * s: 10 * s + 10] for s in range(4)), 0, 0, NS)
    with pytest.raises(ValueError, match="whist"):
        dds_value(kan)


def test_missing_endplay_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "endplay", None)
    with pytest.raises(ImportError, match="pip install endplay"):
        dds_value(ending(["AS", "2S", "3S", "4S"], NO_TRUMP, 0))
