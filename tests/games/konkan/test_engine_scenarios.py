"""The scenarios of konkan.md §10 and the decisions of konkan_engine.md (KON-E1..E16) on the JAX
engine, each named after its rules: positions built from the scenario's cards
(`helpers.position`), then the engine's legal actions, tables and scores checked by name.

One engine compiles `step` (the default: n = 4, solo, opening 51); the variants are checked
through the smaller pieces of the step they change (`_finalize`: the PHASE_ACT mask,
`_resolve`: a turn's start, `_end_round`: the scores), so the file compiles few programs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kanjax.api import jitted
from kanjax.games.konkan import spec as ks
from tests.games.konkan.helpers import (
    hand_text,
    legal,
    make,
    meld_text,
    pick_all,
    play,
    position,
    summary,
)

ENV = make()
ENV3 = make(n=3, dealer=2, reward="points")  # scenarios 1 and 21, points


def discards(names: set[str]) -> set[str]:
    return {a for a in names if a.startswith("discard")}


def ended(env, state, **kw) -> dict:
    """The round's end of a position whose header says how it ended (`_end_round`)."""
    return summary(env, jitted(env, "_end_round")(state))


def with_flags(env, state, **flags):
    """`state` with header slots changed (a position's turn so far)."""
    g = env._unpack(state)
    g.update({k: jnp.int32(v) for k, v in flags.items()})
    return jitted(env, "_finalize")(env._pack(state, g))


# ---- the deal and the first turn ------------------------------------------------------------
def test_KON_6_KON_E1_deal_scenario_1():
    env = ENV3
    s = jitted(env, "init")(jax.random.PRNGKey(5))
    f = summary(env, s)
    assert f["hands"].sum(1).tolist() == [15, 14, 14]
    assert int(f["stock"]) == 63 and f["pile"].sum() == 0 and int(f["pile_top"]) == -1
    assert int(f["current_player"]) == 0 and int(f["phase"]) == ks.PHASE_ACT
    hands, stock = ks.deal_hands(f["deck"], 3, 2)
    for p in range(3):
        assert np.array_equal(np.bincount(hands[p], minlength=53), f["hands"][p])
    assert len(stock) == 63 and np.bincount(f["deck"], minlength=53).tolist() == [2] * 53


def test_KON_11_KON_35_first_turn_scenario_2():
    """Seat 1 (15 cards, dealer 0) may not draw, take or request; it may lay melds, but a
    discard needs the opening (KON-14); `retract` undoes what does not reach it."""
    s = position(ENV, hands=["", "2H 3H 4H 7H 8H 9H QS QD QC 5C 6D 9S KC AD TS", "", ""],
                 mover=1)
    names = legal(ENV, s)
    assert not names & {"draw", "take", "request", "retract"} and len(discards(names)) == 15
    s1 = play(ENV, s, "pick 2H", "pick 3H", "pick 4H", "run 1")
    assert not discards(legal(ENV, s1)) and "retract" in legal(ENV, s1)
    assert summary(ENV, s1)["opened"][1]  # a meld on the table (KON-E16)
    s2 = play(ENV, s1, "retract")
    f = summary(ENV, s2)
    assert int(f["melds"]) == 0 and not f["opened"][1] and f["hands"][1].sum() == 15
    assert len(discards(legal(ENV, s2))) == 15
    s3 = pick_all(ENV, s2, "7H 8H 9H")
    s3 = play(ENV, s3, "run 6")
    s3 = pick_all(ENV, s3, "QS QD QC")
    s3 = play(ENV, s3, "set")  # 24 + 30 = 54 with a run: the opening (scenario 5)
    assert discards(legal(ENV, s3)) and "retract" not in legal(ENV, s3)


