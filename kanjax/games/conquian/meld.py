"""The rummy kernel: can a set of cards be split into melds, as fixed-shape JAX.

Conquian's melds (CQ-3, CQ-6): a *group* is 3 or 4 cards of one rank (distinct suits); a
*sequence* is 3 or more cards of one suit with consecutive ranks (the ranks are a line: no
wrap). A card set is held as four rank words, `int32[..., 4]`: bit r of word s is the card of
suit s and rank r (Conquian's id `10*s + r`).

The one query is `cover(required, optional)`: does some set S with required ⊆ S ⊆ required ∪
optional split into melds, and which optional cards lie in some such S. It answers a rummy
mask in one call: a Conquian TAKE's picks (CQ-13: required = the meld, the exposed card and
the selection; optional = the rest of the hand), `take` itself and the forcing checks
(optional empty: `partitionable`).

How, without searching subsets at run time:
- Runs per suit are a table. Taking away the cards that go to groups, what is left of a suit
  must split into sequences, i.e. every maximal block of consecutive ranks has 3 cards or more.
  `_RUNS[t]`, indexed by the suit's (required, optional) pair in base 3 (`_TERNARY`), holds
  whether some allowed word does, and the optional ranks that lie in one (3^10 entries).
- Groups are enumerated. Only a rank with 3 available cards can hold a group, and a set of at
  most 11 cards (a Conquian meld with its eleventh card) has at most three such ranks
  (`SLOTS`). Each of those ranks holds no group, one of the four triples or the quad: 6^3 =
  216 choices, each fixing per suit which slot ranks leave it (one of 8 patterns). The 4 x 8
  suit lookups are done once; a choice is then a few bit operations.
The answer is exact for any input whose available cards (required ∪ optional) have at most
`SLOTS` ranks with 3 or more cards; every Conquian query does (`covers_exactly`).
"""

from __future__ import annotations

import functools
import itertools
import time

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core.jaxutil import Array

NUM_SUITS = 4
NUM_RANKS = 10
NUM_CARDS = NUM_SUITS * NUM_RANKS
SLOTS = 3  # ranks that may hold a group (at most 11 cards)
MIN_RUN = 3
FULL = (1 << NUM_RANKS) - 1


# ---- static tables ----------------------------------------------------------------------------
def _run_word_ok(w: int) -> bool:
    """Every maximal block of consecutive ranks of `w` has at least MIN_RUN cards."""
    block = 0
    for r in range(NUM_RANKS + 1):
        if r < NUM_RANKS and w >> r & 1:
            block += 1
        else:
            if 0 < block < MIN_RUN:
                return False
            block = 0
    return True


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """`_TERNARY[w]`: w's bits as base-3 digits 1; `_RUNS[t]` for t = ternary(req) +
    2 * ternary(opt): bit NUM_RANKS set when some run word W has req ⊆ W ⊆ req ∪ opt, bits
    0..9 the optional ranks in some such W."""
    words = np.arange(1 << NUM_RANKS)
    ternary = np.zeros(1 << NUM_RANKS, np.int32)
    for r in range(NUM_RANKS):
        ternary += ((words >> r) & 1).astype(np.int32) * 3 ** r
    digits = np.arange(3 ** NUM_RANKS)
    req = np.zeros_like(digits)
    opt = np.zeros_like(digits)
    for r in range(NUM_RANKS):
        d = digits // 3 ** r % 3
        req |= (d == 1) << r
        opt |= (d == 2) << r
    runs = np.zeros(3 ** NUM_RANKS, np.int32)
    for w in (w for w in range(1 << NUM_RANKS) if _run_word_ok(w)):
        fits = ((req & ~w) == 0) & ((w & ~(req | opt)) == 0)
        runs |= np.where(fits, (1 << NUM_RANKS) | (w & opt), 0)
    return ternary, runs


