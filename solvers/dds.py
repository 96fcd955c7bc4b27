"""An adapter to DDS, the standard bridge double-dummy solver, through the `endplay` package:
the reference our own solvers are checked against on whist `Position`s.

`endplay` is a test / bench dependency only (`pip install endplay`, or the `test` extra); it is
imported when a function here is first called, not when this module is imported.

Conventions: whist card ids `13 * suit + rank`, suits S H D C = 0..3, ranks 2..A = 0..12;
seats 0=N 1=E 2=S 3=W in play order; `Position.trump` -1 = no trump. These are endplay's
`Denom` (S H D C NT = 0..4) and `Player` (N E S W = 0..3) numbers. DDS's score is the tricks
the side of the player to move takes from the current trick on (the current trick included);
we convert it to the position's convention (`solvers.position`): the tricks of `pos.side` from
now on plus `pos.taken`.
"""

from __future__ import annotations

import numpy as np

import kanjax
from kanjax.core.pbn import SEATS
from solvers.convert import rules_of
from solvers.position import NO_TRUMP, Position

BRIDGE = rules_of(kanjax.make("whist"))  # bridge's card play: the positions DDS solves
SIDES = ("leader", "other", "NS", "EW")  # random_whist_position's `side`
BOARDS_A_CALL = 200  # DDS's SolveAllBoards takes at most 200 boards a call


def _endplay():
    """The endplay modules we use (types, dds.solve); a clear ImportError without the package."""
    try:
        from endplay import types
        from endplay.dds import solve as dds
    except ImportError as err:
        raise ImportError("solvers.dds needs the endplay package (Python bindings of DDS, the "
                          "bridge double-dummy solver): pip install endplay") from err
    return types, dds


def _check(pos: Position) -> None:
    if pos.rules != BRIDGE:
        raise ValueError(f"DDS solves bridge positions (the whist game's) only, not "
                         f"{pos.rules.game}")
    if pos.side not in ((True, False, True, False), (False, True, False, True)):
        raise ValueError(f"DDS solves for a partnership (N-S or E-W), not side {pos.side}")