# ---- melds (KON-2/7/8/9, KON-E6) --------------------------------------------------------------
@pytest.mark.parametrize("sel, action", [
    ("4H 5H 6H", "run 3"), ("QS KS AS", "run 11"), ("AS 2S 3S", "run 0"),
    ("4H 5H JK", "run 3"), ("4H 5H JK", "run 2"),
    ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "run 1"),
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "run 0")])
def test_KON_2_KON_7_KON_9_valid_runs_scenario_3(sel, action):
    s = position(ENV, hands=[sel + " 9D", "", "", ""], selection=sel)
    assert action in legal(ENV, s)


@pytest.mark.parametrize("hand, sel", [
    ("KS AS 2S", "KS AS 2S"), ("4H 5H 7H", "4H 5H 7H"), ("4H 5S 6H", "4H 5S 6H"),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),
    ("KS AS 2S", "KS AS")])
def test_KON_2_KON_7_invalid_runs_scenario_3(hand, sel):
    s = position(ENV, hands=[hand + " 9D", "", "", ""], selection=sel)
    names = legal(ENV, s)
    assert not {a for a in names if a.startswith("run")}
    if sel == "KS AS":
        assert "pick 2S" not in names  # no completion: the pick is masked (KON-E9)


@pytest.mark.parametrize("sel, ok", [
    ("9S 9H 9D", True), ("9S 9H 9D 9C", True), ("9S 9H JK", True), ("9S JK JK", True),
    ("9S 9S 9H", False), ("9S 9H 9D 9C JK", False), ("9S 9H", False)])
def test_KON_8_KON_9_sets_scenario_4(sel, ok):
    s = position(ENV, hands=[sel + " 2D", "", "", ""], selection=sel)
    assert ("set" in legal(ENV, s)) == ok


# ---- the opening (KON-14, KON-E10) ------------------------------------------------------------
OPEN_54 = "7H 8H 9H QS QD QC 2C"


def test_KON_14_opening_value_scenario_5():
    s = position(ENV, hands=[OPEN_54, "", "", ""])
    s = play(ENV, s, "pick 7H", "pick 8H", "pick 9H", "run 6")
    assert not discards(legal(ENV, s))
    s = play(ENV, s, "pick QS", "pick QD", "pick QC", "set")
    assert discards(legal(ENV, s)) == {"discard 2C"}


def test_KON_14_KON_V3_opening_needs_a_run_scenario_6():
    s = position(ENV, hands=["AS AD AH KS KD KC 2C", "", "", ""])
    s = play(ENV, s, "pick AS", "pick AD", "pick AH", "set", "pick KS", "pick KD", "pick KC",
             "set")
    assert not discards(legal(ENV, s)) and "retract" in legal(ENV, s)  # 63, no run
    hand = make(opening_requires_run=False)
    p = position(hand, hands=["2C", "", "", ""], melds=[(0, "AS AD AH"), (0, "KS KD KC")],
                 opened_start=False, flags=dict(turn_melds=2, turn_value=63, acted=1))
    assert discards(legal(hand, p)) == {"discard 2C"}


def test_KON_3_KON_14_joker_value_scenario_7():
    s = position(ENV, hands=["9H JK JH 5S 5D 5C 2C 3C 4C 8D", "", "", ""])
    s = play(ENV, s, "pick 9H", "pick JK", "pick JH", "run 8", "pick 5S", "pick 5D", "pick 5C",
             "set")
    assert not discards(legal(ENV, s))  # 29 + 15 = 44
    s = play(ENV, s, "pick 2C", "pick 3C", "pick 4C", "run 1")
    assert discards(legal(ENV, s)) == {"discard 8D"}  # + 9 = 53


def test_KON_V1_opening_71_scenario_8():
    env = make(opening_min=71)
    melds = [(0, "7H 8H 9H"), (0, "QS QD QC")]
    p = position(env, hands=["2C", "", "", ""], melds=melds, opened_start=False,
                 flags=dict(turn_melds=2, turn_value=54, turn_run=1, acted=1))
    assert not discards(legal(env, p))
    melds = [(0, "TH JH QH KH"), (0, "AS AD AC")]
    p = position(env, hands=["2C", "", "", ""], melds=melds, opened_start=False,
                 flags=dict(turn_melds=2, turn_value=73, turn_run=1, acted=1))
    assert discards(legal(env, p)) == {"discard 2C"}


