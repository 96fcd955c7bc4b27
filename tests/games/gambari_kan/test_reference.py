"""Self-tests of the plain-Python Gambari Kan reference (kan.md §11; §16 S03, S36, S37).

Deals are scripted as tricks: "2:AH 0:8H 1:9H" means player 2 plays AH, then player 0 8H, then
player 1 9H (the order is asserted against the reference's current player); "1:JK>S" leads JK
naming spades. The hands are the union of the scripted cards plus explicit extra cards.
Players P0..P2 sit in seats S0..S2 for the whole match (KAN-63); the first dealer is S0 unless
stated, so the bidding order is P1, P2, P0 (KAN-65); round 0 has trump C (KAN-64 = KAN-11).
"""

from __future__ import annotations

import random

import pytest

from kanjax.core.cards import deck
from kanjax.games.kan import spec as ks
from kanjax.games.kan.reference_gambari import (
    GAMBARI_DECK,
    PLAY,
    GambariKanRef,
    bidding_order,
    deal_scores,
    end_of_trick_outcome,
)
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

DECK = deck("gambari_kan")
C = DECK.card
KAN, PASS = ks.KAN_BID, ks.PASS_BID


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def parse_trick(text: str) -> list[tuple[int, str]]:
    return [(int(p), tok) for p, tok in (w.split(":") for w in text.split())]


def plan_hands(tricks: list[str], extra: dict[int, str] | None = None) -> list[list[int]]:
    hands: list[list[int]] = [[] for _ in range(3)]
    for trick in tricks:
        for p, tok in parse_trick(trick):
            hands[p].append(C(tok.split(">")[0]))
    for p, text in (extra or {}).items():
        hands[p] += cards(text)
    for p, h in enumerate(hands):
        assert len(h) == 10, (p, h)
    assert set(c for h in hands for c in h) == GAMBARI_DECK
    return hands


def play_trick(ref: GambariKanRef, trick: str) -> None:
    for p, tok in parse_trick(trick):
        assert ref.current_player() == p, (trick, p, ref.current_player())
        if tok.startswith("JK>"):
            action = ks.LEAD_JK + ks.SUITS.index(tok[3])
        else:
            action = C(tok)  # JK (52) is "play JK when following"
        ref.apply(action)


def play_tricks(ref: GambariKanRef, tricks: list[str]) -> None:
    for trick in tricks:
        play_trick(ref, trick)


def random_hands(rng: random.Random) -> list[list[int]]:
    rest = sorted(GAMBARI_DECK)
    rng.shuffle(rest)
    return [rest[0:10], rest[10:20], rest[20:30]]


def bid(ref: GambariKanRef, bids: str) -> None:
    """'P P P P K': the bids in turn (P = PASS, K = KAN)."""
    for b in bids.split():
        ref.apply(KAN if b == "K" else PASS)


def start(hands, bids: str, **flags) -> GambariKanRef:
    ref = GambariKanRef(ks.KanConfig.for_game("gambari_kan", **flags))
    assert ref.chance_kind() == "deal"
    ref.deal(hands)
    bid(ref, bids)
    return ref


def play_random(ref: GambariKanRef, rng: random.Random, stop=lambda r: False) -> None:
    while not ref.terminal() and not stop(ref):
        if ref.chance_kind() == "deal":
            ref.deal(random_hands(rng))
        else:
            ref.apply(rng.choice(ref.legal_actions()))


