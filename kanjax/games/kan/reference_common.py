"""The match frame the plain-Python Kan references share (queries, summary, the apply guard).

Rules stay in each variant's module (`gonin_kan`, `yonin_kan`, `gambari_kan`); this class only
answers the questions the differential tests ask of every one of them, the same way.
"""

from __future__ import annotations

from kanjax.core.reference_helpers import hand_owner
from kanjax.games.kan.spec import (
    GYAKU_JUUROKU_FAIL,
    GYAKU_JUUROKU_OK,
    GYAKU_SUKONKU,
    HAND_SIZE,
    JK,
    JUUROKU_FAIL,
    JUUROKU_OK,
    LEAD_JK,
    NORMAL_LOSS,
    NORMAL_WIN,
    NUM_CARDS,
    NUM_TRICKS,
    POINT_CARDS,
    SUKONKU,
)

KANKEI, MUKANKEI = 0, 1  # team indices
POINT_SET = frozenset(POINT_CARDS)  # KAN-3


def target(deal_no: int) -> int:
    """KAN-29: kankei target T(d) = 9, 8, 9."""
    return 8 if deal_no == 2 else 9


def gyaku_target(deal_no: int) -> int:
    """KAN-29: mukankei target U(d) = 17 - T(d)."""
    return 17 - target(deal_no)


def normal_outcome(deal_no: int, kankei_points: int) -> int:
    """KAN-33: after trick 10 with no earlier end."""
    return NORMAL_WIN if kankei_points >= target(deal_no) else NORMAL_LOSS


def check_hands(hands: list[list[int]], n: int, deck: frozenset[int], name: str,
                sits_out: int | None = None) -> None:
    """KAN-8: `n` hands (by player id) of 10 distinct cards, the whole `deck` dealt; the
    player `sits_out` (the 6-player dealer, KAN-6) gets none."""
    if len(hands) != n:
        raise ValueError(f"deal(): need {n} hands (by player id), got {len(hands)}")
    seen: set[int] = set()
    for p, hand in enumerate(hands):
        want = 0 if p == sits_out else HAND_SIZE
        if len(hand) != want:
            raise ValueError(f"deal(): player {p} must get {want} cards, got {len(hand)}")
        for c in map(int, hand):
            if c not in deck:
                raise ValueError(f"deal(): card {c} is not in the {name} deck")
            if c in seen:
                raise ValueError(f"deal(): card {c} dealt twice")
            seen.add(c)
    if seen != deck:
        raise ValueError(f"deal(): all {len(deck)} cards of the {name} deck must be dealt")


