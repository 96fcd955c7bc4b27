"""The JAX Yonin Kan engine (kanjax.games.kan.yonin) on the scenarios of kan.md §16 (S02, S31-S35),
the Yonin rules KAN-53..KAN-61, the information rules (KAN-46, KAN-52, KAN-57) and a jit/vmap
batch.

Deals are scripted as tricks, as in tests/games/yonin_kan/test_reference.py: "2:AS 3:6S 0:7S
1:8S" means player 2 plays AS, then player 3 6S, ... (the order is asserted against the
engine's current player); "0:JK>D" leads JK naming diamonds. In trick 1 a token may end in "/S"
(declare SKUNK before the card) or "/A" (ALL16); every other trick-1 contract decision is
answered NONE. Hands are the scripted cards, then `extra` cards, then the rest of the deck in
card-id order (`void` keeps suits away from a player). Every card goes through
`checked_step`, which rejects illegal actions, so each script also checks the legal masks.
Players P0..P3 start in seats S0..S3; round 0 has trump C (KAN-11). Compiled steps are shared
per config (`_env`).
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
from tests.games.kan.helpers import S, card, cur, legal_names, obs
from tests.games.yonin_kan.scenarios import (
    A1,
    A1_EXTRA,
    A2,
    A3,
    CONTRACT_CASES,
    K4,
    K_FIRST,
    M4,
    M_FIRST,
)

DECK = deck("yonin_kan")
KEY = jax.random.PRNGKey(7)
SUITS = "CDHS"
CONTRACT_NAMES = {"": "contract NONE", "S": "contract SKUNK", "A": "contract ALL16"}
TRUMPS = {f"trump {x}" for x in SUITS}
CONTRACTS = {"contract NONE", "contract SKUNK", "contract ALL16"}
JK_LEADS = {f"lead JK naming {x}" for x in SUITS}


@functools.cache
def _env(**flags):
    """One env per config for the whole module (its jitted step compiles once)."""
    return kanjax.make("yonin_kan", **flags)


def field(env, o: np.ndarray, name: str) -> list[int]:
    return o[env.observation_spec().slices()[name]].tolist()


def seen_hand(env, o: np.ndarray) -> set[str]:
    """The cards the observer sees in his hand."""
    cards = o[env.observation_spec().slices()["cards"]].reshape(ks.NUM_CARDS, 4)
    return {DECK.token(c) for c in np.flatnonzero(cards[:, 0])}


def parse_trick(text: str) -> list[tuple[int, str]]:
    return [(int(p), tok) for p, tok in (w.split(":") for w in text.split())]


def hands_for(tricks, extra=None, void=None, the_deck=DECK) -> list[list[str]]:
    """The scripted cards in trick order (so a hand's first written cards are its first
    plays), then `extra` {player: "cards"}, then the rest of the deck in id order to the
    shortest hands, never a suit in `void` {player: "suits"}."""
    hands: list[list[str]] = [[] for _ in range(4)]
    for trick in tricks:
        for p, tok in parse_trick(trick):
            hands[p].append(tok.split("/")[0].split(">")[0])
    for p, text in (extra or {}).items():
        hands[p] += text.split()
    used = [t for h in hands for t in h]
    assert len(used) == len(set(used)), used
    void = void or {}
    for c in the_deck.ids:
        t = the_deck.token(c)
        if t in used:
            continue
        want = [p for p in range(4) if len(hands[p]) < 10 and t[-1] not in void.get(p, "")]
        assert want, f"no hand can take {t}"
        hands[min(want, key=lambda p: len(hands[p]))].append(t)
    assert all(len(h) == 10 for h in hands), hands
    return hands


def deal_text(hands, head: str = "") -> str:
    return f"yonin_kan {head} | " + " | ".join(" ".join(h) for h in hands)


def new_deal(env, tricks, extra=None, head: str = "", void=None):
    return env.from_deal(deal_text(hands_for(tricks, extra, void), head))


def with_contract(trick: str, player: int, kind: str) -> str:
    return " ".join(w + f"/{kind}" if w.startswith(f"{player}:") else w for w in trick.split())


def rot(tricks: list[str], shift: int) -> list[str]:
    """The same tricks with every player p replaced by p + shift (mod 4)."""
    return [" ".join(f"{(int(p) + shift) % 4}:{t}" for p, t in (w.split(":") for w in tr.split()))
            for tr in tricks]


def in_contract_phase(state) -> bool:
    return bool(np.asarray(state.legal_action_mask)[ks.CONTRACT_NONE]) and not bool(
        state.terminated)


def play(env, state, tricks, key=KEY):
    """Play the scripted tricks until the script or the deal ends."""
    for trick in tricks:
        for p, tok in parse_trick(trick):
            tok, _, kind = tok.partition("/")
            assert cur(state) == p, (trick, p, cur(state))
            if in_contract_phase(state):  # KAN-56: the trick-1 decision before the card
                state = checked_step(env, state, CONTRACT_NAMES[kind], key)
                assert cur(state) == p
            else:
                assert not kind, f"{tok}/{kind}: no contract decision is offered here"
            name = f"lead JK naming {tok[3]}" if tok.startswith("JK>") else f"play {tok}"
            state = checked_step(env, state, name, key)
            if bool(env.deal_done(state)) or bool(state.terminated):
                return state
    return state


def do(env, state, *names, key=KEY):
    for name in names:
        state = checked_step(env, state, name, key)
    return state


def b3(p2_t9: str, p2_t10: str) -> list[str]:
    """All ten tricks for S32 (b)/(c), trump C; P1 leads trick 1; P0 wins trick 9 with AC and
    leads JK naming D to trick 10 against 7H, `p2_t10`, TH. Kankei P1, P3: 1 after trick 1,
    the mukankei 2 after trick 2."""
    return [
        "1:AS 2:6S 3:7S 0:8S",
        "1:9S 2:KS 3:JS 0:TS",
        "2:AH 3:5H 0:6H 1:QH",
        "2:KH 3:JH 0:6D 1:8H",  # P0 void in hearts
        "2:AD 3:8D 0:9D 1:TD",
        "2:KD 3:QD 0:JD 1:5C",  # P1 void in diamonds trumps
        "1:KC 2:6C 3:7C 0:8C",
        "1:9C 2:JC 3:TC 0:QC",
        f"0:AC 1:9H 2:{p2_t9} 3:7D",
        f"0:JK>D 1:7H 2:{p2_t10} 3:TH",
    ]


DEAL2 = "deal=2 kankei=0,2 joker=0 jack=2 rk=2 rm=-2 won=SUKONKU"  # chooser P0
DEAL3 = "deal=3 kankei=0,2 joker=0 jack=2 rk=6 rm=-6 won=SUKONKU,C_SUKONKU_OK"  # chooser P2


def deal2(env, tricks, extra=None, trump="S", head=DEAL2):
    """Deal 2 (R = 2), the chooser P0 names `trump`; he then leads trick 1."""
    st = new_deal(env, tricks, extra, head)
    assert cur(st) == 0 and legal_names(env, st) == TRUMPS and S(st)["trump"] == -1
    st = do(env, st, f"trump {trump}")
    assert cur(st) == 0 and S(st)["trump"] == SUITS.index(trump)
    return st


# ---- S02: decks ------------------------------------------------------------------------------
@pytest.mark.parametrize("five,sizes,lowest", [
    ("S", (10, 10, 10, 9), "5C 5D 5H 6S"), ("C", (9, 10, 10, 10), "6C 5D 5H 5S")])
def test_S02_KAN_1_KAN_49_deck(five, sizes, lowest):
    env = kanjax.make("yonin_kan", yonin_removed_five=five)  # nothing compiled
    ids = np.flatnonzero(env.deck)
    assert len(ids) == 40 and env.deck[ks.JK]
    for s, (size, low) in enumerate(zip(sizes, lowest.split(), strict=True)):
        suit = [c for c in ids if c < 52 and c // 13 == s]
        assert len(suit) == size and min(suit) == card(low) and max(suit) == card("A" + SUITS[s])
    assert not any(c < 52 and c % 13 < 3 for c in ids)  # no 2, 3, 4
    assert len(set(ks.POINT_CARDS) & set(ids)) == 16
    # a deal string with the removed five is rejected, one with the other five accepted
    the_deck = deck("yonin_kan", yonin_removed_five=five)
    hands = hands_for([], {0: "AS JK", 1: "JC"}, the_deck=the_deck)
    st = env.from_deal(deal_text(hands))
    assert (S(st)["hand_owner"] >= 0).sum() == 40
    kept = "5C" if five == "S" else "5S"
    bad = [[("5" + five) if t == kept else t for t in h] for h in hands]
    with pytest.raises(ValueError):
        env.from_deal(deal_text(bad))


# ---- S31: first lead and the contract decision ------------------------------------------------
def test_S31_KAN_53_KAN_56_first_lead_deal_1():
    env = _env()
    # Round 1 (trump D): AS in S2; JK with P0, JD with P1 (kankei P0, P1).
    st = new_deal(env, [], {2: "AS KS", 0: "JK", 1: "JD"}, "round=1 dealer=1")
    s = S(st)
    assert s["trump"] == 1 and s["kankei"].tolist() == [True, True, False, False]
    assert cur(st) == 2 and legal_names(env, st) == {"contract NONE", "contract SKUNK"}
    with pytest.raises(ValueError, match="illegal action 227"):  # no ALL16 in deal 1
        checked_step(env, st, "contract ALL16", KEY)
    with pytest.raises(ValueError, match="illegal"):  # the card comes after the decision
        checked_step(env, st, "play AS", KEY)
    for kind, contract in (("NONE", [0, -1]), ("SKUNK", [ks.SKUNK, 2])):
        after = do(env, st, f"contract {kind}")
        assert cur(after) == 2 and legal_names(env, after) == {"play AS"}  # not KS
        assert S(after)["contract"].tolist() == contract
        after = do(env, after, "play AS")
        assert cur(after) == 3  # the seat to the right; he decides only if nobody declared
        assert in_contract_phase(after) == (kind == "NONE")
    # Final round (Tome Suppe, trump S): the AC holder leads AC, even holding AS.
    st = new_deal(env, [], {3: "AC AS", 0: "JK", 1: "JS"}, "round=9")
    assert S(st)["trump"] == 3 and cur(st) == 3
    assert legal_names(env, do(env, st, "contract NONE")) == {"play AC"}


# ---- S32: the joker in trick 10 ------------------------------------------------------------------
def _trick10(env, tricks, head):
    """Deal 3 of the last round (n_rounds=1): the chooser names C and the ten tricks are
    played; the match ends with the deal, so the trick winners stay observable."""
    st = new_deal(env, tricks, head=head)
    st = do(env, st, "trump C")
    before = play(env, st, tricks[:9])
    assert S(before)["trick"] == 9 and not bool(env.deal_done(before))
    end = play(env, before, tricks[9:])
    assert bool(end.terminated) and bool(env.deal_done(end))
    taken = obs(env, end, 0)[env.observation_spec().slices()["cards"]].reshape(ks.NUM_CARDS, 4)
    t10 = [(p, tok.split(">")[0]) for p, tok in parse_trick(tricks[9])]
    for p, tok in t10:  # player p played tok in trick 10 (index 9)
        assert taken[card(tok), 1:3].tolist() == [p, 9]
    winners = {int(taken[card(tok), 3]) for _, tok in t10}
    assert len(winners) == 1
    return before, end, winners.pop()


def test_S32a_KAN_54_joker_is_lowest_of_led_suit_in_trick_10():
    env = _env(n_rounds=1)
    head = "deal=3 kankei=0,2 joker=2 jack=0 rk=2 rm=-2 won=0,0"
    t9 = play(env, do(env, new_deal(env, A3, head=head), "trump C"), A3[:8] + ["3:6S 0:6C"])
    assert cur(t9) == 1 and legal_names(env, t9) == {"play 5D", "play JK"}  # no odori ban
    before, end, winner = _trick10(env, A3, head)
    assert cur(before) == 0 and S(before)["points"].tolist() == [4, 12]
    mid = do(env, before, "play 9H")
    assert legal_names(env, mid) == {"play JK"}  # P1's last card: never compulsory, never barred
    assert winner == 0  # 9H beats the JK (lowest heart); 6D is off suit
    s = S(end)
    assert s["last_outcome"] == ks.NORMAL_LOSS and s["last_points"].tolist() == [4, 12]
    assert np.asarray(end.rewards).tolist() == [1, -1, 1, -1]  # 2 - 1


@pytest.mark.parametrize("case,p2_t9,p2_t10,winner,points", [
    ("b", "5D", "QS", 0, [5, 11]),  # nobody follows the named D or trumps: the JK wins
    ("c", "QS", "5D", 2, [5, 11]),  # 5D beats the JK
])
def test_S32bc_KAN_54_joker_led_in_trick_10(case, p2_t9, p2_t10, winner, points):
    env = _env(n_rounds=1)
    tricks = b3(p2_t9, p2_t10)
    before, end, got = _trick10(env, tricks, "deal=3 kankei=1,3 joker=3 jack=1 rk=2 rm=-2 "
                                             "won=0,0")
    assert cur(before) == 0 and S(before)["hand_owner"][ks.JK] == 0
    assert legal_names(env, before) == JK_LEADS  # his last card: only the four JK leads
    assert got == winner
    assert S(end)["last_points"].tolist() == points
    assert S(end)["last_outcome"] == ks.NORMAL_LOSS


# ---- S33: nijō kan -------------------------------------------------------------------------------
# Round 2 (trump H): P1 holds JK and JH and leads AS; the kankei P1 and P3 take 12 points in
# three tricks with the mukankei at 0: SUKONKU (KAN-31, deal 1: automatic).
S33_D1 = ["1:AS 2:KS 3:QS 0:JS", "1:AD 2:KD 3:QD 0:JD", "1:AC 2:KC 3:QC 0:JC"]


def test_S33_KAN_50_KAN_51_KAN_52_KAN_57_nijo_kan():
    env = _env()
    st = new_deal(env, S33_D1, {1: "JK JH"}, "round=2")
    s = S(st)
    assert s["trump"] == 2 and s["kankei"].tolist() == [False, True, False, True]
    # nothing announced: P3 is not told; P1 knows only himself
    for p in range(4):
        want = [-1, 1, -1, -1] if p == 1 else [-1] * 4
        assert field(env, obs(env, st, p), "kankei") == want
    st = play(env, st, S33_D1[:2])
    assert not bool(env.deal_done(st)) and S(st)["points"].tolist() == [8, 0]
    st = play(env, st, S33_D1[2:])
    s = S(st)
    assert s["last_outcome"] == ks.SUKONKU and s["rk"] == 2 and s["deal"] == 2
    assert s["seat_of"].tolist() == [0, 1, 2, 3]  # KAN-55: already opposite
    for p in range(4):  # KAN-52: revealed when deal 1 ends
        o = obs(env, st, p)
        assert field(env, o, "kankei") == [0, 1, 0, 1]
        assert field(env, o, "deal1_holders") == [1, 1]
        assert field(env, o, "points") == [0, 0]  # public from deal 2 on
    # deal 2 (shuffled by the engine): P1 sees his first three cards and names trump
    assert cur(st) == 1 and legal_names(env, st) == TRUMPS and s["trump"] == -1
    own = s["hand_owner"]
    assert np.bincount(own[own >= 0]).tolist() == [10] * 4
    first3 = {DECK.token(c) for c in s["first3"]}
    assert len(first3) == 3 and all(own[card(t)] == 1 for t in first3)
    assert seen_hand(env, obs(env, st, 1)) == first3
    st = do(env, st, "trump C")
    assert cur(st) == 1 and legal_names(env, st) == CONTRACTS  # he leads trick 1
    assert seen_hand(env, obs(env, st, 1)) == {DECK.token(c) for c in np.flatnonzero(own == 1)}
    # deal 2 won (STOP after kankei 8, mukankei 0) -> deal 3: P1 chooses and leads again
    d2 = ["1:AH 2:KH 3:QH 0:JH", "1:AD 2:KD 3:QD 0:JD"]
    st = new_deal(env, d2, head="round=2 deal=2 kankei=1,3 joker=1 jack=1 rk=2 rm=-2 "
                                "won=SUKONKU")
    assert cur(st) == 1 and legal_names(env, st) == TRUMPS
    st = play(env, do(env, st, "trump S"), d2)
    assert cur(st) == 1 and legal_names(env, st) == {"STOP", "JUUROKU"}
    st = do(env, st, "STOP")
    s = S(st)
    assert s["last_outcome"] == ks.SUKONKU and s["deal"] == 3 and s["rk"] == 4
    assert cur(st) == 1 and legal_names(env, st) == TRUMPS
    assert all(s["hand_owner"][c] == 1 for c in s["first3"])
    assert cur(do(env, st, "trump H")) == 1


# ---- S34: seat change --------------------------------------------------------------------------
@pytest.mark.parametrize("jk,jack,seat_of,order", [
    (2, 3, [3, 1, 2, 0], [2, 0, 3, 1]),  # S3 <-> S0: S0 = P3, S3 = P0
    (3, 0, [1, 0, 2, 3], [3, 1, 0, 2]),  # the pair S3, S0 wraps: S0 = P0 <-> S1 = P1
])
def test_S34_KAN_55_seat_change_after_won_deal_1(jk, jack, seat_of, order):
    env = _env()
    # kankei `jk` (JK, AS) and `jack` (JC), adjacent; they take 12 points: SUKONKU after 3 tricks
    tricks = rot(["2:AS 3:KS 0:QS 1:JS", "2:AD 3:KD 0:QD 1:JD", "2:AH 3:KH 0:QH 1:JH"], jk - 2)
    st = play(env, new_deal(env, tricks, {jk: "JK", jack: "JC"}), tricks)
    s = S(st)
    assert s["last_outcome"] == ks.SUKONKU and s["deal"] == 2 and s["round"] == 0
    assert s["seat_of"].tolist() == seat_of
    assert np.flatnonzero(s["kankei"]).tolist() == sorted([jk, jack]) and s["dealer"] == 0
    assert field(env, obs(env, st, 1), "seat_of") == seat_of
    # deal 2: the chooser (deal-1 JK holder) leads; then play goes on in the new seat order
    st = do(env, st, "trump C")
    got = []
    for _ in range(4):
        got.append(cur(st))
        st = do(env, st, "contract NONE")
        st = checked_step(env, st, legal_actions(st)[0], KEY)
    assert got == order


def test_KAN_15_KAN_55_next_dealer_after_the_dealer_moved():
    # After the wrapping swap above (dealer P0 now in S1), the kankei P3 and P0 lose deal 2
    # (a failed SKUNK): the next dealer sits right of S1, in S2: P2 (P1 is passed over).
    env = _env()
    tricks = ["3:5H/S 1:AH 0:6H 2:7H"]  # seat order S3, S0, S1, S2
    hands = hands_for(tricks)
    st = env.from_deal(deal_text([hands[p] for p in (1, 0, 2, 3)],  # hands by seat
                                 "seats=1,0,2,3 dealer=0 deal=2 kankei=0,3 joker=3 jack=0 "
                                 "rk=2 rm=-2 won=SUKONKU"))
    assert cur(st) == 3 and S(st)["seat_of"].tolist() == [1, 0, 2, 3]
    st = play(env, do(env, st, "trump S"), tricks)
    s = S(st)
    assert s["last_outcome"] == ks.C_SUKONKU_FAIL and s["round"] == 1 and s["deal"] == 1
    assert s["dealer"] == 2 and s["seat_of"].tolist() == [1, 0, 2, 3]
    assert np.asarray(st.rewards).tolist() == [-6, 6, 6, -6]


def test_S34_KAN_55_no_seat_change_after_lost_deal_1():
    env = _env()
    # the mukankei P0 (AS) and P1 take 8 points first: GYAKU_SUKONKU after trick 2
    tricks = ["0:AS 1:KS 2:QS 3:JS", "0:AD 1:KD 2:QD 3:JD"]
    st = play(env, new_deal(env, tricks, {2: "JK", 3: "JC"}), tricks)
    s = S(st)
    assert s["last_outcome"] == ks.GYAKU_SUKONKU and s["round"] == 1 and s["deal"] == 1
    assert s["seat_of"].tolist() == [0, 1, 2, 3] and s["dealer"] == 1
    assert np.asarray(st.rewards).tolist() == [10, 10, -10, -10]
    assert s["trump"] == 1 and s["contract"].tolist() == [0, -1]  # round 1, deal 1 (trump D)


# ---- S35: a kankei SKUNK in deal 1 ------------------------------------------------------------
def test_S35a_KAN_60_KAN_61_skunk_contract_succeeds_deal_1():
    env = _env()
    plan = [with_contract(A1[0], 2, "S")] + A1[1:]
    st = new_deal(env, A1, A1_EXTRA)
    assert S(st)["kankei"].tolist() == [True, False, True, False] and cur(st) == 2
    declared = do(env, st, "contract SKUNK")
    for p in range(4):  # KAN-46: a contract is public
        assert field(env, obs(env, declared, p), "contract") == [ks.SKUNK, 2]
    st6 = play(env, st, plan[:6])
    assert not bool(env.deal_done(st6)) and S(st6)["points"].tolist() == [7, 0]
    end = play(env, st6, plan[6:])
    s = S(end)
    assert s["last_outcome"] == ks.C_SUKONKU_OK and s["last_points"].tolist() == [9, 0]
    assert (s["rk"], s["rm"]) == (4, -4) and s["deal"] == 2 and s["round"] == 0  # not +2
    assert s["contract"].tolist() == [0, -1]
    # without the contract the same tricks end as the undeclared SUKONKU: R = 2
    s = S(play(env, st, A1))
    assert s["last_outcome"] == ks.SUKONKU and (s["rk"], s["rm"]) == (2, -2)


def test_S35b_KAN_60_KAN_61_skunk_contract_fails_deal_1():
    env = _env()
    st = new_deal(env, A2, {0: "JK", 2: "JC"})
    st = play(env, st, [with_contract(A2[0], 2, "S")] + A2[1:2])
    assert S(st)["points"].tolist() == [3, 0] and not bool(env.deal_done(st))
    st = play(env, st, A2[2:])
    s = S(st)
    assert s["last_outcome"] == ks.C_SUKONKU_FAIL and s["round"] == 1 and s["dealer"] == 1
    assert np.asarray(st.rewards).tolist() == [-8, 8, -8, 8]
    assert s["scores"].tolist() == [-8, 8, -8, 8]


@pytest.mark.parametrize("tricks,extra,outcome,r,goes_on", [
    # P3 (mukankei) declares; P2 (kankei) takes AS at once: the gyaku contract fails, +40
    ([with_contract(A1[0], 3, "S")], A1_EXTRA, ks.C_GYAKU_SUKONKU_FAIL, 40, True),
    # P0 (mukankei, AS) declares; P0 and P1 take 8 = U(1) with the kankei at 0: -20 (set)
    (["0:AS/S 1:KS 2:QS 3:JS", "0:AD 1:KD 2:QD 3:JD"], {2: "JK", 3: "JC"},
     ks.C_GYAKU_SUKONKU_OK, -20, False),
])
def test_KAN_56_KAN_61_mukankei_skunk_deal_1(tricks, extra, outcome, r, goes_on):
    env = _env()
    st = play(env, new_deal(env, tricks, extra), tricks)
    s = S(st)
    assert s["last_outcome"] == outcome and bool(env.deal_done(st))
    if goes_on:
        assert (s["rk"], s["rm"]) == (r, -r) and s["deal"] == 2
    else:
        assert np.asarray(st.rewards).tolist() == [-r, -r, r, r]  # kankei P2, P3
        assert s["round"] == 1


# ---- KAN-58: the joker in trick 1 ------------------------------------------------------------
@pytest.mark.parametrize("flag", ["lead", "any"])
def test_KAN_58_joker_lead_in_trick_1_needs_a_contract(flag):
    env = _env(yonin_joker_trick1_contract=flag)
    st = deal2(env, [], {0: "JK 5H"})
    assert legal_names(env, st) == CONTRACTS
    none = do(env, st, "contract NONE")
    names = legal_names(env, none)
    assert "play 5H" in names and not (JK_LEADS | {"play JK"}) & names
    with pytest.raises(ValueError, match="illegal"):
        checked_step(env, none, "lead JK naming H", KEY)
    for kind in ("SKUNK", "ALL16"):
        dec = do(env, st, f"contract {kind}")
        assert JK_LEADS <= legal_names(env, dec) and "play JK" not in legal_names(env, dec)
        dec = do(env, dec, "lead JK naming H")
        assert cur(dec) == 1 and not in_contract_phase(dec)  # a contract is declared


@pytest.mark.parametrize("flag", ["lead", "any"])
def test_KAN_58_joker_follow_in_trick_1(flag):
    env = _env(yonin_joker_trick1_contract=flag)
    st = deal2(env, [], {0: "5H", 1: "JK 6H"})
    st = do(env, st, "contract NONE", "play 5H")
    assert cur(st) == 1 and legal_names(env, st) == CONTRACTS
    said_none = do(env, st, "contract NONE")
    assert ("play JK" in legal_names(env, said_none)) == (flag == "lead")
    assert "play 6H" in legal_names(env, said_none)
    own = do(env, st, "contract SKUNK")  # his own contract: JK allowed under both
    assert "play JK" in legal_names(env, own)
    # P0 declared before: no decision for P1; JK only under "lead"
    other = do(env, deal2(env, [], {0: "5H", 1: "JK 6H"}), "contract SKUNK", "play 5H")
    assert cur(other) == 1 and not in_contract_phase(other)
    assert ("play JK" in legal_names(env, other)) == (flag == "lead")


@pytest.mark.parametrize("flag", ["lead", "any"])
def test_KAN_58_KAN_54_deal_1_follower_and_trick_2(flag):
    env = _env(yonin_joker_trick1_contract=flag)
    st = new_deal(env, A1, A1_EXTRA)
    st = play(env, st, ["2:AS 3:6S"])
    st = do(env, st, "contract NONE")
    assert cur(st) == 0
    assert legal_names(env, st) == {"play 7S", "play TS"} | (
        {"play JK"} if flag == "lead" else set())
    st = play(env, st, ["0:7S 1:8S", "2:KS 3:9S"])
    assert legal_names(env, st) == {"play TS", "play JK"}  # from trick 2 on: free (KAN-54)


@pytest.mark.parametrize("tricks,declarer,kind,outcome,r,goes_on", CONTRACT_CASES,
                         ids=[ks.OUTCOME_NAMES[c[3]] for c in CONTRACT_CASES])
def test_KAN_60_KAN_61_contract_scores_deal_2(tricks, declarer, kind, outcome, r, goes_on):
    env = _env()
    st = deal2(env, tricks)
    plan = [with_contract(tricks[0], declarer, kind)] + tricks[1:]
    st = play(env, st, plan[:-1])
    s = S(st)
    assert not bool(env.deal_done(st)) and s["deal"] == 2 and s["rk"] == 2
    assert not {"STOP", "JUUROKU"} & legal_names(env, st)  # KAN-31 is off under a contract
    st = play(env, st, plan[-1:])
    s = S(st)
    assert bool(env.deal_done(st)) and s["last_outcome"] == outcome
    assert s["contract"].tolist() == [0, -1]
    if goes_on:
        assert (s["rk"], s["rm"]) == (r, -r) and s["deal"] == 3 and s["round"] == 0
        assert not np.asarray(st.rewards).any()
    else:
        assert np.asarray(st.rewards).tolist() == [r, -r, r, -r] and s["round"] == 1
        assert (s["rk"], s["rm"]) == (0, 0) and s["deal"] == 1


@pytest.mark.parametrize("tricks,kind,outcome,r", [
    (M4[:3], "S", ks.C_GYAKU_SUKONKU_OK, 2 - 6),
    (M4, "A", ks.C_GYAKU_JUUROKU_OK, 2 - 32),
])
def test_KAN_61_KAN_78_round_override_off(tricks, kind, outcome, r):
    env = _env(yonin_contract_round_override=False)
    st = deal2(env, tricks)
    st = play(env, st, [with_contract(tricks[0], 1, kind)] + tricks[1:])
    assert S(st)["last_outcome"] == outcome
    assert np.asarray(st.rewards).tolist() == [r, -r, r, -r]


@pytest.mark.parametrize("tricks,declarer,kind,outcome,r", [
    (rot(K4[:3], 2), 2, "S", ks.C_SUKONKU_OK, 6 + 4 + 1),  # T(3) = 9: after trick 3
    (rot(K_FIRST, 2), 3, "A", ks.C_GYAKU_JUUROKU_FAIL, 6 + 64 + 1),  # a kankei win
])
def test_KAN_61_KAN_44_W3_after_deal_3_contract(tricks, declarer, kind, outcome, r):
    env = _env()
    st = new_deal(env, tricks, head=DEAL3)
    assert cur(st) == 2  # KAN-57: the deal-1 trump-jack holder chooses
    st = do(env, st, "trump S")
    plan = [with_contract(tricks[0], declarer, kind)] + tricks[1:]
    if len(plan) > 1:
        mid = play(env, st, plan[:2])
        assert S(mid)["points"].tolist() == [8, 0] and not bool(env.deal_done(mid))
    st = play(env, st, plan)
    s = S(st)
    assert s["last_outcome"] == outcome and s["round"] == 1
    assert np.asarray(st.rewards).tolist() == [r, -r, r, -r]


@pytest.mark.parametrize("tricks,winner,choice,outcome,r,goes_on", [
    (K4, 0, "STOP", ks.SUKONKU, 2 + 2, True),
    (K4, 0, "JUUROKU", ks.JUUROKU_OK, 2 + 1 + 8, True),
    (K4[:2] + ["0:5C 1:AC 2:6C 3:7C"], 0, "JUUROKU", ks.JUUROKU_FAIL, 2 - 1 - 16, False),
    (M4[:3], 1, "STOP", ks.GYAKU_SUKONKU, -3, False),  # GS23: set
])
def test_KAN_59_KAN_31_undeclared_deal_2(tricks, winner, choice, outcome, r, goes_on):
    env = _env()
    st = deal2(env, tricks)
    n = 2 if tricks[0] == K4[0] else 3  # kankei 8 = T(2) / mukankei 12 >= U(2) = 9
    st = play(env, st, tricks[:n])
    assert cur(st) == winner and legal_names(env, st) == {"STOP", "JUUROKU"}
    st = do(env, st, choice)
    if choice == "JUUROKU":
        assert cur(st) == winner and not bool(env.deal_done(st))
        assert not in_contract_phase(st)
        st = play(env, st, tricks[n:])
    s = S(st)
    assert bool(env.deal_done(st)) and s["last_outcome"] == outcome
    if goes_on:
        assert (s["rk"], s["rm"]) == (r, -r) and s["deal"] == 3
    else:
        assert np.asarray(st.rewards).tolist() == [r, -r, r, -r] and s["round"] == 1


# ---- KAN-57: what the chooser and the others see -------------------------------------------------
def test_KAN_57_trump_choice_sees_first_three_cards():
    env = _env()
    hands = hands_for([], {0: "KH 6D 9S JK"}, void={})
    st = env.from_deal(deal_text(hands, DEAL2))
    assert {DECK.token(c) for c in S(st)["first3"]} == {"KH", "6D", "9S"}
    assert seen_hand(env, obs(env, st, 0)) == {"KH", "6D", "9S"}
    for p in (1, 2, 3):
        assert seen_hand(env, obs(env, st, p)) == set()
    # what the hidden cards are does not show: the chooser's 4th card swapped with P1's
    other = [list(h) for h in hands]
    other[0][3], other[1][0] = other[1][0], other[0][3]
    st2 = env.from_deal(deal_text(other, DEAL2))
    for p in range(4):
        np.testing.assert_array_equal(obs(env, st, p), obs(env, st2, p))
    st = do(env, st, "trump D")
    for p in range(4):
        assert seen_hand(env, obs(env, st, p)) == set(hands[p])


# ---- KAN-46, KAN-52: information in deal 1 ----------------------------------------------------
def _secret_pair():
    """Two deal-1 states equal but for JC <-> 5C between P2 and P3: kankei P0 (JK) with P2,
    or with P3. P2 leads AS."""
    hands = hands_for([], {0: "JK 7S TS 6H", 1: "8S QS 7H", 2: "AS KS AH JC",
                           3: "6S 9S 5H 5C"})
    swapped = [list(h) for h in hands]
    swapped[2][swapped[2].index("JC")] = "5C"
    swapped[3][swapped[3].index("5C")] = "JC"
    env = _env()
    return env, env.from_deal(deal_text(hands)), env.from_deal(deal_text(swapped))


def test_KAN_46_KAN_52_mukankei_cannot_see_the_trump_jack():
    env, a, b = _secret_pair()
    assert S(a)["kankei"].tolist() == [True, False, True, False]
    assert S(b)["kankei"].tolist() == [True, False, False, True]
    script = ["2:AS 3:6S 0:7S 1:8S", "2:KS 3:9S 0:TS 1:QS", "2:AH 3:5H"]
    for k in range(len(script) + 1):
        sa, sb = play(env, a, script[:k]), play(env, b, script[:k])
        if k >= 2:  # P2 took AS, KS, QS: kankei points in one, mukankei in the other
            assert S(sa)["points"].tolist() == [3, 0] and S(sb)["points"].tolist() == [0, 3]
        for p in (0, 1):  # neither holds a swapped card: the same view
            np.testing.assert_array_equal(obs(env, sa, p), obs(env, sb, p))
        for p in (2, 3):  # (the two holders do see the difference)
            assert not np.array_equal(obs(env, sa, p), obs(env, sb, p))
        assert field(env, obs(env, sa, 1), "points") == [-1, -1]


def test_KAN_52_kankei_field_in_deal_1():
    env, a, b = _secret_pair()
    want_a = {0: [1, -1, -1, -1], 1: [-1] * 4, 2: [-1, -1, 1, -1], 3: [-1] * 4}
    want_b = {0: [1, -1, -1, -1], 1: [-1] * 4, 2: [-1] * 4, 3: [-1, -1, -1, 1]}
    for st, want in ((a, want_a), (b, want_b)):
        for p in range(4):
            o = obs(env, st, p)
            assert field(env, o, "kankei") == want[p], p
            assert field(env, o, "points") == [-1, -1]
            assert field(env, o, "deal1_holders") == [-1, -1]


def test_KAN_28_KAN_52_team_points_public_in_deal_2():
    env = _env()
    tricks = M_FIRST + ["1:KD 2:QD 3:JD 0:AD"]  # P1 takes AH, then P0 KD QD JD AD
    st = play(env, deal2(env, tricks), tricks)
    s = S(st)
    assert s["points"].tolist() == [4, 1] and s["deal"] == 2
    for p in range(4):
        o = obs(env, st, p)
        assert field(env, o, "points") == [4, 1]
        assert field(env, o, "kankei") == [1, 0, 1, 0]
        assert field(env, o, "deal1_holders") == [0, 2]


# ---- jit / vmap ------------------------------------------------------------------------------
def test_vmap_batch_equals_single_steps():
    env = _env()
    batch = 3
    step = jax.jit(jax.vmap(env.step))
    # a deal-1 contract decision, a deal-2 trump choice, and the last card of a deal 1
    # (SUKONKU: the step deals deal 2 from its key)
    first = new_deal(env, A1, A1_EXTRA)
    trump = new_deal(env, K4, head=DEAL2)
    last = play(env, first, A1[:6] + ["2:QH 3:JH 0:6C"])
    assert cur(last) == 1
    singles = [first, trump, last]
    states = jax.tree.map(lambda *xs: jnp.stack(xs), *singles)
    rng = np.random.default_rng(0)
    for t in range(12):
        mask = np.asarray(states.legal_action_mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int32)
        if t == 0:
            actions[2] = card("5C")
        keys = jax.random.split(jax.random.PRNGKey(100 + t), batch)
        states = step(states, jnp.asarray(actions), keys)
        singles = [checked_step(env, singles[g], int(actions[g]), keys[g]) for g in range(batch)]
    for g in range(batch):
        for x, y in zip(jax.tree.leaves(states), jax.tree.leaves(singles[g]), strict=True):
            np.testing.assert_array_equal(np.asarray(x)[g], np.asarray(y))
    assert S(singles[2])["deal"] == 2 and S(singles[2])["last_outcome"] == ks.SUKONKU
