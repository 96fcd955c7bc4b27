"""Static facts of Konkan (konkan.md): cards, action ids, phases, outcomes, summary, config.

Data and small pure helpers only, no rules (no meld validity, no legality, no scoring), so that
the JAX engine and the plain-Python reference (`kanjax.games.konkan.reference`) share the vocabulary
but not the rules. The encoding in full (cards, the deal, every action id, meld slots,
rewards) is docs/rules/konkan_engine.md, section "Encoding".

Cards (§9): type `t = 13*s + r` (suits S H D C = 0..3, ranks A, 2, .., K = 0..12), the joker
52; two copies of every type; hands, the selection and the pile are counts per type. Run
positions 0..13: 0 = Ace low, 13 = Ace high (KON-2). The deal: `deal_hands` (KON-6).

Action ids (NUM_ACTIONS = 228); table actions are turns of several actions (docs/turns.md):
picks into the selection, then a finishing action that lays it (a pick is legal only if the
turn can still finish, KON-13):

| ids      | action                                                                 |
|----------|------------------------------------------------------------------------|
| 0..52    | `pick t`                                                               |
| 53..64   | `run p`: a new run from position p (KON-7, KON-9)                      |
| 65       | `set`: a new set (KON-8, KON-9)                                        |
| 66..100  | `layoff m`: onto meld m, a run at its high end (KON-17)                |
| 101..135 | `layoff m low`: onto run m at its low end                              |
| 136..170 | `retrieve m`: a meld's joker(s) for natural cards (KON-19, KON-20)     |
| 171..223 | `discard t`: ends the turn (KON-13)                                    |
| 224..227 | `draw`, `take`, `request`, `retract` (KON-12, KON-16, KON-33; KON-27, KON-36; KON-35) |

Table melds occupy slots 0..34 in the order laid; a run of 13 is stored on 0..12 (KON-38).
Result (KON-29..31, KON-37): `reward="win"` (the default) pays 1 to every winner at the game's
end, `reward="points"` minus each round's score at its end. Rounds follow one another in one
episode (KON-5).
"""

from __future__ import annotations

import dataclasses

from kanjax.api import check_flag_keys, check_flag_types
from kanjax.core.cards import Deck, suited_tokens

# ---- cards (KON-1..3, §9) --------------------------------------------------------------------
SUITS = "SHDC"
RANKS = "A23456789TJQK"  # r = 0..12
NUM_SUITS = 4
NUM_RANKS = 13
JOKER = 52
NUM_TYPES = 53
COPIES = 2
DECK_SIZE = 106
HAND_SIZE = 14  # KON-6; the dealer's right gets one more
MAX_HAND = 15  # §9
RUN_POSITIONS = 14  # 0 = Ace low, 1..12 = 2..K, 13 = Ace high
MAX_RUN = 13  # KON-7
MAX_SET = 4  # KON-8
MAX_MELDS = 35  # §9: 106 // 3
JOKER_HAND_VALUE = 15  # KON-3
DECK = Deck("konkan", tuple(suited_tokens(SUITS, RANKS)) + ("JK",), copies=COPIES)


def card_type(suit: int, rank: int) -> int:
    """The type of the card of suit index `suit` and rank index `rank` (A=0 .. K=12)."""
    return NUM_RANKS * suit + rank


def suit_of(t: int) -> int:
    return t // NUM_RANKS


def rank_of(t: int) -> int:
    return t % NUM_RANKS


def rank_value(rank: int) -> int:
    """KON-3: the value of a natural card of rank index `rank` (A=11, 2..T face, J Q K 10)."""
    return 11 if rank == 0 else min(rank + 1, 10)


def position_rank(position: int) -> int:
    """The rank index at run position 0..13 (0 and 13 are both the Ace)."""
    return 0 if position == 13 else position


def stock_size(n: int) -> int:
    """KON-6: the stock after the deal: 106 - 14n - 1."""
    return DECK_SIZE - HAND_SIZE * n - 1


def deal_hands(order, n: int, dealer: int) -> tuple[list[list[int]], list[int]]:
    """The seats' hands (types in deal order) and the stock (top first) of a deck order
    (KON-6; the deal's layout, not a rule of play)."""
    order = [int(t) for t in order]
    hands: list[list[int]] = [[] for _ in range(n)]
    for k in range(HAND_SIZE * n):
        hands[(dealer + 1 + k) % n].append(order[k])
    hands[(dealer + 1) % n].append(order[HAND_SIZE * n])
    return hands, order[HAND_SIZE * n + 1:]


# ---- actions -----------------------------------------------------------------------------------
PICK = 0  # + type
RUN = 53  # + lowest position 0..11
SET = 65
LAYOFF = 66  # + meld slot: a run's high end, or a set
LAYOFF_LOW = 101  # + meld slot: a run's low end
RETRIEVE = 136  # + meld slot
DISCARD = 171  # + type
DRAW = 224
TAKE = 225
REQUEST = 226
RETRACT = 227
NUM_ACTIONS = 228
RUN_STARTS = 12  # `run p`, p = 0..11


def action_names() -> tuple[str, ...]:
    """The name of every action id (cards by token, melds by slot)."""
    tokens = DECK.tokens
    return tuple([f"pick {t}" for t in tokens]
                 + [f"run {p}" for p in range(RUN_STARTS)] + ["set"]
                 + [f"layoff {m}" for m in range(MAX_MELDS)]
                 + [f"layoff {m} low" for m in range(MAX_MELDS)]
                 + [f"retrieve {m}" for m in range(MAX_MELDS)]
                 + [f"discard {t}" for t in tokens]
                 + ["draw", "take", "request", "retract"])


