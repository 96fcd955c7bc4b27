"""The multi-card search's transposition table (`solvers.cpu.multi`), with partition search
(Ginsberg's idea, as in DDS and `solvers.cpu.table`), probed and stored at tricks' starts.

A *class* is a key of CLASS_WORDS words: every hand's suit lengths, how many cards of each
nonzero point code each hand holds in each suit, the leader (and the side's `taken` where it
is keyed). A position's *codes* are, per effective suit, a 5-bit code for each card still in
play, strongest first (its holder, its points' code, whether it is equal in rank to the card
before it), SUIT_WORDS words a suit of 12 codes. An entry holds the number `k[s]` of top
cards of each suit whose codes its bounds rest on (`KS_BITS` bits a suit), those codes, and
the bounds on the side's future value; it answers for every position of its class whose top
`k[s]` codes of each suit are those and whose (k[s] + 1)-th card of each suit is strictly
below the k[s]-th (the equality bit of that code is part of the pattern).

`tt` is the tuple (head: int64[slots, 8], a row a class: its key words, the generation at
H_GEN, the first entry at H_FIRST; pool: int64[entries, E_LEN], a row an entry: the next
entry of its class, k, lo, hi, the best move (0: none), its class's key and the pattern
words; fill: int64[2] = entries used, generation). A full pool keeps about half its
entries, those of the most cards in play (`_evict`; only work is lost).
"""

from __future__ import annotations

import numpy as np
from numba import njit

CLASS_WORDS = 6
SUIT_WORDS = 4  # 48 codes a suit
CODES_A_WORD = 12
KS_BITS = 6
PROBES = 64  # head slots tried before a class is not stored
H_GEN, H_FIRST = CLASS_WORDS, CLASS_WORDS + 1
E_NEXT, E_KS, E_LO, E_HI, E_BEST, E_KEY = range(6)
E_PAT = E_KEY + CLASS_WORDS
E_LEN = E_PAT + 4 * SUIT_WORDS


def new_table(entries: int) -> tuple[np.ndarray, ...]:
    """An empty table of at most `entries` entries (head slots: a power of two, at least
    twice as many)."""
    slots = 1 << max(4, entries.bit_length())
    fill = np.array([0, 1], np.int64)  # generation 1: every slot (generation 0) free
    return np.zeros((slots, H_FIRST + 1), np.int64), np.zeros((entries, E_LEN), np.int64), fill


@njit(nogil=True, cache=True)
def size(tt):
    """The entries in use."""
    return tt[2][0]


@njit(nogil=True, cache=True)
def _hash(key):
    h = np.int64(0)
    for w in range(CLASS_WORDS):
        h = (h ^ key[w]) * -7046029254386353131
        h ^= (h >> 29) & 0x7FFFFFFFF
    return h


@njit(nogil=True, cache=True)
def _head(tt, key, create):
    """The head slot of class `key`; -1 if it has none (and `create` is off or no slot is
    free within PROBES)."""
    hd = tt[0]
    gen = tt[2][1]
    mask = hd.shape[0] - 1
    i = _hash(key) & mask
    for _ in range(PROBES):
        if hd[i, H_GEN] != gen:  # free (or of a retired generation)
            if not create:
                return -1
            hd[i, :CLASS_WORDS] = key
            hd[i, H_GEN] = gen
            hd[i, H_FIRST] = -1
            return i
        same = True
        for w in range(CLASS_WORDS):
            if hd[i, w] != key[w]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask
    return -1


@njit(nogil=True, cache=True)
def suit_k(ks, s):
    """Suit s's k in an entry's `ks`: how many of its top cards the entry rests on."""
    return (ks >> (KS_BITS * s)) & ((1 << KS_BITS) - 1)


@njit(nogil=True, cache=True)
def pattern_mask(k, w):
    """The bits of a suit's pattern word `w` an entry of `k` top cards compares: the codes
    of cards 0..k-1 and the equality bit of card k."""
    lo = CODES_A_WORD * w
    if k >= lo + CODES_A_WORD:
        return (np.int64(1) << (5 * CODES_A_WORD)) - 1
    if k < lo:
        return np.int64(0)
    n = k - lo
    return ((np.int64(1) << (5 * n)) - 1) | (np.int64(1) << (5 * n + 4))


