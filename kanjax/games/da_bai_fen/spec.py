"""Static facts of Da Bai Fen (da_bai_fen.md): cards, action ids, phases, outcomes, config.

Data and small pure helpers only, no rules (no legality, no trick winner, no scoring), so that
the JAX engine and the plain-Python reference (`kanjax.games.da_bai_fen.reference`) share the
vocabulary but not the rules.

Card ids (§7): `c = 13*s + r`, suits S=0 H=1 D=2 C=3, ranks 2..A = 0..12; BJ = 52, RJ = 53.
Levels (DBF-3) are integers 2..14 (J=11, Q=12, K=13, A=14); level v names rank index v - 2.

Action ids (one action space, NUM_ACTIONS = 61):

| ids    | action                                                                        |
|--------|-------------------------------------------------------------------------------|
| 0..53  | `pick c`: put card c into the mover's selection (a lead, a follow or the      |
|        | kitty discard). Picks are unordered. A follow closes by itself when its n-th  |
|        | card is picked (DBF-25), the discard when its 6th is (DBF-17).                |
| 54     | `play`: close a lead; its size is free (DBF-21)                               |
| 55..58 | `expose s`, s = S H D C: expose the mover's card of the exposable rank in     |
|        | suit s (DBF-12/13/22)                                                         |
| 59     | `pass`: decline an exposure or a claim                                        |
| 60     | `claim`: the no-trump annulment (DBF-18)                                      |

Match result (DBF-36/37): every reward is 0 until the game ends; then each player of the
winning team gets +1 and each player of the other team -1; a draw (the `max_hands` truncation
with equal levels) gives 0 to all. `max_hands` counts every deal, annulled ones included.

Bounds (§7): a hand takes at most 52 exposure decisions (48 draws + the final pass of 4),
6 discard picks, 4 claim decisions and 60 play steps (48 picks + at most 12 `play`s):
MAX_HAND_STEPS = 122; a game at most `max_hands * MAX_HAND_STEPS` (`max_game_steps`).
"""

from __future__ import annotations

import dataclasses

from kanjax.api import FLAG_TYPES, check_flag_keys, check_flag_types
from kanjax.core.cards import RANK_CHARS, Deck, suited_tokens

# ---- cards (DBF-1, DBF-2, §7) ------------------------------------------------------------
SUITS = "SHDC"  # suit index order of card ids
NUM_SUITS = 4
NUM_RANKS = 13
BJ, RJ = 52, 53
NUM_CARDS = 54
NUM_PLAYERS = 4
HAND_SIZE = 12
KITTY_SIZE = 6
NUM_DRAWN = NUM_PLAYERS * HAND_SIZE  # cards 0..47 of the deck order are drawn (DBF-11)
DECK = Deck("da_bai_fen", tuple(suited_tokens(SUITS, RANK_CHARS) + ["BJ", "RJ"]))
TOTAL_POINTS = 100
# DBF-2: every K and T = 10, every 5 = 5, all other cards (jokers included) 0.
RANK_POINTS = {"K": 10, "T": 10, "5": 5}
CARD_POINTS = tuple(RANK_POINTS.get(tok[0], 0) if c < BJ else 0
                    for c, tok in enumerate(DECK.tokens))
RANK_2, RANK_5, RANK_T, RANK_J, RANK_K, RANK_A = 0, 3, 8, 9, 11, 12  # rank indices


def suit_of(card: int) -> int:
    """The printed suit 0..3 of a card, -1 for a joker."""
    return card // NUM_RANKS if card < BJ else -1


def rank_of(card: int) -> int:
    """The printed rank index 0..12 (2..A) of a card, -1 for a joker."""
    return card % NUM_RANKS if card < BJ else -1


def card_id(suit: int, rank: int) -> int:
    """The id of the card of suit index `suit` and rank index `rank`."""
    return NUM_RANKS * suit + rank


# ---- levels (DBF-3) ------------------------------------------------------------------------
MIN_LEVEL, MAX_LEVEL = 2, 14
LEVEL_J = 11
LEVEL_NAMES = {v: str(v) for v in range(2, 11)} | {11: "J", 12: "Q", 13: "K", 14: "A"}


def level_rank(level: int) -> int:
    """The rank index of the trump rank R of a level (2 -> 0 ... A=14 -> 12)."""
    return level - 2


# ---- seats and teams (DBF-9) -----------------------------------------------------------------
TEAM_NAMES = ("0+2", "1+3")  # team 0 = seats {0, 2}, team 1 = seats {1, 3}


def team_of(seat: int) -> int:
    return seat % 2


# ---- actions -------------------------------------------------------------------------------
PICK = 0  # + card id
PLAY = 54
EXPOSE = 55  # + suit index
PASS = 59
CLAIM = 60
NUM_ACTIONS = 61

