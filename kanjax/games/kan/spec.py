"""Static facts of the Kan family (kan.md): variant config, card ids, action ids, outcomes.

This module holds data only, no rules, so that the JAX engine (`kanjax.games.kan.engine`) and the
plain-Python reference (`kanjax.games.kan.reference_gonin`) can share it without sharing rule code.

Card ids (kan.md §15): `c = 13*suit + (rank - 2)`, suits C=0 D=1 H=2 S=3, A = rank 14;
JK = 52.

Action ids (one action space for the whole family, NUM_ACTIONS = 228):

| ids      | action                                                                 |
|----------|------------------------------------------------------------------------|
| 0..52    | play card c (52: play JK when *not* leading)                           |
| 53..56   | lead JK naming suit C, D, H, S (KAN-26)                                |
| 57, 58   | IKU, KOI (KAN-21)                                                      |
| 59, 60   | STOP, JUUROKU (KAN-31; JUUROKU is also GYAKU_JUUROKU)                  |
| 61..64   | name trump C, D, H, S (KAN-39)                                         |
| 65..220  | signal (KAN-38), by *hand index*: the position of a card in the        |
|          | shower's hand sorted by card id (0..9). F1 65..109: unordered pairs    |
|          | (i<j) in lexicographic order; F2 110..199: ordered (a, b), a != b,     |
|          | lexicographic in (a, b); F3 200..209: card a twice; F4 210..219: card  |
|          | a once; F5 220: nothing shown                                          |
| 221, 222 | Shippo-Jo CALL, NO_CALL (KAN-71)                                       |
| 223, 224 | KAN, PASS (Gambari bidding, KAN-65)                                    |
| 225..227 | Yonin contract NONE, SKUNK, ALL16 (KAN-56)                             |
"""

from __future__ import annotations

import dataclasses
import itertools

from kanjax.api import check_flag_keys, check_flag_types
from kanjax.core.cards import RANK_CHARS, CardError, Deck, suited_tokens

# ---- cards (KAN-1..KAN-4, §15) -----------------------------------------------------------
SUITS = "CDHS"  # suit index order of Kan card ids (tokens: `deck`)
JK = 52
NUM_CARDS = 53
HAND_SIZE = 10
NUM_TRICKS = 10
KANKEI_TARGET = (0, 9, 8, 9)  # T(d) of deals d = 1..3 (KAN-29); mukankei U(d) = 17 - T(d)
POINT_CARDS = tuple(c for c in range(52) if c % 13 >= 9)  # A, K, Q, J of each suit




def _kan_deck(name: str, keep) -> Deck:
    # kan.md §15: c = 13*suit + (rank - 2), suits C D H S; JK = 52.
    return Deck(name, tuple(suited_tokens(SUITS, RANK_CHARS, keep) + ["JK"]))


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
}
YONIN_REMOVED_FIVES = ("S", "C")  # KAN-49, KAN-76


def deck(game: str, yonin_removed_five: str = "S") -> Deck:
    """The deck of a Kan variant (`gonin_kan`, `yonin_kan`, `gambari_kan`); Yonin's depends on
    `yonin_removed_five` (KAN-49)."""
    if game != "yonin_kan":
        return DECKS[game]
    if yonin_removed_five not in YONIN_REMOVED_FIVES:
        raise CardError(f"bad yonin_removed_five {yonin_removed_five!r}: want 'S' or 'C' "
                        "(KAN-49)")
    return DECKS["yonin_kan_5c" if yonin_removed_five == "C" else "yonin_kan"]


# ---- actions -----------------------------------------------------------------------------
PLAY = 0  # + card id
LEAD_JK = 53  # + suit
IKU, KOI = 57, 58
STOP, JUUROKU = 59, 60
TRUMP = 61  # + suit
# The phases of a Kan state, in the order of their codes (the observation's `phase`).
PHASE_NAMES = ("IKU_KOI", "SIGNAL", "TRUMP", "PLAY", "DECIDE", "SHIPPO", "OVER", "BID",
               "CONTRACT")
