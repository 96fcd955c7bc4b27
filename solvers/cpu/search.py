"""The compiled double-dummy search: one problem at a time, an explicit stack, no Python in the
loop. (numba's cache would hold a recursive search too, within the limit `multi._ab` states.)

The algorithm is the batched JAX search's (`solvers.search`), as DDS's: null-window searches
("does the side reach a total of `t`?") with fail-soft bounds, driven to the value by
`solve_group`. At a trick's start: the transposition table (partition search, `table`) and,
for plain tricks, the leader's quick tricks and a side's master trumps; at its second hand,
the sure tricks of his side (plain tricks at four seats). Rank equivalence in the move
generator (adjacent live cards of a hand worth the same points) and, once a card below every
rank that mattered so far (and every point card) has been tried, its suit's other such cards;
DDS's move ordering (`ordering`), the table's best move first and a killer move at each lead.

The rules are data (`config`, from `solvers.position.Rules`): a trick's value, point cards,
the joker (KAN-4: who holds it, when it may be played, KAN-25 / KAN-54; a lead names the led
suit, KAN-26; it wins the trick, KAN-27, but is the led suit's lowest in the last trick under
`joker_low_last`, KAN-54). A goal `(t, other_max)` is the value of a game that stops when the
other side's total passes `other_max` (the side's total then): it reaches `t` exactly when the
side can reach `t` at a trick's end with the other side within `other_max`.

Cards are codes `16 * suit + rank`, ranks 0.. rising in their suit (absolute ranks: the hands
are never squeezed; the table works in relative ranks, which it computes from the live cards);
the joker is `JK_CODE` following, `JK_CODE + 1 + s` leading naming suit s. `hands` is
int64[n, 4] of suit words, `jk` the joker's holder (-1: none). Seats `side[s] == 1` form the
side that maximises.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.cpu import bounds, ordering, table
from solvers.cpu.bits import closure, pop, top
from solvers.cpu.ordering import JK_CODE
from solvers.position import JOKER_PLAYS, Rules

MAX_DEPTH = 80  # cards of a deal plus the trick a root may start within
NEVER, FOLLOW, ANY, ONLY = range(4)  # JOKER_PLAYS' indices
NO_LIMIT = 1 << 20  # `other_max` of a value search
# config: trick value, the joker's points, joker_low_last, plain tricks, tricks a deal, the
# point cards' suit words, then the joker's plays a trick (JOKER_PLAYS' indices)
C_VALUE, C_JK_POINTS, C_LOW_LAST, C_PLAIN, C_TRICKS, C_POINTS, C_JOKER = 0, 1, 2, 3, 4, 5, 9


def config(rules: Rules, codes: np.ndarray) -> np.ndarray:
    """The search's rules data (int64): see C_*; `codes` maps card ids to card codes."""
    cfg = np.zeros(C_JOKER + rules.n_tricks, np.int64)
    cfg[C_VALUE] = rules.trick_value
    cfg[C_LOW_LAST] = rules.joker_low_last
    cfg[C_PLAIN] = rules.plain_tricks
    cfg[C_TRICKS] = rules.n_tricks
    for c in rules.ids:
        if codes[c] >= JK_CODE:
            cfg[C_JK_POINTS] = rules.points[c]
        elif rules.points[c]:
            cfg[C_POINTS + (codes[c] >> 4)] |= 1 << (codes[c] & 15)
    for k, plays in enumerate(rules.joker):
        cfg[C_JOKER + k] = JOKER_PLAYS.index(plays)
    return cfg


@njit(nogil=True, cache=True)
def led_of(code):
    """The suit a trick's first move leads: its suit, or the suit a joker lead names."""
    return (code & 15) - 1 if code >= JK_CODE else code >> 4


@njit(nogil=True, cache=True)
def strength(code, led, trump, low_joker):
    """A move's strength in a trick (the highest wins; 0 never wins): the joker above
    every card (`low_joker`: below the led suit's cards, above the others')."""
    if code >= JK_CODE:
        return ordering.LED_BASE - 1 if low_joker else ordering.JK_STRENGTH
    s = code >> 4
    if s == trump:
        return ordering.TRUMP_BASE + (code & 15)
    if s == led:
        return ordering.LED_BASE + (code & 15)
    return 0


