"""Self-tests of the plain-Python Conquian reference: the meld functions, every scenario of
conquian.md §8 (one test each, named after its rule ids), the §9 clarifications, and properties
of random deals played by a biased random policy.

Positions are built with `CqRef.from_position` (cards not listed are dead) or dealt from a deck
order (`order`); seat 0 is N (dealer 1) unless stated.
"""

from __future__ import annotations

import collections
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanjax.core.cards import CardError
from kanjax.games.conquian import spec as cs
from kanjax.games.conquian.reference import CqRef, pot_settlement, whole_takes
from kanjax.games.conquian.reference_meld import (
    cover,
    fits,
    is_combination,
    is_group,
    is_sequence,
    partitionable,
    usable,
)

SPANISH, NUMERALS = cs.DECKS["spanish"], cs.DECKS["numerals"]


def C(text: str, deck=SPANISH) -> list[int]:
    """The ids of the space-separated tokens."""
    return [deck.card(t) for t in text.split()]


def c(token: str) -> int:
    return SPANISH.card(token)


def picks(text: str) -> list[int]:
    return [cs.PICK + x for x in C(text)]


def order(n_hand: str, d_hand: str, stock_top: str) -> list[int]:
    """A deck order dealing `n_hand` to N and `d_hand` to the dealer (10 cards each, CQ-5),
    the stock starting with `stock_top`, the other cards below it in id order."""
    n, d, top = C(n_hand), C(d_hand), C(stock_top)
    assert len(n) == len(d) == cs.HAND_SIZE
    rest = sorted(set(range(cs.NUM_CARDS)) - set(n) - set(d) - set(top))
    dealt = [x for pair in zip(n, d, strict=True) for x in pair]
    return dealt + top + rest


def position(hands, melds=("", ""), *, exposed="", fresh=False, mover=0, stock="",
             phase=cs.PHASE_FACE, dealer=1) -> CqRef:
    return CqRef.from_position(cs.CqConfig(), dealer, [C(h) for h in hands],
                               [C(m) for m in melds], C(stock),
                               c(exposed) if exposed else -1, fresh, mover, phase)


def take(ref: CqRef, hand_cards: str = "") -> None:
    for x in C(hand_cards):
        ref.step(cs.PICK + x)
    ref.step(cs.TAKE)


def hand(ref: CqRef, seat: int) -> set[int]:
    return {x for x, loc in enumerate(ref.facts()["location"]) if loc == cs.LOC_HAND + seat}


def meld(ref: CqRef, seat: int) -> set[int]:
    return {x for x, loc in enumerate(ref.facts()["location"]) if loc == cs.LOC_MELD + seat}


# ---- the meld functions (CQ-2, CQ-3, CQ-6, CQ-V1) ------------------------------------------------
def in_pack(text: str, deck) -> list[int]:
    """The ids of Spanish-pack tokens written in `deck`'s ranks (J Q K -> 8 9 T, CQ-V1)."""
    return C(text.translate(str.maketrans("JQK", "89T")) if deck is NUMERALS else text, deck)


@pytest.mark.parametrize("deck", [SPANISH, NUMERALS], ids=["spanish", "numerals"])
def test_cq2_cq3_sequences_scenario_1(deck):
    for valid in ("6H 7H JH", "AD 2D 3D", "JC QC KC", "7C JC QC KC",
                  "AS 2S 3S 4S 5S 6S 7S JS QS KS"):
        cards = in_pack(valid, deck)
        assert is_sequence(cards) and is_combination(cards) and partitionable(cards)
        assert not is_group(cards)
    for invalid in ("QS KS AS", "KH AH 2H", "6H 7H QH", "5S 6H 7S"):
        cards = in_pack(invalid, deck)
        assert not is_sequence(cards) and not is_combination(cards) and not partitionable(cards)
    assert not is_sequence(in_pack("AS 2S", deck)) and not is_sequence([c("AS"), c("2S"), c("2S")])
    assert is_sequence(reversed(in_pack("AD 2D 3D", deck)))  # a set: any order


@pytest.mark.parametrize("deck", [SPANISH, NUMERALS], ids=["spanish", "numerals"])
def test_cq3_groups_scenario_2(deck):
    for valid in ("5S 5H 5D", "5S 5H 5D 5C", "KS KH KD"):
        cards = in_pack(valid, deck)
        assert is_group(cards) and is_combination(cards) and partitionable(cards)
        assert not is_sequence(cards)
    assert not is_group(in_pack("5S 5H", deck)) and not partitionable(in_pack("5S 5H", deck))
    assert not is_group(in_pack("5S 5H 6D", deck)) and not is_group([c("5S"), c("5S"), c("5H")])


