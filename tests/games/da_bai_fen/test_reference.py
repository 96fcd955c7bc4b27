"""Self-tests of the plain-Python Da Bai Fen reference: every scenario of da_bai_fen.md §8, the
§9 clarifications, and hand-checkable tests of the other rules.

Unless stated (as §8 says): R=6, T=C, no variants, seat 0 is L, team 0 = {0, 2} declares.
Positions are built at a trick's start with hands of equal size (`helpers.position`); the
cards a test does not list are out of play.
"""

from __future__ import annotations

import pytest

from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.reference import DbfRef, Ranking, table_result, valid_multilead

from .helpers import (
    C,
    cards,
    combos,
    deck_order,
    order_from_hands,
    pass_exposures,
    play,
    play_trick,
    position,
    suit,
    whole_plays,
)

R6_TC = Ranking(ds.level_rank(6), suit("C"))


def ranked(ranking: Ranking, text: str) -> list[int]:
    return [ranking.strength(c) for c in cards(text)]


# ---- §8 scenarios -------------------------------------------------------------------------------
def test_DBF_5_6_7_trump_order():
    """Scenario 1: the 18 trumps in order, 6S = 6H = 6D; hearts as a suit are 12 cards."""
    order = "RJ BJ 6C 6S 6H 6D AC KC QC JC TC 9C 8C 7C 5C 4C 3C 2C"
    assert sorted(c for c in range(54) if R6_TC.is_trump(c)) == sorted(cards(order))
    s = ranked(R6_TC, order)
    assert s[3] == s[4] == s[5]
    assert s[:4] + s[5:] == sorted(s[:4] + s[5:], reverse=True)
    assert len(set(s[:4] + s[5:])) == 16
    hearts = "AH KH QH JH TH 9H 8H 7H 5H 4H 3H 2H"
    assert sorted(c for c in range(54) if R6_TC.eff_suit(c) == suit("H")) == sorted(cards(hearts))
    h = ranked(R6_TC, hearts)
    assert h == sorted(h, reverse=True) and len(set(h)) == 12
    assert R6_TC.eff_suit(C("6H")) == 4 and not R6_TC.beats(C("6H"), C("6S"))


def test_DBF_11_draw_order():
    """Scenario 2: S=2: cards 0..3 to seats 2, 3, 0, 1; card 47 to seat 1; 48..53 the kitty.
    The four 2s lie in the kitty, so nobody decides; 2S turned first names T (DBF-14)."""
    ref = DbfRef(ds.DbfConfig(first_starter=2))
    order = deck_order(kitty="2S 2H 2D 2C 3S 4S")
    ref.deal(order)
    loc = ref.location()
    assert [loc[order[k]] for k in (0, 1, 2, 3, 47)] == [2, 3, 0, 1, 1]
    assert all(loc[order[k]] == (2 + k) % 4 for k in range(48))
    assert all(loc[c] == 2 for c in order[48:])  # L = S = 2 took the kitty (DBF-15/17)
    assert (ref.phase, ref.current_player, ref.turned, ref.trump_suit) == (
        ds.PHASE_DISCARD, 2, 1, suit("S"))
    assert len(ref.hands[2]) == 18 and all(len(ref.hands[p]) == 12 for p in (0, 1, 3))


def test_DBF_14_kitty_turn_stops():
    """Scenario 3: R=2, nobody exposes, kitty 9H KS BJ 2D QC 5S: stops at 2D, 4 turned, T=D."""
    ref = DbfRef(ds.DbfConfig(first_starter=1))
    ref.deal(deck_order(kitty="9H KS BJ 2D QC 5S"))
    assert pass_exposures(ref) > 0  # 2S 2H 2C were drawn: decisions, all declined
    assert (ref.turned, ref.trump_suit, ref.leader, ref.declaring) == (4, suit("D"), 1, 1)
    assert ref.phase == ds.PHASE_DISCARD and ref.current_player == 1


def test_DBF_14_kitty_turn_no_trump_rank():
    """Scenario 4: kitty 9H KS BJ QD KC 3S: no 2; K highest; KS turned before KC -> T=S."""
    ref = DbfRef()
    ref.deal(deck_order(kitty="9H KS BJ QD KC 3S"))
    pass_exposures(ref)
    assert (ref.turned, ref.trump_suit, ref.leader) == (6, suit("S"), 0)


def test_DBF_12_13_15_exposure_race():
    """Scenario 5: S=0; seat 1 draws 2H first and passes; seat 3 draws 2D first and exposes:
    T=D, L=3, team 1 declares; seat 1 (2S later) never decides again."""
    ref = DbfRef()
    ref.deal(deck_order(front="3S 2H 4S 2D 5S 2S", kitty="6S 7S 8S 9S TS JS"))
    assert (ref.phase, ref.current_player) == (ds.PHASE_DRAW, 1)
    assert ref.legal_actions() == [ds.EXPOSE + suit("H"), ds.PASS]
    ref.step(ds.PASS)
    assert (ref.current_player, ref.drawn) == (3, 4)
    ref.step(ds.EXPOSE + suit("D"))
    assert (ref.trump_suit, ref.leader, ref.declaring, ref.exposed) == (suit("D"), 3, 1, C("2D"))
    assert (ref.phase, ref.current_player, ref.drawn) == (ds.PHASE_DISCARD, 3, 48)
    assert ref.turned == 0 and C("2D") in ref.hands[3]  # DBF-12: it stays in the hand


def test_DBF_26b_single_card_ruff():
    """Scenario 6: 9H led; KH, 2C, AH: seat 2's 2C is the only all-trump play; team 0 takes 10."""
    ref = position({0: "9H 3D", 1: "KH 4D", 2: "2C 7D", 3: "AH 8D"})
    play(ref, 0, "9H")
    play(ref, 1, "KH")
    assert ref.legal_actions() == [ds.PICK + C("7D"), ds.PICK + C("2C")]  # void: any card
    play(ref, 2, "2C")
    play(ref, 3, "AH")
    assert ref.winners == [2] and ref.points == [10, 0] and ref.current_player == 2


