"""Bridge users' inputs to the solvers (DDS's): PBN files of boards and PBN endings.

- `read_boards(path)`: the boards of a PBN file (`kanjax.core.pbn.read_pbn_games`): each one's
  deal, name (its `Board` tag), dealer and vulnerability (for the par score, `solvers.par`).
- `ending_position(text, ...)`: a PBN deal of fewer than 13 cards a hand (an ending, at a
  trick's start) -> its `Position`, trump and leader as for a whole deal (`from_deal`'s).

The game is the one that reads PBN deals (`kanjax.deal_game`); this module names none.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from kanjax.core.pbn import HAND_SIZE, format_pbn, parse_pbn, read_pbn_games
from solvers import convert
from solvers.position import Position


@dataclasses.dataclass(frozen=True)
class Board:
    """A board of a PBN file: `deal` (its `Deal` tag), `name` (`Board`, else its number in
    the file), `dealer` and `vulnerable` (PBN's values; None where the file gives none)."""

    deal: str
    name: str
    dealer: str | None
    vulnerable: str | None


def read_boards(path: str | Path) -> list[Board]:
    """The boards of a PBN file, in file order; ValueError (`CardError`) naming the line of a
    malformed one."""
    games = read_pbn_games(Path(path).read_text())
    return [Board(tags["Deal"], tags.get("Board") or str(k), tags.get("Dealer") or None,
                  tags.get("Vulnerable") or None)
            for k, (_, tags) in enumerate(games, 1)]


def ending_position(text: str, game: str | None = None, *, trump=None, leader=None,
                    **flags) -> tuple[Position, tuple[int, ...]]:
    """The position of a PBN ending (`parse_pbn(text, ending=True)`: as many cards in each
    hand, a trick's start): the hands as given, the tricks before it done (what each side
    took in them unknown: `taken` 0), trump and the leader as `convert.from_deal` takes them
    for a whole deal (its defaults too; the leader's side the side). Returns (position,
    players) like `convert.from_deal`."""
    hands = parse_pbn(text, ending=True)
    held = {c for h in hands for c in h}
    played = iter(c for c in range(4 * HAND_SIZE) if c not in held)
    # a whole deal holding the ending: the played cards dealt back to fill each hand
    whole = format_pbn([list(h) + [next(played) for _ in range(HAND_SIZE - len(h))]
                        for h in hands])
    pos, players = convert.from_deal(whole, game, trump=trump, leader=leader, **flags)
    seat_hands = tuple(hands[p] for p in players)
    return dataclasses.replace(pos, hands=seat_hands, tricks_done=pos.rules.n_tricks - len(
        hands[0]), root_moves=None), players
