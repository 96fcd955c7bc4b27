"""Plain-Python reference rules of Gambari Kan, 3 players (kan.md §0-9, §11, §13-16).

Slow, obvious and independent of the JAX engine (`kanjax.games.kan.engine`): differential tests
replay the engine's matches through `GambariKanRef` and compare every step. Chance is supplied from
outside: `chance_kind()` says "deal" when a deal must be dealt and `deal()` supplies it.

Conventions (kan.md §15): card id `c = 13*suit + (rank - 2)`, suits C D H S, JK = 52; action ids
as in `kanjax.games.kan.spec` (KAN = 223, PASS = 224). Gambari never changes seats (KAN-63), so
player p sits in seat p for the whole match and "seat +1" is "player +1". Team index: 0 = the
lone kankei, 1 = the two mukankei. The trick-play helpers (KAN-24..KAN-27) and the trump
rotation (KAN-11) are imported from the Gonin reference: KAN-64 and KAN-66 make them the
Gambari rules too.

Step order (KAN-63..KAN-68): chance "deal" -> bidding (KAN-65) -> ten tricks of three cards
with the end-of-trick checks (KAN-67) -> scoring and settlement (KAN-68) -> next round.

Interpretations the rules leave open:
- At a chance node the state already describes the round about to be dealt: new dealer, its
  trump (KAN-64), target 9, hands empty, no kankei, points [0, 0].
- The sukonku / gyaku sukonku check (KAN-67, as KAN-30 (d)) also runs after trick 10, before
  the normal result: a deal in which the mukankei took nothing ends SUKONKU, not NORMAL_WIN.
- At the floor (KAN-65) only the dealer's third bid is forced; the first two bidders may still
  pass at t = gambari_min_target.
- After the last round the match simply stops: the final deal's state (unplayed cards, points,
  target, kankei, round, dealer, and the final deal's Rk/Rm) stays as it ended; only the match
  scores include the settlement of the last round (KAN-9, KAN-40). Between rounds Rk/Rm are
  reset to 0, so they are 0 at every decision point.
"""

from __future__ import annotations

from kanjax.games.kan.reference_common import KANKEI, MUKANKEI, KanMatchRef, check_hands
from kanjax.games.kan.reference_gonin import deal1_trump, trick_legal_actions, trick_winner
from kanjax.games.kan.spec import (
    GYAKU_SUKONKU,
    KAN_BID,
    NORMAL_LOSS,
    NORMAL_WIN,
    NUM_TRICKS,
    PASS_BID,
    SUKONKU,
    KanConfig,
    deck,
)

GAMBARI_DECK = frozenset(deck("gambari_kan").ids)  # KAN-1: 8..A of each suit, 7S, JK (30)
N_PLAYERS = 3  # KAN-63
START_TARGET = 9  # KAN-65

# Phases (one decision kind each).
DEAL, BID, PLAY, OVER = range(4)

# KAN-68: base value v per outcome (the standard deal-1 entries: W, L, W + B, GS1).
BASE_VALUE = {NORMAL_WIN: 1, NORMAL_LOSS: -1, SUKONKU: 2, GYAKU_SUKONKU: -10}


# ---- pure rule helpers ---------------------------------------------------------------------
def bidding_order(dealer: int) -> list[int]:
    """KAN-65: the dealer's right next(D), the dealer's left next(next(D)), the dealer D."""
    return [(dealer + 1) % N_PLAYERS, (dealer + 2) % N_PLAYERS, dealer]


def gyaku_target(t: int) -> int:
    """KAN-67: the mukankei's gyaku sukonku threshold 17 - t."""
    return 17 - t


def end_of_trick_outcome(t: int, kankei_points: int, mukankei_points: int,
                         tricks_done: int) -> int | None:
    """KAN-67 after a trick: SUKONKU / GYAKU_SUKONKU (automatic, KAN-31 deal-1 rule); after
    trick 10 NORMAL_WIN iff the kankei hold >= t, else NORMAL_LOSS; None while play goes on."""
    if kankei_points >= t and mukankei_points == 0:
        return SUKONKU
    if mukankei_points >= gyaku_target(t) and kankei_points == 0:
        return GYAKU_SUKONKU
    if tricks_done == NUM_TRICKS:
        return NORMAL_WIN if kankei_points >= t else NORMAL_LOSS
    return None


def deal_scores(outcome: int, scoring: str) -> tuple[int, int]:
    """KAN-68: (kankei, each mukankei) for a deal with `outcome`.

    "per_opponent": the lone kankei settles v with each opponent -> (2v, -v) (zero-sum);
    "flat": (v, -v).
    """
    v = BASE_VALUE[outcome]
    if scoring == "per_opponent":
        return 2 * v, -v
    if scoring == "flat":
        return v, -v
    raise ValueError(f"gambari_scoring={scoring!r}: must be 'per_opponent' or 'flat'")


