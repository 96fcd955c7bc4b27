"""`kanjax.prng` is bit-identical to the `jax.random` functions it mirrors: the unrolled
Threefry-2x32 to jax's own primitive, `fold_in`, `split_first` and `bits32` to
`jax.random.fold_in`, `jax.random.split(key)[0]` and `jax.random.bits(key, (), uint32)`, over
many raw keys (edge keys included), eagerly and under `jit(vmap(...))` as the rollout and the
bots call them; keys the fast path does not take fall back to `jax.random` itself."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.random import threefry2x32_p

from kanjax.core import prng
from kanjax.rollout import CHANCE

U32 = np.uint32
EDGE_KEYS = np.array([[0, 0], [0, 1], [1, 0], [0xFFFFFFFF, 0xFFFFFFFF], [0x1BD11BDA, 0],
                      [0, 0x1BD11BDA], [0x80000000, 0x7FFFFFFF]], U32)
KEYS = np.concatenate([EDGE_KEYS, np.stack([np.asarray(jax.random.PRNGKey(s)) for s in
                                            (0, 1, 42, 2**31 - 1)]),
                       np.random.default_rng(0).integers(0, 2**32, (500, 2), dtype=U32)])
# fold_in's data: what the rollout folds in (step counts, CHANCE, chance indices: int32) and
# the bots' small constants; negative int32 data wraps to uint32 in both
DATA = np.array([0, 1, 2, 7, 255, 1 << 16, 2**31 - 1, -1, -(2**31), 12345678], np.int32)


def same(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    np.testing.assert_array_equal(a, b)


def test_threefry2x32_is_jax_threefry_primitive():
    """Every key against counter pairs of several shapes (scalars, vectors, a matrix), edge
    counters included."""
    rng = np.random.default_rng(1)
    counters = [(U32(0), U32(0)), (U32(0xFFFFFFFF), U32(1)),
                tuple(rng.integers(0, 2**32, (2, 7), dtype=U32)),
                tuple(rng.integers(0, 2**32, (2, 3, 4), dtype=U32))]
    ours = jax.jit(jax.vmap(prng.threefry2x32, in_axes=(0, None, None)))
    theirs = jax.jit(jax.vmap(lambda k, x0, x1: threefry2x32_p.bind(k[0], k[1], x0, x1),
                              in_axes=(0, None, None)))
    for x0, x1 in counters:
        x0, x1 = jnp.asarray(x0), jnp.asarray(x1)
        for a, b in zip(ours(KEYS, x0, x1), theirs(KEYS, x0, x1), strict=True):
            same(a, b)
    k = jnp.asarray(KEYS[0])  # eagerly, without vmap
    x0, x1 = jnp.asarray(counters[2][0]), jnp.asarray(counters[2][1])
    for a, b in zip(prng.threefry2x32(k, x0, x1), threefry2x32_p.bind(k[0], k[1], x0, x1),
                    strict=True):
        same(a, b)


def test_fold_in_split_first_bits32_under_jit_and_vmap():
    """Over every key and datum (vmapped over both, as the rollout's per-lane step counts),
    and composed as `rollout.step_keys` and the bots compose them."""
    keys, data = jnp.asarray(KEYS), jnp.asarray(DATA)

    def over_both(f):
        return jax.jit(jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None)))

    def over_keys(f):
        return jax.jit(jax.vmap(f))

    same(over_both(prng.fold_in)(keys, data), over_both(jax.random.fold_in)(keys, data))
    same(over_keys(prng.split_first)(keys),
         over_keys(lambda k: jax.random.split(k)[0])(keys))
    same(over_keys(prng.bits32)(keys),
         over_keys(lambda k: jax.random.bits(k, (), jnp.uint32))(keys))
    # as used: a policy key (split of a fold of the step), a chance key (two folds), a coin
    def ours(k, t):
        return (prng.split_first(prng.fold_in(k, t)),
                prng.fold_in(prng.fold_in(k, CHANCE), t), prng.bits32(prng.fold_in(k, 1)))

    def theirs(k, t):
        return (jax.random.split(jax.random.fold_in(k, t))[0],
                jax.random.fold_in(jax.random.fold_in(k, CHANCE), t),
                jax.random.bits(jax.random.fold_in(k, 1), (), jnp.uint32))

    steps = jnp.asarray(np.random.default_rng(2).integers(0, 4000, len(KEYS)), jnp.int32)
    for a, b in zip(jax.jit(jax.vmap(ours))(keys, steps), jax.jit(jax.vmap(theirs))(keys, steps),
                    strict=True):
        same(a, b)


def test_eager_calls_and_scalar_data():
    """Without jit or vmap; fold_in's data as Python ints over the whole uint32 range and as
    numpy / jax scalars of other integer types (converted to uint32 as jax converts them)."""
    scalars = (0, 1, 99, 2**31 - 1, 2**31, 2**32 - 1, np.int32(-7), np.uint32(2**32 - 5),
               np.int64(2**31 + 3), jnp.int32(-1), jnp.uint32(12), True)
    for k in KEYS[:12]:
        k = jnp.asarray(k)
        for d in scalars:
            same(prng.fold_in(k, d), jax.random.fold_in(k, d))
        same(prng.split_first(k), jax.random.split(k)[0])
        same(prng.bits32(k), jax.random.bits(k, (), jnp.uint32))


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg"])
def test_typed_keys_fall_back_to_jax_random(impl):
    """New-style typed keys (any implementation) take `jax.random` itself."""
    keys = jax.vmap(lambda s: jax.random.key(s, impl=impl))(jnp.arange(8))
    pairs = [(jax.vmap(lambda k: prng.fold_in(k, 5)), jax.vmap(lambda k: jax.random.fold_in(k, 5))),
             (jax.vmap(prng.split_first), jax.vmap(lambda k: jax.random.split(k)[0])),
             (jax.vmap(prng.bits32), jax.vmap(lambda k: jax.random.bits(k, (), jnp.uint32)))]
    for ours, theirs in pairs:
        a, b = jax.jit(ours)(keys), jax.jit(theirs)(keys)
        if jnp.issubdtype(a.dtype, jax.dtypes.prng_key):
            assert a.dtype == b.dtype
            a, b = jax.random.key_data(a), jax.random.key_data(b)
        same(a, b)


def test_the_other_threefry_mode_falls_back_to_jax_random():
    """With `jax_threefry_partitionable` off, jax's stream differs from the unrolled one: the
    functions give jax's."""
    keys = jnp.asarray(KEYS[:32])
    with jax.threefry_partitionable(False):
        same(jax.jit(jax.vmap(lambda k: prng.fold_in(k, 9)))(keys),
             jax.jit(jax.vmap(lambda k: jax.random.fold_in(k, 9)))(keys))
        same(jax.jit(jax.vmap(prng.split_first))(keys),
             jax.jit(jax.vmap(lambda k: jax.random.split(k)[0]))(keys))
        same(jax.jit(jax.vmap(prng.bits32))(keys),
             jax.jit(jax.vmap(lambda k: jax.random.bits(k, (), jnp.uint32)))(keys))
