"""The scenarios of conquian.md §8 (and the clarifications CQ-23..27) on the JAX engine, each
named after its rules: positions built from the scenario's cards (`helpers.position`), then
the engine's legal actions and results checked by name."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from kanjax.core.cards import CardError
from kanjax.games.conquian import meld
from kanjax.games.conquian import spec as cq
from tests.games.conquian.helpers import cards, legal, make, play, position, summary, where

ENV = make()
NUMERALS = make(deck="numerals")
HAND_0 = cq.LOC_HAND
MELD_0, MELD_1 = cq.LOC_MELD, cq.LOC_MELD + 1


def splits(env, text: str) -> bool:
    return bool(meld.partitionable(jnp.asarray(meld.words_of(cards(env, text)))))


@pytest.mark.parametrize("text", ["6H 7H JH", "AD 2D 3D", "JC QC KC", "7C JC QC KC",
                                  "AS 2S 3S 4S 5S 6S 7S JS QS KS"])
def test_cq2_cq3_valid_sequences_scenario_1(text):
    assert splits(ENV, text)


@pytest.mark.parametrize("text", ["QS KS AS", "KH AH 2H", "6H 7H QH", "5S 6H 7S"])
def test_cq2_cq3_invalid_sequences_scenario_1(text):
    assert not splits(ENV, text)


def test_cq3_groups_scenario_2():
    assert splits(ENV, "5S 5H 5D") and splits(ENV, "5S 5H 5D 5C")
    assert not splits(ENV, "5S 5H")


def test_cq_v1_numerals_pack_scenario_18():
    for text in ("8S 9S TS", "7D 8D 9D", "AC 2C 3C"):
        assert splits(NUMERALS, text)
    assert not splits(NUMERALS, "9S TS AS")
    with pytest.raises(CardError, match="'JD'"):
        cards(NUMERALS, "7D JD QD")


FIRST_HAND = "5S 5C KS QD 2C 7H JD AS 3D KH"


def test_cq10_cq11_cq13_first_turn_scenario_3():
    s = position(ENV, hands=(FIRST_HAND, "4S"), exposed="5H", mover=0)
    assert legal(ENV, s) == {"pass", "pick 5S", "pick 5C"}  # TAKE(∅), TAKE({5S}) illegal
    s = play(ENV, s, "pick 5S")
    assert legal(ENV, s) == {"pick 5C"}
    s = play(ENV, s, "pick 5C")
    assert legal(ENV, s) == {"take"}


def test_cq13_cq17_after_a_take_scenario_4():
    s = position(ENV, hands=(FIRST_HAND.replace("QD", "KD"), "4S"), exposed="5H", mover=0)
    s = play(ENV, s, "pick 5S", "pick 5C", "take")
    f = summary(ENV, s)
    assert f["phase"] == cq.PHASE_DISCARD and int(f["current_player"]) == 0
    s = play(ENV, s, "discard KD")
    f = summary(ENV, s)
    loc = f["location"]
    assert (loc == MELD_0).sum() == 3 and (loc == HAND_0).sum() == 7
    assert int(f["exposed"]) == cards(ENV, "KD")[0] and not f["fresh"]
    assert int(f["current_player"]) == 1 and legal(ENV, s) == {"decline"}


def test_cq11_cq12_offered_card_scenario_5():
    s = position(ENV, hands=("KS QD", "4H 6H 2C"), exposed="5H", mover=0, stock="AC 2S")
    s = play(ENV, s, "pass")  # M empty: no DEMAND
    f = summary(ENV, s)
    assert int(f["current_player"]) == 1 and not f["fresh"]
    assert legal(ENV, s) == {"decline", "pick 4H", "pick 6H"}
    taken = play(ENV, s, "pick 4H", "pick 6H", "take")
    assert where(ENV, taken, "4H 5H 6H") == [MELD_1] * 3
    s = play(ENV, s, "decline")
    f = summary(ENV, s)
    assert where(ENV, s, "5H") == [cq.LOC_DEAD]
    assert int(f["exposed"]) == cards(ENV, "AC")[0] and f["fresh"]
    assert int(f["current_player"]) == 1 and int(f["stock_left"]) == 1


def test_cq6_switching_scenario_6():
    s = position(ENV, hands=("2H 5H KD", ""), melds=("3S 3H 3D 3C", ""), exposed="4H")
    assert {"pick 2H", "pick 5H"} <= legal(ENV, s)
    s = play(ENV, s, "pick 2H", "pick 5H", "take")
    assert where(ENV, s, "3S 3H 3D 3C 2H 4H 5H") == [MELD_0] * 7


def test_cq6_switching_may_not_break_a_three_scenario_7():
    hands = ("2S 5S 7D QH KC 6H JD", "")
    fresh = position(ENV, hands=hands, melds=("3S 3D 3C", ""), exposed="4S")
    assert legal(ENV, fresh) == {"pass"}
    offered = position(ENV, hands=hands, melds=("3S 3D 3C", ""), exposed="4S", fresh=False)
    assert legal(ENV, offered) == {"decline"}


def test_cq16_force_by_layoff_scenario_8():
    s = position(ENV, hands=("7H 2C 2D QS", "AS QD JC 3S"), melds=("", "4H 5H 6H KS KD KC"),
                 exposed="2H", mover=0)
    s = play(ENV, s, "pick 2C", "pick 2D", "take")
    assert "layoff 7H" in legal(ENV, s) and "layoff QS" not in legal(ENV, s)
    s = play(ENV, s, "layoff 7H")
    f = summary(ENV, s)
    assert (f["location"] == MELD_1).sum() == 7 and int(f["current_player"]) == 1
    assert f["phase"] == cq.PHASE_FORCED_DISCARD
    assert legal(ENV, s) == {"discard AS", "discard QD", "discard JC", "discard 3S"}
    s = play(ENV, s, "discard QD")
    f = summary(ENV, s)
    assert (f["location"] == cq.LOC_HAND + 1).sum() == 3
    assert int(f["current_player"]) == 0 and int(f["exposed"]) == cards(ENV, "QD")[0]
    assert not f["fresh"] and "decline" in legal(ENV, s)


def test_cq15_forcing_a_refusal_scenario_9():
    s = position(ENV, hands=("2S 6D", "KD"), melds=("4C 5C 6C 7C", ""), exposed="JC")
    s = play(ENV, s, "pass")
    f = summary(ENV, s)
    assert f["phase"] == cq.PHASE_RESPOND and int(f["current_player"]) == 1
    assert int(f["refusal"]) == cq.PASS and legal(ENV, s) == {"demand", "waive"}
    forced = play(ENV, s, "demand")
    assert int(summary(ENV, forced)["current_player"]) == 0
    assert legal(ENV, forced) == {"take"}  # no pass or decline once demanded
    forced = play(ENV, forced, "take")
    assert where(ENV, forced, "JC") == [MELD_0]
    assert summary(ENV, forced)["phase"] == cq.PHASE_DISCARD
    waived = play(ENV, s, "waive")
    f = summary(ENV, waived)
    assert int(f["current_player"]) == 1 and not f["fresh"] and int(f["exposed"]) >= 0


def test_cq15_not_forceable_scenario_10():
    s = position(ENV, hands=("JC 2S", "KD"), melds=("4C 5C 6C", ""), exposed="QC")
    s = play(ENV, s, "pass")
    f = summary(ENV, s)
    assert f["phase"] == cq.PHASE_FACE and int(f["current_player"]) == 1 and not f["fresh"]


def test_cq18_going_out_scenario_11():
    s = position(ENV, hands=("QH QD", "KD"), melds=("AS 2S 3S 4S 7D 7H 7C 7S", ""),
                 exposed="QS", fresh=False)
    s = play(ENV, s, "pick QH", "pick QD", "take")
    f = summary(ENV, s)
    assert bool(s.terminated) and f["outcome"] == cq.WON and int(f["winner"]) == 0
    assert np.asarray(s.rewards).tolist() == [1.0, -1.0]
    assert (f["location"] == MELD_0).sum() == 11


MIDDLE = "AH 2H 3H 4H 5H 6H 7H JH QH"


def test_cq7_middle_split_scenario_12():
    s = position(ENV, hands=("6S", "KD"), melds=(MIDDLE, ""), exposed="6D", fresh=False)
    s = play(ENV, s, "pick 6S", "take")
    assert bool(s.terminated) and int(summary(ENV, s)["winner"]) == 0


def test_cq19_forced_layoff_leaves_a_ten_card_bust_scenarios_12_13():
    s = position(ENV, hands=("6S", "KH 2C 3C 4C"), melds=(MIDDLE, ""), exposed="4C",
                 mover=1, fresh=False)
    s = play(ENV, s, "pick 2C", "pick 3C", "take", "layoff KH")
    assert legal(ENV, s) == {"discard 6S"}
    s = play(ENV, s, "discard 6S")
    assert where(ENV, s, "AH 2H 3H 4H 5H 6H 7H JH QH KH") == [MELD_0] * 10


def test_cq19_ten_card_bust_scenario_13():
    bust = "AH 2H 3H 4H 5H 6H 7H JH QH KH"
    for e in range(cq.NUM_CARDS):
        if e in cards(ENV, bust) or e == cards(ENV, "KD")[0]:
            continue
        token = ENV.card_deck.token(e)
        for fresh in (True, False):
            s = position(ENV, hands=("", "KD"), melds=(bust, ""), exposed=token, fresh=fresh)
            assert legal(ENV, s) == {"pass" if fresh else "decline"}, token


def test_cq20_draw_scenario_14():
    one = make(carry_pot=False)
    s = position(one, hands=("KS", "KH"), melds=("", "AS 2S 3S"), exposed="2D", fresh=False,
                 mover=1, stock="")
    assert int(summary(one, s)["stock_left"]) == 0 and legal(one, s) == {"decline"}
    s = play(one, s, "decline")
    f = summary(one, s)
    assert bool(s.terminated) and f["outcome"] == cq.DRAWN
    assert np.asarray(s.rewards).tolist() == [0.0, 0.0]


def test_cq22_pot_scenario_19():
    """Deals drawn, drawn, then seat 0 wins: +3 / -3. Each drawn deal is followed by the next
    of the series, dealt by the other seat (CQ-4) from the step's key."""
    s = position(ENV, hands=("KS", "KH"), melds=("", "AS 2S 3S"), exposed="2D", fresh=False,
                 mover=1, stock="", dealer=1, pot=1)
    s = play(ENV, s, "decline")
    f = summary(ENV, s)
    assert not bool(s.terminated) and bool(f["deal_done"]) and int(f["pot"]) == 2
    assert int(f["dealer"]) == 0 and int(f["current_player"]) == 1 and f["phase"] == 0
    assert np.asarray(s.rewards).tolist() == [0.0, 0.0] and int(f["stock_left"]) == 19
    won = position(ENV, hands=("QH QD", "KD"), melds=("AS 2S 3S 4S 7D 7H 7C 7S", ""),
                   exposed="QS", fresh=False, pot=2)
    won = play(ENV, won, "pick QH", "pick QD", "take")
    assert bool(won.terminated) and np.asarray(won.rewards).tolist() == [3.0, -3.0]
    ten = make(max_deals=3)  # the series' bound: a third drawn deal ends it at 0 each
    s = position(ten, hands=("KS", "KH"), melds=("", "AS 2S 3S"), exposed="2D", fresh=False,
                 mover=1, stock="", pot=2)
    s = play(ten, s, "decline")
    assert bool(s.terminated) and np.asarray(s.rewards).tolist() == [0.0, 0.0]