def test_DBF_8_26b_equal_trumps():
    """Scenario 7: 4D led; 6S, 6H, 3C: 6S = 6H strongest, 6S earlier -> seat 1."""
    ref = position({0: "4D 3H", 1: "6S 4H", 2: "6H 5H", 3: "3C 7H"})
    play_trick(ref, "4D", "6S", "6H", "3C")
    assert ref.winners == [1]


def test_DBF_5_25_follow_with_trump_rank_card():
    """Scenario 8: 9H led; seat 1 {6H, 4S, 9C, 2D}: 6H is a trump, no heart: any card."""
    ref = position({0: "9H 3H 4H 5H", 1: "6H 4S 9C 2D", 2: "7H 8H JH QH", 3: "2S 3S 5S 7S"})
    play(ref, 0, "9H")
    assert ref.legal_actions() == sorted(ds.PICK + c for c in cards("6H 4S 9C 2D"))
    assert whole_plays(ref) == combos(["6H", "4S", "9C", "2D"])


SCEN_9 = {0: "AS KS 2H 3H", 1: "3S 4H 5H 7H", 2: "QS 9S 4S 8H", 3: "9H TH JH QH"}


@pytest.mark.parametrize("mode", ["penalty", "mask"])
def test_DBF_23_valid_multilead(mode):
    """Scenario 9: {AS, KS} with 3S, QS 9S 4S outstanding: valid; the hand goes on."""
    ref = position(SCEN_9, flags={"invalid_multilead": mode})
    ref.step(ds.PICK + C("AS"))
    assert ds.PICK + C("KS") in ref.legal_actions() and ds.PLAY in ref.legal_actions()
    ref.step(ds.PICK + C("KS"))
    assert ref.legal_actions() == [ds.PLAY] and not ref.turn_done
    ref.step(ds.PLAY)
    assert ref.turn_done and ref.phase == ds.PHASE_PLAY and ref.current_player == 1
    assert valid_multilead(cards("AS KS"), cards("3S QS 9S 4S"), R6_TC)


SCEN_10 = {0: "AS QS 2H 3H", 1: "3S 4H 5H 7H", 2: "KS 9S 4S 8H", 3: "9H TH JH QH"}
KITTY_15 = "KH 5D 2S 4D 7C 8C"  # 15 points, no card of SCEN_10


@pytest.mark.parametrize("step20,opp_level", [(False, 8), (True, 9)])
def test_DBF_24_invalid_multilead_penalty(step20, opp_level):
    """Scenario 10: declarer leads {AS, QS}, partner holds KS: the hand ends, P = 100 + 15;
    opponents +2 (step20: +3), team 1 declares, next starter seat 1."""
    ref = position(SCEN_10, kitty=KITTY_15, flags={"step20": step20})
    play(ref, 0, "AS QS")
    assert (ref.outcome, ref.P) == (ds.PENALTY, 115)
    assert ref.levels == [6, opp_level] and ref.declaring == 1 and ref.starter == 1
    assert ref.phase == ds.PHASE_DEAL and ref.hands_played == 1


def test_DBF_24_penalty_offenders_opponents():
    """DBF-24: an opponent's invalid multi-lead: P = 0, declarers +2, same team, L+2."""
    ref = position(SCEN_10, kitty=KITTY_15, L=1, declaring=1, to_lead=0)
    play(ref, 0, "AS QS")
    assert (ref.outcome, ref.P, ref.levels, ref.declaring, ref.starter) == (
        ds.PENALTY, 0, [6, 8], 1, 3)


def test_DBF_24_mask_makes_invalid_multilead_illegal():
    """DBF-24 `mask`: with KS out, QS cannot join AS (nor AS join QS); AS alone is legal."""
    ref = position(SCEN_10, flags={"invalid_multilead": "mask"})
    ref.step(ds.PICK + C("AS"))
    assert ref.legal_actions() == [ds.PLAY]
    assert whole_plays(position(SCEN_10, flags={"invalid_multilead": "mask"})) == combos(
        ["AS", "QS", "2H", "3H"])  # 2H 3H: beaten by the hearts out


SCEN_11 = {0: "AS KS 2H 3H", 1: "2C 7C 4H 9D", 2: "3S 8D QH 4D", 3: "6H AC 5D TH"}


@pytest.mark.parametrize("third,winner,points", [("6H AC", 3, 10), ("6H 5D", 1, 15)])
def test_DBF_25_26_multilead_follow_and_ruff(third, winner, points):
    """Scenario 11: {AS, KS} led; legal follows; two all-trump plays, the stronger top wins
    (6H over 7C); if seat 3 mixes in 5D, seat 1's {2C, 7C} wins with KS + 5D."""
    ref = position(SCEN_11)
    play(ref, 0, "AS KS")
    assert whole_plays(ref) == combos(["2C 7C", "2C 4H", "2C 9D", "7C 4H", "7C 9D", "4H 9D"])
    play(ref, 1, "2C 7C")
    assert whole_plays(ref) == combos(["3S 8D", "3S QH", "3S 4D"])
    ref.step(ds.PICK + C("8D"))
    assert ref.legal_actions() == [ds.PICK + C("3S")]
    ref.step(ds.PICK + C("3S"))
    assert len(whole_plays(ref)) == 6
    play(ref, 3, third)
    assert ref.winners == [winner] and ref.points == [0, points]


