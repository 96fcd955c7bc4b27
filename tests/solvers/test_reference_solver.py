"""The CPU reference double-dummy solver (`solvers.reference`).

Alpha-beta with tables and rank equivalence (`value`, `move_values`, `reaches`) against brute
force (`minimax`, a brute goal search) on random short endings and short whole deals of every
ruleset, and hand-checkable trick scenarios named after the rules (KAN-24..KAN-27, KAN-54,
KAN-58).
"""

import dataclasses
import math
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanjax.core import cards
from solvers import reference as ref
from solvers.position import JK, LEAD_JK, Position, Rules
from tests.solvers.rules import WHIST, game_rules

GONIN, YONIN, GAMBARI = (game_rules(g) for g in ("gonin_kan", "yonin_kan", "gambari_kan"))
C, D, H, S = range(4)  # Kan suits (kan.md §15)
SEEDS = st.integers(0, 2**32 - 1)


def random_position(rules: Rules, rng: random.Random, tricks_left: int, trick_cards: int = 0,
                    with_joker: bool = False) -> Position:
    """A random position `tricks_left` tricks from the end after `trick_cards` random legal
    cards of the current trick: random hands, trump, leader and side; what the tricks already
    played were worth split at random. `with_joker`: JK is dealt, except to a last trick it
    may not be played to (unreachable: Gonin's trick 10, KAN-25)."""
    n, deck = rules.n, list(rules.ids)
    if rules.joker and rules.joker[-1] == "never" and tricks_left == 1:
        deck.remove(JK)
    rng.shuffle(deck)
    dealt = deck[: n * tricks_left]
    if with_joker and JK in deck and JK not in dealt:
        dealt[rng.randrange(len(dealt))] = JK
    past = rules.total - tricks_left * rules.trick_value - sum(rules.points[c] for c in dealt)
    taken = rng.randint(0, past)
    k = rng.randrange(1, n)
    side = tuple(rng.sample([True] * k + [False] * (n - k), n))
    pos = Position(rules, tuple(tuple(sorted(dealt[s::n])) for s in range(n)),
                   trump=rng.randrange(0 if rules.joker else -1, 4),
                   leader=rng.randrange(n), side=side, tricks_done=rules.n_tricks - tricks_left,
                   taken=taken, taken_other=past - taken)
    for _ in range(trick_cards):
        pos = ref.play(pos, rng.choice(ref.legal_moves(pos)))
    return pos


def mini(rules: Rules, lowest_rank: int, drop: tuple[int, ...] = ()) -> Rules:
    """`rules` with only the cards of rank >= `lowest_rank` (and JK) less `drop`: whole deals
    small enough for brute force, with trick 1 and the joker's last-tricks rules."""
    ids = tuple(c for c in rules.ids
                if (c == JK or rules.rank[c] >= lowest_rank) and c not in drop)
    k = len(ids) // rules.n
    joker = rules.joker[:1] + rules.joker[len(rules.joker) - (k - 1):] if rules.joker else ()
    return dataclasses.replace(rules, game=f"mini_{rules.game}", n_tricks=k, ids=ids,
                               joker=joker)


# name: (rules, fewest and most tricks left, examples)
ENDINGS = {
    "whist": (WHIST, 2, 4, 25),
    "gonin_kan": (GONIN, 1, 3, 25),
    "yonin_kan": (YONIN, 2, 4, 15),
    "gambari_kan": (GAMBARI, 2, 4, 25),
    "mini_whist_deal": (mini(WHIST, 9), 4, 4, 10),  # J Q K A: 4 tricks
    "mini_gambari_deal": (mini(GAMBARI, 11), 3, 3, 15),  # K A JK: 3 tricks, JK in trick 2
    "mini_yonin_deal": (mini(YONIN, 10, drop=(49,)), 3, 3, 15),  # A K Q less QS, JK
}


