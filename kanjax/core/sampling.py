"""What the games' hidden-hand samplers share (each game's `sampler` module): a weighted draw
per row and each sample's first successful try."""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array


def weighted_pick(w: Array, r: Array) -> tuple[Array, Array]:
    """Each row's column drawn with probability its weight over the row's total (w int[A, k]
    >= 0, r uint32[A] random): (pick int[A], total int[A]); pick is k where the total is 0."""
    cum = jnp.cumsum(w, axis=1)
    total = cum[:, -1]
    x = (r % jnp.maximum(total, 1).astype(jnp.uint32)).astype(jnp.int32)
    return jnp.sum(cum <= x[:, None], axis=1), total


def first_success(holders: Array, ok: Array, tries: int) -> tuple[Array, Array]:
    """Of `tries` rounds of attempts (holders int[tries * samples, C], ok bool[tries *
    samples]), each sample's first successful try, else its last: (holders int8[samples, C],
    ok bool[samples])."""
    holders = holders.reshape(tries, -1, holders.shape[-1])
    ok = ok.reshape(tries, -1)
    pick = holders[tries - 1]
    for t in range(tries - 2, -1, -1):
        pick = jnp.where(ok[t][:, None], holders[t], pick)
    return pick.astype(jnp.int8), jnp.any(ok, axis=0)
