"""The compiled double-dummy search of plain tricks: one problem at a time, an explicit stack
(numba cannot load a recursive function back from its cache), no Python in the loop.

The algorithm is the batched JAX search's (`solvers.search`), as DDS's: null-window searches
("does the side reach a total of `t`?") with fail-soft bounds, driven to the value by
`solve_group`. At a trick's start: the transposition table (partition search, `table`), the
leader's quick tricks and a side's master trumps; at its second hand, the sure tricks of his
side (four seats). Rank equivalence in the move generator and, once a card below every rank
that mattered so far has been tried, its suit's other such cards; DDS's move ordering
(`ordering`), the table's best move first and a killer move at each lead.

Cards are codes `16 * suit + rank`, ranks 0.. rising in their suit (absolute ranks: the hands
are never squeezed; the table works in relative ranks, which it computes from the live cards).
`hands` is int64[n, 4] of suit words. Seats `side[s] == 1` form the side that maximises.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.cpu import bounds, ordering, table
from solvers.cpu.bits import closure, pop, top

MAX_DEPTH = 64  # cards of a deal plus the trick a root may start within


@njit(nogil=True, cache=True)
def _strength(code, led, trump):
    s = code >> 4
    if s == trump:
        return ordering.TRUMP_BASE + (code & 15)
    if s == led:
        return ordering.LED_BASE + (code & 15)
    return 0


@njit(nogil=True, cache=True)
def _best(mv, start, count, trump):
    """(strength, index from `start`) of the best of the `count` cards mv[start:]."""
    led = mv[start] >> 4
    best_s = -1
    best_i = 0
    for i in range(count):
        st = _strength(mv[start + i], led, trump)
        if st > best_s:
            best_s, best_i = st, i
    return best_s, best_i


@njit(nogil=True, cache=True)
def _pattern(hands, n, live, pat):
    """Per suit, the holders of its live cards from the top, 2 bits each (pat: int64[4])."""
    for s in range(4):
        p = 0
        lv = live[s]
        for o in range(1, n):
            x = hands[o, s]
            while x:
                b = x & -x
                x ^= b
                p |= o << (2 * pop(lv & ~((b << 1) - 1)))
        pat[s] = p


@njit(nogil=True, cache=True)
def _top_k(word, k):
    """The closure of the top `k` cards of `word` (0 for k = 0)."""
    if k == 0:
        return 0
    x = word
    b = 0
    for _ in range(k):
        b = top(x)
        x ^= 1 << b
    return closure(1 << b)


@njit(nogil=True, cache=True)
def search(hands, n, trump, side, mv, root, lead0, taken0, left0, t, tt, killer, stats):
    """Whether the side's final total reaches `t` from the position: (ok, bound), the bound
    fail-soft (>= t when ok, < t otherwise). `mv[:root]` holds the current trick's cards,
    led by `lead0`; `taken0` the side's total so far, `left0` the tricks not yet complete.
    stats[0] += nodes, stats[1] += nodes at a trick's start."""
    lead = np.empty(MAX_DEPTH, np.int64)
    cnt = np.empty(MAX_DEPTH, np.int64)
    taken = np.empty(MAX_DEPTH, np.int64)
    left = np.empty(MAX_DEPTH, np.int64)
    cand = np.zeros((MAX_DEPTH, 4), np.int64)
    tried = np.zeros((MAX_DEPTH, 4), np.int64)
    racc = np.zeros((MAX_DEPTH, 4), np.int64)
    acc = np.zeros(MAX_DEPTH, np.int64)
    hint = np.full(MAX_DEPTH, -1, np.int64)
    cut = np.full(MAX_DEPTH, -1, np.int64)
    rel = np.zeros(4, np.int64)
    live = np.zeros(4, np.int64)
    pats = np.zeros((MAX_DEPTH, 4), np.int64)
    keys = np.zeros(MAX_DEPTH, np.int64)
    qc = np.zeros(4, np.int64)
    pr = np.zeros(5, np.int64)
    scratch = np.zeros((3, 4), np.int64)
    flip = side[0] != 1
    d = root
    lead[d], cnt[d], taken[d], left[d] = lead0, root, taken0, left0
    ok = False
    bound = 0
    entering = True  # else resuming at d with a child's result (ok, bound, rel)
    decided = False
    by_children = False
    while True:
        if entering:
            stats[0] += 1
            c = cnt[d]
            me = (lead[d] + c) % n
            tk, lf = taken[d], left[d]
            decided = True
            by_children = False
            rel[:] = 0
            if tk >= t:
                ok, bound = True, tk
            elif tk + lf < t:
                ok, bound = False, tk + lf
            else:
                decided = False
                hint[d] = -1
                if c == 0:
                    stats[1] += 1
                    key = 0
                    for s in range(4):
                        w = 0
                        for o in range(n):
                            w |= hands[o, s]
                            key |= pop(hands[o, s]) << (4 * (4 * o + s))
                        live[s] = w
                    pat = pats[d]
                    _pattern(hands, n, live, pat)
                    keys[d] = key
                    table.probe(tt, key, lead[d], pat, flip, lf, t - tk, pr)
                    lo_f, hi_f, lo_e, hi_e = pr[0], pr[1], pr[2], pr[3]
                    b = pr[4]
                    if b >= 0:
                        s = b >> 4
                        word = live[s]
                        for _ in range(b & 15):
                            word ^= 1 << top(word)
                        if word:
                            hint[d] = 16 * s + top(word)
                    hit = -1
                    if tk + lo_f >= t:
                        ok, bound, hit, decided = True, tk + lo_f, lo_e, True
                    elif tk + hi_f < t:
                        ok, bound, hit, decided = False, tk + hi_f, hi_e, True
                    if hit >= 0:
                        ks = tt[4][hit]
                        for s in range(4):
                            rel[s] = _top_k(live[s], (ks >> (4 * s)) & 15)
                    if not decided:
                        qt = bounds.quick_tricks(hands, n, me, trump, side, qc, scratch)
                        if side[me] == 1 and tk + qt >= t:
                            ok, bound, decided = True, tk + qt, True
                        elif side[me] != 1 and tk + lf - qt < t:
                            ok, bound, decided = False, tk + lf - qt, True
                        if decided:
                            rel[:] = qc
                    if not decided and trump >= 0:
                        holder, tops = bounds.top_trumps(hands, n, trump, side, qc)
                        if side[holder] == 1 and tk + tops >= t:
                            ok, bound, decided = True, tk + tops, True
                        elif side[holder] != 1 and tk + lf - tops < t:
                            ok, bound, decided = False, tk + lf - tops, True
                        if decided:
                            rel[:] = qc
                elif c == 1 and n == 4:
                    qt = bounds.second_hand(hands, me, mv[d - 1], trump, side, qc)
                    if qt > 0:
                        if side[me] == 1 and tk + qt >= t:
                            ok, bound, decided = True, tk + qt, True
                        elif side[me] != 1 and tk + lf - qt < t:
                            ok, bound, decided = False, tk + lf - qt, True
                        if decided:
                            rel[:] = qc
                if not decided:  # the candidates: legal, one of each rank-equivalent run
                    led = mv[d - c] >> 4 if c > 0 else -1
                    follow = c > 0 and hands[me, led] != 0
                    tried[d, :] = 0
                    racc[d, :] = 0
                    for s in range(4):
                        hw = hands[me, s]
                        if hw == 0 or (follow and s != led):
                            cand[d, s] = 0
                            continue
                        lv = 0
                        for o in range(n):
                            lv |= hands[o, s]
                        for i in range(c):
                            if mv[d - c + i] >> 4 == s:
                                lv |= 1 << (mv[d - c + i] & 15)
                        keep = hw
                        x = lv
                        prev_mine = False
                        prev = 0
                        while x:
                            bit = x & -x
                            x ^= bit
                            mine = (hw & bit) != 0
                            if mine and prev_mine:
                                keep &= ~prev
                            prev_mine, prev = mine, bit
                        cand[d, s] = keep
                    acc[d] = -1 if side[me] == 1 else 1000
                    cut[d] = -1
        else:
            # the child's result is in: a cut-off, else one more child tried
            c = cnt[d]
            me = (lead[d] + c) % n
            is_or = side[me] == 1
            decided = False
            by_children = True
            if ok == is_or:
                decided = True
                cut[d] = mv[d]
                if c == 0:
                    killer[d] = mv[d]
            else:
                for s in range(4):
                    racc[d, s] |= rel[s]
                    r = racc[d, s]
                    below = 0xFFFF if r == 0 else (r & -r) - 1
                    if tried[d, s] & below:
                        cand[d, s] &= ~below
                acc[d] = max(acc[d], bound) if is_or else min(acc[d], bound)
        if not decided:  # the next move, or the node is decided by its children
            c = cnt[d]
            me = (lead[d] + c) % n
            m = -1
            hm = hint[d]
            if hm >= 0 and (cand[d, hm >> 4] >> (hm & 15)) & 1:
                m = hm
            hint[d] = -1
            if m < 0 and c == 0:
                km = killer[d]
                if km >= 0 and (cand[d, km >> 4] >> (km & 15)) & 1:
                    m = km
            if m < 0:
                if cand[d, 0] | cand[d, 1] | cand[d, 2] | cand[d, 3]:
                    if c == 0:
                        if n == 4:
                            m = ordering.lead4(hands, me, trump, cand[d])
                        else:
                            m = ordering.lead_any(hands, n, me, cand[d])
                    else:
                        led = mv[d - c] >> 4
                        best_s, best_i = _best(mv, d - c, c, trump)
                        best_p = (lead[d] + best_i) % n
                        if n == 4:
                            m = ordering.follow4(hands, me, c, led, trump, side, best_s,
                                                 best_p, cand[d])
                        else:
                            m = ordering.follow_any(hands, n, me, led, trump, side, best_s,
                                                    best_p, cand[d])
            if m < 0:
                is_or = side[me] == 1
                ok = not is_or
                bound = acc[d]
                rel[:] = racc[d]
                decided = True
                by_children = True
            else:  # play m, enter the child
                s, bit = m >> 4, 1 << (m & 15)
                cand[d, s] &= ~bit
                tried[d, s] |= bit
                hands[me, s] &= ~bit
                mv[d] = m
                if c + 1 == n:
                    _, wi = _best(mv, d - c, n, trump)
                    w = (lead[d] + wi) % n
                    lead[d + 1], cnt[d + 1] = w, 0
                    taken[d + 1], left[d + 1] = taken[d] + side[w], left[d] - 1
                else:
                    lead[d + 1], cnt[d + 1] = lead[d], c + 1
                    taken[d + 1], left[d + 1] = taken[d], left[d]
                d += 1
                entering = True
                continue
        # decided: store (a trick's start decided by its children), then back to the parent
        if by_children and cnt[d] == 0:
            _store(hands, n, flip, lead[d], taken[d], left[d], ok, bound, rel, cut[d], tt, live,
                   pats[d], keys[d])
        if d == root:
            return ok, bound
        pd = d - 1
        m = mv[pd]
        pc = cnt[pd]
        mover = (lead[pd] + pc) % n
        if pc == n - 1:  # the move undone ended a trick: the ranks its result depended on
            start = pd - pc
            _, wi = _best(mv, start, n, trump)
            cw = mv[start + wi]
            s = cw >> 4
            rival = False
            blockers = 0
            for i in range(n):
                if i != wi and mv[start + i] >> 4 == s:
                    rival = True
                    blockers |= 1 << (mv[start + i] & 15)
            if rival:
                ws = (lead[pd] + wi) % n
                for o in range(n):
                    if o != ws:
                        blockers |= hands[o, s]
                r = cw & 15
                below = (1 << r) - 1
                lo = top(blockers & below) + 1
                rel[s] |= (2 << r) - (1 << lo)
            for q in range(4):
                rel[q] = closure(rel[q])
        hands[mover, m >> 4] |= 1 << (m & 15)
        d = pd
        entering = False