def test_cq_v1_numerals_pack_scenario_18():
    for valid in ("8S 9S TS", "7D 8D 9D", "AC 2C 3C"):
        assert is_sequence(C(valid, NUMERALS)) and partitionable(C(valid, NUMERALS))
    assert not is_sequence(C("9S TS AS", NUMERALS))  # no wrap
    with pytest.raises(CardError, match="JD"):  # no J in this pack
        C("7D JD QD", NUMERALS)
    # The id order is the rank order in both packs: 7 J Q (Spanish) and 7 8 9 are the same ids.
    assert C("7D JD QD") == C("7D 8D 9D", NUMERALS)


def test_cq6_partitions_switching_middle_split_and_bust():
    # Scenario 6: the four 3s and 2H 4H 5H: the 3H moves into the heart sequence.
    assert partitionable(C("3S 3H 3D 3C 2H 4H 5H"))
    assert not partitionable(C("3S 3H 3D 3C 4H"))
    assert usable(C("3S 3H 3D 3C 4H"), C("2H 5H KS")) == set(C("2H 5H"))
    # Scenario 7: a three may not be broken.
    assert not cover(C("3S 3D 3C 4S"), C("2S 5S 7D QH KC 6H JD"))
    # Scenario 12: the nine hearts split in the middle around 6H 6S 6D.
    assert partitionable(C("AH 2H 3H 4H 5H 6H 7H JH QH 6S 6D"))
    assert not partitionable(C("AH 2H 3H 4H 5H 6H 7H JH QH 6S"))
    assert usable(C("AH 2H 3H 4H 5H 6H 7H JH QH 6D"), C("6S 6C KS")) == set(C("6S 6C"))
    # Scenario 13: the ten-card bust admits no eleventh card (CQ-19).
    bust = C("AH 2H 3H 4H 5H 6H 7H JH QH KH")
    assert partitionable(bust)
    assert not any(fits(bust, x) for x in range(cs.NUM_CARDS) if x not in bust)
    # Two groups and a sequence, and sets that are nearly partitionable.
    assert partitionable(C("AS 2S 3S 4S 7D 7H 7C 7S QH QD QS"))
    assert not partitionable(C("AS 2S 3S 4S 7D 7H 7C 7S QH QD"))
    assert partitionable([]) and not partitionable(C("KS")) and not cover(C("KS"), [])
    assert cover([], C("AS KD")) and usable([], C("AS KD")) == frozenset()
    assert fits(C("4C 5C 6C 7C"), c("JC")) and not fits(C("4C 5C 6C"), c("QC"))
    assert fits([], c("KS")) is False


def all_combinations() -> list[frozenset[int]]:
    """The 194 combinations of §7, listed straight from CQ-3: 50 groups, 144 sequences."""
    groups = [frozenset(cs.card_id(t, r) for t in suits) for r in range(cs.NUM_RANKS)
              for k in (3, 4) for suits in itertools.combinations(range(cs.NUM_SUITS), k)]
    runs = [frozenset(cs.card_id(t, r) for r in range(a, b + 1)) for t in range(cs.NUM_SUITS)
            for a in range(cs.NUM_RANKS) for b in range(a + 2, cs.NUM_RANKS)]
    return groups + runs


COMBINATIONS = all_combinations()
COMBINATIONS_WITH = {x: [b for b in COMBINATIONS if x in b] for x in range(cs.NUM_CARDS)}


def test_cq3_the_194_combinations():
    assert len(COMBINATIONS) == len(set(COMBINATIONS)) == 194
    assert all(is_combination(x) for x in COMBINATIONS)
    # Every 3-card set that is not one of them is rejected (9,880 sets).
    triples = {frozenset(t) for t in itertools.combinations(range(cs.NUM_CARDS), 3)}
    assert {t for t in triples if is_combination(t)} == {x for x in COMBINATIONS if len(x) == 3}


@st.composite
def near_melds(draw):
    """A union of up to three disjoint combinations with a few cards added or removed, and a
    split of it into required and optional cards."""
    cards: set[int] = set()
    for combo in draw(st.lists(st.sampled_from(COMBINATIONS), max_size=3)):
        if not cards & combo:
            cards |= combo
    cards |= draw(st.sets(st.integers(0, cs.NUM_CARDS - 1), max_size=2))
    cards -= draw(st.sets(st.sampled_from(sorted(cards)), max_size=2)) if cards else set()
    optional = draw(st.sets(st.sampled_from(sorted(cards)), max_size=6)) if cards else set()
    return frozenset(cards), frozenset(optional)


