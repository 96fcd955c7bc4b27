"""Engine positions for the Konkan tests: a state built from the cards a scenario names (hands,
table melds, the pile, the stock top first), stepped by name; a brute-force oracle of the
opening search (KON-E11), written from the rules, for the kernel's tests; and planners of an
opening or a konkan from a hand (with the reference's meld lists), for the random players."""

from __future__ import annotations

import functools
import itertools
import random

import jax.numpy as jnp
import numpy as np

import kanjax
from kanjax.api import jitted
from kanjax.games.konkan import engine
from kanjax.games.konkan import spec as ks
from kanjax.games.konkan.reference import apply_move, moves, new_melds, new_runs, new_sets
from tests.harness.named import legal, play  # noqa: F401 (the scenarios import them here)

TOKENS = ks.DECK.tokens
POS_RANK = [ks.position_rank(q) for q in range(14)]
VAL = [ks.rank_value(ks.position_rank(q)) for q in range(14)]


def make(**flags) -> engine.KonkanEnv:
    return kanjax.make("konkan", **flags)


def cards(text: str) -> list[int]:
    return [ks.DECK.card(t) for t in text.split()]


def counts(text: str) -> np.ndarray:
    return np.bincount(cards(text), minlength=ks.NUM_TYPES).astype(np.int32)


def meld_fields(text: str) -> tuple[int, int, int, int]:
    """(kind, suit or rank, naturals word, jokers) of a meld written as its cards: a run in
    position order (`4S JK 6S`; a first Ace is Ace low, a later one Ace high), a set (`8H 8S
    JK`); `run:` / `set:` in front say which where the cards do not."""
    kind = None
    if ":" in text:
        head, text = text.split(":", 1)
        kind = ks.RUN_MELD if head.strip() == "run" else ks.SET_MELD
    toks = text.split()
    nat = [t for t in toks if t != "JK"]
    ranks = {ks.rank_of(ks.DECK.card(t)) for t in nat}
    if kind is None:
        kind = ks.SET_MELD if len(ranks) == 1 and len(nat) >= 2 else ks.RUN_MELD
    if kind == ks.SET_MELD:
        r = ranks.pop()
        suits = sum(1 << ks.suit_of(ks.DECK.card(t)) for t in nat)
        return kind, r, suits, toks.count("JK")
    i = next(i for i, t in enumerate(toks) if t != "JK")
    c0 = ks.DECK.card(toks[i])
    r0 = ks.rank_of(c0)
    p0 = (0 if i == 0 else 13) if r0 == 0 else r0
    start = p0 - i
    nw = jw = 0
    for j, t in enumerate(toks):
        if t == "JK":
            jw |= 1 << (start + j)
        else:
            nw |= 1 << (start + j)
    return kind, ks.suit_of(c0), nw, jw


