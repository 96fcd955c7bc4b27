"""Double-dummy positions: the trick-play rules of a game and a position within them, in plain
Python. Both solvers (the CPU reference in `solvers.reference` and the batched JAX search in
`solvers.search`) take these; `solvers.convert` builds them from a kanjax `State`, a deal
string or a PBN deal.

Seats are numbered in play order: seat `s + 1 (mod n)` plays after seat `s`. Cards are the
game's card ids; a deck with a joker has it as the last id, JK = 52. A move is an action id
of the game: a card id, or a joker lead `LEAD_JK + s` (53..56: the joker led naming suit s).
The game describes its rules as data (`TrickPlay.trick_rules`, the fields of `Rules`); no code here
or in the searches is a game's own.

The value of a position is what the *side* (a set of seats) takes from now to the end of the
deal plus what it already has (`taken`), every player playing perfectly, the side
maximising: point cards and tricks as the rules value them (all tricks are played, no early end).

A *goal* `(side_min, other_max)` asks a yes/no question instead: can the side force, at the
end of some trick, `side >= side_min` while `other <= other_max`? Both totals only grow, so
the goal fails as soon as `other > other_max`. `value >= T` is the goal `(T, total - T)`; a
game's contracts can be goals too (`TrickPlay.trick_goals`, `solvers.api.named_goals`).
"""

from __future__ import annotations

import dataclasses

JK = 52  # the joker's id: the last of a deck of 53 ids
LEAD_JK = 53  # action LEAD_JK + s leads the joker naming suit s
NO_TRUMP = -1
# When the joker may be played in a trick (`Rules.joker`, one a trick): not at all; only
# following (no lead); leading (naming a suit) or following; and nothing else (its holder
# must play it, leading or following).
JOKER_PLAYS = ("never", "follow", "any", "only")
JOKER_SUIT = 4  # `Rules.suit` of the joker
# The solvers' limits (`Rules` checks them): seats (4-bit fields of the search's table key),
# suits (a suit word each), cards a suit (relative ranks in a 16-bit word, a hand's suit
# length in 4 bits), jokers (one, card JK), cards a play, and a deal's value (int8).
MAX_SEATS, MAX_SUITS, MAX_SUIT_CARDS, MAX_PLAY_CARDS, MAX_TOTAL = 15, 4, 15, 1, 127
# What an invalid multi-lead (DBF-23) is (`Rules.invalid_lead`, DBF-24): a move that ends the
# deal at once, scored as the penalty says; or an illegal move.
INVALID_LEADS = ("penalty", "mask")