def test_DBF_21_25_trump_multilead():
    """Scenario 12: {RJ, BJ}: seat 1 plays 2 of {AC, 3C, 6S}; seat 2 2C + any; seat 3 any 2."""
    ref = position({0: "RJ BJ 2H 3H", 1: "AC 3C 6S 4H", 2: "2C 5H 7H 8H",
                    3: "9H TH JH QH"})
    play(ref, 0, "RJ BJ")
    assert whole_plays(ref) == combos(["AC 3C", "AC 6S", "3C 6S"])
    play(ref, 1, "AC 6S")
    assert whole_plays(ref) == combos(["2C 5H", "2C 7H", "2C 8H"])
    play(ref, 2, "2C 8H")
    assert len(whole_plays(ref)) == 6
    play(ref, 3, "9H QH")
    assert ref.winners == [0]


SCEN_13 = {0: "6H 6D 2H 3H", 1: "6S 2C 3D 4D", 2: "AC 5H 7H 8H", 3: "9H TH JH QH"}


def test_DBF_23_equal_cards_do_not_invalidate():
    """Scenario 13: {6H, 6D} led with 6S, 2C, AC out and RJ, BJ, 6C in the kitty: valid; seat
    1 must play {6S, 2C}, seat 2 AC + any; seat 0 wins (6S equals 6H, played later)."""
    ref = position(SCEN_13, kitty="RJ BJ 6C 2S 3S 4S")
    play(ref, 0, "6H 6D")
    assert ref.phase == ds.PHASE_PLAY
    assert whole_plays(ref) == combos(["6S 2C"])
    play(ref, 1, "6S 2C")
    assert whole_plays(ref) == combos(["AC 5H", "AC 7H", "AC 8H"])
    play(ref, 2, "AC 5H")
    play(ref, 3, "9H TH")
    assert ref.winners == [0] and ref.points == [15, 0]  # 5H + TH


def test_DBF_23_equal_cards_rj_out_invalidates():
    """Scenario 13, had seat 3 held RJ: invalid -> the penalty ends the hand."""
    ref = position(SCEN_13 | {3: "RJ TH JH QH"}, kitty="9H BJ 6C 2S 3S 4S")
    play(ref, 0, "6H 6D")
    assert ref.outcome == ds.PENALTY and ref.P == 100


LAST_TRICK = {0: "3H", 1: "AH", 2: "4H", 3: "7H"}  # seat 1 wins, no points
KITTY_14 = "KH 5D 3S 4S 7C 8C"


def test_DBF_29_31_kitty_doubled():
    """Scenario 14: kitty 15, opponents 30 in tricks and the last trick: P = 60: no level
    change, team 1 declares, next starter seat 1 (L+1)."""
    ref = position(LAST_TRICK, kitty=KITTY_14, points=(70, 30))
    play_trick(ref, "3H", "AH", "4H", "7H")
    assert (ref.outcome, ref.P, ref.kitty_bonus) == (ds.NORMAL, 60, [0, 30])
    assert (ref.levels, ref.declaring, ref.starter, ref.trump_level) == ([6, 6], 1, 1, 6)
    assert ref.last_points == [70, 30] and ref.last_kitty == sorted(cards(KITTY_14))


@pytest.mark.parametrize("size,P", [(1, 45), (2, 60), (3, 75)])
def test_DBF_V4_kitty_multiplier(size, P):
    """Scenario 15: the kitty x the cards per player of the last trick (opponents win it)."""
    hands = {1: "AH QH JH", 2: "2H 3H 4H", 3: "7H 8H 9H", 0: "2D 3D 4D"}
    hands = {p: " ".join(h.split()[:size]) for p, h in hands.items()}
    ref = position(hands, kitty=KITTY_14, points=(55, 30), to_lead=1,
                   flags={"kitty_mult_last_trick": True})
    play_trick(ref, hands[1], hands[2], hands[3], hands[0])
    assert ref.P == P
    if size == 3:  # no level change below 80
        assert ref.levels == [6, 6] and ref.declaring == 1


@pytest.mark.parametrize("P,want", [(0, (2, 0, True)), (35, (1, 0, True)), (40, (0, 0, False)),
                                    (75, (0, 0, False)), (80, (0, 1, False)),
                                    (95, (0, 1, False)), (100, (0, 2, False)),
                                    (140, (0, 2, False)), (5, (1, 0, True))])
def test_DBF_31_table_boundaries(P, want):
    """Scenario 16."""
    assert table_result(P, step20=False) == want


@pytest.mark.parametrize("P,want", [(0, (3, 0, True)), (15, (2, 0, True)), (20, (1, 0, True)),
                                    (35, (1, 0, True)), (40, (0, 0, False)),
                                    (60, (0, 1, False)), (95, (0, 2, False)),
                                    (115, (0, 3, False)), (120, (0, 4, False)),
                                    (160, (0, 6, False))])
def test_DBF_34_step20_table(P, want):
    """Scenario 17."""
    assert table_result(P, step20=True) == want


def finish_hand(*, levels, declaring, leader, points, last_winner_team,
                kind=ds.LATER_HAND, hands_played=0, config=None, kitty=()) -> DbfRef:
    """A last trick of single plain hearts won by `last_winner_team` with AH (no points in it),
    after `points` were taken; returns the reference after the hand's end."""
    R = levels[declaring]
    winner = next(p for p in range(4) if ds.team_of(p) == last_winner_team)
    low = [r + "H" for r in "2346789" if "23456789".index(r) != ds.level_rank(R)]
    hands = {p: "AH" if p == winner else low[p] for p in range(4)}
    ref = DbfRef.from_position(config or ds.DbfConfig(), [cards(hands[p]) for p in range(4)],
                               R, suit("S"), leader, declaring=declaring, levels=levels,
                               points=points, kind=kind, hands_played=hands_played, kitty=kitty)
    for i in range(4):
        ref.step(ds.PICK + C(hands[(leader + i) % 4]))
        if i == 0:
            ref.step(ds.PLAY)
    return ref


