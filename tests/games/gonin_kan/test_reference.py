"""Self-tests of the plain-Python Gonin Kan reference (kan.md §16: S01, S05-S30, S38-S40).

Deals are scripted as tricks: "3:AH 4:QH 0:JH 1:5H 2:6H" means player 3 plays AH, then player 4
QH, ... (the order is asserted against the reference's current player); "3:JK>S" leads JK
naming spades. The hands are the union of the scripted cards plus explicit extra cards.
Unless stated, every trick is all of one suit, so every play is legal whatever else is held.
Players P0..P4 start in seats S0..S4; round 0 has trump C (KAN-11).
"""

from __future__ import annotations

import copy
import random

import pytest

from kanjax.core.cards import deck
from kanjax.games.kan import spec as ks
from kanjax.games.kan.reference_common import normal_outcome
from kanjax.games.kan.reference_gonin import (
    GONIN_DECK,
    GoninKanRef,
    poh,
    score_deal,
    trick_legal_actions,
    trick_winner,
)

DECK = deck("gonin_kan")
C = DECK.card


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def parse_trick(text: str) -> list[tuple[int, str]]:
    return [(int(p), tok) for p, tok in (w.split(":") for w in text.split())]


def plan_hands(tricks: list[str], extra: dict[int, str] | None = None, n: int = 5,
               dealer: int | None = None) -> list[list[int]]:
    hands: list[list[int]] = [[] for _ in range(n)]
    for trick in tricks:
        for p, tok in parse_trick(trick):
            hands[p].append(C(tok.split(">")[0]))
    for p, text in (extra or {}).items():
        hands[p] += cards(text)
    for p, h in enumerate(hands):
        assert len(h) == (0 if p == dealer else 10), (p, h)
    return hands


def play_trick(ref: GoninKanRef, trick: str) -> None:
    for p, tok in parse_trick(trick):
        assert ref.current_player() == p, (trick, p, ref.current_player())
        if tok.startswith("JK>"):
            action = ks.LEAD_JK + ks.SUITS.index(tok[3])
        else:
            action = C(tok)  # JK (52) is "play JK when following"
        ref.apply(action)


def play_tricks(ref: GoninKanRef, tricks: list[str]) -> None:
    for trick in tricks:
        play_trick(ref, trick)


def fixed_random_hands(rng: random.Random, fixed: dict[int, str], n: int = 5,
                       dealer: int | None = None) -> list[list[int]]:
    """Hands with the given cards placed and the rest shuffled in."""
    hands = [cards(fixed.get(p, "")) for p in range(n)]
    used = {c for h in hands for c in h}
    rest = sorted(GONIN_DECK - used)
    rng.shuffle(rest)
    for p in range(n):
        if p != dealer:
            while len(hands[p]) < 10:
                hands[p].append(rest.pop())
    assert not rest
    return hands


def random_deal(ref: GoninKanRef, rng: random.Random) -> None:
    dealer = ref.dealer if ref.n == 6 else None
    ref.deal(fixed_random_hands(rng, {}, ref.n, dealer))


def play_random(ref: GoninKanRef, rng: random.Random, stop) -> None:
    """Random chance and random legal actions until `stop(ref)` or the match ends."""
    while not ref.terminal() and not stop(ref):
        kind = ref.chance_kind()
        if kind == "deal":
            random_deal(ref, rng)
        elif kind == "nijuu":
            h, p = ref.nijuu_pair
            ref.nijuu_exchange(rng.choice(sorted(ref.hands[p])),
                               rng.choice([ks.JK, poh(ref.trump)]))
        else:
            ref.apply(rng.choice(ref.legal_actions()))


def win_current_deal(ref: GoninKanRef) -> GoninKanRef:
    """A copy of `ref` whose current deal was played out randomly and won by the kankei."""
    d = ref.deal_no
    for seed in range(1000):
        trial = copy.deepcopy(ref)
        play_random(trial, random.Random(seed), lambda r: r.chance_kind() is not None)
        if trial.deal_no == d + 1 and trial.last_outcome in ks.KANKEI_WINS:
            return trial
    raise AssertionError("no kankei win found")


def start(hands, **flags) -> GoninKanRef:
    ref = GoninKanRef(ks.KanConfig(**flags))
    assert ref.chance_kind() == "deal"
    ref.deal(hands)
    return ref


def koi_koi(ref: GoninKanRef) -> None:
    ref.apply(ks.KOI)
    ref.apply(ks.KOI)


def signal_and_trump(ref: GoninKanRef, shower: int, chooser: int, suit: str) -> None:
    assert ref.current_player() == shower
    ref.apply(ks.SIGNAL_F5)
    assert ref.current_player() == chooser
    ref.apply(ks.TRUMP + ks.SUITS.index(suit))
    assert ref.current_player() == chooser  # KAN-36/37: the chooser leads trick 1


