"""The uniform random legal bot, as a jittable policy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

Array = jax.Array


def uniform_random(key: Array, observation: Array, legal_mask: Array) -> Array:
    """A uniformly random legal action: `(key, observation, legal_mask) -> action`.

    One random word picks the r-th legal action, r = word mod (number of legal actions): the
    mask is packed into 32-bit words, `population_count` finds the word holding the r-th set
    bit and a five-step binary search finds the bit. On CPU this is ~5x faster than
    `argmax(cumsum(mask) > r)` (XLA lowers cumsum to an O(n^2) window) and far cheaper than
    Gumbel sampling. The modulo bias is below 2**-24.
    """
    del observation
    n = legal_mask.shape[-1]
    num_words = -(-n // 32)
    bits = jnp.pad(legal_mask, (0, num_words * 32 - n)).reshape(num_words, 32)
    words = (bits.astype(jnp.uint32) << jnp.arange(32, dtype=jnp.uint32)).sum(-1, jnp.uint32)
    counts = lax.population_count(words).astype(jnp.int32)
    upto = jnp.cumsum(counts)  # a handful of words: cheap
    total = jnp.maximum(upto[-1], 1).astype(jnp.uint32)
    r = (jax.random.bits(key, (), jnp.uint32) % total).astype(jnp.int32)
    w = jnp.argmax(upto > r)
    k = r - (upto[w] - counts[w])  # find the k-th set bit of words[w]
    word, pos = words[w], jnp.int32(0)
    for width in (16, 8, 4, 2, 1):
        low = (word >> pos.astype(jnp.uint32)) & jnp.uint32((1 << width) - 1)
        c = lax.population_count(low).astype(jnp.int32)
        pos, k = jnp.where(k >= c, pos + width, pos), jnp.where(k >= c, k - c, k)
    return (w * 32 + pos).astype(jnp.int32)