@njit(nogil=True, cache=True)
def _best(mv, start, count, trump, low_joker):
    """(strength, index from `start`) of the best of the `count` moves mv[start:]."""
    led = led_of(mv[start])
    best_s = -1
    best_i = 0
    for i in range(count):
        st = strength(mv[start + i], led, trump, low_joker)
        if st > best_s:
            best_s, best_i = st, i
    return best_s, best_i


@njit(nogil=True, cache=True)
def _points(mv, start, count, cfg):
    """What the `count` moves mv[start:] are worth as a trick."""
    gain = cfg[C_VALUE]
    for i in range(count):
        m = mv[start + i]
        gain += cfg[C_JK_POINTS] if m >= JK_CODE else (cfg[C_POINTS + (m >> 4)] >> (m & 15)) & 1
    return gain


@njit(nogil=True, cache=True)
def _class_key(hands, n, jk, live, cfg, slack, flip, key):
    """The table's class of a trick's start (`table`): key = int64[3]; `slack`: what the
    other side may still take (-1: as much as is left)."""
    k0 = 0
    k1 = (jk + 1) << 32
    k2 = 0
    for s in range(4):
        for o in range(n):
            ln = pop(hands[o, s])
            if o < 4:
                k0 |= ln << (4 * (4 * o + s))
            else:
                k1 |= ln << (4 * (4 * (o - 4) + s))
        x = live[s] & cfg[C_POINTS + s]
        while x:
            b = x & -x
            x ^= b
            k2 |= 1 << (16 * s + pop(live[s] & ~((b << 1) - 1)))
    if slack >= 0:
        k1 |= ((slack + 1) << 36) | (flip << 44)
    key[0], key[1], key[2] = k0, k1, k2


@njit(nogil=True, cache=True)
def _pattern(hands, n, live, pat):
    """Per suit, the holders of its live cards from the top, 3 bits each (pat: int64[4])."""
    for s in range(4):
        p = 0
        lv = live[s]
        for o in range(1, n):
            x = hands[o, s]
            while x:
                b = x & -x
                x ^= b
                p |= o << (table.HOLDER_BITS * pop(lv & ~((b << 1) - 1)))
        pat[s] = p


@njit(nogil=True, cache=True)
def _points_key(live, cfg):
    """The class key's third word: where the live point cards lie among each suit's live
    cards from the top."""
    k2 = 0
    for s in range(4):
        x = live[s] & cfg[C_POINTS + s]
        while x:
            b = x & -x
            x ^= b
            k2 |= 1 << (16 * s + pop(live[s] & ~((b << 1) - 1)))
    return k2