@pytest.mark.parametrize("hand, run, rest, ok", [
    ("QD KD AD 5S 5H 5D 5C 9C", "run 11", "5S 5H 5D 5C", True),  # 31 + 20 = 51
    ("QD KD AD 4S 4H 4D 4C 9C", "run 11", "4S 4H 4D 4C", False),  # 31 + 16 = 47
    ("AD 2D 3D 9S 9H 9C 2S 2H 2C 2D KC", "run 0", "9S 9H 9C", True),  # 16 + 27 + 8 = 51
])
def test_KON_3_ace_values_scenario_9(hand, run, rest, ok):
    """QD KD AD = 31 and AD 2D 3D = 16, seen through the 51 threshold (KON-E10)."""
    s = position(ENV, hands=[hand, "", "", ""])
    s = pick_all(ENV, s, " ".join(hand.split()[:3]))
    s = play(ENV, s, run)
    s = play(ENV, pick_all(ENV, s, rest), "set")
    if hand.startswith("AD"):
        s = play(ENV, pick_all(ENV, s, "2S 2H 2C 2D"), "set")
    assert bool(discards(legal(ENV, s))) == ok


# ---- layoffs, taking, retrievals ------------------------------------------------------------
def test_KON_14_KON_15_layoff_before_opening_scenario_10():
    s = position(ENV, hands=["", "", "8S QH QS QC KH KS KC 2D 3D 4D 9C", ""],
                 melds=[(1, "5S 6S 7S")], mover=2)
    assert "pick 8S" not in legal(ENV, s)
    p = position(ENV, hands=["", "", "8S QH QS QC KH KS KC 2D 3D 4D 9C", ""],
                 melds=[(1, "5S 6S 7S")], mover=2, selection="8S")
    assert "layoff 0" not in legal(ENV, p)
    s = play(ENV, pick_all(ENV, s, "QH QS QC"), "set")
    s = play(ENV, pick_all(ENV, s, "KH KS KC"), "set")
    assert "pick 8S" not in legal(ENV, s)  # 60, no run yet
    s = play(ENV, pick_all(ENV, s, "2D 3D 4D"), "run 1")
    s = play(ENV, s, "pick 8S", "layoff 0")  # opened this turn: layoffs allowed (KON-15)
    assert meld_text(ENV, s, 0) == "5S 6S 7S 8S"


HAND_11 = "6D 7D KS KD KC QH QS QC 2H 4S 9C 9H 3D JS"


@pytest.mark.parametrize("top, ok", [("8D", True), ("5C", False)])
def test_KON_16_KON_E11_taking_the_discard_scenario_11(top, ok):
    s = position(ENV, hands=["", HAND_11, "", ""], pile=f"2S {top}", mover=1,
                 phase=ks.PHASE_DRAW)
    assert ("take" in legal(ENV, s)) == ok and "draw" in legal(ENV, s)
    if ok:
        s = play(ENV, s, "take")
        assert int(summary(ENV, s)["taken"]) == ks.DECK.card("8D")
        assert not discards(legal(ENV, s))  # KON-16: 8D must go into the opening first
        s = play(ENV, pick_all(ENV, s, "KS KD KC"), "set")
        s = play(ENV, pick_all(ENV, s, "QH QS QC"), "set")
        assert not discards(legal(ENV, s))  # 60 without 8D: not yet
        s = play(ENV, pick_all(ENV, s, "6D 7D 8D"), "run 5")
        assert discards(legal(ENV, s)) and "discard 8D" not in legal(ENV, s)  # both 8Ds gone