def test_DBF_35_worked_example():
    """Scenario 18: levels (N-S, E-W) after hands 1..3 = (3,2), (3,2), (3,4); starters of
    hands 2..4 = 0, 1, 3; R of hands 1..4 = 2, 3, 2, 4. Hand 1: S (2) exposed and leads."""
    ref = finish_hand(levels=[2, 2], declaring=0, leader=2, points=(85, 15),
                      last_winner_team=0, kind=ds.FIRST_HAND)
    got = [(ref.levels, ref.starter, ref.trump_level)]
    for opp_points in (40, 0):  # hand 2: E-W get 40; hand 3: N-S get 0
        by_team = [100 - opp_points] * 2
        by_team[1 - ref.declaring] = opp_points
        ref = finish_hand(levels=ref.levels, declaring=ref.declaring, leader=ref.starter,
                          points=by_team,
                          last_winner_team=ref.declaring, hands_played=ref.hands_played)
        got.append((ref.levels, ref.starter, ref.trump_level))
    assert got == [([3, 2], 0, 3), ([3, 2], 1, 2), ([3, 4], 3, 4)]
    # Later: N-S at K, E-W at Q, E-W declaring; N-S get 90 -> N-S to A, declare, not won.
    ref = finish_hand(levels=[13, 12], declaring=1, leader=1, points=(90, 10),
                      last_winner_team=1)
    assert (ref.levels, ref.declaring, ref.terminal, ref.trump_level) == ([14, 12], 0, False, 14)


def test_DBF_16_later_hand_exposure_fixes_trump_only():
    """DBF-35 hand 2: R=3, N (0) leads; W (1) exposes a 3: T only, L stays 0."""
    ref = finish_hand(levels=[2, 2], declaring=0, leader=2, points=(85, 15),
                      last_winner_team=0, kind=ds.FIRST_HAND)
    assert (ref.kind, ref.starter, ref.leader, ref.trump_level) == (ds.LATER_HAND, 0, 0, 3)
    ref.deal(deck_order(front="4S 3H", kitty="2S 5S 6S 7S 8S 9S"))
    assert ref.current_player == 1 and ref.legal_actions() == [ds.EXPOSE + suit("H"), ds.PASS]
    ref.step(ds.EXPOSE + suit("H"))
    assert (ref.trump_suit, ref.leader, ref.declaring, ref.current_player) == (
        suit("H"), 0, 0, 0)
    assert ref.phase == ds.PHASE_DISCARD


@pytest.mark.parametrize("levels,declaring,points,winner,over", [
    ([14, 9], 0, (65, 35), 0, True),  # declarers at A, P=35 -> 15: team 0 wins
    ([5, 14], 0, (20, 80), 1, True),  # opponents at A, P=80 -> 15: team 1 wins
    ([13, 9], 0, (100, 0), 0, True),  # declarers at K, P=0 -> 15
    ([13, 7], 1, (90, 10), -1, False),  # opponents at K, P=90 -> A, they declare; go on
])
def test_DBF_36_passing_ace(levels, declaring, points, winner, over):
    """Scenario 19."""
    ref = finish_hand(levels=levels, declaring=declaring, leader=declaring,
                      points=points, last_winner_team=declaring)
    assert ref.terminal == over and ref.winner == winner
    if over:
        assert ref.scores == [1 if ds.team_of(p) == winner else -1 for p in range(4)]
        assert ref.current_player == -1 and ref.legal_actions() == []
    else:
        assert ref.levels == [14, 7] and ref.declaring == 0 and ref.scores == [0] * 4


CLAIM_HANDS = {
    2: "2H 3H 4H 5H 6H 7H 8H TH JH QH KH AH",
    1: "7S 8S TS JS QS KS AS 2D 3D 4D 5D 6D",
    3: "7D 8D TD JD QD KD AD 2C 3C 4C 5C 6C",
    0: "7C 8C 9C TC JC QC KC AC 9H 9D BJ RJ",
}


def claim_game(config: ds.DbfConfig | None = None) -> DbfRef:
    """Levels (5, 9), team 1 declares, L = S = 1: seat 2 holds only hearts, 9S is turned."""
    ref = finish_hand(levels=[5, 9], declaring=0, leader=0, points=(60, 40),
                      last_winner_team=0, config=config)
    assert (ref.levels, ref.declaring, ref.starter, ref.trump_level) == ([5, 9], 1, 1, 9)
    ref.deal(order_from_hands(CLAIM_HANDS, "9S 2S 3S 4S 5S 6S", starter=1))
    assert pass_exposures(ref) >= 3  # seat 0's 9C 9H 9D
    assert (ref.turned, ref.trump_suit, ref.phase, ref.current_player) == (
        1, suit("S"), ds.PHASE_DISCARD, 1)
    for c in cards("2D 3D 4D 5D 6D 7S"):
        assert not ref.turn_done or c == C("2D")
        ref.step(ds.PICK + c)
    assert ref.turn_done and ref.kitty == sorted(cards("2D 3D 4D 5D 6D 7S"))
    return ref


def test_DBF_17_18_claim_annuls_and_opens():
    """Scenario 20: L = 1; after the discard seat 2 (no trump) claims: no scoring, next deal
    open with starter 3; team 0 may expose only a 5, team 1 only a 9; seat 2's 5H: L = 2."""
    ref = claim_game()
    assert (ref.phase, ref.current_player, ref.legal_actions()) == (
        ds.PHASE_CLAIM, 2, [ds.PASS, ds.CLAIM])
    ref.step(ds.CLAIM)
    assert (ref.outcome, ref.levels, ref.kind, ref.starter, ref.hands_played) == (
        ds.CLAIMED, [5, 9], ds.OPEN_DEAL, 3, 2)
    assert ref.declaring == -1 and ref.trump_level == -1
    ref.deal(deck_order(front="5S 9C 9H 5H", kitty="2S 3S 4S 6S 7S 8S"))
    assert ref.current_player == 1 and ref.legal_actions() == [ds.EXPOSE + suit("H"), ds.PASS]
    ref.step(ds.PASS)
    assert ref.current_player == 2 and ref.legal_actions() == [ds.EXPOSE + suit("H"), ds.PASS]
    ref.step(ds.EXPOSE + suit("H"))
    assert (ref.leader, ref.declaring, ref.trump_level, ref.trump_suit) == (2, 0, 5, suit("H"))
    assert ref.phase == ds.PHASE_DISCARD and ref.current_player == 2


