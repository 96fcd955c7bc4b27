"""What one Kan player (Gonin, Yonin or Gambari Kan) can know about the hidden hands (KAN-46),
in plain Python.

The reference for `kanjax.games.kan.sampler` (which shares no code with it): `known_constraints(env,
obs)` lists, from player `me`'s observation `obs = env.observe(state, me)`, what every
player's hand must satisfy, and `consistent(env, obs, holders)` says whether a complete layout
(`holders[c]` = the player holding card c, -1 for cards in no hand) could be the true one.
Written straight from `rules/kan.md`; the observation fields are those of `KanEnv._observe`.

A layout is consistent iff:
- me's hand is exactly his observed hand; played cards and cards outside the deck are in no
  hand; every other card of the deck is in a hand; each active player holds 10 minus the cards
  he has played this deal, the sitting-out 6-player dealer none (KAN-1, KAN-6, KAN-8);
- voids (KAN-23, KAN-24, KAN-26): in every trick, each player after the leader who played a
  non-joker card of a suit other than the led suit holds no card of the led suit (the led
  suit: the leader's card's suit, or the suit he named leading JK). The leader of trick 1 is
  the iku/koi winner (KAN-21) in Gonin deal 1, the holder of AS (AC when spades are trump) in
  Yonin deal 1 (KAN-53), the lone kankei in Gambari (KAN-66) and the trump chooser in deals
  2/3 (KAN-36, KAN-37, KAN-57); the leader of every later trick took the trick before;
- the joker (KAN-25, Gonin and Gambari): nobody holds it in trick 10; in trick 9 nobody who
  played a card other than JK holds it (odori ban). Yonin's joker may be kept to the end
  (KAN-54): no constraint;
- Gonin deal 1 (KAN-17, KAN-18): the deal-1 holders of JK and poh (its player if played, else
  its holder in the layout) are the two kankei; for a kankei observer after a nijū exchange,
  the drawn card c is H's (H: the kankei whose partner sits two active seats to his right) and
  x is P's. (Yonin's deal-1 kankei are whoever holds JK and the trump jack, KAN-50: any layout
  names them; Gambari's lone kankei bid, KAN-65: no card constraint.)
- deals 2/3 (KAN-38): cards shown in the signal (seen by the shower and the chooser) are the
  shower's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kanjax.games.kan.spec import HAND_SIZE, JK, NUM_CARDS, NUM_TRICKS, PHASE_NAMES


def suit_of(card: int) -> int | None:
    """C D H S = 0..3; None for JK (KAN-4)."""
    return None if card == JK else card // 13


@dataclass
class View:
    """The observation decoded (plain ints and lists)."""

    variant: str  # "gonin", "yonin" or "gambari" (KAN-69)
    n: int
    me: int
    phase: int
    deal: int
    dealer: int
    trump: int
    trick: int
    jk_named: int
    mine: set[int]
    played_by: dict[int, int]  # card -> player, cards played this deal
    trick_of: dict[int, int]  # card -> trick 0..9
    taken_by: dict[int, int]  # card -> trick winner (completed tricks)
    seat_of: list[int]
    kankei: list[int]
    deal1_holders: tuple[int, int]  # (JK, poh) holders of deal 1, from deal 2 on
    nijuu: tuple[int, int, int]  # (happened, c, x)
    iku: tuple[int, int]  # (default leader, other kankei)
    signal: tuple[int, int, int]  # (form, card, card)
    deck: set[int]


def decode(env, obs) -> View:
    """Read `obs` by the env's field table (`env.observation_spec().slices()`)."""
    o = [int(v) for v in np.asarray(obs).reshape(-1)]
    sl = env.observation_spec().slices()

    def get(name: str) -> list[int]:
        return o[sl[name]]

    cards = get("cards")
    mine, played_by, trick_of, taken_by = set(), {}, {}, {}
    for c in range(NUM_CARDS):
        hand, by, t, took = cards[4 * c: 4 * c + 4]
        if hand > 0:
            mine.add(c)
        if by >= 0:
            played_by[c], trick_of[c] = by, t
            if took >= 0:
                taken_by[c] = took
    n = env.num_players
    return View(
        variant=env.config.variant, n=n, me=get("me")[0], phase=get("phase")[0],
        deal=get("deal")[0], dealer=get("dealer")[0], trump=get("trump")[0], trick=get("trick")[0],
        jk_named=get("jk_named")[0], mine=mine, played_by=played_by, trick_of=trick_of,
        taken_by=taken_by, seat_of=get("seat_of"), kankei=get("kankei"),
        deal1_holders=tuple(get("deal1_holders")), nijuu=tuple(get("nijuu")),
        iku=tuple(get("iku")), signal=tuple(get("signal")),
        deck={c for c in range(NUM_CARDS) if env.deck[c]},
    )