@njit(nogil=True, cache=True)
def _store(hands, n, flip, leader, tk, lf, ok, bound, rel, best, tt, live, pat, key):
    """The node's result for every position with its suit lengths (`key`), leader and
    holders of the ranks `rel` (`table.store`; `pat` the holders from the top), with the move
    that cut it off."""
    for s in range(4):
        w = 0
        for o in range(n):
            w |= hands[o, s]
        live[s] = w
    ks = 0
    p0 = 0
    p1 = 0
    for s in range(4):
        k = pop(rel[s] & live[s])
        ks |= k << (4 * s)
        p = pat[s] & ((1 << (2 * k)) - 1)
        if s < 2:
            p0 |= p << (32 * s)
        else:
            p1 |= p << (32 * (s - 2))
    b = -1
    if best >= 0:
        s = best >> 4
        b = 16 * s + pop(live[s] >> ((best & 15) + 1))
    table.store(tt, key, leader, ks, p0, p1, flip, lf, ok, min(max(bound - tk, 0), lf), b)


@njit(nogil=True, cache=True)
def solve_group(hands, n, trump, side, trick, trick_len, leader, taken, left, tt, values,
                nodes):
    """The values of problems of one deal and trump (their table shared): problem i has
    hands[i], side[i], the current trick trick[i, :trick_len[i]] led by leader[i], the side's
    total taken[i] and left[i] tricks not yet complete. Each is driven to its value by
    null-window searches (MTD(f): the first target halfway, or the last problem's value with
    as many tricks left, then just beyond the bound the last search gave; the table keeps the
    work between them). values[i] is its value, nodes[i, 0..1] its
    nodes and nodes at a trick's start."""
    mv = np.zeros(MAX_DEPTH, np.int64)
    killer = np.full(MAX_DEPTH, -1, np.int64)
    stats = np.zeros(2, np.int64)
    for i in range(hands.shape[0]):
        h = hands[i].copy()
        root = trick_len[i]
        for j in range(root):
            mv[j] = trick[i, j]
        killer[:] = -1
        stats[:] = 0
        lo, hi = taken[i], taken[i] + left[i]
        t = (lo + hi + 1) // 2
        if i > 0 and left[i] == left[i - 1]:  # start from the last problem's value
            future = values[i - 1] - taken[i - 1]
            if side[i, 0] != side[i - 1, 0]:
                future = left[i] - future
            t = min(max(taken[i] + future, lo + 1), hi)
        while lo < hi:
            ok, bound = search(h, n, trump, side[i], mv, root, leader[i], taken[i], left[i],
                               t, tt, killer, stats)
            if ok:
                lo = max(lo, min(bound, hi))
                t = lo + 1
            else:
                hi = min(hi, max(bound, lo))
                t = hi
        values[i] = lo
        nodes[i, 0] = stats[0]
        nodes[i, 1] = stats[1]
