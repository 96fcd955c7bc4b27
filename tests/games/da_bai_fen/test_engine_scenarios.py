"""The scenarios of da_bai_fen.md §8 on the JAX engine, hand-checkable: each test builds a deal
(`env.from_deal`) whose play reaches the scenario's position (`scenario_helpers.plan_hand`:
filler tricks of one suit each before the scenario's cards, every trick winner checked), then
asserts the scenario's stated results on the engine's summary and legal mask (legal plays as
the sets of cards the mask lets the mover complete, pick by pick).

Unless stated (as §8 says): R=6, T=C, seat 0 is L, team 0 = {0, 2} declares. Scenarios 1-5 (the
trump order, the draw order, kitty turning, the exposure race), 20's open deal and 21's order
are engine tests of test_engine.py already; here 20 is the claim leading to that open deal and
21 the yuan-zhu ranks in tricks.

Engine configs: only two of the three of `cases.py`, DEFAULT and JILIN (each config costs its
compiles, most of a minute on 2 cores; JILIN holds every variant the scenarios need: step20,
kitty_mult_last_trick, tie_at_40, yuan_zhu, the Jilin rules). A scenario that needs a variant
runs under JILIN; each test's docstring says why that config's other flags do not change it (or
which rule changes the expected value). Where yuan zhu is on and the scenario does not need
R != 2, the hand is at R = 2, where yuan zhu changes nothing (DBF-V6).
"""

from __future__ import annotations

import numpy as np
import pytest

from kanjax.api import legal_actions
from kanjax.games.da_bai_fen import spec as ds
from tests.games.da_bai_fen.cases import DEFAULT, JILIN
from tests.games.da_bai_fen.scenario_helpers import (
    C,
    cards,
    combos,
    facts,
    make,
    plan_hand,
    play,
    play_trick,
    step,
    suit,
    through_exposure,
    to_tail,
    whole_plays,
)

ENV = {"default": make(DEFAULT), "jilin": make(JILIN)}
DEF = ENV["default"]


def at_tail(tail, env=DEF, R=6, T="C", L=0, **kw):
    """The engine at the first lead of `tail` (seat -> cards), after filler tricks."""
    plan = plan_hand(R, T, L, tail, yz=env.config.yuan_zhu, **kw)
    return to_tail(env, plan), plan


def winner_of_last_trick(env, s) -> int:
    tw = facts(env, s)["trick_winners"]
    return int(tw[tw >= 0][-1])


# ---- tricks ---------------------------------------------------------------------------------
def test_DBF_26b_single_card_ruff():
    """Scenario 6: 9H led; KH, 2C, AH: seat 2 (void in hearts: any card) ruffs with 2C, the
    only all-trump play, and wins; team 0 takes 10 (KH)."""
    s, _ = at_tail({0: "9H 3D", 1: "KH 4D", 2: "2C 7D", 3: "AH 8D"})
    before = facts(DEF, s)["points"]
    s = play(DEF, s, 0, "9H")
    s = play(DEF, s, 1, "KH")
    assert whole_plays(DEF, s) == combos(["2C", "7D"])
    s = play_trick(DEF, s, "2C", "AH")
    assert winner_of_last_trick(DEF, s) == 2 and int(s.current_player) == 2
    assert list(facts(DEF, s)["points"] - before) == [10, 0]


def test_DBF_8_26b_equal_trumps():
    """Scenario 7: 4D led; 6S, 6H, 3C: 6S = 6H the strongest, 6S played first: seat 1."""
    s, _ = at_tail({0: "4D 3H", 1: "6S 4H", 2: "6H 5H", 3: "3C 7H"})
    s = play_trick(DEF, s, "4D", "6S", "6H", "3C")
    assert winner_of_last_trick(DEF, s) == 1 and int(s.current_player) == 1


def test_DBF_5_25_follow_with_trump_rank_card():
    """Scenario 8: 9H led; seat 1 holds {6H, 4S, 9C, 2D}: 6H is a trump, so no heart: each of
    the four is a legal play."""
    s, _ = at_tail({0: "9H 3H 4H 5H", 1: "6H 4S 9C 2D", 2: "7H 8H JH QH", 3: "2S 3S 5S 7S"})
    s = play(DEF, s, 0, "9H")
    assert whole_plays(DEF, s) == combos(["6H", "4S", "9C", "2D"])


