"""The rules kernel on suit words, for one lane: a move's suit and strength, the legal moves,
rank equivalence, and a completed trick's cards taken out of (and put back into) the words.

The rules are the game's data (`solvers.position.Rules`: when the joker may be played, each
trick; whether it is low in the last) on `kanjax.core.trick`'s kernel, applied to suit words
instead of per-card arrays.
"""

from __future__ import annotations

import jax.numpy as jnp

from kanjax.core import trick as trick_kernel
from kanjax.core.jaxutil import Array
from solvers.position import JOKER_PLAYS, Rules
from solvers.search.words import JK_CODE, LEAD_CODE, SUITS, top


def suit_of(code: Array) -> Array:
    """The effective suit of move `code`: a card's suit, the suit a joker lead names, 4 for
    the joker following."""
    return jnp.where(code >= LEAD_CODE, code - LEAD_CODE,
                     jnp.where(code >= JK_CODE, 4, code >> 4))


def strength(rules: Rules, code: Array, led: Array, trump: Array, done: Array) -> Array:
    """The strength of move `code` in a trick whose led suit is `led`, `done` tricks
    completed: the joker on top, or the led suit's lowest card in the last trick where the
    rules say so."""
    is_jk = code >= JK_CODE
    suit, rank = suit_of(code), jnp.where(is_jk, 0, code & 15)
    if rules.joker_low_last:
        last = done == rules.n_tricks - 1
        return trick_kernel.card_strength(suit, rank, led, trump, is_jk & ~last, is_jk & last)
    return trick_kernel.card_strength(suit, rank, led, trump, is_jk)


def legal(rules: Rules, h: Array, jk_mine: Array, leading: Array, led: Array,
          done: Array) -> Array:
    """uint32[5]: the move set of a player holding the suit words `h` (and the joker if
    `jk_mine`) in trick `done + 1`: follow suit, and when the joker may be played
    (`Rules.joker`)."""
    zero = jnp.uint32(0)
    of_led = jnp.where(SUITS == led, h, zero)
    cards = jnp.where(leading | ~jnp.any(of_led != 0), h, of_led)
    if not rules.joker:
        return jnp.concatenate([cards, zero[None]])
    plays = jnp.array([JOKER_PLAYS.index(p) for p in rules.joker], jnp.int32)[done]
    never, follow, _, only = range(len(JOKER_PLAYS))
    jk_follow = jk_mine & ~leading & (plays != never)
    jk_lead = jk_mine & leading & (plays > follow)
    cards = jnp.where(jk_mine & (plays == only), zero, cards)
    word = jnp.where(jk_follow, 1, 0) | jnp.where(jk_lead, 0b11110, 0)
    return jnp.concatenate([cards, word.astype(jnp.uint32)[None]])


def equivalent(moves: Array, h: Array, pts: Array) -> Array:
    """`moves` less every card whose next live card up its suit is also the mover's and
    worth the same points (rank equivalence: in relative ranks, the next bit)."""
    words = moves[:4]
    dup = words & (h >> 1) & ~(pts ^ (pts >> 1))
    return moves.at[:4].set(words & ~dup)


def _removals(codes: Array) -> tuple[Array, Array, Array]:
    """(suit, bit, real) of the cards `codes` (a completed trick, one code a seat) as they are
    taken out one after another: `bit[k]` is card k's rank once cards 0..k-1 are out."""
    n = codes.shape[0]
    suit, bit, real = codes >> 4, codes & 15, codes < JK_CODE
    for k in range(n - 1):
        later = jnp.arange(n) > k
        bit = jnp.where(later & (suit == suit[k]) & (bit > bit[k]) & real[k], bit - 1, bit)
    return suit, bit.astype(jnp.uint32), real


def squeeze(words: Array, codes: Array) -> Array:
    """`words` (uint32[k, 4], relative ranks) with the cards `codes` (a completed trick)
    taken out: the ranks above each one move down a bit."""
    suit, bit, real = _removals(codes)
    for k in range(codes.shape[0]):
        low = (jnp.uint32(1) << bit[k]) - jnp.uint32(1)
        squeezed = (words & low) | ((words >> 1) & ~low)
        words = jnp.where((SUITS == suit[k]) & real[k], squeezed, words)
    return words


def unsqueeze(words: Array, codes: Array) -> Array:
    """`squeeze` undone on rank sets (uint32[4]): the ranks of the trick `codes` are put
    back, empty."""
    suit, bit, real = _removals(codes)
    for k in reversed(range(codes.shape[0])):
        low = (jnp.uint32(1) << bit[k]) - jnp.uint32(1)
        spread = (words & low) | ((words & ~low) << 1)
        words = jnp.where((SUITS == suit[k]) & real[k], spread, words)
    return words


def by_rank(codes: Array, winner: Array, hand: Array) -> Array:
    """uint32[4]: what of the trick `codes`'s ranks mattered. If its winning card
    `codes[winner]` beat another card of its suit: that rank and the run of ranks right below
    it that its player still held (`hand`, his suit words after the trick; rank equivalence
    tried the run's highest card for all of them, which only holds while he holds the run:
    DDS's winning sequence). Else nothing."""
    code = codes[winner]
    real = codes < JK_CODE
    rival = jnp.any(real & (codes >> 4 == code >> 4) & (jnp.arange(codes.shape[0]) != winner))
    rank = (code & 15).astype(jnp.uint32)
    below = (jnp.uint32(1) << rank) - jnp.uint32(1)
    low = (top(~hand[(code >> 4) & 3] & below) + 1).astype(jnp.uint32)
    run = (jnp.uint32(2) << rank) - (jnp.uint32(1) << low)
    return jnp.where((SUITS == code >> 4) & (code < JK_CODE) & rival, run, jnp.uint32(0))
