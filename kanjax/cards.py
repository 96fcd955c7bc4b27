"""Decks, card ids, card tokens and deal strings for every kanjax game.

Token: rank then suit, ranks `2-9 T J Q K A`, suits `S H D C` (`AS`, `TH`, `7C`); jokers `JK`
(Kan, Konkan), `BJ` / `RJ` (Da Bai Fen). Each game numbers its cards as its rules file's
encoding notes say, so a `Deck` converts between tokens and that game's ids.

A deal string names the game, header fields and every hand in seat order, with optional named
sections (a kitty, a stock):

    gonin_kan dealer=0 | AS KS 2S ... | ... | kitty: 3C 4C

`parse_deal(format_deal(d)) == d`; malformed input raises `CardError` naming the bad token and
its character position.
"""

from __future__ import annotations

import dataclasses
import functools

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "SHDC"


class CardError(ValueError):
    """A malformed card token, hand or deal string."""


@dataclasses.dataclass(frozen=True)
class Deck:
    """One game's cards: `tokens[i]` is the token of card id i (None: no card has that id)."""

    name: str
    tokens: tuple[str | None, ...]
    copies: int = 1  # 2 for Konkan: a hand is a multiset of ids

    @functools.cached_property
    def ids(self) -> tuple[int, ...]:
        """Card ids in the deck (each once, whatever `copies`)."""
        return tuple(i for i, t in enumerate(self.tokens) if t is not None)

    @functools.cached_property
    def _by_token(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.tokens) if t is not None}

    @property
    def size(self) -> int:
        """Number of physical cards."""
        return len(self.ids) * self.copies

    @property
    def num_ids(self) -> int:
        return len(self.tokens)

    def card(self, token: str) -> int:
        """The id of `token`; CardError if it is not a card of this deck."""
        try:
            return self._by_token[token]
        except KeyError:
            msg = f"bad card token {token!r}: not a card of the {self.name} deck"
            raise CardError(msg) from None

    def token(self, card: int) -> str:
        if not 0 <= card < len(self.tokens) or self.tokens[card] is None:
            raise CardError(f"bad card id {card}: not a card of the {self.name} deck")
        return self.tokens[card]

    def parse_hand(self, text: str, offset: int = 0) -> tuple[int, ...]:
        """Space-separated tokens -> ids. `offset` is the text's position in a longer string,
        for error messages."""
        cards = []
        for pos, tok in _tokens_with_positions(text):
            try:
                cards.append(self.card(tok))
            except CardError as err:
                raise CardError(f"{err} (at character {offset + pos})") from None
            if cards.count(cards[-1]) > self.copies:
                raise CardError(
                    f"card token {tok!r} at character {offset + pos}: more than {self.copies} "
                    f"in one hand of the {self.name} deck"
                )
        return tuple(cards)

    def format_hand(self, cards) -> str:
        """Ids -> tokens, in the order given."""
        return " ".join(self.token(int(c)) for c in cards)

    def sort_hand(self, cards) -> tuple[int, ...]:
        """Ids sorted for display: by suit in `S H D C` order, high rank first, jokers first."""
        return tuple(sorted(cards, key=self._display_key))

    def _display_key(self, card: int) -> tuple[int, int]:
        tok = self.token(card)
        if tok[1] not in SUIT_CHARS:  # a joker
            return (-1, -card)
        return (SUIT_CHARS.index(tok[1]), -_RANK_ORDER[tok[0]])


_RANK_ORDER = {r: i for i, r in enumerate("A23456789TJQK")} | {"A": 14}


def _tokens_with_positions(text: str):
    pos = 0
    for tok in text.split():
        pos = text.index(tok, pos)
        yield pos, tok
        pos += len(tok)


def _tokens(order_suits: str, order_ranks: str, keep=lambda suit, rank: True) -> list[str | None]:
    return [
        r + s if keep(s, r) else None for s in order_suits for r in order_ranks
    ]


def _kan_deck(name: str, keep) -> Deck:
    # kan.md §15: c = 13*suit + (rank - 2), suits C D H S; JK = 52.
    return Deck(name, tuple(_tokens("CDHS", RANK_CHARS, keep) + ["JK"]))


def _yonin_keep(removed_five: str):
    def keep(s: str, r: str) -> bool:
        return r not in "234" and not (r == "5" and s == removed_five)

    return keep