def brute_partitionable(cards: frozenset[int]) -> bool:
    return next(partitions(cards), None) is not None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(near_melds())
def test_cq6_meld_functions_equal_the_brute_force(sets):
    """partitionable, cover, usable and fits against the enumeration of partitions (CQ-6)."""
    cards, optional = sets
    required = cards - optional
    assert partitionable(cards) == brute_partitionable(cards)
    ok = [frozenset(x) for k in range(len(optional) + 1)
          for x in itertools.combinations(sorted(optional), k)
          if brute_partitionable(required | frozenset(x))]
    assert cover(required, optional) == bool(ok)
    assert usable(required, optional) == frozenset().union(*ok)
    for x in range(cs.NUM_CARDS):
        if x not in cards:
            assert fits(cards, x) == brute_partitionable(cards | {x})


# ---- §8 scenarios --------------------------------------------------------------------------------
S3_N = "5S 5C 2S 3S 4S KD QC JH 7C AD"
S3_D = "4H 6H 2D 3D 6C QS KS JD 2C AC"


def scenario_3() -> CqRef:
    ref = CqRef(cs.CqConfig())
    ref.deal(order(S3_N, S3_D, "5H KH"), dealer=1)
    return ref


def test_cq10_cq11_cq13_first_turn_scenario_3():
    """N = seat 0 turns 5H (fresh); the takes are {5S, 5C} and {5S, 5C, 2S, 3S, 4S}."""
    ref = scenario_3()
    f = ref.facts()
    assert (f["phase"], f["current_player"], f["dealer"], f["exposed"], f["fresh"]) == (
        cs.PHASE_FACE, 0, 1, c("5H"), True)
    assert hand(ref, 0) == set(C(S3_N)) and hand(ref, 1) == set(C(S3_D))
    assert f["stock_left"] == 19 and f["location"][c("KH")] == cs.LOC_STOCK
    assert sorted(whole_takes(ref), key=len) == [set(C("5S 5C")), set(C("5S 5C 2S 3S 4S"))]
    assert ref.legal_actions() == sorted(picks("5S 5C 2S 3S 4S") + [cs.PASS])  # no TAKE(∅)
    ref.step(cs.PICK + c("5S"))  # TAKE({5S}) is illegal; every pick can be completed
    assert ref.legal_actions() == sorted(picks("5C 2S 3S 4S"))
    assert ref.facts()["selection"] == [c("5S")]
    with pytest.raises(ValueError, match="illegal action 'take'.*legal: 'pick 2S'"):
        ref.step(cs.TAKE)
    ref.step(cs.PICK + c("2S"))
    assert ref.legal_actions() == sorted(picks("5C 3S 4S"))
    ref.step(cs.PICK + c("5C"))
    assert ref.legal_actions() == sorted(picks("3S 4S"))  # 2S needs 3S and 4S now
    ref.step(cs.PICK + c("4S"))
    assert ref.legal_actions() == [cs.PICK + c("3S")]
    ref.step(cs.PICK + c("3S"))
    assert ref.legal_actions() == [cs.TAKE]
    ref.step(cs.TAKE)
    assert meld(ref, 0) == set(C("5S 5C 5H 2S 3S 4S")) and len(hand(ref, 0)) == 5


def test_cq13_cq17_after_a_take_scenario_4():
    ref = scenario_3()
    take(ref, "5S 5C")
    assert ref.facts()["phase"] == cs.PHASE_DISCARD and ref.current_player == 0
    assert meld(ref, 0) == set(C("5S 5C 5H")) and len(hand(ref, 0)) == 8  # 11 before the discard
    ref.step(cs.DISCARD + c("KD"))
    f = ref.facts()
    assert (f["phase"], f["current_player"], f["exposed"], f["fresh"]) == (
        cs.PHASE_FACE, 1, c("KD"), False)
    assert len(meld(ref, 0)) == 3 and len(hand(ref, 0)) == 7  # 3 + 7 = 10
    assert f["location"][c("KD")] == cs.LOC_EXPOSED and cs.DECLINE in f["legal_actions"]