ACTION_NAMES = tuple(
    [f"pick {DECK.token(c)}" for c in range(NUM_CARDS)] + ["play"]
    + [f"expose {s}" for s in SUITS] + ["pass", "claim"]
)
ACTION_IDS = {name: a for a, name in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is not a Da Bai Fen action id 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def action_id(name: str) -> int:
    try:
        return ACTION_IDS[name]
    except KeyError:
        raise ValueError(f"unknown Da Bai Fen action {name!r}") from None


# ---- phases: who decides what ---------------------------------------------------------------
PHASE_DEAL = 0  # chance: the shuffled deck order of the next hand is awaited
PHASE_DRAW = 1  # the seat that just drew decides: `expose s` or `pass` (DBF-13)
PHASE_FINAL_PASS = 2  # after card 47, seats S..S+3 in turn: `expose s` or `pass` (DBF-13)
PHASE_DISCARD = 3  # L picks his six discards (DBF-17)
PHASE_CLAIM = 4  # a seat without trumps: `claim` or `pass` (DBF-18)
PHASE_PLAY = 5  # leads (picks + `play`) and follows (n picks) (DBF-20..25)
PHASE_OVER = 6  # the game has ended (DBF-36/37)
PHASE_NAMES = ("deal", "draw", "final_pass", "discard", "claim", "play", "over")

# ---- hand kinds (DBF-15, DBF-16, DBF-22) -----------------------------------------------------
FIRST_HAND = 0  # R = start_level; the exposer (else S) becomes L
LATER_HAND = 1  # declaring team and L = S fixed by the last hand (DBF-33)
OPEN_DEAL = 2  # no declarer: each seat may expose its own team's level (DBF-22)
HAND_KIND_NAMES = ("first", "later", "open")

# ---- outcomes of a hand's end ----------------------------------------------------------------
NO_OUTCOME = -1  # no hand has ended yet
NORMAL = 0  # all cards played; scored by the tables (DBF-29..35, V12, V13)
PENALTY = 1  # an invalid multi-lead ended the hand (DBF-24)
CLAIMED = 2  # a no-trump claim annulled the hand (DBF-18)
NO_EXPOSER = 3  # an open deal where nobody exposed is annulled (DBF-22)
TIE = 4  # P = 40 with `tie_at_40` (DBF-V5)
OUTCOME_NAMES = ("normal", "penalty", "claimed", "no_exposer", "tie")

# ---- card locations (a state summary's `location[54]`) ---------------------------------------
# 0..3: in that seat's hand; LOC_KITTY: the kitty (the dealt six until L takes them, then his
# six discards); LOC_TRICK: in the current trick; LOC_WON + team: in a trick that team won;
# LOC_DECK: not drawn yet (or not listed in a position built for a test).
LOC_KITTY, LOC_TRICK, LOC_WON, LOC_DECK = 4, 5, 6, 8

# ---- bounds (§7) -----------------------------------------------------------------------------
MAX_EXPOSURE_STEPS = NUM_DRAWN + NUM_PLAYERS
MAX_PLAY_STEPS = NUM_DRAWN + HAND_SIZE
MAX_HAND_STEPS = MAX_EXPOSURE_STEPS + KITTY_SIZE + NUM_PLAYERS + MAX_PLAY_STEPS  # 122


def max_game_steps(config: DbfConfig) -> int:
    """The most steps a game can take (DBF-37: at most `max_hands` deals)."""
    return config.max_hands * MAX_HAND_STEPS


# ---- config (§6) -----------------------------------------------------------------------------
INVALID_MULTILEAD = ("penalty", "mask")
JILIN_PRESET = {  # DBF-V7
    "yuan_zhu": True, "jilin_last_trick": True, "jilin_dun": True, "jilin_show_kitty": True,
    "jilin_hook": True, "start_level": 3,
}
MAX_MAX_HANDS = 100_000


@dataclasses.dataclass(frozen=True)
class DbfConfig:
    """Static, hashable variant config: every flag of da_bai_fen.md §6 with the rules'
    default. `jilin` records that the DBF-V7 preset was asked for; `from_flags` expands it,
    and the rules read the individual flags only."""

    start_level: int = 2  # DBF-3, V2
    target_level: int = 14  # DBF-36, V2
    max_hands: int = 200  # DBF-37
    first_starter: int = 0  # DBF-43
    invalid_multilead: str = "penalty"  # DBF-24
    expose_kitty: bool = False  # V1
    step20: bool = False  # V3
    kitty_mult_last_trick: bool = False  # V4
    tie_at_40: bool = False  # V5
    yuan_zhu: bool = False  # V6
    jilin: bool = False  # V7
    jilin_dun: bool = False  # V8
    dun_points_protected: bool = False  # V9
    jilin_show_kitty: bool = False  # V10
    changchun_kitty: bool = False  # V11
    jilin_last_trick: bool = False  # V12
    jilin_hook: bool = False  # V13
    illegal_action_penalty: float = -1.0  # the mover's reward on an illegal action (api)

    def __post_init__(self) -> None:
        check_flag_types(self)
        for flag in ("start_level", "target_level"):
            value = getattr(self, flag)
            if not MIN_LEVEL <= value <= MAX_LEVEL:
                raise ValueError(f"{flag}={value}: must be a level {MIN_LEVEL}..{MAX_LEVEL} "
                                 "(J=11, Q=12, K=13, A=14)")
        if self.start_level > self.target_level:
            raise ValueError(f"start_level={self.start_level} is above "
                             f"target_level={self.target_level}")
        if not 1 <= self.max_hands <= MAX_MAX_HANDS:
            raise ValueError(f"max_hands={self.max_hands}: must be 1..{MAX_MAX_HANDS}")
        if not 0 <= self.first_starter < NUM_PLAYERS:
            raise ValueError(f"first_starter={self.first_starter}: must be a seat 0..3")
        if self.invalid_multilead not in INVALID_MULTILEAD:
            raise ValueError(f"invalid_multilead={self.invalid_multilead!r}: must be one of "
                             f"{INVALID_MULTILEAD}")

    @classmethod
    def from_flags(cls, **flags) -> DbfConfig:
        """The config of `kanjax.make("da_bai_fen", **flags)`: unknown keys rejected, the
        `jilin` preset (DBF-V7) applied first, flags given explicitly overriding it."""
        check_flag_keys("da_bai_fen", flags, (f.name for f in dataclasses.fields(cls)))
        jilin = flags.get("jilin", False)
        if not isinstance(jilin, bool):
            raise ValueError(f"jilin={jilin!r}: must be {FLAG_TYPES[bool]}")
        preset = JILIN_PRESET if jilin else {}
        return cls(**{**preset, **flags})