@njit(nogil=True, cache=True)
def _next_start(mv, start, n, leader, jk, live0, base0, pat0, base, pat, lw):
    """A trick start's class key words 0-1 (`base`; without the slack) and holder pattern
    (`pat`) from the previous trick start's (`base0`, `pat0`, its cards in play `live0`):
    that trick's n cards mv[start:start + n], led by `leader`, leave their holders' lengths
    and the patterns; `jk` the joker's holder now; `lw`: int64[4] scratch."""
    k0, k1 = base0[0], base0[1]
    k1 = (k1 & ~(15 << 32)) | ((jk + 1) << 32)
    for s in range(4):
        pat[s] = pat0[s]
        lw[s] = live0[s]
    for i in range(n):
        m = mv[start + i]
        if m >= JK_CODE:
            continue
        o = (leader + i) % n
        s = m >> 4
        if o < 4:
            k0 -= 1 << (4 * (4 * o + s))
        else:
            k1 -= 1 << (4 * (4 * (o - 4) + s))
        b = 1 << (m & 15)
        sh = table.HOLDER_BITS * pop(lw[s] & ~((b << 1) - 1))
        p = pat[s]
        pat[s] = (p & ((1 << sh) - 1)) | ((p >> (sh + table.HOLDER_BITS)) << sh)
        lw[s] &= ~b
    base[0], base[1] = k0, k1


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
def search(hands, jk, n, trump, side, mv, root, lead0, taken0, other0, left0, done0, t,
           other_max, cfg, tt, killer, stats, limit):
    """Whether the side's total reaches `t` from the position: (ok, bound), the bound
    fail-soft (>= t when ok, < t otherwise). `mv[:root]` holds the current trick's moves,
    led by `lead0`; `taken0` / `other0` the side's / the other side's totals so far, `left0`
    what is still to take, `done0` the tricks complete; the game stops once the other
    side's total passes `other_max` (a goal; NO_LIMIT: a value). stats[0] += nodes,
    stats[1] += nodes at a trick's start; once stats[0] reaches `limit[0]` (int64[1]: a node
    budget, which another thread may lower to stop the search) the search gives up: (False,
    -1), storing nothing more."""
    lead = np.empty(MAX_DEPTH, np.int64)
    cnt = np.empty(MAX_DEPTH, np.int64)
    taken = np.empty(MAX_DEPTH, np.int64)
    other = np.empty(MAX_DEPTH, np.int64)
    left = np.empty(MAX_DEPTH, np.int64)
    done = np.empty(MAX_DEPTH, np.int64)
    cand = np.zeros((MAX_DEPTH, 5), np.int64)
    tried = np.zeros((MAX_DEPTH, 4), np.int64)
    racc = np.zeros((MAX_DEPTH, 4), np.int64)
    acc = np.zeros(MAX_DEPTH, np.int64)
    hint = np.full(MAX_DEPTH, -1, np.int64)
    cut = np.full(MAX_DEPTH, -1, np.int64)
    rel = np.zeros(4, np.int64)
    live = np.zeros(4, np.int64)
    pats = np.zeros((MAX_DEPTH, 4), np.int64)
    keys = np.zeros((MAX_DEPTH, 3), np.int64)
    base = np.zeros((MAX_DEPTH, 2), np.int64)  # a trick start's key words 0-1, no slack
    inplay = np.zeros((MAX_DEPTH, 4), np.int64)  # a trick start's cards in play
    top_s = np.zeros(MAX_DEPTH, np.int64)  # the trick's best strength before depth d
    top_i = np.zeros(MAX_DEPTH, np.int64)  # and its index in the trick
    gsum = np.zeros(MAX_DEPTH, np.int64)  # the points of the trick's cards before d
    lw = np.zeros(4, np.int64)
    qc = np.zeros(4, np.int64)
    spat = np.zeros(4, np.int64)
    pr = np.zeros(5, np.int64)
    scratch = np.zeros((3, 4), np.int64)
    flip = side[0] != 1
    pts = cfg[C_POINTS:C_POINTS + 4].copy()
    plain = cfg[C_PLAIN] == 1
    n_tricks = cfg[C_TRICKS]
    d = root
    for s in range(4):  # the root trick's start: the hands and the trick's cards
        w = 0
        for o in range(n):
            w |= hands[o, s]
        inplay[0, s] = w
    low0 = cfg[C_LOW_LAST] == 1 and done0 == n_tricks - 1
    for i in range(root):
        m = mv[i]
        if m < JK_CODE:
            inplay[0, m >> 4] |= 1 << (m & 15)
        gsum[root] += cfg[C_JK_POINTS] if m >= JK_CODE else (pts[m >> 4] >> (m & 15)) & 1
    if root > 0:
        top_s[root], top_i[root] = _best(mv, 0, root, trump, low0)
    lead[d], cnt[d], taken[d], other[d], left[d], done[d] = (lead0, root, taken0, other0,
                                                            left0, done0)
    ok = False
    bound = 0
    entering = True  # else resuming at d with a child's result (ok, bound, rel)
    decided = False
    by_children = False
    while True:
        if entering:
            if stats[0] >= limit[0]:
                return False, -1
            stats[0] += 1
            c = cnt[d]
            me = (lead[d] + c) % n
            tk, lf = taken[d], left[d]
            slack = other_max - other[d]
            decided = True
            by_children = False
            rel[:] = 0
            if slack < 0:
                ok, bound = False, tk
            elif tk >= t:
                ok, bound = True, tk
            elif tk + lf < t:
                ok, bound = False, tk + lf
            else:
                decided = False
                hint[d] = -1
                goal = slack < lf
                if c == 0 and jk < 0 and done[d] == n_tricks - 1:
                    stats[1] += 1
                    ok, bound = _last_trick(hands, n, trump, side, mv, d, lead[d], tk, t, cfg,
                                            rel)
                    decided = True
                elif c == 0:
                    stats[1] += 1
                    for s in range(4):
                        live[s] = inplay[d, s]
                    pat = pats[d]
                    if d >= root + n:  # from the previous trick's start
                        pd = d - n
                        _next_start(mv, pd, n, lead[pd], jk, inplay[pd], base[pd], pats[pd],
                                    base[d], pat, lw)
                    else:
                        _pattern(hands, n, live, pat)
                        _class_key(hands, n, jk, live, cfg, -1, flip, keys[d])
                        base[d, 0], base[d, 1] = keys[d, 0], keys[d, 1]
                    keys[d, 0] = base[d, 0]
                    keys[d, 1] = base[d, 1]
                    if goal:
                        keys[d, 1] |= ((slack + 1) << 36) | (flip << 44)
                    keys[d, 2] = _points_key(live, cfg)
                    table.probe(tt, keys[d], lead[d], pat, flip, lf, t - tk, pr)
                    lo_f, hi_f, lo_e, hi_e = pr[0], pr[1], pr[2], pr[3]
                    b = pr[4]
                    if b >= JK_CODE:
                        hint[d] = b
                    elif b >= 0:
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
                        ks = table.entry_ks(tt, hit)
                        for s in range(4):
                            rel[s] = _top_k(live[s], (ks >> (4 * s)) & 15)
                    if not decided and (plain or jk < 0):  # the joker gone
                        if plain:
                            qt = bounds.quick_tricks(hands, n, me, trump, side, qc, scratch)
                        else:
                            qt = bounds.cash_points(hands, n, me, trump, cfg[C_VALUE], pts, qc,
                                                    scratch)
                        if side[me] == 1 and tk + qt >= t:
                            ok, bound, decided = True, tk + qt, True
                        elif side[me] != 1 and tk + lf - qt < t:
                            ok, bound, decided = False, tk + lf - qt, True
                        if decided:
                            rel[:] = qc
                    if not decided and trump >= 0:
                        if plain:
                            holder, tops = bounds.top_trumps(hands, n, trump, side, qc)
                        else:
                            holder, tops = bounds.trump_points(hands, n, trump, side,
                                                               cfg[C_VALUE], pts, qc)
                        if not (plain or jk < 0 or side[jk] == side[holder]):
                            tops = 0  # an opponent's joker beats the master trumps
                        # a goal's side may need the other's total low when it is reached
                        if side[holder] == 1 and tk + tops >= t and not goal:
                            ok, bound, decided = True, tk + tops, True
                        elif side[holder] != 1 and tk + lf - tops < t:
                            ok, bound, decided = False, tk + lf - tops, True
                        if decided:
                            rel[:] = qc
                elif c == 1 and n == 4 and plain:
                    qt = bounds.second_hand(hands, me, mv[d - 1], trump, side, qc)
                    if qt > 0:
                        if side[me] == 1 and tk + qt >= t:
                            ok, bound, decided = True, tk + qt, True
                        elif side[me] != 1 and tk + lf - qt < t:
                            ok, bound, decided = False, tk + lf - qt, True
                        if decided:
                            rel[:] = qc
                if not decided:  # the candidates: legal, one of each rank-equivalent run
                    _candidates(hands, jk, n, me, mv, d, c, done[d], cfg, inplay[d - c],
                                cand[d])
                    tried[d, :] = 0
                    racc[d, :] = 0
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
                    r = racc[d, s] | pts[s]
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
                if cand[d, 0] | cand[d, 1] | cand[d, 2] | cand[d, 3] | cand[d, 4]:
                    low_joker = cfg[C_LOW_LAST] == 1 and done[d] == n_tricks - 1
                    if c == 0:
                        if n == 4 and plain:
                            m = ordering.lead4(hands, me, trump, cand[d])
                        else:
                            m = ordering.lead_any(hands, jk, n, me, trump, side, cand[d],
                                                  pts, low_joker)
                    else:
                        led = led_of(mv[d - c])
                        best_s = top_s[d]
                        best_p = (lead[d] + top_i[d]) % n
                        if n == 4 and plain:
                            m = ordering.follow4(hands, me, c, led, trump, side, best_s,
                                                 best_p, cand[d])
                        else:
                            m = ordering.follow_any(hands, jk, n, me, c, led, trump, side,
                                                    best_s, best_p, cand[d],
                                                    pts, low_joker)
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
                if s < 4:
                    tried[d, s] |= bit
                    hands[me, s] &= ~bit
                else:
                    jk = -1
                mv[d] = m
                low_joker = cfg[C_LOW_LAST] == 1 and done[d] == n_tricks - 1
                st = strength(m, led_of(mv[d - c]), trump, low_joker)
                if c == 0 or st > top_s[d]:
                    top_s[d + 1], top_i[d + 1] = st, c
                else:
                    top_s[d + 1], top_i[d + 1] = top_s[d], top_i[d]
                gsum[d + 1] = gsum[d] + (cfg[C_JK_POINTS] if m >= JK_CODE else (
                    pts[s] >> (m & 15)) & 1)
                if c + 1 == n:
                    w = (lead[d] + top_i[d + 1]) % n
                    gain = cfg[C_VALUE] + gsum[d + 1]
                    gsum[d + 1] = 0
                    for q in range(4):
                        inplay[d + 1, q] = inplay[d - c, q]
                    for i in range(d - c, d + 1):
                        if mv[i] < JK_CODE:
                            inplay[d + 1, mv[i] >> 4] &= ~(1 << (mv[i] & 15))
                    lead[d + 1], cnt[d + 1], done[d + 1] = w, 0, done[d] + 1
                    taken[d + 1] = taken[d] + gain * side[w]
                    other[d + 1] = other[d] + gain * (1 - side[w])
                    left[d + 1] = left[d] - gain
                else:
                    lead[d + 1], cnt[d + 1], done[d + 1] = lead[d], c + 1, done[d]
                    taken[d + 1], other[d + 1], left[d + 1] = taken[d], other[d], left[d]
                d += 1
                entering = True
                continue
        # decided: store (a trick's start decided by its children), then back to the parent
        if by_children and cnt[d] == 0:
            _store(flip, lead[d], taken[d], left[d], ok, bound, rel, cut[d], tt, inplay[d],
                   pats[d], keys[d], cfg, spat)
        if d == root:
            return ok, bound
        pd = d - 1
        m = mv[pd]
        pc = cnt[pd]
        mover = (lead[pd] + pc) % n
        if pc == n - 1:  # the move undone ended a trick: the ranks its result depended on
            start = pd - pc
            wi = top_i[d]
            cw = mv[start + wi]
            s = cw >> 4
            rival = False
            blockers = 0
            if cw < JK_CODE:  # the joker wins (or loses) whatever the cards' ranks
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
        if m >= JK_CODE:
            jk = mover
        else:
            hands[mover, m >> 4] |= 1 << (m & 15)
        d = pd
        entering = False