def test_cq12_offered_card_scenario_5():
    ref = scenario_3()
    ref.step(cs.PASS)  # M empty: no DEMAND choice
    f = ref.facts()
    assert (f["phase"], f["current_player"], f["exposed"], f["fresh"]) == (
        cs.PHASE_FACE, 1, c("5H"), False)
    assert f["legal_actions"] == sorted(picks("4H 6H") + [cs.DECLINE])
    took = CqRef(cs.CqConfig())
    took.deal(order(S3_N, S3_D, "5H KH"), dealer=1)
    took.step(cs.PASS)
    take(took, "4H 6H")
    assert meld(took, 1) == set(C("4H 5H 6H")) and took.facts()["phase"] == cs.PHASE_DISCARD
    ref.step(cs.DECLINE)
    f = ref.facts()
    assert f["location"][c("5H")] == cs.LOC_DEAD
    assert (f["current_player"], f["exposed"], f["fresh"], f["stock_left"]) == (
        1, c("KH"), True, 18)


def test_cq6_cq23_switching_scenario_6():
    ref = position(["2H 5H KS", ""], ["3S 3H 3D 3C", ""], exposed="4H")
    assert sorted(map(sorted, whole_takes(ref))) == sorted(
        [sorted(C("2H")), sorted(C("5H")), sorted(C("2H 5H"))])  # CQ-23: one hand card too
    assert ref.legal_actions() == sorted(picks("2H 5H") + [cs.DECLINE])
    take(ref, "2H 5H")
    assert meld(ref, 0) == set(C("3S 3D 3C 2H 3H 4H 5H")) and hand(ref, 0) == {c("KS")}
    assert ref.legal_actions() == [cs.DISCARD + c("KS")]


def test_cq6_switching_may_not_break_a_three_scenario_7():
    hand0 = "2S 5S 7D QH KC 6H JD"
    fresh = position([hand0, ""], ["3S 3D 3C", ""], exposed="4S", fresh=True)
    assert whole_takes(fresh) == [] and fresh.legal_actions() == [cs.PASS]
    offered = position([hand0, ""], ["3S 3D 3C", ""], exposed="4S")
    assert offered.legal_actions() == [cs.DECLINE]


def test_cq16_force_by_layoff_scenario_8():
    ref = position(["2C 2D 7H AS QD JC 6S 4D 3S 7C", "AC 3C JD QS"],
                   ["", "4H 5H 6H KS KD KC"], exposed="2S", fresh=True, stock="KH")
    take(ref, "2C 2D")
    legal = ref.legal_actions()
    assert [a for a in legal if a >= cs.LAYOFF] == [cs.LAYOFF + c("7H")]
    ref.step(cs.LAYOFF + c("7H"))
    f = ref.facts()
    assert meld(ref, 1) == set(C("4H 5H 6H 7H KS KD KC")) and len(hand(ref, 0)) == 7
    assert (f["phase"], f["current_player"], f["exposed"]) == (cs.PHASE_FORCED_DISCARD, 1, -1)
    assert f["legal_actions"] == sorted(cs.DISCARD + x for x in C("AC 3C JD QS"))
    ref.step(cs.DISCARD + c("JD"))
    f = ref.facts()
    assert len(hand(ref, 1)) == 3 and len(meld(ref, 1)) == 7  # 7 + 3 = 10
    assert (f["phase"], f["current_player"], f["exposed"], f["fresh"]) == (
        cs.PHASE_FACE, 0, c("JD"), False)


def test_cq15_forcing_a_refusal_scenario_9():
    def scenario() -> CqRef:
        ref = position(["QC QH KH AD 2H 3D", "AS 2S 3S 4S 5S 6S 7S QS KS JS"],
                       ["4C 5C 6C 7C", ""], exposed="JC", fresh=True, stock="KD")
        ref.step(cs.PASS)
        f = ref.facts()
        assert (f["phase"], f["current_player"], f["refusal"], f["exposed"]) == (
            cs.PHASE_RESPOND, 1, cs.PASS, c("JC"))
        assert f["legal_actions"] == [cs.DEMAND, cs.WAIVE]
        return ref

    ref = scenario()
    ref.step(cs.DEMAND)
    f = ref.facts()
    assert (f["phase"], f["current_player"], f["forced"], f["refusal"], f["fresh"]) == (
        cs.PHASE_FACE, 0, True, -1, True)
    assert f["legal_actions"] == [cs.PICK + c("QC"), cs.TAKE]  # no PASS: he must take
    ref.step(cs.TAKE)  # TAKE(∅)
    assert meld(ref, 0) == set(C("4C 5C 6C 7C JC")) and not ref.facts()["forced"]
    assert ref.facts()["phase"] == cs.PHASE_DISCARD
    with_hand = scenario()
    with_hand.step(cs.DEMAND)
    take(with_hand, "QC")
    assert meld(with_hand, 0) == set(C("4C 5C 6C 7C JC QC"))
    waived = scenario()
    waived.step(cs.WAIVE)
    f = waived.facts()
    assert (f["phase"], f["current_player"], f["exposed"], f["fresh"], f["refusal"]) == (
        cs.PHASE_FACE, 1, c("JC"), False, -1)


