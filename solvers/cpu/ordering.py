"""Move ordering of the compiled search: the move to try next of a node's candidates
(`cand`: int64[4] suit words), as a card code `16 * suit + rank`.

Plain tricks at four seats: DDS's weights, as `solvers.search.ordering.plain_leads` /
`plain_follow` (which have the reasoning). Other seat counts, point cards and the joker
(`lead_any`, `follow_any`): cash sure winners, give points to the side's trick, keep them
from the other side's.
"""

from __future__ import annotations

from numba import njit

from solvers.cpu.bits import low, pop, top

TRUMP_BASE, LED_BASE = 32, 16  # a card's strength in a trick: base + rank (0: cannot win)
JK_STRENGTH = 48  # the joker's, above every card (KAN-27)
JK_CODE = 64  # `search.JK_CODE`: the joker following; + 1 + s: leading, naming suit s


@njit(nogil=True, cache=True)
def _holder(hands, me, word):
    """Which of me, LHO, partner, RHO (0..3) holds the top card of `word` (-1: none)."""
    if word == 0:
        return -1
    bit = 1 << top(word)
    for i in range(4):
        if hands[(me + i) % 4] & bit:
            return i
    return -1


@njit(nogil=True, cache=True)
def lead4(hands, me, trump, cand):
    best_score = -100000
    best = -1
    for s in range(4):
        c = cand[s]
        if c == 0:
            continue
        h0 = hands[me, s]
        h1 = hands[(me + 1) % 4, s]
        h2 = hands[(me + 2) % 4, s]
        h3 = hands[(me + 3) % 4, s]
        col = hands[:, s]
        lens1, lens2, lens3 = pop(h1), pop(h2), pop(h3)
        live = h0 | h1 | h2 | h3
        a = _holder(col, me, live)
        rest = live & ~(1 << top(live))
        b = _holder(col, me, rest)
        rest2 = rest & ~(1 << top(rest)) if rest else 0
        c3 = _holder(col, me, rest2)
        opp_ruff = False
        pd_ruff = False
        if trump >= 0 and s != trump:
            opp_ruff = (lens1 == 0 and hands[(me + 1) % 4, trump] != 0) or (
                lens3 == 0 and hands[(me + 3) % 4, trump] != 0)
            pd_ruff = lens2 == 0 and hands[(me + 2) % 4, trump] != 0 and not opp_ruff
        replies = (4 if lens1 == 0 else lens1) + (4 if lens3 == 0 else lens3)
        ours = a == 0 or a == 2
        if ours:
            score = 60 + 20 * (b == 1 and lens1 > 1) - 5 * (b == 3 and lens3 > 1)
        else:
            score = (20 - 10 * ((a == 3 or b == 3) and lens3 != 1)
                     + 30 * (a == 1 and b == 2 and lens2 > 1)
                     + 35 * (b == 2 and c3 == 2)
                     + 25 * (((b == 0 and c3 == 2) or (b == 2 and c3 == 0)) and lens2 > 1)
                     + 25 * ((a == 1 and lens1 == 1) or (a == 3 and lens3 == 1)))
        score += -32 * replies - 40 * opp_ruff + 40 * pd_ruff + 20 * (s == trump and ours)
        if score > best_score:
            high = a == 0 or (not ours and b == 0 and c3 == 0)
            best_score = score
            best = 16 * s + (top(c) if high else low(c))
    return best


@njit(nogil=True, cache=True)
def _threat(hands, seat, led, trump):
    led_base = TRUMP_BASE if led == trump else LED_BASE
    if hands[seat, led]:
        return led_base + top(hands[seat, led])
    if trump >= 0 and hands[seat, trump]:
        return TRUMP_BASE + top(hands[seat, trump])
    return 0


@njit(nogil=True, cache=True)
def _stronger(c, base, x):
    """The cards of `c` (one suit word of strength base + rank) stronger than `x`."""
    if base == 0:
        return 0
    need = x - base + 1  # the lowest rank that beats x
    if need <= 0:
        return c
    if need > 15:
        return 0
    return c & ~((1 << need) - 1)


@njit(nogil=True, cache=True)
def follow4(hands, me, count, led, trump, side, best_s, best_p, cand):
    """`count`: the cards in the trick before this one; `best_s`, `best_p`: the trick's
    best strength so far and its player."""
    t1 = _threat(hands, (me + 1) % 4, led, trump) if count <= 2 else -1
    t2 = _threat(hands, (me + 2) % 4, led, trump) if count <= 1 else -1
    t3 = _threat(hands, (me + 3) % 4, led, trump) if count == 0 else -1
    opp_after = max(t1, t3)
    mine = side[me]
    secured = (side[best_p] == mine and best_s > opp_after) or t2 > max(best_s, opp_after)
    best_score = -100000
    best = -1
    for s in range(4):
        c = cand[s]
        if c == 0:
            continue
        base = TRUMP_BASE if s == trump else (LED_BASE if s == led else 0)
        lo = low(c)
        if secured:
            ruff = s == trump and led != trump
            score = (-40 if ruff else 20) + _low_score(hands, me, s, led, trump) - lo
            rank = lo
        else:
            sure = _stronger(c, base, max(best_s, opp_after))
            cover = _stronger(c, base, best_s) if side[best_p] != mine else 0
            if sure:
                score = 60 - low(sure)
                rank = low(sure)
            elif cover:
                score = 15 - low(cover)
                rank = low(cover)
            else:
                score = _low_score(hands, me, s, led, trump) - lo
                rank = lo
        if score > best_score:
            best_score = score
            best = 16 * s + rank
    return best