SCEN_9 = {0: "AS KS 2H 3H", 1: "3S 4H 5H 7H", 2: "QS 9S 4S 8H", 3: "9H TH JH QH"}


def test_DBF_23_valid_multilead():
    """Scenario 9: {AS, KS} with 3S and QS 9S 4S out: valid; the hand goes on, seat 1 to
    follow with two cards."""
    s, _ = at_tail(SCEN_9)
    assert frozenset(cards("AS KS")) in whole_plays(DEF, s)
    s = play(DEF, s, 0, "AS KS")
    f = facts(DEF, s)
    assert int(f["phase"]) == ds.PHASE_PLAY and int(s.current_player) == 1
    assert not f["deal_done"] and int(f["hands_played"]) == 0
    assert whole_plays(DEF, s) == combos(["3S 4H", "3S 5H", "3S 7H"])


SCEN_10 = {0: "AS QS 2H 3H", 1: "3S 4H 5H 7H", 2: "KS 9S 4S 8H", 3: "9H TH JH QH"}


@pytest.mark.parametrize("config,levels", [("default", [6, 8]), ("jilin", [6, 9])])
def test_DBF_24_invalid_multilead_penalty(config, levels):
    """Scenario 10: declarer L leads {AS, QS} while his partner holds KS: invalid, the hand
    ends at once; kitty 15 -> P = 100 + 15 = 115: opponents +2 (+3 with step20: JILIN),
    team 1 declares, next starter seat 1, next R their level. JILIN's other flags do not
    apply to a penalty hand (DBF-24: no kitty multiplier, no V12/V13; tie_at_40 needs P = 40;
    no Dun in a lead of two), and yuan zhu (2H, 2S trumps) changes no spade above QS."""
    env = ENV[config]
    s, _ = at_tail(SCEN_10, env=env, kitty_points=15)
    s = play(env, s, 0, "AS QS")
    f = facts(env, s)
    assert (int(f["outcome"]), int(f["P"]), list(f["kitty_bonus"])) == (ds.PENALTY, 115, [0, 0])
    assert list(f["levels"]) == levels and int(f["hands_played"]) == 1
    assert (int(f["declaring"]), int(f["starter"]), int(f["leader"]),
            int(f["trump_level"])) == (1, 1, 1, levels[1])


SCEN_11 = {0: "AS KS 2H 3H", 1: "2C 7C 4H 9D", 2: "3S 8D QH 4D", 3: "6H AC 5D TH"}


@pytest.mark.parametrize("third,winner,points", [("6H AC", 3, 10), ("6H 5D", 1, 15)])
def test_DBF_25_26_multilead_follow_and_ruff(third, winner, points):
    """Scenario 11: {AS, KS} led (valid). Seat 1 (no spade): any 2 of 4; seat 2 (3S): 3S +
    any; seat 3: any 2 of 4. {2C, 7C} and {6H, AC} are all-trump, 6H's top beats 7C: seat 3
    wins KS's 10; with {6H, 5D} seat 1's {2C, 7C} wins 15 (KS, 5D)."""
    s, _ = at_tail(SCEN_11)
    before = facts(DEF, s)["points"]
    s = play(DEF, s, 0, "AS KS")
    assert whole_plays(DEF, s) == combos(["2C 7C", "2C 4H", "2C 9D", "7C 4H", "7C 9D",
                                          "4H 9D"])
    s = play(DEF, s, 1, "2C 7C")
    assert whole_plays(DEF, s) == combos(["3S 8D", "3S QH", "3S 4D"])
    t = step(DEF, s, ds.PICK + C("8D"))
    assert legal_actions(t) == [ds.PICK + C("3S")]
    s = play(DEF, s, 2, "3S 8D")
    assert len(whole_plays(DEF, s)) == 6
    s = play(DEF, s, 3, third)
    assert winner_of_last_trick(DEF, s) == winner
    assert list(facts(DEF, s)["points"] - before) == [0, points]