def test_cq15_not_forceable_scenario_10():
    ref = position(["JC AD 2H", "AS 5D"], ["4C 5C 6C", ""], exposed="QC", fresh=True)
    assert ref.legal_actions() == [cs.PASS]
    ref.step(cs.PASS)
    f = ref.facts()
    assert (f["phase"], f["current_player"], f["exposed"], f["fresh"], f["refusal"]) == (
        cs.PHASE_FACE, 1, c("QC"), False, -1)


def test_cq18_going_out_scenario_11():
    ref = position(["QH QD", "AC 2C 3C"], ["AS 2S 3S 4S 7D 7H 7C 7S", ""], exposed="QS")
    assert ref.legal_actions() == sorted(picks("QH QD") + [cs.DECLINE])
    take(ref, "QH QD")
    f = ref.facts()
    assert len(meld(ref, 0)) == cs.WIN_MELD and not hand(ref, 0)
    assert (f["phase"], f["outcome"], f["winner"], f["scores"], f["terminal"]) == (
        cs.PHASE_OVER, cs.WON, 0, [1, -1], True)
    assert f["legal_actions"] == [] and f["current_player"] == -1 and f["exposed"] == -1


NINE_HEARTS = "AH 2H 3H 4H 5H 6H 7H JH QH"


def test_cq7_middle_split_scenario_12():
    ref = position(["6S", "AC 2C 3C"], [NINE_HEARTS, ""], exposed="6D")
    assert whole_takes(ref) == [frozenset(C("6S"))]
    take(ref, "6S")
    assert ref.facts()["outcome"] == cs.WON and ref.scores == [1, -1]
    # Had the opponent first force-laid KH on the sequence, 6S would have had to go.
    forced = position(["6S", "KH AC 2C 3C"], [NINE_HEARTS, ""], mover=1, phase=cs.PHASE_DISCARD)
    assert cs.LAYOFF + c("KH") in forced.legal_actions()
    forced.step(cs.LAYOFF + c("KH"))
    assert forced.legal_actions() == [cs.DISCARD + c("6S")]
    forced.step(cs.DISCARD + c("6S"))
    assert meld(forced, 0) == set(C(NINE_HEARTS + " KH")) and not hand(forced, 0)


def test_cq19_ten_card_bust_scenario_13():
    bust = NINE_HEARTS + " KH"
    for x in set(range(cs.NUM_CARDS)) - set(C(bust)):
        for fresh in (True, False):
            ref = CqRef.from_position(cs.CqConfig(), 1, [[], []], [C(bust), []], [], x, fresh,
                                      0)
            assert ref.legal_actions() == [cs.PASS if fresh else cs.DECLINE]


def test_cq20_draw_scenario_14():
    ref = position(["AS 5D", "KS QD JC"], ["", "4H 5H 6H"], exposed="2D", mover=1)
    assert ref.legal_actions() == [cs.DECLINE]
    ref.step(cs.DECLINE)
    f = ref.facts()
    assert (f["phase"], f["outcome"], f["winner"], f["scores"], f["terminal"]) == (
        cs.PHASE_OVER, cs.DRAWN, -1, [0, 0], True)
    assert f["location"][c("2D")] == cs.LOC_DEAD and f["exposed"] == -1


def test_cq12_own_discard_never_returns_scenario_15():
    ref = position(["6C 2S 3S", "KD QH 5S"], ["AD 2D 3D", "7S 7H 7D"], mover=0,
                   phase=cs.PHASE_DISCARD, stock="JS KH AC")
    ref.step(cs.DISCARD + c("6C"))
    assert ref.legal_actions() == [cs.DECLINE]
    ref.step(cs.DECLINE)
    f = ref.facts()
    assert f["location"][c("6C")] == cs.LOC_DEAD
    assert (f["current_player"], f["exposed"], f["fresh"]) == (1, c("JS"), True)
    ref.step(cs.PASS)
    assert (ref.current_player, ref.facts()["exposed"]) == (0, c("JS"))  # not 6C


def test_cq14_no_melding_without_a_take_scenario_16():
    n_hand = "KS KH KD 5S 7D JH QC 6H 4D 3H"
    ref = CqRef(cs.CqConfig(dealer=1))
    ref.deal(order(n_hand, "AS 2S 3S 4S 6S 7S JS QS AH 2H", "2C"))  # dealer from the config
    assert ref.facts()["exposed"] == c("2C") and ref.legal_actions() == [cs.PASS]
    ref.step(cs.PASS)
    assert hand(ref, 0) == set(C(n_hand)) and not meld(ref, 0)