@njit(nogil=True, cache=True)
def _matches(pool, e, codes):
    ks = pool[e, E_KS]
    for s in range(4):
        k = suit_k(ks, s)
        for w in range(SUIT_WORDS):
            m = pattern_mask(k, w)
            if m == 0:
                break
            if codes[SUIT_WORDS * s + w] & m != pool[e, E_PAT + SUIT_WORDS * s + w]:
                return False
    return True


@njit(nogil=True, cache=True)
def probe(tt, key, codes, a, b, rem, out):
    """The entries of class `key` that answer for a position (its `codes`): out = [lo, hi,
    entry of lo, entry of hi (-1: no entry), a best move (0: none)], the bounds on the
    side's future value (at first 0 and `rem`), read until lo >= b, hi <= a or lo == hi."""
    out[0], out[1], out[2], out[3], out[4] = 0, rem, -1, -1, 0
    i = _head(tt, key, False)
    if i < 0:
        return
    pool = tt[1]
    e = tt[0][i, H_FIRST]
    while e >= 0:
        if _matches(pool, e, codes):
            if pool[e, E_LO] > out[0]:
                out[0], out[2] = pool[e, E_LO], e
            if pool[e, E_HI] < out[1]:
                out[1], out[3] = pool[e, E_HI], e
            if out[4] == 0:
                out[4] = pool[e, E_BEST]
            if out[0] >= b or out[1] <= a or out[0] == out[1]:
                return
        e = pool[e, E_NEXT]


@njit(nogil=True, cache=True)
def store(tt, key, ks, codes, lo, hi, rem, best):
    """Tightens (or adds) the entry of class `key` for the top `ks` cards of `codes`: the
    side's future value is within [lo, hi] (`rem`: the most it can be); `best` the move
    that decided it (0: none)."""
    hd, pool, fill = tt
    if fill[0] >= pool.shape[0]:
        _evict(tt)
    i = _head(tt, key, True)
    if i < 0:
        return
    e = hd[i, H_FIRST]
    while e >= 0:
        if pool[e, E_KS] == ks and _matches(pool, e, codes):
            break
        e = pool[e, E_NEXT]
    if e < 0:
        e = fill[0]
        fill[0] += 1
        pool[e, E_KS] = ks
        for s in range(4):
            k = suit_k(ks, s)
            for w in range(SUIT_WORDS):
                j = SUIT_WORDS * s + w
                pool[e, E_PAT + j] = codes[j] & pattern_mask(k, w)
        pool[e, E_LO], pool[e, E_HI], pool[e, E_BEST] = 0, rem, 0
        pool[e, E_KEY:E_PAT] = key
        pool[e, E_NEXT] = hd[i, H_FIRST]
        hd[i, H_FIRST] = e
    pool[e, E_LO] = max(pool[e, E_LO], lo)
    pool[e, E_HI] = min(pool[e, E_HI], hi)
    if best:
        pool[e, E_BEST] = best


@njit(nogil=True, cache=True)
def _cards(pool, e):
    """The cards in play of entry `e`'s class (the sum of its suit lengths, `multi._keys`)."""
    out = 0
    for w in range(2):
        x = pool[e, E_KEY + w]
        for _ in range(8):
            out += x & 63
            x >>= 6
    return out


@njit(nogil=True, cache=True)
def _evict(tt):
    """Makes room in a full pool: keeps the entries of the most cards in play (the dearest
    to search again), about half of them, and links them to their classes afresh (a new
    generation of head slots)."""
    hd, pool, fill = tt
    hist = np.zeros(64 * 4 + 1, np.int64)
    for e in range(fill[0]):
        hist[_cards(pool, e)] += 1
    cut, dropped = 0, 0
    while dropped + hist[cut] <= fill[0] // 2:
        dropped += hist[cut]
        cut += 1
    if dropped < fill[0] // 4:  # the next size too: at least a quarter goes
        cut += 1
    fill[1] += 1
    j = 0
    for e in range(fill[0]):
        if _cards(pool, e) < cut:
            continue
        if j != e:
            pool[j, :] = pool[e, :]
        i = _head(tt, pool[j, E_KEY:E_PAT], True)
        if i >= 0:
            pool[j, E_NEXT] = hd[i, H_FIRST]
            hd[i, H_FIRST] = j
            j += 1
    fill[0] = j