def _deal(pos: Position):
    """The endplay `Deal` of `pos`: its hands, trump, the current trick's leader (`first`) and
    the cards played to the trick (`curtrick`, not in any hand)."""
    types, _ = _endplay()
    deal = types.Deal()
    for seat, hand in enumerate(pos.hands):
        suits = [[c % 13 for c in hand if c // 13 == s] for s in range(4)]
        deal[types.Player(seat)] = ".".join(
            "".join("23456789TJQKA"[r] for r in sorted(ranks, reverse=True)) for ranks in suits)
    deal.first = types.Player(pos.leader)
    deal.trump = types.Denom(4 if pos.trump == NO_TRUMP else pos.trump)
    for c in pos.trick:
        deal.play(_card(c), from_hand=False)  # the trick's cards are in no hand
    return deal


def _card(c: int):
    types, _ = _endplay()
    return types.Card(suit=types.Denom(c // 13), rank=types.Rank(1 << (c % 13 + 2)))


def _card_id(card) -> int:
    return 13 * int(card.suit) + int(card.rank).bit_length() - 3


def _to_side(pos: Position, score: int) -> int:
    """DDS's score (tricks of the mover's side from the current trick on) -> the value of
    `pos.side` (plus what it has taken)."""
    left = pos.rules.n_tricks - pos.tricks_done
    return pos.taken + (score if pos.side[pos.to_move] else left - score)


def dds_move_values(pos: Position) -> dict[int, int]:
    """DDS's all-cards mode: the value of every legal card of the player to move (limited to
    `pos.root_moves` if set), in the position's convention (tricks of `pos.side` from now on
    plus `pos.taken`, both sides playing perfectly after the card)."""
    _check(pos)
    if not pos.hands[pos.to_move]:
        return {}
    _, dds = _endplay()
    solved = dds.solve_board(_deal(pos), dds.SolveMode.Default)
    values = {_card_id(card): _to_side(pos, score) for card, score in solved}
    if not values:  # endplay drops DDS's return code; an error leaves no cards
        raise RuntimeError(f"DDS returned no cards for {pos}")
    if pos.root_moves is not None:
        values = {c: v for c, v in values.items() if c in pos.root_moves}
    return values


def dds_value(pos: Position) -> int:
    """The tricks `pos.side` takes from now on, both sides playing perfectly, plus
    `pos.taken`: DDS's SolveBoard for the player to move (at a trick boundary or mid-trick)."""
    return dds_solve(pos)[0]


def dds_solve(pos: Position) -> tuple[int, int]:
    """(`dds_value(pos)`, the nodes DDS searched: the positions at a trick's start)."""
    _check(pos)
    if not pos.hands[pos.to_move]:
        return pos.taken, 0
    if pos.root_moves is not None:
        values = dds_move_values(pos).values()
        return (max(values) if pos.side[pos.to_move] else min(values)), 0
    _, dds = _endplay()
    board = dds.solve_board(_deal(pos), dds.SolveMode.OptimalOne)
    solved = list(board)
    if not solved:
        raise RuntimeError(f"DDS returned no cards for {pos}")
    return _to_side(pos, solved[0][1]), int(board._data.nodes)


def dds_solve_all(positions: list[Position]) -> list[int]:
    """`dds_value` of every position, by DDS's SolveAllBoards: its own threads, one per CPU
    core, each solving whole boards (positions limited to some root moves: one by one)."""
    for pos in positions:
        _check(pos)
    _, dds = _endplay()
    todo = [i for i, p in enumerate(positions)
            if p.root_moves is None and p.hands[p.to_move]]
    boards = [board for k in range(0, len(todo), BOARDS_A_CALL)
              for board in dds.solve_all_boards([_deal(positions[i]) for i in
                                                 todo[k:k + BOARDS_A_CALL]],
                                                dds.SolveMode.OptimalOne)]
    out = {i: _to_side(positions[i], list(board)[0][1]) for i, board in zip(todo, boards,
                                                                           strict=True)}
    return [out[i] if i in out else dds_value(p) for i, p in enumerate(positions)]


def dds_table(deal: Position) -> dict[str, dict[str, int]]:
    """DDS's double-dummy table of a whole deal (CalcDDtable; the deal's trump, leader and
    side are ignored): `table[strain][declarer]`, the declarer's tricks, strains "NT" "S"
    "H" "D" "C", declarers "N" "E" "S" "W" (`solvers.api.dd_tables`'s form)."""
    _check(deal)
    types, _ = _endplay()
    from endplay.dds import calc_dd_table

    table = calc_dd_table(_deal(deal))
    return {strain: {seat: table[types.Denom(k), types.Player(p)]
                     for p, seat in enumerate(SEATS)}
            for strain, k in ((BRIDGE.trump_name(t), 4 if t == NO_TRUMP else t)
                              for t in range(NO_TRUMP, 4))}


def random_whist_position(rng: np.random.Generator, trump: int, leader: int,
                          side: str = "leader") -> Position:
    """A uniformly random full bridge deal as a whist `Position`: 13 cards to each seat,
    `trump` (-1 no trump, else S H D C = 0..3), `leader` (0=N 1=E 2=S 3=W) on lead to trick 1.
    `side`: "leader" (the leader's partnership, whose tricks DDS's SolveBoard counts at the
    start), "other", "NS" or "EW"."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    if trump not in (NO_TRUMP, 0, 1, 2, 3) or leader not in range(4):
        raise ValueError(f"trump must be -1..3 and leader 0..3, not {trump}, {leader}")
    perm = rng.permutation(52)
    hands = tuple(tuple(sorted(int(c) for c in perm[13 * s: 13 * s + 13])) for s in range(4))
    ns = {"leader": leader % 2 == 0, "other": leader % 2 == 1, "NS": True, "EW": False}[side]
    return Position(BRIDGE, hands, trump, leader, tuple((s % 2 == 0) == ns for s in range(4)))
