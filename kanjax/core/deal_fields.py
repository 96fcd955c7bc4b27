"""Reading a deal string's header, for any game: `read_deal` parses it (`kanjax.core.cards`),
checks the game name, that every `k=v` field is one the game knows and is given once, and
that its named sections (a kitty, a stock) are the game's; `DealFields` reads the values
with checked conversions. A game's `from_deal` then checks its hands and its own rules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from kanjax.core import cards as cards_mod


class DealFields(dict):
    """The `k=v` fields of a deal string, with checked parsing."""

    def ints(self, k: str, count: int | None = None, lo: int | None = None,
             hi: int | None = None) -> list[int]:
        """Field `k` as comma-separated integers: `count` of them, each in lo..hi."""
        try:
            vals = [int(v) for v in self[k].split(",")]
        except ValueError:
            raise ValueError(f"deal field {k}={self[k]!r}: want integers") from None
        if count is not None and len(vals) != count:
            raise ValueError(f"deal field {k}={self[k]!r}: want {count} values")
        if any((lo is not None and v < lo) or (hi is not None and v > hi) for v in vals):
            raise ValueError(f"deal field {k}={self[k]!r}: values must be in {lo}..{hi}")
        return vals

    def choice(self, k: str, allowed: Sequence[str], default: str) -> str:
        """Field `k`, one of `allowed` (`default` when absent)."""
        v = self.get(k, default)
        if v not in allowed:
            raise ValueError(f"deal field {k}={v!r}: want one of {', '.join(allowed)}")
        return v


def read_deal(text: str, game: str, deck: cards_mod.Deck, fields: Sequence[str],
              sections: Sequence[str] = ()) -> tuple[cards_mod.Deal, DealFields]:
    """The deal string `text` of `game`, its cards read with the game's `deck`
    (`Views.card_deck`), and its header fields, checked: the game's name,
    fields among `fields`, each once, named sections among `sections`, each once. Raises
    ValueError (`CardError` for a bad token) naming what is wrong."""
    d = cards_mod.parse_deal(text, deck)
    if d.game != game:
        raise ValueError(f"deal string for {d.game!r}: this env plays {game}")
    keys = [k for k, _ in d.fields]
    for k in keys:
        if k not in fields:
            raise ValueError(f"unknown deal field {k!r}; fields: {', '.join(sorted(fields))}")
        if keys.count(k) > 1:
            raise ValueError(f"deal field {k!r} given twice")
    names = [name for name, _ in d.sections]
    for name in names:
        if not sections:
            raise ValueError(f"{game} deals have no named sections: {name!r}")
        if name not in sections:
            raise ValueError(f"unknown deal section {name!r}; sections: {', '.join(sections)}")
        if names.count(name) > 1:
            raise ValueError(f"deal section {name!r} given twice")
    return d, DealFields(d.fields)


def deck_places(deck: cards_mod.Deck, placed: Iterable[tuple[int, int]]) -> np.ndarray:
    """int64[deck ids]: each card's place in a deck order from (card, place) pairs, -1 for
    cards not given; a card given twice raises ValueError naming it."""
    place = np.full(deck.num_ids, -1, np.int64)
    for c, k in placed:
        if place[c] >= 0:
            raise ValueError(f"card {deck.token(c)} is dealt twice")
        place[c] = k
    return place