def test_DBF_21_25_trump_multilead():
    """Scenario 12: {RJ, BJ} (always valid): seat 1 plays 2 of its trumps {AC, 3C, 6S}; seat 2
    its one trump 2C + any card; seat 3, no trump, any 2; seat 0 wins."""
    s, _ = at_tail({0: "RJ BJ 2H 3H", 1: "AC 3C 6S 4H", 2: "2C 5H 7H 8H", 3: "9H TH JH QH"})
    s = play(DEF, s, 0, "RJ BJ")
    assert whole_plays(DEF, s) == combos(["AC 3C", "AC 6S", "3C 6S"])
    s = play(DEF, s, 1, "AC 6S")
    assert whole_plays(DEF, s) == combos(["2C 5H", "2C 7H", "2C 8H"])
    s = play(DEF, s, 2, "2C 8H")
    assert len(whole_plays(DEF, s)) == 6
    s = play(DEF, s, 3, "9H QH")
    assert winner_of_last_trick(DEF, s) == 0


# the scenario's cards; the others (no trumps) chosen so that the filler comes in fours
SCEN_13 = {0: "6H 6D 2H 5S", 1: "6S 2C 3S 4S", 2: "AC 5H 7H 8H", 3: "9H TH JH QH"}


def test_DBF_23_equal_cards_do_not_invalidate():
    """Scenario 13: {6H, 6D} led; trumps out 6S 2C (seat 1), AC (seat 2); RJ, BJ, 6C in the
    kitty: valid. Seat 1 must play {6S, 2C}, seat 2 AC + any; seat 0 wins (6S equals 6H but
    was played later)."""
    s, plan = at_tail(SCEN_13, kitty="6C RJ BJ")
    assert {C("RJ"), C("BJ"), C("6C")} <= set(plan.kitty)
    before = facts(DEF, s)["points"]
    s = play(DEF, s, 0, "6H 6D")
    assert int(facts(DEF, s)["phase"]) == ds.PHASE_PLAY and int(s.current_player) == 1
    assert whole_plays(DEF, s) == combos(["6S 2C"])
    s = play(DEF, s, 1, "6S 2C")
    assert whole_plays(DEF, s) == combos(["AC 5H", "AC 7H", "AC 8H"])
    s = play(DEF, s, 2, "AC 5H")
    s = play(DEF, s, 3, "9H TH")
    assert winner_of_last_trick(DEF, s) == 0
    assert list(facts(DEF, s)["points"] - before) == [15, 0]  # 5H + TH


def test_DBF_23_equal_cards_rj_out_invalidates():
    """Scenario 13, had seat 3 held RJ: it beats 6H, the lead is invalid: the penalty ends the
    hand, P = 100 + the kitty's points."""
    s, plan = at_tail(SCEN_13 | {3: "RJ TH JH QH"}, kitty="6C BJ")
    s = play(DEF, s, 0, "6H 6D")
    f = facts(DEF, s)
    kitty_points = sum(ds.CARD_POINTS[c] for c in plan.kitty)
    assert (int(f["outcome"]), int(f["P"])) == (ds.PENALTY, 100 + kitty_points)


# ---- the kitty and the tables ---------------------------------------------------------------
NON_POINT = "AQJ9876432"  # heart ranks of no points, high to low


def last_trick(R: int, L: int, won_by_team: int) -> dict[int, str]:
    """A last trick of single plain hearts without points, L leading; `won_by_team` wins it."""
    ranks = [r for r in NON_POINT if ds.RANK_CHARS.index(r) != ds.level_rank(R)]
    hi, lows = ranks[0] + "H", [r + "H" for r in ranks[-3:]]
    w = L if won_by_team == L % 2 else (L + 1) % 4
    return {p: hi if p == w else lows.pop() for p in range(4)}


def hand_end(env, plan):
    """The plan's filler and then its tail (one trick) played to the hand's end: the state and
    summary at the next hand's first decision (or at the game's end)."""
    s = play_trick(env, to_tail(env, plan), *plan.tail_plays())
    f = facts(env, s)
    assert f["deal_done"]
    return s, f