def ending(name: str, seed: int, with_joker: bool = False) -> Position:
    rules, fewest, most, _ = ENDINGS[name]
    rng = random.Random(seed)
    return random_position(rules, rng, rng.randint(fewest, most), rng.randrange(rules.n),
                           with_joker)


def total(pos: Position) -> int:
    return pos.taken + pos.taken_other + ref.remaining(pos)


def brute_goals(pos: Position) -> list[float]:
    """The goal search of `solvers.position` by brute force over `play`, for every goal at
    once: `f[b]` is the largest `side_min` of a goal `(side_min, b)` that the side can force
    (-inf: none), for `b` in 0..total."""
    moves = ref.legal_moves(pos)
    later = [-math.inf] * (total(pos) + 1)  # what is still possible after this trick end
    if moves:
        best = max if pos.side[pos.to_move] else min
        children = [brute_goals(ref.play(pos, m)) for m in moves]
        later = [best(f[b] for f in children) for b in range(total(pos) + 1)]
    return [-math.inf if pos.taken_other > b else max(pos.taken, later[b])
            for b in range(total(pos) + 1)]


@pytest.mark.parametrize("name", ENDINGS)
def test_value_is_minimax(name: str) -> None:
    @settings(max_examples=ENDINGS[name][3], deadline=None)
    @given(seed=SEEDS)
    def check(seed: int) -> None:
        pos = ending(name, seed)
        assert ref.value(pos) == ref.minimax(pos)

    check()


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_kan25_gonin_endings_with_joker(seed: int) -> None:
    """Tricks 8..10 with JK dealt: the odori ban in trick 9, no JK in trick 10."""
    pos = ending("gonin_kan", seed, with_joker=True)
    assert ref.value(pos) == ref.minimax(pos)


@pytest.mark.parametrize("name", ["whist", "gonin_kan", "yonin_kan", "gambari_kan"])
def test_reaches_is_value_at_least(name: str) -> None:
    @settings(max_examples=15, deadline=None)
    @given(seed=SEEDS)
    def check(seed: int) -> None:
        pos = ending(name, seed)
        solver = ref.Solver(pos.rules, pos.trump, pos.side)  # one set of tables for all goals
        v = ref.minimax(pos)
        for t in range(pos.taken - 1, total(pos) + 2):
            assert solver.reaches(pos, t, total(pos) - t) == (v >= t), t
        assert solver.value(pos) == v

    check()


@pytest.mark.parametrize("name", ["gonin_kan", "yonin_kan", "gambari_kan", "mini_yonin_deal"])
def test_reaches_goals(name: str) -> None:
    """Every goal, those bounding the others too (sukonku `(T, 0)` and the like), against
    brute force; one solver answers them all."""
    @settings(max_examples=4 if name == "yonin_kan" else 8, deadline=None)
    @given(seed=SEEDS)
    def check(seed: int) -> None:
        pos = ending(name, seed)
        solver = ref.Solver(pos.rules, pos.trump, pos.side)
        best = brute_goals(pos)
        for side_min in range(total(pos) + 2):
            for other_max in range(total(pos) + 1):
                assert (solver.reaches(pos, side_min, other_max)
                        == (side_min <= best[other_max])), (side_min, other_max)

    check()


@pytest.mark.parametrize("name", ["whist", "yonin_kan", "gambari_kan", "mini_whist_deal"])
def test_tables_shared_across_positions(name: str) -> None:
    """One solver for several positions of a deal: one trick start with each leader."""
    @settings(max_examples=10, deadline=None)
    @given(seed=SEEDS)
    def check(seed: int) -> None:
        rules, fewest, most, _ = ENDINGS[name]
        rng = random.Random(seed)
        start = random_position(rules, rng, rng.randint(fewest, most))
        solver = ref.Solver(start.rules, start.trump, start.side)
        for leader in range(start.rules.n):
            pos = dataclasses.replace(start, leader=leader)
            assert solver.value(pos) == ref.value(pos)  # a fresh solver's

    check()


