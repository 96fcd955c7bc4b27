"""Trumps by level, the Sheng Ji family's card tables (Da Bai Fen): for a hand's trump rank `R`
and trump suit `T`, each card's trump flag, effective suit and strength within it, and the
strength of a four-of-a-kind (a Jilin Dun). The trick kernel (`kanjax.core.trick`) compares plays
from these tables; the engine (`kanjax.games.da_bai_fen.engine`) and the solvers' views of a Da Bai
Fen hand (`DbfEnv.trick_rules`) both read them here, so the two cannot disagree.

Card ids are Da Bai Fen's (`kanjax.games.da_bai_fen.spec`): `13 * s + r` (suits S H D C, ranks
2..A), BJ = 52, RJ = 53. Every function is pure and jittable; `R` and `T` may be traced.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from kanjax.core.jaxutil import Array
from kanjax.games.da_bai_fen import spec as ds

IDS = np.arange(ds.NUM_CARDS)
PSUIT = np.where(IDS < ds.BJ, IDS // 13, 5)  # printed suit; jokers 5
PRANK = np.where(IDS < ds.BJ, IDS % 13, -1)  # printed rank index; jokers -1
JOKER = IDS >= ds.BJ
TRUMP = 4  # the effective suit of trumps
TOP_STRENGTH = 18  # RJ's


def tables(R: Array, T: Array, yuan_zhu: bool) -> tuple[Array, Array, Array]:
    """Per card (54): trump (bool), effective suit (0..3 plain, TRUMP) and strength within it
    (int32) for trump level `R` and suit `T` (DBF-5..8, V6):

    - trumps (DBF-5): RJ, BJ, the four cards of rank R, every card of suit T, and with
      `yuan_zhu` and R != 2 the four 2s; they are of the trump suit only, never of their
      printed suit (for following, leading and ranking);
    - trump strengths (DBF-6, V6): RJ 18 > BJ 17 > R of T 16 > R of another suit 15 (equal,
      DBF-7) > (yuan zhu) 2 of T 14 > 2 of another suit 13 (equal) > the other cards of
      suit T by rank index (A 12 .. 2 0, R skipped);
    - a plain suit's cards by rank index (A 12 .. 2 0, R and yuan-zhu 2s being trumps).

    Equal cards get equal strengths; which of them wins is the play order's (DBF-8)."""
    r = R - 2
    yz = yuan_zhu & (r != 0)
    prank, psuit, joker = jnp.asarray(PRANK), jnp.asarray(PSUIT), jnp.asarray(JOKER)
    is_r = (prank == r) & ~joker
    is_2 = yz & (prank == 0) & ~joker
    of_t = psuit == T
    trump = joker | is_r | is_2 | of_t
    eff = jnp.where(trump, TRUMP, psuit)
    strength = jnp.where(
        IDS == ds.RJ, TOP_STRENGTH, jnp.where(
            IDS == ds.BJ, 17, jnp.where(
                is_r, jnp.where(of_t, 16, 15), jnp.where(
                    is_2, jnp.where(of_t, 14, 13), prank))))
    return trump, eff, strength.astype(jnp.int32)


def quad_value(rank: Array, R: Array, yuan_zhu: bool) -> Array:
    """DBF-V8: the strength of a four-of-a-kind of printed rank index `rank`: rank R 20 >
    (yuan zhu, R != 2) 2s 19 > A 13 > K 12 > ... > 2 1. Distinct ranks, distinct values."""
    r = R - 2
    yz = yuan_zhu & (r != 0)
    return jnp.where(rank == r, 20, jnp.where(yz & (rank == 0), 19, rank + 1))


def quad_values(R: Array, yuan_zhu: bool) -> Array:
    """Per card (54): `quad_value` of its printed rank, 0 for a joker (in no quad)."""
    return jnp.where(jnp.asarray(JOKER), 0, quad_value(jnp.asarray(PRANK), R, yuan_zhu))


def quad_strength(cards: Array, R: Array, yuan_zhu: bool) -> Array:
    """DBF-V8, DBF-40: the strength of a play `cards` (bool[54]) as a Dun: `quad_value` of
    its rank if it is four cards of one printed rank (one a suit, never a joker), else 0
    (the play does not compete in a Dun trick: four trumps of mixed ranks never win)."""
    prank = jnp.asarray(PRANK)
    first = jnp.argmax(cards)
    quad = ((jnp.sum(cards, dtype=jnp.int32) == 4) & ~jnp.any(cards & jnp.asarray(JOKER))
            & jnp.all(~cards | (prank == prank[first])))
    return jnp.where(quad, quad_value(prank[first], R, yuan_zhu), 0)
