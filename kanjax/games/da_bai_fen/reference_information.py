"""What one Da Bai Fen player can know about the hidden hands and the kitty during trick play,
in plain Python.

The reference for `kanjax.games.da_bai_fen.sampler` (which shares no code with it):
`known_constraints(env, obs)` lists, from player `me`'s observation `obs = env.observe(state, me)`
in trick play, what every hand and the kitty must satisfy, and `consistent(env, obs, holders)` says
whether a complete layout could be the true one. A layout is `holders[c]` for every card id c: the
player 0..3 holding it, KITTY (4) for a card in the kitty (L's six discards, DBF-17), -1 for a
played card. Written straight from `rules/da_bai_fen.md`; `decode(env, obs)` reads the
observation fields of `DbfEnv._observe` into a `View`.

A layout is consistent iff it meets (each function here computes one part):
- sizes (`sizes`): me's hand as observed, played cards nowhere, 12 minus the cards played a
  player, 6 in the kitty (DBF-17);
- the kitty cards me knows and the exposed card (`allowed_holders`, `sees_kitty`; DBF-14,
  V1, V10, DBF-17; DBF-12, DBF-16, DBF-22): with L or in the kitty, or the exposer's;
- voids by effective suit (`voids_of`, `trick_leader`; DBF-5, DBF-20, DBF-21, DBF-25);
- Dun tricks (`no_quad_at`; V8, DBF-40): no quad held by a follower who played none, no trump
  held by one who played fewer than four;
- multi-lead validity (`leader_of_beaten`; DBF-23, DBF-24, DBF-8): a hidden card beating a
  card of an earlier non-Dun multi-lead is the leader's or in the kitty.

Each condition, in full, with what is not used (exposure and claim passes, DBF-13, DBF-18;
likelihoods of play choices): docs/samplers.md. `changchun_kitty` (V11) is refused: the
observation does not say whether L took the kitty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kanjax.games.da_bai_fen.engine import OBS_HEAD  # the observation's head field names
from kanjax.games.da_bai_fen.spec import (
    BJ,
    HAND_SIZE,
    KITTY_SIZE,
    NUM_CARDS,
    NUM_PLAYERS,
    PHASE_PLAY,
    RJ,
    rank_of,
    suit_of,
)

KITTY = 4  # the holder code of a kitty card
TRUMP_SUIT = 4  # the effective suit of trumps


def check_env(env) -> None:
    if getattr(env, "name", None) != "da_bai_fen":
        raise ValueError(f"dbf_information: Da Bai Fen only, not {getattr(env, 'name', env)!r}")
    if env.config.changchun_kitty:
        raise ValueError("dbf_information: changchun_kitty (DBF-V11) is not supported: the "
                         "observation does not say whether L took the kitty")


@dataclass
class View:
    """The observation decoded (plain ints, sets and dicts)."""

    me: int
    phase: int
    leader: int  # L (DBF-10)
    R: int  # the trump level (2..14)
    T: int  # the trump suit
    exposer: int
    exposed: int  # the exposed card, -1
    tno: int  # the current trick 0..11
    mine: set[int]
    kitty_known: set[int]  # the observation's "a kitty card I know"
    played_by: dict[int, int]  # card -> player
    trick_of: dict[int, int]  # card -> trick
    trick_winners: list[int]
    yuan_zhu: bool
    jilin_dun: bool
    show_kitty: bool  # jilin_show_kitty (V10)


def decode(env, obs) -> View:
    check_env(env)
    o = [int(v) for v in np.asarray(obs).reshape(-1)]
    sl = env.observation_spec().slices()
    cards = o[sl["cards"]]
    head = dict(zip(OBS_HEAD, o[sl["head"]], strict=True))
    mine, kk, played_by, trick_of, exposed = set(), set(), {}, {}, -1
    for c in range(NUM_CARDS):
        hand, _sel, known, expo, by, t = cards[6 * c: 6 * c + 6]
        if hand > 0:
            mine.add(c)
        if known > 0:
            kk.add(c)
        if expo > 0:
            exposed = c
        if by >= 0:
            played_by[c], trick_of[c] = by, t
    cfg = env.config
    return View(me=o[sl["me"]][0], phase=head["phase"], leader=head["leader"], R=head["R"],
                T=head["T"], exposer=head["exposer"], exposed=exposed, tno=head["tno"],
                mine=mine, kitty_known=kk, played_by=played_by, trick_of=trick_of,
                trick_winners=o[sl["trick_winners"]], yuan_zhu=cfg.yuan_zhu,
                jilin_dun=cfg.jilin_dun, show_kitty=cfg.jilin_show_kitty)


# ---- the hand's cards (DBF-5..8, V6) -------------------------------------------------------
def is_trump(v: View, c: int) -> bool:
    """DBF-5, V6."""
    if c in (BJ, RJ):
        return True
    r = rank_of(c)
    return (r == v.R - 2 or suit_of(c) == v.T
            or (v.yuan_zhu and v.R != 2 and r == 0))


def eff_suit(v: View, c: int) -> int:
    """0..3 the printed suit of a plain card; TRUMP_SUIT (4) for every trump (DBF-5)."""
    return TRUMP_SUIT if is_trump(v, c) else suit_of(c)


def strength(v: View, c: int) -> int:
    """Higher is stronger within the card's effective suit; equal cards equal (DBF-6, V6)."""
    if c == RJ:
        return 100
    if c == BJ:
        return 99
    r = rank_of(c)
    if r == v.R - 2:
        return 98 if suit_of(c) == v.T else 97
    if v.yuan_zhu and v.R != 2 and r == 0:
        return 96 if suit_of(c) == v.T else 95
    return r  # A 12 ... 2 0, in a plain suit or in T