# ---- scripted deals (kankei P1 = JK, P3 = AC in deal 1; trump C) -----------------------------
# Deal 1, SUKONKU after trick 6 (S19): P3 wins every trick.
A1 = [
    "3:AH 4:QH 0:JH 1:5H 2:6H",
    "3:KH 4:3H 0:4H 1:7H 2:8H",
    "3:AS 4:QS 0:JS 1:2S 2:3S",
    "3:KS 4:4S 0:5S 1:6S 2:7S",
    "3:9D 4:3D 0:4D 1:5D 2:6D",
    "3:AD 4:7D 0:8D 1:TD 2:9S",  # P2 is void in diamonds
]
A1_EXTRA = {0: "JD QD KD 9H", 1: "JK TH 8S TS", 2: "3C 4C 5C 6C", 3: "AC 7C 8C 9C",
            4: "TC JC QC KC"}
# Deal 1, full ten tricks, NORMAL_WIN with kankei 15, mukankei 1.
A2 = [
    "3:5H 4:AH 0:6H 1:7H 2:8H",
    "4:5D 0:6D 1:AD 2:7D 3:KD",
    "1:AS 2:5S 3:KS 4:6S 0:7S",
    "1:KC 2:5C 3:AC 4:6C 0:7C",
    "3:KH 4:9H 0:TH 1:QH 2:JH",
    "3:QD 4:8D 0:9D 1:TD 2:JD",
    "3:QS 4:8S 0:9S 1:TS 2:JS",
    "3:QC 4:8C 0:9C 1:TC 2:JC",
    "3:2S 4:3S 0:4S 1:JK 2:4H",  # odori ban: P1's JK; P2 void in spades
    "1:3H 2:4C 3:3C 4:3D 0:4D",
]
# Deal 1, GYAKU_SUKONKU after trick 5 (S23): P4 wins tricks 1-5.
A3 = [
    "3:3H 4:AH 0:QH 1:4H 2:JH",
    "4:KH 0:5H 1:6H 2:7H 3:8H",
    "4:AS 0:QS 1:2S 2:JS 3:3S",
    "4:9S 0:4S 1:5S 2:6S 3:7S",
    "4:AD 0:3D 1:4D 2:5D 3:6D",
]
A3_EXTRA = {0: "9H TH 8S TS KS", 1: "JK 7D 8D 9D TD", 2: "JD QD KD 3C 4C",
            3: "AC 5C 6C 7C 8C", 4: "9C TC JC QC KC"}
# Deal 2 (P3 shows, P1 names trump D and leads): kankei 8, mukankei 0 after trick 5, won by P3.
B1 = [
    "1:AH 2:3H 3:QH 4:4H 0:5H",
    "1:KH 2:6H 3:JH 4:7H 0:8H",
    "1:AD 2:3D 3:KD 4:4D 0:5D",
    "1:6C 2:7C 3:AC 4:8C 0:9C",
    "3:KC 4:TC 0:3C 1:4C 2:5C",
]
B1_AFTER = ["3:QD 4:6D 0:7D 1:8D 2:TD", "3:2S 4:3S 0:JS 1:4S 2:5S"]  # P0 wins trick 7 with JS
B1_EXTRA = {0: "9H TH 9D", 1: "JK JD JC", 2: "QC 6S 7S", 3: "8S 9S TS", 4: "QS KS AS"}
# Deal 2 (trump H), full ten tricks, NORMAL_WIN (A2 with the roles moved).
B2 = [
    "1:5H 2:AH 3:6H 4:7H 0:8H",
    "2:5D 3:AD 4:6D 0:7D 1:KD",
    "3:AS 4:5S 0:6S 1:KS 2:7S",
    "3:AC 4:5C 0:6C 1:KC 2:7C",
    "3:KH 4:9H 0:TH 1:QH 2:JH",
    "3:QD 4:8D 0:9D 1:TD 2:JD",
    "3:QS 4:8S 0:9S 1:TS 2:JS",
    "3:QC 4:8C 0:9C 1:TC 2:JC",
    "3:2S 4:3S 0:4S 1:JK 2:4H",
    "1:3H 2:4C 3:3C 4:3D 0:4D",
]
# Deal 2 (trump S): mukankei P2 wins tricks 2-6, mukankei 9, kankei 0 after trick 6 (S24).
B3 = [
    "1:3H 2:AH 3:4H 4:5H 0:6H",
    "2:KH 3:7H 4:QH 0:JH 1:8H",
    "2:AD 3:3D 4:KD 0:4D 1:5D",
    "2:QD 3:6D 4:7D 0:8D 1:9D",
    "2:AS 3:2S 4:3S 0:4S 1:5S",
    "2:KS 3:6S 4:7S 0:8S 1:9S",
]
B3_EXTRA = {0: "9H TH TD JD", 1: "3C 4C 5C 6C", 2: "TS JS QS JK", 3: "7C 8C 9C TC",
            4: "JC QC KC AC"}
