"""A Python bot for the forfeit tests: it plays its first legal action, but every 25th move
crashes and every 50th is illegal, so games forfeit at several points, for both reasons."""

from __future__ import annotations


class Flaky:
    def __init__(self) -> None:
        self.moves = 0

    def act(self, observation, legal_actions):
        self.moves += 1
        if self.moves % 50 == 0:
            return 999
        if self.moves % 25 == 0:
            raise RuntimeError("flaky")
        return legal_actions[0]
