"""Static facts of Conquian (conquian.md): cards, action ids, phases, outcomes, config.

Data and small pure helpers only, no rules (no meld validity, no legality, no scoring), so that
the JAX engine and the plain-Python reference (`kanjax.games.conquian.reference`) share the
vocabulary but not the rules.

Cards (§7): id `c = 10*s + r`, suits S=0 H=1 D=2 C=3, `r` the position in the pack's order
(CQ-2; the numerals pack of CQ-V1: A 2 .. 9 T). The deal (CQ-5) from a deck order (a
permutation of the 40 ids): card k < 20 goes to the non-dealer N if k is even, to the dealer D
if odd; cards 20..39 are the stock, card 20 on top.

Action ids (one action space, NUM_ACTIONS = 125). A TAKE with hand cards is a turn of several
actions (docs/turns.md): the hand cards are picked one by one, in any order, and `take` lays E
and the selection down; the mask allows a pick only if some legal take contains the selection
with it (CQ-13).

| ids      | action                                                                        |
|----------|-------------------------------------------------------------------------------|
| 0..39    | `pick c`: put hand card c into the take's selection (CQ-13)                   |
| 40       | `take`: meld E with the selection (CQ-13); the selection may be empty         |
| 41       | `pass`: refuse a fresh E, which is offered to the opponent (CQ-11)            |
| 42       | `decline`: refuse an offered E: it is dead, the refuser turns a card (CQ-12)  |
| 43       | `demand`: make the refusing player take E (CQ-15)                             |
| 44       | `waive`: let the refusal go ahead (CQ-15)                                     |
| 45..84   | `discard c`: lay hand card c face up, offered to the opponent (CQ-13; also     |
|          | the discard forced by a layoff, CQ-16/27)                                     |
| 85..124  | `layoff c`: force hand card c onto the opponent's meld (CQ-16)                |

Result (CQ-21, CQ-22): an episode is the harness's series of deals. With `carry_pot` (the
default) a drawn deal is followed by the next one, dealt by the other seat (CQ-4), until a deal
is decided: its winner gets +(1 + k), the loser -(1 + k), after k drawn deals; after
`max_deals` drawn deals the series ends at 0 each (an engine bound, not a rule). Without
`carry_pot` an episode is one deal: +1 / -1, or 0 each for a draw. Rewards are 0 until the end.

Bound (§7): E is a turned card (at most 20) or a discarded hand card (at most 20); each E
takes at most 5 decisions that move no hand card (face, respond, the other seat's face,
respond, the demanded take), and picks, discards and layoffs move one of the 20 hand cards
each: MAX_DEAL_STEPS = 40 * 5 + 20 = 220.
"""

from __future__ import annotations

import dataclasses

from kanjax.api import check_flag_keys, check_flag_types
from kanjax.core.cards import Deck, suited_tokens

# ---- cards (CQ-1, CQ-2, CQ-V1, §7) -----------------------------------------------------------
SUITS = "SHDC"
RANKS = {"spanish": "A234567JQK", "numerals": "A23456789T"}  # low to high (CQ-2, CQ-V1)
NUM_SUITS = 4
NUM_RANKS = 10
NUM_CARDS = 40
NUM_PLAYERS = 2
HAND_SIZE = 10  # CQ-5
STOCK_SIZE = NUM_CARDS - NUM_PLAYERS * HAND_SIZE  # 20
WIN_MELD = 11  # CQ-18: the meld that wins
DECKS = {name: Deck(f"conquian {name}", tuple(suited_tokens(SUITS, ranks)))
         for name, ranks in RANKS.items()}


def card_id(suit: int, rank: int) -> int:
    """The id of the card of suit index `suit` and rank position `rank` (CQ-2 order)."""
    return NUM_RANKS * suit + rank


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    """The card's position 0..9 in the pack's order (CQ-2: A=0 .. 7=6, J=7, Q=8, K=9)."""
    return card % NUM_RANKS


# ---- seats (CQ-4) ----------------------------------------------------------------------------
def opponent(seat: int) -> int:
    return 1 - seat


# ---- actions ---------------------------------------------------------------------------------
PICK = 0  # + card id
TAKE = 40
PASS = 41
DECLINE = 42
DEMAND = 43
WAIVE = 44
DISCARD = 45  # + card id
LAYOFF = 85  # + card id
NUM_ACTIONS = 125