def position(env, *, hands, melds=(), pile="", stock=None, mover=0, dealer=None, rnd=1,
             phase=ks.PHASE_ACT, opened=None, requested=(), opened_start=None, taken=-1,
             selection="", totals=None, flags=None):
    """The state of a scenario: `hands` per seat, `melds` (owner, cards) in slot order, the
    `pile` bottom first, the `stock` top first (default: the cards named nowhere, up to the
    stock's size; the others are out of play). In PHASE_ACT the mover has just drawn (the
    turn's snapshot is this position); in PHASE_DRAW the turn starts (its mask resolved).
    `flags`: the turn's header slots (turn_melds, turn_value, ...)."""
    n = env.n
    dealer = (mover - 1) % n if dealer is None else dealer
    hc = np.stack([counts(h) for h in hands]).astype(np.int32)
    kind = np.full(ks.MAX_MELDS, -1)
    owner = np.full(ks.MAX_MELDS, -1)
    key = np.full(ks.MAX_MELDS, -1)
    nat = np.zeros(ks.MAX_MELDS, np.int32)
    jok = np.zeros(ks.MAX_MELDS, np.int32)
    used = hc.sum(0)
    for m, (o, text) in enumerate(melds):
        kind[m], key[m], nat[m], jok[m] = meld_fields(text)
        owner[m] = o
        used = used + counts(text.split(":")[-1])
    pile_cards = cards(pile)
    used = used + np.bincount(pile_cards, minlength=ks.NUM_TYPES) if pile_cards else used
    rest = [t for t in range(ks.NUM_TYPES) for _ in range(ks.COPIES - int(used[t]))]
    assert all(used <= ks.COPIES), "a card more than twice"
    size = ks.stock_size(n)
    stock_cards = rest[:size] if stock is None else cards(stock)
    for t in stock_cards:
        rest.remove(t)
    drawn = size - len(stock_cards)
    deck = np.array(rest + [0] * ks.DECK_SIZE)[:ks.DECK_SIZE]
    base = ks.HAND_SIZE * n + 1 + drawn
    deck[base:base + len(stock_cards)] = stock_cards
    pile_arr = np.zeros(ks.DECK_SIZE, np.int32)
    pile_arr[:len(pile_cards)] = pile_cards
    if opened is None:
        opened = [p in set(owner[owner >= 0].tolist()) for p in range(n)]
    if opened_start is None:
        opened_start = bool(opened[mover])
    g = {k: 0 for k in engine.HEAD}
    g.update(phase=phase, dealer=dealer, round=rnd, drawn=drawn, pile_n=len(pile_cards),
             nmelds=len(melds), snap_nmelds=len(melds), taken=taken,
             opened=sum(1 << p for p in range(n) if opened[p]),
             requested=sum(1 << p for p in requested), opened_start=int(opened_start),
             outcome=ks.IN_PLAY, finisher=-1, pending=int(phase == ks.PHASE_DRAW))
    g.update(flags or {})
    g = {k: jnp.int32(v) for k, v in g.items()}
    tot = np.zeros(5, np.int32)
    if totals is not None:
        tot[:n] = totals
    g["totals"], g["scores"] = jnp.asarray(tot), jnp.zeros(5, jnp.int32)
    i8, i16 = jnp.int8, jnp.int16
    s = engine.KonState(
        current_player=jnp.int8(mover), legal_action_mask=jnp.zeros(ks.NUM_ACTIONS, bool),
        rewards=jnp.zeros(n, jnp.float32), terminated=jnp.bool_(False),
        truncated=jnp.bool_(False), illegal_action=jnp.bool_(False), step_count=jnp.int32(0),
        _hands=jnp.asarray(hc, i8), _sel=jnp.asarray(counts(selection), i8),
        _deck=jnp.asarray(deck, i8), _pile=jnp.asarray(pile_arr, i8),
        _mk=jnp.asarray(kind, i8), _mo=jnp.asarray(owner, i8), _mx=jnp.asarray(key, i8),
        _mn=jnp.asarray(nat, i16), _mj=jnp.asarray(jok, i16), _sh=jnp.asarray(hc[mover], i8),
        _sn=jnp.asarray(nat, i16), _sj=jnp.asarray(jok, i16),
        _h=jnp.zeros(len(engine.HEAD), i16), _w=jnp.zeros((2, 5), jnp.int32))
    s = engine.KonkanEnv._pack(s, g)
    if phase == ks.PHASE_DRAW:
        return jitted(env, "_resolve")(s)
    return jitted(env, "_finalize")(s)


def pick_all(env, state, text: str):
    return play(env, state, *[f"pick {t}" for t in text.split()])


def summary(env, state) -> dict:
    return {k: np.asarray(v) for k, v in jitted(env, "summary")(state).items()}


def meld_text(env, state, m: int) -> str:
    """Table meld m as its cards (runs in position order, `JK` for a joker)."""
    f = summary(env, state)
    kind = int(f["meld_kind"][m])
    cells = f["meld_cards"][m]
    if kind == ks.RUN_MELD:
        su = int(f["meld_suit"][m])
        return " ".join("JK" if cells[q] == ks.JOKER_CARD else
                        TOKENS[ks.card_type(su, POS_RANK[q])] for q in range(14) if cells[q])
    r = int(f["meld_rank"][m])
    return " ".join([TOKENS[ks.card_type(u, r)] for u in range(4) if cells[u]]
                    + ["JK"] * int(f["meld_jokers"][m]))


def hand_text(env, state, p: int) -> str:
    h = summary(env, state)["hands"][p]
    return " ".join(TOKENS[t] for t in range(ks.NUM_TYPES) for _ in range(int(h[t])))


# ---- the opening oracle (KON-E11, KON-33), brute force -----------------------------------------
def opening_oracle(cnt, c: int, T: int, need_run: bool, need_c: bool) -> bool:
    """Some disjoint melds of `cnt` (53 counts) contain a card of type c (need_c), are worth
    T or more, hold a run (need_run) and leave a card: a memoised search over every packing
    (the lowest natural left is unused, or the lowest natural of a set or of a run)."""
    best = _best(tuple(int(x) for x in cnt[:52]), int(cnt[52]), int(c) if need_c else -1)
    return any((run or not need_run) and (used or not need_c) and left and v >= T
               for (run, used, left), v in best.items())


