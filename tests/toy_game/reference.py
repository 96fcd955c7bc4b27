"""Plain-Python reference rules of toy trick (tests/toy_game/rules.md), the oracle of its
differential test: slow, obvious, written from the rules page, and imported by no engine
code. The deal comes from outside (each player's hand).

Cards are ids 0..5 (`3 * suit + rank`: QS KS AS QH KH AH), players 0 and 1.
"""

from __future__ import annotations

NUM_CARDS = 6
NUM_TRICKS = 3


def suit_of(card: int) -> int:
    return card // 3


def rank_of(card: int) -> int:
    """0, 1, 2 for Q, K, A."""
    return card % 3


class ToyRef:
    """One deal of toy trick, driven by `apply`."""

    def __init__(self, hands: list[list[int]], leader: int = 0):
        # TOY-1: three cards each, all six dealt
        if sorted(c for h in hands for c in h) != list(range(NUM_CARDS)) or any(
                len(h) != NUM_TRICKS for h in hands):
            raise ValueError(f"want two hands of three cards, the six dealt: {hands}")
        self.hands = [set(h) for h in hands]
        self.first_leader = self.leader = leader  # TOY-2
        self.trick: list[tuple[int, int]] = []  # (player, card) of the current trick
        self.won = [0, 0]
        self.history: list[tuple[int, int, int]] = []  # (trick, player, card)

    @property
    def tricks_done(self) -> int:
        return sum(self.won)

    @property
    def is_over(self) -> bool:
        return self.tricks_done == NUM_TRICKS

    @property
    def current_player(self) -> int:
        if self.is_over:
            return -1
        return self.leader if not self.trick else 1 - self.leader

    def legal_actions(self) -> list[int]:
        """TOY-3: the led suit if the follower holds it, else any card he holds."""
        if self.is_over:
            return []
        hand = self.hands[self.current_player]
        if self.trick:
            follow = [c for c in hand if suit_of(c) == suit_of(self.trick[0][1])]
            if follow:
                return sorted(follow)
        return sorted(hand)

    @property
    def rewards(self) -> list[int]:
        """TOY-4: at the end, a player's tricks less the other's; before, nothing."""
        if not self.is_over:
            return [0, 0]
        return [self.won[0] - self.won[1], self.won[1] - self.won[0]]

    def apply(self, card: int) -> None:
        if card not in self.legal_actions():
            raise ValueError(f"illegal card {card}; legal: {self.legal_actions()}")
        p = self.current_player
        self.hands[p].remove(card)
        self.history.append((self.tricks_done, p, card))
        self.trick.append((p, card))
        if len(self.trick) == 2:
            (lead_p, lead), (_, follow) = self.trick
            # TOY-3: only a higher card of the led suit beats the lead
            beats = suit_of(follow) == suit_of(lead) and rank_of(follow) > rank_of(lead)
            winner = 1 - lead_p if beats else lead_p
            self.won[winner] += 1
            self.leader = winner  # TOY-2
            self.trick = []

    def summary(self) -> dict:
        """The facts the differential test compares, under the engine summary's names."""
        owner = [-1] * NUM_CARDS
        for p, hand in enumerate(self.hands):
            for c in hand:
                owner[c] = p
        played = [-1] * NUM_CARDS
        for t, p, c in self.history:
            played[c] = 2 * t + p
        return {
            "current_player": self.current_player, "legal_actions": self.legal_actions(),
            "terminal": self.is_over, "scores": self.rewards, "hand_owner": owner,
            "played": played, "first_leader": self.first_leader, "leader": self.leader,
            "trick": self.tricks_done, "led": self.trick[0][1] if self.trick else -1,
            "won": list(self.won),
        }
