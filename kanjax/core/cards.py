"""Card notation: tokens, decks as token tables, hands and deal strings.

Token: rank then suit, ranks `2-9 T J Q K A`, suits `S H D C` (`AS`, `TH`, `7C`); jokers `JK`,
`BJ` / `RJ`. Each game numbers its cards as its rules file's encoding notes say and declares
its `Deck` (`Views.card_deck`), which converts between tokens and that game's ids.

A deal string names the game, header fields and every hand in seat order, with optional named
sections (a kitty, a stock):

    <game> dealer=0 | AS KS 2S ... | ... | kitty: 3C 4C

`parse_deal(format_deal(d, deck), deck) == d`; malformed input raises `CardError` naming the
bad token and its character position.
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
    copies: int = 1  # 2 for a double deck: a hand is a multiset of ids

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

    def format_by_suit(self, cards) -> str:
        """A hand for people: jokers, then each suit's ranks (`JK  S:AK2  H:-  D:Q  C:T9`)."""
        groups = {s: [] for s in SUIT_CHARS}
        jokers = []
        for c in self.sort_hand(cards):
            tok = self.token(c)
            if tok[1] in groups:
                groups[tok[1]].append(tok[0])
            else:
                jokers.append(tok)
        parts = [" ".join(jokers)] if jokers else []
        parts += [f"{s}:{''.join(r) or '-'}" for s, r in groups.items()]
        return "  ".join(parts)

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


def suited_tokens(suits: str, ranks: str, keep=lambda suit, rank: True) -> list[str | None]:
    """Tokens of the ids `len(ranks) * suit_index + rank_index`, suits in `suits` order, for a
    game's `Deck` (None where `keep(suit, rank)` is False: no card has that id)."""
    return [r + s if keep(s, r) else None for s in suits for r in ranks]


@functools.cache
def _game_deck(game: str, flags: tuple) -> Deck:
    import kanjax  # the registry; imported late: the games import this module

    if game not in kanjax.games():
        raise CardError(f"no deck for game {game!r}; games: {', '.join(kanjax.games())}")
    return kanjax.make(game, **dict(flags)).card_deck


def deck(game: str, **flags) -> Deck:
    """The deck of the registered game `game` under its variant `flags`: the game's own
    `Views.card_deck` (a bad flag raises ValueError)."""
    return _game_deck(game, tuple(sorted(flags.items())))


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


def deal_header(text: str) -> Deal:
    """The game and the header fields of a deal string (its hands unread)."""
    head = text.split("|")[0]
    words = list(_tokens_with_positions(head))
    if not words:
        raise CardError("empty deal string: it must start with the game name")
    fields = []
    for pos, word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq or not key or not value:
            raise CardError(f"bad deal header field {word!r} at character {pos}: want key=value")
        fields.append((key, value))
    return Deal(words[0][1], tuple(fields))


def parse_deal(text: str, deck: Deck) -> Deal:
    """Parse `game key=value ... | hand | hand ... | name: cards`, the cards with `deck` (the
    game's: `Views.card_deck`)."""
    header = deal_header(text)
    parts = text.split("|")
    hands, sections = [], []
    offset = len(parts[0]) + 1
    for part in parts[1:]:
        name, colon, cards = part.partition(":")
        if colon:
            if len(name.split()) != 1:
                pos = offset + len(name) - len(name.lstrip())
                msg = f"bad section name {name.strip()!r} at character {pos}: want one word"
                raise CardError(msg)
            sections.append((name.strip(), deck.parse_hand(cards, offset + len(name) + 1)))
        else:
            if sections:
                raise CardError(f"hand after a named section at character {offset}")
            hands.append(deck.parse_hand(part, offset))
        offset += len(part) + 1
    return dataclasses.replace(header, hands=tuple(hands), sections=tuple(sections))


def format_deal(deal: Deal, deck: Deck) -> str:
    """The deal string of `deal`, its cards written with `deck`."""
    head = " ".join([deal.game] + [f"{k}={v}" for k, v in deal.fields])
    parts = [head] + [deck.format_hand(h) for h in deal.hands]
    parts += [f"{name}: {deck.format_hand(cards)}" for name, cards in deal.sections]
    return " | ".join(parts)