@njit(nogil=True, cache=True)
def _last_trick(hands, n, trump, side, mv, d, leader, tk, t, cfg, rel):
    """(ok, bound) of the last trick's start without the joker: every hand's one card is
    played (into mv[d:d + n]); `rel`: the ranks the result depends on (the winner's, where
    it beat a card of its suit)."""
    for k in range(n):
        o = (leader + k) % n
        for s in range(4):
            if hands[o, s]:
                mv[d + k] = 16 * s + top(hands[o, s])
                break
    _, wi = _best(mv, d, n, trump, False)
    gain = _points(mv, d, n, cfg)
    final = tk + gain if side[(leader + wi) % n] == 1 else tk  # the other side's: it stops
    cw = mv[d + wi]  # or ends the game, the side's total as it was
    s = cw >> 4
    blockers = 0
    for k in range(n):
        if k != wi and mv[d + k] >> 4 == s:
            blockers |= 1 << (mv[d + k] & 15)
    if blockers:
        r = cw & 15
        rel[s] = closure(1 << (top(blockers & ((1 << r) - 1)) + 1))
    return final >= t, final


@njit(nogil=True, cache=True)
def legal(hands, jk, n, me, mv, d, c, done, cfg, cand):
    """cand (int64[5]): `me`'s legal moves in trick `done + 1`, `c` moves in it before his
    (mv[d - c:d]): follow suit (KAN-24); the joker as its trick allows (KAN-25, KAN-54),
    led naming any suit (KAN-26)."""
    led = led_of(mv[d - c]) if c > 0 else -1
    plays = cfg[C_JOKER + done] if jk == me else NEVER
    cand[4] = 0
    if plays == ONLY or (plays == ANY or plays == FOLLOW and c > 0):
        cand[4] = 0b11110 if c == 0 else 1  # a lead naming each suit, or following
    follow = c > 0 and hands[me, led] != 0
    for s in range(4):
        cand[s] = 0 if plays == ONLY or (follow and s != led) else hands[me, s]


