"""The compiled search's transposition table, with partition search (Ginsberg's idea, as in
DDS and `solvers.search.table`), probed and stored at tricks' starts.

A *class* is a key of three words and the leader: every hand's suit lengths (4 bits a seat
and suit: seats 0..3 in the first word, 4..5 in the second), the joker's holder, the goal's
slack (what the other side may still take, where it can exceed it) and the side's flip (a
goal's table entries are one side's only), and where the point cards lie among each suit's
live cards from the top (the third). A head slot per class (open addressing over 2^bits
slots) starts a chain of entries (a pool of 2^(bits + 1)), as many as the search stores: each
holds the number `k[s]` of top cards of each suit whose holders its result depends on (every
point card among them), those holders (3 bits a card from the top, a word a suit), bounds on
seat 0's side's future value and the best move (its suit and place from the top; a joker
move's code). An entry answers for every position of its class whose top `k[s]` cards of each
suit have those holders. A generation number retires a whole table at once.

`tt` is the tuple (head_key: int64[slots, 3], head_meta: leader | generation << 8,
head_first, next, k, pat: int64[pool, 4], val: lo | hi << 8 | (best + 1) << 16, fill:
int64[2] = entries used, generation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

PROBES = 64  # head slots tried before a class is not stored
HOLDER_BITS = 3  # a card's holder in an entry's pattern: seats 0..7


def new_table(bits: int) -> tuple[np.ndarray, ...]:
    heads, pool = 1 << bits, 1 << (bits + 1)
    return (np.zeros((heads, 3), np.int64), np.full(heads, -1, np.int64),
            np.full(heads, -1, np.int64), np.zeros(pool, np.int64), np.zeros(pool, np.int64),
            np.zeros((pool, 4), np.int64), np.zeros(pool, np.int64), np.zeros(2, np.int64))


def next_generation(tt: tuple[np.ndarray, ...]) -> None:
    """Retire every entry (a new deal)."""
    tt[7][1] += 1
    tt[7][0] = 0


@njit(nogil=True, cache=True)
def _hash(key, leader):
    h = (key[0] ^ (leader << 60)) * -7046029254386353131
    h = (h ^ ((h >> 29) & 0x7FFFFFFFF) ^ key[1]) * -4658895280553007687
    h = (h ^ ((h >> 31) & 0x1FFFFFFFF) ^ key[2]) * -7046029254386353131
    return h ^ ((h >> 29) & 0x7FFFFFFFF)


@njit(nogil=True, cache=True)
def head(tt, key, leader, create):
    """The head slot of the class (key, leader); -1 if it has none (and `create` is off or
    no slot is free within PROBES)."""
    hk, hm, hf = tt[0], tt[1], tt[2]
    gen = tt[7][1]
    mask = hm.shape[0] - 1
    i = _hash(key, leader) & mask
    want = leader | (gen << 8)
    for _ in range(PROBES):
        m = hm[i]
        if m == want and hk[i, 0] == key[0] and hk[i, 1] == key[1] and hk[i, 2] == key[2]:
            return i
        if (m >> 8) != gen:  # free (or of a retired generation)
            if not create:
                return -1
            hk[i, 0], hk[i, 1], hk[i, 2] = key[0], key[1], key[2]
            hm[i] = want
            hf[i] = -1
            return i
        i = (i + 1) & mask
    return -1


@njit(nogil=True, cache=True)
def probe(tt, key, leader, pat, flip, lf, need, out):
    """The class's entries that answer for the position (holders from the top `pat`): out =
    [lo, hi, entry of lo, entry of hi, best move (16 * suit + place from the top, a joker
    move's code; -1)], the bounds on the side's future value (`flip`: the side is not seat
    0's; `lf` the value still to take), read until one decides whether the side takes `need`
    more."""
    out[0], out[1], out[2], out[3], out[4] = 0, lf, -1, -1, -1
    i = head(tt, key, leader, False)
    if i < 0:
        return
    e = tt[2][i]
    nxt, ks_a, pt, val = tt[3], tt[4], tt[5], tt[6]
    while e >= 0:
        ks = ks_a[e]
        match = True
        for s in range(4):
            k = (ks >> (4 * s)) & 15
            if (pat[s] & ((1 << (HOLDER_BITS * k)) - 1)) != pt[e, s]:
                match = False
                break
        if match:
            v = val[e]
            slo, shi = v & 255, (v >> 8) & 255
            elo, ehi = (lf - shi, lf - slo) if flip else (slo, shi)
            if elo > out[0]:
                out[0], out[2] = elo, e
            if ehi < out[1]:
                out[1], out[3] = ehi, e
            if out[4] < 0:
                out[4] = ((v >> 16) & 255) - 1
            if out[0] >= need or out[1] < need:
                return
        e = nxt[e]


@njit(nogil=True, cache=True)
def store(tt, key, leader, ks, pat, flip, lf, ok, future, best):
    """Tighten (or add) the entry of the class (key, leader) for the top `ks` holders
    (`pat`, int64[4]): a lower bound `future` on the side's future value if `ok`, else an
    upper bound; `best` the move that cut the node off (-1: none). A full pool retires
    every entry (as DDS resets its table when it is full)."""
    nxt, ks_a, pt, val, fill = tt[3], tt[4], tt[5], tt[6], tt[7]
    if fill[0] >= nxt.shape[0]:
        fill[1] += 1
        fill[0] = 0
    i = head(tt, key, leader, True)
    if i < 0:
        return
    e = tt[2][i]
    while e >= 0:
        if (ks_a[e] == ks and pt[e, 0] == pat[0] and pt[e, 1] == pat[1]
                and pt[e, 2] == pat[2] and pt[e, 3] == pat[3]):
            break
        e = nxt[e]
    if e >= 0:
        v = val[e]
        slo, shi = v & 255, (v >> 8) & 255
        lo, hi = (lf - shi, lf - slo) if flip else (slo, shi)
        old_best = ((v >> 16) & 255) - 1
    else:
        e = fill[0]
        fill[0] += 1
        ks_a[e] = ks
        pt[e, :] = pat
        nxt[e] = tt[2][i]
        tt[2][i] = e
        lo, hi, old_best = 0, lf, -1
    if ok:
        lo = max(lo, future)
    else:
        hi = min(hi, future)
    if flip:
        lo, hi = lf - hi, lf - lo
    b = best if best >= 0 else old_best
    val[e] = lo | (hi << 8) | ((b + 1) << 16)
