"""Double-dummy positions: the trick-play rules of a game and a position within them, in plain
Python. Both solvers (the CPU reference in `solvers.reference` and the batched JAX search in
`solvers.search`) take these; `solvers.convert` builds them from a kanjax `State`, a deal
string or a PBN deal.

Seats are numbered in play order: seat `s + 1 (mod n)` plays after seat `s`. Cards are the
game's card ids (kan.md §15 for Kan: `13 * suit + rank`, suits C D H S, JK = 52; whist:
`13 * suit + rank`, suits S H D C). A move is an action id of the game: a card id, or for a
Kan joker lead `LEAD_JK + s` (53..56, "lead JK naming suit s", KAN-26).

The value of a position is what the *side* (a set of seats) takes from now to the end of the
deal plus what it already has (`taken`), every player playing perfectly, the side
maximising: point cards for Kan (KAN-3: every A K Q J is 1; all tricks are played, no early
end), tricks for whist.

A *goal* `(side_min, other_max)` asks a yes/no question instead: can the side force, at the
end of some trick, `side >= side_min` while `other <= other_max`? Both totals only grow, so
the goal fails as soon as `other > other_max`. `value >= T` is the goal `(T, total - T)`;
the Kan contracts are goals too (`solvers.kan_questions`): sukonku `(T(d), 0)`, juuroku
`(16, 0)`, and the gyaku forms the same for the mukankei (KAN-31, KAN-32).
"""

from __future__ import annotations

import dataclasses
import functools

JK = 52  # Kan's joker id
LEAD_JK = 53  # Kan: action LEAD_JK + s leads JK naming suit s (KAN-26)
NO_TRUMP = -1
JOKER_RULES = ("none", "gonin", "yonin")  # whist; KAN-25..27 (Gonin, Gambari); KAN-54 (Yonin)
JOKER_SUIT = 4  # `Rules.suit` of the joker
# The solvers' limits (`Rules` checks them): seats (4-bit fields of the search's table key),
# suits (a suit word each), cards a suit (relative ranks in a 16-bit word, a hand's suit
# length in 4 bits), jokers (Kan's one, card JK), cards a play, and a deal's value (int8).
MAX_SEATS, MAX_SUITS, MAX_SUIT_CARDS, MAX_PLAY_CARDS, MAX_TOTAL = 15, 4, 15, 1, 127


@dataclasses.dataclass(frozen=True)
class Rules:
    """The static trick-play rules of a game.

    `ids`: the card ids of the deck; `suit[c]` 0..3 (4: the joker), `rank[c]` 0..12 (higher
    wins), `points[c]` the card's point value, over ids 0..num_ids-1. A trick is worth
    `trick_value` plus the points of its cards. `joker`: which joker rules apply (JOKER_RULES);
    `yonin_joker_trick1`: Yonin's KAN-58 flag ("lead": no JK lead in trick 1; "any": no JK
    at all in trick 1), since the solver plays no contracts. `cards_a_play`: the most cards
    one play holds (Da Bai Fen's multi-card plays, DBF-26, would need more).

    Rules beyond the solvers' limits (MAX_SEATS seats, MAX_SUITS suits of at most
    MAX_SUIT_CARDS cards of distinct ranks, at most one joker: card JK, the last id, under
    Kan's joker rules; MAX_PLAY_CARDS card a play, points 0 or 1 a card, a deal worth at
    most MAX_TOTAL) are refused with a ValueError that names the limit.
    """

    game: str
    n: int
    n_tricks: int
    ids: tuple[int, ...]
    suit: tuple[int, ...]
    rank: tuple[int, ...]
    points: tuple[int, ...]
    trick_value: int
    joker: str = "none"
    yonin_joker_trick1: str = "lead"
    cards_a_play: int = 1

    def __post_init__(self) -> None:
        def refuse(what: str) -> None:
            raise ValueError(f"{self.game}: {what}")
        if not len(self.suit) == len(self.rank) == len(self.points):
            refuse(f"suit, rank and points cover {len(self.suit)}, {len(self.rank)} and "
                   f"{len(self.points)} card ids; want one entry per card id each")
        if len(set(self.ids)) != len(self.ids) or not set(self.ids) <= set(range(self.num_ids)):
            refuse(f"deck ids {self.ids}: want distinct ids 0..{self.num_ids - 1}")
        if not 2 <= self.n <= MAX_SEATS:
            refuse(f"{self.n} seats: the solvers take 2..{MAX_SEATS} seats")
        if self.cards_a_play > MAX_PLAY_CARDS:
            refuse(f"{self.cards_a_play} cards a play: the solvers play {MAX_PLAY_CARDS} card "
                   "a play")
        if self.joker not in JOKER_RULES:
            refuse(f"joker rules {self.joker!r}: want one of {JOKER_RULES}")
        if self.yonin_joker_trick1 not in ("lead", "any"):
            refuse(f"yonin_joker_trick1 {self.yonin_joker_trick1!r}: want 'lead' or 'any'")
        for c in self.ids:
            if not 0 <= self.suit[c] <= JOKER_SUIT:
                refuse(f"card {c} of suit {self.suit[c]}: the solvers take {MAX_SUITS} suits, "
                       f"0..{MAX_SUITS - 1}, and {JOKER_SUIT} for the joker")
            if self.points[c] not in (0, 1):
                refuse(f"card {c} worth {self.points[c]} points: the solvers take 0 or 1 a card")
        jokers = [c for c in self.ids if self.suit[c] == JOKER_SUIT]
        if self.joker == "none" and jokers:
            refuse(f"jokers {jokers} under joker rules 'none': want no card of suit "
                   f"{JOKER_SUIT}")
        if self.joker != "none" and (jokers != [JK] or self.num_ids != JK + 1):
            refuse(f"jokers {jokers} of card ids 0..{self.num_ids - 1}: Kan's joker rules "
                   f"({self.joker!r}) take one joker, card {JK}, the last id")
        for s in range(MAX_SUITS):
            ranks = [self.rank[c] for c in self.ids if self.suit[c] == s]
            if len(ranks) > MAX_SUIT_CARDS:
                refuse(f"{len(ranks)} cards of suit {s}: the solvers take at most "
                       f"{MAX_SUIT_CARDS} a suit")
            if len(set(ranks)) != len(ranks):
                refuse(f"suit {s} with ranks {sorted(ranks)}: want distinct ranks in a suit")
        if self.n * self.n_tricks > len(self.ids):
            refuse(f"{self.n} hands of {self.n_tricks} cards from a deck of {len(self.ids)}")
        if not 0 <= self.total <= MAX_TOTAL:
            refuse(f"a deal worth {self.total}: the solvers take a value of 0..{MAX_TOTAL}")

    @property
    def num_ids(self) -> int:
        return len(self.suit)

    @property
    def num_moves(self) -> int:
        """Size of the move space: the card ids, plus the four joker leads for Kan."""
        return self.num_ids + (4 if self.joker != "none" else 0)

    @property
    def total(self) -> int:
        """The value of all tricks of a deal."""
        return self.n_tricks * self.trick_value + sum(self.points[c] for c in self.ids)