def scored(env, opp_tricks: int, kitty_points: int, last_team: int, *, R=6, T="C", L=0,
           declaring=None, tail=None, **kw):
    """A hand played out: the opponents take `opp_tricks` trick points, team `last_team` the
    last trick (no points in it), the kitty holds `kitty_points`."""
    declaring = L % 2 if declaring is None else declaring
    plan = plan_hand(R, T, L, tail or last_trick(R, L, last_team), kitty_points=kitty_points,
                     declaring=declaring, filler_opp_points=opp_tricks,
                     yz=env.config.yuan_zhu, **kw)
    s, f = hand_end(env, plan)
    assert int(f["last_points"][1 - declaring]) == opp_tricks
    assert int(f["last_points"][declaring]) == 100 - kitty_points - opp_tricks
    return s, f


def next_hand(f) -> tuple:
    """(levels, next declaring team, next starter, next R, next hand kind)."""
    return (list(f["levels"]), int(f["declaring"]), int(f["starter"]), int(f["trump_level"]),
            int(f["hand_kind"]))


LATER, OPEN = ds.LATER_HAND, ds.OPEN_DEAL


def test_DBF_29_31_kitty_doubled():
    """Scenario 14: kitty 15; the opponents take 30 in tricks and the last trick: P = 30 +
    2 * 15 = 60: no level change, team 1 declares, next starter seat 1 (L+1), R = their 6."""
    _, f = scored(DEF, 30, 15, 1)
    assert (int(f["outcome"]), int(f["P"]), list(f["kitty_bonus"])) == (ds.NORMAL, 60, [0, 30])
    assert next_hand(f) == ([6, 6], 1, 1, 6, LATER)


V4_TAILS = {  # the last trick, seat 1 leading; the followers' cards (no trump, no points)
    # chosen so that the filler comes in fours
    1: {1: "AH", 2: "3S", 3: "4S", 0: "6S"},
    2: {1: "AH QH", 2: "3S 4S", 3: "6S 7S", 0: "3H 4H"},
    3: {1: "AH QH JH", 2: "3S 4S 6S", 3: "3H 4H 6H", 0: "3D 4D 6D"},
}


@pytest.mark.parametrize("size,P", [(1, 45), (2, 60), (3, 75)])
def test_DBF_V4_kitty_multiplier(size, P):
    """Scenario 15 (JILIN: kitty_mult_last_trick): kitty 15 (KH in it, so AH QH JH lead
    validly), opponents 30 in tricks; seat 1 wins the last trick of single cards / pairs /
    triples: P = 30 + 15 * size = 45 / 60 / 75. R = 2 (yuan zhu changes nothing, DBF-V6).
    JILIN's jilin_last_trick (V12) scores this hand, since the opponents won the last trick:
    by their trick points only (30 < 40: +0), they declare (starter L+1): so no level changes
    in any of the three, where step20 alone would give the opponents +1 at 60 and 75
    (DBF-34). No Dun (no quad led); tie_at_40 is not on V12's path (DBF-41)."""
    env = ENV["jilin"]
    _, f = scored(env, 30, 15, 1, R=2, tail=V4_TAILS[size], tail_leader=1, kitty="KH",
                  levels=(2, 2))
    assert (int(f["P"]), list(f["kitty_bonus"])) == (P, [0, 15 * size])
    assert next_hand(f) == ([2, 2], 1, 1, 2, LATER)


@pytest.mark.parametrize("P,kitty,opp_tricks,last_team,want", [
    (0, 10, 0, 0, ([8, 6], 0, 2, 8)),  # declarers +2, starter L+2
    (35, 10, 35, 0, ([7, 6], 0, 2, 7)),  # declarers +1
    (40, 10, 40, 0, ([6, 6], 1, 1, 6)),  # switch, no change, starter L+1
    (75, 10, 75, 0, ([6, 6], 1, 1, 6)),
    (80, 10, 80, 0, ([6, 7], 1, 1, 7)),  # opponents +1
    (95, 5, 95, 0, ([6, 7], 1, 1, 7)),
    (100, 15, 70, 1, ([6, 8], 1, 1, 8)),  # 70 + 2 * 15: opponents +2
    (140, 40, 60, 1, ([6, 8], 1, 1, 8)),  # 60 + 2 * 40
])
def test_DBF_31_table_boundaries(P, kitty, opp_tricks, last_team, want):
    """Scenario 16: the standard table at its boundaries, each P from a hand played out."""
    _, f = scored(DEF, opp_tricks, kitty, last_team)
    assert (int(f["outcome"]), int(f["P"])) == (ds.NORMAL, P)
    assert next_hand(f) == (*want, LATER)