def beats(v: View, x: int, y: int) -> bool:
    """DBF-8: same effective suit and strictly stronger."""
    return eff_suit(v, x) == eff_suit(v, y) and strength(v, x) > strength(v, y)


def is_quad(cards: set[int]) -> bool:
    """Four cards of one printed rank (one a suit), no joker (V8, DBF-40)."""
    return (len(cards) == 4 and all(c < BJ for c in cards)
            and len({rank_of(c) for c in cards}) == 1)


# ---- the tricks ----------------------------------------------------------------------------
def trick_leader(v: View, t: int) -> int:
    """DBF-20: L leads trick 1, the winner of trick t - 1 leads trick t."""
    return v.leader if t == 0 else v.trick_winners[t - 1]


def plays(v: View, t: int) -> dict[int, set[int]]:
    """player -> his cards in trick t (so far)."""
    out: dict[int, set[int]] = {}
    for c, tt in v.trick_of.items():
        if tt == t:
            out.setdefault(v.played_by[c], set()).add(c)
    return out


def voids_of(v: View) -> dict[int, set[int]]:
    """player -> effective suits he holds none of (DBF-25; Dun tricks: trumps, V8)."""
    out: dict[int, set[int]] = {}
    for t in range(v.tno + 1):
        ps = plays(v, t)
        lead = trick_leader(v, t)
        if lead not in ps:
            continue
        led_cards = ps[lead]
        n = len(led_cards)
        dun = v.jilin_dun and is_quad(led_cards)
        led = eff_suit(v, min(led_cards))
        for p, cards in ps.items():
            if p == lead:
                continue
            if dun:
                if not is_quad(cards) and sum(is_trump(v, c) for c in cards) < 4:
                    out.setdefault(p, set()).add(TRUMP_SUIT)
            elif sum(eff_suit(v, c) == led for c in cards) < n:
                out.setdefault(p, set()).add(led)
    return out


def no_quad_at(v: View) -> list[tuple[int, int]]:
    """(player, trick): Dun tricks (V8) where that follower played no four-of-a-kind, so held
    none then."""
    out = []
    if not v.jilin_dun:
        return out
    for t in range(v.tno + 1):
        ps = plays(v, t)
        lead = trick_leader(v, t)
        if lead in ps and is_quad(ps[lead]):
            out += [(p, t) for p, cards in ps.items() if p != lead and not is_quad(cards)]
    return out


