"""The JAX Gonin Kan engine (kanjax.games.kan.engine) on the scenarios of kan.md §16 (S01, S04-S30,
S38-S40), the information rules (KAN-46), names and deal strings, and jit/vmap batches.

Scenarios are built from explicit deals: a `Plan` lists tricks (each player's card), the
cards a player keeps, and fills the rest of the deck; `play` feeds the planned cards to the
engine through `checked_step`, which rejects any illegal card, so every plan is also a check
of the legal masks. Compiled steps are shared per config (`_env`).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import checked_step, legal_actions
from kanjax.core.cards import deck
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import summary
from tests.games.kan.helpers import S, card, cur, legal_names, obs

TOK = deck("gonin_kan")
KEY = jax.random.PRNGKey(7)
SUITS = "CDHS"
PTS = {s: [r + s for r in "AKQJ"] for s in SUITS}  # high to low
NPS = {s: [r + s for r in "T98765432" if r + s != "2" + s or s == "S"] for s in SUITS}


@functools.cache
def _env(**flags):
    """One env per config for the whole module (its jitted step compiles once)."""
    return kanjax.make("gonin_kan", **flags)


class Plan:
    """A deal described by its tricks: `mono` adds a trick in which all five players follow
    one suit (the winner holds its highest card), `trick` an explicit one; `hold` gives a
    player cards he keeps; `deal` fills the other cards and writes the deal string."""

    def __init__(self, players=(0, 1, 2, 3, 4)):
        self.players = tuple(players)
        self.tricks: list[dict[int, str]] = []
        self.kept = {p: [] for p in self.players}
        self.used: set[str] = set()

    def _take(self, toks):
        for t in toks:
            assert t not in self.used, f"{t} used twice"
            self.used.add(t)

    def hold(self, p: int, *toks: str) -> Plan:
        self._take(toks)
        self.kept[p] += list(toks)
        return self

    def trick(self, cards: dict[int, str]) -> Plan:
        self._take(c.split(":")[0] for c in cards.values())
        self.tricks.append(dict(cards))
        return self

    def mono(self, suit: str, winner: int, points: int, give: dict | None = None) -> Plan:
        give = give or {}
        pts = [t for t in PTS[suit] if t not in self.used][:points]
        nps = [t for t in NPS[suit] if t not in self.used][: 5 - points]
        cards = pts + nps
        assert len(pts) == points and len(cards) == 5, f"{suit} pool exhausted"
        assert all(t in cards[1:] for t in give.values()), give
        rest = [t for t in cards[1:] if t not in give.values()]
        others = [p for p in self.players if p != winner and p not in give]
        return self.trick({winner: cards[0], **give, **dict(zip(others, rest, strict=True))})

    def hands(self, void: dict[int, str] | None = None) -> dict[int, list[str]]:
        void = void or {}
        hands = {p: [t[p].split(":")[0] for t in self.tricks] + self.kept[p]
                 for p in self.players}
        free = [TOK.token(c) for c in TOK.ids if TOK.token(c) not in self.used]
        free.sort(key=lambda t: sum(t[-1] in v for v in void.values()), reverse=True)
        for t in free:
            want = [p for p in self.players if len(hands[p]) < 10 and t[-1] not in
                    void.get(p, "")]
            assert want, f"no hand can take {t}"
            hands[min(want, key=lambda p: len(hands[p]))].append(t)
        assert all(len(h) == 10 for h in hands.values()), hands
        return hands

    def deal(self, head: str = "", n: int = 5, seats=None, void=None) -> str:
        hands = self.hands(void)
        seats = seats or list(range(n))
        return "gonin_kan " + head + " | " + " | ".join(
            " ".join(hands.get(p, [])) for p in seats)


def full_plan(specs, jk: int, others, players=(0, 1, 2, 3, 4)) -> Plan:
    """8 mono tricks `(suit, winner, points)` (each suit twice, 4 points per suit), then
    tricks 9-10 from the low cards: `jk` keeps JK + 2S and plays JK in trick 9 (odori ban);
    `others` keep 3S 4S / 3H 4H / 3D 4D / 3C 4C; no points after trick 8."""
    plan = Plan(players)
    plan._take(["JK", "2S", "3S", "4S", "3H", "4H", "3D", "4D", "3C", "4C"])
    for spec in specs:
        plan.mono(*spec)
    a, b, c, d = others
    plan.tricks.append({jk: "JK:S", a: "3S", b: "3H", c: "3D", d: "3C"})
    plan.tricks.append({jk: "2S", a: "4S", b: "4H", c: "4D", d: "4C"})
    return plan


def play(env, state, tricks, key=KEY):
    """Play the planned cards until the plan or the deal ends (a JK lead names the suit
    after ':', default S)."""
    for trick in tricks:
        for _ in range(len(trick)):
            p = cur(state)
            tok = trick[p]
            if tok.startswith("JK"):
                mask = np.asarray(state.legal_action_mask)
                named = tok.split(":")[1] if ":" in tok else "S"
                a = ks.JK if mask[ks.JK] else ks.LEAD_JK + SUITS.index(named)
            else:
                a = card(tok)
            state = checked_step(env, state, a, key)
            if S(state)["deal_done"]:
                return state
    return state


def do(env, state, *names, key=KEY):
    for name in names:
        state = checked_step(env, state, name, key)
    return state


# Kankei P1 (JK) and P3 (AC, the deal-1 poh of round 0): not adjacent; P3 is the default
# leader (P4, P0 on his right), so KOI, KOI lets P3 lead trick 1.
def deal1(env, plan: Plan, head: str = "", **kw):
    return env.from_deal(plan.deal(head, **kw))


# ---- S01, S04: deck and trump rotation -------------------------------------------------------
def test_KAN_1_KAN_3_gonin_deck_and_deal_S01():
    env = _env()
    s = S(env.init(jax.random.PRNGKey(3)))
    owner = s["hand_owner"]
    dealt = np.flatnonzero(owner >= 0)
    assert len(dealt) == 50 and np.bincount(owner[dealt], minlength=5).tolist() == [10] * 5
    toks = {TOK.token(c) for c in dealt}
    assert "2S" in toks and not {"2C", "2D", "2H"} & toks
    assert sum(t.endswith("S") for t in toks) == 13
    assert all(sum(t.endswith(x) for t in toks) == 12 for x in "CDH")
    assert sum(t[0] in "AKQJ" and t != "JK" for t in toks) == 16


@pytest.mark.parametrize("n_rounds,trumps", [(10, "CDHCDHCDHS"), (4, "CDHS"), (7, "CDHCDHS")])
def test_KAN_11_deal1_trump_rotation_S04(n_rounds, trumps):
    env = kanjax.make("gonin_kan", n_rounds=n_rounds)  # from_deal only: nothing to compile
    hands = " | ".join(" ".join(TOK.token(c) for c in list(TOK.ids)[10 * i: 10 * i + 10])
                       for i in range(5))
    got = ""
    for r in range(n_rounds):
        st = env.from_deal(f"gonin_kan round={r} | {hands}", key=KEY)
        got += SUITS[int(S(st)["trump"])]
    assert got == trumps


# ---- S05-S07: nijū kan ---------------------------------------------------------------------------
def _nijuu_deal(holder: int, n: int = 5, dealer: int = 0, trump_ace: str = "AC"):
    """Deal where `holder` has JK and the trump ace (10 cards per active player)."""
    plan = Plan([p for p in range(n) if not (n == 6 and p == dealer)])
    plan.hold(holder, "JK", trump_ace)
    return plan


@pytest.mark.parametrize("holder,partner", [(1, 3), (4, 1)])
def test_KAN_18_nijuu_partner_5p_S05(holder, partner):
    env = _env()
    plan = _nijuu_deal(holder)
    hands = plan.hands()
    c = hands[partner][0]
    st = env.from_deal(plan.deal(f"nijuu={c},JK"))
    s = S(st)
    assert np.flatnonzero(s["kankei"]).tolist() == sorted([holder, partner])
    assert s["hand_owner"][card("JK")] == partner and s["hand_owner"][card(c)] == holder
    assert s["hand_owner"][card("AC")] == holder
    assert s["nijuu"].tolist() == [card(c), card("JK")]


@pytest.mark.parametrize("dealer,holder,partner", [(0, 4, 1), (2, 0, 3)])
def test_KAN_6_KAN_18_nijuu_partner_6p_S06(dealer, holder, partner):
    env = _env(players=6)
    plan = _nijuu_deal(holder, n=6, dealer=dealer)
    st = env.from_deal(plan.deal(f"players=6 dealer={dealer}", n=6), key=KEY)
    s = S(st)
    assert np.flatnonzero(s["kankei"]).tolist() == sorted([holder, partner])
    assert not s["kankei"][dealer] and s["nijuu"][0] >= 0


def test_KAN_18_KAN_19_KAN_36_KAN_37_nijuu_roles_S07():
    env = _env()
    # Round 1: trump D. After the exchange (c = 7C from P3, x = JK): P3 holds JK, P1 AD + 7C.
    post = full_plan([("S", 0, 1), ("S", 3, 3), ("H", 1, 4), ("H", 2, 0), ("D", 1, 1),
                      ("D", 4, 3), ("C", 3, 0, {1: "7C"}), ("C", 1, 4)],
                     jk=3, others=[0, 1, 2, 4])
    hands = post.hands()
    assert "AD" in hands[1] and "7C" in hands[1] and "JK" in hands[3]
    hands[1] = [t if t != "7C" else "JK" for t in hands[1]]
    hands[3] = [t if t != "JK" else "7C" for t in hands[3]]
    text = "gonin_kan round=1 nijuu=7C,JK | " + " | ".join(" ".join(hands[p]) for p in range(5))
    st = env.from_deal(text)
    s = S(st)
    assert s["trump"] == 1 and s["nijuu"].tolist() == [card("7C"), card("JK")]
    own = s["hand_owner"]
    assert own[card("JK")] == 3 and own[card("AD")] == 1 and own[card("7C")] == 1
    assert np.flatnonzero(s["kankei"]).tolist() == [1, 3]
    st = do(env, st, "KOI", "KOI")
    st = play(env, st, post.tricks)
    s = S(st)
    assert s["last_outcome"] == ks.NORMAL_WIN and s["deal"] == 2 and s["rk"] == 1
    assert cur(st) == 1  # deal 2: the deal-1 ace holder P1 signals ...
    st = do(env, st, "signal F5")
    assert cur(st) == 3  # ... and the deal-1 joker holder P3 names trump and leads
    st = do(env, st, "trump S")
    assert cur(st) == 3 and S(st)["trump"] == 3
    # deal 3 (from a deal string with the same roles): roles reversed
    st3 = env.from_deal(f"gonin_kan round=1 deal=3 kankei=1,3 joker=3 ace=1 rk=2 rm=-2 "
                        f"won=0,0 | {_any_hands()}")
    assert cur(st3) == 3
    st3 = do(env, st3, "signal F5")
    assert cur(st3) == 1
    assert cur(do(env, st3, "trump C")) == 1


def _any_hands(n: int = 5, dealer: int = 0) -> str:
    plan = Plan([p for p in range(n) if not (n == 6 and p == dealer)])
    return plan.deal(n=n).split(" | ", 1)[1]


# ---- S08-S10: seat change, default leader, next dealer -----------------------------------------
def test_KAN_20_KAN_21_seat_change_and_play_order_S08():
    env = _env()
    plan = Plan().hold(1, "JK").hold(2, "AC")
    st = env.from_deal(plan.deal())
    s = S(st)
    assert s["seat_of"].tolist() == [0, 1, 3, 2, 4]  # P2 <-> P3: S0..S4 = P0 P1 P3 P2 P4
    assert np.flatnonzero(s["kankei"]).tolist() == [1, 2]
    assert cur(st) == 2  # default leader P2 (S3): S4 and S0 are mukankei
    st = do(env, st, "KOI")
    assert cur(st) == 1
    st = do(env, st, "KOI")
    order = []
    for _ in range(5):
        order.append(cur(st))
        st = checked_step(env, st, legal_actions(st)[0], KEY)
    assert order == [2, 4, 0, 1, 3]


def _gyaku_plan(kankei_jk: int, kankei_ace: int, ace: str, muk, players=(0, 1, 2, 3, 4)):
    """Deal 1 lost by gyaku sukonku after trick 5 (mukankei `muk` take 8, kankei 0)."""
    m0, m1, m2 = muk
    plan = Plan(players).hold(kankei_jk, "JK").hold(kankei_ace, ace)
    for spec in [("S", m0, 4), ("S", m1, 0), ("H", m2, 3), ("H", m0, 0), ("C", m1, 1)]:
        plan.mono(*spec)
    return plan


def test_KAN_20_KAN_21_KAN_15_dealer_kankei_swap_S09():
    env = _env()
    plan = _gyaku_plan(4, 0, "AC", muk=(1, 2, 3))
    st = env.from_deal(plan.deal())
    s = S(st)
    assert s["seat_of"].tolist() == [1, 0, 2, 3, 4]  # P0 <-> P1: seating P1 P0 P2 P3 P4
    assert cur(st) == 0  # default leader P0 (S1): S2, S3 are mukankei
    st = play(env, do(env, st, "KOI", "KOI"), plan.tricks)
    s = S(st)
    assert s["last_outcome"] == ks.GYAKU_SUKONKU and s["round"] == 1
    assert s["dealer"] == 2  # occupant of the seat right of P0's seat S1: P2 (P1 skipped)


def test_KAN_20_six_players_seat_change_S10():
    env = _env(players=6)
    # (a) kankei in S5 and S1 (both sides of the dealer) -> S1 <-> S2
    plan = Plan([1, 2, 3, 4, 5]).hold(5, "JK").hold(1, "AC")
    s = S(env.from_deal(plan.deal("players=6", n=6)))
    assert s["seat_of"].tolist() == [0, 2, 1, 3, 4, 5]
    assert np.flatnonzero(s["kankei"]).tolist() == [1, 5] and s["seat_of"][1] == 2
    # (b) kankei in S4 and S5 -> S5 <-> S1; at round end the next dealer is P5 (now in S1)
    plan = _gyaku_plan(4, 5, "AC", muk=(1, 2, 3), players=(1, 2, 3, 4, 5))
    st = env.from_deal(plan.deal("players=6", n=6))
    s = S(st)
    assert s["seat_of"].tolist() == [0, 5, 2, 3, 4, 1] and s["seat_of"][0] == 0
    st = play(env, do(env, st, "KOI", "KOI"), plan.tricks)
    s = S(st)
    assert s["last_outcome"] == ks.GYAKU_SUKONKU and s["dealer"] == 5


# ---- S11-S17: lead, legal plays, trick winner --------------------------------------------------
@pytest.mark.parametrize("first,second,leader", [
    ("KOI", "IKU", 1), ("IKU", "KOI", 3), ("IKU", "IKU", 3), ("KOI", "KOI", 3)])
def test_KAN_21_KAN_25_iku_koi_S11(first, second, leader):
    env = _env()
    st = env.from_deal(Plan().hold(1, "JK").hold(3, "AC").deal())
    assert cur(st) == 3  # the default leader S3 chooses first, then S1
    st = do(env, st, first)
    assert cur(st) == 1
    st = do(env, st, second)
    assert cur(st) == leader
    mask = np.asarray(st.legal_action_mask)
    assert not mask[ks.JK: ks.IKU].any()  # KAN-25: no JK in trick 1
    assert mask[:ks.JK].sum() == 10 - (leader == 1)


@pytest.mark.parametrize("hand,legal", [
    ("JK 5H 9H KH 3C 8C QS 4D TD 6S", {"play 5H", "play 9H", "play KH"}),
    ("JK 3C 8C QS 4D TD 6S 2S 7D JC", {f"play {t}" for t in "3C 8C QS 4D TD 6S 2S 7D JC".split()}),
])
def test_KAN_24_KAN_25_trick1_follow_S12(hand, legal):
    env = _env()
    plan = Plan()
    plan.hold(1, *hand.split()).hold(3, "AC", "7H").hold(4, "8H").hold(0, "TH")
    st = do(env, env.from_deal(plan.deal()), "KOI", "KOI")
    st = do(env, st, "play 7H", "play 8H", "play TH")
    assert cur(st) == 1 and legal_names(env, st) == legal


def _deal2(plan: Plan, kankei=(1, 3), joker=1, ace=3, rk=1, extra="", void=None, n=5):
    head = (f"deal=2 kankei={kankei[0]},{kankei[1]} joker={joker} ace={ace} rk={rk} "
            f"rm={-rk} won=0 {extra}")
    return plan.deal(head, n=n, void=void)


def _s13_state(env, p2_cards, t3, lead):
    """Deal 2, chooser P1 (trump C) leads; after 3 tricks P2 holds `p2_cards`."""
    plan = Plan()
    plan.trick({1: "AS", 2: "2S", 3: "3S", 4: "4S", 0: "5S"})
    plan.trick({1: "AC", 2: "4C", 3: "5C", 4: "6C", 0: "7C"})
    plan.trick(t3)
    plan.hold(2, *p2_cards.split()).hold(1, *lead)
    st = env.from_deal(_deal2(plan))
    st = play(env, do(env, st, "signal F5", "trump C"), plan.tricks)
    return st


def test_KAN_24_KAN_25_KAN_26_joker_follow_and_lead_S13():
    env = _env()
    hand = "JK 5H 9H KH 3C QS TD"
    st = _s13_state(env, hand, {1: "AD", 2: "3D", 3: "4D", 4: "5D", 0: "7D"}, ["7H", "6D"])
    assert cur(st) == 1
    assert legal_names(env, do(env, st, "play 7H")) == {"play 5H", "play 9H", "play KH",
                                                         "play JK"}
    assert legal_names(env, do(env, st, "play 6D")) == {"play TD", "play JK"}
    # P2 leads trick 4: 6 cards + 4 JK leads
    st = _s13_state(env, hand, {1: "6D", 2: "AD", 3: "4D", 4: "5D", 0: "7D"}, [])
    assert cur(st) == 2
    names = legal_names(env, st)
    assert len(names) == 10 and {f"lead JK naming {x}" for x in SUITS} <= names
    # void in the led suit: everything, JK included
    st = _s13_state(env, "JK 5H 9H KH 3C QS 6S", {1: "AD", 2: "3D", 3: "4D", 4: "5D",
                                                   0: "7D"}, ["8D"])
    assert len(legal_names(env, do(env, st, "play 8D"))) == 7


def _s14_plan(jk_pair, leader_pair, rest, t8_winner):
    specs = [("S", 0, 4), ("S", 1, 0), ("H", 2, 4), ("H", 3, 0), ("D", 4, 4), ("D", 0, 0),
             ("C", 1, 4), ("C", t8_winner, 0)]
    plan = Plan()
    plan.hold(2, *jk_pair).hold(t8_winner, *leader_pair)
    for p, cards in rest.items():
        plan.hold(p, *cards)
    for spec in specs:
        plan.mono(*spec)
    return plan


def test_KAN_25_odori_ban_S14():
    env = _env()
    # P2 holds JK 4D when P1 leads TD to trick 9: JK is his only legal card.
    plan = _s14_plan(["JK", "4D"], ["TD", "2S"],
                     {3: ["3S", "4S"], 4: ["3H", "4H"], 0: ["3C", "4C"]}, t8_winner=1)
    st = play(env, do(env, env.from_deal(_deal2(plan, kankei=(2, 4), joker=2, ace=4)),
                      "signal F5", "trump C"), plan.tricks)
    assert cur(st) == 1 and S(st)["hand_owner"][card("JK")] == 2
    st = do(env, st, "play TD")
    assert legal_names(env, st) == {"play JK"}
    st = do(env, st, "play JK", "play 3S", "play 3H", "play 3C")
    assert cur(st) == 2  # JK wins trick 9; in trick 10 nobody holds JK
    assert S(st)["hand_owner"][card("JK")] == -1
    assert legal_names(env, st) == {"play 4D"}
    # P2 leads trick 9 with JK 6C: exactly the four JK leads
    plan = _s14_plan(["JK", "6C"], [], {1: ["2S", "3S"], 3: ["4S", "3H"], 4: ["4H", "3D"],
                                        0: ["4D", "3C"]}, t8_winner=2)
    st = play(env, do(env, env.from_deal(_deal2(plan, kankei=(2, 4), joker=2, ace=4)),
                      "signal F5", "trump C"), plan.tricks)
    assert cur(st) == 2
    assert legal_names(env, st) == {f"lead JK naming {x}" for x in SUITS}
    st = do(env, st, "lead JK naming C", "play 3H", "play 4H", "play 3C", "play 2S")
    assert cur(st) == 2 and legal_names(env, st) == {"play 6C"}


def test_KAN_24_KAN_26_KAN_27_joker_lead_names_suit_S15():
    env = _env()
    plan = Plan()
    plan.trick({0: "AC", 1: "TC", 2: "3C", 3: "5C", 4: "6C"})
    plan.trick({0: "AD", 1: "9D", 2: "3D", 3: "4D", 4: "6D"})
    # (kan.md gives AH to S1 and has S2 play AH too; here S2 trumps with KH)
    plan.hold(0, "JK").hold(1, "QS", "3S", "AH", "4C", "9C", "5D", "8D", "6H").hold(2, "KH")
    text = _deal2(plan, kankei=(0, 2), joker=0, ace=2, void={2: "S"})
    st = env.from_deal(text)
    assert cur(st) == 2  # the shower (deal-1 ace holder)
    st = play(env, do(env, st, "signal F5", "trump H"), plan.tricks)
    assert cur(st) == 0
    st = do(env, st, "lead JK naming S")
    assert legal_names(env, st) == {"play QS", "play 3S"}
    st = do(env, st, "play QS")
    assert len(legal_actions(st)) == 8  # S2 has no spade: any card
    st = do(env, st, "play KH")
    for _ in range(2):
        st = checked_step(env, st, legal_actions(st)[0], KEY)
    assert cur(st) == 0  # JK wins: AC, AD, QS, KH (and the rest) to the kankei
    pk, pm = S(st)["points"].tolist()
    assert pm == 0 and pk >= 4


def _one_trick(env, cards: dict[int, str], trump: str, void: dict[int, str]):
    plan = Plan().trick(cards)
    st = env.from_deal(_deal2(plan, kankei=(0, 2), joker=0, ace=2, void=void))
    return play(env, do(env, st, "signal F5", f"trump {trump}"), plan.tricks)


def test_KAN_27_KAN_28_trump_wins_points_to_team_S16():
    env = _env()
    st = _one_trick(env, {0: "KH", 1: "AH", 2: "3D", 3: "QD", 4: "TS"}, "D",
                    void={2: "H", 3: "H", 4: "H"})
    s = S(st)
    assert cur(st) == 3 and s["points"].tolist() == [0, 3]  # S3 (mukankei) takes KH AH QD


def test_KAN_27_offsuit_never_wins_S17():
    env = _env()
    st = _one_trick(env, {0: "9S", 1: "AH", 2: "JS", 3: "2S", 4: "TS"}, "C", void={1: "S"})
    s = S(st)
    assert cur(st) == 2 and s["points"].tolist() == [2, 0]  # S2 (kankei) takes AH JS


# ---- S18-S25: deal results ---------------------------------------------------------------------
def _normal(kankei_points: int, w=(1, 3), m=(0, 2, 4)):
    """Full-deal specs: kankei (jk=w[0], ace=w[1]) end with `kankei_points` (8 or 9, or 7),
    the mukankei score first, so no sukonku condition ever holds."""
    k0, k1 = w
    m0, m1, m2 = m
    c_k = {9: 2, 8: 1, 7: 1}[kankei_points]
    h_k = 4 if kankei_points >= 8 else 3
    return [("S", m0, 1), ("S", k0, 3), ("H", k1, h_k), ("H", m1, 4 - h_k), ("D", m2, 4),
            ("D", k0, 0), ("C", k1, c_k), ("C", m0, 4 - c_k)]


@pytest.mark.parametrize("deal,kpts,outcome", [
    (1, 9, ks.NORMAL_WIN), (1, 8, ks.NORMAL_LOSS), (2, 8, ks.NORMAL_WIN),
    (2, 7, ks.NORMAL_LOSS), (3, 9, ks.NORMAL_WIN), (3, 8, ks.NORMAL_LOSS)])
def test_KAN_29_KAN_33_targets_S18(deal, kpts, outcome):
    env = _env()
    plan = full_plan(_normal(kpts), jk=1, others=[0, 2, 3, 4])
    if deal == 1:
        st = do(env, env.from_deal(plan.deal()), "KOI", "KOI")
    else:
        won = ",".join(["0"] * (deal - 1))
        st = env.from_deal(plan.deal(f"deal={deal} kankei=1,3 joker=1 ace=3 rk={deal - 1} "
                                     f"rm={1 - deal} won={won}"))
        st = do(env, st, "signal F5", "trump S")
    st = play(env, st, plan.tricks)
    s = S(st)
    assert s["deal_done"] and s["last_outcome"] == outcome


SUKONKU_D1 = [("S", 1, 4), ("H", 3, 4), ("S", 3, 0), ("H", 1, 0), ("D", 1, 0), ("C", 3, 1)]


def _sukonku_deal1(env):
    plan = Plan().hold(1, "JK")
    for spec in SUKONKU_D1:
        plan.mono(*spec)
    return plan, do(env, env.from_deal(plan.deal()), "KOI", "KOI")


def test_KAN_31_sukonku_stops_deal_1_S19():
    env = _env()
    plan, st = _sukonku_deal1(env)
    st = play(env, st, plan.tricks[:5])
    assert not S(st)["deal_done"] and S(st)["points"].tolist() == [8, 0]
    st = play(env, st, plan.tricks[5:])
    s = S(st)
    assert s["deal_done"] and s["last_outcome"] == ks.SUKONKU  # after trick 6, no decision
    assert s["deal"] == 2 and s["rk"] == 2 and s["rm"] == -2 and s["round"] == 0
    assert s["points"].tolist() == [0, 0] and cur(st) == 3  # deal 2: the ace holder signals


# Deal 2, kankei P2 (JK, chooser) and P4 (ace, shower): 8 points with the mukankei at 0 after
# trick 5, won by P2; then a mukankei wins trick 7 with JS.
S20_TRICKS = [("S", 2, 3), ("H", 4, 2), ("D", 2, 0), ("H", 4, 0), ("D", 2, 3), ("C", 4, 0)]


def _s20(env, rk=1, rm=-1):
    plan = Plan()
    for spec in S20_TRICKS:
        plan.mono(*spec)
    plan.trick({0: "JS", 1: "8S", 2: "7S", 3: "6S", 4: "5S"})
    st = env.from_deal(plan.deal(f"deal=2 kankei=2,4 joker=2 ace=4 rk={rk} rm={rm} won=0"))
    assert cur(st) == 4
    st = do(env, st, "signal F1 #0 #1", "trump H")
    assert cur(st) == 2
    return plan, play(env, st, plan.tricks[:5])


def test_KAN_31_stop_decision_deal_2_S20():
    env = _env()
    plan, st = _s20(env)
    s = S(st)
    assert not s["deal_done"] and s["points"].tolist() == [8, 0]
    assert cur(st) == 2 and legal_names(env, st) == {"STOP", "JUUROKU"}
    st = do(env, st, "STOP")
    s = S(st)
    assert s["last_outcome"] == ks.SUKONKU and s["rk"] == 3 and s["deal"] == 3


@pytest.mark.parametrize("flags,rk0,rm0,rk,rm", [
    ({}, 1, -1, -16, 16), ({"scoring": "zero_sum_5p"}, 3, -2, -30, 20)])
def test_KAN_32_KAN_41_KAN_42_juuroku_fails_S21(flags, rk0, rm0, rk, rm):
    env = _env(**flags)
    plan, st = _s20(env, rk0, rm0)
    st = do(env, st, "JUUROKU")
    assert cur(st) == 2  # the declarer leads on
    st = play(env, st, plan.tricks[5:6])
    assert not S(st)["deal_done"]
    st = play(env, st, plan.tricks[6:])
    s = S(st)
    assert s["last_outcome"] == ks.JUUROKU_FAIL and s["round"] == 1
    kankei = np.isin(np.arange(5), [2, 4])
    assert np.asarray(st.rewards).tolist() == np.where(kankei, rk, rm).tolist()


def test_KAN_32_KAN_44_juuroku_succeeds_after_trick_9_S22():
    env = _env()
    plan = Plan()
    for spec in [("S", 3, 4), ("H", 1, 4), ("S", 1, 0), ("H", 3, 0), ("D", 3, 0), ("C", 1, 1),
                 ("D", 3, 3), ("C", 1, 2)]:
        plan.mono(*spec)
    plan.trick({1: "JK:D", 0: "JD", 2: "JC", 3: "3S", 4: "3H"})
    plan.hold(0, "3D").hold(1, "2S").hold(2, "3C").hold(3, "4S").hold(4, "4H")
    st = env.from_deal(plan.deal("deal=3 kankei=1,3 joker=1 ace=3 rk=2 rm=-2 won=0,0"))
    st = do(env, st, "signal F4 #2", "trump S")
    st = play(env, st, plan.tricks[:6])
    assert S(st)["points"].tolist() == [9, 0] and cur(st) == 1
    st = do(env, st, "JUUROKU")
    st = play(env, st, plan.tricks[6:])
    s = S(st)
    assert s["last_outcome"] == ks.JUUROKU_OK and s["round"] == 1  # trick 10 not played
    assert np.asarray(st.rewards).tolist() == [-12, 12, -12, 12, -12]


@pytest.mark.parametrize("flags,rk,rm", [({}, -10, 10), ({"scoring": "zero_sum_5p"}, -12, 8)])
def test_KAN_31_KAN_41_gyaku_sukonku_deal_1_S23(flags, rk, rm):
    env = _env(**flags)
    plan = _gyaku_plan(1, 3, "AC", muk=(0, 2, 4))
    st = play(env, do(env, env.from_deal(plan.deal()), "KOI", "KOI"), plan.tricks[:4])
    assert not S(st)["deal_done"]
    st = play(env, st, plan.tricks[4:])
    s = S(st)
    assert s["last_outcome"] == ks.GYAKU_SUKONKU and s["round"] == 1 and s["dealer"] == 1
    kankei = np.isin(np.arange(5), [1, 3])
    assert np.asarray(st.rewards).tolist() == np.where(kankei, rk, rm).tolist()
    assert s["scores"].tolist() == np.where(kankei, rk, rm).tolist()


# Deal 2, kankei P1 (JK, chooser) and P3 (ace): the mukankei reach 9 after trick 6, kankei 0.
GYAKU_D2 = [("S", 0, 4), ("H", 2, 4), ("S", 4, 0), ("H", 0, 0), ("D", 2, 0), ("C", 4, 1)]


def _gyaku_d2(env, rk, rm, won, extra_tricks=()):
    plan = Plan()
    for spec in GYAKU_D2 + list(extra_tricks):
        plan.mono(*spec)
    st = env.from_deal(plan.deal(f"deal=2 kankei=1,3 joker=1 ace=3 rk={rk} rm={rm} won={won}"))
    st = do(env, st, "signal F3 #4", "trump D")
    st = play(env, st, plan.tricks[:6])
    assert S(st)["points"].tolist() == [0, 9] and cur(st) == 4
    assert legal_names(env, st) == {"STOP", "JUUROKU"}
    return plan, st


def test_KAN_31_KAN_41_gyaku_stop_sets_round_total_S24():
    env = _env()
    plan, st = _sukonku_deal1(env)
    s = S(play(env, st, plan.tricks))
    assert s["last_outcome"] == ks.SUKONKU and s["rk"] == 2 and s["deal"] == 2
    plan, st = _gyaku_d2(env, 2, -2, "SUKONKU")
    st = do(env, st, "STOP")
    s = S(st)
    assert s["last_outcome"] == ks.GYAKU_SUKONKU and s["round"] == 1
    assert np.asarray(st.rewards).tolist() == [3, -3, 3, -3, 3]  # R := -3, the +2 cancelled


@pytest.mark.parametrize("flags,rk0,rm0,rk,rm", [
    ({}, 1, -1, -16, 16), ({"scoring": "zero_sum_5p"}, 3, -2, -15, 10)])
def test_KAN_32_KAN_41_gyaku_juuroku_succeeds_S25(flags, rk0, rm0, rk, rm):
    env = _env(**flags)
    plan, st = _gyaku_d2(env, rk0, rm0, "0", [("D", 2, 4), ("C", 0, 3)])
    st = do(env, st, "JUUROKU")
    st = play(env, st, plan.tricks[6:7])
    assert not S(st)["deal_done"]
    st = play(env, st, plan.tricks[7:])
    s = S(st)
    assert s["last_outcome"] == ks.GYAKU_JUUROKU_OK and s["round"] == 1
    kankei = np.isin(np.arange(5), [1, 3])
    assert np.asarray(st.rewards).tolist() == np.where(kankei, rk, rm).tolist()


# ---- S26-S29: worked examples, 6 players -------------------------------------------------------
def _win_deal1(env):
    plan = full_plan(_normal(9), jk=1, others=[0, 2, 3, 4])
    return play(env, do(env, env.from_deal(plan.deal()), "KOI", "KOI"), plan.tricks)


def _deal3_normal(env, kpts, rk, rm, won):
    plan = full_plan(_normal(kpts), jk=1, others=[0, 2, 3, 4])
    st = env.from_deal(plan.deal(f"deal=3 kankei=1,3 joker=1 ace=3 rk={rk} rm={rm} won={won}"))
    return play(env, do(env, st, "signal F5", "trump C"), plan.tricks)


def _r(st):
    s = S(st)
    return int(s["rk"]), int(s["rm"])


@pytest.mark.parametrize("flags,rks,rms", [
    ({}, [1, 3, 5], [-1, -3, -5]), ({"scoring": "zero_sum_5p"}, [3, 9, 15], [-2, -6, -10])])
def test_KAN_45_worked_example_1_S26(flags, rks, rms):
    env = _env(**flags)
    assert _r(_win_deal1(env)) == (rks[0], rms[0])
    plan, st = _s20(env, rks[0], rms[0])  # kankei P2, P4 here; only the totals matter
    st = do(env, st, "STOP")
    assert _r(st) == (rks[1], rms[1]) and S(st)["deal"] == 3
    st = _deal3_normal(env, 9, rks[1], rms[1], "0,2")
    assert S(st)["last_outcome"] == ks.NORMAL_WIN and S(st)["round"] == 1
    kankei = np.isin(np.arange(5), [1, 3])
    assert np.asarray(st.rewards).tolist() == np.where(kankei, rks[2], rms[2]).tolist()


JUUROKU_OK_D2 = [("S", 2, 3), ("H", 4, 2), ("D", 2, 2), ("C", 4, 0), ("H", 2, 2), ("D", 4, 2),
                 ("S", 2, 1), ("C", 4, 4)]


@pytest.mark.parametrize("flags,rks,rms", [
    ({}, [1, 10, 9], [-1, -10, -9]), ({"scoring": "zero_sum_5p"}, [3, 21, 18], [-2, -14, -12])])
def test_KAN_45_worked_example_2_S27(flags, rks, rms):
    env = _env(**flags)
    assert _r(_win_deal1(env)) == (rks[0], rms[0])
    plan = Plan()
    for spec in JUUROKU_OK_D2:
        plan.mono(*spec)
    st = env.from_deal(plan.deal(f"deal=2 kankei=2,4 joker=2 ace=4 rk={rks[0]} rm={rms[0]} "
                                 "won=0"))
    st = play(env, do(env, st, "signal F5", "trump C"), plan.tricks[:5])
    assert cur(st) == 2 and legal_names(env, st) == {"STOP", "JUUROKU"}
    st = play(env, do(env, st, "JUUROKU"), plan.tricks[5:])
    s = S(st)
    assert s["last_outcome"] == ks.JUUROKU_OK and _r(st) == (rks[1], rms[1])
    st = _deal3_normal(env, 8, rks[1], rms[1], "0,4")
    assert S(st)["last_outcome"] == ks.NORMAL_LOSS  # no W3
    kankei = np.isin(np.arange(5), [1, 3])
    assert np.asarray(st.rewards).tolist() == np.where(kankei, rks[2], rms[2]).tolist()


@pytest.mark.parametrize("flags,r1,r2,r3", [
    ({}, (2, -2), (38, -38), (40, -40)),
    ({"gyaku_juuroku_fail_doubling": False}, (2, -2), (35, -35), (37, -37)),
    ({"scoring": "zero_sum_5p"}, (6, -4), (48, -32), (54, -36))])
def test_KAN_43_KAN_45_worked_example_3_S28(flags, r1, r2, r3):
    env = _env(**flags)
    plan, st = _sukonku_deal1(env)
    st = play(env, st, plan.tricks)
    assert S(st)["last_outcome"] == ks.SUKONKU and _r(st) == r1
    plan, st = _gyaku_d2(env, *r1, "2", [("D", 1, 4)])
    st = play(env, do(env, st, "JUUROKU"), plan.tricks[6:])
    assert S(st)["last_outcome"] == ks.GYAKU_JUUROKU_FAIL and _r(st) == r2
    assert S(st)["deal"] == 3
    st = _deal3_normal(env, 9, *r2, "2,7")
    kankei = np.isin(np.arange(5), [1, 3])
    assert np.asarray(st.rewards).tolist() == np.where(kankei, *r3).tolist()


def test_KAN_17_KAN_40_six_player_dealer_is_kankei_S29():
    env = _env(players=6)
    plan = full_plan(_normal(9, w=(1, 3), m=(2, 4, 5)), jk=1, others=[2, 3, 4, 5],
                     players=(1, 2, 3, 4, 5))
    st = env.from_deal(plan.deal("players=6 deal=3 kankei=1,3 joker=1 ace=3 rk=3 rm=-3 "
                                 "won=0,0", n=6))
    st = play(env, do(env, st, "signal F5", "trump C"), plan.tricks)
    rewards = np.asarray(st.rewards)
    assert rewards.tolist() == [5, 5, -5, 5, -5, -5] and rewards.sum() == 0
    assert S(st)["dealer"] == 1


def test_KAN_15_dealer_can_return_S30():
    env = _env()
    plan = _gyaku_plan(1, 3, "AC", muk=(0, 2, 4))
    st = play(env, do(env, env.from_deal(plan.deal()), "KOI", "KOI"), plan.tricks)
    assert S(st)["dealer"] == 1 and S(st)["seat_of"].tolist() == [0, 1, 2, 3, 4]
    # round 1 (trump D), dealer P1: kankei P4 (JK) and P0 (AD) -> P0 <-> P1
    plan = _gyaku_plan(4, 0, "AD", muk=(1, 2, 3))
    st = env.from_deal(plan.deal("round=1 dealer=1"))
    s = S(st)
    assert s["seat_of"].tolist() == [1, 0, 2, 3, 4] and s["dealer"] == 1
    st = play(env, do(env, st, "KOI", "KOI"), plan.tricks)
    s = S(st)
    assert s["round"] == 2 and s["dealer"] == 0  # right of P1's seat S0 is S1 = P0


# ---- S38-S40: signals, Shippo-Jo, nijū redeal ---------------------------------------------------
def _signal_state(env):
    plan = Plan().hold(3, "KH", "QD")
    return env.from_deal(plan.deal("deal=2 kankei=1,3 joker=1 ace=3 rk=1 rm=-1 won=0"))


def test_KAN_38_KAN_73_signals_and_what_opponents_see_S38():
    env = _env()
    st = _signal_state(env)
    assert cur(st) == 3 and len(legal_actions(st)) == 156
    tour = kanjax.make("gonin_kan", tournament_signals=True)
    st_t = _signal_state(tour)
    assert len(legal_actions(st_t)) == 145
    assert all(a < ks.SIGNAL_F4 for a in legal_actions(st_t) if a >= ks.SIGNAL)
    f2 = do(env, st, "signal F2 KH QD")
    f3 = do(env, st, "signal F3 KH KH")
    assert env.action_from_name("signal F3 KH", st) == env.action_from_name("signal F3 KH KH",
                                                                            st)
    sl = env.observation_spec().slices()["signal"]
    for p in (0, 2, 4):  # the opponents: "shown twice", no cards
        o2, o3 = obs(env, f2, p), obs(env, f3, p)
        np.testing.assert_array_equal(o2, o3)
        assert o2[sl].tolist() == [ks.F2, -1, -1]
    for p in (1, 3):  # the chooser and the shower see the form and the cards
        assert obs(env, f2, p)[sl].tolist() == [ks.F2, card("KH"), card("QD")]
        assert obs(env, f3, p)[sl].tolist() == [ks.F3, card("KH"), card("KH")]


def _s39_plan(muk_ace: bool) -> Plan:
    plan = Plan()
    plan.trick({1: "AC", 2: "KC", 3: "3C", 4: "4C", 0: "5C"})
    plan.trick({1: "3S", 2: "QS", 3: "4S", 4: "5S", 0: "6S"})
    plan.trick({2: "3D", 3: "4D", 4: "5D", 0: "6D", 1: "AD"})
    if muk_ace:  # P2, a mukankei, plays AH
        plan.trick({1: "3H", 2: "AH", 3: "4H", 4: "5H", 0: "6H"})
        plan.trick({2: "7D", 3: "8D", 4: "9D", 0: "TD", 1: "JD"})
    else:
        plan.trick({1: "3H", 2: "4H", 3: "AH", 4: "5H", 0: "6H"})
        plan.trick({3: "7D", 4: "8D", 0: "9D", 1: "TD", 2: "JD"})
    plan.trick({2: "7S", 3: "AS", 4: "8S", 0: "9S", 1: "JK"})
    return plan


@pytest.mark.parametrize("muk_ace", [False, True])
def test_KAN_71_shippo_jo_S39(muk_ace):
    env = _env(shippo_jo=True)
    plan = _s39_plan(muk_ace)
    st = env.from_deal(plan.deal("deal=2 kankei=1,3 joker=1 ace=3 rk=1 rm=-1 won=0"))
    st = play(env, do(env, st, "signal F5", "trump C"), plan.tricks)
    if muk_ace:
        assert cur(st) == 1 and not ({"Shippo CALL"} & legal_names(env, st))
        return
    assert cur(st) == 2 and legal_names(env, st) == {"Shippo CALL", "Shippo NO_CALL"}
    cont = do(env, st, "Shippo NO_CALL")
    assert cur(cont) == 1 and not S(cont)["deal_done"]
    st = do(env, st, "Shippo CALL")
    s = S(st)
    assert s["last_outcome"] == ks.SHIPPO_VOID and s["deal_done"]
    assert s["deal"] == 2 and s["rk"] == 1 and s["rm"] == -1 and s["round"] == 0
    assert not np.asarray(st.rewards).any()
    assert cur(st) == 3 and legal_names(env, st) >= {"signal F5"}  # a new signal, then trump
    assert s["trump"] == -1 and (s["hand_owner"] >= 0).sum() == 50


def test_KAN_70_KAN_18_nijuu_redeal_S40():
    plan = Plan().hold(2, "JK", "AC")
    text = plan.deal()
    env = _env()
    s = S(env.from_deal(text, key=KEY))  # off: nijū procedure, partner P4
    assert np.flatnonzero(s["kankei"]).tolist() == [2, 4] and s["nijuu"][0] >= 0
    redeal = kanjax.make("gonin_kan", nijuu_kan_redeal=True)
    with pytest.raises(ValueError, match="pass a key"):
        redeal.from_deal(text)
    for i in range(5):
        s = S(redeal.from_deal(text, key=jax.random.PRNGKey(i)))
        own = s["hand_owner"]
        assert own[card("JK")] != own[card("AC")]  # redealt: JK and the poh are split
        assert np.flatnonzero(s["kankei"]).tolist() == sorted([own[card("JK")],
                                                               own[card("AC")]])
        assert s["nijuu"].tolist() == [-1, -1]
        assert (own >= 0).sum() == 50 and np.bincount(own[own >= 0]).tolist() == [10] * 5


def test_KAN_70_redeal_is_uniform_over_split_deals():
    env = kanjax.make("gonin_kan", nijuu_kan_redeal=True)
    init = jax.jit(jax.vmap(env.init))
    own = np.asarray(init(jax.random.split(jax.random.PRNGKey(1), 4000))._loc)
    assert (own[:, ks.JK] != own[:, 12]).all()  # round 0: poh = AC
    # JK's holder is uniform over the 5 players; each other card lands with the JK holder
    # with probability 9/49 (the conditional law given the split).
    np.testing.assert_allclose(np.bincount(own[:, ks.JK], minlength=5) / 4000, 0.2, atol=0.03)
    same = (own[:, 5] == own[:, ks.JK]).mean()
    assert abs(same - 9 / 49) < 0.03


# ---- KAN-46: information ---------------------------------------------------------------------
def _mid_deal(env):
    plan = full_plan(_normal(9), jk=1, others=[0, 2, 3, 4])
    st = do(env, env.from_deal(plan.deal()), "KOI", "KOI")
    st = play(env, st, plan.tricks[:3])
    for _ in range(2):  # two cards of trick 4
        st = checked_step(env, st, legal_actions(st)[0], KEY)
    return st


def _swap(state, a: int, b: int, keep=()):
    """Exchange one card (not in `keep`) between the hands of players a and b."""
    loc = np.asarray(state._loc).copy()
    ca = [c for c in np.flatnonzero(loc == a) if TOK.token(c) not in keep][0]
    cb = [c for c in np.flatnonzero(loc == b) if TOK.token(c) not in keep][0]
    loc[ca], loc[cb] = b, a
    return state.replace(_loc=jnp.asarray(loc))


@pytest.mark.parametrize("when", ["deal 1, trick 4", "deal 2, after a signal"])
def test_KAN_46_hidden_hands_do_not_change_observation(when):
    env = _env()
    if when.startswith("deal 1"):
        st = _mid_deal(env)
    else:  # the chooser P1 saw KH and QD; the shower's other cards stay hidden
        st = do(env, _signal_state(env), "signal F2 KH QD")
    for p in range(5):
        for a in range(5):
            for b in range(a + 1, 5):
                other = obs(env, _swap(st, a, b, keep=("KH", "QD")), p)
                same = np.array_equal(obs(env, st, p), other)
                assert same == (p not in (a, b)), (p, a, b)


def _last_deal(env, st, p: int) -> dict:
    o = obs(env, st, p)
    sl = env.observation_spec().slices()
    return {"cards": o[sl["last_cards"]].reshape(53, 3), "winners": o[sl["last_winners"]],
            "points": o[sl["last_points"]], "now": o[sl["cards"]].reshape(53, 4)}


def test_KAN_46_finished_deal_stays_visible():
    """Deal 1 ends in sukonku after trick 6 (S19): while deal 2 is signalled, its trump named
    and its first cards played, every player still sees deal 1's tricks (who played which card
    in which trick, who took it), its trick winners and final points; never the 20 cards
    left in the hands."""
    env = _env()
    plan, st = _sukonku_deal1(env)
    first = _last_deal(env, st, 0)
    assert (first["cards"] == -1).all() and (first["winners"] == -1).all()
    assert first["points"].tolist() == [-1, -1]  # no deal has ended yet
    st = play(env, st, plan.tricks)
    winners = [w for _, w, _ in SUKONKU_D1]
    want = np.full((53, 3), -1)
    for t, trick in enumerate(plan.tricks):
        for p, tok in trick.items():
            want[card(tok), :] = [p, t, winners[t]]
    for step in ("deal 2 dealt", "signal F5", "trump H", "first card", "second card"):
        if step.startswith("signal") or step.startswith("trump"):
            st = do(env, st, step)
        elif step != "deal 2 dealt":
            st = checked_step(env, st, legal_actions(st)[0], KEY)
        for p in range(5):
            last = _last_deal(env, st, p)
            assert (last["cards"] == want).all(), (step, p)
            assert last["winners"].tolist() == winners + [-1] * 4
            assert last["points"].tolist() == [9, 0]
            played_now = (last["now"][:, 1] >= 0).sum()
            assert played_now == {"first card": 1, "second card": 2}.get(step, 0)
    assert S(st)["deal"] == 2 and S(st)["last_outcome"] == ks.SUKONKU


def test_KAN_46_finished_deal_hides_the_cards_left_in_hands():
    """The 20 cards left unplayed when deal 1 ended stay hidden: exchanging two of them
    between hands in the record of the finished deal changes nobody's observation."""
    env = _env()
    plan, st = _sukonku_deal1(env)
    st = play(env, st, plan.tricks)
    last = np.asarray(st._last).copy()
    left = [c for c in range(53) if 0 <= last[c] < 8]
    assert len(left) == 20
    a = left[0]
    b = next(c for c in left if last[c] != last[a])
    last[a], last[b] = last[b], last[a]
    other = st.replace(_last=jnp.asarray(last))
    for p in range(5):
        assert np.array_equal(obs(env, st, p), obs(env, other, p))