def test_DBF_18_passing_claims_lead_to_play():
    """DBF-18/43: seat 2 passes, seat 3 (no trump either) passes, seat 0 (jokers) has no
    decision: L leads trick 1."""
    ref = claim_game()
    ref.step(ds.PASS)
    assert (ref.phase, ref.current_player) == (ds.PHASE_CLAIM, 3)
    ref.step(ds.PASS)
    assert (ref.phase, ref.current_player, ref.trick_leader) == (ds.PHASE_PLAY, 1, 1)


def test_DBF_22_open_deal_without_exposer_is_annulled():
    """DBF-22: nobody exposes in the open deal: annulled, a new open deal from S+1."""
    ref = claim_game()
    ref.step(ds.CLAIM)
    ref.deal(deck_order(front="5S 9C 9H 5H", kitty="2S 3S 4S 6S 7S 8S"))
    pass_exposures(ref)
    assert (ref.outcome, ref.kind, ref.starter, ref.hands_played, ref.levels) == (
        ds.NO_EXPOSER, ds.OPEN_DEAL, 0, 3, [5, 9])


def test_DBF_V6_yuan_zhu_order():
    """Scenario 21: R=8, T=D, yuan zhu: 21 trumps in order; 2S beats AD; 2D beats 2S; 2S vs
    2H in one trick: the earlier wins."""
    rk = Ranking(ds.level_rank(8), suit("D"), yuan_zhu=True)
    order = "RJ BJ 8D 8S 8H 8C 2D 2S 2H 2C AD KD QD JD TD 9D 7D 6D 5D 4D 3D"
    assert sorted(c for c in range(54) if rk.is_trump(c)) == sorted(cards(order))
    s = ranked(rk, order)
    assert s[3] == s[4] == s[5] and s[7] == s[8] == s[9]
    distinct = s[:4] + s[6:8] + s[10:]
    assert distinct == sorted(distinct, reverse=True) and len(set(distinct)) == len(distinct)
    assert rk.beats(C("2S"), C("AD")) and rk.beats(C("2D"), C("2S"))
    assert not rk.beats(C("2H"), C("2S"))
    ref = position({0: "3C 5S", 1: "2S 6S", 2: "2H 7S", 3: "4C 9S"}, R=8, T="D",
                   flags={"yuan_zhu": True})
    play_trick(ref, "3C", "2S", "2H", "4C")
    assert ref.winners == [1]


KITTY_20 = "KH TH 2S 3S 4S 7S"


@pytest.mark.parametrize("opp_points,last,levels,declaring", [
    (45, 1, [6, 7], 1),  # opponents win the last trick: +1 by trick points, declare
    (35, 1, [6, 6], 1),  # ... under 40: +0, still declare
    (30, 0, [7, 6], 0),  # declarers win it: the table (P = 30: declarers +1)
])
def test_DBF_V12_jilin_last_trick(opp_points, last, levels, declaring):
    """Scenario 22: kitty 20 (ignored on V12's path)."""
    ref = finish_hand(levels=[6, 6], declaring=0, leader=0,
                      points=(100 - 20 - opp_points, opp_points), last_winner_team=last,
                      config=ds.DbfConfig(jilin_last_trick=True), kitty=cards(KITTY_20))
    assert (ref.levels, ref.declaring) == (levels, declaring)
    assert ref.starter == (1 if declaring == 1 else 2)


def hook_trick(flags: dict, top: str = "JS") -> DbfRef:
    """Team 0 declares at J (T=C); seat 1 wins the last trick with `top` (a trump) after 50
    trick points; team 1 at 6."""
    ref = position({0: "3H", 1: top, 2: "4H", 3: "6H"}, R=11, levels=(11, 6),
                   points=(50, 50), flags=flags)
    play_trick(ref, "3H", top, "4H", "6H")
    return ref


def test_DBF_V13_hook():
    """Scenario 23: jilin preset: team 0 drops to 3, declares again (R=3, starter L+2);
    team 1 gains +1 (V12: 50 trick points)."""
    ref = hook_trick({"jilin": True})
    assert ref.hook and (ref.levels, ref.declaring, ref.starter, ref.trump_level) == (
        [3, 7], 0, 2, 3)


def test_DBF_39_hook_without_last_trick_rule():
    """DBF-39: hook on, last-trick rule off: team 0 to 2 (no yuan zhu), opponents gain 0."""
    ref = hook_trick({"jilin_hook": True})
    assert ref.hook and (ref.levels, ref.declaring, ref.starter) == ([2, 6], 0, 2)


def test_DBF_38_no_hook_when_won_by_another_card():
    """DBF-38: won by RJ, not a J: no hook; V12: opponents +1 and declare."""
    ref = hook_trick({"jilin": True}, top="RJ")
    assert not ref.hook and (ref.levels, ref.declaring, ref.starter) == ([11, 7], 1, 1)



@pytest.mark.parametrize("hook", [True, False])
def test_DBF_44_a_hook_at_P_40_is_no_tie(hook):
    """DBF-44 (V5 with V13): the opponents take 40 and win the last trick with JS at R = J.
    With the hook the hand is a hook, not a tie: team 0 to 2, declaring again, starter L+2,
    the opponents gain nothing (DBF-39); without it V5's tie: no change, an open deal."""
    flags = {"tie_at_40": True} | ({"jilin_hook": True} if hook else {})
    ref = position({0: "3H", 1: "JS", 2: "4H", 3: "6H"}, R=11, levels=(11, 6),
                   points=(60, 40), flags=flags)
    play_trick(ref, "3H", "JS", "4H", "6H")
    assert ref.P == 40 and ref.hook == hook
    want = (ds.NORMAL, [2, 6], 0, 2) if hook else (ds.TIE, [11, 6], -1, 1)
    assert (ref.outcome, ref.levels, ref.declaring, ref.starter) == want