@pytest.mark.parametrize("name", ["whist", "gonin_kan", "yonin_kan", "gambari_kan"])
def test_move_values(name: str) -> None:
    """Every legal move, equivalent cards included; the best of them is the value."""
    @settings(max_examples=15, deadline=None)
    @given(seed=SEEDS)
    def check(seed: int) -> None:
        pos = ending(name, seed)
        values = ref.move_values(pos)
        assert list(values) == ref.legal_moves(pos)
        assert values == {m: ref.minimax(ref.play(pos, m)) for m in values}
        best = max if pos.side[pos.to_move] else min
        assert best(values.values()) == ref.value(pos)

    check()


def test_root_moves_limit_the_root_only() -> None:
    """A rule the solver does not model (KAN-53's compulsory lead) limits the first move."""
    pos = ending("gambari_kan", 7)
    for m in ref.legal_moves(pos):
        limited = dataclasses.replace(pos, root_moves=(m,))
        assert ref.legal_moves(limited) == [m]
        assert ref.play(limited, m).root_moves is None
        v = ref.value(limited)
        assert v == ref.minimax(limited) == ref.minimax(ref.play(pos, m))
        assert ref.reaches(limited, v, total(pos) - v)
        assert not ref.reaches(limited, v + 1, total(pos) - v - 1)


def kan(text: str) -> list[int]:
    deck = cards.deck("gonin_kan")
    return [deck.card(t) for t in text.split()]


def whist(text: str) -> list[int]:
    """Whist card ids: 13 * suit + rank, suits S H D C."""
    return [13 * "SHDC".index(t[1]) + "23456789TJQKA".index(t[0]) for t in text.split()]


def after(pos: Position, *moves: int) -> Position:
    for m in moves:
        pos = ref.play(pos, m)
    return pos


def test_whist_trump_beats_led_suit() -> None:
    hands = tuple(tuple(whist(h)) for h in ("AS", "2H", "3S", "4S"))
    pos = Position(WHIST, hands, trump=1, leader=0, side=(True, False, True, False),
                   tricks_done=12, taken=6, taken_other=6)
    end = after(pos, *whist("AS 2H 3S 4S"))
    assert (end.leader, end.taken, end.taken_other) == (1, 6, 7)
    assert ref.value(pos) == 6
    assert ref.value(dataclasses.replace(pos, trump=-1)) == 7  # 2H is a discard


def test_whist_must_follow_suit() -> None:
    hands = tuple(tuple(whist(h)) for h in ("AS KS", "2S 2H", "3H 4H", "5H 6H"))
    pos = Position(WHIST, hands, trump=-1, leader=0, side=(True, False, True, False),
                   tricks_done=11)
    pos = after(pos, *whist("KS"))
    assert ref.legal_moves(pos) == whist("2S")
    assert ref.legal_moves(after(pos, *whist("2S"))) == whist("3H 4H")  # void: any card


def gonin_trick8(leader: int = 0) -> Position:
    """Gonin, trick 8 of 10, spades trump; seat 1 holds JK."""
    hands = tuple(tuple(kan(h)) for h in
                  ("AS KS QS", "JK 3C 4C", "5C 6C 7C", "8C 9C TC", "3D 4D AD"))
    return Position(GONIN, hands, trump=S, leader=leader,
                    side=(True, False, True, False, False), tricks_done=7, taken=5,
                    taken_other=7)


def test_kan27_joker_wins_trick() -> None:
    """JK beats the ace of trumps (KAN-27); holding no spade, seat 1 may play anything."""
    pos = after(gonin_trick8(), *kan("AS"))
    assert ref.legal_moves(pos) == [*kan("3C 4C"), JK]
    end = after(pos, JK, *kan("5C 8C AD"))
    assert (end.leader, end.tricks_done, end.taken, end.taken_other) == (1, 8, 5, 9)