def test_KAN_46_nijuu_cards_only_for_the_pair():
    env = _env()
    plan = _nijuu_deal(1)
    hands = plan.hands()
    states = [env.from_deal(plan.deal(f"nijuu={hands[3][i]},{x}")) for i, x in
              [(0, "JK"), (1, "AC")]]
    sl = env.observation_spec().slices()["nijuu"]
    for p in (0, 2, 4):
        o = [obs(env, s, p) for s in states]
        np.testing.assert_array_equal(o[0], o[1])
        assert o[0][sl].tolist() == [1, -1, -1]
    for p in (1, 3):
        assert obs(env, states[0], p)[sl].tolist() == [
            1, card(hands[3][0]), card("JK")]


def test_KAN_46_KAN_21_second_chooser_cannot_see_first_choice():
    env = _env()
    st = env.from_deal(Plan().hold(1, "JK").hold(3, "AC").deal())
    iku, koi = do(env, st, "IKU"), do(env, st, "KOI")
    for p in (0, 1, 2, 4):  # the second chooser P1 and the mukankei
        np.testing.assert_array_equal(obs(env, iku, p),
                                      obs(env, koi, p))
    sl = env.observation_spec().slices()["iku"]
    assert obs(env, iku, 3)[sl].tolist() == [1, -1]
    after = do(env, iku, "KOI")
    for p in range(5):  # public once resolved
        assert obs(env, after, p)[sl].tolist() == [1, 0]


