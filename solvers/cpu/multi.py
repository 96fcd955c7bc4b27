"""The compiled (numba) double-dummy search for plays of several cards: Da Bai Fen's trick play
(DBF-20..30), checked against the plain-Python oracle `solvers.reference_dbf`, whose rules
text it follows (multi-leads and DBF-23's validity, DBF-24's penalty, DBF-25's follows,
DBF-26's winner, card points and DBF-29's kitty bonus, V4's per-card multiplier).

A move is a play mask (`solvers.position.play_mask`, an int64 here: card ids below 63). The
value is the side's total at the end (`taken` included), as in `solvers.reference_dbf`.

Use: `solve(pos, all_moves)` gives (value, every legal play's value or None, nodes,
trick-start nodes); `solve_many(positions, threads=...)` solves many side by side (the
compiled search runs without the GIL); `legal_plays(pos)` lists the compiled move
generator's plays; `unsupported(rules)` / `check(rules)` say what it refuses.
`solvers.api.solve` sends such positions here.

The search: fail-soft alpha-beta driven by MTD(f) null windows, with a transposition table of
bounds on what is still to come at trick starts, kept across the driver's searches of one
position and its children. Its parts, each argued in docs/solver-design.md (section "The CPU
search of plays of several cards"):

- relative-rank codes (`_keys`): trick starts whose cards in play pair up by holder, effective
  suit, points and rank order have equal values less `taken`, so they share table entries
  (what DBF-21, DBF-23, DBF-25, DBF-26, DBF-28 and DBF-29 ask of cards in play is kept);
- partition search (`multi_table`): an entry keeps only the top cards of each suit that its
  result rests on (`rels`); a full table keeps about half its entries;
- sure points (`_sure`): the leader's masters of a suit bound the value (DBF-23, DBF-25);
- rank-equivalent plays merged (`canonical`);
- DBF-24's penalty moves: one stands for every invalid multi-lead of a seat; a side's own
  penalty is never searched, the other side's only where `penalty < taken + rem` (then the
  table's keys hold `taken` too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from solvers.cpu import multi_table as mt
from solvers.cpu.bits import POP
from solvers.position import Position, Rules, multi_card_limits, play_mask

MAX_SEATS = 4  # the table key holds four hands
MAX_IDS = 63  # card ids a play mask holds (an int64, sign bit unused)
MAX_CLASSES = 64
MAX_MOVES = 4096  # the most plays of a seat: 2^12 leads of 12 cards of one suit
MAX_DEPTH = 4 * 12 + 1
MAX_POINT_VALUES = 4  # a card's points' code: 2 bits of the table key
A_SUIT, A_PMASK, A_PVAL = 0, 4, 8  # data[4]: the suits' masks, the point codes' masks, values
MAX_ENTRIES = 1 << 22  # the table's most entries (216 bytes each); a full one keeps half
# a trick start's key (`_keys`): its class, its codes, the ranks of each suit's cards in play
K_CODES, K_RANKS = mt.CLASS_WORDS, mt.CLASS_WORDS + 4 * mt.SUIT_WORDS
LR = mt.SUIT_WORDS * mt.CODES_A_WORD  # the most cards of a suit in play
KEY_LEN = K_RANKS + 4 * LR
NONE = 1 << 30  # a relevance above every rank: no card of the suit
MAX_OF_CODE = 15  # the most cards of one point code in a suit (4 bits of the class)
# data: per card id (rows 0..2: effective suit, rank, points; -1 / 0 for ids not in the deck),
# the suits' ids by rank (row 3 + s: ids of suit s strongest first, -1 after)
P_N, P_TRUMP, P_BONUS, P_PER_CARD, P_MASK, P_PENALTY, P_KEY_TAKEN = range(7)
S_HANDS = 0  # state: hands 0..3, leader, plays made, led suit, cards a play, best seat,
(S_LEADER, S_NPLAYS, S_LED, S_NCARDS, S_BEST, S_WORTH, S_TCARDS, S_TPTS, S_INPLAY, S_TAKEN,
 S_BPLAY) = range(4, 15)  # best worth, trick cards, trick points, points in play, side's
STATE_LEN = 15  # taken, the best play
WORTH = 256  # a play's worth: WORTH * (2 all-trump, 1 with a card of a plain led suit) + rank
NEG = -(1 << 40)


def unsupported(rules: Rules) -> tuple[str, ...]:
    """Why the compiled multi-card search cannot take `rules` (empty: it can): the
    multi-card searches' limits (`position.multi_card_limits`), more than 4 seats or 63 card
    ids, a value for a trick as such."""
    out = list(multi_card_limits(rules))
    if rules.n > MAX_SEATS:
        out.append(f"{rules.n} seats: the compiled multi-card search takes at most {MAX_SEATS}")
    if rules.num_ids > MAX_IDS:
        out.append(f"{rules.num_ids} card ids: the compiled multi-card search takes at most "
                   f"{MAX_IDS}")
    values = {rules.points[c] for c in rules.ids}
    if len(values) > MAX_POINT_VALUES:
        out.append(f"{len(values)} card point values: the compiled multi-card search's table "
                   f"keys take at most {MAX_POINT_VALUES}")
    for s in range(4):
        of_suit = [c for c in rules.ids if rules.suit[c] == s]
        if len(of_suit) > LR:
            out.append(f"{len(of_suit)} cards of one suit: the compiled multi-card search's "
                       f"table takes at most {LR}")
        for v in sorted(values)[1:]:  # the lowest code's count: the length less the others
            if sum(rules.points[c] == v for c in of_suit) > MAX_OF_CODE:
                out.append(f"more than {MAX_OF_CODE} cards of one suit worth {v}: the "
                           "compiled multi-card search's table keys count at most "
                           f"{MAX_OF_CODE}")
    if rules.trick_value:
        out.append(f"a trick worth {rules.trick_value}: the compiled multi-card search "
                   "values card points only")
    return tuple(out)


def check(rules: Rules) -> None:
    why = unsupported(rules)
    if why:
        raise ValueError(f"{rules.game}: the cpu multi-card search cannot solve these rules: "
                         + "; ".join(why))


@njit(nogil=True, cache=True)
def _pop(x):
    return (POP[x & 0xFFFF] + POP[(x >> 16) & 0xFFFF] + POP[(x >> 32) & 0xFFFF]
            + POP[(x >> 48) & 0x7FFF])


@njit(nogil=True, cache=True)
def _lowbit(x):
    """The index of the lowest set bit (x > 0)."""
    i = 0
    while not (x >> i) & 1:
        i += 1
    return i


@njit(nogil=True, cache=True)
def _classes(mine, others, suit, cards, rank, pts, merge, cmask, ccnt, k):
    """Appends to (cmask, ccnt)[k:] the classes of the cards `mine` of effective suit `suit`
    (`cards[3 + suit]`: its ids strongest first) against the other cards in play `others`:
    runs of own cards, adjacent among the cards in play, of equal points (each card its own
    class without `merge`). Returns the new class count."""
    order = cards[3 + suit]
    i, open_run, run_pts = 0, False, -1
    while i < order.shape[0] and order[i] >= 0:
        r = rank[order[i]]
        j = i
        m_lvl, t_lvl = 0, 0
        while j < order.shape[0] and order[j] >= 0 and rank[order[j]] == r:
            b = np.int64(1) << order[j]
            if mine & b:
                m_lvl |= b
            elif others & b:
                t_lvl |= b
            j += 1
        if t_lvl:
            open_run = False
        if m_lvl:
            x = m_lvl
            while x:
                c = _lowbit(x)
                x &= x - 1
                if merge and open_run and pts[c] == run_pts:
                    cmask[k - 1] |= np.int64(1) << c
                    ccnt[k - 1] += 1
                else:
                    cmask[k] = np.int64(1) << c
                    ccnt[k] = 1
                    k += 1
                    open_run, run_pts = True, pts[c]
            if t_lvl:
                open_run = False
        i = j
    return k


@njit(nogil=True, cache=True)
def _take(mask, count):
    """The `count` lowest cards of `mask`."""
    out = np.int64(0)
    for _ in range(count):
        low = mask & -mask
        out |= low
        mask ^= low
    return out


@njit(nogil=True, cache=True)
def _enum(cmask, ccnt, k0, k1, lo, hi, base, out, bad, n, flag, cnt):
    """Appends to out[n:] every play `base` | (c_i lowest cards of class i, i in k0..k1) with
    lo <= sum c_i <= hi (bad[...] = flag); returns the new count. `cnt`: work space."""
    kk = k1 - k0
    if kk <= 0:
        if lo <= 0:
            out[n] = base
            bad[n] = flag
            n += 1
        return n
    cnt[:kk] = 0
    while True:
        total = 0
        for i in range(kk):
            total += cnt[i]
        if lo <= total <= hi:
            m = base
            for i in range(kk):
                m |= _take(cmask[k0 + i], cnt[i])
            out[n] = m
            bad[n] = flag
            n += 1
        i = 0
        while i < kk:
            if cnt[i] < ccnt[k0 + i]:
                cnt[i] += 1
                break
            cnt[i] = 0
            i += 1
        if i == kk:
            return n


@njit(nogil=True, cache=True)
def _mover(st, params):
    """(the seat to move at state `st`, his hand, the cards still in play: the hands' and
    the trick's)."""
    n = params[P_N]
    seat = (st[S_LEADER] + st[S_NPLAYS]) % n
    live = st[S_TCARDS]
    for s in range(n):
        live |= st[s]
    return seat, st[seat], live


@njit(nogil=True, cache=True)
def _gen(st, data, cards, params, merge, out, bad, work):
    """The plays of the seat to move at state `st` into out[:count] (bad: an invalid
    multi-lead, DBF-23); returns count. Merged by rank equivalence with `merge`. `work`:
    int64[3, MAX_CLASSES] work space."""
    suit, rank, pts = data[0], data[1], data[2]
    seat, hand, live = _mover(st, params)
    others = live & ~hand
    cmask, ccnt, cnt = work[0], work[1], work[2]
    count = 0
    if st[S_NPLAYS] == 0:  # leads (DBF-21, DBF-23)
        for s in range(4):
            k = _classes(hand, others, s, cards, rank, pts, merge, cmask, ccnt, 0)
            if k == 0:
                continue
            omax = -1
            x = others
            while x:
                c = _lowbit(x)
                x &= x - 1
                if suit[c] == s and rank[c] > omax:
                    omax = rank[c]
            start = count
            count = _enum(cmask, ccnt, 0, k, 1, 12 * 64, np.int64(0), out, bad, count, False,
                          cnt)
            for i in range(start, count):
                m = out[i]
                if _pop(m) >= 2:
                    lowest = 1 << 30
                    x = m
                    while x:
                        c = _lowbit(x)
                        x &= x - 1
                        lowest = min(lowest, rank[c])
                    bad[i] = omax > lowest
        if params[P_MASK]:  # invalid multi-leads are illegal
            j = 0
            for i in range(count):
                if not bad[i]:
                    out[j] = out[i]
                    bad[j] = False
                    j += 1
            count = j
        return count
    led, need = st[S_LED], st[S_NCARDS]  # follows (DBF-25)
    k = _classes(hand, others, led, cards, rank, pts, merge, cmask, ccnt, 0)
    of_led = 0
    for i in range(k):
        of_led += ccnt[i]
    if of_led >= need:
        return _enum(cmask, ccnt, 0, k, need, need, np.int64(0), out, bad, 0, False, cnt)
    base = np.int64(0)
    for i in range(k):
        base |= cmask[i]
    k2 = 0
    for s in range(4):
        if s != led:
            k2 = _classes(hand, others, s, cards, rank, pts, merge, cmask, ccnt, k2)
    return _enum(cmask, ccnt, 0, k2, need - of_led, need - of_led, base, out, bad, 0, False,
                 cnt)


@njit(nogil=True, cache=True)
def _worth(m, led, data, trump):
    """A play's worth in a trick led in suit `led` (DBF-26): all-trump -> 2 * WORTH + top;
    else WORTH + its top card of a plain led suit; else 0."""
    suit, rank = data[0], data[1]
    all_trump = True
    top_t, top_l = -1, -1
    x = m
    while x:
        c = _lowbit(x)
        x &= x - 1
        if suit[c] == trump:
            top_t = max(top_t, rank[c])
        else:
            all_trump = False
            if suit[c] == led:
                top_l = max(top_l, rank[c])
    if all_trump:
        return 2 * WORTH + top_t
    if top_l >= 0:
        return WORTH + top_l
    return 0


@njit(nogil=True, cache=True)
def _points(m, pts):
    out = 0
    x = m
    while x:
        c = _lowbit(x)
        x &= x - 1
        out += pts[c]
    return out


@njit(nogil=True, cache=True)
def _play(st, m, data, params, side):
    """The state after the seat to move plays `m` (a valid play)."""
    out = np.empty(STATE_LEN, np.int64)
    _play_into(st, m, data, params, side, out)
    return out


@njit(nogil=True, cache=True)
def _play_into(st, m, data, params, side, out):
    """`out` = the state after the seat to move plays `m` (a valid play): a completed trick
    goes to its winner's side (its points, the last trick's bonus, DBF-28/29)."""
    n = params[P_N]
    out[:] = st
    seat = (st[S_LEADER] + st[S_NPLAYS]) % n
    out[seat] = st[seat] & ~m
    if st[S_NPLAYS] == 0:
        out[S_LED] = data[0][_lowbit(m)]
        out[S_NCARDS] = _pop(m)
    w = _worth(m, out[S_LED], data, params[P_TRUMP])
    if st[S_NPLAYS] == 0 or w > st[S_WORTH]:
        out[S_BEST] = seat
        out[S_WORTH] = w
        out[S_BPLAY] = m
    out[S_TCARDS] = st[S_TCARDS] | m
    out[S_TPTS] = st[S_TPTS] + _points(m, data[2])
    out[S_NPLAYS] = st[S_NPLAYS] + 1
    if out[S_NPLAYS] < n:
        return
    gain = out[S_TPTS]
    empty = True
    for s in range(n):
        if out[s]:
            empty = False
    if empty:  # the last trick (DBF-29; V4: the bonus once a card of a play)
        gain += params[P_BONUS] * (out[S_NCARDS] if params[P_PER_CARD] else 1)
    win = out[S_BEST]
    if side[win]:
        out[S_TAKEN] += gain
    out[S_INPLAY] -= out[S_TPTS]
    out[S_LEADER] = win
    out[S_NPLAYS] = 0
    out[S_LED] = -1
    out[S_NCARDS] = 0
    out[S_TCARDS] = 0
    out[S_TPTS] = 0
    out[S_WORTH] = 0
    out[S_BEST] = win


@njit(nogil=True, cache=True)
def _rem(st, params):
    """The most the side can still take: the points in play and the last trick's bonus."""
    size = _pop(st[st[S_LEADER]]) + (st[S_NCARDS] if st[S_NPLAYS] else 0)
    if size == 0:
        return 0
    return st[S_INPLAY] + params[P_BONUS] * (size if params[P_PER_CARD] else 1)


@njit(nogil=True, cache=True)
def _top_rank(mask, rank):
    """The highest rank among the cards of `mask` (-1: none)."""
    out = -1
    x = mask
    while x:
        c = _lowbit(x)
        x &= x - 1
        out = max(out, rank[c])
    return out


@njit(nogil=True, cache=True)
def _lead_facts(st, data, params, side, seat, facts):
    """For the leader `seat`, per effective suit s: facts[0, s] the highest rank another seat
    holds, facts[1, s] 1 where an opponent void in plain suit s holds a trump (he can ruff
    a single card)."""
    aux, rank = data[4], data[1]
    trump = params[P_TRUMP]
    facts[:] = 0
    for s in range(4):
        facts[0, s] = -1
        for o in range(params[P_N]):
            if o == seat:
                continue
            of = st[o] & aux[A_SUIT + s]
            facts[0, s] = max(facts[0, s], _top_rank(of, rank))
            if (side[o] != side[seat] and s != trump and not of
                    and st[o] & aux[A_SUIT + trump]):
                facts[1, s] = 1


@njit(nogil=True, cache=True)
def _order(st, data, params, side, out, bad, count, scores, killer, hint, facts):
    """Sorts out[:count] (and bad) likely best first. Leads: the table's best move `hint`,
    the killer (the last lead that cut off at this depth), then sure winners (masters no
    opponent can ruff; several together, points first), then the others, several cards and
    high cards first. Follows: winning plays with points, points to a partner's trick,
    cheap plays to the others'. Penalty last."""
    n = params[P_N]
    seat = (st[S_LEADER] + st[S_NPLAYS]) % n
    rank, pts = data[1], data[2]
    if st[S_NPLAYS] == 0:
        _lead_facts(st, data, params, side, seat, facts)
    for i in range(count):
        m = out[i]
        if bad[i]:
            scores[i] = NEG
            continue
        p = _points(m, pts)
        top = _top_rank(m, rank)
        if st[S_NPLAYS] == 0:
            s, k = data[0][_lowbit(m)], _pop(m)
            if m == hint:
                scores[i] = 1 << 21
            elif m == killer:
                scores[i] = 1 << 20
            elif top >= facts[0, s] and not facts[1, s]:  # sure to win
                scores[i] = 3000 + 100 * k + 10 * p
            else:
                scores[i] = 100 * k + top
        else:
            led = st[S_LED]
            w = _worth(m, led, data, params[P_TRUMP])
            if w > st[S_WORTH]:
                scores[i] = 10000 + 10 * p - w
            elif side[st[S_BEST]] == side[seat]:
                scores[i] = 5000 + 10 * p - top
            else:
                scores[i] = -10 * p - top
    if count > 64:
        idx = np.argsort(-scores[:count], kind="mergesort")
        m2 = out[:count].copy()
        b2 = bad[:count].copy()
        for i in range(count):
            out[i] = m2[idx[i]]
            bad[i] = b2[idx[i]]
        return
    for i in range(1, count):  # insertion sort, stable, best score first
        sc, m, b = scores[i], out[i], bad[i]
        j = i - 1
        while j >= 0 and scores[j] < sc:
            scores[j + 1], out[j + 1], bad[j + 1] = scores[j], out[j], bad[j]
            j -= 1
        scores[j + 1], out[j + 1], bad[j + 1] = sc, m, b


@njit(nogil=True, cache=True)
def _keys(st, data, cards, params, taken, key):
    """Fills `key` (int64[KEY_LEN]) for trick-start state `st` (the module's docstring:
    the table): key[:K_CODES] its class (`multi_table`: the hands' suit lengths, 6 bits a
    seat and suit, seats 0-1 and 2-3 a word; the counts of each nonzero point code,
    4 bits a seat and suit, a word a code; the leader and, with `P_KEY_TAKEN`, the side's
    `taken`), key[K_CODES:K_RANKS] its codes (per effective suit, strongest first, a 5-bit
    code for each card still in play: its holder, its points' code `data[3]`, whether it is
    equal in rank to the card before it), key[K_RANKS + LR * s + i] the rank of suit s's
    i-th card in play (-NONE after the last)."""
    rank, pcode = data[1], data[3]
    key[:K_RANKS] = 0
    key[5] = st[S_LEADER] | ((taken << 2) if params[P_KEY_TAKEN] else 0)
    h0, h1, h2, h3 = st[0], st[1], st[2], st[3]
    for s in range(4):
        order = cards[3 + s]
        n, prev = 0, -1
        for i in range(order.shape[0]):
            c = order[i]
            if c < 0:
                break
            b = np.int64(1) << c
            if h0 & b:
                h = 0
            elif h1 & b:
                h = 1
            elif h2 & b:
                h = 2
            elif h3 & b:
                h = 3
            else:
                continue
            key[h // 2] += np.int64(1) << (6 * (4 * (h % 2) + s))
            if pcode[c]:
                key[1 + pcode[c]] += np.int64(1) << (4 * (4 * h + s))
            code = h | (pcode[c] << 2) | ((1 if rank[c] == prev else 0) << 4)
            prev = rank[c]
            w = K_CODES + mt.SUIT_WORDS * s + n // mt.CODES_A_WORD
            key[w] |= np.int64(code) << (5 * (n % mt.CODES_A_WORD))
            key[K_RANKS + LR * s + n] = rank[c]
            n += 1
        if n < LR:
            key[K_RANKS + LR * s + n] = -NONE


@njit(nogil=True, cache=True)
def _ks(rel, key):
    """The table entry's k for relevance `rel` at the trick start of `key`: per suit, the
    cards in play of rank at least rel[s] (KS_BITS bits a suit)."""
    ks = 0
    for s in range(4):
        k = 0
        while k < LR and key[K_RANKS + LR * s + k] >= rel[s]:
            k += 1
        ks |= k << (mt.KS_BITS * s)
    return ks


@njit(nogil=True, cache=True)
def _entry_rel(tt, e, key, rel):
    """Adds to `rel` what table entry `e` (-1: none) rests on at the trick start of `key`:
    per suit, the ranks of its top k cards."""
    if e < 0:
        return
    ks = tt[1][e, mt.E_KS]  # the top cards of each suit it rests on
    for s in range(4):
        k = mt.suit_k(ks, s)
        if k > 0:
            rel[s] = min(rel[s], key[K_RANKS + LR * s + k - 1])


@njit(nogil=True, cache=True)
def _trick_rel(st, m, data, params, rel):
    """Adds to `rel` what the winner of the trick that play `m` completes at `st` rests on:
    its deciding card's rank (its top trump, all trumps; else its top card of the led suit,
    DBF-26), where another play to the trick holds a card of that suit."""
    w = _worth(m, st[S_LED], data, params[P_TRUMP])
    play, worth = (m, w) if w > st[S_WORTH] else (st[S_BPLAY], st[S_WORTH])
    s = params[P_TRUMP] if worth >= 2 * WORTH else st[S_LED]
    if (st[S_TCARDS] | m) & ~play & data[4][A_SUIT + s]:
        rel[s] = min(rel[s], worth % WORTH)


@njit(nogil=True, cache=True)
def _min_points(mask, count, data):
    """The fewest points `count` cards of `mask` can hold (count <= its cards)."""
    aux = data[4]
    out = 0
    for v in range(MAX_POINT_VALUES):  # point codes by ascending value
        if count <= 0:
            break
        t = min(_pop(mask & aux[A_PMASK + v]), count)
        out += t * aux[A_PVAL + v]
        count -= t
    return out


@njit(nogil=True, cache=True)
def _sure(st, data, cards, params, side):
    """At a trick start: (the points the leader's side is sure to take in this trick (the
    module's docstring: sure points), 0 if none; the suit led for them; the highest rank
    another seat holds in it, -1 if none: the bound rests on the cards from there up)."""
    aux, rank = data[4], data[1]
    n = params[P_N]
    lead = st[S_LEADER]
    hand = st[lead]
    live = np.int64(0)
    for s in range(n):
        live |= st[s]
    trump = params[P_TRUMP]
    best, best_s, best_top = 0, 0, -1
    for s in range(4):
        if not hand & aux[A_SUIT + s]:
            continue
        order = cards[3 + s]
        masters = np.int64(0)
        top = -1
        for i in range(order.shape[0]):
            c = order[i]
            if c < 0:
                break
            b = np.int64(1) << c
            if not live & b:
                continue
            if top >= 0 and rank[c] < top:
                break
            if hand & b:
                masters |= b
            elif top < 0:
                top = rank[c]
        k = _pop(masters)
        if k == 0:
            continue
        if s != trump:  # a void opponent with k trumps can ruff
            ruffed = False
            for o in range(n):
                if (side[o] != side[lead] and not st[o] & aux[A_SUIT + s]
                        and _pop(st[o] & aux[A_SUIT + trump]) >= k):
                    ruffed = True
            if ruffed:
                continue
        pts = _points(masters, data[2])
        for o in range(n):
            if o != lead:
                of = st[o] & aux[A_SUIT + s]
                j = _pop(of)
                if j >= k:
                    pts += _min_points(of, k, data)
                else:
                    pts += _points(of, data[2]) + _min_points(st[o] & ~of, k - j, data)
        if k == _pop(hand):  # the last trick: its bonus too
            pts += params[P_BONUS] * (k if params[P_PER_CARD] else 1)
        if pts > best:
            best, best_s, best_top = pts, s, top
    return best, best_s, best_top


# Recursive and cached: numba loads a recursive function back from its cache safely while the
# recursion stays within one signature, as here (each recursive call passes its arguments'
# own types; `Solver.value`, the only other caller, builds them; a test checks one signature).
# A call of other types whose recursion comes back to this one (numba issue 6061: an omitted
# default argument; or an int32 `depth`, whose `depth + 1` is an int64) fails with an
# unresolved symbol, or a segfault once loaded from the cache.
@njit(nogil=True, cache=True)
def _ab(st, alpha, beta, depth, data, cards, params, side, tt, moves, bads, scores, nodes,
        states, work, keys, rels, hits, killers, facts, limit):
    """Fail-soft alpha-beta: the side's total at the end if within (alpha, beta), else a bound
    beyond the window; the table holds bounds of what is still to come at trick starts.
    rels[depth] gets what the result rests on (the module's docstring: partition search).
    Windows are null (beta = alpha + 1, `Solver.value`), so a table bound either decides a
    node or leaves its window as it is (a wider window narrowed by an entry would rest on
    that entry too).
    Past `limit[0]` nodes every node returns at once (the search is given up:
    `Solver.value`)."""
    nodes[0] += 1
    rel = rels[depth]
    rel[:] = NONE
    taken = st[S_TAKEN]
    if nodes[0] > limit[0]:
        return taken
    rem = _rem(st, params)
    if rem == 0 or taken >= beta:
        return taken
    if taken + rem <= alpha:
        return taken + rem
    at_start = st[S_NPLAYS] == 0
    key = keys[depth]
    hint = 0
    if at_start:
        _keys(st, data, cards, params, taken, key)
        nodes[1] += 1
        mt.probe(tt, key[:K_CODES], key[K_CODES:K_RANKS], alpha - taken, beta - taken, rem,
                 hits)
        lo, hi, hint = hits[0] + taken, hits[1] + taken, hits[4]
        if lo >= beta or lo == hi:
            _entry_rel(tt, hits[2], key, rel)
            if lo == hi:
                _entry_rel(tt, hits[3], key, rel)
            return lo
        if hi <= alpha:
            _entry_rel(tt, hits[3], key, rel)
            return hi
        sure, sure_suit, sure_top = _sure(st, data, cards, params, side)
        ours = side[st[S_LEADER]]
        bound = taken + sure if ours else taken + rem - sure
        if (bound >= beta) if ours else (bound <= alpha):
            if sure_top >= 0:
                rel[sure_suit] = sure_top
            return bound
    n = params[P_N]
    seat = (st[S_LEADER] + st[S_NPLAYS]) % n
    maximise = side[seat]
    out, bad = moves[depth], bads[depth]
    count = _gen(st, data, cards, params, True, out, bad, work[depth])
    # DBF-24's penalty moves: one for all, searched only as the module's docstring says
    j, pen = 0, False
    for i in range(count):
        if bad[i]:
            pen = True
        else:
            out[j] = out[i]
            bad[j] = False
            j += 1
    count = j
    if pen and not maximise and params[P_PENALTY] < taken + rem:
        out[count] = 0
        bad[count] = True
        count += 1
    _order(st, data, params, side, out, bad, count, scores[depth], killers[depth], hint,
           facts)
    if at_start:  # which multi-leads are valid (DBF-23): the cards from the others' top up
        for s in range(4):
            if facts[0, s] >= 0 and _pop(st[seat] & data[4][A_SUIT + s]) >= 2:
                rel[s] = min(rel[s], facts[0, s])
    last = st[S_NPLAYS] == n - 1
    child_rel = rels[depth + 1]
    a, b = alpha, beta
    best = NEG if maximise else -NEG
    best_move = 0
    for i in range(count):
        if bad[i]:
            v = params[P_PENALTY]
        else:
            child = states[depth + 1]
            _play_into(st, out[i], data, params, side, child)
            v = _ab(child, a, b, depth + 1, data, cards, params, side, tt, moves, bads, scores,
                    nodes, states, work, keys, rels, hits, killers, facts, limit)
            for s in range(4):
                rel[s] = min(rel[s], child_rel[s])
            if last:
                _trick_rel(st, out[i], data, params, rel)
        if maximise:
            if v > best:
                best, best_move = v, out[i]
            if best > a:
                a = best
        else:
            if v < best:
                best, best_move = v, out[i]
            if best < b:
                b = best
        if a >= b:
            if at_start and not bad[i]:
                killers[depth] = out[i]
            break
    if at_start:
        if best <= alpha:
            lo, hi, best_move = 0, best - taken, 0
        elif best >= beta:
            lo, hi = best - taken, rem
        else:
            lo = hi = best - taken
        mt.store(tt, key[:K_CODES], _ks(rel, key), key[K_CODES:K_RANKS], lo, hi, rem,
                 best_move)
    return best


@njit(nogil=True, cache=True)
def _canonical(st, m, data, cards, params):
    """The play the search tries for play `m` of the seat to move: as many of each class's
    lowest cards (rank equivalence, `_classes`)."""
    seat, hand, live = _mover(st, params)
    cmask = np.zeros(MAX_CLASSES, np.int64)
    ccnt = np.zeros(MAX_CLASSES, np.int64)
    k = 0
    for s in range(4):
        k = _classes(hand, live & ~hand, s, cards, data[1], data[2], True, cmask, ccnt, k)
    out = np.int64(0)
    for i in range(k):
        out |= _take(cmask[i], _pop(m & cmask[i]))
    return out


class GivenUp(RuntimeError):
    """A search ran past its node limit (`Solver`'s `limit`)."""


class Solver:
    """Searches of one position and its children: rules, trump and side fixed, one table
    (of at most `max_entries` entries, fewer for short hands). `limit`: the node budget as
    an int64[1] that another thread may lower (to 0: stop now; default none); a search past
    it raises `GivenUp`, after which the solver is spent."""

    def __init__(self, pos: Position, max_entries: int = MAX_ENTRIES,
                 limit: np.ndarray | None = None) -> None:
        r = pos.rules
        check(r)
        self.rules, self.trump, self.side = r, pos.trump, pos.side
        self.limit = np.array([np.iinfo(np.int64).max]) if limit is None else limit
        self.given_up = False
        data = np.zeros((5, 64), np.int64)
        data[0, :] = -1
        cards = np.full((7, 64), -1, np.int64)
        values = sorted({r.points[c] for c in r.ids})
        for c in r.ids:
            data[:4, c] = (r.suit[c], r.rank[c], r.points[c], values.index(r.points[c]))
            data[4, A_SUIT + r.suit[c]] |= 1 << c
            data[4, A_PMASK + values.index(r.points[c])] |= 1 << c
        data[4, A_PVAL:A_PVAL + len(values)] = values
        for s in range(4):
            ids = sorted((c for c in r.ids if r.suit[c] == s), key=lambda c: -r.rank[c])
            cards[3 + s, :len(ids)] = ids
        self.data, self.cards = data, cards
        self.side_arr = np.array(list(pos.side) + [False] * (MAX_SEATS - r.n), np.bool_)
        self.root = self._state(pos)
        rem = int(_rem(self.root, self._params(False)))
        in_play = sum(r.points[c] for h in pos.hands for c in h) + sum(
            r.points[c] for c in pos.trick)
        if r.invalid_lead == "penalty" and r.penalty < pos.taken + in_play:
            raise ValueError(f"{r.game}: a penalty of {r.penalty} below what the side may "
                             f"hold before the end ({pos.taken} + {in_play}): the search's "
                             "bounds assume the penalty is at least the side's total so far")
        self.params = self._params(r.invalid_lead == "penalty"
                                   and r.penalty < pos.taken + rem)
        most = max(len(h) for h in pos.hands)  # a table for the cards there are
        self.tt = mt.new_table(min(max_entries, 1 << (4 + 3 * most // 2)))
        self.moves = np.zeros((MAX_DEPTH + 1, MAX_MOVES + 1), np.int64)
        self.bads = np.zeros((MAX_DEPTH + 1, MAX_MOVES + 1), np.bool_)
        self.scores = np.zeros((MAX_DEPTH + 1, MAX_MOVES + 1), np.int64)
        self.nodes = np.zeros(2, np.int64)
        self.states = np.zeros((MAX_DEPTH + 2, STATE_LEN), np.int64)
        self.work = np.zeros((MAX_DEPTH + 1, 3, MAX_CLASSES), np.int64)
        self.keys = np.zeros((MAX_DEPTH + 1, KEY_LEN), np.int64)
        self.rels = np.zeros((MAX_DEPTH + 2, 4), np.int64)
        self.hits = np.zeros(5, np.int64)
        self.killers = np.zeros(MAX_DEPTH + 1, np.int64)
        self.facts = np.zeros((2, 4), np.int64)

    def _params(self, key_taken: bool) -> np.ndarray:
        r = self.rules
        return np.array([r.n, self.trump, r.last_bonus, r.last_bonus_per_card,
                         r.invalid_lead == "mask", r.penalty, key_taken],
                        np.int64)

    def _state(self, pos: Position) -> np.ndarray:
        r = pos.rules
        st = np.zeros(STATE_LEN, np.int64)
        for s, h in enumerate(pos.hands):
            st[s] = play_mask(h)
        st[S_LEADER], st[S_BEST], st[S_LED] = pos.leader, pos.leader, -1
        st[S_INPLAY] = sum(r.points[c] for h in pos.hands for c in h) + sum(
            r.points[c] for c in pos.trick)
        st[S_TAKEN] = pos.taken
        for p in pos.plays:  # the trick so far, replayed (its cards already left the hands)
            st = _play(st, play_mask(p), self.data, self._params(False), self.side_arr)
        return st

    def legal(self, st: np.ndarray | None = None, merge: bool = False
              ) -> list[tuple[int, bool]]:
        """(play mask, invalid multi-lead) for each legal play at `st` (default: the root)."""
        st = self.root if st is None else st
        if not any(st[:MAX_SEATS]):
            return []
        out = np.zeros(MAX_MOVES + 1, np.int64)
        bad = np.zeros(MAX_MOVES + 1, np.bool_)
        count = _gen(st, self.data, self.cards, self.params, merge, out, bad,
                     np.zeros((3, MAX_CLASSES), np.int64))
        return [(int(out[i]), bool(bad[i])) for i in range(count)]

    def value(self, st: np.ndarray | None = None) -> int:
        """The value at `st` (default: the root): null-window searches, MTD(f)'s with steps
        that double while the value keeps moving one way. Every value is a multiple of
        `step` (the gcd of the cards' points, the bonus, the penalty and `taken`: a value is
        `taken` plus points and bonuses, or a penalty, or 0), so a window's bound moves by
        at least a step. Raises `GivenUp` past the node limit."""
        if self.given_up:
            raise GivenUp("the solver's search was given up: its table is not usable")
        st = self.root if st is None else st
        r = self.rules
        taken = int(st[S_TAKEN])
        step = math.gcd(*(r.points[c] for c in r.ids), r.last_bonus, r.penalty, taken) or 1
        lo, hi = taken, taken + int(_rem(st, self.params))
        beta = lo + step * ((hi - lo) // (2 * step))
        jump, way = step, 0
        while lo < hi:
            beta = min(max(beta, lo + 1), hi)
            self.states[0] = st
            v = int(_ab(self.states[0], beta - 1, beta, 0, self.data, self.cards,
                        self.params, self.side_arr, self.tt, self.moves, self.bads,
                        self.scores, self.nodes, self.states, self.work, self.keys,
                        self.rels, self.hits, self.killers, self.facts, self.limit))
            if self.nodes[0] > self.limit[0]:
                self.given_up = True
                raise GivenUp(f"the search was given up after {self.nodes[0]:,} nodes")
            now = 1 if v >= beta else -1
            jump = 2 * jump if now == way else step
            way = now
            if v >= beta:  # v is a lower bound: test v + jump next
                lo = v
                beta = v + jump
            else:  # an upper bound: test v - jump + step (MTD(f)'s v itself at first)
                hi = v
                beta = v - jump + step
        return lo

    def move_values(self) -> dict[int, int]:
        """The value after each legal play at the root (by play mask), merged plays mapped
        back: each legal play gets its class representative's value."""
        seat = (int(self.root[S_LEADER]) + int(self.root[S_NPLAYS])) % self.rules.n
        done: dict[int, int] = {}
        out = {}
        for m, bad in self.legal():
            if bad:
                out[m] = 0 if self.side[seat] else self.rules.penalty
                continue
            rep = int(_canonical(self.root, m, self.data, self.cards, self.params))
            if rep not in done:
                done[rep] = self.value(_play(self.root, rep, self.data, self.params,
                                             self.side_arr))
            out[m] = done[rep]
        return out


def legal_plays(pos: Position) -> list[int]:
    """The legal plays of `pos.to_move` by the compiled move generator (unmerged), sorted."""
    return sorted(m for m, _ in Solver(pos).legal())


def solve(pos: Position, all_moves: bool = False) -> tuple[int, dict[int, int] | None, int,
                                                          int]:
    """(value, every legal play's value or None, nodes, trick-start nodes) of `pos`."""
    s = Solver(pos)
    v = s.value()
    moves = s.move_values() if all_moves else None
    return v, moves, int(s.nodes[0]), int(s.nodes[1])


def solve_many(positions: Sequence[Position], *, all_moves: bool = False,
               threads: int | None = None) -> list[tuple[int, dict[int, int] | None, int, int]]:
    """`solve` of each position (`solvers.api.solve`'s answers), `threads` at a time (default:
    one per CPU core; the compiled search runs without the GIL)."""
    from solvers.cpu.backend import default_threads

    positions = list(positions)
    for rules in {p.rules for p in positions}:
        check(rules)
    workers = max(1, min(threads or default_threads(), len(positions)))
    if workers == 1:
        return [solve(p, all_moves) for p in positions]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda p: solve(p, all_moves), positions))