def _merge(out, key, v):
    if v > out.get(key, -1):
        out[key] = v


@functools.cache
def _best(rem: tuple, J: int, c: int) -> dict:
    """(a run, c used, a card left) -> the best value of melds from rem + J jokers."""
    x = next((t for t in range(52) if rem[t] > 0), None)
    if x is None:
        return {(False, False, J > 0): 0}
    out: dict = {}
    s, r = divmod(x, 13)
    base = list(rem)
    base[x] -= 1
    for (run, used, _), v in _best(tuple(base), J, c).items():  # x unused
        _merge(out, (run, used, True), v)
    others = [u for u in range(s + 1, 4) if rem[13 * u + r] > 0]
    for size in range(4):  # x in a set with higher suits and jokers
        for sub in itertools.combinations(others, size):
            for k in range(min(J, 2) + 1):
                if not 3 <= 1 + size + k <= 4:
                    continue
                nxt = list(base)
                for u in sub:
                    nxt[13 * u + r] -= 1
                used = x == c or any(13 * u + r == c for u in sub) or (c == 52 and k > 0)
                v0 = (1 + size + k) * ks.rank_value(r)
                for (run, u2, left), v in _best(tuple(nxt), J - k, c).items():
                    _merge(out, (run, u2 or used, left), v + v0)
    for q in ([0, 13] if r == 0 else [r]):  # x the lowest natural of a run of its suit
        for k in range(3, 14):
            for p in range(max(0, q - k + 1), min(q, 14 - k) + 1):
                window = [w for w in range(p, p + k) if w != q]
                choices = [["J", "N"] if POS_RANK[w] > r and rem[13 * s + POS_RANK[w]] > 0
                           else ["J"] for w in window]
                for pick in itertools.product(*choices):
                    jk = pick.count("J")
                    if jk > J:
                        continue
                    nxt = list(base)
                    for w, ch in zip(window, pick, strict=True):
                        if ch == "N":
                            nxt[13 * s + POS_RANK[w]] -= 1
                    if min(nxt) < 0:
                        continue
                    used = x == c or (c == 52 and jk > 0) or any(
                        ch == "N" and 13 * s + POS_RANK[w] == c
                        for w, ch in zip(window, pick, strict=True))
                    v0 = sum(VAL[w] for w in range(p, p + k))
                    for (_, u2, left), v in _best(tuple(nxt), J - jk, c).items():
                        _merge(out, (True, u2 or used, left), v + v0)
    return out


# ---- the table actions, brute force (KON-E6..E9) ----------------------------------------------
def _types_of(sel) -> tuple:
    return tuple(sorted(sel))


def finals(hand, melds, can_meld=True, run_lengths=range(3, 14), set_sizes=(3, 4),
           can_table=True):
    """Every finishing action of a hand (53 counts) and table melds ((kind, key, naturals,
    jokers) as the engine stores them): (action name, the selection it lays, sorted types),
    written from KON-E6..E9 (KON-13: a card stays in hand)."""
    hand = [int(x) for x in hand]
    J, nh = hand[52], sum(hand)
    out = []

    def pieces(s, positions, need_natural):
        avail = [q for q in positions if hand[ks.card_type(s, POS_RANK[q])] > 0]
        for r in range(len(avail) + 1):
            for nat in itertools.combinations(avail, r):
                jk = len(positions) - len(nat)
                if jk <= J and (len(nat) >= 1 or not need_natural):
                    yield [ks.card_type(s, POS_RANK[q]) for q in nat] + [52] * jk

    if can_meld:
        for s in range(4):
            for p, k in engine.mk.WINDOWS:
                if k in run_lengths and k <= nh - 1:
                    for sel in pieces(s, range(p, p + k), True):
                        out.append((f"run {p}", _types_of(sel)))
        for r in range(13):
            suits = [u for u in range(4) if hand[ks.card_type(u, r)] > 0]
            for z in set_sizes:
                if z > nh - 1:
                    continue
                for size in range(1, min(z, len(suits)) + 1):
                    for sub in itertools.combinations(suits, size):
                        if z - size <= J:
                            out.append(("set", _types_of([ks.card_type(u, r) for u in sub]
                                                         + [52] * (z - size))))
    if not can_table:
        return out
    for m, (kind, key, nat, jok) in enumerate(melds):
        if kind == ks.RUN_MELD:
            occ = [q for q in range(14) if (nat | jok) >> q & 1]
            lo, hi, L = occ[0], occ[-1], len(occ)
            for j in range(1, 14):
                if j > nh - 1 or L + j > 13:
                    break
                for name, rng in ((f"layoff {m}", range(hi + 1, hi + j + 1)),
                                  (f"layoff {m} low", range(lo - j, lo))):
                    if min(rng) >= 0 and max(rng) <= 13:
                        for sel in pieces(key, rng, False):
                            out.append((name, _types_of(sel)))
            for q in range(14):
                if jok >> q & 1 and hand[ks.card_type(key, POS_RANK[q])] > 0:
                    out.append((f"retrieve {m}", (ks.card_type(key, POS_RANK[q]),)))
        elif kind == ks.SET_MELD:
            free = [u for u in range(4) if not nat >> u & 1 and hand[ks.card_type(u, key)] > 0]
            z = bin(nat).count("1") + jok
            for size in range(len(free) + 1):
                for sub in itertools.combinations(free, size):
                    for k in range(J + 1):
                        if 1 <= size + k <= nh - 1 and z + size + k <= 4:
                            out.append((f"layoff {m}", _types_of(
                                [ks.card_type(u, key) for u in sub] + [52] * k)))
            missing = [u for u in range(4) if not nat >> u & 1]
            if jok and all(hand[ks.card_type(u, key)] > 0 for u in missing):
                out.append((f"retrieve {m}", _types_of([ks.card_type(u, key) for u in missing])))
    return out