@pytest.mark.parametrize("P,kitty,want", [
    (0, 10, [5, 2]), (15, 10, [4, 2]), (20, 10, [3, 2]), (35, 10, [3, 2]),
    (60, 10, [2, 3]), (95, 5, [2, 4])])
def test_DBF_34_step20_table(P, kitty, want):
    """Scenario 17 (JILIN: step20), P from hands the declarers end by winning the last trick,
    so that the table applies under JILIN's jilin_last_trick (V12) and their kitty bonus is
    not in P (kitty_mult_last_trick changes nothing). 0 -> +3, 15 -> +2, 20 / 35 -> +1, 60 ->
    opponents +1, 95 -> +2 (switch). R = 2, where yuan zhu changes nothing (DBF-V6). P = 40
    is a tie under JILIN's tie_at_40 (V5: test_DBF_V5_tie_at_40), so its row ("switch, 0") is
    not seen here; 115, 120, 160 are penalty hands (below)."""
    env = ENV["jilin"]
    _, f = scored(env, P, kitty, 0, R=2, levels=(2, 2))
    assert (int(f["outcome"]), int(f["P"])) == (ds.NORMAL, P)
    switch = P >= 40
    assert next_hand(f) == (want, int(switch), 1 if switch else 2, want[int(switch)], LATER)


PENALTY_TAIL = {0: "AS QS", 1: "3S 4H", 2: "KS 4D", 3: "9H 3D"}  # a kitty of 60 fits


@pytest.mark.parametrize("kitty,want", [(15, [2, 5]), (20, [2, 6]), (60, [2, 8])])
def test_DBF_34_step20_table_high_P(kitty, want):
    """Scenario 17 (JILIN: step20), P = 115 / 120 / 160 -> opponents +3 / +4 / +6. In a hand
    played out, P above 100 needs the opponents' kitty bonus, so their last trick, and JILIN's
    V12 then scores the hand by trick points; so these P come from penalty hands (DBF-24:
    P = 100 + kitty, scored by the table; no kitty multiplier, no V12/V13): L leads {AS, QS}
    with KS at his partner's."""
    env = ENV["jilin"]
    s, _ = at_tail(PENALTY_TAIL, env=env, R=2, levels=(2, 2), kitty_points=kitty)
    s = play(env, s, 0, "AS QS")
    f = facts(env, s)
    assert (int(f["outcome"]), int(f["P"])) == (ds.PENALTY, 100 + kitty)
    assert next_hand(f) == (want, 1, 1, want[1], LATER)


def test_DBF_35_worked_example():
    """Scenario 18: seats N=0, W=1, S=2, E=3, both teams at 2; each hand is built from the
    engine's next-hand facts. Hand 1 (first hand, starter W): S exposes a 2 (L = 2); E-W get 15
    -> (3, 2), next starter N. Hand 2: R = 3, N leads, W exposes a 3 (fixes T only); E-W get
    40 -> (3, 2), E-W declare, starter W. Hand 3: R = 2, W leads, E exposes a 2; N-S get 0 ->
    (3, 4), next R = 4, starter E. Later: N-S at K, E-W at Q declaring; N-S get 90 -> N-S at
    A, they declare, the game goes on."""
    got = []
    # hand 1: S (2) exposes 2C and wins the last trick with it
    plan = plan_hand(2, "C", 2, {2: "2C", 3: "3H", 0: "4H", 1: "7H"}, kind="first", starter=1,
                     exposer=2, kitty_points=10, filler_opp_points=15)
    s, f = hand_end(DEF, plan)
    assert int(f["P"]) == 15
    got.append(next_hand(f))
    # hand 2: W (1) exposes 3C; N's RJ wins the last trick over it
    levels, D, S, R, _ = got[-1]
    assert (int(f["hands_played"]), R) == (1, 3)
    plan = plan_hand(R, "C", S, {S: "RJ", 1: "3C", 2: "4H", 3: "7H"}, declaring=D,
                     levels=levels, hands_played=1, exposer=1, kitty_points=10,
                     filler_opp_points=40)
    s = through_exposure(DEF, DEF.from_deal(plan.deal), 1, suit("C"))
    f = facts(DEF, s)
    assert (int(f["exposer"]), int(f["leader"]), int(f["declaring"])) == (1, 0, 0)
    s, f = hand_end(DEF, plan)
    assert int(f["P"]) == 40
    got.append(next_hand(f))
    # hand 3: E (3) exposes 2C; W leads RJ and wins the last trick
    levels, D, S, R, _ = got[-1]
    plan = plan_hand(R, "C", S, {S: "RJ", 2: "4H", 3: "2C", 0: "7H"}, declaring=D,
                     levels=levels, hands_played=2, exposer=3, kitty_points=10,
                     filler_opp_points=0)
    s, f = hand_end(DEF, plan)
    assert int(f["P"]) == 0
    got.append(next_hand(f))
    assert got == [([3, 2], 0, 0, 3, LATER), ([3, 2], 1, 1, 2, LATER),
                   ([3, 4], 1, 3, 4, LATER)]
    # later: N-S at K, E-W at Q declaring (L = 1); N-S get 90
    s, f = scored(DEF, 90, 10, 1, R=12, L=1, levels=(13, 12), hands_played=5)
    assert int(f["P"]) == 90 and not bool(s.terminated)
    assert next_hand(f) == ([14, 12], 0, 2, 14, LATER)