@njit(nogil=True, cache=True)
def _candidates(hands, jk, n, me, mv, d, c, done, cfg, inplay, cand):
    """`legal`'s moves, one of each run of the mover's cards adjacent among the live ones
    (`inplay`: held, or in the trick: the cards in play at the trick's start) and worth the
    same points."""
    legal(hands, jk, n, me, mv, d, c, done, cfg, cand)
    for s in range(4):
        hw = cand[s]
        if hw == 0:
            continue
        lv = inplay[s]
        pts = cfg[C_POINTS + s]
        keep = hw
        x = lv
        prev_mine = False
        prev = 0
        while x:
            bit = x & -x
            x ^= bit
            mine = (hw & bit) != 0
            if mine and prev_mine and ((pts & bit) != 0) == ((pts & prev) != 0):
                keep &= ~prev
            prev_mine, prev = mine, bit
        cand[s] = keep


@njit(nogil=True, cache=True)
def _store(flip, leader, tk, lf, ok, bound, rel, best, tt, live, pat, key, cfg, out):
    """The node's result for every position of its class (`key`: suit lengths, joker,
    points, slack) with its leader and the holders of the ranks `rel` and of every point
    card (`table.store`; `pat` the holders from the top; `out`: int64[4] scratch), with
    the move that cut it off; `live`: the cards in play."""
    ks = 0
    for s in range(4):
        k = pop(closure(rel[s] | (live[s] & cfg[C_POINTS + s])) & live[s])
        ks |= k << (4 * s)
        out[s] = pat[s] & ((1 << (table.HOLDER_BITS * k)) - 1)
    b = -1
    if best >= JK_CODE:
        b = best
    elif best >= 0:
        s = best >> 4
        b = 16 * s + pop(live[s] >> ((best & 15) + 1))
    table.store(tt, key, leader, ks, out, flip, lf, ok, min(max(bound - tk, 0), lf), b)


