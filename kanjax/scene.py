"""A game-neutral picture of one state: what the terminal table (`kanjax play --human`), the
SVG of `Views.render_svg` and the HTML viewer (`kanjax view`) draw.

Each game builds its `Scene` in its own module (`Views.scene`); the drawing layers only read
these plain values and never name a game. Cards are tokens (`AS`, `TH`, `JK`, `BJ`); a hidden
hand is `cards=None` with its `count`.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Seat:
    """One player at the table, in table order."""

    player: int
    label: str  # "P2"
    role: str = ""  # one of the game's role names: "dealer", "declarer", ... ("" when none)
    cards: tuple[str, ...] | None = None  # the hand in display order; None: hidden
    count: int = 0  # cards held (drawn face down when hidden)
    notes: tuple[str, ...] = ()  # short facts: "opened", "tricks 3", "score +12"
    to_act: bool = False


@dataclasses.dataclass(frozen=True)
class Group:
    """Cards on the table under one label: the trick in progress, a meld, a pile, the kitty."""

    label: str  # "trick 3", "P1: run", "discard pile", "kitty"
    cards: tuple[str, ...]
    owners: tuple[int, ...] | None = None  # the player of each card (a trick), or None
    hidden: int = 0  # further cards face down (the stock)


@dataclasses.dataclass(frozen=True)
class Scene:
    """One state as a person sees it, all hands open (`viewer=None`) or one player's view
    (what `observe` gives that player: the others' hands hidden)."""

    game: str
    header: str  # one line: round, dealer, trump, contract, ...
    seats: tuple[Seat, ...]
    table: tuple[Group, ...] = ()
    scores: tuple[str, ...] = ()  # score lines ("P0 +3  P1 -1 ...", "points 40 / 60")
    to_act: int | None = None  # the player to act; None when the game is over
    legal: tuple[str, ...] = ()  # the legal actions by name
    status: str = ""  # "to act: P2", "match over", how the last deal ended
    viewer: int | None = None


def check_viewer(player: int | None, num_players: int) -> int | None:
    """`player` as a viewer of a `Scene` (None: every hand open); ValueError naming a player
    that is not one of the game's."""
    if player is None:
        return None
    if isinstance(player, bool) or not isinstance(player, int) or not (
            0 <= player < num_players):
        raise ValueError(f"player {player!r}: want a player 0..{num_players - 1}")
    return player
