"""Da Bai Fen for the double-dummy solvers (issue 24, solver readiness): the trick kernel's n-card
play comparison (`kanjax.core.trick.winning_play`, DBF-26) and multi-lead validity (`lead_valid`,
DBF-23) on the §8 scenarios, and `solvers.convert.from_state` on a Da Bai Fen state in trick
play: a `Position` of the hand's rules (effective suits, strengths, points, the kitty bonus,
plays of up to 12 cards), which every search refuses, naming the limit.

Scenarios as §8 says: R=6, T=C, seat 0 is L, team 0 = {0, 2} declares. One engine config
(`cases.DEFAULT`), walked through the scenario helpers' deals (`plan_hand`, `to_tail`).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from kanjax.api import checked_step
from kanjax.core import trick as tk
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen import trumps as sj
from solvers import api, reference
from solvers.convert import from_state, rules_of
from solvers.position import Position
from tests.games.da_bai_fen.cases import DEFAULT
from tests.games.da_bai_fen.scenario_helpers import (
    KEY,
    C,
    cards,
    facts,
    make,
    plan_hand,
    play,
    to_tail,
)

ENV = make(DEFAULT)
R6C = sj.tables(jnp.int32(6), jnp.int32(3), False)  # trump, effective suit, strength
NO_TOP = jnp.zeros(ds.NUM_CARDS, bool)


def bits(text: str) -> np.ndarray:
    out = np.zeros(ds.NUM_CARDS, bool)
    out[cards(text)] = True
    return out


def winner(plays: list[str], tables=R6C) -> int:
    """The seat offset (0: the leader) of the winning play, by the trick kernel."""
    _, eff, strength = tables
    led = eff[cards(plays[0])[0]]
    stack = jnp.asarray(np.stack([bits(p) for p in plays]))
    return int(tk.winning_play(stack, eff, strength, led, jnp.int32(sj.TRUMP), NO_TOP))


@pytest.mark.parametrize(("scenario", "plays", "want"), [
    (6, ["9H", "KH", "2C", "AH"], 2),  # DBF-26b: the only all-trump play
    (7, ["4D", "6S", "6H", "3C"], 1),  # DBF-8: 6S = 6H, the earlier wins
    (11, ["AS KS", "2C 7C", "3S 8D", "6H AC"], 3),  # all-trump tops 7C, 6H: 6H
    (11, ["AS KS", "2C 7C", "3S 8D", "6H 5D"], 1),  # {6H, 5D} is not all-trump
    (12, ["RJ BJ", "AC 6S", "2C 8H", "9H QH"], 0),  # DBF-26a: trumps led
    (13, ["6H 6D", "6S 2C", "AC 5H", "9H TH"], 0),  # 6S equals 6H, played later
])
def test_DBF_26_winning_play_on_the_scenarios(scenario, plays, want):
    """The n-card comparison gives §8's trick winner (as the engine's scenario tests find)."""
    assert winner(plays) == want
    _, eff, strength = R6C
    led, trump = eff[cards(plays[0])[0]], jnp.int32(sj.TRUMP)
    for i, p in enumerate(plays[1:], 1):  # `beats`: strictly stronger than the best so far
        best = plays[winner(plays[:i])]
        assert bool(tk.beats(bits(p), bits(best), eff, strength, led, trump, NO_TOP)) == (
            winner(plays[:i + 1]) == i)


def test_DBF_23_lead_valid_on_the_scenarios():
    """Scenario 9 valid; 10 invalid (partner's KS beats QS); 13 valid (6S equals 6H), invalid
    had seat 3 held RJ; a single card always valid."""
    _, eff, strength = R6C

    def valid(lead: str, others: str) -> bool:
        return bool(tk.lead_valid(bits(lead), bits(others), eff, strength))

    assert valid("AS KS", "3S QS 9S 4S")
    assert not valid("AS QS", "KS")
    assert valid("6H 6D", "6S 2C AC") and not valid("6H 6D", "6S 2C AC RJ")
    assert valid("3S", "AS KS")


def test_DBF_V8_quads():
    """Scenario 24 (R=5, T=H): the 9-quad beats the 7-quad; three trumps and a card are no
    quad; jokers are in none."""
    R = jnp.int32(5)
    q = {t: int(sj.quad_strength(jnp.asarray(bits(t)), R, True))
         for t in ("7S 7H 7D 7C", "9S 9H 9D 9C", "RJ 5S 2D 3C", "5S 5H 5D 5C")}
    assert q["9S 9H 9D 9C"] > q["7S 7H 7D 7C"] > 0 == q["RJ 5S 2D 3C"]
    assert q["5S 5H 5D 5C"] == 20
    assert int(sj.quad_values(R, True)[ds.RJ]) == 0


SCEN_11 = {0: "AS KS 2H 3H", 1: "2C 7C 4H 9D", 2: "3S 8D QH 4D", 3: "6H AC 5D TH"}


@pytest.fixture(scope="module")
def mid_trick():
    """Scenario 11 after {AS, KS} and {2C, 7C}: seat 2 to play two cards."""
    plan = plan_hand(6, "C", 0, SCEN_11)
    s = to_tail(ENV, plan)
    s = play(ENV, s, 0, "AS KS")
    return play(ENV, s, 1, "2C 7C"), plan


def test_from_state_mid_trick(mid_trick):
    """The position says what the engine's summary says: hands, the trick's plays from its
    leader, the led suit, whose play it is, the side (the opponents: the value is their P,
    DBF-30) and the points taken; the hand's rules: effective suits (every trump of suit T),
    strengths, DBF-2's points, the kitty doubled as the last trick's bonus (DBF-29)."""
    s, plan = mid_trick
    f = facts(ENV, s)
    pos, players = from_state(ENV, s)
    assert players == (0, 1, 2, 3) and pos.to_move == int(s.current_player) == 2
    loc = f["location"]
    assert pos.hands == tuple(tuple(np.flatnonzero(loc == p)) for p in range(4))
    assert pos.plays == (tuple(cards("KS AS")), tuple(cards("2C 7C")))
    assert pos.play_cards == 2 and pos.trick == tuple(cards("KS AS 2C 7C"))
    assert (pos.leader, pos.led, pos.trump) == (0, ds.SUITS.index("S"), 3)
    assert pos.tricks_done == int(f["tricks_done"]) and not pos.quad_led
    assert pos.side == (False, True, False, True)  # team 1, the opponents of declaring team 0
    assert (pos.taken, pos.taken_other) == (int(f["points"][1]), int(f["points"][0]))
    assert pos.root_moves is None
    r = pos.rules
    assert r.suit[C("6H")] == r.suit[C("RJ")] == r.suit[C("2C")] == 3 and r.suit[C("AH")] == 1
    assert r.rank[C("6H")] == r.rank[C("6S")] == 15 and r.rank[C("6C")] == 16
    assert r.points[C("KS")] == r.points[C("TD")] == 10 and r.points[C("5H")] == 5
    assert sum(r.points) == ds.TOTAL_POINTS and r.trick_value == 0
    kitty = np.flatnonzero(loc == ds.LOC_KITTY)
    assert r.last_bonus == 2 * sum(ds.CARD_POINTS[c] for c in kitty)
    assert r.cards_a_play == 12 and rules_of(ENV, s) == r


def test_searches_refuse_a_dbf_position(mid_trick):
    """The single-card searches refuse what they cannot search, naming the limit (multi-card
    plays); `api.solve` takes it to the multi-card search (issue 27) but on the JAX backend."""
    pos, _ = from_state(ENV, mid_trick[0])
    want = r"da_bai_fen: beyond the solvers' limits: 12 cards a play \(multi-card plays"
    with pytest.raises(ValueError, match=want):
        reference.value(pos)
    with pytest.raises(ValueError, match=want):
        reference.legal_moves(pos)
    with pytest.raises(ValueError, match=want):
        api.solve([pos], backend="jax")
    assert "card 3 worth 5 points (cards worth [5, 10]): the solvers take 0 or 1 a card" in (
        pos.rules.limits)


def test_the_position_completes_the_engine_trick(mid_trick):
    """Seat 2 and 3 play as scenario 11; the engine's winner is the kernel's."""
    s, _ = mid_trick
    s = play(ENV, play(ENV, s, 2, "3S 8D"), 3, "6H AC")
    tw = facts(ENV, s)["trick_winners"]
    assert int(tw[tw >= 0][-1]) == winner(["AS KS", "2C 7C", "3S 8D", "6H AC"]) == 3


def test_outside_trick_play_and_without_a_state(mid_trick):
    s = ENV.init(KEY)
    with pytest.raises(ValueError, match=r"not in trick play \(phase draw\)"):
        from_state(ENV, s)
    with pytest.raises(ValueError, match="pass a state in trick play"):
        rules_of(ENV)
    picking = checked_step(ENV, mid_trick[0], ds.PICK + C("3S"), KEY)
    with pytest.raises(ValueError, match="has picked 3S of his play"):
        from_state(ENV, picking)


def test_positions_of_multi_card_plays(mid_trick):
    """A position's hands are checked play by play: each seat as many cards at the trick's
    start; a trick of plays of `play_cards` cards."""
    rules = from_state(ENV, mid_trick[0])[0].rules
    hands = (tuple(cards("AS 2H")), tuple(cards("3H 4H")), tuple(cards("5D 6D")),
             tuple(cards("7D 8D")))
    side = (False, True) * 2
    assert Position(rules, hands, 3, 0, side).to_move == 0
    p = Position(rules, ((),) + hands[1:], 3, 0, side, trick=tuple(cards("QS KS")), led=0,
                 play_cards=2)
    assert p.to_move == 1 and p.plays == (tuple(cards("QS KS")),)
    with pytest.raises(ValueError, match="seat 1 holds 1 cards, want 2"):
        Position(rules, ((), (C("3H"),)) + hands[2:], 3, 0, side,
                 trick=tuple(cards("QS KS")), led=0, play_cards=2)
    with pytest.raises(ValueError, match="of plays of 2 cards"):
        Position(rules, hands, 3, 0, side, play_cards=2)
    p = Position(rules, ((C("AS"),),) + hands[1:], 3, 0, side, trick=(C("KS"),), led=0)
    assert p.to_move == 1


def test_DBF_24_29_api_solves_the_engine_position(mid_trick):
    """`api.solve` (auto: the cpu multi-card search) on the engine's position: the value and
    every play's value are the plain-Python oracle's; the hand's rules carry DBF-24's penalty
    (100 + the kitty's points) and the engine's `invalid_multilead`."""
    from solvers import reference_dbf

    s, _ = mid_trick
    pos, _ = from_state(ENV, s)
    kitty = np.flatnonzero(facts(ENV, s)["location"] == ds.LOC_KITTY)
    assert pos.rules.penalty == 100 + sum(ds.CARD_POINTS[c] for c in kitty)
    assert pos.rules.invalid_lead == "penalty"
    [sol] = api.solve([pos], all_moves=True)
    assert sol.move_ids == reference_dbf.move_values(pos)
    assert sol.value == reference_dbf.value(pos) == min(sol.move_ids.values())
    assert pos.rules.move_name(min(sol.move_ids)) in {"3S 8D", "3S 4D", "3S QH"}