def mask_oracle(hand, sel, melds, **rules) -> set[str]:
    """The picks and finishing actions legal with selection `sel` (53 counts): a pick when
    some finishing action lays a superset of the selection with it (docs/turns.md), a
    finishing action when it lays exactly the selection."""
    fs = finals(hand, melds, **rules)
    s = [int(x) for x in sel]
    names = set()
    for name, f in fs:
        fc = np.bincount(np.array(f, int), minlength=53)
        if (fc == s).all():
            names.add(name)
        if (fc >= s).all():
            for t in np.flatnonzero(fc > np.array(s)):
                names.add(f"pick {TOKENS[t]}")
    return names


def apply_final(hand, melds, name, f):
    """The hand and melds after a finishing action (the engine's storage, KON-E6..E8)."""
    hand = list(hand)
    melds = [list(m) for m in melds]
    for t in f:
        hand[t] -= 1
    nat_types = [t for t in f if t < 52]
    words = name.split()
    if words[0] == "run":
        p, k = int(words[1]), len(f)
        s = nat_types[0] // 13
        nw = sum(1 << (13 if (t % 13 == 0 and p > 0) else t % 13) for t in nat_types)
        jw = sum(1 << q for q in range(p, p + k)) & ~nw
        melds.append([ks.RUN_MELD, s, nw, jw])
    elif words[0] == "set":
        r = nat_types[0] % 13
        melds.append([ks.SET_MELD, r, sum(1 << (t // 13) for t in nat_types), f.count(52)])
    else:
        m = int(words[1])
        kind, key, nat, jok = melds[m]
        if words[0] == "retrieve":
            if kind == ks.SET_MELD:
                hand[52] += jok
                melds[m] = [kind, key, 15, 0]
            else:
                t = f[0]
                bits = [q for q in range(14) if jok >> q & 1 and POS_RANK[q] == t % 13]
                melds[m] = [kind, key, nat | 1 << bits[0], jok & ~(1 << bits[0])]
                hand[52] += 1
        elif kind == ks.SET_MELD:
            melds[m] = [kind, key, nat | sum(1 << (t // 13) for t in nat_types), jok + f.count(52)]
        else:
            occ = [q for q in range(14) if (nat | jok) >> q & 1]
            rng = (range(occ[-1] + 1, occ[-1] + 1 + len(f)) if len(words) == 2
                   else range(occ[0] - len(f), occ[0]))
            nw = 0
            for t in nat_types:
                q = [q for q in rng if POS_RANK[q] == t % 13][0]
                nw |= 1 << q
            jw = sum(1 << q for q in rng) & ~nw
            nat, jok = nat | nw, jok | jw
            if nat | jok == 0x3FFE:
                nat, jok = (nat & 0x1FFF) | (nat >> 13 & 1), (jok & 0x1FFF) | (jok >> 13 & 1)
            melds[m] = [kind, key, nat, jok]
    return hand, melds


def opened_take_oracle(hand, c: int, melds, must_use: bool = True) -> bool:
    """KON-E11 for a player opened before the turn: after taking c, does some sequence of
    legal table actions end with a card of type c placed by a new meld or a layoff (without
    `must_use`, also: hold a new meld or layoff and end with a card of another type in hand,
    docs/rules/konkan_engine.md)? A search over the turn's table actions."""
    start = list(hand)
    start[c] += 1
    seen = set()

    def search(h, ms, placed: bool) -> bool:
        key = (tuple(h), tuple(tuple(m) for m in ms), placed)
        if key in seen:
            return False
        seen.add(key)
        for name, f in finals(h, ms):
            lays = not name.startswith("retrieve")
            if lays and c in f:
                return True
            h2, ms2 = apply_final(h, ms, name, f)
            if (not must_use and (placed or lays)
                    and any(k for t, k in enumerate(h2) if t != c)):
                return True
            if search(h2, ms2, placed or lays):
                return True
        return False

    return search(start, [list(m) for m in melds], False)


# ---- planners (random players: tests.games.konkan.test_reference, .differential) ------------
def plan_opening(hand, cfg: ks.KonConfig, taken: int, rng: random.Random, whole: bool,
                 budget: int = 2000, max_run: int = ks.MAX_RUN) -> list | None:
    """Disjoint new melds of `hand` (randomly ordered; runs of at most `max_run` cards) that
    meet KON-E10, hold the `taken` card with `take_must_use_card` and leave a card that may be
    discarded (KON-18), or with `whole` leave exactly one card (a hand, KON-24); None if none
    is found within `budget` nodes."""
    must = taken if cfg.take_must_use_card else -1
    melds = [mv for mv in new_melds(hand) if mv.meld[0] != ks.RUN_MELD or mv.length <= max_run]
    rng.shuffle(melds)
    nodes = 0

    def search(h, start, value, run, has_c, left, chosen):
        nonlocal nodes
        nodes += 1
        if (chosen and value >= cfg.opening_min and (run or not cfg.opening_requires_run)
                and (must < 0 or has_c) and (left == 1 if whole else left >= 1)
                and (taken < 0 or has_c or any(h[t] for t in range(ks.NUM_TYPES) if t != taken))):
            return chosen
        if nodes > budget:
            return None
        for i in range(start, len(melds)):
            mv = melds[i]
            if len(mv.sel) < left and all(h[t] >= mv.sel.count(t) for t in set(mv.sel)):
                rest = list(h)
                for t in mv.sel:
                    rest[t] -= 1
                found = search(rest, i + 1, value + mv.value, run or mv.meld[0] == ks.RUN_MELD,
                               has_c or taken in mv.sel, left - len(mv.sel), [*chosen, mv])
                if found:
                    return found
        return None

    return search(list(hand), 0, 0, False, False, sum(hand), [])


def plan_konkan(hand, taken: int) -> list | None:
    """A run of 10 or 11 and a set of 4 or 3 covering 14 of 15 cards (KON-25) and leaving a
    card other than the taken one (KON-18), if any."""
    if sum(hand) != 15:
        return None
    for run in new_runs(hand, {10, 11}):
        rest = list(hand)
        for t in run.sel:
            rest[t] -= 1
        for part in new_sets(rest, {14 - run.length}):
            if taken < 0 or rest[taken] == part.sel.count(taken) or taken in run.sel + part.sel:
                return [run, part]
    return None


def plan_placing(hand, table, c: int, must_use: bool, budget: int = 20_000) -> list | None:
    """A taker who had opened before the turn (KON-E11): the turn's table actions (the
    reference's moves onto `table`, its melds in slot order) that end with a card of type c
    placed by a new meld or a layoff, or without `must_use` that lay a meld or a layoff and
    keep a card of another type (KON-18); None if none is found within `budget` positions."""
    seen: set = set()

    def search(h, tb, placed: bool, path: list) -> list | None:
        key = (tuple(h), tuple(sorted(tb)), placed)
        if key in seen or len(seen) > budget:
            return None
        seen.add(key)
        for mv in moves(h, tb):
            h2, tb2 = apply_move(h, tb, mv)
            lays = mv.kind != "retrieve"
            if lays and c in mv.sel or (not must_use and (placed or lays) and any(
                    h2[t] for t in range(ks.NUM_TYPES) if t != c)):
                return [*path, mv]
            found = search(h2, tb2, placed or lays, [*path, mv])
            if found:
                return found
        return None

    return search(list(hand), list(table), False, [])
