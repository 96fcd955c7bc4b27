"""Python bots for the tournament tests: a good one and four that misbehave, one at a time;
batched (`act_batch`), a good one and four that misbehave."""

from __future__ import annotations

import time

import numpy as np


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


class BatchLast:
    """Batched: each game's last legal action, the sample engine's move."""

    def act_batch(self, observations, legal_masks):
        assert observations.ndim == 2 and legal_masks.dtype == bool
        return legal_masks.shape[1] - 1 - np.argmax(legal_masks[:, ::-1], axis=1)


class BatchCrasher:
    def act_batch(self, observations, legal_masks):
        raise RuntimeError("boom")


class BatchSleeper:
    def act_batch(self, observations, legal_masks):
        time.sleep(3)
        return np.argmax(legal_masks, axis=1)


class BatchOnceIllegal(BatchLast):
    """The last legal action, but 999 in the first game of its 5th batch."""

    def __init__(self) -> None:
        self.batches = 0

    def act_batch(self, observations, legal_masks):
        actions = super().act_batch(observations, legal_masks)
        self.batches += 1
        if self.batches == 5:
            actions[0] = 999
        return actions


class BatchShort:
    def act_batch(self, observations, legal_masks):
        return np.zeros(len(legal_masks) + 1, np.int32)


class BatchRandom:
    """Batched: a uniformly random legal action in each game (a stub engine for any game)."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def act_batch(self, observations, legal_masks):
        return np.array([self.rng.choice(np.flatnonzero(m)) for m in legal_masks])