def play_mask(cards) -> int:
    """A play of several cards as a move (`Rules.cards_a_play` > 1): the bit mask of its card
    ids, bit c for card c. Every move of such rules is one, a single card's too."""
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def play_cards(move: int) -> tuple[int, ...]:
    """The card ids of a play mask (`play_mask`), low first."""
    out = []
    while move:
        low = move & -move
        out.append(low.bit_length() - 1)
        move ^= low
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class Rules:
    """The static trick-play rules of a game.

    `ids`: the card ids of the deck; `suit[c]` 0..3 (4: the joker), `rank[c]` (higher wins;
    equal ranks are equal cards, of which the earlier played wins), `points[c]` the card's
    point value, over ids 0..num_ids-1. A game whose trumps are more than a suit (Da Bai
    Fen's trump ranks and jokers, DBF-5) gives each card its *effective* suit (every trump of
    the trump suit) and its strength within it; such rules are a hand's, not a game's
    (`Env.trick_rules(state)`). A trick is worth `trick_value` plus the points of its cards;
    the last trick `last_bonus` more (DBF-29's doubled kitty), or with `last_bonus_per_card`
    `last_bonus` times the cards of a play in it (DBF-V4). The joker (a deck with one: card
    JK, suit JOKER_SUIT) beats every card; `joker`: when it may be played, one of JOKER_PLAYS
    for each trick (empty: no joker); `joker_low_last`: in the last trick it is instead the
    lowest card of the led suit (above the other suits' cards). `cards_a_play`: the most
    cards one play holds; a lead of several cards is of one suit, a follower plays as many
    and must follow with as many of the led suit as he holds (DBF-21, DBF-25), the winner
    is `kanjax.core.trick.winning_play`'s (DBF-26). `quads` (empty: none): per card the strength
    of a four-of-a-kind of its kind (DBF-V8's Dun, 0: in none). For display: `tokens` (a
    card id's name), `suit_names` (a letter a suit, as the game names trumps) and
    `seat_names` (empty: seats are shown as the game's players).

    Malformed rules are refused where they are built (ValueError). Rules beyond the
    solvers' limits (MAX_SUITS suits of at most MAX_SUIT_CARDS cards of distinct ranks,
    MAX_PLAY_CARDS card a play, points 0 or 1 a card, no last-trick bonus, no quads, a deal
    worth at most MAX_TOTAL; also MAX_SEATS seats and at most one joker, card JK, the last
    id, which are refused where built) can be described, for a game's positions, but not
    searched: `limits` names each limit they pass, and every search refuses them
    (`check_limits`: a ValueError naming the limits).
    """

    game: str
    n: int
    n_tricks: int
    ids: tuple[int, ...]
    suit: tuple[int, ...]
    rank: tuple[int, ...]
    points: tuple[int, ...]
    trick_value: int
    joker: tuple[str, ...] = ()
    joker_low_last: bool = False
    cards_a_play: int = 1
    last_bonus: int = 0
    last_bonus_per_card: bool = False
    quads: tuple[int, ...] = ()
    invalid_lead: str = "penalty"
    penalty: int = 0
    tokens: tuple[str, ...] = ()
    suit_names: str = "SHDC"
    seat_names: tuple[str, ...] = ()

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
        if self.cards_a_play < 1 or self.quads and len(self.quads) != self.num_ids:
            refuse(f"{self.cards_a_play} cards a play, quads for {len(self.quads)} card ids: "
                   "want at least 1 card a play and none or one quad strength a card id")
        if self.invalid_lead not in INVALID_LEADS or self.penalty < 0:
            refuse(f"invalid leads {self.invalid_lead!r}, penalty {self.penalty}: want one "
                   f"of {INVALID_LEADS} and a penalty of 0 or more")
        if self.joker and (len(self.joker) != self.n_tricks
                           or not set(self.joker) <= set(JOKER_PLAYS)):
            refuse(f"joker plays {self.joker}: want one of {JOKER_PLAYS} for each of the "
                   f"{self.n_tricks} tricks")
        for c in self.ids:
            if not 0 <= self.suit[c] <= JOKER_SUIT:
                refuse(f"card {c} of suit {self.suit[c]}: the solvers take {MAX_SUITS} suits, "
                       f"0..{MAX_SUITS - 1}, and {JOKER_SUIT} for the joker")
            if self.points[c] < 0:
                refuse(f"card {c} worth {self.points[c]} points: want 0 or more")
        jokers = [c for c in self.ids if self.suit[c] == JOKER_SUIT]
        if not self.joker and jokers:
            refuse(f"jokers {jokers} without joker plays: want no card of suit {JOKER_SUIT}")
        if self.joker and (jokers != [JK] or self.num_ids != JK + 1):
            refuse(f"jokers {jokers} of card ids 0..{self.num_ids - 1}: the solvers take one "
                   f"joker, card {JK}, the last id")
        if self.n * self.n_tricks > len(self.ids):
            refuse(f"{self.n} hands of {self.n_tricks} cards from a deck of {len(self.ids)}")
        if self.tokens and len(self.tokens) != self.num_ids:
            refuse(f"{len(self.tokens)} card tokens for {self.num_ids} card ids")
        if len(self.suit_names) != MAX_SUITS or (self.seat_names
                                                 and len(self.seat_names) != self.n):
            refuse(f"suit names {self.suit_names!r}, seat names {self.seat_names}: want "
                   f"{MAX_SUITS} suit letters and none or {self.n} seat names")

    @property
    def limits(self) -> tuple[str, ...]:
        """The solvers' limits these rules pass, each named with the value (empty: the
        searches take them)."""
        out = []
        if self.cards_a_play > MAX_PLAY_CARDS:
            out.append(f"{self.cards_a_play} cards a play (multi-card plays, DBF-21..27): the "
                       f"solvers play {MAX_PLAY_CARDS} card a play")
        if self.quads:
            out.append("four-of-a-kind plays (quads): the solvers play none")
        worth = sorted({p for p in self.points if p not in (0, 1)})
        if worth:
            c = next(c for c in self.ids if self.points[c] not in (0, 1))
            out.append(f"card {c} worth {self.points[c]} points (cards worth {worth}): the "
                       "solvers take 0 or 1 a card")
        if self.last_bonus:
            out.append(f"a last-trick bonus of {self.last_bonus}: the solvers value every "
                       "trick alike")
        for s in range(MAX_SUITS):
            ranks = [self.rank[c] for c in self.ids if self.suit[c] == s]
            if len(ranks) > MAX_SUIT_CARDS:
                out.append(f"{len(ranks)} cards of suit {s}: the solvers take at most "
                           f"{MAX_SUIT_CARDS} a suit")
            if len(set(ranks)) != len(ranks):
                out.append(f"suit {s} with ranks {sorted(ranks)}: the solvers take distinct "
                           "ranks in a suit")
        if not 0 <= self.total <= MAX_TOTAL:
            out.append(f"a deal worth {self.total}: the solvers take a value of 0..{MAX_TOTAL}")
        return tuple(out)

    def check_limits(self) -> None:
        """ValueError naming every limit of the solvers these rules pass (see `limits`):
        each search calls it before it searches."""
        if self.limits:
            raise ValueError(f"{self.game}: beyond the solvers' limits: "
                             + "; ".join(self.limits))

    @property
    def num_ids(self) -> int:
        return len(self.suit)

    @property
    def num_moves(self) -> int:
        """Size of the move space: the card ids, plus the four joker leads with a joker."""
        return self.num_ids + (4 if self.joker else 0)

    @property
    def plain_tricks(self) -> bool:
        """Whether these are plain trick-taking rules: a trick worth 1, no point cards, no
        joker (the value is a count of tricks, as in bridge)."""
        return not self.joker and self.trick_value == 1 and not any(self.points)

    def move_name(self, move: int) -> str:
        """A move by name: the card's token (`#id` without tokens), `JK:s` for a joker lead
        naming suit s; with plays of several cards (a move is a `play_mask`) its cards' names
        joined by spaces, low id first."""
        if self.cards_a_play > 1:
            return " ".join(self.tokens[c] if self.tokens else f"#{c}"
                            for c in play_cards(move))
        if move >= self.num_ids:
            return "JK:" + self.suit_names[move - LEAD_JK]
        return self.tokens[move] if self.tokens else f"#{move}"

    def trump_name(self, trump: int) -> str:
        """A trump suit by the game's letter; "NT" for none."""
        return "NT" if trump == NO_TRUMP else self.suit_names[trump]

    @property
    def total(self) -> int:
        """The value of all tricks of a deal (with a last-trick bonus a card, the most)."""
        bonus = self.last_bonus * (self.cards_a_play if self.last_bonus_per_card else 1)
        return (self.n_tricks * self.trick_value + sum(self.points[c] for c in self.ids)
                + bonus)


