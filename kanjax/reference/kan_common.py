"""The match frame the plain-Python Kan references share (queries, summary, the apply guard).

Rules stay in each variant's module (`gonin_kan`, `yonin_kan`, `gambari_kan`); this class only
answers the questions the differential tests ask of every one of them, the same way.
"""

from __future__ import annotations

from kanjax.envs.kan_spec import NUM_CARDS


class KanMatchRef:
    """Base of the Kan references. A subclass sets `CHANCE` (phase -> chance kind), `OVER`,
    and the attributes read here, and writes `legal_actions` and `_apply`."""

    CHANCE: dict[int, str]
    OVER: int

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
        owner = [-1] * NUM_CARDS
        for p, hand in enumerate(self.hands):
            for c in hand:
                owner[c] = p
        return owner

    def summary(self) -> dict:
        """The facts the differential tests compare (`kanjax.envs.kan.summary`'s names)."""
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