def test_kan24_follow_suit_or_joker() -> None:
    pos = after(gonin_trick8(leader=2), *kan("5C"))
    assert ref.legal_moves(pos) == kan("8C 9C TC")
    pos = after(pos, *kan("8C"))
    assert ref.legal_moves(pos) == kan("3D 4D AD")  # void in clubs: any card
    pos = after(pos, *kan("AD QS"))
    assert ref.legal_moves(pos) == [*kan("3C 4C"), JK]  # clubs, or JK (KAN-25)
    with pytest.raises(ValueError, match="illegal"):
        ref.play(gonin_trick8(), LEAD_JK + C)  # seat 0 has no JK


def test_kan26_joker_lead_names_suit() -> None:
    pos = gonin_trick8(leader=1)
    assert ref.legal_moves(pos) == [*kan("3C 4C"), *(LEAD_JK + s for s in range(4))]
    pos = ref.play(pos, LEAD_JK + C)
    assert (pos.trick, pos.led) == ((JK,), C)
    assert ref.legal_moves(pos) == kan("5C 6C 7C")
    end = after(pos, *kan("7C TC AD AS"))
    assert (end.leader, end.taken_other) == (1, 9)  # JK wins; AD and AS are points


def test_kan25_no_joker_in_trick1() -> None:
    deal = random_position(GONIN, random.Random(3), 10)
    holder = next(s for s, h in enumerate(deal.hands) if JK in h)
    assert all(m < JK for m in ref.legal_moves(dataclasses.replace(deal, leader=holder)))
    follow = dataclasses.replace(deal, leader=(holder + 1) % 5)
    for _ in range(4):
        follow = ref.play(follow, ref.legal_moves(follow)[0])
    assert follow.to_move == holder and JK not in ref.legal_moves(follow)


def test_kan25_odori_ban_forces_joker_in_trick9() -> None:
    hands = tuple(tuple(kan(h)) for h in ("KS AS", "JK 4C", "5C 6C", "8C 9C", "4D AD"))
    pos = Position(GONIN, hands, trump=S, leader=0, side=(True, False, True, False, False),
                   tricks_done=8, taken=5, taken_other=7)
    assert ref.legal_moves(pos) == kan("KS AS")
    assert ref.legal_moves(after(pos, *kan("AS"))) == [JK]  # not 4C
    assert ref.legal_moves(dataclasses.replace(pos, leader=1)) == [LEAD_JK + s for s in range(4)]
    # JK takes trick 9 whatever seat 0 leads; seat 4 throws AD on it; seat 0's other
    # spade wins trick 10 with 4D: one point.
    assert ref.value(pos) == ref.minimax(pos) == 6


def test_kan25_no_joker_in_trick10() -> None:
    hands = tuple(tuple(kan(h)) for h in ("AS", "JK", "5C", "8C", "AD"))
    pos = Position(GONIN, hands, trump=S, leader=0, side=(True,) + (False,) * 4, tricks_done=9,
                   taken=0, taken_other=14)
    with pytest.raises(ValueError, match="the joker alone in trick 10, where it may not be played"):
        ref.legal_moves(after(pos, *kan("AS")))


@pytest.mark.parametrize(("hands", "lead", "winner"), [
    ("6H JK AC 5D", None, 0),  # JK follows: the lowest heart
    ("JK AC KD QC", LEAD_JK + H, 0),  # JK led naming hearts, no heart, no trump: JK wins
    ("JK AC 6H QC", LEAD_JK + H, 2),  # any heart beats it
    ("JK AC KD 6S", LEAD_JK + H, 3),  # so does any trump
    ("JK AC KD 6S", LEAD_JK + S, 3),  # JK naming trumps is the lowest trump
])
def test_kan54_yonin_joker_lowest_in_last_trick(hands: str, lead: int | None,
                                                winner: int) -> None:
    pos = Position(YONIN, tuple((c,) for c in kan(hands)), trump=S, leader=0,
                   side=(True, False, True, False), tricks_done=9, taken=4, taken_other=10)
    moves = kan(hands)
    end = after(pos, moves[0] if lead is None else lead, *moves[1:])
    assert end.leader == winner
    assert end.taken == 4 + sum(YONIN.points[c] for c in moves) * (winner % 2 == 0)


