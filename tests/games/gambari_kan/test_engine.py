"""The JAX Gambari Kan engine (kanjax.games.kan.gambari) on kan.md §11 (KAN-63..KAN-68) and the
scenarios S03, S36, S37 of §16, with the shared rules it reuses (KAN-11, KAN-15, KAN-25..27),
the information rules (KAN-46) and a jit/vmap batch.

Deals are scripted as tricks: "2:AH 0:8H 1:9H" means player 2 plays AH, then player 0 8H,
then player 1 9H (the order is asserted against the engine's current player); "1:JK>S" leads
JK naming spades. Hands are the union of the scripted cards plus explicit extra cards. Every
card goes through `checked_step`, which rejects illegal actions, so every script is also a
check of the legal masks. Players P0..P2 sit in seats S0..S2 (KAN-63: no seat changes); with
dealer S0 the bidding order is P1, P2, P0 (KAN-65) and round 0 has trump C (KAN-64 = KAN-11).
Envs and compiled functions are shared per config (`_env`, `_vstep`, `env.jitted`).
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
from tests.games.gambari_kan.scenarios import (
    BIDS_T3_P1,
    BIDS_T8_P2,
    GS,
    GS_EXTRA,
    L7,
    SK,
    SK_EXTRA,
    W8,
)
from tests.games.kan.helpers import S, card, cur, legal_names, obs

TOK = deck("gambari_kan")
KEY = jax.random.PRNGKey(7)
SUITS = "CDHS"
KAN, PASS = ks.KAN_BID, ks.PASS_BID
JK_LEADS = {f"lead JK naming {s}" for s in SUITS}


@functools.cache
def _env(**flags):
    """One env per config for the whole module (its jitted step compiles once). Configs used:
    default; gambari_scoring="flat" with n_rounds=4; gambari_min_target=7 and 9."""
    return kanjax.make("gambari_kan", **flags)


def _flat():
    return _env(gambari_scoring="flat", n_rounds=4)


def _scoring_env(scoring: str):
    return _env() if scoring == "per_opponent" else _flat()


@functools.cache
def _vstep(env):
    return jax.jit(jax.vmap(env.step))


def hand(state, p: int) -> set[str]:
    return {TOK.token(c) for c in np.flatnonzero(S(state)["hand_owner"] == p)}


def parse_trick(text: str) -> list[tuple[int, str]]:
    return [(int(p), tok) for p, tok in (w.split(":") for w in text.split())]


def deal_string(tricks: list[str], extra: dict[int, str] | None = None,
                head: str = "dealer=0") -> str:
    hands: list[list[str]] = [[], [], []]
    for trick in tricks:
        for p, tok in parse_trick(trick):
            hands[p].append(tok.split(">")[0])
    for p, text in (extra or {}).items():
        hands[p] += text.split()
    assert all(len(h) == 10 for h in hands), hands
    assert sorted(t for h in hands for t in h) == sorted(TOK.token(c) for c in TOK.ids)
    return f"gambari_kan {head} | " + " | ".join(" ".join(h) for h in hands)


def action(tok: str) -> str:
    return f"lead JK naming {tok[3]}" if tok.startswith("JK>") else f"play {tok}"


def play(env, state, tricks: list[str], key=KEY):
    """Play the scripted tricks (all of their cards)."""
    for trick in tricks:
        for p, tok in parse_trick(trick):
            assert cur(state) == p, (trick, p, cur(state))
            assert not S(state)["deal_done"], trick
            state = checked_step(env, state, action(tok), key)
    return state


def bid(env, state, bids: str, key=KEY):
    """'P P P P K': the bids in turn (P = PASS, K = KAN)."""
    for b in bids.split():
        state = checked_step(env, state, "KAN" if b == "K" else "PASS", key)
    return state


def start(env, tricks, bids: str, extra=None, head: str = "dealer=0"):
    return bid(env, env.from_deal(deal_string(tricks, extra, head)), bids)


# Kankei P1 (KAN at once, t = 9) keeps JK to trick 9 and must lead it (odori ban).
JL = [
    "1:8D 2:9D 0:AD",  # P1 may not lead JK to trick 1
    "0:8H 1:8C 2:9H",  # P1 void in hearts: may play JK (trick 2), trumps with 8C instead
    "1:9C 2:AH 0:TD",
    "1:TC 2:8S 0:JD",
    "1:JC 2:9S 0:QD",
    "1:QC 2:TS 0:KD",
    "1:KC 2:JS 0:TH",
    "1:AC 2:QS 0:JH",  # kankei 11, mukankei 1
    "1:JK>S 2:KS 0:QH",  # P1 holds JK, 7S: only the four JK leads; P2 follows spades
    "1:7S 2:AS 0:KH",
]


# ---- S03: the deck ---------------------------------------------------------------------------
def test_KAN_1_KAN_3_gambari_deck_S03():
    env = _env()
    ids = set(np.flatnonzero(env.deck).tolist())
    assert len(ids) == 30 and ks.JK in ids
    toks = {TOK.token(c) for c in ids if c != ks.JK}
    for suit, size in zip(SUITS, (7, 7, 7, 8), strict=True):
        assert sum(t[1] == suit for t in toks) == size
    assert "7S" in toks and not {"7C", "7D", "7H"} & toks
    assert {t[0] for t in toks} == set("789TJQKA") and {t for t in toks if t[0] == "7"} == {"7S"}
    assert sum(t[0] in "AKQJ" for t in toks) == 16
    # KAN-8 / KAN-63: a fresh match deals the whole deck, 10 to each player
    owner = S(env.init(jax.random.PRNGKey(3)))["hand_owner"]
    assert set(np.flatnonzero(owner >= 0).tolist()) == ids
    assert np.bincount(owner[owner >= 0], minlength=3).tolist() == [10, 10, 10]


# ---- KAN-65 bidding --------------------------------------------------------------------------
def test_KAN_65_KAN_66_bidding_S36():
    env = _env()
    st = env.from_deal(deal_string(W8))
    s = S(st)
    assert s["dealer"] == 0 and s["trump"] == 0 and s["target"] == 9 and s["round"] == 0
    assert s["seat_of"].tolist() == [0, 1, 2] and not s["kankei"].any()
    order = []
    for _ in range(3):
        s = S(st)
        assert legal_actions(st) == [KAN, PASS] and s["target"] == 9
        assert not s["kankei"].any() and s["points"].tolist() == [0, 0]
        order.append(cur(st))
        st = checked_step(env, st, "PASS", KEY)
        assert S(st)["rewards"].tolist() == [0, 0, 0]
    assert order == [1, 2, 0]  # the dealer's right, his left, the dealer
    s = S(st)
    assert s["target"] == 8 and cur(st) == 1 and not s["kankei"].any()
    st = checked_step(env, st, "PASS", KEY)
    assert cur(st) == 2 and S(st)["target"] == 8
    st = checked_step(env, st, "KAN", KEY)
    s = S(st)
    assert s["kankei"].tolist() == [False, False, True] and s["target"] == 8
    assert cur(st) == 2 and s["leader"] == 2 and s["trick"] == 0  # KAN-66: kankei leads
    assert legal_names(env, st) == {f"play {t}" for t in "AH KH QH 8S TS 8C AC TC TD JD".split()}
    assert s["rk"] == s["rm"] == 0 and s["points"].tolist() == [0, 0]
    assert s["rewards"].tolist() == [0, 0, 0] and not s["deal_done"]


def test_KAN_65_first_kan_ends_bidding():
    env = _env()
    st = start(env, W8, "K")  # P1, the dealer's right, at once
    s = S(st)
    assert s["kankei"].tolist() == [False, True, False] and s["target"] == 9 and cur(st) == 1
    assert KAN not in legal_actions(st) and PASS not in legal_actions(st)


@pytest.mark.parametrize("floor", [1, 7, 9])
def test_KAN_65_KAN_79_bidding_floor(floor):
    env = _env() if floor == 1 else _env(gambari_min_target=floor)
    st = env.from_deal(deal_string(W8))
    for t in range(9, floor, -1):  # every pass above the floor is free, the dealer's too
        for bidder in (1, 2, 0):
            assert cur(st) == bidder and S(st)["target"] == t
            assert legal_actions(st) == [KAN, PASS]
            st = checked_step(env, st, "PASS", KEY)
    assert S(st)["target"] == floor
    for bidder in (1, 2):  # the first two may still pass at the floor
        assert cur(st) == bidder and legal_actions(st) == [KAN, PASS]
        st = checked_step(env, st, "PASS", KEY)
    assert cur(st) == 0 and legal_actions(st) == [KAN]  # the dealer must say KAN
    with pytest.raises(ValueError, match="illegal action"):
        checked_step(env, st, "PASS", KEY)
    st = checked_step(env, st, "KAN", KEY)
    s = S(st)
    assert s["kankei"].tolist() == [True, False, False] and s["target"] == floor
    assert cur(st) == 0 and not s["deal_done"]
    # KAN-67 at target t: the kankei's first point card with the mukankei at 0 is a sukonku
    # iff t = 1 (per_opponent: +4 / -2 / -2)
    st = play(env, st, ["0:AS 1:7S 2:8S"])
    s = S(st)
    if floor == 1:
        assert s["deal_done"] and s["last_outcome"] == ks.SUKONKU
        assert s["last_points"].tolist() == [1, 0] and s["rewards"].tolist() == [4, -2, -2]
    else:
        assert not s["deal_done"] and s["points"].tolist() == [1, 0]
        assert s["rewards"].tolist() == [0, 0, 0]


# ---- KAN-67, KAN-68 (S37): results and scores, played to the end ---------------------------
S37_CASES = {  # tricks, extra cards, outcome, final (kankei, mukankei), rewards by scoring
    "normal_win_8": (W8, None, ks.NORMAL_WIN, [8, 8],
                     {"per_opponent": [-1, -1, 2], "flat": [-1, -1, 1]}),
    "normal_loss_7": (L7, None, ks.NORMAL_LOSS, [7, 9],
                      {"per_opponent": [1, 1, -2], "flat": [1, 1, -1]}),
    "sukonku": (SK, SK_EXTRA, ks.SUKONKU, [8, 0],
                {"per_opponent": [-2, -2, 4], "flat": [-2, -2, 2]}),
}


def _check_next_round(env, st, scores):
    """After the only deal of round 0 (dealer P0): round 1 is dealt by P1 with trump D."""
    s = S(st)
    assert s["deal_done"] and s["scores"].tolist() == scores
    assert s["round"] == 1 and s["dealer"] == 1 and s["trump"] == 1 and s["target"] == 9
    assert s["deal"] == 1 and s["trick"] == 0 and s["points"].tolist() == [0, 0]
    assert not s["kankei"].any() and s["rk"] == s["rm"] == 0
    assert cur(st) == 2 and legal_actions(st) == [KAN, PASS]  # the new dealer's right
    assert np.bincount(s["hand_owner"][s["hand_owner"] >= 0], minlength=3).tolist() == [10] * 3
    assert not st.terminated and s["seat_of"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("scoring", ["per_opponent", "flat"])
@pytest.mark.parametrize("case", list(S37_CASES))
def test_KAN_67_KAN_68_results_S37(case, scoring):
    tricks, extra, outcome, final, rewards = S37_CASES[case]
    env = _scoring_env(scoring)
    st = start(env, tricks, BIDS_T8_P2, extra)
    assert S(st)["kankei"].tolist() == [False, False, True] and S(st)["target"] == 8
    if case == "normal_win_8":
        st = play(env, st, tricks[:7])
        assert S(st)["points"].tolist() == [8, 2] and not S(st)["deal_done"]  # no sukonku
    if case == "sukonku":
        st = play(env, st, tricks[:5])
        assert S(st)["points"].tolist() == [6, 0] and cur(st) == 2
    # every card before the last is unpaid; the last one ends the deal (and the round)
    last_trick = parse_trick(tricks[-1])
    st = play(env, st, tricks[int(S(st)["trick"]):-1])
    for p, tok in last_trick[:-1]:
        assert cur(st) == p
        st = checked_step(env, st, action(tok), KEY)
        assert S(st)["rewards"].tolist() == [0, 0, 0] and not S(st)["deal_done"]
    p, tok = last_trick[-1]
    assert cur(st) == p
    st = checked_step(env, st, action(tok), KEY)
    s = S(st)
    assert s["last_outcome"] == outcome and s["last_points"].tolist() == final
    assert s["rewards"].tolist() == rewards[scoring]
    if scoring == "per_opponent":
        assert sum(rewards[scoring]) == 0  # zero-sum
    _check_next_round(env, st, rewards[scoring])


@pytest.mark.parametrize("scoring,rewards", [("per_opponent", [10, -20, 10]),
                                             ("flat", [10, -10, 10])])
def test_KAN_67_KAN_68_gyaku_sukonku_low_target(scoring, rewards):
    env = _scoring_env(scoring)
    st = start(env, GS, BIDS_T3_P1, GS_EXTRA)
    s = S(st)
    assert s["kankei"].tolist() == [False, True, False] and s["target"] == 3 and cur(st) == 1
    st = play(env, st, GS[:4])
    assert S(st)["points"].tolist() == [0, 8] and not S(st)["deal_done"]  # 8 < 17 - 3
    st = play(env, st, GS[4:6])
    assert S(st)["points"].tolist() == [0, 12] and not S(st)["deal_done"]
    assert S(st)["rewards"].tolist() == [0, 0, 0]
    st = play(env, st, GS[6:])
    s = S(st)
    assert s["last_outcome"] == ks.GYAKU_SUKONKU and s["last_points"].tolist() == [0, 14]
    assert s["rewards"].tolist() == rewards
    _check_next_round(env, st, rewards)


# ---- KAN-25, KAN-26, KAN-27 (joker rules of Gonin in 3-card tricks, KAN-66) -----------------
def test_KAN_25_KAN_66_joker_when_following():
    env = _env()
    st = start(env, W8, BIDS_T8_P2)
    st = play(env, st, W8[:1] + ["2:KH 0:TH"])
    assert cur(st) == 1 and legal_names(env, st) == {"play JH", "play JK"}  # may follow or JK
    st = play(env, st, ["1:JH", "2:QH 0:8D"])
    p1 = hand(st, 1)  # void in hearts in trick 3: any card, JK included
    assert legal_names(env, st) == {f"play {t}" for t in p1} and "JK" in p1
    st = play(env, st, ["1:9D"] + W8[3:8] + ["0:AD"])
    assert hand(st, 1) == {"JK", "KD"}
    assert legal_names(env, st) == {"play JK"}  # odori ban in trick 9, although KD follows
    with pytest.raises(ValueError, match="illegal"):
        checked_step(env, st, "play KD", KEY)
    st = play(env, st, ["1:JK", "2:TD"])
    s = S(st)
    assert cur(st) == 1 and s["trick"] == 9  # JK won trick 9 (KAN-27)
    assert s["hand_owner"][ks.JK] == -1 and legal_names(env, st) == {"play KD"}


def test_KAN_25_no_joker_in_trick_1_when_void():
    hands = ["9H AC KC QC JC TC 9C 8C 8D 9D", "AH JK JH QH KH TD JD QD KD AD",
             "8H TH 7S 8S 9S TS JS QS KS AS"]
    env = _env()
    st = env.from_deal("gambari_kan dealer=0 | " + " | ".join(hands))
    st = bid(env, st, "P P K")  # the dealer P0 is kankei and leads
    assert cur(st) == 0 and S(st)["kankei"].tolist() == [True, False, False]
    st = play(env, st, ["0:8C"])
    assert cur(st) == 1  # P1 void in clubs: any card but JK
    assert legal_names(env, st) == {f"play {t}" for t in hands[1].split() if t != "JK"}


def test_KAN_25_KAN_26_KAN_27_joker_lead_names_suit():
    hands = ["9H AC KC QC JC TC 9C 8C 8D 9D",  # P0: no spades
             "AH JK JH QH KH TD JD QD KD AD",
             "8H TH 7S 8S 9S TS JS QS KS AS"]
    env = _env()
    st = bid(env, env.from_deal("gambari_kan dealer=0 | " + " | ".join(hands)), "K")
    names = legal_names(env, st)  # P1 leads trick 1: no JK (KAN-25)
    assert names == {f"play {t}" for t in hands[1].split() if t != "JK"}
    st = play(env, st, ["1:AH"])
    assert legal_names(env, st) == {"play 8H", "play TH"}
    st = play(env, st, ["2:8H 0:9H"])
    assert cur(st) == 1 and S(st)["points"].tolist() == [1, 0]
    names = legal_names(env, st)  # trick 2: JK may be led, naming any of the four suits
    assert JK_LEADS <= names and "play JK" not in names
    st = play(env, st, ["1:JK>S"])
    assert legal_names(env, st) == {f"play {t}" for t in "7S 8S 9S TS JS QS KS AS".split()}
    st = play(env, st, ["2:7S"])
    p0 = hand(st, 0)  # void in the named suit: anything
    assert legal_names(env, st) == {f"play {t}" for t in p0}
    st = play(env, st, ["0:AC"])  # a trump (round 0: C), but JK wins (KAN-27)
    s = S(st)
    assert cur(st) == 1 and s["leader"] == 1 and s["points"].tolist() == [2, 0]


def test_KAN_25_odori_ban_when_leading_trick_9():
    env = _env()
    st = start(env, JL, "K")
    assert cur(st) == 1 and "JK" in hand(st, 1)
    assert "play 8D" in legal_names(env, st) and not JK_LEADS & legal_names(env, st)
    st = play(env, st, JL[:1] + ["0:8H"])
    assert "play JK" in legal_names(env, st)  # trick 2, void in hearts
    st = play(env, st, ["1:8C 2:9H"] + JL[2:8])
    s = S(st)
    assert s["trick"] == 8 and cur(st) == 1 and s["points"].tolist() == [11, 1]
    assert hand(st, 1) == {"JK", "7S"}
    assert legal_names(env, st) == JK_LEADS  # exactly the four JK leads (KAN-25, KAN-26)
    st = play(env, st, ["1:JK>S"])
    assert legal_names(env, st) == {"play KS", "play AS"}
    st = play(env, st, ["2:KS"])
    assert legal_names(env, st) == {"play QH", "play KH"}  # void in spades
    st = play(env, st, ["0:QH"])
    assert cur(st) == 1 and S(st)["points"].tolist() == [13, 1]
    assert S(st)["hand_owner"][ks.JK] == -1  # never held in trick 10
    assert legal_names(env, st) == {"play 7S"}
    st = play(env, st, ["1:7S 2:AS"])
    st = checked_step(env, st, "play KH", KEY)
    s = S(st)
    assert s["last_outcome"] == ks.NORMAL_WIN and s["last_points"].tolist() == [13, 3]
    assert s["rewards"].tolist() == [-1, 2, -1]


def test_KAN_27_KAN_11_trick_winner_with_trumps_round_1():
    """Round 1 (trump D, dealer P1, bidding order P2, P0, P1): a low trump beats the led suit
    and an off-suit ace; a card that is neither trump nor led (AC: round 0's trump) never
    wins; the highest trump wins a trump lead."""
    hands = ["8D 8S 9D 8C 9C TC JC QC JD KD",
             "AS KS TD AD 7S 9S TS JS QS JK",
             "9H 8H TH JH QH KH AH AC QD KC"]
    env = _env()
    st = env.from_deal("gambari_kan dealer=1 round=1 | " + " | ".join(hands))
    s = S(st)
    assert s["trump"] == 1 and s["dealer"] == 1 and cur(st) == 2
    st = bid(env, st, "K")
    assert S(st)["kankei"].tolist() == [False, False, True]
    st = play(env, st, ["2:9H 0:8D 1:AS"])
    assert cur(st) == 0 and S(st)["points"].tolist() == [0, 1]
    st = play(env, st, ["0:8S 1:KS 2:AC"])
    assert cur(st) == 1 and S(st)["points"].tolist() == [0, 3]
    st = play(env, st, ["1:TD 2:QD 0:9D"])
    assert cur(st) == 2 and S(st)["points"].tolist() == [1, 3]


@pytest.mark.parametrize("n_rounds,trumps", [(10, "CDHCDHCDHS"), (4, "CDHS")])
def test_KAN_11_KAN_64_trump_by_round(n_rounds, trumps):
    env = _env() if n_rounds == 10 else _flat()
    hands = " | ".join(" ".join(TOK.token(c) for c in list(TOK.ids)[10 * i: 10 * i + 10])
                       for i in range(3))
    got = "".join(SUITS[int(S(env.from_deal(f"gambari_kan round={r} | {hands}"))["trump"])]
                  for r in range(n_rounds))
    assert got == trumps


# ---- KAN-15, KAN-63, KAN-64: a whole 4-round match --------------------------------------------
@pytest.mark.parametrize("first", [0, 2])
def test_KAN_15_KAN_63_KAN_64_dealer_and_trump_over_a_match(first):
    env = _flat()  # n_rounds=4, flat scoring
    if first == 0:
        st = env.init(jax.random.PRNGKey(5))
    else:
        hands = " | ".join(" ".join(TOK.token(c) for c in list(TOK.ids)[10 * i: 10 * i + 10])
                           for i in range(3))
        st = env.from_deal(f"gambari_kan dealer={first} | {hands}")
    rng = np.random.default_rng(first)
    seen, total, steps = [], np.zeros(3), 0
    fresh = True
    while not bool(st.terminated):
        s = S(st)
        if fresh:
            seen.append((int(s["round"]), int(s["dealer"]), int(s["trump"])))
            assert s["target"] == 9 and cur(st) == (s["dealer"] + 1) % 3
            assert not s["kankei"].any() and s["seat_of"].tolist() == [0, 1, 2]
            assert np.bincount(s["hand_owner"][s["hand_owner"] >= 0]).tolist() == [10] * 3
        kankei = s["kankei"].copy()
        a = int(rng.choice(legal_actions(st)))
        st = checked_step(env, st, a, jax.random.PRNGKey(1000 + steps))
        steps += 1
        s = S(st)
        fresh = bool(s["deal_done"])
        r = s["rewards"]
        if fresh:  # a round (= one deal) ended: flat scoring, kankei v, each mukankei -v
            v = r[kankei][0]
            assert kankei.sum() == 1 and (r[~kankei] == -v).all() and v in (1, -1, 2, -10)
            assert s["last_outcome"] in (ks.NORMAL_WIN, ks.NORMAL_LOSS, ks.SUKONKU,
                                         ks.GYAKU_SUKONKU)
        else:
            assert (r == 0).all()
        total += r
    assert seen == [(r, (first + r) % 3, t) for r, t in enumerate((0, 1, 2, 3))]
    s = S(st)
    assert cur(st) == -1 and s["scores"].tolist() == total.tolist()
    with pytest.raises(ValueError, match="over"):
        checked_step(env, st, 0, KEY)


# ---- KAN-46: information -----------------------------------------------------------------------
def _swap(state, a: int, b: int):
    """Exchange one card between the hands of players a and b."""
    loc = np.asarray(state._loc).copy()
    ca, cb = np.flatnonzero(loc == a)[0], np.flatnonzero(loc == b)[0]
    loc[ca], loc[cb] = b, a
    return state.replace(_loc=jnp.asarray(loc))


@pytest.mark.parametrize("when", ["bidding", "trick 3"])
def test_KAN_46_own_hand_visible_other_hands_hidden(when):
    env = _env()
    st = env.from_deal(deal_string(W8))
    if when == "trick 3":
        st = play(env, bid(env, st, BIDS_T8_P2), W8[:2] + ["2:QH"])
    cards_col = env.observation_spec().slices()["cards"]
    owner = S(st)["hand_owner"]
    for p in range(3):
        o = obs(env, st, p)
        mine = o[cards_col].reshape(53, 4)[:, 0]
        assert (mine == (owner == p)).all()
        for a, b in ((0, 1), (0, 2), (1, 2)):
            same = np.array_equal(o, obs(env, _swap(st, a, b), p))
            assert same == (p not in (a, b)), (p, a, b)


def test_KAN_46_KAN_65_target_public_and_falling():
    env = _env()
    sl = env.observation_spec().slices()
    st = env.from_deal(deal_string(W8))

    def seen(field):
        return [obs(env, st, p)[sl[field]].tolist() for p in range(3)]

    assert seen("target") == [[9]] * 3
    for t in (9, 9, 8, 8, 8, 7):  # after each pass
        st = checked_step(env, st, "PASS", KEY)
        assert seen("target") == [[t]] * 3
    assert seen("kankei") == [[0, 0, 0]] * 3
    st = checked_step(env, st, "KAN", KEY)  # P1 at t = 7
    assert seen("target") == [[7]] * 3 and seen("kankei") == [[0, 1, 0]] * 3
    assert seen("current_player") == [[1]] * 3
    st = play(env, st, ["1:9H 2:AH 0:8H"])
    assert seen("target") == [[7]] * 3 and seen("points") == [[0, 1]] * 3


# ---- jit / vmap --------------------------------------------------------------------------------
def test_jit_vmap_step_equals_single_checked_steps():
    env = _env()
    step = _vstep(env)
    bidding = env.from_deal(deal_string(W8))
    ending = play(env, start(env, SK, BIDS_T8_P2, SK_EXTRA), SK[:5] + ["2:QS 0:JS"])
    fresh = env.init(jax.random.PRNGKey(11))
    singles = [bidding, ending, fresh]
    states = jax.tree.map(lambda *xs: jnp.stack(xs), *singles)
    rng = np.random.default_rng(0)
    for t in range(6):
        mask = np.asarray(states.legal_action_mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int32)
        if t == 0:
            actions[1] = card("TD")  # ends deal 1 of `ending` with a sukonku: new deal dealt
        keys = jax.random.split(jax.random.PRNGKey(100 + t), 3)
        states = step(states, jnp.asarray(actions), keys)
        singles = [checked_step(env, singles[g], int(actions[g]), keys[g]) for g in range(3)]
        if t == 0:
            s = S(singles[1])
            assert s["deal_done"] and s["last_outcome"] == ks.SUKONKU and s["round"] == 1
    for g in range(3):
        for a, b in zip(jax.tree.leaves(states), jax.tree.leaves(singles[g]), strict=True):
            np.testing.assert_array_equal(np.asarray(a)[g], np.asarray(b))


# ---- deal strings ------------------------------------------------------------------------------
def test_from_deal_rejects_bad_deals():
    env = _env()
    good = deal_string(W8)
    with pytest.raises(ValueError, match="never changes seats"):
        env.from_deal(good.replace("dealer=0", "seats=1,0,2"))
    with pytest.raises(ValueError, match="not a card of the gambari_kan deck"):
        env.from_deal(good.replace("8H", "7H", 1))
    with pytest.raises(ValueError, match="one per seat"):
        env.from_deal(" | ".join(good.split(" | ")[:3]))


def _first_legal_until(env, stop):
    """From `env.init(KEY)`, the first legal action each step until `stop(state)`."""
    st = env.init(KEY)
    while not stop(st):
        st = checked_step(env, st, legal_actions(st)[0], KEY)
    return st


def test_KAN_46_previous_deal_in_the_next_and_the_final_deal_stays():
    """Gambari rounds are one deal each. The match of one round ends after its deal, which
    stays in `cards` (nothing deals over it). The same play in a match of two rounds: while
    round 2 is played, every player sees that deal in the previous-deal fields: the same
    cards by player, trick and taker, trick winners and final points."""
    one = _env(n_rounds=1)
    end = _first_legal_until(one, lambda st: bool(st.terminated))
    sl = one.observation_spec().slices()
    o = obs(one, end, 0)
    final = o[sl["cards"]].reshape(53, 4)[:, 1:]
    assert (final[:, 0] >= 0).sum() >= 9 and (o[sl["last_cards"]] == -1).all()
    tricks = [t for t in range(10) if (final[:, 1] == t).any()]
    winners = [int(final[final[:, 1] == t, 2][0]) for t in tricks]
    two = _env(n_rounds=2)
    st = _first_legal_until(two, lambda st: bool(S(st)["deal_done"]))
    for _ in range(3):  # the next deal's bids and first card
        for p in range(3):
            o2 = obs(two, st, p)
            assert (o2[sl["last_cards"]].reshape(53, 3) == final).all()
            assert o2[sl["last_winners"]].tolist() == winners + [-1] * (10 - len(winners))
            assert o2[sl["last_points"]].tolist() == o[sl["points"]].tolist()
        st = checked_step(two, st, legal_actions(st)[0], KEY)
    assert S(st)["round"] == 1
