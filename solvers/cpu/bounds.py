"""Sure tricks, on the suit words of every seat (`hands`: int64[n, 4], absolute ranks): of plain
tricks (the value is a count of tricks, so they bound it) as `solvers.search.bounds`, which
has the reasoning; with point cards (`cash_points`, `trump_points`), what the cards that
surely win are worth. Each fills `cards` (int64[4]) with the cards its count rests on (the
ranks its result depends on, for the table's partition search)."""

from __future__ import annotations

from numba import njit

from solvers.cpu.bits import above, pop, top


@njit(nogil=True, cache=True)
def winners(hands, n, seat, cards, wins):
    """`seat`'s cards above every other live card of their suit (`cards`) and per suit the
    tricks they take led from the top (`wins`): those cards, or his whole suit once they
    have drawn every other card of it."""
    for s in range(4):
        rest = 0
        longest = 0
        for o in range(n):
            if o != seat:
                rest |= hands[o, s]
                longest = max(longest, pop(hands[o, s]))
        c = above(hands[seat, s], rest)
        cards[s] = c
        tops = pop(c)
        wins[s] = pop(hands[seat, s]) if tops > 0 and tops >= longest else tops


@njit(nogil=True, cache=True)
def quick_tricks(hands, n, leader, trump, side, cards, scratch):
    """The tricks the leader cashes for sure (`solvers.search.bounds.quick_tricks`);
    `scratch`: int64[3, 4]."""
    wins = scratch[0]
    winners(hands, n, leader, cards, wins)
    count = 0
    for s in range(4):
        if trump < 0 or s == trump:
            count += wins[s]
        else:
            safe = 99
            for o in range(n):
                if o != leader and pop(hands[o, trump]) > wins[trump]:
                    safe = min(safe, pop(hands[o, s]))
            count += min(wins[s], safe)
    mates = 0
    partner = -1
    for o in range(n):
        if o != leader and side[o] == side[leader]:
            mates += 1
            partner = o
    if mates != 1:
        return count
    if trump >= 0:
        for o in range(n):
            if hands[o, trump] != 0:
                return count
    his = scratch[1]
    his_wins = scratch[2]
    winners(hands, n, partner, his, his_wins)
    entry = False
    discards = 0
    spare = 0
    for s in range(4):
        if his[s] != 0 and hands[leader, s] != 0:
            entry = True
        lp = pop(hands[partner, s])
        discards += max(wins[s] - lp, 0)
        spare += lp - his_wins[s] - min(lp, wins[s])
    if entry and discards <= spare:
        for s in range(4):
            count += his_wins[s]
            cards[s] |= his[s]
    return count


@njit(nogil=True, cache=True)
def top_trumps(hands, n, trump, side, cards):
    """(holder, count): the highest trump's holder and the tricks his side's master trumps
    take for sure whoever leads (`solvers.search.bounds.top_trumps`); count 0 without
    trumps in play."""
    for s in range(4):
        cards[s] = 0
    if trump < 0:
        return 0, 0
    holder = -1
    best = -1
    for o in range(n):
        t = top(hands[o, trump])
        if t > best:
            best, holder = t, o
    if holder < 0:
        return 0, 0
    opp = 0
    for o in range(n):
        if side[o] != side[holder]:
            opp |= hands[o, trump]
    masters = 0
    held = 0
    for o in range(n):
        if side[o] == side[holder]:
            masters |= above(hands[o, trump], opp)
            held = max(held, pop(hands[o, trump]))
    cards[trump] = masters
    return holder, min(pop(masters), held)


@njit(nogil=True, cache=True)
def second_hand(hands, second, led_card, trump, side, cards):
    """The tricks the side of the second hand to play (four seats) takes for sure from the
    current trick on, the leader's `led_card` on the table (`solvers.search.bounds.
    second_hand`: the third hand an opponent who cannot ruff, the fourth a partner, and they
    ruff or beat every card the third hand holds; with no trumps in play the winner then
    cashes his other top cards)."""
    for s in range(4):
        cards[s] = 0
    third, fourth = (second + 1) % 4, (second + 2) % 4
    if side[third] == side[second] or side[fourth] != side[second]:
        return 0
    led = led_card >> 4
    trumps = trump >= 0 and led != trump
    ruff2 = trumps and hands[second, led] == 0 and hands[second, trump] != 0
    ruff3 = trumps and hands[third, led] == 0 and hands[third, trump] != 0
    ruff4 = trumps and hands[fourth, led] == 0 and hands[fourth, trump] != 0
    if ruff3:
        return 0
    ruff = ruff2 or ruff4
    high = top(hands[second, led] | hands[fourth, led])
    by_rank = not ruff and high > max(led_card & 15, top(hands[third, led]))
    if not (ruff or by_rank):
        return 0
    if not by_rank:
        return 1
    card = 1 << high
    cards[led] = card
    if trump >= 0:
        for o in range(4):
            if hands[o, trump] != 0:
                return 1
    winner = second if hands[second, led] & card else fourth
    count = 1
    for s in range(4):
        rest = 0
        for o in range(4):
            if o != winner:
                rest |= hands[o, s]
        more = above(hands[winner, s] & ~(card if s == led else 0), rest)
        cards[s] |= more
        count += pop(more)
    return count


@njit(nogil=True, cache=True)
def _top_points(word, k, pts):
    """The point cards among the top `k` cards of `word`."""
    out = 0
    x = word
    for _ in range(k):
        b = top(x)
        out += (pts >> b) & 1
        x ^= 1 << b
    return out


@njit(nogil=True, cache=True)
def cash_points(hands, n, leader, trump, value, pts, cards, scratch):
    """What the leader takes for sure cashing his winners (`quick_tricks`' count without
    his partner's, with the joker gone): a trick's `value` for each and the points of the
    cards he leads (`pts`: the point cards' suit words); `cards` as `quick_tricks`'."""
    wins = scratch[0]
    winners(hands, n, leader, cards, wins)
    total = 0
    for s in range(4):
        k = wins[s]
        if trump >= 0 and s != trump:
            for o in range(n):
                if o != leader and pop(hands[o, trump]) > wins[trump]:
                    k = min(k, pop(hands[o, s]))
        total += k * value + _top_points(hands[leader, s], k, pts[s])
    return total


@njit(nogil=True, cache=True)
def trump_points(hands, n, trump, side, value, pts, cards):
    """(holder, sure): the highest trump's holder and what his side's master trumps (above
    every opponent's) take for sure, whoever leads (`top_trumps`' tricks, each worth
    `value`, and every master's points: a trick a master is played to is the side's, the
    joker gone or the side's); `cards` as `top_trumps`'."""
    holder, tops = top_trumps(hands, n, trump, side, cards)
    return holder, tops * value + pop(cards[trump] & pts[trump])