def action_name(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is not a Konkan action id 0..{NUM_ACTIONS - 1}")
    return action_names()[action]


def action_id(name: str) -> int:
    try:
        return action_names().index(name)
    except ValueError:
        raise ValueError(f"unknown Konkan action {name!r}") from None


# ---- phases ----------------------------------------------------------------------------------
PHASE_DRAW = 0  # the turn's start: `draw`, `take`, `request` (KON-12, KON-27)
PHASE_ACT = 1  # picks, finishing actions, `discard`, `retract` (KON-13..20, KON-35)
PHASE_OVER = 2  # the game has ended
PHASE_NAMES = ("draw", "act", "over")

# ---- round outcomes (KON-22..30) -------------------------------------------------------------
IN_PLAY = -1
OUT = 0  # a player went out (KON-22, KON-29)
HAND = 1  # going out with a hand (KON-24)
KONKAN = 2  # KON-25, KON-26, KON-28
BLOCKED = 3  # KON-23, KON-30
OUTCOME_NAMES = ("out", "hand", "konkan", "blocked")

# ---- meld kinds (a summary's meld fields) ------------------------------------------------------
NO_MELD, RUN_MELD, SET_MELD = -1, 0, 1
# `meld_cards[m][i]`: a run: position i holds nothing (0), a natural (1) or a joker (2); a set:
# i = 0..3 is 1 where it holds the natural of suit i, 0 elsewhere (its jokers: `meld_jokers`).
EMPTY, NATURAL, JOKER_CARD = 0, 1, 2

# ---- the summary both implementations state (differential tests) --------------------------------
# Besides api.common_summary's keys (current_player: -1 when the game is over):
SUMMARY_KEYS = (
    "phase",         # PHASE_*
    "round",         # 1..n_rounds (n_rounds after the end)
    "dealer",        # this round's dealer
    "hands",         # int[n][53]: counts per type
    "selection",     # int[53]: the mover's selection (counts)
    "opened",        # bool[n]: has melds on the table this round (those of this turn included)
    "requested",     # bool[n]: made the konkan request this round
    "melds",         # number of table melds
    "meld_owner",    # int[35]: who laid it, -1 for an empty slot
    "meld_kind",     # int[35]: NO_MELD, RUN_MELD, SET_MELD
    "meld_suit",     # int[35]: a run's suit, else -1
    "meld_rank",     # int[35]: a set's rank index, else -1
    "meld_cards",    # int[35][14]: see above
    "meld_jokers",   # int[35]: jokers in the meld
    "stock",         # cards left in the stock
    "pile",          # int[53]: the discard pile's counts
    "pile_top",      # the top discard's type, -1 when the pile is empty
    "taken",         # the type taken from the pile this turn, -1 if none
    "turns",         # turns ended by a discard this round (KON-23's bound)
    "round_scores",  # int[n]: the last finished round's scores (0 before the first ends)
    "totals",        # int[n]: the sum of finished rounds' scores (KON-31)
    "outcome",       # the last finished round's outcome (IN_PLAY before the first ends)
    "winners",       # bool[n]: the game's winners (all False until the end)
)

# ---- config (§8) -------------------------------------------------------------------------------
REWARDS = ("win", "points")
MAX_MAX_TURNS = 10_000


@dataclasses.dataclass(frozen=True)
class KonConfig:
    """Static, hashable variant config: every flag of konkan.md §8 with the rules' default."""

    n: int = 4  # KON-V2: seats 2..5
    partnership: bool = False  # KON-V2: n = 4, teams {0, 2} and {1, 3}
    opening_min: int = 51  # KON-V1 (71: Konkan 71)
    opening_requires_run: bool = True  # KON-V3
    take_must_use_card: bool = True  # KON-V4
    n_rounds: int = 5  # KON-V5
    max_turns_per_round: int = 400  # KON-V6
    dealer: int = -1  # KON-5: the first round's dealer; -1 = drawn from the init key
    reward: str = "win"  # module docstring
    illegal_action_penalty: float = -1.0  # the mover's reward on an illegal action (api)

    def __post_init__(self) -> None:
        check_flag_types(self)
        if not 2 <= self.n <= 5:
            raise ValueError(f"n={self.n}: Konkan is for 2..5 players")
        if self.partnership and self.n != 4:
            raise ValueError(f"partnership=True needs n=4, not n={self.n} (KON-4)")
        if not 0 <= self.opening_min <= 14 * 11:
            raise ValueError(f"opening_min={self.opening_min}: must be 0..154")
        if not 1 <= self.n_rounds <= 100:
            raise ValueError(f"n_rounds={self.n_rounds}: must be 1..100")
        if not 1 <= self.max_turns_per_round <= MAX_MAX_TURNS:
            raise ValueError(
                f"max_turns_per_round={self.max_turns_per_round}: must be 1..{MAX_MAX_TURNS}")
        if not -1 <= self.dealer < self.n:
            raise ValueError(f"dealer={self.dealer}: must be a seat 0..{self.n - 1}, or -1")
        if self.reward not in REWARDS:
            raise ValueError(f"reward={self.reward!r}: must be one of {REWARDS}")

    def team(self, seat: int) -> int:
        """The seat's side: its team (0 or 1) in partnership play, else the seat itself."""
        return seat % 2 if self.partnership else seat

    @classmethod
    def from_flags(cls, **flags) -> KonConfig:
        """The config of `kanjax.make("konkan", **flags)`: unknown keys rejected."""
        check_flag_keys("konkan", flags, (f.name for f in dataclasses.fields(cls)))
        return cls(**flags)