# ... then with GYAKU_JUUROKU the mukankei take everything (S25); off-suit plays are voids.
B4_AFTER = [
    "2:QS 3:7C 4:AC 0:9H 1:3C",
    "2:JS 3:8C 4:KC 0:TH 1:4C",
    "2:JK>C 3:9C 4:QC 0:JD 1:5C",  # odori ban: P2 must lead JK
    "2:TS 3:TC 4:JC 0:TD 1:6C",
]
# Deal 3 (P1 shows, P3 names trump H and leads): kankei 9 after trick 6, all 16 after trick 9.
C1 = [
    "3:AH 4:KH 0:5H 1:6H 2:7H",
    "3:AC 4:5C 0:6C 1:7C 2:8C",
    "3:AD 4:5D 0:6D 1:7D 2:8D",
    "3:QH 4:JH 0:8H 1:9H 2:TH",
    "3:AS 4:QS 0:4S 1:5S 2:6S",
    "3:JS 4:7S 0:8S 1:9S 2:TS",
]
C1_AFTER = [
    "3:KC 4:QC 0:JC 1:9C 2:TC",
    "3:KD 4:QD 0:JD 1:9D 2:TD",
    "3:JK>S 4:2S 0:3S 1:KS 2:4H",  # odori ban: leader P3 must lead JK; P2 void in spades
]
C1_EXTRA = {0: "4D", 1: "3H", 2: "4C", 3: "3C", 4: "3D"}
# Deal 2 (trump D) for Shippo-Jo (S39): P1 plays AC AD JK, P3 AH AS; P1 wins trick 6.
B5 = [
    "1:AC 2:3C 3:4C 4:5C 0:6C",
    "1:AD 2:3D 3:4D 4:5D 0:6D",
    "1:3H 2:4H 3:AH 4:5H 0:6H",
    "3:AS 4:2S 0:3S 1:4S 2:5S",
    "3:7H 4:8H 0:9H 1:TH 2:JH",
    "2:6S 3:7S 4:8S 0:9S 1:JK",
]
B5_EXTRA = {0: "7C 8C 9C TC", 1: "JC QC KC 7D", 2: "8D 9D TD JD", 3: "QD KD QH KH",
            4: "TS JS QS KS"}
# The same with AS and 5S swapped between P3 and P2: a mukankei plays an ace.
B5_MIXED = B5[:3] + [
    "3:5S 4:2S 0:3S 1:4S 2:AS",
    "2:JH 3:7H 4:8H 0:9H 1:TH",
    "2:6S 3:7S 4:8S 0:9S 1:JK",
]


def deal1(plan, extra=None, **flags) -> GoninKanRef:
    ref = start(plan_hands(plan, extra), **flags)
    assert ref.summary()["kankei"] == [False, True, False, True, False]
    assert ref.current_player() == 3  # default leader (S4, S0 mukankei)
    koi_koi(ref)
    return ref


def after_deal1_win(**flags) -> GoninKanRef:
    """Deal 1 = A2 played out: NORMAL_WIN, R = +1 (zero-sum +3)."""
    ref = deal1(A2, **flags)
    play_tricks(ref, A2)
    assert ref.last_outcome == ks.NORMAL_WIN
    assert ref.chance_kind() == "deal" and ref.deal_no == 2
    return ref