def sees_own_hand(v: View) -> bool:
    """Whether me sees his whole hand: not while Yonin's trump is chosen (KAN-57: the chooser
    sees his first three cards, the others none of theirs)."""
    return not (v.variant == "yonin" and PHASE_NAMES[v.phase] == "TRUMP")


def active_players(v: View) -> list[int]:
    """KAN-6: everyone, except the dealer in 6-player play."""
    return [p for p in range(v.n) if not (v.n == 6 and p == v.dealer)]


def next_player(v: View, p: int) -> int:
    """KAN-5, KAN-6: the first active player stepping +1 seat from p's seat."""
    occupant = {s: q for q, s in enumerate(v.seat_of)}
    s = v.seat_of[p]
    while True:
        s = (s + 1) % v.n
        q = occupant[s]
        if q in active_players(v):
            return q


def first_leader(v: View) -> int | None:
    """The leader of trick 1 (None while unknown: iku/koi not resolved, Yonin's first lead
    not yet played)."""
    if v.variant == "gambari":  # KAN-66: the lone kankei
        return next((p for p in range(v.n) if v.kankei[p] > 0), None)
    if v.deal >= 2:  # KAN-36 (deal 2: the joker holder chooses), KAN-37 (deal 3: the ace)
        return v.deal1_holders[0] if v.deal == 2 else v.deal1_holders[1]
    if v.variant == "yonin":  # KAN-53: AS, or AC when spades are trump, leads trick 1
        return v.played_by.get(12 if v.trump == 3 else 51)
    kankei = [p for p in range(v.n) if v.kankei[p] > 0]
    mukankei = set(active_players(v)) - set(kankei)
    default = [k for k in kankei
               if next_player(v, k) in mukankei and next_player(v, next_player(v, k)) in mukankei]
    assert len(default) == 1, (kankei, v.seat_of)
    dl = default[0]
    other = [k for k in kankei if k != dl][0]
    if v.iku[0] < 0 or v.iku[1] < 0:
        return None
    says = {dl: v.iku[0], other: v.iku[1]}  # KAN-21: exactly one IKU leads, else default
    iku = [k for k, s in says.items() if s == 1]
    return iku[0] if len(iku) == 1 else dl


def trick_leaders(v: View) -> list[int | None]:
    """The leader of every trick 0..9 seen so far (KAN-21, KAN-23, KAN-36, KAN-37)."""
    leaders: list[int | None] = [first_leader(v)]
    for t in range(1, NUM_TRICKS):
        took = {v.taken_by[c] for c, tt in v.trick_of.items() if tt == t - 1 and c in v.taken_by}
        leaders.append(took.pop() if took else None)
    return leaders


@dataclass
class PlayerInfo:
    """What every layout must give one player."""

    size: int = 0
    voids: set[int] = field(default_factory=set)
    has: set[int] = field(default_factory=set)  # cards known to be his
    not_has: set[int] = field(default_factory=set)  # cards known not to be his