SIGNAL = 65
SIGNAL_F1 = 65
SIGNAL_F2 = 110
SIGNAL_F3 = 200
SIGNAL_F4 = 210
SIGNAL_F5 = 220
NUM_SIGNALS = 156
SHIPPO_CALL, SHIPPO_NO_CALL = 221, 222
KAN_BID, PASS_BID = 223, 224
CONTRACT_NONE, CONTRACT_SKUNK, CONTRACT_ALL16 = 225, 226, 227
NUM_ACTIONS = 228

# Signal forms (KAN-38) and what the opponents see of them.
F1, F2, F3, F4, F5 = 1, 2, 3, 4, 5
F1_PAIRS = tuple(itertools.combinations(range(HAND_SIZE), 2))  # 45
F2_PAIRS = tuple(itertools.permutations(range(HAND_SIZE), 2))  # 90


def decode_signal(action: int) -> tuple[int, tuple[int, ...]]:
    """Signal action -> (form, hand indices shown, in order shown)."""
    k = action - SIGNAL
    if not 0 <= k < NUM_SIGNALS:
        raise ValueError(f"action {action} is not a signal")
    if action < SIGNAL_F2:
        return F1, F1_PAIRS[action - SIGNAL_F1]
    if action < SIGNAL_F3:
        return F2, F2_PAIRS[action - SIGNAL_F2]
    if action < SIGNAL_F4:
        return F3, (action - SIGNAL_F3,) * 2
    if action < SIGNAL_F5:
        return F4, (action - SIGNAL_F4,)
    return F5, ()


def encode_signal(form: int, shown: tuple[int, ...]) -> int:
    """(form, hand indices) -> signal action; inverse of `decode_signal`."""
    if form == F1:
        return SIGNAL_F1 + F1_PAIRS.index(tuple(sorted(shown)))
    if form == F2:
        return SIGNAL_F2 + F2_PAIRS.index(tuple(shown))
    if form == F3:
        return SIGNAL_F3 + shown[0]
    if form == F4:
        return SIGNAL_F4 + shown[0]
    if form == F5:
        return SIGNAL_F5
    raise ValueError(f"bad signal form {form}")


# ---- deal outcomes (KAN-31..KAN-34, KAN-60) --------------------------------------------------
NORMAL_WIN, NORMAL_LOSS = 0, 1
SUKONKU, GYAKU_SUKONKU = 2, 3
JUUROKU_OK, JUUROKU_FAIL = 4, 5
GYAKU_JUUROKU_OK, GYAKU_JUUROKU_FAIL = 6, 7
SHIPPO_VOID = 8  # KAN-71 CALL: the deal is void and redealt
# Yonin declared contracts (KAN-56, KAN-60), classified by the declarer's true team.
C_SUKONKU_OK, C_SUKONKU_FAIL = 9, 10
C_GYAKU_SUKONKU_OK, C_GYAKU_SUKONKU_FAIL = 11, 12
C_JUUROKU_OK, C_JUUROKU_FAIL = 13, 14
C_GYAKU_JUUROKU_OK, C_GYAKU_JUUROKU_FAIL = 15, 16
OUTCOME_NAMES = (
    "NORMAL_WIN", "NORMAL_LOSS", "SUKONKU", "GYAKU_SUKONKU", "JUUROKU_OK", "JUUROKU_FAIL",
    "GYAKU_JUUROKU_OK", "GYAKU_JUUROKU_FAIL", "SHIPPO_VOID",
    "C_SUKONKU_OK", "C_SUKONKU_FAIL", "C_GYAKU_SUKONKU_OK", "C_GYAKU_SUKONKU_FAIL",
    "C_JUUROKU_OK", "C_JUUROKU_FAIL", "C_GYAKU_JUUROKU_OK", "C_GYAKU_JUUROKU_FAIL",
)
NUM_OUTCOMES = len(OUTCOME_NAMES)
KANKEI_WINS = (  # KAN-34, KAN-60
    NORMAL_WIN, SUKONKU, JUUROKU_OK, GYAKU_JUUROKU_FAIL,
    C_SUKONKU_OK, C_GYAKU_SUKONKU_FAIL, C_JUUROKU_OK, C_GYAKU_JUUROKU_FAIL,
)
# Yonin contract kinds (KAN-56), as stored and observed: none, SKUNK, ALL16.
NO_CONTRACT, SKUNK, ALL16 = 0, 1, 2