def test_KAN_46_observation_layout_and_public_facts():
    env = _env()
    st = _mid_deal(env)
    sl = env.observation_spec().slices()
    spec = env.observation_spec()
    assert env.observation_spec().shape == (sum(s.stop - s.start for s in sl.values()),)
    o = obs(env, st, 0)
    assert o.dtype == spec.dtype == np.int16 and o.shape == env.observation_spec().shape
    cards_ = o[sl["cards"]].reshape(53, 4)
    s = S(st)
    assert (cards_[:, 0] == (s["hand_owner"] == 0)).all()
    played = cards_[:, 1] >= 0
    assert played.sum() == 17 and (cards_[played, 2] >= 0).all()
    assert (cards_[cards_[:, 2] <= 2, 3] >= 0)[played[cards_[:, 2] <= 2]].all()
    assert o[sl["kankei"]].tolist() == [0, 1, 0, 1, 0]
    assert o[sl["deal1_holders"]].tolist() == [-1, -1]  # public only once deal 1 ends
    assert o[sl["scores"]].tolist() == [0] * 5 and o[sl["round"]].tolist() == [0]


# ---- names, deal strings -----------------------------------------------------------------------
def test_action_names_round_trip():
    env = _env()
    st = _signal_state(env)
    hand = [TOK.token(c) for c in np.flatnonzero(np.asarray(st._loc) == 3)]
    for a in range(ks.NUM_ACTIONS):
        for state in (None, st):
            name = env.action_name(a, state)
            assert env.action_from_name(name, state) == a, name
    assert env.action_name(ks.SIGNAL_F2 + 1, st) == f"signal F2 {hand[0]} {hand[2]}"
    assert env.action_name(ks.SIGNAL_F2 + 1) == "signal F2 #0 #2"
    assert env.action_name(55) == "lead JK naming H" and env.action_name(63) == "trump H"
    for bad in ("play XX", "fold", "signal F2 #1 #1", "signal F9"):
        with pytest.raises(ValueError):
            env.action_from_name(bad, st)
    with pytest.raises(ValueError, match="need the state"):
        env.action_from_name("signal F4 KH")