def test_cq16_cq26_layoff_needs_a_card_in_the_opponents_hand_scenario_17():
    ref = position(["7H 2C", ""], ["", "4H 5H 6H AS 2S 3S 4S 5S 6S 7S"], mover=0,
                   phase=cs.PHASE_DISCARD)
    assert ref.legal_actions() == sorted(cs.DISCARD + x for x in C("7H 2C"))


def test_cq22_pot_scenario_19():
    results = []
    for _ in range(2):
        drawn = position(["AS 5D", "KS QD JC"], ["", "4H 5H 6H"], exposed="2D", mover=1)
        drawn.step(cs.DECLINE)
        results.append(drawn.scores)
    won = position(["QH QD", "AC 2C 3C"], ["AS 2S 3S 4S 7D 7H 7C 7S", ""], exposed="QS")
    take(won, "QH QD")
    results.append(won.scores)
    assert results == [[0, 0], [0, 0], [1, -1]]
    assert pot_settlement(results)[-1] == [3, -3]
    assert pot_settlement(results, carry_pot=False)[-1] == [1, -1]
    assert pot_settlement([[0, 0], [-1, 1], [0, 0], [1, -1]]) == [[0, 0], [-2, 2], [0, 0],
                                                                   [2, -2]]


# ---- §9 clarifications and other rules -----------------------------------------------------------
def test_cq15_cq24_decline_of_a_forced_discard_lets_the_forcer_demand():
    """Seat 0 lays off 7H; seat 1's forced discard KC fits seat 0's kings alone; seat 0
    declines; seat 1 (who offered it by the forced discard) chooses DEMAND or WAIVE."""
    ref = position(["7H AC", "KC 2D 3H"], ["KS KD KH", "4H 5H 6H"], mover=0,
                   phase=cs.PHASE_DISCARD, stock="JS")
    ref.step(cs.LAYOFF + c("7H"))
    ref.step(cs.DISCARD + c("KC"))
    assert (ref.current_player, ref.facts()["exposed"]) == (0, c("KC"))
    ref.step(cs.DECLINE)
    f = ref.facts()
    assert (f["phase"], f["current_player"], f["refusal"], f["stock_left"]) == (
        cs.PHASE_RESPOND, 1, cs.DECLINE, 1)
    ref.step(cs.DEMAND)
    assert ref.legal_actions() == [cs.TAKE] and ref.facts()["forced"]
    ref.step(cs.TAKE)
    assert meld(ref, 0) == set(C("KS KD KH KC")) and ref.facts()["phase"] == cs.PHASE_DISCARD


def test_cq19_cq25_demand_to_an_empty_hand_makes_him_win():
    ten = "AS 2S 3S 4S 5S 6S 7S JD QD KD"
    ref = position(["", "AC 2C"], [ten, ""], exposed="JS", fresh=True, stock="KH")
    assert ref.legal_actions() == [cs.TAKE, cs.PASS]
    ref.step(cs.PASS)
    assert ref.facts()["phase"] == cs.PHASE_RESPOND
    ref.step(cs.DEMAND)
    assert ref.legal_actions() == [cs.TAKE]
    ref.step(cs.TAKE)
    assert (ref.facts()["outcome"], ref.scores) == (cs.WON, [1, -1])
    waived = position(["", "AC 2C"], [ten, ""], exposed="JS", fresh=True, stock="KH")
    waived.step(cs.PASS)
    waived.step(cs.WAIVE)
    assert (waived.current_player, waived.facts()["exposed"]) == (1, c("JS"))


def test_cq26_layoff_of_the_last_card():
    ref = position(["7H", "AC 2C"], ["AS 2S 3S 4S 5S 6S JD QD KD", "4H 5H 6H"], mover=0,
                   phase=cs.PHASE_DISCARD, stock="KH")
    assert ref.legal_actions() == [cs.DISCARD + c("7H"), cs.LAYOFF + c("7H")]
    ref.step(cs.LAYOFF + c("7H"))
    ref.step(cs.DISCARD + c("AC"))
    f = ref.facts()
    assert not hand(ref, 0) and (f["current_player"], f["exposed"]) == (0, c("AC"))
    assert f["legal_actions"] == [cs.DECLINE]  # no card to pick, AC does not fit


