"""Setup of the Da Bai Fen engine scenario tests (`test_engine_scenarios.py`): deals planned from
a scenario's hands, the engine walked to the scenario's trick through checked steps, and the
whole plays (card sets) the engine's mask lets the mover complete.

A scenario names a few cards per seat (its *tail*: the hands at the scenario's trick, or a last
trick). `plan_hand` completes them into a full deal (12 cards a seat, a kitty of 6): every
other card goes into *filler* tricks played before the tail, each filler trick four cards of
one effective suit (so every play in it follows suit and is legal whatever else the seats
hold) won by its strongest card, whose owner is chosen so that the tail's leader has the lead
when the filler ends (and, where asked, so that the opponents take exactly so many points in
the filler). The kitty is completed so that each effective suit's filler cards come in fours.
T is fixed by an exposure of the R card of suit T by whoever holds it (DBF-12/16), or where
that card is in the kitty, by turning it first (DBF-14). L discards the six kitty cards it
picked up (DBF-17), so the kitty of the scored hand is the dealt one.

Nothing here decides a rule result: the tests assert the scenario's stated results on the
engine's summary and mask; the plan's trick winners are asserted trick by trick on the engine
too (the next trick's leader).
"""

from __future__ import annotations

import dataclasses
import itertools

import jax
import numpy as np

import kanjax
from kanjax.api import checked_step, jitted
from kanjax.games.da_bai_fen import spec as ds

C = ds.DECK.card
KEY = jax.random.PRNGKey(0)
BOTH = (ds.PHASE_DRAW, ds.PHASE_FINAL_PASS)


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def suit(letter: str) -> int:
    return ds.SUITS.index(letter)


def combos(texts) -> set[frozenset[int]]:
    return {frozenset(cards(t)) for t in texts}


def make(flags: dict):
    return kanjax.make("da_bai_fen", **flags)


# ---- a hand's card order, for planning only (DBF-5/6, V6) -----------------------------------
@dataclasses.dataclass(frozen=True)
class Order:
    R: int  # the trump level
    T: int  # the trump suit
    yz: bool = False  # yuan_zhu in the config

    def trump(self, c: int) -> bool:
        r = ds.level_rank(self.R)
        return (c >= ds.BJ or ds.rank_of(c) == r or ds.suit_of(c) == self.T
                or (self.yz and r != 0 and ds.rank_of(c) == 0))

    def eff(self, c: int) -> int:
        return 4 if self.trump(c) else ds.suit_of(c)

    def strength(self, c: int) -> int:
        r = ds.level_rank(self.R)
        if c >= ds.BJ:
            return 18 if c == ds.RJ else 17
        if ds.rank_of(c) == r:
            return 16 if ds.suit_of(c) == self.T else 15
        if self.yz and r != 0 and ds.rank_of(c) == 0:
            return 14 if ds.suit_of(c) == self.T else 13
        return ds.rank_of(c)


def points(cs) -> int:
    return sum(ds.CARD_POINTS[c] for c in cs)


# ---- plans -------------------------------------------------------------------------------------
@dataclasses.dataclass
class Plan:
    deal: str
    hands: list[list[int]]
    kitty: list[int]
    T: int
    L: int
    exposer: int | None
    filler: list[tuple[int, list[int]]]  # (leader, cards in play order), single cards
    filler_winners: list[int]
    tail_leader: int
    filler_points: tuple[int, int]  # by team
    tail: dict[int, list[int]]  # seat -> its cards at the tail's start

    def tail_plays(self) -> list[list[int]]:
        """The tail as one trick in play order from its leader (each seat's whole tail)."""
        return [self.tail[(self.tail_leader + i) % 4] for i in range(4)]


def _kitty(rest: list[int], must: list[int], order: Order, want_points: int | None):
    """The kitty: `must` and cards of `rest` so that each effective suit's count of the rest
    (less the kitty) is a multiple of 4 (and the kitty holds `want_points`)."""
    need = ds.KITTY_SIZE - len(must)
    by = {e: [c for c in rest if order.eff(c) == e] for e in range(5)}
    for extra in itertools.product(*[(len(by[e]) % 4, len(by[e]) % 4 + 4) for e in range(5)]):
        if sum(extra) != need or any(x > len(by[e]) for e, x in enumerate(extra)):
            continue
        options = []  # per suit: points -> a choice
        for e, x in enumerate(extra):
            opts = {}
            for choice in itertools.combinations(sorted(by[e]), x):
                opts.setdefault(points(choice), list(choice))
            options.append(opts)
        for pick in itertools.product(*[sorted(o.items()) for o in options]):
            total = points(must) + sum(p for p, _ in pick)
            if want_points is None or total == want_points:
                return must + [c for _, choice in pick for c in choice]
    raise AssertionError(f"no kitty completes {ds.DECK.format_hand(must)} to "
                         f"{want_points} points with fours of each suit")