@pytest.mark.parametrize("head,match", [
    ("colour=red", "unknown deal field 'colour'"),
    ("deal=4", "deal field deal"),
    ("deal=2 kankei=1,3 joker=1", "needs field 'ace'"),
    ("deal=2 kankei=1,2 joker=1 ace=2", "next to each other"),
    ("deal=2 kankei=1,3 joker=1 ace=3 won=1", "not a kankei win"),
    ("kankei=1,3", "only for deal=2"),
    ("seats=0,0,1,2,3", "seats"),
    ("players=6", "players=6"),
    ("nijuu=7C,JK", "no nijū exchange"),
])
def test_from_deal_rejects_bad_fields(head, match):
    env = _env()
    with pytest.raises(ValueError, match=match):
        env.from_deal(Plan().hold(1, "JK").hold(3, "AC").deal(head))


def test_from_deal_rejects_bad_hands():
    env = _env()
    good = Plan().hold(1, "JK").hold(3, "AC").deal()
    head, *hands = good.split(" | ")
    with pytest.raises(ValueError, match="dealt twice"):
        env.from_deal(" | ".join([head, hands[0].replace(hands[0][:2], hands[1][:2]), *hands[1:]]))
    with pytest.raises(ValueError, match="want 10"):
        env.from_deal(" | ".join([head, hands[0][3:], *hands[1:]]))
    with pytest.raises(ValueError, match="2C"):
        env.from_deal(" | ".join([head, "2C " + hands[0][3:], *hands[1:]]))
    with pytest.raises(ValueError, match="one per seat"):
        env.from_deal(" | ".join([head, *hands[1:]]))