def test_KON_19_joker_from_a_run_scenario_12():
    melds = [(2, "4S JK 6S")]
    s = position(ENV, hands=["5S 9D", "", "", ""], melds=melds + [(0, "2H 3H 4H")])
    assert "pick 5S" in legal(ENV, s)
    s = play(ENV, s, "pick 5S", "retrieve 0")
    assert meld_text(ENV, s, 0) == "4S 5S 6S" and hand_text(ENV, s, 0) == "9D JK"
    u = position(ENV, hands=["", "5S 9D", "", ""], melds=melds, mover=1, selection="5S")
    assert "retrieve 0" not in legal(ENV, u)


def test_KON_20_joker_from_a_set_scenario_13():
    melds = [(1, "8H 8S JK"), (0, "2H 3H 4H")]
    s = position(ENV, hands=["8D 9C", "", "", ""], melds=melds, selection="8D")
    names = legal(ENV, s)
    assert "retrieve 0" not in names and "layoff 0" in names
    assert meld_text(ENV, play(ENV, s, "layoff 0"), 0) == "8S 8H 8D JK"
    s = position(ENV, hands=["8D 8C 9C", "", "", ""], melds=melds)
    s = play(ENV, s, "pick 8D", "pick 8C", "retrieve 0")
    assert meld_text(ENV, s, 0) == "8S 8H 8D 8C" and hand_text(ENV, s, 0) == "9C JK"


def test_KON_38_a_set_with_two_jokers_takes_both_missing_cards():
    melds = [(1, "8H 8S JK JK"), (0, "2H 3H 4H")]
    s = position(ENV, hands=["8D 8C 9C", "", "", ""], melds=melds, selection="8D")
    assert "retrieve 0" not in legal(ENV, s) and "pick 8C" in legal(ENV, s)
    s = play(ENV, s, "pick 8C", "retrieve 0")
    assert meld_text(ENV, s, 0) == "8S 8H 8D 8C" and hand_text(ENV, s, 0) == "9C JK JK"
    one = position(ENV, hands=["8D 8C 8S 9C", "", "", ""], melds=[(1, "set: 8H JK JK"),
                                                                     (0, "2H 3H 4H")])
    one = play(ENV, one, "pick 8D", "pick 8C", "pick 8S", "retrieve 0")  # all three at once
    assert hand_text(ENV, one, 0) == "9C JK JK"


def test_KON_17_KON_E7_layoffs_at_both_ends_and_the_shift_KON_38():
    s = position(ENV, hands=["3H 4H 8H 9H JK AH 5C", "", "", ""],
                 melds=[(0, "5H 6H 7H"), (1, "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")])
    s = play(ENV, pick_all(ENV, s, "8H 9H"), "layoff 0")
    s = play(ENV, pick_all(ENV, s, "3H 4H"), "layoff 0 low")
    assert meld_text(ENV, s, 0) == "3H 4H 5H 6H 7H 8H 9H"
    s2 = play(ENV, s, "pick JK", "layoff 0")  # a joker alone, at the top (KON-17)
    assert meld_text(ENV, s2, 0) == "3H 4H 5H 6H 7H 8H 9H JK"
    k = position(ENV, hands=["AD 5C", "", "", ""],
                 melds=[(0, "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")])
    k = play(ENV, k, "pick AD")
    assert {"layoff 0", "layoff 0 low"} <= legal(ENV, k)
    hi = play(ENV, k, "layoff 0")
    f = summary(ENV, hi)
    assert f["meld_cards"][0].tolist() == [1] * 13 + [0]  # stored on 0..12, the Ace low
    assert meld_text(ENV, hi, 0) == "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"
    full = position(ENV, hands=["AD 5C", "", "", ""],
                    melds=[(0, "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")])
    assert "pick AD" not in legal(ENV, full)  # a run is at most 13 long


# ---- going out and scoring (KON-22..31, KON-E15) ----------------------------------------------
TABLE_14 = [(1, "5S 6S 7S"), (3, "8D 9D TD")]