DUN_HANDS = {0: "7S 7H 7D 7C 3S", 1: "9S 9H 9D 9C 4S", 2: "RJ 5S 2D 8S 8D",
             3: "3D 4D 6D 8C TC"}


def test_DBF_V8_dun():
    """Scenario 24: jilin, R=5, T=H: 7-quad led; seat 1 must play its 9s; seat 2 (3 trumps,
    no quad) those 3 + any; seat 3 any 4; the 9-quad wins."""
    ref = position(DUN_HANDS, R=5, T="H", levels=(5, 5), flags={"jilin": True})
    assert combos(["7S 7H 7D 7C"]) <= whole_plays(ref)
    play(ref, 0, "7S 7H 7D 7C")
    assert ref.dun and ref.phase == ds.PHASE_PLAY
    assert whole_plays(ref) == combos(["9S 9H 9D 9C"])
    play(ref, 1, "9S 9H 9D 9C")
    assert whole_plays(ref) == combos(["RJ 5S 2D 8S", "RJ 5S 2D 8D"])
    play(ref, 2, "RJ 5S 2D 8S")
    assert len(whole_plays(ref)) == 5
    play(ref, 3, "3D 4D 6D TC")
    assert ref.winners == [1] and ref.points == [0, 15]  # 5S + TC


@pytest.mark.parametrize("L,points,protected", [(1, [10, 0], 60), (0, [70, 0], 0)])
def test_DBF_40_V9_trump_quad_is_a_dun_and_protects_points(L, points, protected):
    """DBF-40: four 5s (R=5, all trumps) follow a Dun as a quad and win it (V8: R's quad is
    the highest). V9: seat 1 leads a K-quad and seat 2's 5-quad wins; when team 1 declares
    (L=1), the winners are opponents and the quads of K and 5 (60 points) count for nobody,
    TS for them; when team 0 declares (L=0), all 70 are theirs."""
    hands = {1: "KS KH KD KC", 2: "5S 5H 5D 5C", 3: "2S 3S 4S 6S", 0: "7S 8S 9S TS"}
    ref = position(hands, R=5, T="H", L=L, to_lead=1, levels=(5, 5), flags={
        "jilin_dun": True, "dun_points_protected": True})
    play(ref, 1, "KS KH KD KC")
    assert whole_plays(ref) == combos(["5S 5H 5D 5C"])
    play(ref, 2, "5S 5H 5D 5C")
    play(ref, 3, "2S 3S 4S 6S")
    play(ref, 0, "7S 8S 9S TS")
    assert ref.last_points == points and ref.last_protected == protected


@pytest.mark.parametrize("tie,outcome,kind,declaring", [
    (True, ds.TIE, ds.OPEN_DEAL, -1), (False, ds.NORMAL, ds.LATER_HAND, 1)])
def test_DBF_V5_tie_at_40(tie, outcome, kind, declaring):
    """Scenario 25: P = 40: no level change; with the flag the next deal is open from L+1."""
    ref = finish_hand(levels=[6, 6], declaring=0, leader=0, points=(60, 40),
                      last_winner_team=0, config=ds.DbfConfig(tie_at_40=tie))
    assert (ref.outcome, ref.kind, ref.declaring, ref.starter, ref.levels) == (
        outcome, kind, declaring, 1, [6, 6])


def test_DBF_41_no_tie_on_last_trick_path():
    """DBF-41: with V12, opponents winning the last trick with 40 trick points: +1, no tie."""
    ref = finish_hand(levels=[6, 6], declaring=0, leader=0, points=(60, 40),
                      last_winner_team=1,
                      config=ds.DbfConfig(tie_at_40=True, jilin_last_trick=True))
    assert (ref.outcome, ref.levels, ref.declaring) == (ds.NORMAL, [6, 7], 1)


# ---- other rules, hand-checked ------------------------------------------------------------------
def test_DBF_13_final_pass_in_seat_order():
    """DBF-13: S=0; seat 0 draws 2S and seat 2 draws 2H as their last cards (2D 2C in the
    kitty): each decides after that draw, then the final pass asks seat 0, then seat 2."""
    order = deck_order(kitty="2D 2C 3S 4S 5S 6S")
    for k, tok in ((44, "2S"), (46, "2H")):
        i = order.index(C(tok))
        order[i], order[k] = order[k], order[i]
    ref = DbfRef()
    ref.deal(order)
    seen = []
    while ref.phase in (ds.PHASE_DRAW, ds.PHASE_FINAL_PASS):
        seen.append((ref.phase, ref.current_player, ref.drawn))
        if seen[-1] == (ds.PHASE_FINAL_PASS, 2, 48):
            ref.step(ds.EXPOSE + suit("H"))
        else:
            ref.step(ds.PASS)
    assert seen == [(ds.PHASE_DRAW, 0, 45), (ds.PHASE_DRAW, 2, 47),
                    (ds.PHASE_FINAL_PASS, 0, 48), (ds.PHASE_FINAL_PASS, 2, 48)]
    assert (ref.leader, ref.declaring, ref.trump_suit, ref.turned) == (2, 0, suit("H"), 0)


def test_DBF_43_no_decision_without_a_card_and_first_starter():
    """DBF-43: with every 2 in the kitty nobody decides; `first_starter` = 3 is S and L."""
    ref = DbfRef(ds.DbfConfig(first_starter=3))
    ref.deal(deck_order(kitty="3S 2S 2H 2D 2C 4S"))
    assert (ref.phase, ref.current_player, ref.starter, ref.leader) == (
        ds.PHASE_DISCARD, 3, 3, 3)
    assert (ref.turned, ref.trump_suit) == (2, suit("S"))