# ---- jit / vmap ------------------------------------------------------------------------------
def test_vmap_batch_equals_single_games():
    env = _env()
    batch = 4
    step = jax.jit(jax.vmap(env.step))
    summ = jax.jit(jax.vmap(summary))
    # two fresh matches and two deals about to end in trick 10 (deal 1 -> deal 2; deal 3 ->
    # the next round), so that new deals are dealt inside the batch
    plan = full_plan(_normal(9), jk=1, others=[0, 2, 3, 4])
    late1 = play(env, do(env, env.from_deal(plan.deal()), "KOI", "KOI"), plan.tricks[:9])
    late3 = env.from_deal(plan.deal("deal=3 kankei=1,3 joker=1 ace=3 rk=2 rm=-2 won=0,0"))
    late3 = play(env, do(env, late3, "signal F5", "trump C"), plan.tricks[:9])
    singles = [env.init(jax.random.PRNGKey(11)), env.init(jax.random.PRNGKey(12)), late1,
               late3]
    states = jax.tree.map(lambda *xs: jnp.stack(xs), *singles)
    rng = np.random.default_rng(0)
    for t in range(30):
        mask = np.asarray(states.legal_action_mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int32)
        skeys = jax.random.split(jax.random.PRNGKey(100 + t), batch)
        states = step(states, jnp.asarray(actions), skeys)
        singles = [checked_step(env, singles[g], int(actions[g]), skeys[g]) for g in range(batch)]
    for g in range(batch):
        for a, b in zip(jax.tree.leaves(states), jax.tree.leaves(singles[g]), strict=True):
            np.testing.assert_array_equal(np.asarray(a)[g], np.asarray(b))
    s = summ(states)
    assert (np.asarray(s["round"]) == [0, 0, 0, 1]).all()
    assert (np.asarray(s["deal"])[2:] == [2, 1]).all()
    assert set(s) == {"current_player", "legal_action_mask", "rewards", "terminated",
                      "hand_owner", "seat_of", "dealer", "round", "deal", "trump", "kankei",
                      "rk", "rm", "scores", "points", "last_outcome", "nijuu", "deal_done",
                      "trick", "leader", "played", "target", "contract", "first3",
                      "last_points"}
    dtypes = {"current_player": np.int8, "hand_owner": np.int8, "round": np.int16,
              "rk": np.int32, "scores": np.int32, "points": np.int8, "kankei": np.bool_}
    for k, dt in dtypes.items():
        assert np.asarray(s[k]).dtype == dt, k
    assert np.asarray(s["hand_owner"]).shape == (batch, 53)
    o = jax.jit(jax.vmap(env.observe))(states, jnp.zeros(batch, jnp.int32))
    assert o.shape == (batch, *env.observation_spec().shape) and o.dtype == jnp.int16


