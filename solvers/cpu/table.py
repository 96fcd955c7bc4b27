"""The compiled search's transposition table, with partition search (Ginsberg's idea, as in
DDS and `solvers.search.table`), probed and stored at tricks' starts.

A *class* is every hand's suit lengths (16 nibbles: up to 4 seats) and the leader; a head
slot per class (open addressing over 2^bits slots) starts a chain of entries (a pool of
2^(bits + 1)), as many as the search stores: each holds the number `k[s]` of top cards of
each suit whose holders its result depends on, those holders (2 bits a card from the top,
two suits a word), bounds on seat 0's side's future tricks and the best move (its suit and
place from the top). An entry answers for every position of its class whose top `k[s]` cards
of each suit have those holders. A generation number retires a whole table at once.

`tt` is the tuple (head_key, head_meta: leader | generation << 8, head_first, next, k, pat,
val: lo | hi << 8 | (best + 1) << 16, fill: int64[2] = entries used, generation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

PROBES = 64  # head slots tried before a class is not stored


def new_table(bits: int) -> tuple[np.ndarray, ...]:
    heads, pool = 1 << bits, 1 << (bits + 1)
    return (np.zeros(heads, np.int64), np.full(heads, -1, np.int64),
            np.full(heads, -1, np.int64), np.zeros(pool, np.int64), np.zeros(pool, np.int64),
            np.zeros((pool, 2), np.int64), np.zeros(pool, np.int64), np.zeros(2, np.int64))


def next_generation(tt: tuple[np.ndarray, ...]) -> None:
    """Retire every entry (a new deal)."""
    tt[7][1] += 1
    tt[7][0] = 0


@njit(nogil=True, cache=True)
def _hash(key, leader):
    h = (key ^ (leader << 60)) * -7046029254386353131
    return h ^ ((h >> 29) & 0x7FFFFFFFF)


@njit(nogil=True, cache=True)
def head(tt, key, leader, create):
    """The head slot of the class (key, leader); -1 if it has none (and `create` is off or
    no slot is free within PROBES)."""
    hk, hm, hf = tt[0], tt[1], tt[2]
    gen = tt[7][1]
    mask = hk.shape[0] - 1
    i = _hash(key, leader) & mask
    want = leader | (gen << 8)
    for _ in range(PROBES):
        m = hm[i]
        if m == want and hk[i] == key:
            return i
        if (m >> 8) != gen:  # free (or of a retired generation)
            if not create:
                return -1
            hk[i] = key
            hm[i] = want
            hf[i] = -1
            return i
        i = (i + 1) & mask
    return -1


@njit(nogil=True, cache=True)
def probe(tt, key, leader, pat, flip, lf, need, out):
    """The class's entries that answer for the position (holders from the top `pat`): out =
    [lo, hi, entry of lo, entry of hi, best move (16 * suit + place from the top; -1)], the
    bounds on the side's future tricks (`flip`: the side is not seat 0's; `lf` tricks
    left), read until one decides whether the side takes `need` more."""
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
            want = (pt[e, s >> 1] >> (32 * (s & 1))) & 0xFFFFFFFF
            if (pat[s] & ((1 << (2 * k)) - 1)) != want:
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
def store(tt, key, leader, ks, p0, p1, flip, lf, ok, future, best):
    """Tighten (or add) the entry of the class (key, leader) for the top `ks` holders
    (p0, p1): a lower bound `future` on the side's future tricks if `ok`, else an upper
    bound; `best` the move that cut the node off (-1: none)."""
    i = head(tt, key, leader, True)
    if i < 0:
        return
    nxt, ks_a, pt, val, fill = tt[3], tt[4], tt[5], tt[6], tt[7]
    e = tt[2][i]
    while e >= 0:
        if ks_a[e] == ks and pt[e, 0] == p0 and pt[e, 1] == p1:
            break
        e = nxt[e]
    if e >= 0:
        v = val[e]
        slo, shi = v & 255, (v >> 8) & 255
        lo, hi = (lf - shi, lf - slo) if flip else (slo, shi)
        old_best = ((v >> 16) & 255) - 1
    else:
        if fill[0] >= nxt.shape[0]:
            return  # full: the deal's search goes on without storing more
        e = fill[0]
        fill[0] += 1
        ks_a[e] = ks
        pt[e, 0] = p0
        pt[e, 1] = p1
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
