"""Move codes and bit words: the search's position is suit words in relative ranks.

A suit word holds one seat's (or a set of cards') cards of one suit, bit i for the suit's
i-th lowest live card; a move set is four suit words and a joker word (bit 0: the joker
following, bit 1 + s: a joker lead naming suit s). A move is a code: `16 * suit + relative
rank`, `JK_CODE` (the joker, following) or `LEAD_CODE + s` (a joker lead naming suit s).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core.jaxutil import Array

JK_CODE, LEAD_CODE, NUM_CODES = 64, 68, 72  # move codes besides 16 * suit + relative rank
CODES = [*range(JK_CODE + 1), *range(LEAD_CODE, NUM_CODES)]  # every move code
SUITS = np.arange(4)


def word_bit(code: int) -> tuple[int, int]:
    """(word, bit) of a move code in a move set."""
    if code >= JK_CODE:
        return 4, 0 if code == JK_CODE else code - LEAD_CODE + 1
    return code >> 4, code & 15


def slot(code: Array) -> tuple[Array, Array]:
    """`word_bit`, traced: (word, bit as uint32)."""
    word = jnp.where(code >= JK_CODE, 4, code >> 4)
    bit = jnp.where(code >= LEAD_CODE, code - LEAD_CODE + 1, jnp.where(code >= JK_CODE, 0,
                                                                       code & 15))
    return word, bit.astype(jnp.uint32)


def hash_consts(seed: int, size: int) -> np.ndarray:
    """`size` fixed random nonzero uint32 words (the table key's hash)."""
    return np.random.default_rng(seed).integers(1, 2**32, size, dtype=np.uint32)


def fmix(x: Array) -> Array:
    """MurmurHash3's 32-bit finaliser (a bijection that mixes every bit)."""
    x = (x ^ (x >> 16)) * jnp.uint32(0x85EBCA6B)
    x = (x ^ (x >> 13)) * jnp.uint32(0xC2B2AE35)
    return x ^ (x >> 16)


def top(w: Array) -> Array:
    """Index of the highest set bit (-1 for 0)."""
    return 31 - jax.lax.clz(w).astype(jnp.int32)


def top_bit(words: Array) -> Array:
    """The highest set bit of each word, as a word (bit 0 for 0)."""
    return jnp.uint32(1) << jnp.maximum(top(words), 0).astype(jnp.uint32)


def stronger(cards: Array, base: Array, strength: Array) -> Array:
    """The cards of the suit words `cards` (a card's strength: its suit's `base` plus its
    relative rank; base 0: it cannot win) stronger than `strength`."""
    thr = jnp.clip(strength - base + 1, 0, 16).astype(jnp.uint32)
    return jnp.where(base > 0, (cards >> thr) << thr, jnp.uint32(0))


def closure(words: Array) -> Array:
    """Each suit word with every rank above its lowest set bit set too (up to bit 15)."""
    low = words & (~words + jnp.uint32(1))
    return jnp.where(words != 0, ~(low - jnp.uint32(1)) & jnp.uint32(0xFFFF), jnp.uint32(0))


def above(words: Array, rest: Array) -> Array:
    """The cards of `words` above every card of `rest` in their suit (word by word)."""
    shift = jnp.clip(top(rest) + 1, 0, 31).astype(jnp.uint32)
    return words >> shift << shift


def halves(words: Array) -> Array:
    """The 16-bit halves of `words` (uint32[k, m]), low first: uint32[k, 2m]."""
    return jnp.stack([words & 0xFFFF, words >> 16], axis=-1).reshape(words.shape[0], -1)


def pairs(halves: Array) -> Array:
    """`halves` undone on a flat uint32[2m]: uint32[m]."""
    return halves[0::2] | (halves[1::2] << 16)


def trumps(hands: Array, trump: Array) -> Array:
    """Each seat's trump word (uint32[n]; 0 with no trump suit)."""
    return jnp.where(trump >= 0, hands[:, jnp.maximum(trump, 0)], jnp.uint32(0))


def words_of(hands: Array, seats: Array) -> Array:
    """The suit words (uint32[4]) of the seats `seats` (bool[n]) together."""
    return jax.lax.reduce(jnp.where(seats[:, None], hands, jnp.uint32(0)), jnp.uint32(0),
                          jax.lax.bitwise_or, (0,))
