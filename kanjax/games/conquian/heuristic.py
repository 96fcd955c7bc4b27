"""A rule-based heuristic bot for Conquian (`kanjax.games.conquian.engine`), as a jittable policy.

`make_conquian_heuristic(env)` returns a policy `(key, observation, legal_mask) -> action` that
scores every action from the observation and plays the legal one of highest score (ties: the
lowest id), so it is always legal. Rule ids: `rules/conquian.md`.

- Facing E (CQ-11..13): take whenever a take exists, laying down every hand card that can go
  with it (the picks come first: each legal pick keeps the take completable, so picking until
  none is left melds a largest set; progress to 11 melded cards is the whole game). Otherwise
  refuse.
- A refusal to answer (CQ-15): demand when the refuser holds 3 or more cards (he must take E
  and throw a card he wanted to keep, and his discard is offered to me); waive when he holds
  fewer (a forced take could let him go out, CQ-18/25).
- After a take (CQ-13, CQ-16), and a forced discard: throw the hand card that does least for
  my future melds: its *keep value* counts the live cards (in my hand or meld, not dead or in
  the opponent's meld) of its rank, and of its suit one rank away (twice) or two ranks away.
  Where that card fits the opponent's meld, lay it off instead (he would take it anyway; now
  he must discard and I see his discard first).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.bots import Policy, best_scored
from kanjax.games.conquian import spec as cq
from kanjax.games.conquian.engine import ConquianEnv

N = cq.NUM_CARDS


def _affinity() -> np.ndarray:
    """float[40, 40]: how much card d helps card c into a meld (same rank 1; same suit one
    rank away 2, two ranks away 1; CQ-3)."""
    s, r = np.divmod(np.arange(N), cq.NUM_RANKS)
    same_suit = s[:, None] == s[None, :]
    gap = np.abs(r[:, None] - r[None, :])
    a = (r[:, None] == r[None, :]) * 1.0 + same_suit * ((gap == 1) * 2.0 + (gap == 2) * 1.0)
    np.fill_diagonal(a, 0.0)
    return a.astype(np.float32)


def make_conquian_heuristic(env: ConquianEnv) -> Policy:
    sl = env.observation_spec().slices()
    affinity = jnp.asarray(_affinity())

    def scores(obs: jax.Array) -> jax.Array:
        def field(name):
            return obs[sl[name]].astype(jnp.float32)

        hand, mine = field("hand"), field("my_meld")
        keep = affinity @ (hand + mine)  # live partners of each card
        their_hand = obs[sl["their_hand"]][0]
        demand = jnp.where(their_hand >= 3, 1.0, -1.0)
        return jnp.concatenate([
            jnp.full(N, 10.0),  # picks before the take
            jnp.array([5.0, 0.0, 0.0, demand, 0.0]),  # take, pass, decline, demand, waive
            -keep,  # discards: the card of least use
            -keep + 0.5,  # a layoff of that card rather than its discard
        ])

    return best_scored(scores)