def test_cq20_pending_demand_comes_before_the_draw():
    def scenario() -> CqRef:
        ref = position(["AS 5D", "KS QD"], ["", "4H 5H 6H"], exposed="7H", mover=1)
        ref.step(cs.DECLINE)
        assert ref.facts()["phase"] == cs.PHASE_RESPOND and not ref.terminal
        return ref

    waived = scenario()
    waived.step(cs.WAIVE)
    assert waived.facts()["outcome"] == cs.DRAWN and waived.scores == [0, 0]
    demanded = scenario()
    demanded.step(cs.DEMAND)
    demanded.step(cs.TAKE)
    assert demanded.facts()["phase"] == cs.PHASE_DISCARD and not demanded.terminal


def test_illegal_actions_and_positions_are_refused():
    ref = CqRef()
    assert ref.needs_deal and ref.current_player == -1 and ref.legal_actions() == []
    with pytest.raises(ValueError, match="no deal"):
        ref.step(cs.PASS)
    with pytest.raises(ValueError, match="dealer"):
        ref.deal(range(40))  # the config draws the dealer: it must be given
    with pytest.raises(ValueError, match="permutation"):
        ref.deal([0] * 40, 0)
    ref.deal(range(40), 0)
    assert (ref.current_player, ref.facts()["exposed"]) == (1, 20)  # N turns card 20
    with pytest.raises(ValueError, match="illegal action 'demand'"):
        ref.step(cs.DEMAND)
    with pytest.raises(ValueError, match="#999"):
        ref.step(999)
    with pytest.raises(ValueError, match="already"):
        ref.deal(range(40), 0)
    with pytest.raises(ValueError, match="dealer"):
        CqRef(cs.CqConfig(dealer=0)).deal(range(40), 1)
    with pytest.raises(ValueError, match="partitionable"):
        position(["AS", ""], ["KS KH", ""], exposed="2S")
    with pytest.raises(ValueError, match="at most once"):
        position(["AS", "AS"], exposed="2S")


# ---- random deals --------------------------------------------------------------------------------
def partitions(cards: frozenset[int]):
    """Every partition of `cards` into combinations (CQ-6), as lists of frozensets, from the
    test's own list of the 194 combinations."""
    if not cards:
        yield []
        return
    for block in COMBINATIONS_WITH[min(cards)]:
        if block <= cards:
            for tail in partitions(cards - block):
                yield [block, *tail]


def switches(old: frozenset[int], new: frozenset[int]) -> bool:
    """A take that needs switching (CQ-6): no partition of the new meld keeps the old cards in
    whole combinations (each block's old cards are none or a combination)."""
    return not any(all(not b & old or is_combination(b & old) for b in p)
                   for p in partitions(new))


