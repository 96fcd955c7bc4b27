"""A rule-based heuristic bot for whist (`kanjax.games.whist.engine`), as a jittable policy.

`make_whist_heuristic(env)` returns a policy `(key, observation, legal_mask) -> action`. It
decodes the observation by its `observation_spec` fields, scores every card and plays the legal card
of highest score (ties: the lowest id), so it is always legal. "Unseen" cards are neither in
my hand nor played; "sure" means no unseen card can beat it (voids are not inferred).

- Leading: cash a sure winner (the top unseen card of its suit, and a trump or no trumps
  left out), the cheapest first; else lead low from my longest side suit (trumps last).
- Second hand low.
- Third and fourth hand: if the opponents hold the trick, win it with my cheapest sure
  winner, else with my cheapest winning card; if my partner holds it, play low (overtake
  only with a sure winner when his card may still be beaten).
- Otherwise (partner's trick, or no card wins): play my cheapest card, a side suit's lowest
  before any trump.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.bots import Policy, best_scored
from kanjax.core import trick as trick_kernel
from kanjax.games.whist.engine import NUM_CARDS, RANK, SUIT, WhistEnv

Array = jax.Array

IN_SUIT = SUIT[:, None] == np.arange(4)  # bool[52, 4]
# HIGHER[c, d]: d is a higher card of c's suit
HIGHER = (SUIT[:, None] == SUIT[None, :]) & (RANK[None, :] > RANK[:, None])


def card_scores(env: WhistEnv, observation: Array) -> Array:
    """float[52]: the score of playing each card (only the legal ones matter)."""
    sl = env.observation_spec().slices()
    o = observation.astype(jnp.int32)
    cards = o[sl["cards"]].reshape(NUM_CARDS, 3)
    mine, played_by, trick_of = cards[:, 0] > 0, cards[:, 1], cards[:, 2]
    me, trump, t, n_played, led = (o[sl[k]][0] for k in (
        "me", "trump", "trick", "n_played", "led_suit"))
    unseen = ~mine & (played_by < 0)
    is_trump = SUIT == trump
    cost = RANK + 13.0 * is_trump  # what a card is worth keeping

    # ---- leading: cash sure winners, else low from the longest side suit
    top = ~jnp.any(HIGHER & unseen[None, :], axis=1)
    sure_lead = top & (is_trump | ~jnp.any(unseen & is_trump))
    length = jnp.sum(mine[:, None] & IN_SUIT, axis=0)[SUIT]
    lead = jnp.where(sure_lead, 50.0 - cost / 4, 3.0 * length - RANK - 40.0 * is_trump)

    # ---- following: the trick's best card so far, who holds it, what could still beat it
    strength = trick_kernel.card_strength(jnp.asarray(SUIT), jnp.asarray(RANK), led, trump,
                                          jnp.bool_(False))
    in_trick = (trick_of == t) & (played_by >= 0)
    best = jnp.max(jnp.where(in_trick, strength, -1))
    holder = played_by[jnp.argmax(jnp.where(in_trick, strength, -1))]
    threat = jnp.max(jnp.where(unseen, strength, -1))  # the best card still out
    last = n_played == 3
    partner_holds = holder == (me + 2) % 4
    partner_safe = partner_holds & (last | (best > threat))
    wins = strength > best
    sure = wins & (last | (strength > threat))
    take = (n_played >= 2) & ((wins & ~partner_holds) | (sure & ~partner_safe))
    follow = jnp.where(take, 40.0 + 20.0 * sure - strength / 4.0, -cost)

    return jnp.where(n_played == 0, lead, follow).astype(jnp.float32)


def make_whist_heuristic(env: WhistEnv) -> Policy:
    """The heuristic policy `(key, observation, legal_mask) -> action` for whist."""
    return best_scored(lambda observation: card_scores(env, observation))