# Group choices: per slot, 0 = no group, 1 + s = the triple without suit s, 5 = the quad.
_OPTION_SUITS = (0, 0b1110, 0b1101, 0b1011, 0b0111, 0b1111)
_CHOICES = list(itertools.product(range(len(_OPTION_SUITS)), repeat=SLOTS))
# NEED[c]: the suits choice c takes at slot i, at bits 4i..4i+3.
_NEED = np.array([sum(_OPTION_SUITS[o] << 4 * i for i, o in enumerate(c)) for c in _CHOICES],
                 np.int32)
# PATTERN[c, s]: the slots whose group takes suit s (bit i = slot i).
_PATTERN = np.array([[sum(1 << i for i, o in enumerate(c) if _OPTION_SUITS[o] >> s & 1)
                      for s in range(NUM_SUITS)] for c in _CHOICES], np.int32)
# SHIFT[c, s]: where (suit s, its pattern under c) sits in a lane's 32 suit verdicts.
_SHIFT = (8 * np.arange(NUM_SUITS)[None, :] + _PATTERN).astype(np.int32)
# CHOSEN[c, 8s + p]: 1 where choice c gives suit s pattern p.
_CHOSEN = (_PATTERN[:, :, None] == np.arange(8)).reshape(len(_CHOICES), -1).astype(np.float32)


def _slot_ranks(avail: Array) -> Array:
    """int32[..., SLOTS]: the rank bits of the first SLOTS ranks with 3 or more available
    cards (0 for an unused slot)."""
    bits = (avail[..., :, None] >> jnp.arange(NUM_RANKS)) & 1  # [..., 4, 10]
    heavy = bits.sum(-2) >= 3  # [..., 10]
    order = jnp.cumsum(heavy, -1) - 1
    onehot = heavy[..., None, :] & (order[..., None, :] == jnp.arange(SLOTS)[:, None])
    return (onehot * (1 << jnp.arange(NUM_RANKS))).sum(-1).astype(jnp.int32)


def _choices(required: Array, optional: Array) -> tuple[Array, Array, Array]:
    """Per group choice whether it leaves every suit splitting into sequences (bool[...,
    216]), and per suit and pattern the `_RUNS` entry and the ranks that leave for groups."""
    ternary, runs = (jnp.asarray(t) for t in _tables())
    required = required.astype(jnp.int32)
    optional = optional.astype(jnp.int32)
    avail = required | optional
    slot = _slot_ranks(avail)  # [..., SLOTS]
    # per suit and pattern: the ranks that leave the suit for groups
    pattern_bits = (np.arange(8)[:, None] >> np.arange(SLOTS)) & 1  # [8, SLOTS]
    gone = (slot[..., None, :] * pattern_bits).sum(-1)  # [..., 8]
    req = required[..., :, None] & ~gone[..., None, :]  # [..., 4, 8]
    opt = optional[..., :, None] & ~gone[..., None, :]
    entry = runs[ternary[req] + 2 * ternary[opt]]
    ok_bits = ((entry >> NUM_RANKS) & 1) << (8 * jnp.arange(NUM_SUITS)[:, None] + jnp.arange(8))
    ok_bits = ok_bits.sum((-2, -1))  # [...]: bit 8s + p = suit s splits under pattern p
    # the suits each slot's rank has available, 4 bits a slot
    has = ((avail[..., None, :] & slot[..., :, None]) != 0)  # [..., SLOTS, 4]
    avail_suits = (has * (1 << jnp.arange(NUM_SUITS))).sum(-1)
    avail_slots = (avail_suits << (4 * jnp.arange(SLOTS))).sum(-1)  # [...]
    choice_ok = (_NEED & ~avail_slots[..., None]) == 0  # [..., 216]
    for s in range(NUM_SUITS):
        choice_ok &= ((ok_bits[..., None] >> _SHIFT[:, s]) & 1) == 1
    return choice_ok, entry, gone