def test_DBF_17_discard_six():
    """DBF-17: L holds 18; six picks in any order, each a step of one turn; the six are the
    kitty; L keeps 12; then the claims or the play."""
    ref = DbfRef()
    ref.deal(deck_order(kitty="3S 2S 2H 2D 2C 4S"))
    hand = sorted(ref.hands[0])
    assert len(hand) == 18 and ref.legal_actions() == [ds.PICK + c for c in hand]
    discards = hand[-6:]
    for i, c in enumerate(reversed(discards)):
        ref.step(ds.PICK + c)
        assert ref.turn_done == (i == 5)
        if i < 5:
            assert ref.current_player == 0 and ds.PICK + c not in ref.legal_actions()
    assert ref.kitty == discards and len(ref.hands[0]) == 12 and ref.selection == set()
    assert ref.location().count(ds.LOC_KITTY) == 6
    assert ref.phase in (ds.PHASE_CLAIM, ds.PHASE_PLAY)


@pytest.mark.parametrize("kitty,takes", [("3S 2S 2H 2D 2C 4S", True),
                                         ("2S 3H 2H 2D 2C 4H", False)])
def test_DBF_V11_changchun_kitty(kitty, takes):
    """V11: T=S (2S turned first); 3S / 4S are plain spades: L takes the kitty; with no
    spade but the 2 (rank R), he neither takes nor discards: the dealt six stay the kitty."""
    ref = DbfRef(ds.DbfConfig(changchun_kitty=True))
    ref.deal(deck_order(kitty=kitty))
    assert ref.trump_suit == suit("S")
    if takes:
        assert ref.phase == ds.PHASE_DISCARD and len(ref.hands[0]) == 18
    else:
        assert ref.phase in (ds.PHASE_CLAIM, ds.PHASE_PLAY) and len(ref.hands[0]) == 12
        assert ref.kitty == cards(kitty)  # in the dealt order


def test_DBF_V10_shown_kitty_keeps_DBF_14_trump():
    """V10: the kitty shown to all still fixes T by DBF-14, in kitty order (scenario 3)."""
    ref = DbfRef(ds.DbfConfig(jilin_show_kitty=True, first_starter=1))
    ref.deal(deck_order(kitty="9H KS BJ 2D QC 5S"))
    pass_exposures(ref)
    assert (ref.turned, ref.trump_suit) == (4, suit("D"))


def test_DBF_26a_trump_lead_equal_tops_earlier_wins():
    """DBF-26a/DBF-8: 6H led (a trump); 6S equal to it, AC lower, 6C higher: 6C wins; without
    6C the leader keeps it against the equal 6S."""
    ref = position({0: "6H 2H", 1: "6S 3H", 2: "AC 4H", 3: "6C 5H"})
    play_trick(ref, "6H", "6S", "AC", "6C")
    assert ref.winners == [3]
    ref = position({0: "6H 2H", 1: "6S 3H", 2: "AC 4H", 3: "7H 5H"})
    play_trick(ref, "6H", "6S", "AC", "7H")
    assert ref.winners == [0]


def test_DBF_V8_dun_exempt_from_validity_in_mask_mode():
    """V8/DBF-40: a quad of 3s is a Dun, legal even where every card of it is beaten."""
    ref = position({0: "3S 3H 3D 3C", 1: "AS AH AD 4C", 2: "KS KH KD 5C", 3: "QS QH QD 7C"},
                   flags={"jilin_dun": True, "invalid_multilead": "mask"})
    ref.step(ds.PICK + C("3S"))
    assert ref.legal_actions() == [ds.PICK + c for c in cards("3H 3D 3C")] + [ds.PLAY]
    for c in cards("3H 3D"):  # mixed suits: only a Dun can complete them
        ref.step(ds.PICK + c)
        assert ds.PLAY not in ref.legal_actions()
    ref.step(ds.PICK + C("3C"))
    assert ref.legal_actions() == [ds.PLAY]
    ref.step(ds.PLAY)
    assert ref.dun and ref.current_player == 1


def test_DBF_V6_yuan_zhu_with_R_2_changes_nothing():
    """V6: with R = 2 the 2s are the trump rank anyway: 18 trumps, the plain order."""
    plain, yz = Ranking(0, suit("H")), Ranking(0, suit("H"), yuan_zhu=True)
    assert all(plain.strength(c) == yz.strength(c) and plain.is_trump(c) == yz.is_trump(c)
               for c in range(54))
    assert sum(yz.is_trump(c) for c in range(54)) == 18


def test_DBF_37_max_hands_draw_and_higher_level():
    """DBF-37: the last allowed hand ends the game: equal levels draw (0 to all); else the
    higher level wins."""
    ref = finish_hand(levels=[6, 6], declaring=0, leader=0, points=(60, 40),
                      last_winner_team=0, config=ds.DbfConfig(max_hands=1))
    assert ref.terminal and ref.winner == -1 and ref.scores == [0, 0, 0, 0]
    ref = finish_hand(levels=[6, 6], declaring=0, leader=0, points=(70, 30),
                      last_winner_team=0, config=ds.DbfConfig(max_hands=1))
    assert ref.terminal and ref.winner == 0 and ref.scores == [1, -1, 1, -1]


def test_DBF_37_annulled_deals_count():
    """DBF-37: a claim-annulled deal counts towards `max_hands`."""
    ref = claim_game(ds.DbfConfig(max_hands=2))
    ref.step(ds.CLAIM)
    assert ref.terminal and ref.hands_played == 2 and ref.winner == 1  # levels 5 < 9


