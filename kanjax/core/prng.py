"""Threefry-2x32 written out unrolled, bit-identical to `jax.random` for threefry keys.

XLA's CPU lowering of `jax.random`'s threefry is a rolled loop (a `while` of many small
kernels) whose fixed cost dominates when each lane of a batch needs one or two words; the
unrolled form fuses into the surrounding scalar work. `fold_in`, `split_first` and `bits32`
return exactly what `jax.random.fold_in`, `jax.random.split(key)[0]` and
`jax.random.bits(key, (), uint32)` return (with `jax_threefry_partitionable`, jax's default);
keys of other PRNG implementations, or the other threefry mode, fall back to `jax.random`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array

_ROT = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotl(x: Array, d: int) -> Array:
    return (x << jnp.uint32(d)) | (x >> jnp.uint32(32 - d))


def threefry2x32(key: Array, x0: Array, x1: Array) -> tuple[Array, Array]:
    """Threefry-2x32 (20 rounds) of the counter pair (`x0`, `x1`) (uint32, any equal shapes)
    under the raw key `key` (uint32[2])."""
    k0, k1 = key[0].astype(jnp.uint32), key[1].astype(jnp.uint32)
    ks = (k0, k1, k0 ^ k1 ^ jnp.uint32(0x1BD11BDA))
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for i in range(5):
        for r in _ROT[i % 2]:
            x0 = x0 + x1
            x1 = _rotl(x1, r) ^ x0
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + jnp.uint32(i + 1)
    return x0, x1


def _raw(key: Array) -> Array | None:
    """The raw uint32[2] threefry key of `key`, or None where the fast path does not apply."""
    if not jax.config.jax_threefry_partitionable:
        return None
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return None
    return key if key.shape == (2,) and key.dtype == jnp.uint32 else None


def fold_in(key: Array, data: Array | int) -> Array:
    """`jax.random.fold_in(key, data)`."""
    raw = _raw(key)
    if raw is None:
        return jax.random.fold_in(key, data)
    return jnp.stack(threefry2x32(raw, jnp.uint32(0), jnp.asarray(data, jnp.uint32)))


def split_first(key: Array) -> Array:
    """`jax.random.split(key)[0]`."""
    raw = _raw(key)
    if raw is None:
        return jax.random.split(key)[0]
    return jnp.stack(threefry2x32(raw, jnp.uint32(0), jnp.uint32(0)))


def bits32(key: Array) -> Array:
    """`jax.random.bits(key, (), jnp.uint32)`: one random word."""
    raw = _raw(key)
    if raw is None:
        return jax.random.bits(key, (), jnp.uint32)
    y0, y1 = threefry2x32(raw, jnp.uint32(0), jnp.uint32(0))
    return y0 ^ y1
