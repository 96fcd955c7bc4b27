"""Python bots for the tournament tests: a good one and four that misbehave."""

from __future__ import annotations

import time


class FirstLegal:
    def act(self, observation, legal_actions):
        return legal_actions[0]


class Crasher:
    def act(self, observation, legal_actions):
        raise RuntimeError("boom")


class Sleeper:
    def act(self, observation, legal_actions):
        time.sleep(3)
        return legal_actions[0]


class Illegal:
    def act(self, observation, legal_actions):
        return 999


class Spinner:
    def act(self, observation, legal_actions):
        while True:
            pass