@njit(nogil=True, cache=True)
def _low_score(hands, me, s, led, trump):
    """A discard's preference: long suits, not from a guarded second or a bare top card."""
    if s == led or s == trump:
        return 0
    h = hands[me, s]
    lens = pop(h)
    live = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
    first = 1 << top(live) if live else 0
    rest = live & ~first
    second = 1 << top(rest) if rest else 0
    guard = 6 * (lens == 2 and (h & second) != 0 and (h & first) == 0) + 8 * (
        lens == 1 and (h & first) != 0)
    return 3 * lens - guard


@njit(nogil=True, cache=True)
def _mates(hands, n, me, side, s):
    """(partners' cards, opponents' cards) of suit `s`, `me`'s side's and the other."""
    fr = 0
    fo = 0
    for o in range(n):
        if o != me:
            if side[o] == side[me]:
                fr |= hands[o, s]
            else:
                fo |= hands[o, s]
    return fr, fo


@njit(nogil=True, cache=True)
def lead_any(hands, jk, n, me, trump, side, cand, pts, low_joker):
    """Other seat counts, or points or a joker: cash a sure winner from the top; else low
    (a card worth nothing first) to a partner's winner; else low from the suit the others
    hold fewest cards of. A joker lead (it wins the trick, KAN-27, but where it is the low
    card of the last trick) names the suit the opponents hold most point cards of."""
    best_score = -100000
    best = -1
    for s in range(4):
        c = cand[s]
        if c == 0:
            continue
        fr, fo = _mates(hands, n, me, side, s)
        hi = top(c)
        plain = c & ~pts[s]
        lo = low(plain) if plain else low(c)
        ruff = False  # an opponent void in the suit who can trump it
        for o in range(n):
            if side[o] != side[me] and hands[o, s] == 0 and s != trump and trump >= 0:
                ruff = ruff or hands[o, trump] != 0
        if hi > top(fr | fo) and not ruff:
            score, rank = 100 + hi + 4 * pop(fo & pts[s]), hi
        elif top(fr) > max(top(fo), hi):
            score, rank = 50 - lo, lo
        else:
            score, rank = -pop(fr | fo) - lo, lo
        if score > best_score:
            best_score, best = score, 16 * s + rank
    jw = cand[4] >> 1
    for s in range(4):
        if (jw >> s) & 1:
            _, fo = _mates(hands, n, me, side, s)
            score = -200 if low_joker else 30 + 10 * pop(fo & pts[s]) - pop(fo)
            if score > best_score:
                best_score, best = score, JK_CODE + 1 + s
    return best


@njit(nogil=True, cache=True)
def follow_any(hands, jk, n, me, count, led, trump, side, best_s, best_p, cand, pts,
               low_joker):
    """Other seat counts, or points or a joker (`count` cards in the trick before this
    one; `best_s`, `best_p`: its best strength so far and its player): when his side wins
    the trick whatever he plays, a point card (the lowest; not one no other hand can beat in
    its suit: it may win a trick of its own later), else low; else the lowest card that wins
    it for sure, a point card of the led suit first (it scores now rather than fall to a
    higher card later), then the joker; else the lowest that beats the current best; else
    low, a card worth nothing first. (The point-card choices and the joker after the sure
    winners: 11% fewer nodes on 64 whole five-seat Kan deals than the plain lowest winners.)"""
    mine = side[me]
    opp_after = -1
    mate_after = -1
    for k in range(1, n - count):
        o = (me + k) % n
        th = JK_STRENGTH if jk == o and not low_joker else _threat(hands, o, led, trump)
        if side[o] == mine:
            mate_after = max(mate_after, th)
        else:
            opp_after = max(opp_after, th)
    secured = (side[best_p] == mine and best_s > opp_after) or mate_after > max(best_s,
                                                                                 opp_after)
    best_score = -100000
    best = -1
    for s in range(4):
        c = cand[s]
        if c == 0:
            continue
        base = TRUMP_BASE if s == trump else (LED_BASE if s == led else 0)
        plain = c & ~pts[s]
        lo = low(plain) if plain else low(c)
        if secured:
            if c & pts[s]:
                rank = low(c & pts[s])
                fr, fo = _mates(hands, n, me, side, s)
                score = 40 - rank if rank < top(fr | fo) else 5 - rank
            else:
                ruff = s == trump and led != trump
                score, rank = (-40 if ruff else 20) - low(c), low(c)
        else:
            sure = _stronger(c, base, max(best_s, opp_after))
            cover = _stronger(c, base, best_s) if side[best_p] != mine else 0
            if sure & pts[s] and s == led:
                score, rank = 60 - low(sure & pts[s]), low(sure & pts[s])
            elif sure:
                score, rank = 60 - low(sure), low(sure)
            elif cover:
                score, rank = 15 - low(cover), low(cover)
            else:
                score, rank = (0 if plain else -30) - lo, lo
        if score > best_score:
            best_score, best = score, 16 * s + rank
    if cand[4] & 1:
        st = LED_BASE - 1 if low_joker else JK_STRENGTH
        score = -50 if secured else (45 if st > max(best_s, opp_after) else -60)
        if score > best_score:
            best = JK_CODE
    return best