def test_kan54_yonin_joker_any_turn_wins_before_last_trick() -> None:
    hands = tuple(tuple(kan(h)) for h in ("AH KH", "JK 6H", "AS QS", "7H 8H"))
    pos = Position(YONIN, hands, trump=S, leader=0, side=(True, False, True, False),
                   tricks_done=8, taken=2, taken_other=10)
    pos = after(pos, *kan("AH"))
    assert ref.legal_moves(pos) == [*kan("6H"), JK]  # following hearts or not: JK may go
    end = after(pos, JK, *kan("AS 7H"))
    assert (end.leader, end.taken_other) == (1, 12)  # JK beats the ace of trumps
    # Kept for trick 10, JK would be the lowest heart (KAN-54): seat 1 plays it now.
    assert ref.move_values(pos) == {kan("6H")[0]: 6, JK: 4}


@pytest.mark.parametrize(("flag", "follow_ok"), [("lead", True), ("any", False)])
def test_kan58_yonin_joker_in_trick1(flag: str, follow_ok: bool) -> None:
    """With no contract, JK is never led to trick 1; flag "any": nor played to it."""
    rules = game_rules("yonin_kan", yonin_joker_trick1_contract=flag)
    deal = random_position(rules, random.Random(5), 10)
    holder = next(s for s, h in enumerate(deal.hands) if JK in h)
    assert all(m < JK for m in ref.legal_moves(dataclasses.replace(deal, leader=holder)))
    before = dataclasses.replace(deal, leader=(holder - 1) % 4)
    follow = ref.play(before, ref.legal_moves(before)[0])
    assert (JK in ref.legal_moves(follow)) == follow_ok


def test_rank_equivalence_broken_by_card_in_trick() -> None:
    """Seat 2's JD and AD are not equivalent while KD lies in the trick. AD takes the trick;
    JD lets the partner's KD take it, and the partner, forced to lead JK to trick 9 (KAN-25),
    names clubs (KAN-26) and pulls the kankei's AC."""
    hands = tuple(tuple(kan(h)) for h in ("TC JK", "AC TH", "JD AD JH"))
    pos = Position(GAMBARI, hands, trump=C, leader=0, side=(False, True, False),
                   trick=tuple(kan("KD TD")), led=D, tricks_done=7, taken=3, taken_other=8)
    assert ref.move_values(pos) == {kan("JD")[0]: 3, kan("AD")[0]: 5}
    assert ref.value(pos) == 3


def solve_timed(pos: Position) -> str:
    """Solves `pos` with a fresh solver: value, nodes and seconds, for the timing reports."""
    start = time.perf_counter()
    solver = ref.Solver(pos.rules, pos.trump, pos.side)
    v = solver.value(pos)
    assert pos.taken <= v <= total(pos)
    return f"value {v}, {solver.nodes} nodes, {time.perf_counter() - start:.2f} s"


@pytest.mark.parametrize("tricks_left", [5, 6])
def test_timing_whist_endings(tricks_left: int) -> None:
    """Solving times, reported, not asserted (`pytest -s` prints them)."""
    rng = random.Random(1)
    for _ in range(3):
        pos = random_position(WHIST, rng, tricks_left, rng.randrange(4))
        pos = dataclasses.replace(pos, side=(True, False, True, False))
        print(f"whist, {tricks_left} tricks left: {solve_timed(pos)}")


@pytest.mark.slow
def test_timing_gambari_deal() -> None:
    """Whole Gambari deals, the lone kankei's points: seconds to a minute each."""
    rng = random.Random(1)
    for _ in range(3):
        pos = dataclasses.replace(random_position(GAMBARI, rng, 10), side=(True, False, False))
        print(f"gambari_kan, whole deal: {solve_timed(pos)}")
