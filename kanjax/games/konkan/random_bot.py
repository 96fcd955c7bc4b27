"""Konkan's random bot (`kanjax.games.konkan.engine`; a tournament's kind "random"), as a jittable
policy.

A uniformly random legal action almost never opens in Konkan: an opening is a turn of picks
and melds worth 51 or more (KON-14), and among a turn's legal actions the discards and the
picks of one meld compete with every other pick. This bot plays at random too, but a turn at a
time, so that its melds get laid and its games reach openings, layoffs and going out
(docs/rules/konkan_engine.md):

- at a turn's start: `draw` or `take`, whichever are legal, at random (`request` only when
  nothing else is legal);
- with cards picked: where a finishing action (`run p`, `set`, `layoff`, `retrieve`) is
  legal, half the time one of them at random (and always where no pick is), else another
  legal pick at random (so melds of every length get laid);
- nothing picked: where a discard is legal, half the time a legal pick (a meld or a layoff
  begins), else a legal discard, at random; where none is (an opening below `opening_min`,
  or a taken card not yet used), a legal pick, or one time in four `retract` where legal.

Every choice is among legal actions (the whole mask where a class is empty), so the bot is
always legal; it is keyed, and each turn ends with probability at least one half at every
decision where a discard is legal, so a turn is short on average.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kanjax.bots import Policy, uniform_random
from kanjax.core import prng
from kanjax.games.konkan import spec as ks
from kanjax.games.konkan.engine import KonkanEnv

Array = jax.Array


def _ids(lo: int, hi: int) -> Array:
    a = jnp.arange(ks.NUM_ACTIONS)
    return (a >= lo) & (a < hi)


PICKS = _ids(ks.PICK, ks.RUN)
FINISH = _ids(ks.RUN, ks.DISCARD)
DISCARDS = _ids(ks.DISCARD, ks.DRAW)
DRAW_TAKE = _ids(ks.DRAW, ks.REQUEST)
RETRACT = _ids(ks.RETRACT, ks.RETRACT + 1)


def make_konkan_random(env: KonkanEnv) -> Policy:
    sel_slice = env.observation_spec().slices()["selection"]

    def policy(key: Array, observation: Array, legal_mask: Array) -> Array:
        coin = prng.bits32(prng.fold_in(key, 1))
        half, quarter = (coin & 1) == 0, ((coin >> 1) & 3) == 0
        picked = observation[sel_slice].sum() > 0

        def some(cls: Array) -> Array:
            return (legal_mask & cls).any()

        drawing = some(DRAW_TAKE)
        can_discard = some(DISCARDS)
        act = jnp.where(
            picked, jnp.where(some(FINISH) & ~(half & some(PICKS)), FINISH, PICKS),
            jnp.where(can_discard, jnp.where(half & some(PICKS), PICKS, DISCARDS),
                      jnp.where(quarter & some(RETRACT), RETRACT, PICKS)))
        cls = jnp.where(drawing, DRAW_TAKE, act)
        sub = legal_mask & cls
        return uniform_random(key, None, jnp.where(sub.any(), sub, legal_mask))

    return policy
