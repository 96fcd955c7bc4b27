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

`tt` is the tuple (head: int64[slots, 8], a row a slot: key words H_KEY.., leader |
generation << 8 at H_META, first entry at H_FIRST; pool: int64[2 * slots, 8], a row an
entry: next entry E_NEXT, k E_KS, pat E_PAT.., lo | hi << 8 | (best + 1) << 16 at E_VAL;
fill: int64[2] = entries used, generation). A row is one 64-byte cache line: a probe reads
a slot's row and each entry's row (DDS keeps an entry in a few words the same way).
"""

from __future__ import annotations

import numpy as np
from numba import njit

PROBES = 64  # head slots tried before a class is not stored
HOLDER_BITS = 3  # a card's holder in an entry's pattern: seats 0..7
H_KEY, H_META, H_FIRST = 0, 3, 4  # a head row's fields
E_NEXT, E_KS, E_PAT, E_VAL = 0, 1, 2, 6  # an entry row's fields
_ROW = 8  # int64 words a row: 64 bytes


def _rows(count: int) -> np.ndarray:
    """int64[count, 8] zeros whose rows start on 64-byte boundaries."""
    buf = np.zeros((count + 1) * _ROW, np.int64)
    skip = (-buf.ctypes.data % (8 * _ROW)) // 8
    return buf[skip:skip + count * _ROW].reshape(count, _ROW)


def new_table(bits: int) -> tuple[np.ndarray, ...]:
    head = _rows(1 << bits)
    head[:, H_META] = -1
    head[:, H_FIRST] = -1
    return head, _rows(1 << (bits + 1)), np.zeros(2, np.int64)


def next_generation(tt: tuple[np.ndarray, ...]) -> None:
    """Retire every entry (a new deal)."""
    tt[2][1] += 1
    tt[2][0] = 0


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
    hd = tt[0]
    gen = tt[2][1]
    mask = hd.shape[0] - 1
    i = _hash(key, leader) & mask
    want = leader | (gen << 8)
    for _ in range(PROBES):
        m = hd[i, H_META]
        if (m == want and hd[i, H_KEY] == key[0] and hd[i, H_KEY + 1] == key[1]
                and hd[i, H_KEY + 2] == key[2]):
            return i
        if (m >> 8) != gen:  # free (or of a retired generation)
            if not create:
                return -1
            hd[i, H_KEY], hd[i, H_KEY + 1], hd[i, H_KEY + 2] = key[0], key[1], key[2]
            hd[i, H_META] = want
            hd[i, H_FIRST] = -1
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
    pool = tt[1]
    e = tt[0][i, H_FIRST]
    while e >= 0:
        ks = pool[e, E_KS]
        match = True
        for s in range(4):
            k = (ks >> (4 * s)) & 15
            if (pat[s] & ((1 << (HOLDER_BITS * k)) - 1)) != pool[e, E_PAT + s]:
                match = False
                break
        if match:
            v = pool[e, E_VAL]
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
        e = pool[e, E_NEXT]


@njit(nogil=True, cache=True)
def entry_ks(tt, e):
    """Entry `e`'s k: the top cards of each suit (4 bits a suit) whose holders it rests on."""
    return tt[1][e, E_KS]


@njit(nogil=True, cache=True)
def store(tt, key, leader, ks, pat, flip, lf, ok, future, best):
    """Tighten (or add) the entry of the class (key, leader) for the top `ks` holders
    (`pat`, int64[4]): a lower bound `future` on the side's future value if `ok`, else an
    upper bound; `best` the move that cut the node off (-1: none). A full pool retires
    every entry (as DDS resets its table when it is full)."""
    hd, pool, fill = tt
    if fill[0] >= pool.shape[0]:
        fill[1] += 1
        fill[0] = 0
    i = head(tt, key, leader, True)
    if i < 0:
        return
    e = hd[i, H_FIRST]
    while e >= 0:
        if (pool[e, E_KS] == ks and pool[e, E_PAT] == pat[0] and pool[e, E_PAT + 1] == pat[1]
                and pool[e, E_PAT + 2] == pat[2] and pool[e, E_PAT + 3] == pat[3]):
            break
        e = pool[e, E_NEXT]
    if e >= 0:
        v = pool[e, E_VAL]
        slo, shi = v & 255, (v >> 8) & 255
        lo, hi = (lf - shi, lf - slo) if flip else (slo, shi)
        old_best = ((v >> 16) & 255) - 1
    else:
        e = fill[0]
        fill[0] += 1
        pool[e, E_KS] = ks
        for s in range(4):
            pool[e, E_PAT + s] = pat[s]
        pool[e, E_NEXT] = hd[i, H_FIRST]
        hd[i, H_FIRST] = e
        lo, hi, old_best = 0, lf, -1
    if ok:
        lo = max(lo, future)
    else:
        hi = min(hi, future)
    if flip:
        lo, hi = lf - hi, lf - lo
    b = best if best >= 0 else old_best
    pool[e, E_VAL] = lo | (hi << 8) | ((b + 1) << 16)