DECKS = {
    # KAN-1: Gonin removes 2C 2D 2H.
    "gonin_kan": _kan_deck("gonin_kan", lambda s, r: not (r == "2" and s != "S")),
    # KAN-1, KAN-49: Yonin removes every 2, 3, 4 and one 5 (flag yonin_removed_five).
    "yonin_kan": _kan_deck("yonin_kan", _yonin_keep("S")),
    "yonin_kan_5c": _kan_deck("yonin_kan_5c", _yonin_keep("C")),
    # KAN-1: Gambari keeps 8..A of every suit, 7S and JK.
    "gambari_kan": _kan_deck("gambari_kan", lambda s, r: r in "89TJQKA" or r + s == "7S"),
    # DBF §encoding: 13*s + r, S H D C, 2..A; BJ = 52, RJ = 53.
    "da_bai_fen": Deck("da_bai_fen", tuple(_tokens("SHDC", RANK_CHARS) + ["BJ", "RJ"])),
    # KON-1 / encoding: type 13*s + r, S H D C, A 2..K; JK = 52; two copies of each.
    "konkan": Deck("konkan", tuple(_tokens("SHDC", "A23456789TJQK") + ["JK"]), copies=2),
    # CQ-1 / encoding: 10*s + r, S H D C, A 2 3 4 5 6 7 J Q K.
    "conquian": Deck("conquian", tuple(_tokens("SHDC", "A234567JQK"))),
    # Bridge whist: 13*s + r, S H D C, 2..A.
    "whist": Deck("whist", tuple(_tokens("SHDC", RANK_CHARS))),
}


YONIN_REMOVED_FIVES = ("S", "C")  # KAN-49, KAN-76


def deck(game: str, **flags) -> Deck:
    """The deck of `game` (a `kanjax.games()` name); Yonin takes `yonin_removed_five`."""
    if game == "yonin_kan":
        five = flags.get("yonin_removed_five", "S")
        if five not in YONIN_REMOVED_FIVES:
            raise CardError(f"bad yonin_removed_five {five!r}: want 'S' or 'C' (KAN-49)")
        return DECKS["yonin_kan_5c" if five == "C" else "yonin_kan"]
    try:
        return DECKS[game]
    except KeyError:
        raise CardError(f"no deck for game {game!r}; games: {', '.join(DECKS)}") from None


# ---- deal strings -------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Deal:
    """A parsed deal string: game, header fields, hands in seat order, named sections."""

    game: str
    fields: tuple[tuple[str, str], ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    sections: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def field(self, key: str, default: str | None = None) -> str | None:
        return dict(self.fields).get(key, default)

    def section(self, name: str) -> tuple[int, ...] | None:
        return dict(self.sections).get(name)


def parse_deal(text: str, **deck_flags) -> Deal:
    """Parse `game key=value ... | hand | hand ... | name: cards`."""
    parts = text.split("|")
    head = parts[0]
    words = list(_tokens_with_positions(head))
    if not words:
        raise CardError("empty deal string: it must start with the game name")
    game_pos, game = words[0]
    if game not in DECKS:
        raise CardError(
            f"no deck for game {game!r} at character {game_pos}; games: {', '.join(DECKS)}"
        )
    fields = []
    for pos, word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq or not key or not value:
            raise CardError(f"bad deal header field {word!r} at character {pos}: want key=value")
        if key == "yonin_removed_five" and value not in YONIN_REMOVED_FIVES:
            raise CardError(f"bad deal header field {word!r} at character {pos}: want S or C")
        fields.append((key, value))
    flags = {k: v for k, v in fields if k == "yonin_removed_five"} | deck_flags
    the_deck = deck(game, **flags)
    hands, sections = [], []
    offset = len(head) + 1
    for part in parts[1:]:
        name, colon, cards = part.partition(":")
        if colon:
            if len(name.split()) != 1:
                pos = offset + len(name) - len(name.lstrip())
                msg = f"bad section name {name.strip()!r} at character {pos}: want one word"
                raise CardError(msg)
            sections.append((name.strip(), the_deck.parse_hand(cards, offset + len(name) + 1)))
        else:
            if sections:
                raise CardError(f"hand after a named section at character {offset}")
            hands.append(the_deck.parse_hand(part, offset))
        offset += len(part) + 1
    return Deal(game, tuple(fields), tuple(hands), tuple(sections))


def format_deal(deal: Deal, **deck_flags) -> str:
    flags = {k: v for k, v in deal.fields if k == "yonin_removed_five"} | deck_flags
    the_deck = deck(deal.game, **flags)
    head = " ".join([deal.game] + [f"{k}={v}" for k, v in deal.fields])
    parts = [head] + [the_deck.format_hand(h) for h in deal.hands]
    parts += [f"{name}: {the_deck.format_hand(cards)}" for name, cards in deal.sections]
    return " | ".join(parts)