@pytest.mark.parametrize("levels,declaring,P,kitty,over,winner", [
    ((14, 9), 0, 35, 10, True, 0),  # declarers at A, +1 -> 15: team 0 wins
    ((5, 14), 0, 80, 10, True, 1),  # opponents at A, +1 -> 15: team 1 wins
    ((13, 9), 0, 0, 10, True, 0),  # declarers at K, +2 -> 15
    ((13, 7), 1, 90, 10, False, -1),  # opponents at K, +1 -> A: they declare, go on
])
def test_DBF_36_passing_ace(levels, declaring, P, kitty, over, winner):
    """Scenario 19: the first team past A (target 14) wins, declaring or not."""
    s, f = scored(DEF, P, kitty, declaring, R=levels[declaring], L=declaring,
                  levels=levels)
    assert int(f["P"]) == P and bool(s.terminated) == over
    if over:
        assert int(f["winner"]) == winner and int(f["phase"]) == ds.PHASE_OVER
        assert list(np.asarray(s.rewards)) == [1 if p % 2 == winner else -1 for p in range(4)]
    else:
        assert next_hand(f) == ([14, 7], 0, 2, 14, LATER)
        assert list(np.asarray(s.rewards)) == [0] * 4


# ---- annulment, yuan zhu, Jilin, tie --------------------------------------------------------
CLAIM_HANDS = ["7C 8C 9C TC JC QC KC AC 9H 9D BJ RJ", "7S 8S TS JS QS KS AS 2D 3D 4D 5D 6D",
               "2H 3H 4H 5H 6H 7H 8H TH JH QH KH AH", "7D 8D TD JD QD KD AD 2C 3C 4C 5C 6C"]