def plan_hand(R: int, T: str, L: int, tail: dict[int, str], *, tail_leader: int | None = None,
              kind: str = "later", starter: int | None = None, declaring: int | None = None,
              levels: tuple[int, int] | None = None, hands_played: int | None = None,
              kitty: str = "", kitty_points: int | None = None,
              filler_opp_points: int | None = None, exposer: int | None = None,
              yz: bool = False) -> Plan:
    """A deal whose hand reaches `tail` (seat -> its cards at that point, equal sizes) with
    `tail_leader` (default L) to lead, after filler tricks. `kind`/`starter`/`declaring`/
    `levels`/`hands_played` are the deal's fields (a later hand by default: S = L, L's team
    declaring, both teams at R). `kitty`: cards it must hold (in this order, first), completed
    to `kitty_points` if given. `filler_opp_points`: the points the opponents take in the
    filler (default: the tail leader wins every filler trick). `exposer`: the seat that
    exposes T (default: whoever holds the R card of T, if not in the kitty)."""
    order = Order(R, suit(T), yz)
    tail_c = {p: cards(tail.get(p, "")) for p in range(4)}
    k = len(tail_c[0])
    assert all(len(v) == k for v in tail_c.values()), tail
    tl = L if tail_leader is None else tail_leader
    declaring = L % 2 if declaring is None else declaring
    used = [c for v in tail_c.values() for c in v]
    must = cards(kitty)
    rest = [c for c in range(ds.NUM_CARDS) if c not in used and c not in must]
    kit = _kitty(rest, must, order, kitty_points)
    rt = ds.card_id(order.T, ds.level_rank(R))  # the R card of T
    if rt in kit:
        kit = [rt] + [c for c in kit if c != rt]
        assert exposer is None, "the R card of T lies in the kitty"
    rest = [c for c in rest if c not in kit]
    # the filler, and who wins which filler trick: the opponents take filler_opp_points, the
    # last goes to the tail leader's team
    opp = 1 - declaring
    team_win = {tl % 2: tl, 1 - tl % 2: (tl + 1) % 4}
    for groups in _groupings(rest, order):
        won = _winners(groups, opp, tl % 2, filler_opp_points)
        if won is not None:
            break
    else:
        raise AssertionError(f"no filler gives the opponents {filler_opp_points}")
    if groups:
        last = won.index(tl % 2)
        groups.append(groups.pop(last))
        won.append(won.pop(last))
    hands = {p: list(tail_c[p]) for p in range(4)}
    filler, winners = [], []
    leader = L
    for g, t in zip(groups, won, strict=True):
        w = team_win[t]
        top = max(g, key=order.strength)
        others = iter(c for c in g if c != top)
        seat_card = {q: top if q == w else next(others) for q in ((leader + i) % 4
                                                                  for i in range(4))}
        for q, c in seat_card.items():
            hands[q].append(c)
        filler.append((leader, [seat_card[(leader + i) % 4] for i in range(4)]))
        winners.append(w)
        leader = w
    assert leader == tl
    if exposer is None and rt not in kit:
        exposer = next(p for p in range(4) if rt in hands[p])
    assert exposer is None or rt in hands[exposer]
    fields = [f"kind={kind}", f"starter={L if starter is None else starter}"]
    if kind == "later":
        fields.append(f"declaring={declaring}")
    levels = levels or (R, R)
    fields.append(f"levels={levels[0]},{levels[1]}")
    if hands_played is not None:
        fields.append(f"hands={hands_played}")
    hands_l = [sorted(hands[p]) for p in range(4)]
    assert all(len(h) == ds.HAND_SIZE for h in hands_l)
    deal = " | ".join([" ".join(["da_bai_fen"] + fields)]
                      + [ds.DECK.format_hand(h) for h in hands_l]
                      + ["kitty: " + ds.DECK.format_hand(kit)])
    fp = [0, 0]
    for (_, g), w in zip(filler, winners, strict=True):
        fp[w % 2] += points(g)
    return Plan(deal, hands_l, kit, order.T, L, exposer, filler, winners, tl, tuple(fp), tail_c)