@njit(nogil=True, cache=True)
def solve_group(hands, jk, n, trump, side, trick, trick_len, leader, taken, other, left,
                done, other_max, cfg, tt, limit, values, nodes):
    """The values of problems of one deal and trump (their table shared): problem i has
    hands[i], the joker's holder jk[i], side[i], the current trick trick[i, :trick_len[i]]
    led by leader[i], the sides' totals taken[i] and other[i], left[i] still to take and
    done[i] tricks complete. A value problem (other_max[i] = NO_LIMIT) is driven to its
    value by null-window searches (MTD(f): the first target halfway, or the last problem's
    value with as much left, then just beyond the bound the last search gave; the table
    keeps the work between them). A goal problem (values[i] = its side_min, other_max[i] <
    NO_LIMIT) is one search: values[i] becomes 1 if the side reaches it, else 0. A problem
    given up after `limit[0]` nodes (`search`'s) gets -1. nodes[i, 0..1]: its nodes and
    nodes at a trick's start."""
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
        if other_max[i] < NO_LIMIT:
            ok, bound = search(h, jk[i], n, trump, side[i], mv, root, leader[i], taken[i],
                               other[i], left[i], done[i], values[i], other_max[i], cfg, tt,
                               killer, stats, limit)
            values[i] = -1 if bound < 0 else (1 if ok else 0)
        else:
            lo, hi = taken[i], taken[i] + left[i]
            t = (lo + hi + 1) // 2
            if i > 0 and left[i] == left[i - 1] and other_max[i - 1] == NO_LIMIT and values[
                    i - 1] >= 0:
                future = values[i - 1] - taken[i - 1]  # start from the last problem's value
                if side[i, 0] != side[i - 1, 0]:
                    future = left[i] - future
                t = min(max(taken[i] + future, lo + 1), hi)
            while lo < hi:
                ok, bound = search(h, jk[i], n, trump, side[i], mv, root, leader[i], taken[i],
                                   other[i], left[i], done[i], t, NO_LIMIT, cfg, tt, killer,
                                   stats, limit)
                if bound < 0:
                    lo = hi = -1
                elif ok:
                    lo = max(lo, min(bound, hi))
                    t = lo + 1
                else:
                    hi = min(hi, max(bound, lo))
                    t = hi
            values[i] = lo
        nodes[i, 0] = stats[0]
        nodes[i, 1] = stats[1]