def test_KON_29_normal_scoring_scenario_14():
    s = position(ENV, hands=["4C", "KS 5H JK", "2C 3D", "AS"],
                 melds=[(0, "9C TC JC")] + TABLE_14, dealer=0)
    s = play(ENV, s, "discard 4C")
    f = summary(ENV, s)
    assert f["round_scores"].tolist() == [-30, 30, 100, 11] and f["totals"].tolist() == [
        -30, 30, 100, 11]
    assert int(f["outcome"]) == ks.OUT
    # KON-E5: round 2 dealt in the same step by the next dealer, seat 1 + 1 to act
    assert int(f["round"]) == 2 and int(f["dealer"]) == 1 and int(f["current_player"]) == 2
    assert f["hands"].sum(1).tolist() == [14, 14, 15, 14] and int(f["melds"]) == 0
    assert bool(ENV.deal_done(s)) and bool(ENV.turn_done(s)) and not bool(s.terminated)


HAND_15 = "2C 3C 4C 5C 6C 7C 8C KS KH KD KC QS QH QC 9D"


def test_KON_24_KON_29_hand_scenario_15():
    s = position(ENV, hands=[HAND_15, "KS 5H JK", "2C 3D", "AS"], melds=TABLE_14)
    s = play(ENV, pick_all(ENV, s, "2C 3C 4C 5C 6C 7C 8C"), "run 1")
    s = play(ENV, pick_all(ENV, s, "KS KH KD KC"), "set")
    s = play(ENV, pick_all(ENV, s, "QS QH QC"), "set", "discard 9D")
    f = summary(ENV, s)
    assert f["round_scores"].tolist() == [-60, 60, 200, 22] and int(f["outcome"]) == ks.HAND


def test_KON_24_not_a_hand_scenario_16():
    s = position(ENV, hands=["2C 3C 4C 5C 6C 7C KS KH KD KC QS QH QC 8S 9D", "KS 5H JK",
                             "2C 3D", "AS"], melds=TABLE_14)
    s = play(ENV, pick_all(ENV, s, "2C 3C 4C 5C 6C 7C"), "run 1")
    s = play(ENV, pick_all(ENV, s, "KS KH KD KC"), "set")
    s = play(ENV, pick_all(ENV, s, "QS QH QC"), "set", "pick 8S", "layoff 0", "discard 9D")
    f = summary(ENV, s)
    assert f["round_scores"].tolist() == [-30, 30, 100, 11] and int(f["outcome"]) == ks.OUT


KONKAN = "2H 3H 4H 5H 6H 7H 8H 9H TH JH 7S 7D 7C 7H 5D"


def konkan_turn(env, s):
    s = play(env, pick_all(env, s, "2H 3H 4H 5H 6H 7H 8H 9H TH JH"), "run 1")
    return play(env, pick_all(env, s, "7S 7D 7C 7H"), "set", "discard 5D")


def test_KON_25_KON_26_konkan_early_round_scenario_17():
    s = position(ENV, hands=[KONKAN, "KS 5H JK", "2C 3D", "AS"], melds=TABLE_14, rnd=2)
    f = summary(ENV, konkan_turn(ENV, s))
    assert f["round_scores"].tolist() == [-60, 200, 200, 200] and int(f["outcome"]) == ks.KONKAN
    assert int(f["round"]) == 3


def test_KON_28_KON_37_konkan_last_round_scenario_18():
    s = position(ENV, hands=[KONKAN, "KS 5H JK", "2C 3D", "AS"], melds=TABLE_14, rnd=5,
                 totals=[250, 40, 90, 100])
    s = konkan_turn(ENV, s)
    f = summary(ENV, s)
    assert bool(s.terminated) and f["winners"].tolist() == [True, False, False, False]
    assert f["totals"].tolist() == [190, 240, 290, 300]  # KON-37: scored, then the maker wins
    assert np.asarray(s.rewards).tolist() == [1.0, 0.0, 0.0, 0.0]