# ---- config (KAN-69..KAN-79) -----------------------------------------------------------------
GAME_VARIANT = {"gonin_kan": "gonin", "yonin_kan": "yonin", "gambari_kan": "gambari"}
COMMON_FLAGS = ("n_rounds", "first_dealer_seat", "clockwise", "illegal_action_penalty")
VARIANT_FLAGS = {
    "gonin": COMMON_FLAGS + (
        "players", "scoring", "gyaku_juuroku_fail_doubling", "nijuu_kan_redeal", "shippo_jo",
        "tournament_signals",
    ),
    "yonin": COMMON_FLAGS + (
        "gyaku_juuroku_fail_doubling", "yonin_removed_five", "yonin_joker_trick1_contract",
        "yonin_contract_round_override",
    ),
    "gambari": COMMON_FLAGS + ("gambari_scoring", "gambari_min_target"),
}


@dataclasses.dataclass(frozen=True)
class KanConfig:
    """Static, hashable variant config; every flag of kan.md §13 with the rules' default."""

    variant: str = "gonin"
    players: int = 5
    n_rounds: int = 10
    first_dealer_seat: int = 0
    scoring: str = "standard"
    gyaku_juuroku_fail_doubling: bool = True
    nijuu_kan_redeal: bool = False
    shippo_jo: bool = False
    clockwise: bool = False
    tournament_signals: bool = False
    yonin_removed_five: str = "S"
    yonin_joker_trick1_contract: str = "lead"
    yonin_contract_round_override: bool = True
    gambari_scoring: str = "per_opponent"
    gambari_min_target: int = 1
    illegal_action_penalty: float = -1.0

    def __post_init__(self) -> None:
        check_flag_types(self)
        choices = {
            "variant": ("gonin", "yonin", "gambari"),
            "scoring": ("standard", "zero_sum_5p"),
            "yonin_removed_five": ("S", "C"),
            "yonin_joker_trick1_contract": ("lead", "any"),
            "gambari_scoring": ("per_opponent", "flat"),
        }
        for flag, allowed in choices.items():
            if getattr(self, flag) not in allowed:
                raise ValueError(f"{flag}={getattr(self, flag)!r}: must be one of {allowed}")
        seats = {"gonin": (5, 6), "yonin": (4,), "gambari": (3,)}[self.variant]
        if self.players not in seats:
            raise ValueError(f"players={self.players}: {self.variant} is for {seats} players")
        if self.scoring == "zero_sum_5p" and (self.variant, self.players) != ("gonin", 5):
            raise ValueError("scoring='zero_sum_5p' is valid only for 5-player Gonin Kan (KAN-74)")
        if not 1 <= self.n_rounds <= 1000:
            raise ValueError(f"n_rounds={self.n_rounds}: must be 1..1000")
        if not 0 <= self.first_dealer_seat < self.players:
            raise ValueError(f"first_dealer_seat={self.first_dealer_seat}: must be a seat")
        if not 1 <= self.gambari_min_target <= 9:
            raise ValueError(f"gambari_min_target={self.gambari_min_target}: must be 1..9")

    @classmethod
    def for_game(cls, game: str, **flags) -> KanConfig:
        """Config for `gonin_kan` / `yonin_kan` / `gambari_kan`; rejects flags of other games."""
        variant = GAME_VARIANT[game]
        check_flag_keys(game, flags, VARIANT_FLAGS[variant])
        players = {"gonin": 5, "yonin": 4, "gambari": 3}[variant]
        return cls(variant=variant, **{"players": players, **flags})