def known_constraints(env, obs) -> list[PlayerInfo]:
    """Per player: hand size, void suits, cards known to be / not to be his (hidden cards
    only; the JK/poh 'one each' split of deal 1 is listed as far as it fixes single cards)."""
    v = decode(env, obs)
    info = [PlayerInfo() for _ in range(v.n)]
    for p in active_players(v):
        info[p].size = HAND_SIZE - sum(1 for by in v.played_by.values() if by == p)
    info[v.me].has |= v.mine
    hidden = v.deck - v.mine - set(v.played_by)
    for p, voids in voids_of(v).items():
        info[p].voids |= voids
        info[p].not_has |= {c for c in hidden if suit_of(c) in voids}
    for p in no_joker(v):
        info[p].not_has.add(JK)
    for c, p in owned(v).items():
        if c in hidden:
            info[p].has.add(c)
            for q in range(v.n):
                if q != p:
                    info[q].not_has.add(c)
    if v.variant == "gonin" and v.deal == 1:
        kankei = [p for p in range(v.n) if v.kankei[p] > 0]
        poh = 13 * v.trump + 12
        for c, other in ((JK, poh), (poh, JK)):
            if c in hidden:
                for q in range(v.n):
                    if q not in kankei:
                        info[q].not_has.add(c)
                seen = v.played_by.get(other, v.me if other in v.mine else None)
                if seen is not None:  # one each: not with the holder of the other
                    info[seen].not_has.add(c)
    return info


def voids_of(v: View) -> dict[int, set[int]]:
    """KAN-24: player -> suits he has shown out of."""
    leaders = trick_leaders(v)
    out: dict[int, set[int]] = {}
    for t in range(NUM_TRICKS):
        cards = {v.played_by[c]: c for c, tt in v.trick_of.items() if tt == t}
        lead = leaders[t]
        if lead is None or lead not in cards:
            continue
        led = v.jk_named if cards[lead] == JK else suit_of(cards[lead])  # KAN-26
        for p, c in cards.items():
            if p != lead and c != JK and suit_of(c) != led:
                out.setdefault(p, set()).add(led)
    return out


def no_joker(v: View) -> set[int]:
    """KAN-25: players who cannot hold JK now (none in Yonin, KAN-54)."""
    if v.variant == "yonin":
        return set()
    if v.trick >= NUM_TRICKS - 1:
        return set(range(v.n))
    return {v.played_by[c] for c, t in v.trick_of.items() if t == NUM_TRICKS - 2 and c != JK}


def owned(v: View) -> dict[int, int]:
    """Cards whose (deal-start) holder me knows beyond his own hand: the nijū card for a
    kankei (KAN-18), the shown cards for the shower and the chooser (KAN-38)."""
    out: dict[int, int] = {}
    if v.variant == "gonin" and v.deal == 1 and v.nijuu[0] > 0 and v.nijuu[1] >= 0:
        kankei = [p for p in range(v.n) if v.kankei[p] > 0]
        h = [k for k in kankei if next_player(v, next_player(v, k)) in kankei][0]
        out[v.nijuu[1]] = h
        out[v.nijuu[2]] = [k for k in kankei if k != h][0]
    if v.variant == "gonin" and v.deal >= 2:
        shower = v.deal1_holders[1] if v.deal == 2 else v.deal1_holders[0]  # KAN-36, KAN-37
        for c in v.signal[1:]:
            if c >= 0:
                out[c] = shower
    return out


def consistent(env, obs, holders) -> bool:
    """Whether the layout `holders` (int[53]) agrees with everything `obs` shows."""
    v = decode(env, obs)
    h = [int(x) for x in np.asarray(holders).reshape(-1)]
    if len(h) != NUM_CARDS:
        return False
    active = active_players(v)
    for c in range(NUM_CARDS):
        in_hand = c in v.deck and c not in v.played_by
        if not in_hand and h[c] != -1:
            return False
        if in_hand and h[c] not in active:
            return False
        if c in v.mine and h[c] != v.me or (sees_own_hand(v) and c not in v.mine
                                             and h[c] == v.me):
            return False
    for p in active:
        size = HAND_SIZE - sum(1 for by in v.played_by.values() if by == p)
        if sum(1 for x in h if x == p) != size:
            return False
    for p, voids in voids_of(v).items():
        if any(h[c] == p and suit_of(c) in voids for c in range(NUM_CARDS)):
            return False
    if h[JK] >= 0 and h[JK] in no_joker(v):
        return False

    def dealt_to(c: int) -> int:  # the holder of c since the deal (or the exchange)
        return v.played_by.get(c, h[c])

    if v.variant == "gonin" and v.deal == 1:
        poh = 13 * v.trump + 12
        kankei = {p for p in range(v.n) if v.kankei[p] > 0}
        if {dealt_to(JK), dealt_to(poh)} != kankei:
            return False
    return all(dealt_to(c) == p for c, p in owned(v).items())