class Policy:
    """Random legal choices, biased per deal towards picks, takes, layoffs and demands."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.p_pick = rng.choice((0.2, 0.6, 0.95))
        self.p_take = rng.choice((0.5, 0.95))
        self.p_layoff = rng.choice((0.0, 0.3, 0.8))

    def __call__(self, ref: CqRef) -> int:
        legal, rng = ref.legal_actions(), self.rng
        chosen = [a for a in legal if a < cs.TAKE]
        if chosen and rng.random() < self.p_pick:
            return rng.choice(chosen)
        if cs.TAKE in legal and rng.random() < self.p_take:
            return cs.TAKE
        layoffs = [a for a in legal if a >= cs.LAYOFF]
        if layoffs and rng.random() < self.p_layoff:
            return rng.choice(layoffs)
        return rng.choice(legal)


FACT_KEYS = {"phase", "current_player", "dealer", "exposed", "fresh", "forced", "refusal",
             "location", "selection", "stock_left", "outcome", "winner", "scores", "terminal",
             "legal_actions"}


def check_state(ref: CqRef) -> dict:
    """The invariants of every state; returns the facts."""
    f = ref.facts()
    assert set(f) == FACT_KEYS and f["legal_actions"] == ref.legal_actions()
    loc = f["location"]
    counts = collections.Counter(loc)  # 40 cards, each in exactly one place (CQ-1)
    assert len(loc) == cs.NUM_CARDS and counts[cs.LOC_STOCK] == f["stock_left"]
    assert counts[cs.LOC_EXPOSED] == (f["exposed"] >= 0)
    assert f["exposed"] < 0 or loc[f["exposed"]] == cs.LOC_EXPOSED
    held = [{x for x in range(cs.NUM_CARDS) if loc[x] == cs.LOC_HAND + p} for p in (0, 1)]
    melds = [{x for x in range(cs.NUM_CARDS) if loc[x] == cs.LOC_MELD + p} for p in (0, 1)]
    assert sum(map(len, held + melds)) + counts[cs.LOC_STOCK] + counts[cs.LOC_EXPOSED] + counts[
        cs.LOC_DEAD] == cs.NUM_CARDS
    assert all(partitionable(m) for m in melds)  # CQ-6
    sizes = [len(held[p]) + len(melds[p]) for p in (0, 1)]
    mover, ph = f["current_player"], f["phase"]
    if ph in (cs.PHASE_DISCARD, cs.PHASE_FORCED_DISCARD):  # inside a turn (CQ-27)
        assert sizes[mover] == cs.HAND_SIZE + 1 and sizes[1 - mover] == cs.HAND_SIZE
    elif f["outcome"] == cs.WON:
        assert sizes[f["winner"]] == cs.WIN_MELD == len(melds[f["winner"]])
        assert sizes[1 - f["winner"]] == cs.HAND_SIZE
    else:  # between turns (CQ-17); picked cards stay in the hand
        assert sizes == [cs.HAND_SIZE, cs.HAND_SIZE]
    assert set(f["selection"]) <= (held[mover] if mover >= 0 else set())
    assert f["terminal"] == (ph == cs.PHASE_OVER) == (f["outcome"] != cs.IN_PLAY)
    assert bool(f["legal_actions"]) != f["terminal"]  # a legal action until the end
    if ph == cs.PHASE_FACE and f["selection"]:  # a started take can finish
        assert f["legal_actions"] and all(a <= cs.TAKE for a in f["legal_actions"])
    if f["forced"]:
        assert cs.PASS not in f["legal_actions"] and cs.DECLINE not in f["legal_actions"]
    assert (f["refusal"] >= 0) == (ph == cs.PHASE_RESPOND)
    return f


def play_deal(seed: int, fired: collections.Counter | None = None, brute: float = 0.0) -> CqRef:
    """One random deal, checked at every step; at a share `brute` of the take decisions the
    mask is compared with the brute force of CQ-13; `fired` counts the rare branches."""
    rng = random.Random(seed)
    deck = list(range(cs.NUM_CARDS))
    rng.shuffle(deck)
    ref = CqRef(cs.CqConfig(deck=rng.choice(("spanish", "numerals"))))
    ref.deal(deck, rng.randrange(2))
    policy = Policy(rng)
    for _ in range(cs.MAX_DEAL_STEPS):
        f = check_state(ref)
        if f["terminal"]:
            break
        if f["phase"] == cs.PHASE_FACE and not f["selection"] and rng.random() < brute:
            takes = whole_takes(ref)  # the mask agrees with the rule's brute force (CQ-13)
            legal = f["legal_actions"]
            assert {a - cs.PICK for a in legal if a < cs.TAKE} == set().union(*takes)
            assert (cs.TAKE in legal) == (frozenset() in takes)
        action = policy(ref)
        p = ref.current_player
        if fired is not None:
            if action == cs.TAKE:
                old = frozenset(ref.melds[p])
                fired["take with hand cards"] += bool(ref.selection)
                fired["switch"] += bool(old) and switches(
                    old, old | ref.selection | {ref.exposed})
            fired["demand"] += action == cs.DEMAND
            fired["layoff"] += action >= cs.LAYOFF
            fired["forced discard"] += f["phase"] == cs.PHASE_FORCED_DISCARD
        ref.step(action)
    f = check_state(ref)
    assert f["terminal"], "the deal must end within MAX_DEAL_STEPS"
    assert f["scores"] in ([1, -1], [-1, 1], [0, 0])
    assert (f["scores"] == [0, 0]) == (f["outcome"] == cs.DRAWN)
    if fired is not None:
        fired["won" if f["outcome"] == cs.WON else "drawn"] += 1
    return ref


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1))
def test_random_deals_keep_the_invariants(seed):
    """CQ-1/6/17/27 after every step, the mask equals the brute force of CQ-13 at a quarter of
    the take decisions, a legal action until the end, the end within MAX_DEAL_STEPS, CQ-21's
    scores."""
    play_deal(seed, brute=0.25)


def test_random_deals_reach_every_branch():
    """Over 200 deals: takes with hand cards, switching, demands, layoffs, forced
    discards, wins and draws all occur."""
    fired = collections.Counter()
    for seed in range(200):
        play_deal(seed, fired)
    print(dict(fired))
    for branch in ("take with hand cards", "switch", "demand", "layoff", "forced discard",
                   "won", "drawn"):
        assert fired[branch] > 0, (branch, fired)