class KanMatchRef:
    """Base of the Kan references. A subclass sets `CHANCE` (phase -> chance kind), `OVER`,
    and the attributes read here, and writes `legal_actions` and `_apply`."""

    CHANCE: dict[int, str]
    OVER: int
    PLAY: int
    DECIDE: int

    def _start_match(self) -> None:
        """Match start (needs `cfg`, `n`): player p in seat p (KAN-7), no scores, round 0,
        the first dealer (KAN-12)."""
        self.occupant = list(range(self.n))
        self.seat_of = list(range(self.n))
        self._scores = [0] * self.n
        self.last_outcome = -1
        self.last_points = [-1, -1]  # [kankei, mukankei] at the end of the last deal
        self.round = 0
        self.dealer = self.occupant[self.cfg.first_dealer_seat]

    def chance_kind(self) -> str | None:
        return self.CHANCE.get(self.phase)

    def current_player(self) -> int:
        return -1 if self.phase in self.CHANCE or self.phase == self.OVER else self.to_act

    def terminal(self) -> bool:
        return self.phase == self.OVER

    def scores(self) -> list[int]:
        return list(self._scores)

    def is_kankei(self, player: int) -> bool:
        return player in self.kankei

    def hand_owner(self) -> list[int]:
        """For every card id, the player holding it, or -1."""
        return hand_owner(self.hands, NUM_CARDS)

    def summary(self) -> dict:
        """The facts the differential tests compare (`kanjax.games.kan.engine.summary`'s names)."""
        return {
            "round": self.round,
            "deal": self.deal_no,
            "dealer": self.dealer,
            "trump": self.trump,
            "seat_of": list(self.seat_of),
            "kankei": [self.is_kankei(p) for p in range(self.n)],
            "hand_owner": self.hand_owner(),
            "rk": self.rk,
            "rm": self.rm,
            "scores": self.scores(),
            "points": list(self.points),
            "last_outcome": self.last_outcome,
            "last_points": list(self.last_points),
            "terminal": self.terminal(),
            "current_player": self.current_player(),
            "legal_actions": self.legal_actions(),
        } | self._summary_extra()

    def _summary_extra(self) -> dict:
        """The variant's own summary entries."""
        return {}

    def legal_actions(self) -> list[int]:
        raise NotImplementedError

    def apply(self, action: int) -> None:
        """Play `action` for the current player; ValueError if it is not legal now."""
        action = int(action)
        if self.chance_kind() is not None or self.terminal():
            what = "the match is over" if self.terminal() else "chance is pending"
            raise ValueError(f"illegal action {action}: {what}")
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {action} for player {self.to_act}; legal: {legal}")
        self._apply(action)

    def _apply(self, action: int) -> None:
        raise NotImplementedError

    def _end_deal(self, outcome: int) -> None:
        raise NotImplementedError

    def _start_trick(self, leader: int) -> None:
        """KAN-23: `leader` leads the next trick."""
        self.phase = self.PLAY
        self.leader = leader
        self.to_act = leader
        self.trick = []
        self.led_suit = None

    def _place_card(self, action: int) -> int:
        """KAN-23, KAN-26: the current player's card (a JK lead names the led suit) goes into
        the trick; returns the card."""
        card = action if action <= JK else JK
        self.hands[self.to_act].remove(card)
        if not self.trick:
            self.led_suit = action - LEAD_JK if action >= LEAD_JK else card // 13
        self.trick.append((self.to_act, card))
        return card

    def _take_trick(self, winner: int) -> None:
        """KAN-28: the winner's team captures the trick's point cards and leads next."""
        self.points[self._team(winner)] += sum(1 for _, c in self.trick if c in POINT_SET)
        self.tricks_done += 1
        self.trick = []
        self.led_suit = None
        self.leader = winner

    def _undeclared_checks(self) -> None:
        """KAN-30 (c) an active juuroku (KAN-32), (d) the sukonku condition (KAN-31), (e) the
        end after trick 10 (KAN-33); else the trick winner leads the next trick."""
        k, m = self.points
        d = self.deal_no
        if self.juuroku is not None:  # (c) KAN-32
            team = self.juuroku
            if self.points[1 - team] > 0:
                self._end_deal(JUUROKU_FAIL if team == KANKEI else GYAKU_JUUROKU_FAIL)
                return
            if self.points[team] == len(POINT_CARDS):
                self._end_deal(JUUROKU_OK if team == KANKEI else GYAKU_JUUROKU_OK)
                return
        else:  # (d) KAN-31, only while no juuroku is active
            cond = None
            if k >= target(d) and m == 0:
                cond = KANKEI
            elif m >= gyaku_target(d) and k == 0:
                cond = MUKANKEI
            if cond is not None:
                if d == 1:  # KAN-31 DECISION: automatic stop in deal 1
                    self._end_deal(SUKONKU if cond == KANKEI else GYAKU_SUKONKU)
                    return
                # Deals 2-3: the trick winner decides STOP / JUUROKU. KAN-31 note: the
                # condition first holds after trick 9 at the latest, so a trick is left.
                assert self.tricks_done < NUM_TRICKS
                self.pending = cond
                self.phase = self.DECIDE
                self.to_act = self.leader
                return
        if self.tricks_done == NUM_TRICKS:  # (e) KAN-33
            self._end_deal(normal_outcome(d, k))
            return
        self._start_trick(self.leader)