@functools.cache
def kan_rules(game: str, yonin_removed_five: str = "S",
              yonin_joker_trick1_contract: str = "lead") -> Rules:
    """Trick-play rules of a Kan variant (`gonin_kan`, `yonin_kan`, `gambari_kan`)."""
    from kanjax import cards

    flags = {"yonin_removed_five": yonin_removed_five} if game == "yonin_kan" else {}
    deck = cards.deck(game, **flags)
    n = {"gonin_kan": 5, "yonin_kan": 4, "gambari_kan": 3}[game]
    suit = tuple(c // 13 for c in range(52)) + (4,)
    rank = tuple(c % 13 for c in range(52)) + (0,)
    points = tuple(int(c < 52 and c % 13 >= 9) for c in range(53))  # KAN-3: J Q K A
    return Rules(game, n, len(deck.ids) // n, deck.ids, suit, rank, points, 0,
                 "yonin" if game == "yonin_kan" else "gonin", yonin_joker_trick1_contract)


WHIST = Rules("whist", 4, 13, tuple(range(52)), tuple(c // 13 for c in range(52)),
              tuple(c % 13 for c in range(52)), (0,) * 52, 1)


@dataclasses.dataclass(frozen=True)
class Position:
    """A trick-play position.

    hands: each seat's cards. trick: the cards played to the current trick, in order, from
    `leader`'s; `led`: its led suit (the suit named for a joker lead; -1 while empty).
    tricks_done: tricks completed this deal (so the current trick is number tricks_done + 1).
    side: the seats of the side to optimise; taken / taken_other: what the side / the other
    side has already (points for Kan, tricks for whist).
    root_moves: if set, the legal moves at this position are further limited to these (a
    rule the solver does not model, such as Yonin's compulsory first lead, KAN-53).
    """

    rules: Rules
    hands: tuple[tuple[int, ...], ...]
    trump: int
    leader: int
    side: tuple[bool, ...]
    trick: tuple[int, ...] = ()
    led: int = -1
    tricks_done: int = 0
    taken: int = 0
    taken_other: int = 0
    root_moves: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        r = self.rules
        if len(self.hands) != r.n or len(self.side) != r.n:
            raise ValueError(f"{r.game}: want {r.n} hands and side flags, got "
                             f"{len(self.hands)} and {len(self.side)}")
        cards = [c for h in self.hands for c in h] + list(self.trick)
        if len(set(cards)) != len(cards) or not set(cards) <= set(r.ids):
            raise ValueError(f"{r.game}: cards repeated or not in the deck: {sorted(cards)}")
        left = r.n_tricks - self.tricks_done
        for s, h in enumerate(self.hands):
            want = left - (1 if (s - self.leader) % r.n < len(self.trick) else 0)
            if len(h) != want:
                raise ValueError(f"{r.game}: seat {s} holds {len(h)} cards, want {want} "
                                 f"({left} tricks left, {len(self.trick)} cards in the trick)")
        if not 0 <= self.leader < r.n or len(self.trick) >= r.n:
            raise ValueError(f"{r.game}: leader {self.leader}, trick {self.trick}: want a seat "
                             f"0..{r.n - 1} and at most {r.n - 1} cards in the current trick")
        if not NO_TRUMP <= self.trump < MAX_SUITS:
            raise ValueError(f"{r.game}: trump {self.trump}: want {NO_TRUMP} (none) or a suit "
                             f"0..{MAX_SUITS - 1}")
        lead_suit = r.suit[self.trick[0]] if self.trick else -1
        if (self.led < 0) != (not self.trick) or lead_suit not in (self.led, 4):
            raise ValueError(f"{r.game}: led suit {self.led} with trick {self.trick}")

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % self.rules.n

    @property
    def cards_left(self) -> int:
        return sum(len(h) for h in self.hands)