def test_cq20_demand_choice_before_the_draw():
    s = position(ENV, hands=("KS", "KH"), melds=("", "AS 2S 3S"), exposed="4S", fresh=False,
                 mover=1, stock="")
    s = play(ENV, s, "decline")
    assert legal(ENV, s) == {"demand", "waive"} and not bool(s.terminated)
    drawn = play(ENV, s, "waive")
    assert bool(summary(ENV, drawn)["deal_done"]) and int(summary(ENV, drawn)["pot"]) == 1


def test_cq12_own_discard_never_returns_scenario_15():
    s = position(ENV, hands=("6C 2S", "KD QH"), melds=("AH 2H 3H", ""), exposed="",
                 phase=cq.PHASE_DISCARD, stock="AC JS")
    s = play(ENV, s, "discard 6C", "decline")
    f = summary(ENV, s)
    assert where(ENV, s, "6C") == [cq.LOC_DEAD]
    assert int(f["current_player"]) == 1 and f["fresh"]
    assert int(f["exposed"]) == cards(ENV, "AC")[0]


def test_cq14_no_melding_without_a_take_scenario_16():
    s = position(ENV, hands=("KS KH KD 5S 7D JH QC 6H 4D 3H", "AS"), exposed="2C")
    assert legal(ENV, s) == {"pass"}