# ---- the state machine -----------------------------------------------------------------------
class GambariKanRef(KanMatchRef):
    """One Gambari Kan match (KAN-9, KAN-63), driven by `apply` and by external deals."""

    CHANCE = {DEAL: "deal"}
    OVER, PLAY = OVER, PLAY
    deal_no = 1  # KAN-10: a Gambari round is exactly one deal

    def is_kankei(self, player: int) -> bool:
        return player == self.kankei

    def __init__(self, config: KanConfig):
        if config.variant != "gambari" or config.players != N_PLAYERS:
            raise ValueError(f"GambariKanRef plays 3-player Gambari Kan, not {config}")
        self.cfg = config
        self.n = N_PLAYERS
        self._start_match()  # KAN-63: seats never change afterwards
        self.rk = self.rm = 0  # KAN-40 round accumulators (a round is one deal here)
        self._start_round()

    # ---- setup helpers ----
    def _start_round(self) -> None:
        """KAN-10 / KAN-63: every round is exactly one deal; trump by KAN-64 (= KAN-11)."""
        self.trump = deal1_trump(self.round, self.cfg.n_rounds)
        self.target = START_TARGET  # KAN-65
        self.kankei = -1  # the lone kankei, once the bidding has ended
        self.hands: list[set[int]] = [set() for _ in range(self.n)]
        self.points = [0, 0]  # [kankei, mukankei] point cards captured (KAN-28)
        self.bids = 0  # bids made in the current pass (0..2)
        self.tricks_done = 0
        self.trick: list[tuple[int, int]] = []  # (player, card) in play order
        self.led_suit: int | None = None
        self.leader = -1
        self.to_act = -1
        self.phase = DEAL

    def _team(self, player: int) -> int:
        return KANKEI if player == self.kankei else MUKANKEI

    # ---- chance ----
    def deal(self, hands: list[list[int]]) -> None:
        """KAN-8, KAN-63: 10 cards to each of the 3 players (by player id), all 30 dealt."""
        if self.phase != DEAL:
            raise ValueError("deal(): no deal is pending")
        check_hands(hands, self.n, GAMBARI_DECK, "Gambari")
        self.hands = [set(int(c) for c in h) for h in hands]
        # KAN-65: bidding starts at t = 9 with the dealer's right.
        self.target = START_TARGET
        self.bids = 0
        self.phase = BID
        self.to_act = bidding_order(self.dealer)[0]

    # ---- queries ----
    def legal_actions(self) -> list[int]:
        if self.phase == BID:
            # KAN-65 DECISION: at the floor the dealer, bidding third, must say KAN.
            if self.bids == 2 and self.target == self.cfg.gambari_min_target:
                return [KAN_BID]
            return [KAN_BID, PASS_BID]
        if self.phase == PLAY:  # KAN-24..KAN-26 with the Gonin joker rules (KAN-66)
            return trick_legal_actions(self.hands[self.to_act], self.tricks_done + 1,
                                       self.led_suit)
        return []

    def _summary_extra(self) -> dict:
        return {"target": self.target}

    # ---- actions ----
    def _apply(self, action: int) -> None:
        if self.phase == BID:
            self._bid(action)
        else:
            self._play(action)

    def _bid(self, action: int) -> None:
        """KAN-65: the first KAN makes the lone kankei with target t; three passes lower t."""
        if action == KAN_BID:
            self.kankei = self.to_act
            self._start_trick(self.kankei)  # KAN-66: the kankei leads trick 1
            return
        self.bids += 1
        if self.bids == 3:  # all three passed: t := t - 1, a new pass in the same order
            self.target -= 1
            self.bids = 0
        self.to_act = bidding_order(self.dealer)[self.bids]

    def _play(self, action: int) -> None:
        """KAN-23..KAN-26: one card into the current trick; play order +1 (KAN-5)."""
        p = self.to_act
        self._place_card(action)
        if len(self.trick) < self.n:
            self.to_act = (p + 1) % self.n
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        """KAN-27 winner, KAN-28 capture, then the KAN-67 checks; else the winner leads."""
        winner = trick_winner(self.trick, self.led_suit, self.trump)
        self._take_trick(winner)
        k, m = self.points
        outcome = end_of_trick_outcome(self.target, k, m, self.tricks_done)
        if outcome is None:
            self._start_trick(winner)
            return
        self._end_deal(outcome)

    def _end_deal(self, outcome: int) -> None:
        """KAN-68 scoring; the round (= the deal) ends: KAN-40 settlement, KAN-15 next dealer."""
        self.last_points = list(self.points)
        self.last_outcome = outcome
        self.rk, self.rm = deal_scores(outcome, self.cfg.gambari_scoring)
        for p in range(self.n):
            self._scores[p] += self.rk if p == self.kankei else self.rm
        self.to_act = -1
        if self.round + 1 == self.cfg.n_rounds:  # KAN-9: the match stops here
            self.phase = OVER
            return
        self.round += 1
        self.rk = self.rm = 0  # accumulators start afresh in the new round
        self.dealer = (self.dealer + 1) % self.n  # KAN-15, KAN-63: seat +1, no seat changes
        self._start_round()
