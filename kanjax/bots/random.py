"""The uniform random legal bot, as a jittable policy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from kanjax.core import prng
from kanjax.core.jaxutil import pack_bits

Array = jax.Array


def uniform_random(key: Array, observation: Array, legal_mask: Array) -> Array:
    """A uniformly random legal action: `(key, observation, legal_mask) -> action`.

    One random word picks the r-th legal action, r = word mod (number of legal actions): the
    mask is packed into 32-bit words (`kanjax.core.jaxutil.pack_bits`), `population_count` finds the
    word holding the r-th set bit and a five-step binary search finds the bit. Everything is
    elementwise over a handful of words (no reductions, prefix sums or gathers, which XLA runs
    as slow loops on CPU). The modulo bias is below 2**-24.
    """
    del observation
    n = legal_mask.shape[-1]
    num_words = -(-n // 32)
    packed = pack_bits(legal_mask)
    words = [packed[w] for w in range(num_words)]  # bit b of word w: action 32w + b
    counts = [lax.population_count(x).astype(jnp.int32) for x in words]
    upto = [counts[0]]
    for c in counts[1:]:
        upto.append(upto[-1] + c)
    total = jnp.maximum(upto[-1], 1).astype(jnp.uint32)
    r = (prng.bits32(key) % total).astype(jnp.int32)
    w = sum((u <= r).astype(jnp.int32) for u in upto[:-1])  # the word holding bit r
    w = jnp.where(upto[-1] > r, w, 0)  # no legal action: word 0, as argmax(upto > r) did
    word, k = words[-1], r - upto[-2] if num_words > 1 else r
    for i in range(num_words - 2, -1, -1):  # k: the rank of bit r within its word
        word = jnp.where(w == i, words[i], word)
        k = jnp.where(w == i, r - (upto[i - 1] if i else 0), k)
    pos = jnp.int32(0)
    for width in (16, 8, 4, 2, 1):
        low = (word >> pos.astype(jnp.uint32)) & jnp.uint32((1 << width) - 1)
        c = lax.population_count(low).astype(jnp.int32)
        pos, k = jnp.where(k >= c, pos + width, pos), jnp.where(k >= c, k - c, k)
    return (w * 32 + pos).astype(jnp.int32)