# ---- KAN-1 -----------------------------------------------------------------------------------
def test_KAN_1_KAN_3_gambari_deck_S03():
    ids = set(DECK.ids)
    assert ids == GAMBARI_DECK and len(ids) == 30 and ks.JK in ids
    for suit, size in zip("CDHS", (7, 7, 7, 8), strict=True):
        assert sum(1 for c in ids if c < 52 and "CDHS"[c // 13] == suit) == size
    assert C("7S") == 44 and 44 in ids and not {5, 18, 31} & ids  # no 7C 7D 7H (§15)
    assert all(c % 13 >= 6 for c in ids if c < 52 and c != C("7S"))  # 8..A
    assert len(set(ks.POINT_CARDS) & ids) == 16


# ---- KAN-65 bidding --------------------------------------------------------------------------
def test_KAN_65_bidding_S36():
    ref = GambariKanRef(ks.KanConfig.for_game("gambari_kan"))
    s = ref.summary()
    assert s["dealer"] == 0 and s["trump"] == 0 and s["target"] == 9 and s["deal"] == 1
    assert s["seat_of"] == [0, 1, 2] and s["current_player"] == -1 and s["legal_actions"] == []
    ref.deal(plan_hands(W8))
    order = []
    for _ in range(3):
        s = ref.summary()
        assert s["legal_actions"] == [KAN, PASS] and s["target"] == 9
        assert s["kankei"] == [False] * 3 and s["points"] == [0, 0]
        order.append(ref.current_player())
        ref.apply(PASS)
    assert order == [1, 2, 0] == bidding_order(0)
    s = ref.summary()
    assert s["target"] == 8 and s["current_player"] == 1 and s["kankei"] == [False] * 3
    ref.apply(PASS)
    assert ref.current_player() == 2
    ref.apply(KAN)
    s = ref.summary()
    assert s["kankei"] == [False, False, True] and s["target"] == 8
    assert s["current_player"] == 2  # KAN-66: the kankei leads trick 1
    assert s["legal_actions"] == sorted(cards("AH KH QH 8S TS 8C AC TC TD JD"))
    assert s["rk"] == s["rm"] == 0 and s["points"] == [0, 0]


def test_KAN_65_first_kan_ends_bidding():
    ref = start(plan_hands(W8), "K")  # P1, the dealer's right, at once
    s = ref.summary()
    assert s["kankei"] == [False, True, False] and s["target"] == 9
    assert ref.current_player() == 1


@pytest.mark.parametrize("floor", [1, 7, 9])
def test_KAN_65_KAN_79_bidding_floor(floor):
    flags = {} if floor == 1 else {"gambari_min_target": floor}
    ref = start(plan_hands(W8), "", **flags)
    for t in range(9, floor, -1):  # every pass above the floor is free
        for bidder in (1, 2, 0):
            assert ref.current_player() == bidder and ref.target == t
            assert ref.legal_actions() == [KAN, PASS]
            ref.apply(PASS)
    assert ref.target == floor
    bid(ref, "P P")  # the first two may still pass at the floor
    assert ref.current_player() == 0 and ref.legal_actions() == [KAN]
    with pytest.raises(ValueError, match=r"illegal action 224 .*legal: \[223\]"):
        ref.apply(PASS)
    ref.apply(KAN)
    s = ref.summary()
    assert s["kankei"] == [True, False, False] and s["target"] == floor
    assert s["current_player"] == 0  # the dealer is the kankei and leads


# ---- KAN-66, KAN-25 (joker rules in 3-player tricks) ------------------------------------------
def test_KAN_25_KAN_66_joker_in_three_player_tricks():
    ref = start(plan_hands(W8), BIDS_T8_P2)
    play_tricks(ref, W8[:2])
    assert ref.current_player() == 2
    ref.apply(C("QH"))
    assert ref.current_player() == 0
    ref.apply(C("8D"))
    # P1 is void in hearts in trick 3: any card, JK included (KAN-25, tricks 2..9).
    legal = ref.legal_actions()
    assert legal == sorted(ref.hands[1] - {ks.JK}) + [ks.JK]
    ref.apply(C("9D"))
    play_tricks(ref, W8[3:8])
    play_trick(ref, "0:AD")
    assert ref.legal_actions() == [ks.JK]  # odori ban (trick 9)
    ref.apply(ks.JK)
    play_trick(ref, "2:TD")
    assert ref.current_player() == 1 and ref.summary()["hand_owner"][ks.JK] == -1
    assert ref.legal_actions() == [C("KD")]


def test_KAN_25_KAN_26_KAN_27_joker_lead():
    hands = [cards("9H AC KC QC JC TC 9C 8C 8D 9D"),  # P0: no spades
             cards("AH JK JH QH KH TD JD QD KD AD"),
             cards("8H TH 7S 8S 9S TS JS QS KS AS")]
    ref = start(hands, "K")  # P1 kankei, t = 9, leads
    legal = ref.legal_actions()
    assert ks.JK not in legal and not set(range(53, 57)) & set(legal)  # KAN-25 trick 1
    play_trick(ref, "1:AH")
    assert ref.legal_actions() == cards("8H TH")
    play_trick(ref, "2:8H 0:9H")
    assert ref.current_player() == 1 and ref.points == [1, 0]
    legal = ref.legal_actions()
    assert legal[-4:] == [53, 54, 55, 56] and ks.JK not in legal  # KAN-26: a JK lead names
    play_trick(ref, "1:JK>S")
    assert ref.led_suit == 3
    assert ref.legal_actions() == sorted(cards("7S 8S 9S TS JS QS KS AS"))  # follow the suit
    play_trick(ref, "2:7S")
    assert ref.legal_actions() == sorted(hands[0][1:])  # P0 void in spades: anything
    play_trick(ref, "0:AC")  # a trump, but JK wins (KAN-27)
    assert ref.current_player() == 1 and ref.points == [2, 0]


# ---- KAN-67, KAN-68 results and scoring -------------------------------------------------------
@pytest.mark.parametrize("scoring,p0,p1,p2", [("per_opponent", -1, -1, 2), ("flat", -1, -1, 1)])
def test_KAN_67_KAN_68_normal_win_S37(scoring, p0, p1, p2):
    ref = start(plan_hands(W8), BIDS_T8_P2, gambari_scoring=scoring)
    play_tricks(ref, W8[:7])
    assert ref.points == [8, 2] and ref.current_player() == 2  # kankei 8 but no sukonku
    play_tricks(ref, W8[7:])
    s = ref.summary()
    assert s["last_outcome"] == ks.NORMAL_WIN and s["scores"] == [p0, p1, p2]
    assert s["round"] == 1 and s["dealer"] == 1 and s["trump"] == 1 and s["target"] == 9
    assert s["rk"] == s["rm"] == 0 and s["points"] == [0, 0] and s["kankei"] == [False] * 3
    assert ref.chance_kind() == "deal" and s["current_player"] == -1


@pytest.mark.parametrize("scoring,p0,p1,p2", [("per_opponent", 1, 1, -2), ("flat", 1, 1, -1)])
def test_KAN_67_KAN_68_normal_loss_S37(scoring, p0, p1, p2):
    ref = start(plan_hands(L7), BIDS_T8_P2, gambari_scoring=scoring)
    play_tricks(ref, L7[:9])
    assert ref.points == [7, 6] and not ref.chance_kind()
    play_trick(ref, L7[9])
    assert ref.last_outcome == ks.NORMAL_LOSS and ref.scores() == [p0, p1, p2]


@pytest.mark.parametrize("scoring,p0,p1,p2", [("per_opponent", -2, -2, 4), ("flat", -2, -2, 2)])
def test_KAN_67_KAN_68_sukonku_S37(scoring, p0, p1, p2):
    ref = start(plan_hands(SK, SK_EXTRA), BIDS_T8_P2, gambari_scoring=scoring)
    play_tricks(ref, SK[:5])
    assert ref.points == [6, 0] and ref.current_player() == 2
    play_trick(ref, SK[5])  # kankei 8, mukankei 0: the deal ends at once, no decision
    s = ref.summary()
    assert s["last_outcome"] == ks.SUKONKU and s["scores"] == [p0, p1, p2]
    assert ref.chance_kind() == "deal" and s["round"] == 1


@pytest.mark.parametrize("scoring,p0,p1,p2", [("per_opponent", 10, -20, 10),
                                               ("flat", 10, -10, 10)])
def test_KAN_67_KAN_68_gyaku_sukonku_low_target(scoring, p0, p1, p2):
    ref = start(plan_hands(GS, GS_EXTRA), BIDS_T3_P1, gambari_scoring=scoring)
    s = ref.summary()
    assert s["kankei"] == [False, True, False] and s["target"] == 3
    play_tricks(ref, GS[:4])
    assert ref.points == [0, 8] and not ref.chance_kind()  # 8 < 17 - 3
    play_tricks(ref, GS[4:6])
    assert ref.points == [0, 12] and not ref.chance_kind()
    play_trick(ref, GS[6])
    assert ref.last_outcome == ks.GYAKU_SUKONKU and ref.scores() == [p0, p1, p2]


def test_KAN_67_KAN_68_helpers():
    assert end_of_trick_outcome(8, 8, 0, 6) == ks.SUKONKU
    assert end_of_trick_outcome(8, 8, 1, 6) is None
    assert end_of_trick_outcome(9, 0, 8, 5) == ks.GYAKU_SUKONKU
    assert end_of_trick_outcome(3, 0, 13, 9) is None
    assert end_of_trick_outcome(1, 1, 0, 1) == ks.SUKONKU  # t = 1: the first point decides
    assert end_of_trick_outcome(1, 0, 15, 10) == ks.NORMAL_LOSS  # 16 is out of reach
    assert end_of_trick_outcome(9, 9, 7, 10) == ks.NORMAL_WIN
    assert end_of_trick_outcome(9, 8, 8, 10) == ks.NORMAL_LOSS
    assert end_of_trick_outcome(9, 16, 0, 10) == ks.SUKONKU
    per = [deal_scores(o, "per_opponent") for o in range(4)]
    assert per == [(2, -1), (-2, 1), (4, -2), (-20, 10)]
    assert [deal_scores(o, "flat") for o in range(4)] == [(1, -1), (-1, 1), (2, -2), (-10, 10)]


# ---- KAN-15, KAN-64: rotation over a match ----------------------------------------------------
@pytest.mark.parametrize("first", [0, 1, 2])
def test_KAN_15_KAN_64_dealer_and_trump_rotation_S04(first):
    ref = GambariKanRef(ks.KanConfig.for_game("gambari_kan", n_rounds=4,
                                              first_dealer_seat=first))
    rng = random.Random(first)
    seen = []
    while not ref.terminal():
        if ref.chance_kind() == "deal":
            s = ref.summary()
            seen.append((s["round"], s["dealer"], s["trump"]))
            assert s["rk"] == s["rm"] == 0 and s["target"] == 9
            ref.deal(random_hands(rng))
            assert ref.current_player() == (s["dealer"] + 1) % 3
        else:
            ref.apply(rng.choice(ref.legal_actions()))
    assert seen == [(r, (first + r) % 3, trump) for r, trump in enumerate((0, 1, 2, 3))]
    assert ref.summary()["seat_of"] == [0, 1, 2]


# ---- interface and invariants ----------------------------------------------------------------
def test_deal_validation_and_illegal_actions():
    ref = GambariKanRef(ks.KanConfig.for_game("gambari_kan"))
    hands = random_hands(random.Random(1))
    bad = [list(h) for h in hands]
    bad[0][0] = C("7S") - 1  # 6S is not a Gambari card
    with pytest.raises(ValueError, match="not in the Gambari deck"):
        ref.deal(bad)
    bad = [list(h) for h in hands]
    bad[0][0] = bad[1][0]
    with pytest.raises(ValueError, match="twice"):
        ref.deal(bad)
    with pytest.raises(ValueError, match="10 cards"):
        ref.deal([hands[0][:9], hands[1], hands[2] + hands[0][9:]])
    with pytest.raises(ValueError, match="3 hands"):
        ref.deal(hands[:2])
    with pytest.raises(ValueError, match="chance"):
        ref.apply(PASS)
    assert ref.current_player() == -1 and ref.legal_actions() == []
    ref.deal(hands)
    with pytest.raises(ValueError, match=r"illegal action 0 for player 1; legal: \[223, 224\]"):
        ref.apply(0)
    with pytest.raises(ValueError):
        ref.deal(hands)
    with pytest.raises(ValueError):
        GambariKanRef(ks.KanConfig())


@pytest.mark.parametrize("scoring", ["per_opponent", "flat"])
def test_random_matches_invariants(scoring):
    floor = 5 if scoring == "flat" else 1
    cfg = ks.KanConfig.for_game("gambari_kan", n_rounds=3, gambari_scoring=scoring,
                                gambari_min_target=floor)
    outcomes = set()
    for seed in range(150):
        rng = random.Random(seed)
        ref = GambariKanRef(cfg)
        before = ref.scores()
        while not ref.terminal():
            if ref.chance_kind() == "deal":
                s = ref.summary()
                assert sum(s["hand_owner"][c] == -1 for c in range(53)) == 53
                ref.deal(random_hands(rng))
                continue
            legal = ref.legal_actions()
            assert legal and legal == sorted(legal) and ref.current_player() >= 0
            assert ref.rk == ref.rm == 0
            if ref.phase == PLAY:
                assert ref.kankei >= 0 and sum(ref.points) <= 16
                held = sum(len(h) for h in ref.hands)
                assert held + 3 * ref.tricks_done + len(ref.trick) == 30  # cards conserved
                if ref.tricks_done in (0, 9):  # KAN-25: never JK in tricks 1 and 10
                    assert not {ks.JK, 53, 54, 55, 56} & set(legal)
                    if ref.tricks_done == 9:
                        assert all(ks.JK not in h for h in ref.hands)
                if ref.tricks_done == 8 and ks.JK in ref.hands[ref.current_player()]:
                    assert set(legal) <= {ks.JK, 53, 54, 55, 56}  # odori ban
            else:
                assert ref.kankei == -1 and ref.target >= cfg.gambari_min_target
            r, k = ref.round, ref.kankei
            ref.apply(rng.choice(legal))
            if ref.round != r or ref.terminal():  # a round (= a deal) just ended
                diff = [a - b for a, b in zip(ref.scores(), before, strict=True)]
                outcomes.add(ref.last_outcome)
                mk = [diff[p] for p in range(3) if p != k]
                assert mk[0] == mk[1] and mk[0] in (-1, 1, -2, 10)  # -v (KAN-68)
                assert diff[k] == (-2 * mk[0] if scoring == "per_opponent" else -mk[0])
                if scoring == "per_opponent":
                    assert sum(diff) == 0  # zero-sum per round
                before = ref.scores()
        s = ref.summary()
        assert s["terminal"] and s["round"] == cfg.n_rounds - 1 and s["current_player"] == -1
        assert s["legal_actions"] == [] and s["last_outcome"] in (0, 1, 2, 3)
    assert outcomes == {ks.NORMAL_WIN, ks.NORMAL_LOSS, ks.SUKONKU, ks.GYAKU_SUKONKU}