def test_KON_27_KON_36_konkan_request_scenario_19():
    hand = "2H 3H 4H 5H 6H 7H 8H 9H TH JH 7S 7D 7C 4C"
    s = position(ENV, hands=["", "", hand, ""], mover=2, rnd=5, pile="5C KS",
                 phase=ks.PHASE_DRAW)
    assert "request" in legal(ENV, s) and "take" not in legal(ENV, s)  # KS fits no opening
    s = play(ENV, s, "request")
    assert legal(ENV, s) == {"draw", "take"} and summary(ENV, s)["requested"][2]
    s = play(ENV, s, "take")
    names = legal(ENV, s)
    assert "discard KS" not in names and "discard 4C" in names  # KON-18; KON-16 waived
    assert "pick 2H" in names and "pick 7S" in names  # konkan parts: run of 10, set of 4 or 3
    r = play(ENV, pick_all(ENV, s, "2H 3H 4H 5H 6H 7H 8H 9H TH JH"), "run 1")
    assert legal(ENV, r) == {"retract"}  # no set of 4 left (7H went into the run)
    s = play(ENV, s, "discard 4C")
    assert int(summary(ENV, s)["current_player"]) == 3
    lay = position(ENV, hands=["", "", "8S 2D", ""], mover=2, rnd=5, requested=[2],
                   melds=[(0, "5S 6S 7S")], selection="8S")
    assert "layoff 0" not in legal(ENV, lay)  # a requester never lays off (KON-27)
    early = position(ENV, hands=["", "", hand, ""], mover=2, rnd=4, pile="9H",
                     phase=ks.PHASE_DRAW)
    assert "request" not in legal(ENV, early)
    opened = position(ENV, hands=["", "", hand, ""], mover=2, rnd=5, pile="9H",
                      phase=ks.PHASE_DRAW, melds=[(2, "4S 5S 6S")])
    assert "request" not in legal(ENV, opened)


def test_KON_E9_requester_parts_make_fourteen():
    hand = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH 7S 7D 7C 4C"
    s = position(ENV, hands=[hand, "", "", ""], rnd=5, requested=[0])
    s11 = play(ENV, pick_all(ENV, s, "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"), "run 1")
    names = legal(ENV, s11)
    assert "pick 7S" in names and "pick 4C" not in names
    s11 = play(ENV, pick_all(ENV, s11, "7S 7D 7C"), "set")  # run 11 + set 3
    assert discards(legal(ENV, s11)) == {"discard 4C"}
    f = summary(ENV, play(ENV, s11, "discard 4C"))
    assert int(f["outcome"]) == ks.KONKAN and bool(f["terminated"])
    p = position(ENV, hands=[hand, "", "", ""], rnd=5, requested=[0],
                 selection="2H 3H 4H 5H 6H 7H 8H 9H TH")
    assert not {a for a in legal(ENV, p) if a.startswith("run")}  # 9 cards: not a part


def test_KON_E12_discard_conditions():
    # KON-16 for an opened taker: the taken card placed by a layoff counts
    s = position(ENV, hands=["8S 2D 9C", "", "", ""], melds=[(0, "5S 6S 7S")], pile="3C 8S",
                 phase=ks.PHASE_DRAW)
    assert "take" in legal(ENV, s)
    s = play(ENV, s, "take")
    assert not discards(legal(ENV, s))
    s = play(ENV, s, "pick 8S", "layoff 0")
    assert discards(legal(ENV, s)) == {"discard 8S", "discard 2D", "discard 9C"}  # KON-34