def action_names(deck: str = "spanish") -> tuple[str, ...]:
    """The name of every action id, card actions named by the tokens of `deck`."""
    tokens = DECKS[deck].tokens
    return tuple([f"pick {t}" for t in tokens] + ["take", "pass", "decline", "demand", "waive"]
                 + [f"discard {t}" for t in tokens] + [f"layoff {t}" for t in tokens])


def action_name(action: int, deck: str = "spanish") -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is not a Conquian action id 0..{NUM_ACTIONS - 1}")
    return action_names(deck)[action]


def action_id(name: str, deck: str = "spanish") -> int:
    try:
        return action_names(deck).index(name)
    except ValueError:
        raise ValueError(f"unknown Conquian action {name!r} ({deck} pack)") from None


# ---- phases: who decides what ------------------------------------------------------------------
PHASE_FACE = 0  # the mover faces E: picks and `take`; `pass` (E fresh) or `decline` (E offered)
#                 unless he was sent a `demand` (CQ-11..13, CQ-15)
PHASE_RESPOND = 1  # the refuser's opponent: `demand` or `waive` (CQ-15, CQ-24)
PHASE_DISCARD = 2  # after a take: `discard x` or `layoff x` (CQ-13, CQ-16)
PHASE_FORCED_DISCARD = 3  # the seat a card was laid off onto: `discard x` only (CQ-16, CQ-27)
PHASE_OVER = 4  # the deal has ended (CQ-18, CQ-20)
PHASE_NAMES = ("face", "respond", "discard", "forced_discard", "over")

# ---- outcomes (CQ-18, CQ-20, CQ-21) ----------------------------------------------------------
IN_PLAY = -1
WON = 0  # `winner` melded 11 cards (CQ-18)
DRAWN = 1  # a seat had to turn a card from the empty stock (CQ-20)
OUTCOME_NAMES = ("won", "drawn")

# ---- card locations (a state summary's `location[40]`) ---------------------------------------
# LOC_HAND + seat: in that seat's hand; LOC_MELD + seat: in that seat's meld M (CQ-6);
# LOC_STOCK: face down in the stock; LOC_EXPOSED: the exposed card E (CQ-9); LOC_DEAD: turned
# down after a decline (CQ-12).
LOC_HAND, LOC_MELD, LOC_STOCK, LOC_EXPOSED, LOC_DEAD = 0, 2, 4, 5, 6

# ---- bounds (§7, module docstring) -----------------------------------------------------------
MAX_DEAL_STEPS = 220
MAX_MAX_DEALS = 1000


def deal_hands(order) -> tuple[list[int], list[int], list[int]]:
    """The non-dealer's hand, the dealer's hand and the stock (top first) of a deck order
    (CQ-5; this is the deal's layout, not a rule of play)."""
    order = [int(c) for c in order]
    return order[0:20:2], order[1:20:2], order[20:]


# ---- config (§6) -------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class CqConfig:
    """Static, hashable variant config: every flag of conquian.md §6 with the rules' default."""

    deck: str = "spanish"  # CQ-V1: "spanish" or "numerals"
    carry_pot: bool = True  # CQ-V2: drawn deals carry their stakes to the next decided deal
    dealer: int = -1  # CQ-4: the first dealer D; -1 = drawn from the init key (the low cut)
    max_deals: int = 10  # with carry_pot: the most deals of a series (module docstring)
    illegal_action_penalty: float = -1.0  # the mover's reward on an illegal action (api)

    def __post_init__(self) -> None:
        check_flag_types(self)
        if self.deck not in RANKS:
            raise ValueError(f"deck={self.deck!r}: must be one of {tuple(RANKS)}")
        if self.dealer not in (-1, 0, 1):
            raise ValueError(f"dealer={self.dealer}: must be a seat 0..1, or -1 (random)")
        if not 1 <= self.max_deals <= MAX_MAX_DEALS:
            raise ValueError(f"max_deals={self.max_deals}: must be 1..{MAX_MAX_DEALS}")

    @property
    def deals(self) -> int:
        """The most deals an episode has."""
        return self.max_deals if self.carry_pot else 1

    @classmethod
    def from_flags(cls, **flags) -> CqConfig:
        """The config of `kanjax.make("conquian", **flags)`: unknown keys rejected."""
        check_flag_keys("conquian", flags, (f.name for f in dataclasses.fields(cls)))
        return cls(**flags)