def test_deal_done_and_last_outcome():
    env = _env()
    plan, st = _sukonku_deal1(env)
    assert not bool(env.deal_done(st)) and S(st)["last_outcome"] == -1
    st = play(env, st, plan.tricks)
    assert bool(env.deal_done(st)) and S(st)["last_outcome"] == ks.SUKONKU
    st = do(env, st, "signal F5")
    assert not bool(env.deal_done(st)) and S(st)["last_outcome"] == ks.SUKONKU


# ---- the shared trick kernel (kanjax.core.trick) ------------------------------------------------
def test_KAN_24_KAN_27_trick_kernel():
    from kanjax.core import trick

    suit = np.array([c // 13 for c in range(52)] + [4])
    rank = np.array([c % 13 for c in range(52)] + [13])
    jk = np.arange(53) == ks.JK

    def winner(toks, led, trump):
        in_trick = np.isin(np.arange(53), [card(t) for t in toks])
        return TOK.token(int(trick.trick_winner(in_trick, suit, rank, led, trump, jk)))

    assert winner(["KH", "AH", "3D", "QD", "TS"], 2, 1) == "QD"  # S16
    assert winner(["9S", "AH", "JS", "2S", "TS"], 3, 0) == "JS"  # S17
    assert winner(["QS", "AH", "JK", "2S", "TS"], 3, 2) == "JK"  # S15
    hand = np.isin(np.arange(53), [card(t) for t in "5H 9H KH 3C QS TD".split()])
    follow = np.asarray(trick.follow_mask(hand, suit, 2))
    assert {TOK.token(c) for c in np.flatnonzero(follow)} == {"5H", "9H", "KH"}
    assert {TOK.token(c) for c in np.flatnonzero(trick.follow_mask(hand, suit, 1))} == {"TD"}
    void = np.asarray(trick.follow_mask(hand & (suit != 1), suit, 1))
    assert (void == (hand & (suit != 1))).all()  # void in the led suit: any card


def test_KAN_8_random_ranks_are_uniform():
    from kanjax.core import jaxutil

    n, draws = 50, 20_000
    ranks = np.asarray(jax.jit(jax.vmap(lambda k: jaxutil.random_ranks(k, n)[0]))(
        jax.random.split(jax.random.PRNGKey(2), draws)))
    assert (np.sort(ranks, 1) == np.arange(n)).all()  # permutations
    counts = np.stack([np.bincount(ranks[:, i] // 10, minlength=5) for i in range(n)])
    chi2 = ((counts - draws / 5) ** 2 / (draws / 5)).sum()
    assert chi2 < 200 + 6 * np.sqrt(400)  # df 200: hand of each card uniform
    before = (ranks[:, :-1] < ranks[:, 1:]).mean(0)  # neighbours in either order
    assert np.abs(before - 0.5).max() < 0.02