def test_KON_E12_taken_type_is_kept_until_placed_KON_34():
    s = position(ENV, hands=["9S 2D 4C", "", "", ""], melds=[(0, "5S 6S 7S 8S")],
                 pile="3C 9H", phase=ks.PHASE_DRAW)
    assert "take" not in legal(ENV, s)  # 9H fits nothing
    s = position(ENV, hands=["9S 9H 2D", "", "", ""], melds=[(0, "5S 6S 7S 8S"),
                                                              (1, "9D 9C JK")],
                 pile="3C 9H", phase=ks.PHASE_DRAW)
    s = play(ENV, s, "take")
    s = play(ENV, s, "pick 9S", "layoff 0")
    assert not discards(legal(ENV, s))  # no 9H placed yet
    s = play(ENV, s, "pick 9H", "layoff 1")
    assert discards(legal(ENV, s)) == {"discard 9H", "discard 2D"}


def test_KON_E16_taken_is_cleared_by_the_game_ending_discard():
    """`taken` is the type taken *this turn* (KON-E16): a discard ends the turn (KON-E4), also
    the last one of the game (going out in the last round, or its turn bound), after which
    it is -1 as the reference states it (found by the differential test)."""
    s = position(ENV, hands=["9S 2D", "", "", ""], melds=[(0, "5S 6S 7S 8S")],
                 pile="3C 9S", phase=ks.PHASE_DRAW, rnd=5)
    s = play(ENV, s, "take")
    assert int(summary(ENV, s)["taken"]) == ks.DECK.card("9S")
    s = position(ENV, hands=["9S 2D", "", "", ""], melds=[(0, "5S 6S 7S 8S")], pile="3C",
                 rnd=5, taken=ks.DECK.card("9S"))
    s = play(ENV, s, "pick 9S", "layoff 0", "discard 2D")  # out: the game's end
    f = summary(ENV, s)
    assert bool(s.terminated) and int(f["outcome"]) == ks.OUT and int(f["taken"]) == -1
    s = position(ENV, hands=["9S 2D 4C", "", "", ""], melds=[(0, "5S 6S 7S 8S")], pile="3C",
                 rnd=5, taken=ks.DECK.card("9S"), flags=dict(turns=399))
    s = play(ENV, s, "pick 9S", "layoff 0", "discard 2D")  # the turn bound (KON-23)
    f = summary(ENV, s)
    assert bool(s.terminated) and int(f["outcome"]) == ks.BLOCKED and int(f["taken"]) == -1


def test_KON_V4_take_without_using_the_card():
    env = make(take_must_use_card=False)
    s = position(env, hands=["4H 4S 4D 9C", "", "", ""], melds=[(1, "5S 6S 7S")],
                 opened=[True, True, False, False], pile="KC", phase=ks.PHASE_DRAW)
    assert "take" in legal(env, s)  # 4S 4H 4D is a meld to lay (opened: no threshold)
    p = position(env, hands=["4H 4S 4D 9C KC", "", "", ""], melds=[(1, "5S 6S 7S")],
                 opened=[True, True, False, False], taken=ks.DECK.card("KC"))
    assert not discards(legal(env, p))
    p = with_flags(env, p, laid_any=1, acted=1)
    assert "discard 9C" in legal(env, p) and "discard KC" not in legal(env, p)  # KON-18
    opening = HAND_11.replace("2H", "8D")  # 6D 7D 8D, KS KD KC, QH QS QC without the 5C
    u = position(env, hands=["", opening, "", ""], pile="5C", mover=1, phase=ks.PHASE_DRAW)
    assert "take" in legal(env, u)  # the opening need not contain 5C
    assert "take" not in legal(ENV, position(ENV, hands=["", opening, "", ""], pile="5C",
                                             mover=1, phase=ks.PHASE_DRAW))


def test_KON_13_KON_22_keep_a_card_scenario_22():
    s = position(ENV, hands=["4H 8H", "", "", ""], melds=[(0, "5H 6H 7H")])
    assert {"pick 4H", "pick 8H"} <= legal(ENV, s)
    s = play(ENV, s, "pick 4H", "layoff 0 low")
    assert "pick 8H" not in legal(ENV, s)  # it would leave no card (KON-13)
    s = play(ENV, s, "discard 8H")
    f = summary(ENV, s)
    assert int(f["outcome"]) == ks.OUT and int(f["round_scores"][0]) == -30