def _groupings(rest: list[int], order: Order):
    """Ways to cut each effective suit's cards into fours whose strongest card is unique: round
    robin by strength (the point cards spread), or the point cards together."""
    for concentrate in (False, True):
        groups = []
        for e in range(5):
            cs = sorted((c for c in rest if order.eff(c) == e), key=order.strength, reverse=True)
            n = len(cs) // 4
            if concentrate:
                cs = [c for c in cs if points([c])] + [c for c in cs if not points([c])]
                groups += [cs[4 * j:4 * j + 4] for j in range(n)]
            else:
                groups += [[cs[i] for i in range(j, len(cs), n)] for j in range(n)]
        tops = [[order.strength(c) for c in g] for g in groups]
        if all(t.count(max(t)) == 1 for t in tops):
            yield groups


def _winners(groups, opp: int, last_team: int, opp_points: int | None):
    """The team winning each group: the opponents' groups hold `opp_points` (None: all go to
    `last_team`); at least one group is `last_team`'s (it ends the filler)."""
    if opp_points is None:
        return [last_team] * len(groups)
    for mask in range(1 << len(groups)):
        w = [opp if mask >> i & 1 else 1 - opp for i in range(len(groups))]
        if (sum(points(g) for g, t in zip(groups, w, strict=True) if t == opp) == opp_points
                and (not groups or last_team in w)):
            return w
    return None


# ---- walking the engine ------------------------------------------------------------------------
def facts(env, s) -> dict:
    return {k: np.asarray(v) for k, v in jitted(env, "summary")(s).items()}


def step(env, s, action: int):
    return checked_step(env, s, int(action), KEY)


def play(env, s, seat: int, text):
    """`seat` picks the cards of `text` (tokens or ids) and, when leading, plays them."""
    assert int(s.current_player) == seat, (text, seat, int(s.current_player))
    leading = int(facts(env, s)["plays"]) == 0
    for c in cards(text) if isinstance(text, str) else text:
        s = step(env, s, ds.PICK + c)
    if leading:
        s = step(env, s, ds.PLAY)
    return s


def play_trick(env, s, *plays):
    first = int(s.current_player)
    for i, text in enumerate(plays):
        s = play(env, s, (first + i) % 4, text)
    return s


def through_exposure(env, s, exposer: int | None, T: int):
    """Pass every exposure decision but the exposer's first chance to expose T."""
    while int(facts(env, s)["phase"]) in BOTH:
        a = ds.EXPOSE + T
        mine = exposer is not None and int(s.current_player) == exposer
        s = step(env, s, a if mine and s.legal_action_mask[a] else ds.PASS)
    return s


def to_tail(env, plan: Plan):
    """The engine from the plan's deal to the tail's first lead: exposures, L's discard of the
    six kitty cards, claims passed, the filler tricks (each winner checked)."""
    s = through_exposure(env, env.from_deal(plan.deal), plan.exposer, plan.T)
    f = facts(env, s)
    assert (int(f["trump_suit"]), int(f["leader"])) == (plan.T, plan.L)
    assert int(f["exposer"]) == (-1 if plan.exposer is None else plan.exposer)
    if int(f["phase"]) == ds.PHASE_DISCARD:
        for c in plan.kitty:
            s = step(env, s, ds.PICK + c)
    while int(facts(env, s)["phase"]) == ds.PHASE_CLAIM:
        s = step(env, s, ds.PASS)
    assert sorted(np.flatnonzero(np.asarray(s._loc) == ds.LOC_KITTY)) == sorted(plan.kitty)
    for (leader, plays), w in zip(plan.filler, plan.filler_winners, strict=True):
        assert int(s.current_player) == leader
        s = play_trick(env, s, *[[c] for c in plays])
        assert int(s.current_player) == w
    f = facts(env, s)
    assert int(f["phase"]) == ds.PHASE_PLAY and int(s.current_player) == plan.tail_leader
    assert list(f["points"]) == list(plan.filler_points)
    return s


def whole_plays(env, s) -> set[frozenset[int]]:
    """Every play (a lead or a follow) the mover can complete by picks through the mask: a
    selection is completable iff each pick is legal in turn (and a lead's `play` at its end)."""
    found: set[frozenset[int]] = set()
    mover = int(s.current_player)

    def search(st, sel: frozenset[int]) -> None:
        mask = np.asarray(st.legal_action_mask)
        if mask[ds.PLAY]:
            found.add(sel)
        for c in np.flatnonzero(mask[:ds.PLAY]):
            if c > max(sel, default=-1):  # sets, not orders
                nxt = step(env, st, ds.PICK + int(c))
                if bool(env.turn_done(nxt)) or int(nxt.current_player) != mover:
                    found.add(sel | {int(c)})  # a follow closed by its n-th pick
                else:
                    search(nxt, sel | {int(c)})

    search(s, frozenset())
    return found