def cover(required: Array, optional: Array) -> tuple[Array, Array]:
    """Whether some S, required ⊆ S ⊆ required ∪ optional, splits into melds, and the
    optional cards in some such S (`int32[..., 4]` words; `optional` disjoint from
    `required`). Exact when `covers_exactly(required | optional)`."""
    choice_ok, entry, gone = _choices(required, optional)
    # per suit and pattern, the optional ranks in its runs and in its groups
    use = (entry & FULL) | (optional[..., :, None] & gone[..., None, :])  # [..., 4, 8]
    # some good choice gives suit s pattern p (a count, as a product with a 0/1 matrix)
    taken = (choice_ok.astype(jnp.float32) @ _CHOSEN).reshape(use.shape) > 0  # [..., 4, 8]
    usable = jnp.where(taken, use, 0)
    usable = functools.reduce(jnp.bitwise_or, [usable[..., p] for p in range(8)])
    return choice_ok.any(-1), usable


def partitionable(words: Array) -> Array:
    """Whether the card set `words` (`int32[..., 4]`) splits exactly into melds (CQ-6)."""
    return _choices(words, jnp.zeros_like(words))[0].any(-1)


def covers_exactly(avail: np.ndarray) -> bool:
    """Whether `cover` is exact for available cards `avail` (at most SLOTS ranks with 3 or
    more cards); true of every set of at most 11 cards."""
    counts = [sum(int(w) >> r & 1 for w in avail) for r in range(NUM_RANKS)]
    return sum(c >= 3 for c in counts) <= SLOTS


# ---- conversions ---------------------------------------------------------------------------------
def words(cards: Array) -> Array:
    """bool[..., 40] (card ids 10*s + r) -> int32[..., 4] rank words."""
    bits = cards.reshape(*cards.shape[:-1], NUM_SUITS, NUM_RANKS).astype(jnp.int32)
    return (bits << jnp.arange(NUM_RANKS)).sum(-1).astype(jnp.int32)


def cards(words_: Array) -> Array:
    """int32[..., 4] rank words -> bool[..., 40]."""
    bits = (words_[..., :, None] >> jnp.arange(NUM_RANKS)) & 1
    return bits.reshape(*words_.shape[:-1], NUM_CARDS).astype(bool)


def words_of(ids) -> np.ndarray:
    """Card ids -> int32[4] rank words (host side, for tests and positions)."""
    out = np.zeros(NUM_SUITS, np.int32)
    for c in ids:
        out[int(c) // NUM_RANKS] |= 1 << (int(c) % NUM_RANKS)
    return out


def ids_of(words_) -> list[int]:
    """int32[4] rank words -> sorted card ids (host side)."""
    return [NUM_RANKS * s + r for s in range(NUM_SUITS) for r in range(NUM_RANKS)
            if int(words_[s]) >> r & 1]


# ---- throughput (`kanjax bench conquian`) -------------------------------------------------
def throughput(batch: int = 4096, min_seconds: float = 1.0, seed: int = 0) -> list[dict]:
    """Batched `cover` and `partitionable` calls per CPU-second on random 11-card sets split
    at random into required and optional cards (one jitted call per batch, one thread)."""
    rng = np.random.default_rng(seed)
    req, opt = np.zeros((2, batch, NUM_SUITS), np.int32)
    for i in range(batch):
        cards_ = rng.choice(NUM_CARDS, 11, replace=False)
        k = rng.integers(0, 12)
        req[i], opt[i] = words_of(cards_[:k]), words_of(cards_[k:])
    req, opt = jnp.asarray(req), jnp.asarray(opt)
    rows = []
    for name, fn, args in (("cover", cover, (req, opt)), ("partitionable", partitionable,
                                                        (req | opt,))):
        run = jax.jit(fn)
        jax.block_until_ready(run(*args))
        calls, cpu0 = 0, time.process_time()
        while time.process_time() - cpu0 < min_seconds:
            jax.block_until_ready(run(*args))
            calls += 1
        cpu = time.process_time() - cpu0
        rows.append({"kernel": f"meld.{name}", "batch": batch,
                     "checks_per_cpu_second": round(calls * batch / cpu)})
    return rows