def test_DBF_18_22_claim_annuls_and_opens():
    """Scenario 20: levels (5, 9), team 1 declares, L = 1 (R = 9; 9S turned first: T = S).
    After L's discard seat 2 holds no trump (hearts only) and claims: nothing is scored, the
    levels stay, the next deal is open with starter 3 (L+2). In it a seat of team 0 may
    expose only a 5, of team 1 only a 9: seat 3 (9H) may, seat 0 (9S) may not; seat 2's 5H
    makes L = 2, team 0 declares, R = 5, T = H."""
    deal = " | ".join(["da_bai_fen kind=later starter=1 declaring=1 levels=5,9"]
                      + CLAIM_HANDS + ["kitty: 9S 2S 3S 4S 5S 6S"])
    s = through_exposure(DEF, DEF.from_deal(deal), None, 0)
    f = facts(DEF, s)
    assert (int(f["trump_suit"]), int(f["leader"]), int(f["phase"])) == (
        suit("S"), 1, ds.PHASE_DISCARD)
    for c in cards("2D 3D 4D 5D 6D 7S"):
        s = step(DEF, s, ds.PICK + c)
    assert int(facts(DEF, s)["phase"]) == ds.PHASE_CLAIM and int(s.current_player) == 2
    assert legal_actions(s) == [ds.PASS, ds.CLAIM]
    s = step(DEF, s, ds.CLAIM)
    f = facts(DEF, s)
    assert (int(f["outcome"]), list(f["levels"]), int(f["hand_kind"])) == (
        ds.CLAIMED, [5, 9], OPEN)
    assert int(f["starter"]) == (3 + int(f["nskip"])) % 4 and int(f["declaring"]) == -1
    assert list(f["last_points"]) == [0, 0] and int(f["hands_played"]) == 1
    # the open deal from starter 3: draws 0..3 go to seats 3, 0, 1, 2
    front = cards("9H 9S 5S 5H")
    kitty = cards("2S 3S 4S 6S 7S 8S")
    order = front + [c for c in range(54) if c not in front + kitty] + kitty
    hands = [[order[4 * i + (q - 3) % 4] for i in range(12)] for q in range(4)]
    deal = " | ".join(["da_bai_fen kind=open starter=3 levels=5,9 hands=1"]
                      + [ds.DECK.format_hand(h) for h in hands]
                      + ["kitty: " + ds.DECK.format_hand(kitty)])
    s = DEF.from_deal(deal)
    assert (int(s.current_player), legal_actions(s)) == (3, [ds.EXPOSE + suit("H"), ds.PASS])
    s = step(DEF, s, ds.PASS)
    assert (int(s.current_player), legal_actions(s)) == (2, [ds.EXPOSE + suit("H"), ds.PASS])
    s = step(DEF, s, ds.EXPOSE + suit("H"))
    f = facts(DEF, s)
    assert (int(f["leader"]), int(f["declaring"]), int(f["trump_level"]),
            int(f["trump_suit"])) == (2, 0, 5, suit("H"))


def test_DBF_V6_yuan_zhu_in_tricks():
    """Scenario 21 (JILIN: yuan_zhu), R = 8, T = D: AD led, seat 1 must follow with its trump
    2S; 2S beats AD, 2D beats 2S: seat 2 wins. 3C led, 2H (seat 3) and 2C (seat 0) ruff, equal:
    the earlier, 2H, wins. JILIN's other flags act on Duns (no quad here), the kitty's
    pickup and the scoring of the hand's end, none of them in these two tricks."""
    env = ENV["jilin"]
    s, _ = at_tail({0: "AD 2C 3S", 1: "2S 4C 4S", 2: "2D 3C 3H", 3: "3D 2H AS"}, env=env, R=8,
                   T="D", levels=(8, 8))
    s = play(env, s, 0, "AD")
    assert whole_plays(env, s) == combos(["2S"])
    s = play_trick(env, s, "2S", "2D", "3D")
    assert winner_of_last_trick(env, s) == 2
    s = play_trick(env, s, "3C", "2H", "2C", "4C")
    assert winner_of_last_trick(env, s) == 3 and int(s.current_player) == 3


@pytest.mark.parametrize("opp_tricks,kitty,last_team,P,want", [
    (45, 20, 1, 65, ([2, 7], 1, 1)),  # opponents win the last trick: +1 by trick points
    (35, 20, 1, 55, ([2, 6], 1, 1)),  # under 40: +0, still declare
    (35, 45, 1, 80, ([2, 6], 1, 1)),  # kitty ignored: P = 80 would be +2 by the table
    (30, 20, 0, 30, ([3, 6], 0, 2)),  # declarers win it: the table, declarers +1
])
def test_DBF_V12_jilin_last_trick(opp_tricks, kitty, last_team, P, want):
    """Scenario 22 (JILIN: jilin_last_trick), team 0 at 2 declaring (R = 2: yuan zhu changes
    nothing, DBF-V6), team 1 at 6. Under JILIN's kitty_mult_last_trick a last trick of single
    cards counts the kitty once (V4), so P = trick points + kitty, not + 2 * kitty: V12's gains
    do not read P. Where the declarers win the last trick the step20 table applies: P = 30 is
    +1 there as in the standard table (DBF-34); no P is 40 (tie_at_40); no Dun is led; the hook
    needs R = J."""
    env = ENV["jilin"]
    _, f = scored(env, opp_tricks, kitty, last_team, R=2, levels=(2, 6))
    assert int(f["P"]) == P
    assert next_hand(f) == (*want, want[0][want[1]], LATER)