def test_cq16_layoff_needs_a_card_in_the_opponents_hand_scenario_17():
    ten = "4H 5H 6H AS 2S 3S 4S JD QD KD"
    s = position(ENV, hands=("7H 7C 7S KC", ""), melds=("", ten), exposed="7D")
    s = play(ENV, s, "pick 7C", "pick 7S", "take")
    assert legal(ENV, s) == {"discard 7H", "discard KC"}


def test_cq25_demand_on_a_full_meld_wins():
    ten = "AS 2S 3S 4S 5S 6S 7S JD QD KD"
    s = position(ENV, hands=("", "KC 2C"), melds=(ten, ""), exposed="JS")
    s = play(ENV, s, "pass")
    assert legal(ENV, s) == {"demand", "waive"}
    s = play(ENV, s, "demand", "take")
    assert bool(s.terminated) and int(summary(ENV, s)["winner"]) == 0


def test_cq26_layoff_of_the_last_hand_card():
    s = position(ENV, hands=("2C 3C 7H", "KD QH"), melds=("JS QS KS AD 2D 3D 4D", "4H 5H 6H"),
                 exposed="4C")
    s = play(ENV, s, "pick 2C", "pick 3C", "take", "layoff 7H")
    f = summary(ENV, s)
    assert (f["location"] == HAND_0).sum() == 0 and (f["location"] == MELD_0).sum() == 10
    assert f["phase"] == cq.PHASE_FORCED_DISCARD and int(f["current_player"]) == 1
