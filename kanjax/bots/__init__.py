"""Policies `(key, observation, legal_mask) -> action`, jittable and vmappable."""

from kanjax.bots.random import uniform_random

__all__ = ["uniform_random"]