def leader_of_beaten(v: View) -> dict[int, set[int]]:
    """DBF-23: hidden card -> its allowed holders, for the hidden cards that beat a card of
    a valid (non-Dun) multi-lead: they were the leader's or in the kitty at the lead, so
    they are there now."""
    hidden = hidden_cards(v)
    out: dict[int, set[int]] = {}
    for t in range(v.tno + 1):
        ps = plays(v, t)
        lead = trick_leader(v, t)
        if lead not in ps or len(ps[lead]) < 2:
            continue
        if v.jilin_dun and is_quad(ps[lead]):
            continue  # a Dun is exempt (V8, DBF-40)
        for c in hidden:
            if any(beats(v, c, x) for x in ps[lead]):
                out[c] = out.get(c, {0, 1, 2, 3, KITTY}) & {lead, KITTY}
    return out


def hidden_cards(v: View) -> set[int]:
    return set(range(NUM_CARDS)) - v.mine - set(v.played_by)


def sees_kitty(v: View) -> bool:
    """Whether me knows the whole kitty: he is L (he discarded it, DBF-17) or V10."""
    return v.me == v.leader or v.show_kitty


@dataclass
class Info:
    """What every layout must give one holder (a player, or the kitty)."""

    size: int = 0
    voids: set[int] = field(default_factory=set)
    has: set[int] = field(default_factory=set)
    not_has: set[int] = field(default_factory=set)


def allowed_holders(v: View) -> dict[int, set[int]]:
    """hidden card -> the holders (players, KITTY) it may have in a consistent layout, each
    constraint alone (voids, the known kitty, the exposure, multi-lead validity)."""
    hidden = hidden_cards(v)
    voids = voids_of(v)
    beaten = leader_of_beaten(v)
    out = {}
    for c in hidden:
        ok = {p for p in range(NUM_PLAYERS) if p != v.me} | {KITTY}
        ok -= {p for p, vs in voids.items() if eff_suit(v, c) in vs}
        if c in v.kitty_known:
            ok &= {v.leader, KITTY}
        elif sees_kitty(v):
            ok -= {KITTY}
        if c == v.exposed:
            ok &= {v.exposer, KITTY} if v.exposer == v.leader else {v.exposer}
        if c in beaten:
            ok &= beaten[c]
        out[c] = ok
    return out


def sizes(v: View) -> list[int]:
    """Cards held by players 0..3 and the kitty (index 4)."""
    return [HAND_SIZE - sum(1 for by in v.played_by.values() if by == p)
            for p in range(NUM_PLAYERS)] + [KITTY_SIZE]


def known_constraints(env, obs) -> list[Info]:
    """Per holder 0..3 and KITTY: size, void effective suits (players), cards known to be /
    not to be his (hidden cards only). Dun's no-quad rule is not listed (not per card)."""
    v = decode(env, obs)
    if v.phase != PHASE_PLAY:
        raise ValueError("dbf_information: trick play only")
    info = [Info() for _ in range(NUM_PLAYERS + 1)]
    for q, s in enumerate(sizes(v)):
        info[q].size = s
    info[v.me].has |= v.mine
    for p, vs in voids_of(v).items():
        info[p].voids |= vs
    for c, ok in allowed_holders(v).items():
        for q in range(NUM_PLAYERS + 1):
            if q not in ok:
                info[q].not_has.add(c)
        if len(ok) == 1:
            info[next(iter(ok))].has.add(c)
    return info


def consistent(env, obs, holders) -> bool:
    """Whether the layout `holders` (int[54]: 0..3, KITTY, -1 played) agrees with everything
    `obs` shows (the conditions: docs/samplers.md)."""
    v = decode(env, obs)
    if v.phase != PHASE_PLAY:
        return False
    h = [int(x) for x in np.asarray(holders).reshape(-1)]
    if len(h) != NUM_CARDS:
        return False
    for c in range(NUM_CARDS):
        if c in v.played_by:
            if h[c] != -1:
                return False
        elif c in v.mine:
            if h[c] != v.me:
                return False
        elif h[c] not in {0, 1, 2, 3, KITTY} or h[c] == v.me:
            return False
    if [sum(1 for x in h if x == q) for q in range(NUM_PLAYERS + 1)] != sizes(v):
        return False
    for c, ok in allowed_holders(v).items():
        if h[c] not in ok:
            return False
    for p, t in no_quad_at(v):  # V8: no four-of-a-kind in his hand at trick t
        then = {c for c in range(NUM_CARDS) if h[c] == p} | {
            c for c, by in v.played_by.items() if by == p and v.trick_of[c] >= t}
        if any(all(13 * s + r in then for s in range(4)) for r in range(13)):
            return False
    return True
