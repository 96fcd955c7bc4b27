"""Dealing and seats, for any card game: a uniform shuffle of a (static) deck into hands of
given sizes and a rest (a kitty or a stock), ring positions around a dealer, and the card
scans a deal's chance events use. Pure, jittable, fixed shapes; no game rules.

Cards are a game's card ids 0..C-1; `deck` (numpy bool[C], static) marks those in play. Hands
are numbered by ring position: hand q goes to the player at position q (`owners`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core import jaxutil

Array = jax.Array


class Shuffle(NamedTuple):
    """A shuffled deck dealt into hands (see `shuffle`)."""

    rank: Array  # int32[C]: the card's place in the shuffled deck, -1 not in the deck
    hand: Array  # int32[C]: the hand it is dealt to, -1 for the rest and absent cards
    spare: Array  # uint32[2]: random words for the deal's other chance events


def shuffle(key: Array, deck: np.ndarray, hand_sizes: Sequence[int]) -> Shuffle:
    """A uniform deal of the cards of `deck` (bool[C]): places 0.. of a random permutation
    (`jaxutil.random_ranks`), hand q taking the `hand_sizes[q]` places after those of hands
    0..q-1 and the rest (places from `sum(hand_sizes)` on, in shuffled order: a kitty or a
    stock, top first) staying undealt. The card at place `start_q + i` is a uniform card of
    hand q, independent of the hands, which chance events drawn after the deal can use
    (`card_at`)."""
    size = int(deck.sum())
    ranks, spare = jaxutil.random_ranks(key, size)
    rank = spread(ranks, deck)
    bounds = np.cumsum(hand_sizes)
    if bounds[-1] > size:
        raise ValueError(f"hands of {list(hand_sizes)} cards need {bounds[-1]}: the deck has "
                         f"{size}")
    hand = sum((rank >= int(b)).astype(jnp.int32) for b in bounds[:-1])
    if bounds[-1] < size:  # the rest
        hand = jnp.where(rank >= int(bounds[-1]), -1, hand)
    if not deck.all():
        hand = jnp.where(deck, hand, -1)
    return Shuffle(rank, hand, spare)


def owners(hand: Array, pos: Array) -> Array:
    """int32[C]: the player holding each card when hand q (`Shuffle.hand`) goes to the player
    at ring position q (`pos`: each player's position); -1 for the cards of no hand."""
    loc = jnp.full(hand.shape, -1)
    for p in range(pos.shape[0]):
        loc = jnp.where(hand == pos[p], p, loc)
    return loc


def ring_positions(seat_of: Array, dealer: Array, n: int) -> Array:
    """Each player's ring position in play order from the seat after the dealer's: the
    player in seat `seat_of[dealer] + 1 + k` (mod n) is at position k, the dealer at n - 1."""
    s = seat_of.astype(jnp.int32)
    p = s - s[dealer] - 1  # -n .. n-2
    return jnp.where(p < 0, p + n, p)


def player_at(pos: Array, k: Array) -> Array:
    """The player at ring position `k` (`pos`: each player's position)."""
    return jnp.argmax(pos == k)


def card_at(rank: Array, place: Array) -> Array:
    """The card id at `place` of the shuffled deck (`Shuffle.rank`), -1 if none."""
    return jaxutil.lowest_bit(jaxutil.pack_bits(rank == place))


def kth_card(hand: Array, k: Array) -> Array:
    """The id of the card with `k` smaller cards in `hand` (bool[C]), -1 if k < 0 (`k` may be
    an array of such counts): the hand as 32-bit words (`pack_bits`), the word holding it
    found by popcounts, then a binary search with popcounts inside it (scalar work; a prefix
    sum over the cards would be a slow pass on CPU)."""
    words = jaxutil.pack_bits(hand)
    counts = [jax.lax.population_count(w).astype(jnp.int32) for w in words]
    before = [sum(counts[:i], jnp.int32(0)) for i in range(len(counts))]
    last = len(counts) - 1
    word, kk, base = words[last], k - before[last], jnp.int32(32 * last)
    for i in range(last - 1, -1, -1):  # the first word whose cards reach past k
        inside = k < before[i] + counts[i]
        word = jnp.where(inside, words[i], word)
        kk = jnp.where(inside, k - before[i], kk)
        base = jnp.where(inside, 32 * i, base)
    p = jnp.zeros_like(k)
    for step in (16, 8, 4, 2, 1):  # largest p with popcount(word below bit p) <= kk
        below = jax.lax.population_count(word & ((jnp.uint32(1) << (p + step).astype(
            jnp.uint32)) - 1)).astype(jnp.int32)
        p = jnp.where(below <= kk, p + step, p)
    return jnp.where(k < 0, -1, base + p)


def spread(values: Array, present: np.ndarray, fill: int = -1) -> Array:
    """int32[C]: `values[i]` at the i-th card id where `present` (bool[C], static), `fill`
    elsewhere; built from static runs (no scatter)."""
    parts, at, c, n = [], 0, 0, len(present)
    while c < n:
        run = c
        while run < n and present[run] == present[c]:
            run += 1
        if present[c]:
            parts.append(values[at: at + run - c])
            at += run - c
        else:
            parts.append(jnp.full(run - c, fill, jnp.int32))
        c = run
    return jnp.concatenate(parts)
