"""The heuristic bot of toy trick (`tests.toy_game.engine`, `Bots.heuristic`), a jittable
policy `(key, observation, legal_mask) -> action` that reads only the observation:

- leading: the highest card held (an ace wins its trick, TOY-3);
- following: the cheapest card that beats the led card, else the cheapest card.
"""

from __future__ import annotations

import jax.numpy as jnp

from kanjax.bots import Policy, best_scored
from tests.toy_game.engine import NUM_CARDS, RANK, SUIT, ToyEnv


def card_scores(env: ToyEnv, observation) -> jnp.ndarray:
    """float[6]: the score of playing each card (only the legal ones count)."""
    sl = env.observation_spec().slices()
    led = observation[sl["led"]][0].astype(jnp.int32)
    beats = (SUIT == led // 3) & (RANK > led % 3)
    follow = jnp.where(beats, 10.0 - RANK, -RANK)
    return jnp.where(led < 0, RANK, follow).astype(jnp.float32)


def make_toy_heuristic(env: ToyEnv) -> Policy:
    assert env.num_actions == NUM_CARDS
    return best_scored(lambda observation: card_scores(env, observation))