def test_DBF_V13_hook():
    """Scenario 23 (JILIN: the jilin preset), team 0 declaring at J (R = J, T = C), team 1 at
    6: the opponents win the last trick with JS (seat 1 ruffs a diamond: the top card of the
    winning play is a J), their trick points 50: team 0 drops to 3 (the lowest level with yuan
    zhu) and declares again (R = 3, starter L+2); team 1 +1 (V12: 40-79 trick points). The
    other JILIN flags: step20, the kitty multiplier and tie_at_40 act on the table, which V12
    replaces here (DBF-41); no Dun is led."""
    env = ENV["jilin"]
    plan = plan_hand(11, "C", 0, {0: "3D", 1: "JS", 2: "4D", 3: "7D"}, levels=(11, 6),
                     filler_opp_points=50, yz=True)
    _, f = hand_end(env, plan)
    assert int(f["last_points"][1]) == 50 and int(f["hook"]) == 1
    assert next_hand(f) == ([3, 7], 0, 2, 3, LATER)


DUN_HANDS = {0: "7S 7H 7D 7C 3S", 1: "9S 9H 9D 9C 4S", 2: "RJ 5S 2D 8S 8D",
             3: "3D 4D 6D 8C TC"}


def test_DBF_V8_dun():
    """Scenario 24 (JILIN: the jilin preset), R = 5, T = H: seat 0 leads the Dun 7S 7H 7D 7C;
    seat 1 must play its four 9s; seat 2 (no quad; trumps RJ, 5S, 2D) those 3 + one card;
    seat 3 (no quad, no trump) any 4; the 9-quad beats the 7-quad: seat 1 wins 15 (5S, TC).
    JILIN's dun_points_protected keeps points of quads of K, T, 5 only (none here); its other
    flags act on the scoring of the hand's end."""
    env = ENV["jilin"]
    s, _ = at_tail(DUN_HANDS, env=env, R=5, T="H", levels=(5, 5))
    before = facts(env, s)["points"]
    assert frozenset(cards("7S 7H 7D 7C")) in whole_plays(env, s)
    s = play(env, s, 0, "7S 7H 7D 7C")
    assert int(facts(env, s)["dun"]) == 1 and int(s.current_player) == 1
    assert whole_plays(env, s) == combos(["9S 9H 9D 9C"])
    s = play(env, s, 1, "9S 9H 9D 9C")
    assert whole_plays(env, s) == combos(["RJ 5S 2D 8S", "RJ 5S 2D 8D"])
    s = play(env, s, 2, "RJ 5S 2D 8S")
    assert len(whole_plays(env, s)) == 5
    s = play(env, s, 3, "3D 4D 6D TC")
    f = facts(env, s)
    assert winner_of_last_trick(env, s) == 1 and int(f["protected"]) == 0
    assert list(f["points"] - before) == [0, 15]


@pytest.mark.parametrize("config", ["jilin", "default"])
def test_DBF_V5_tie_at_40(config):
    """Scenario 25: P = 40 (the declarers win the last trick). With tie_at_40 (JILIN): a tie,
    no level change, the next deal open (DBF-22) from L+1. JILIN at R = 2 (yuan zhu changes
    nothing, DBF-V6); the declarers' last trick keeps V12 off (DBF-41) and their kitty bonus
    out of P (the multiplier changes nothing); step20's 40 row would be "switch, 0", which
    the tie replaces. Without the flag (DEFAULT, R = 6): the opponents declare, no change."""
    env = ENV[config]
    R = 2 if config == "jilin" else 6
    _, f = scored(env, 40, 10, 0, R=R, levels=(R, R))
    assert int(f["P"]) == 40 and list(f["levels"]) == [R, R]
    if config == "jilin":
        assert (int(f["outcome"]), int(f["hand_kind"]), int(f["declaring"])) == (
            ds.TIE, OPEN, -1)
        assert int(f["starter"]) == (1 + int(f["nskip"])) % 4
    else:
        assert int(f["outcome"]) == ds.NORMAL
        assert next_hand(f) == ([6, 6], 1, 1, 6, LATER)