# ---- KAN-1 -----------------------------------------------------------------------------------
def test_KAN_1_KAN_3_gonin_deck_S01():
    ids = set(DECK.ids)
    assert ids == GONIN_DECK and len(ids) == 50
    assert C("2S") in ids and not {0, 13, 26} & ids
    for suit, size in zip("CDHS", (12, 12, 12, 13), strict=True):
        assert sum(1 for c in ids if c < 52 and "CDHS"[c // 13] == suit) == size
    assert len(set(ks.POINT_CARDS) & ids) == 16


# ---- KAN-17..KAN-21 --------------------------------------------------------------------------
def test_KAN_18_nijuu_partner_5p_S05():
    rng = random.Random(5)
    ref = start(fixed_random_hands(rng, {1: "JK AC"}))
    assert ref.chance_kind() == "nijuu" and ref.current_player() == -1
    assert ref.summary()["kankei"] == [False, True, False, True, False]
    with pytest.raises(ValueError):  # c must come from the partner P3
        ref.nijuu_exchange(sorted(ref.hands[2])[0], ks.JK)
    ref = start(fixed_random_hands(rng, {4: "JK AC"}))
    assert ref.chance_kind() == "nijuu"
    assert ref.summary()["kankei"] == [False, True, False, False, True]  # S4 + 2 = S1


def test_KAN_6_KAN_18_nijuu_partner_6p_S06():
    rng = random.Random(6)
    ref = start(fixed_random_hands(rng, {4: "JK AC"}, 6, dealer=0), players=6)
    assert ref.chance_kind() == "nijuu"
    assert ref.summary()["kankei"] == [False, True, False, False, True, False]
    ref = start(fixed_random_hands(rng, {0: "JK AC"}, 6, dealer=2), players=6,
                first_dealer_seat=2)
    assert ref.summary()["dealer"] == 2
    assert ref.summary()["kankei"] == [True, False, False, True, False, False]


def test_KAN_18_KAN_19_KAN_36_KAN_37_nijuu_roles_S07():
    # S07 with trump C (round 0) instead of D: P1 holds JK and the trump ace; partner P3.
    ref = start(fixed_random_hands(random.Random(7), {1: "JK AC", 3: "7C"}))
    ref.nijuu_exchange(C("7C"), ks.JK)
    s = ref.summary()
    assert s["hand_owner"][ks.JK] == 3 and s["hand_owner"][C("AC")] == 1
    assert s["hand_owner"][C("7C")] == 1 and s["nijuu"] == [C("7C"), ks.JK]
    assert s["seat_of"] == [0, 1, 2, 3, 4]  # a nijū pair is never adjacent (KAN-20)
    assert ref.current_player() == 3  # default leader: S4, S0 on his right are mukankei
    koi_koi(ref)
    ref = win_current_deal(ref)
    random_deal(ref, random.Random(70))
    signal_and_trump(ref, shower=1, chooser=3, suit="S")  # deal 2: ace holder P1 shows
    assert ref.summary()["trump"] == 3
    ref = win_current_deal(ref)
    assert ref.deal_no == 3 and ref.summary()["nijuu"] == [C("7C"), ks.JK]
    random_deal(ref, random.Random(71))
    signal_and_trump(ref, shower=3, chooser=1, suit="C")  # deal 3: roles reversed


def test_KAN_20_KAN_21_seat_change_S08():
    ref = start(fixed_random_hands(random.Random(8), {1: "JK", 2: "AC"}))
    s = ref.summary()
    assert s["seat_of"] == [0, 1, 3, 2, 4]  # P2 <-> P3: seats S0..S4 = P0 P1 P3 P2 P4
    assert s["kankei"] == [False, True, True, False, False]  # kankei in S1 and S3
    assert ref.current_player() == 2  # default leader P2 (S3) chooses first
    koi_koi(ref)
    order = []
    for _ in range(5):
        order.append(ref.current_player())
        ref.apply(ref.legal_actions()[0])
    assert order == [2, 4, 0, 1, 3]


def test_KAN_20_KAN_21_KAN_15_seat_change_wraps_S09():
    ref = start(fixed_random_hands(random.Random(9), {4: "JK", 0: "AC"}))
    assert ref.summary()["seat_of"] == [1, 0, 2, 3, 4]  # P0 <-> P1
    assert ref.current_player() == 0  # P0 in S1: S2, S3 mukankei
    play_random(ref, random.Random(9), lambda r: r.round == 1)
    assert ref.dealer == 2  # occupant of S2: P1 is skipped


def test_KAN_20_seat_change_6p_S10():
    # (a) kankei in S5 and S1 (both sides of the dealer S0): S1 <-> S2.
    ref = start(fixed_random_hands(random.Random(10), {5: "JK", 1: "AC"}, 6, dealer=0),
                players=6)
    s = ref.summary()
    assert s["seat_of"] == [0, 2, 1, 3, 4, 5]
    assert sorted(ref.seat_of[p] for p in range(6) if s["kankei"][p]) == [2, 5]
    # (b) kankei in S4 and S5 (both left of the dealer): S5 <-> S1; the dealer never moves.
    ref = start(fixed_random_hands(random.Random(11), {4: "JK", 5: "AC"}, 6, dealer=0),
                players=6)
    s = ref.summary()
    assert s["seat_of"] == [0, 5, 2, 3, 4, 1]
    assert sorted(ref.seat_of[p] for p in range(6) if s["kankei"][p]) == [1, 4]
    play_random(ref, random.Random(12), lambda r: r.round == 1)
    assert ref.dealer == 5  # occupant of S1


@pytest.mark.parametrize("s1,s3,leader", [
    (ks.IKU, ks.KOI, 1), (ks.KOI, ks.IKU, 3), (ks.IKU, ks.IKU, 3), (ks.KOI, ks.KOI, 3),
])
def test_KAN_21_iku_koi_S11(s1, s3, leader):
    ref = start(fixed_random_hands(random.Random(11), {1: "JK", 3: "AC"}))
    assert ref.current_player() == 3  # the default leader chooses first
    ref.apply(s3)
    assert ref.current_player() == 1
    ref.apply(s1)
    assert ref.current_player() == leader
    legal = ref.legal_actions()
    assert all(a < ks.JK for a in legal)  # KAN-25: no JK lead in trick 1


# ---- KAN-23..KAN-28 --------------------------------------------------------------------------
def test_KAN_24_KAN_25_trick1_legal_S12():
    hand = set(cards("JK 5H 9H KH 3C 8C QS 4D TD 6S"))
    assert trick_legal_actions(hand, 1, 2) == sorted(cards("5H 9H KH"))
    hand = set(cards("JK 3C 8C QS 4D TD 6S 2S 7D JC"))
    assert trick_legal_actions(hand, 1, 2) == sorted(hand - {ks.JK})


def test_KAN_24_KAN_25_KAN_26_joker_legal_S13():
    hand = set(cards("JK 5H 9H KH 3C QS TD"))
    assert trick_legal_actions(hand, 4, 2) == sorted(cards("5H 9H KH")) + [ks.JK]
    assert trick_legal_actions(hand, 4, 1) == [C("TD"), ks.JK]
    lead = trick_legal_actions(hand, 4, None)
    assert lead == sorted(hand - {ks.JK}) + [53, 54, 55, 56] and len(lead) == 10
    hand = set(cards("JK 5H 9H KH 3C QS 6S"))
    assert trick_legal_actions(hand, 4, 1) == sorted(hand - {ks.JK}) + [ks.JK]


def test_KAN_25_odori_ban_S14():
    assert trick_legal_actions(set(cards("JK 4D")), 9, 1) == [ks.JK]
    assert trick_legal_actions(set(cards("JK 6C")), 9, None) == [53, 54, 55, 56]
    assert trick_legal_actions(set(cards("JK 4D")), 8, 1) == [C("4D"), ks.JK]
    # Trick 10 never sees JK in a hand: checked over random matches below.


def test_KAN_24_KAN_26_KAN_27_joker_lead_S15():
    assert trick_legal_actions(set(cards("QS 3S AH 4C 9C 5D 8D 6H")), 3, 3) == cards("3S QS")
    no_spade = set(cards("AH 4C 9C 5D 8D 6H 7H 3C"))
    assert trick_legal_actions(no_spade, 3, 3) == sorted(no_spade)
    plays = [(0, ks.JK), (1, C("QS")), (2, C("AH")), (3, C("3S")), (4, C("4S"))]
    assert trick_winner(plays, 3, 2) == 0  # JK led naming S; AH is trump but JK wins


def test_KAN_27_KAN_28_trump_wins_S16():
    plays = list(enumerate(cards("KH AH 3D QD TS")))
    assert trick_winner(plays, 2, 1) == 3
    assert sum(1 for _, c in plays if c in ks.POINT_CARDS) == 3


def test_KAN_27_offsuit_never_wins_S17():
    plays = list(enumerate(cards("9S AH JS 2S TS")))
    assert trick_winner(plays, 3, 0) == 2
    assert sum(1 for _, c in plays if c in ks.POINT_CARDS) == 2


# ---- KAN-29..KAN-34 --------------------------------------------------------------------------
def test_KAN_29_KAN_33_targets_S18():
    for d, win, loss in ((1, 9, 8), (2, 8, 7), (3, 9, 8)):
        assert normal_outcome(d, win) == ks.NORMAL_WIN
        assert normal_outcome(d, loss) == ks.NORMAL_LOSS
    ref = after_deal1_win()  # a full ten-trick deal: 15 to 1
    assert ref.rk == 1 and ref.rm == -1


def test_KAN_31_sukonku_stops_deal_1_S19():
    ref = deal1(A1, A1_EXTRA)
    play_tricks(ref, A1[:5])
    assert ref.points == [8, 0] and ref.current_player() == 3
    play_trick(ref, A1[5])
    s = ref.summary()
    assert s["last_outcome"] == ks.SUKONKU and s["rk"] == 2 and s["rm"] == -2
    assert ref.chance_kind() == "deal" and s["deal"] == 2 and s["trump"] == -1
    assert s["kankei"] == [False, True, False, True, False] and s["round"] == 0


def test_KAN_31_stop_decision_deal_2_S20():
    ref = after_deal1_win()
    ref.deal(plan_hands(B1 + B1_AFTER, B1_EXTRA))
    signal_and_trump(ref, shower=3, chooser=1, suit="D")
    play_tricks(ref, B1)
    assert ref.points == [8, 0]
    assert ref.current_player() == 3 and ref.legal_actions() == [ks.STOP, ks.JUUROKU]
    ref.apply(ks.STOP)
    assert ref.last_outcome == ks.SUKONKU and (ref.rk, ref.rm) == (3, -3)
    assert ref.chance_kind() == "deal" and ref.deal_no == 3


@pytest.mark.parametrize("scoring,rk,rm", [("standard", -16, 16), ("zero_sum_5p", -30, 20)])
def test_KAN_32_juuroku_fails_S21(scoring, rk, rm):
    ref = after_deal1_win(scoring=scoring)
    ref.deal(plan_hands(B1 + B1_AFTER, B1_EXTRA))
    signal_and_trump(ref, shower=3, chooser=1, suit="D")
    play_tricks(ref, B1)
    ref.apply(ks.JUUROKU)
    assert ref.current_player() == 3
    play_tricks(ref, B1_AFTER)
    s = ref.summary()
    assert s["last_outcome"] == ks.JUUROKU_FAIL
    assert s["scores"] == [rm, rk, rm, rk, rm]
    assert s["round"] == 1 and s["dealer"] == 1 and s["rk"] == 0 and ref.chance_kind() == "deal"


def test_KAN_32_juuroku_succeeds_deal_3_S22():
    ref = after_deal1_win()
    ref.deal(plan_hands(B2))
    signal_and_trump(ref, shower=3, chooser=1, suit="H")
    play_tricks(ref, B2)
    assert ref.last_outcome == ks.NORMAL_WIN and ref.rk == 2 and ref.deal_no == 3
    ref.deal(plan_hands(C1 + C1_AFTER, C1_EXTRA))
    signal_and_trump(ref, shower=1, chooser=3, suit="H")
    play_tricks(ref, C1)
    assert ref.points == [9, 0] and ref.legal_actions() == [ks.STOP, ks.JUUROKU]
    ref.apply(ks.JUUROKU)
    play_tricks(ref, C1_AFTER[:2])
    assert ref.points == [15, 0] and ref.current_player() == 3
    assert ref.legal_actions() == [53, 54, 55, 56]  # KAN-25: leader must lead JK in trick 9
    play_trick(ref, C1_AFTER[2])
    assert ref.last_outcome == ks.JUUROKU_OK  # trick 10 is not played
    assert ref.scores() == [-12, 12, -12, 12, -12]


@pytest.mark.parametrize("scoring,rk,rm", [("standard", -10, 10), ("zero_sum_5p", -12, 8)])
def test_KAN_31_gyaku_sukonku_deal_1_S23(scoring, rk, rm):
    ref = deal1(A3, A3_EXTRA, scoring=scoring)
    play_tricks(ref, A3[:4])
    assert ref.points == [0, 7] and not ref.chance_kind()
    play_trick(ref, A3[4])
    assert ref.last_outcome == ks.GYAKU_SUKONKU
    assert ref.scores() == [rm, rk, rm, rk, rm]
    assert ref.round == 1 and ref.deal_no == 1


def test_KAN_31_gyaku_sukonku_stop_deal_2_S24():
    ref = deal1(A1, A1_EXTRA)
    play_tricks(ref, A1)
    assert ref.rk == 2
    ref.deal(plan_hands(B3, B3_EXTRA))
    signal_and_trump(ref, shower=3, chooser=1, suit="S")
    play_tricks(ref, B3)
    assert ref.points == [0, 9] and ref.current_player() == 2
    assert ref.legal_actions() == [ks.STOP, ks.JUUROKU]
    ref.apply(ks.STOP)
    assert ref.last_outcome == ks.GYAKU_SUKONKU
    assert ref.scores() == [3, -3, 3, -3, 3]  # R := -3, the +2 of deal 1 is cancelled


@pytest.mark.parametrize("scoring,rk,rm", [("standard", -16, 16), ("zero_sum_5p", -15, 10)])
def test_KAN_32_gyaku_juuroku_ok_S25(scoring, rk, rm):
    ref = after_deal1_win(scoring=scoring)
    ref.deal(plan_hands(B3, B3_EXTRA))
    signal_and_trump(ref, shower=3, chooser=1, suit="S")
    play_tricks(ref, B3)
    ref.apply(ks.JUUROKU)  # GYAKU_JUUROKU: P2's team is the mukankei
    play_tricks(ref, B4_AFTER[:3])
    assert ref.points == [0, 15] and ref.last_outcome == ks.NORMAL_WIN  # still deal 1's
    play_trick(ref, B4_AFTER[3])
    assert ref.last_outcome == ks.GYAKU_JUUROKU_OK
    assert ref.scores() == [rm, rk, rm, rk, rm]


# ---- KAN-40..KAN-45 (scoring chains) ---------------------------------------------------------
def chain(outcomes, **flags):
    cfg = ks.KanConfig(**flags)
    rk = rm = 0
    out = []
    for d, o in enumerate(outcomes, start=1):
        rk, rm = score_deal(rk, rm, o, d, cfg)
        out.append((rk, rm))
    return out


def test_KAN_45_example_1_S26():
    seq = [ks.NORMAL_WIN, ks.SUKONKU, ks.NORMAL_WIN]
    assert chain(seq) == [(1, -1), (3, -3), (5, -5)]  # 1, 3, 4 + W3
    assert chain(seq, scoring="zero_sum_5p") == [(3, -2), (9, -6), (15, -10)]


def test_KAN_45_example_2_S27():
    seq = [ks.NORMAL_WIN, ks.JUUROKU_OK, ks.NORMAL_LOSS]
    assert chain(seq) == [(1, -1), (10, -10), (9, -9)]
    assert chain(seq, scoring="zero_sum_5p") == [(3, -2), (21, -14), (18, -12)]


def test_KAN_43_KAN_45_example_3_S28():
    seq = [ks.SUKONKU, ks.GYAKU_JUUROKU_FAIL, ks.NORMAL_WIN]
    assert chain(seq) == [(2, -2), (38, -38), (40, -40)]
    assert chain(seq, gyaku_juuroku_fail_doubling=False)[-1] == (37, -37)
    assert chain(seq, scoring="zero_sum_5p") == [(6, -4), (48, -32), (54, -36)]
    assert chain(seq, scoring="zero_sum_5p", gyaku_juuroku_fail_doubling=False)[-1] == (54, -36)


def test_KAN_41_set_events():
    assert chain([ks.SUKONKU, ks.GYAKU_SUKONKU]) == [(2, -2), (-3, 3)]
    assert chain([ks.NORMAL_LOSS]) == [(-1, 1)]
    assert chain([ks.GYAKU_SUKONKU]) == [(-10, 10)]
    assert chain([ks.NORMAL_WIN, ks.JUUROKU_FAIL]) == [(1, -1), (-16, 16)]
    assert chain([ks.NORMAL_WIN, ks.NORMAL_WIN, ks.GYAKU_JUUROKU_OK])[-1] == (-16, 16)
    assert chain([ks.NORMAL_WIN, ks.NORMAL_WIN, ks.GYAKU_JUUROKU_FAIL])[-1] == (2 * 3 + 32 + 1,
                                                                                -(2 * 3 + 32 + 1))


def test_KAN_17_KAN_40_six_player_settlement_S29():
    nonzero = 0
    for seed in range(8):
        ref = GoninKanRef(ks.KanConfig(players=6, n_rounds=1, first_dealer_seat=seed % 6))
        play_random(ref, random.Random(seed), lambda r: False)
        s = ref.summary()
        assert s["terminal"] and s["current_player"] == -1 and s["legal_actions"] == []
        assert s["rm"] == -s["rk"] and sum(s["scores"]) == 0
        for p in range(6):
            kankei_side = s["kankei"][p] or p == s["dealer"]
            assert s["scores"][p] == (s["rk"] if kankei_side else s["rm"])
        assert sum(s["kankei"]) == 2 and not s["kankei"][s["dealer"]]
        nonzero += s["rk"] != 0
    assert nonzero


def test_KAN_15_dealer_rotation_S30():
    ref = deal1(A3, A3_EXTRA)  # round 0: no seat change; gyaku sukonku ends it
    play_tricks(ref, A3)
    assert ref.round == 1 and ref.dealer == 1 and ref.trump == 1
    ref.deal(fixed_random_hands(random.Random(30), {4: "JK", 0: "AD"}))
    assert ref.seat_of[:2] == [1, 0] and ref.occupant[:2] == [1, 0]  # P0 <-> P1 (the dealer)
    play_random(ref, random.Random(31), lambda r: r.round == 2)
    assert ref.dealer == 0  # right of P1's seat S0 is S1 = P0, who dealt round 0


# ---- KAN-38, KAN-71, KAN-70 ------------------------------------------------------------------
@pytest.mark.parametrize("tournament,count", [(False, 156), (True, 145)])
def test_KAN_38_KAN_73_signal_counts_S38(tournament, count):
    ref = after_deal1_win(tournament_signals=tournament)
    random_deal(ref, random.Random(38))
    legal = ref.legal_actions()
    assert ref.current_player() == 3 and len(legal) == count
    assert legal == list(range(ks.SIGNAL, ks.SIGNAL + count))
    with pytest.raises(ValueError, match="illegal action"):
        ref.apply(ks.TRUMP)


def test_KAN_71_shippo_jo_call_S39():
    ref = after_deal1_win(shippo_jo=True)  # deal 1: AH went to a mukankei, never offered
    ref.deal(plan_hands(B5, B5_EXTRA))
    signal_and_trump(ref, shower=3, chooser=1, suit="D")
    play_tricks(ref, B5)
    assert ref.current_player() == 2  # first mukankei from the winner P1 on
    assert ref.legal_actions() == [ks.SHIPPO_CALL, ks.SHIPPO_NO_CALL]
    nocall = copy.deepcopy(ref)
    ref.apply(ks.SHIPPO_CALL)
    s = ref.summary()
    assert s["last_outcome"] == ks.SHIPPO_VOID and (s["rk"], s["rm"]) == (1, -1)
    assert ref.chance_kind() == "deal" and s["deal"] == 2 and s["trump"] == -1
    random_deal(ref, random.Random(39))
    assert ref.current_player() == 3 and len(ref.legal_actions()) == 156  # new signal
    nocall.apply(ks.SHIPPO_NO_CALL)
    assert nocall.current_player() == 1 and nocall.legal_actions()[0] < ks.JK


@pytest.mark.parametrize("flag,plan", [(True, B5_MIXED), (False, B5)])
def test_KAN_71_shippo_jo_no_option_S39(flag, plan):
    # With the flag on but AS played by mukankei P2, or with the flag off: never offered.
    ref = after_deal1_win(shippo_jo=flag)
    ref.deal(plan_hands(plan, B5_EXTRA))
    signal_and_trump(ref, shower=3, chooser=1, suit="D")
    play_tricks(ref, plan)
    assert ref.current_player() == 1 and all(a < ks.IKU for a in ref.legal_actions())


def test_KAN_70_KAN_18_nijuu_redeal_S40():
    hands = fixed_random_hands(random.Random(40), {2: "JK AC"})
    ref = start(hands, nijuu_kan_redeal=True)
    s = ref.summary()
    assert ref.chance_kind() == "deal" and s["deal"] == 1 and s["dealer"] == 0
    assert not any(s["kankei"]) and set(s["hand_owner"]) == {-1}
    ref = start(hands)
    assert ref.chance_kind() == "nijuu"
    assert ref.summary()["kankei"] == [False, False, True, False, True]
    ref.nijuu_exchange(sorted(ref.hands[4])[0], poh(0))
    assert ref.current_player() in (2, 4) and ref.summary()["nijuu"][1] == C("AC")


# ---- interface and invariants ----------------------------------------------------------------
def test_deal_validation_and_illegal_actions():
    ref = GoninKanRef(ks.KanConfig())
    hands = fixed_random_hands(random.Random(1), {})
    bad = [list(h) for h in hands]
    bad[0][0] = 0  # 2C is not a Gonin card
    with pytest.raises(ValueError, match="not in the Gonin deck"):
        ref.deal(bad)
    bad = [list(h) for h in hands]
    bad[0][0] = bad[1][0]
    with pytest.raises(ValueError, match="twice"):
        ref.deal(bad)
    with pytest.raises(ValueError):
        ref.deal(hands[:4])
    with pytest.raises(ValueError, match="chance"):
        ref.apply(ks.IKU)
    assert ref.current_player() == -1 and ref.legal_actions() == []
    ref.deal(hands)
    with pytest.raises(ValueError, match="illegal action 0"):
        ref.apply(0)
    with pytest.raises(ValueError):
        ref.deal(hands)
    with pytest.raises(ValueError):
        GoninKanRef(ks.KanConfig(variant="yonin", players=4))


@pytest.mark.parametrize("flags", [
    {"n_rounds": 3},
    {"players": 6, "n_rounds": 3, "nijuu_kan_redeal": True},
    {"n_rounds": 2, "scoring": "zero_sum_5p", "shippo_jo": True, "tournament_signals": True},
    {"players": 6, "n_rounds": 2, "shippo_jo": True, "first_dealer_seat": 5},
])
def test_random_matches_invariants(flags):
    cfg = ks.KanConfig(**flags)
    for seed in range(6):
        rng = random.Random(seed)
        ref = GoninKanRef(cfg)
        while not ref.terminal():
            if ref.chance_kind() == "deal":
                random_deal(ref, rng)
                continue
            if ref.chance_kind() == "nijuu":
                h, p = ref.nijuu_pair
                ref.nijuu_exchange(rng.choice(sorted(ref.hands[p])),
                                   rng.choice([ks.JK, poh(ref.trump)]))
                continue
            s = ref.summary()
            assert s["legal_actions"] and s["current_player"] >= 0
            assert sum(s["kankei"]) == 2 and sum(s["points"]) <= 16
            if ref.phase == 5 and ref.tricks_done == 9:  # PLAY, trick 10 (KAN-25)
                assert s["hand_owner"][ks.JK] == -1
            n_cards = [len(h) for h in ref.hands]
            assert sum(n_cards) + 5 * ref.tricks_done + len(ref.trick) == 50
            ref.apply(rng.choice(s["legal_actions"]))
        s = ref.summary()
        assert s["terminal"] and s["round"] == cfg.n_rounds - 1
        if cfg.players == 6 or cfg.scoring == "zero_sum_5p":
            assert sum(s["scores"]) == 0