# ---- the vocabulary, the config and bad input -------------------------------------------------
def test_spec_cards_and_actions():
    """§7 card ids, DBF-2 points, the action table and the bounds."""
    assert [C(t) for t in ("2S", "AS", "2H", "AC", "BJ", "RJ")] == [0, 12, 13, 51, 52, 53]
    assert sum(ds.CARD_POINTS) == 100 and ds.CARD_POINTS[C("KD")] == 10
    assert ds.CARD_POINTS[C("5C")] == 5 and ds.CARD_POINTS[C("RJ")] == 0
    assert ds.NUM_ACTIONS == len(ds.ACTION_NAMES) == 61
    for name, a in [("pick AS", 12), ("play", 54), ("expose H", 56), ("pass", 59),
                    ("claim", 60)]:
        assert ds.action_id(name) == a and ds.action_name(a) == name
    assert ds.MAX_HAND_STEPS == 122 and ds.max_game_steps(ds.DbfConfig(max_hands=3)) == 366
    with pytest.raises(ValueError, match="unknown Da Bai Fen action"):
        ds.action_id("bid")


def test_config_jilin_preset_and_overrides():
    """DBF-V7: the preset sets five flags and start_level 3; explicit flags win."""
    cfg = ds.DbfConfig.from_flags(jilin=True)
    assert (cfg.yuan_zhu, cfg.jilin_last_trick, cfg.jilin_dun, cfg.jilin_show_kitty,
            cfg.jilin_hook, cfg.start_level) == (True, True, True, True, True, 3)
    assert not cfg.dun_points_protected and not cfg.changchun_kitty
    cfg = ds.DbfConfig.from_flags(jilin=True, start_level=2, jilin_hook=False)
    assert cfg.start_level == 2 and not cfg.jilin_hook and cfg.yuan_zhu
    assert ds.DbfConfig.from_flags() == ds.DbfConfig() and hash(cfg) == hash(
        ds.DbfConfig.from_flags(jilin=True, start_level=2, jilin_hook=False))


@pytest.mark.parametrize("flags,message", [
    ({"n_rounds": 3}, "unknown config key 'n_rounds'.*valid keys: start_level"),
    ({"target_level": "two"}, "target_level='two': must be an integer"),
    ({"yuan_zhu": 1}, "yuan_zhu=1: must be true or false"),
    ({"jilin": "yes"}, "jilin='yes': must be true or false"),
    ({"start_level": 1}, "start_level=1: must be a level 2..14"),
    ({"target_level": 15}, "target_level=15: must be a level 2..14"),
    ({"start_level": 9, "target_level": 7}, "start_level=9 is above target_level=7"),
    ({"jilin": True, "target_level": 2}, "start_level=3 is above target_level=2"),
    ({"max_hands": 0}, "max_hands=0"),
    ({"first_starter": 4}, "first_starter=4"),
    ({"invalid_multilead": "forfeit"}, "invalid_multilead='forfeit'"),
    ({"illegal_action_penalty": "x"}, "illegal_action_penalty='x'"),
])
def test_config_errors_name_the_flag(flags, message):
    with pytest.raises(ValueError, match=message):
        ds.DbfConfig.from_flags(**flags)


def test_illegal_action_and_bad_deal_errors():
    """step names the action and the legal ones; deal wants a permutation, when awaited."""
    ref = DbfRef()
    with pytest.raises(ValueError, match=r"illegal action 54 \(play\).*a deal is awaited"):
        ref.step(ds.PLAY)
    with pytest.raises(ValueError, match="permutation"):
        ref.deal(list(range(53)) + [0])
    ref.deal(deck_order(kitty="3S 2S 2H 2D 2C 4S"))
    with pytest.raises(ValueError, match="no deal is awaited"):
        ref.deal(list(range(54)))
    with pytest.raises(ValueError, match=r"illegal action 60 \(claim\) for seat 0; legal: "
                                         r"pick 2S, pick 3S, "):
        ref.step(ds.CLAIM)
    with pytest.raises(ValueError, match=r"illegal action 99 \(not an action id\)"):
        ref.step(99)


def test_DBF_19_leader_may_claim():
    """DBF-19: L (seat 0) discards his six trumps and, holding none, claims first: the next
    deal is open from L+2."""
    hands = {0: "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
             1: "5S 6S 7S 8S 9S TS JS QS KS AS BJ RJ",
             2: "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
             3: "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"}
    ref = DbfRef()
    ref.deal(order_from_hands(hands, "3S 2S 2H 2D 2C 4S", starter=0))
    assert (ref.phase, ref.trump_suit, ref.turned) == (ds.PHASE_DISCARD, suit("S"), 2)
    for c in cards("3S 2S 2H 2D 2C 4S"):
        ref.step(ds.PICK + c)
    assert (ref.phase, ref.current_player) == (ds.PHASE_CLAIM, 0)
    ref.step(ds.CLAIM)
    assert (ref.outcome, ref.kind, ref.starter, ref.levels) == (
        ds.CLAIMED, ds.OPEN_DEAL, 2, [2, 2])


def test_facts_name_the_state():
    """facts(): the keys its docstring lists, in plain Python types, at a claim decision."""
    ref = claim_game()
    f = ref.facts()
    assert (f["phase"], f["current_player"], f["legal_actions"]) == (
        ds.PHASE_CLAIM, 2, [ds.PASS, ds.CLAIM])
    assert (f["hand_no"], f["hands_played"], f["hand_kind"], f["levels"]) == (
        2, 1, ds.LATER_HAND, [5, 9])
    assert (f["declaring"], f["trump_level"], f["trump_suit"], f["starter"], f["leader"]) == (
        1, 9, suit("S"), 1, 1)
    assert (f["drawn"], f["turned"], f["exposer"], f["kitty"]) == (
        48, 1, -1, sorted(cards("2D 3D 4D 5D 6D 7S")))
    assert f["location"].count(ds.LOC_KITTY) == 6 and f["location"].count(2) == 12
    assert (f["outcome"], f["P"], f["winner"], f["scores"]) == (ds.NORMAL, 40, -1, [0] * 4)
    assert all(type(v) in (int, bool, list) for v in f.values())
