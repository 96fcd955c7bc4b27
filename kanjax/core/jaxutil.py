"""JAX plumbing shared by the engines and the solvers, tuned for XLA on CPU: tree selects and
lane updates over batches, bit packing and bit scans, random words and permutations (the
unrolled Threefry of `kanjax.core.prng`), and `materialize`. No game rules live here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from kanjax.core.prng import threefry2x32

Array = jax.Array


def tree_where(pred: Array, on_true: Any, on_false: Any) -> Any:
    """Leaf-wise `jnp.where(pred, a, b)` over two pytrees of the same structure."""
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


def update_lanes(pred: Array, fn: Callable[..., Any], state: Any, extra: Any, size: int) -> Any:
    """`tree_where(pred, vmap(fn)(state, extra), state)` over a batch (leading axis B),
    computing `fn` only for the lanes where `pred` (bool[B]): `size` of them at a time
    (`update_lanes_batched` with `vmap(fn)`)."""
    return update_lanes_batched(pred, lambda st, ex, _valid: jax.vmap(fn)(st, ex), state, extra,
                                size)


def update_lanes_batched(pred: Array, fn: Callable[..., Any], state: Any, extra: Any,
                         size: int) -> Any:
    """`state` with the lanes where `pred` (bool[B]) replaced by `fn(state_lanes, extra_lanes,
    valid)`, a function of `size` lanes at a time (`valid`: bool[size], False on padding).

    Fixed shapes: the selected lanes' indices (`jnp.nonzero` with a static size, padded with
    the out-of-range index B) are gathered, `fn` runs on `size` lanes and the results are
    scattered back (the padding's dropped), in a `while_loop` that makes ceil(count / size)
    trips: none when no lane needs it. Worth it when `fn` is costly and few lanes need it."""
    b = pred.shape[0]
    size = min(size, b)
    order = jnp.nonzero(pred, size=b + size, fill_value=b)[0]
    count = jnp.sum(pred, dtype=jnp.int32)

    def chunk(carry: tuple[Array, Any]) -> tuple[Array, Any]:
        i, out = carry
        idx = jax.lax.dynamic_slice(order, (i * size,), (size,))
        lanes = jax.tree.map(lambda x: jnp.take(x, idx, axis=0, mode="clip"), (state, extra))
        done = fn(*lanes, idx < b)
        out = jax.tree.map(lambda x, y: x.at[idx].set(y, mode="drop"), out, done)
        return i + 1, out

    return jax.lax.while_loop(lambda c: c[0] * size < count, chunk, (jnp.int32(0), state))[1]


def pack_bits(mask: Array) -> Array:
    """bool[n] as uint32[ceil(n / 32)] (bit b of word w: `mask[32w + b]`), elementwise: the
    flags as bytes are bitcast four to a uint32, a multiply gathers each four into a nibble
    (no carries) and shifts place eight nibbles in a word. Cheaper on CPU than a reduction
    over the flags, which XLA runs as a slow windowed loop."""
    n = mask.shape[-1]
    num_words = -(-n // 32)
    flags = jnp.pad(mask, (0, num_words * 32 - n)).astype(jnp.uint8)
    quads = jax.lax.bitcast_convert_type(flags.reshape(num_words, 8, 4), jnp.uint32)
    nibbles = (quads * jnp.uint32(0x01020408)) >> 24
    word = nibbles[:, 0]
    for j in range(1, 8):
        word = word | (nibbles[:, j] << jnp.uint32(4 * j))
    return word


def trailing_zeros(x: Array) -> Array:
    """The index of the lowest set bit of each uint32 of `x` (32 where none), int32."""
    return jax.lax.population_count((x & (~x + jnp.uint32(1))) - jnp.uint32(1)).astype(
        jnp.int32)


def lowest_bit(words: Array) -> Array:
    """The index of the lowest set bit of uint32 `words` (bit b of word w: 32w + b), -1 if
    none."""
    at = jnp.int32(-1)
    for w in range(words.shape[-1] - 1, -1, -1):
        x = words[w]
        at = jnp.where(x != 0, 32 * w + trailing_zeros(x), at)
    return at


def random_words(key: Array, n: int) -> Array:
    """`n` (even) random uint32 words from `key`: Threefry-2x32 (20 rounds, as in
    `jax.random`) of the counters 0..n-1, written out unrolled (`kanjax.core.prng`). XLA's CPU
    lowering of `jax.random.bits` is a rolled loop whose fixed cost dominates when a step needs
    only a few words per lane. Keys of other PRNG implementations fall back to
    `jax.random.bits`."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        if jax.random.key_data(key).shape != (2,):
            return jax.random.bits(key, (n,), jnp.uint32)
        key = jax.random.key_data(key)
    x0, x1 = threefry2x32(key, jnp.arange(0, n // 2, dtype=jnp.uint32),
                          jnp.arange(n // 2, n, dtype=jnp.uint32))
    return jnp.concatenate([x0, x1])


def _mix32(x: Array, words: Array) -> Array:
    """A keyed bijection of uint32 (MurmurHash3-style odd multiplies and xor-shifts, with the
    key words injected between rounds): distinct inputs give distinct outputs."""
    for w, mul, shift in zip(words, (0x85EBCA6B, 0xC2B2AE35, 0x9E3779B1), (16, 13, 16),
                             strict=True):
        x = (x ^ w) * jnp.uint32(mul)
        x = x ^ (x >> shift)
    return x


def random_ranks(key: Array, n: int) -> tuple[Array, Array]:
    """A random permutation as ranks: `rank[i]` (int32[n], a permutation of 0..n-1) is the
    position of item i; plus two spare random words (uint32[2]).

    Item i's sort key is a keyed bijection (`_mix32`) of i, keyed by three Threefry words of
    `key` (`random_words`), so keys never tie; its rank is the number of smaller keys, counted
    as n elementwise compare-and-adds (one fused pass; cheaper on CPU than the sorts XLA
    emits, or than an n x n compare tensor, which XLA materialises). Like any PRNG shuffle it
    is pseudo-random; positions and pair frequencies match the uniform law in tests."""
    words = materialize(random_words(key, 6))
    keys = _mix32(jnp.arange(n, dtype=jnp.uint32), words[:3])
    rank = jnp.zeros(n, jnp.int32)
    for j in range(n):
        rank = rank + (keys[j] < keys)
    return materialize(rank), words[3:5]


def materialize(x: Array) -> Array:
    """`x`, computed once. On CPU XLA inlines a value's whole elementwise computation into
    every element of every wide consumer (`jax.lax.optimization_barrier` is dropped before
    fusion), which can multiply the work of a step many times over. On CPU `x` passes through
    a one-trip `while_loop` whose trip count XLA cannot prove (it depends on `x`), which makes
    XLA (0.10) compute it once into memory; under `vmap` this costs one select over `x`, far
    less than the scatter a `dynamic_update_slice` at a batched offset becomes. Elsewhere (a
    device `while` waits on the host each trip) `x` is written into a fresh buffer with a
    `dynamic_update_slice` at a data-dependent (always zero) offset. A performance hint only:
    the value is `x`."""
    return jax.lax.platform_dependent(x, cpu=_once_through_loop, default=_fresh_buffer)


def _once_through_loop(x: Array) -> Array:
    bits = jax.lax.population_count(x.reshape(-1)[0].astype(jnp.uint32))
    zero = (bits >> 6).astype(jnp.int32)  # a popcount of 32 bits is below 64

    def once(c: tuple[Array, Array]) -> tuple[Array, Array]:
        i, y = c
        return i + 1, jnp.where(i >= 0, y, jnp.zeros_like(y))

    return jax.lax.while_loop(lambda c: c[0] < 1, once, (zero, x))[1]


def _fresh_buffer(x: Array) -> Array:
    flat = x.reshape(-1)
    zero = (flat[0] * 0).astype(jnp.int32)
    return jax.lax.dynamic_update_slice(jnp.zeros_like(flat), flat, (zero,)).reshape(x.shape)
