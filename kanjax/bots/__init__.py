"""Policies `(key, observation, legal_mask) -> action`, jittable and vmappable."""

from kanjax.bots.heuristic import make_heuristic
from kanjax.bots.random import uniform_random

__all__ = ["make_heuristic", "uniform_random"]