def multi_card_limits(rules: Rules) -> tuple[str, ...]:
    """What the multi-card searches (`solvers.reference_dbf`, `solvers.cpu.multi`) do not take
    (empty: they take these rules): four-of-a-kind plays (Dun, DBF-V8), a joker of
    `Rules.joker`'s kind, and more than 64 card ids (a play mask is a 64-bit word in the
    compiled search)."""
    out = []
    if rules.quads:
        out.append("four-of-a-kind plays (quads, DBF-V8's Dun): the multi-card searches "
                   "play none")
    if rules.joker:
        out.append("a joker (Rules.joker): the multi-card searches take none")
    if rules.num_ids > 64:
        out.append(f"{rules.num_ids} card ids: the multi-card searches take at most 64")
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class Position:
    """A trick-play position.

    hands: each seat's cards. trick: the cards played to the current trick, in order, from
    `leader`'s, each play's `play_cards` cards together (one card a play but where the rules
    allow more: `cards_a_play`; then a play's cards in id order, `plays`); `led`: its led
    suit (the suit named for a joker lead; -1 while empty); `quad_led`: its lead is a
    four-of-a-kind (`Rules.quads`). tricks_done: tricks completed this deal (so the current
    trick is number tricks_done + 1). side: the seats of the side to optimise; taken /
    taken_other: what the side / the other side has already (as the rules value tricks and
    cards). root_moves: if set, the legal moves at this position are further limited to
    these (a rule the solver does not model, such as a compulsory first lead).
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
    play_cards: int = 1
    quad_led: bool = False

    def __post_init__(self) -> None:
        r = self.rules
        if len(self.hands) != r.n or len(self.side) != r.n:
            raise ValueError(f"{r.game}: want {r.n} hands and side flags, got "
                             f"{len(self.hands)} and {len(self.side)}")
        cards = [c for h in self.hands for c in h] + list(self.trick)
        if len(set(cards)) != len(cards) or not set(cards) <= set(r.ids):
            raise ValueError(f"{r.game}: cards repeated or not in the deck: {sorted(cards)}")
        k = self.play_cards
        if not 1 <= k <= r.cards_a_play or len(self.trick) % k or (k > 1 and not self.trick):
            raise ValueError(f"{r.game}: trick {self.trick} of plays of {k} cards: want "
                             f"1..{r.cards_a_play} cards a play, {k} to each play (1 while "
                             "the trick is empty)")
        if not 0 <= self.leader < r.n or len(self.trick) // k >= r.n:
            raise ValueError(f"{r.game}: leader {self.leader}, trick {self.trick}: want a seat "
                             f"0..{r.n - 1} and at most {r.n - 1} plays in the current trick")
        left = r.n_tricks - self.tricks_done
        played = [(s - self.leader) % r.n < len(self.trick) // k for s in range(r.n)]
        at_start = [len(h) + k * p for h, p in zip(self.hands, played, strict=True)]
        for s, h in enumerate(self.hands):
            # one card a play: a card a trick left; more: each seat as many, a trick's worth
            want = left if r.cards_a_play == 1 else min(max(at_start), left)
            if at_start[s] != want:
                raise ValueError(f"{r.game}: seat {s} holds {len(h)} cards, want "
                                 f"{want - k * played[s]} ({left} tricks left, "
                                 f"{len(self.trick)} cards in the trick)")
        if not NO_TRUMP <= self.trump < MAX_SUITS:
            raise ValueError(f"{r.game}: trump {self.trump}: want {NO_TRUMP} (none) or a suit "
                             f"0..{MAX_SUITS - 1}")
        lead_suit = r.suit[self.trick[0]] if self.trick else -1
        if (self.led < 0) != (not self.trick) or lead_suit not in (self.led, 4):
            raise ValueError(f"{r.game}: led suit {self.led} with trick {self.trick}")
        if self.quad_led and not (r.quads and k == 4):
            raise ValueError(f"{r.game}: a four-of-a-kind lead in trick {self.trick}")

    @property
    def plays(self) -> tuple[tuple[int, ...], ...]:
        """The current trick's plays, in order from `leader`'s."""
        k = self.play_cards
        return tuple(self.trick[i:i + k] for i in range(0, len(self.trick), k))

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick) // self.play_cards) % self.rules.n

    @property
    def cards_left(self) -> int:
        return sum(len(h) for h in self.hands)

    def other_side(self) -> Position:
        """The same position, the other side's to optimise."""
        return dataclasses.replace(self, side=tuple(not s for s in self.side),
                                   taken=self.taken_other, taken_other=self.taken)