def test_KON_23_KON_30_KON_E2_blocked_round_scenario_23():
    s = position(ENV, hands=["3C 9D", "KD 2S", "5H 7S", "QC"], melds=[(0, "4S 5S 6S"),
                                                                   (3, "9H TH JH")],
                 mover=1, stock="", pile="2D")
    s = play(ENV, s, "discard KD")  # seat 2 can neither draw nor take: blocked at once
    f = summary(ENV, s)
    assert int(f["outcome"]) == ks.BLOCKED
    assert f["round_scores"].tolist() == [12, 100, 100, 10] and int(f["round"]) == 2


def test_KON_E4_turn_bound_blocks_the_round():
    s = position(ENV, hands=["3C 9D", "KD 2S", "5H 7S", "QC"], melds=[(0, "4S 5S 6S")],
                 flags=dict(turns=399))
    s = play(ENV, s, "discard 3C")
    f = summary(ENV, s)
    assert int(f["outcome"]) == ks.BLOCKED and f["round_scores"].tolist() == [9, 100, 100, 100]


# ---- partnership, winners, rewards (KON-31, KON-E15) --------------------------------------------
def ending_state(env, hands, melds, finisher, outcome, **kw):
    s = position(env, hands=hands, melds=melds, **kw)
    g = env._unpack(s)
    g.update(ending=jnp.int32(1 + outcome), finisher=jnp.int32(finisher))
    return env._pack(s, g)


def test_KON_31_partnership_scenario_20():
    env = make(partnership=True)
    melds = [(1, "4S 5S 6S"), (2, "9H TH JH"), (3, "2D 3D 4D")]
    s = ending_state(env, ["5C 9D", "", "QH 2S", "7C 8C TD"], melds, 1, ks.OUT)
    f = ended(env, s)
    assert f["round_scores"].tolist() == [100, -30, 12, 25]
    t = f["round_scores"]
    assert t[1] + t[3] == -5 and t[0] + t[2] == 112
    h = ended(env, ending_state(env, ["5C 9D", "", "QH 2S", "7C 8C TD"], melds, 1, ks.HAND))
    assert h["round_scores"].tolist() == [200, -60, 24, 25]  # the partner is not doubled
    k = ended(env, ending_state(env, ["5C 9D", "", "QH 2S", "7C 8C TD"], melds, 1, ks.KONKAN))
    assert k["round_scores"].tolist() == [200, -60, 200, 0]  # a team never pays its konkan
    last = ending_state(env, ["5C 9D", "", "QH 2S", "7C 8C TD"], melds, 1, ks.OUT, rnd=5,
                        totals=[50, 60, 0, 10])
    w = ended(env, last)  # team A 50 + 100 + 0 + 12 = 162, team B 60 - 30 + 10 + 25 = 65
    assert w["winners"].tolist() == [False, True, False, True]


def test_KON_31_game_end_shared_win_scenario_21():
    env = ENV3
    s = ending_state(env, ["9D", "2S", "5H"], [], -1, ks.BLOCKED, rnd=5, totals=[20, -5, -5])
    f = ended(env, s)
    assert f["totals"].tolist() == [120, 95, 95] and f["winners"].tolist() == [False, True, True]
    assert bool(jitted(env, "_end_round")(s).terminated)


def test_reward_points_pays_each_round():
    env = ENV3
    s = ending_state(env, ["9D", "2S JK", "5H"], [(1, "4S 5S 6S")], 0, ks.OUT, rnd=2)
    done = jitted(env, "_end_round")(s)
    assert np.asarray(done.rewards).tolist() == [30.0, -17.0, -100.0]
    assert not bool(done.terminated) and env.worst_score < 0 and ENV.worst_score == 0.0
