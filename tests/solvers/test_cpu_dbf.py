"""Da Bai Fen's trick play in the double-dummy solvers (issue 27): the plain-Python oracle
`solvers.reference_dbf` on §8's scenarios as solver positions, its move generator against the
reference engine's mask (`kanjax.games.da_bai_fen.reference`, whole plays completed pick by pick),
and the compiled search (`solvers.cpu.multi`) against the oracle, every move's value included.

Positions are built beside a reference engine hand (`DbfRef.from_position`), whose ranking
gives the solver's rules (effective suits, strengths) without the JAX engine; the slow tests
walk the JAX engine (`from_state`) too. Scenarios as §8 says: R=6, T=C, seat 0 is L, team 0 =
{0, 2} declares, so the side (the value's) is team 1, the opponents (P, DBF-30).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.reference import DbfRef
from solvers import reference_dbf as rd
from solvers.position import Position, Rules, play_cards, play_mask
from tests.games.da_bai_fen.helpers import cards, suit, whole_plays

V4 = {"kitty_mult_last_trick": True}
MASK = {"invalid_multilead": "mask"}


def rules_of(ref: DbfRef, flags: dict) -> Rules:
    """The solver's rules of the reference engine's hand (as `DbfEnv.trick_rules` gives)."""
    rk = ref.ranking()
    kp = sum(ds.CARD_POINTS[c] for c in ref.kitty)
    v4 = bool(flags.get("kitty_mult_last_trick"))
    return Rules(game="da_bai_fen", n=4, n_tricks=12, ids=tuple(range(54)),
                 suit=tuple(ref.trump_suit if rk.is_trump(c) else rk.eff_suit(c)
                            for c in range(54)),
                 rank=tuple(rk.strength(c) for c in range(54)), points=ds.CARD_POINTS,
                 trick_value=0, cards_a_play=12, last_bonus=kp * (1 if v4 else 2),
                 last_bonus_per_card=v4, invalid_lead=flags.get("invalid_multilead", "penalty"),
                 penalty=ds.TOTAL_POINTS + kp, tokens=ds.DECK.tokens, suit_names=ds.SUITS)


def position_of(ref: DbfRef, flags: dict, taken=(0, 0)) -> Position:
    """The solver's position of the reference engine at a play (nothing picked); `taken`:
    (opponents, declarers) points so far."""
    leader = ref.trick_leader
    plays = [sorted(cs) for _, cs in ref.trick]
    opp = 1 - ref.declaring
    return Position(rules_of(ref, flags), tuple(tuple(sorted(h)) for h in ref.hands),
                    ref.trump_suit, leader, tuple(p % 2 == opp for p in range(4)),
                    tuple(c for p in plays for c in p),
                    -1 if not plays else rules_of(ref, flags).suit[plays[0][0]],
                    tricks_done=12 - len(ref.hands[leader]) - (len(plays[0]) if plays else 0),
                    taken=taken[0], taken_other=taken[1],
                    play_cards=len(plays[0]) if plays else 1)


def scenario(hands: dict[int, str], kitty: str = "", flags: dict | None = None, R: int = 6,
             T: str = "C", L: int = 0, to_lead: int | None = None) -> tuple[DbfRef, Position]:
    flags = flags or {}
    ref = DbfRef.from_position(ds.DbfConfig.from_flags(**flags),
                               [cards(hands[p]) for p in range(4)], R, suit(T), L,
                               kitty=cards(kitty), to_lead=to_lead)
    return ref, position_of(ref, flags)


def step_play(ref: DbfRef, play) -> None:
    """The mover picks the cards of `play` (ids) and, leading, plays them."""
    leading = not ref.trick
    for c in sorted(play):
        ref.step(ds.PICK + c)
    if leading:
        ref.step(ds.PLAY)


def M(text: str) -> int:
    return play_mask(cards(text))


def masks(texts) -> list[int]:
    return sorted(M(t) for t in texts)


# ---- §8's scenarios as solver positions ------------------------------------------------------
def test_DBF_23_valid_multi_lead_scenario_9():
    """{AS, KS} is valid (outstanding spades 3S, QS 9S 4S): not a penalty move; the leader's
    side takes the trick (AS KS beat every pair of spades)."""
    ref, pos = scenario({0: "AS KS", 1: "3S 2H", 2: "QS 9S", 3: "4S 3H"})
    values = rd.move_values(pos)
    assert M("AS KS") in rd.legal_plays(pos)
    assert values[M("AS KS")] == 0  # team 0 wins the only trick: P = 0


def test_DBF_24_invalid_multi_lead_penalty_scenario_10():
    """Seat 0 (a declarer) leads {AS, QS} while his partner holds KS: invalid, the hand ends
    with P = 100 + kitty points (15); with `invalid_multilead="mask"` it is illegal."""
    hands = {0: "AS QS", 1: "3H 4H", 2: "KS 2H", 3: "5H 6D"}
    kitty = "KH 5D 3S 4S 7C 8C"  # 15 points
    ref, pos = scenario(hands, kitty)
    assert pos.rules.penalty == 115
    assert rd.move_values(pos)[M("AS QS")] == 115
    step_play(ref, cards("AS QS"))  # the reference engine agrees
    assert ref.facts()["P"] == 115
    _, masked = scenario(hands, kitty, MASK)
    assert M("AS QS") not in rd.legal_plays(masked)
    assert M("AS") in rd.legal_plays(masked)


def test_DBF_24_opponents_penalty_is_zero():
    """An opponent's invalid multi-lead gives P = 0, whatever they took before."""
    ref, pos = scenario({0: "2H 3H", 1: "AS QS", 2: "KS 4H", 3: "5H 6D"}, L=0, to_lead=1)
    pos = Position(pos.rules, pos.hands, pos.trump, 1, pos.side, taken=40, taken_other=20,
                   tricks_done=pos.tricks_done)
    assert rd.move_values(pos)[M("AS QS")] == 0


def test_DBF_25_26_follow_and_ruff_scenario_11():
    """Seat 1 may play any 2 of its 4 cards, seat 2 3S and any other; two all-trump plays:
    6H's beats 7C's, team 1 takes KS; {6H, 5D} is no all-trump play, seat 1 wins KS 5D."""
    ref, _ = scenario({0: "AS KS 2H 3H", 1: "2C 7C 4H 9D", 2: "3S 8D QH 4D",
                       3: "6H AC 5D TH"})
    step_play(ref, cards("AS KS"))
    pos = position_of(ref, {})
    assert len(rd.legal_plays(pos)) == 6
    step_play(ref, cards("2C 7C"))
    pos = position_of(ref, {})
    assert rd.legal_plays(pos) == masks(["3S 8D", "3S QH", "3S 4D"])
    # the same trick as the last, seat 3 to play: the winner takes KS (+ 5D), no kitty points
    for last, want in (("6H AC", 10), ("6H 5D", 15)):
        ref, _ = scenario({0: "AS KS", 1: "2C 7C", 2: "3S 8D", 3: last}, "2S 4S 7S 7D 8H 9H")
        for p in ("AS KS", "2C 7C", "3S 8D"):
            step_play(ref, cards(p))
        assert rd.value(position_of(ref, {})) == want


def test_DBF_21_25_trump_multi_lead_scenario_12():
    """{RJ, BJ} is always valid; seat 1 plays 2 of its 3 trumps, seat 2 2C and any card, seat
    3 (no trump) any 2; seat 0 wins."""
    ref, pos = scenario({0: "RJ BJ 2H", 1: "AC 3C 6S", 2: "2C 8H 9H", 3: "9S QH 4D"})
    assert M("BJ RJ") in rd.legal_plays(pos)
    step_play(ref, cards("RJ BJ"))
    assert rd.legal_plays(position_of(ref, {})) == masks(["AC 3C", "AC 6S", "3C 6S"])
    step_play(ref, cards("AC 3C"))
    assert rd.legal_plays(position_of(ref, {})) == masks(["2C 8H", "2C 9H"])
    step_play(ref, cards("2C 8H"))
    assert len(rd.legal_plays(position_of(ref, {}))) == 3


def test_DBF_23_equal_cards_do_not_invalidate_scenario_13():
    """{6H, 6D} against 6S (equal) is valid, seat 0 wins (6S played later); had seat 3 held RJ:
    invalid, P = 100 + kitty."""
    kitty = "RJ BJ 6C 2S 3S 4S"
    _, pos = scenario({0: "6H 6D", 1: "6S 2C", 2: "AC 5H", 3: "9H TH"}, kitty)
    assert rd.move_values(pos)[M("6H 6D")] == 0
    _, pos = scenario({0: "6H 6D", 1: "6S 2C", 2: "AC 5H", 3: "RJ TH"}, "BJ 6C 2S 3S 4S 9H")
    assert rd.move_values(pos)[M("6H 6D")] == 100


def test_DBF_29_kitty_doubled_scenario_14():
    """The opponents win the last trick: P gains the kitty's points twice (15 -> 30); with
    `kitty_mult_last_trick` (V4) once a card of a play: a pair -> 30, a single -> 15."""
    kitty = "KH 5D 3S 4S 7C 8C"
    hands = {0: "2S 3H", 1: "AS KS", 2: "4H 6D", 3: "5S 7H"}  # seat 1 leads its tops
    for flags, want in (({}, 10 + 5 + 30), (V4, 10 + 5 + 30)):
        _, pos = scenario(hands, kitty, flags, to_lead=1)
        assert rd.value(pos) == want
    _, pos = scenario({0: "2S", 1: "AS", 2: "4H", 3: "5S"}, kitty, V4, to_lead=1)
    assert rd.value(pos) == 5 + 15


def test_DBF_V4_penalty_can_beat_play():
    """With the kitty multiplier a declarer may do better by the penalty (P = 100 + kitty)
    than by any valid lead: the opponents would take a triple last trick worth 3 x kitty."""
    kitty = "KH KD KC KS TH TD"  # 60 points: penalty 160, a triple last trick 180
    # any single lead of seat 0 is ruffed by RJ; seat 1 then leads BJ 6C 6S (valid: 6H, 6D
    # are equal to 6S) and wins the last trick, a triple; {2H 3H} is invalid (AH)
    hands = {0: "2H 3H 4D 7S", 1: "RJ BJ 6C 6S", 2: "AH 8D 9D 2S", 3: "6H 6D 3S 4S"}
    _, pos = scenario(hands, kitty, V4)
    values = rd.move_values(pos)
    bad = [m for m in values if len(play_cards(m)) > 1]
    assert bad == [M("2H 3H")] and values[M("2H 3H")] == 160
    assert rd.value(pos) == 160 < min(v for m, v in values.items() if m not in bad)


# ---- the move generator against the reference engine's mask -----------------------------------
def random_ending(rng: random.Random, k: int, flags: dict) -> DbfRef:
    deck = list(range(54))
    rng.shuffle(deck)
    hands = [deck[i * k:(i + 1) * k] for i in range(4)]
    kitty = deck[4 * k:4 * k + 6]
    return DbfRef.from_position(ds.DbfConfig.from_flags(**flags), hands, rng.randint(2, 14),
                                rng.randrange(4), rng.randrange(4), kitty=kitty,
                                to_lead=rng.randrange(4))


FLAGS = ({}, V4, MASK, {"yuan_zhu": True})


def walk(rng: random.Random, games: int, max_cards: int):
    """(reference engine, flags) at each play of random endings played at random."""
    for g in range(games):
        flags = FLAGS[g % len(FLAGS)]
        ref = random_ending(rng, rng.randint(1, max_cards), flags)
        while ref.phase == ds.PHASE_PLAY and ref.hands[ref.current_player]:
            yield ref, flags
            plays = sorted(whole_plays(ref), key=sorted)
            play = rng.choice(plays)
            step_play(ref, play)


def test_DBF_21_25_moves_match_the_reference_engine():
    """At every play of random endings (1-4 cards a hand, the variants that change the moves):
    the oracle's legal plays are the plays the reference engine's mask completes."""
    rng = random.Random(27)
    n = 0
    for ref, flags in walk(rng, 40, 4):
        want = sorted(play_mask(p) for p in whole_plays(ref))
        assert rd.legal_plays(position_of(ref, flags)) == want
        n += 1
    assert n > 100


# ---- the compiled search against the oracle --------------------------------------------------
def random_positions(rng: random.Random, count: int, max_cards: int):
    """Random endings (1..max_cards cards a hand) under the variants that change the search,
    some already taken points, some mid-trick (a random first play or two)."""
    for i in range(count):
        flags = FLAGS[i % len(FLAGS)]
        ref = random_ending(rng, rng.randint(1, max_cards), flags)
        for _ in range(rng.choice((0, 0, 1, 2))):
            plays = sorted(whole_plays(ref), key=sorted)
            step_play(ref, rng.choice(plays))
            if ref.phase != ds.PHASE_PLAY:  # a penalty ended the hand: start afresh
                ref = random_ending(rng, rng.randint(1, max_cards), flags)
        pts = sum(ds.CARD_POINTS[c] for h in ref.hands for c in h)
        free = ds.TOTAL_POINTS - pts - sum(ds.CARD_POINTS[c] for c in ref.kitty) - sum(
            ds.CARD_POINTS[c] for _, cs in ref.trick for c in cs)
        opp = 5 * rng.randint(0, max(free, 0) // 5)
        yield position_of(ref, flags, (opp, free - opp))


def check_same(pos: Position) -> None:
    from solvers.cpu import multi

    value, moves, nodes, _ = multi.solve(pos, all_moves=True)
    want = rd.move_values(pos)
    names = {pos.rules.move_name(m): (moves.get(m), v) for m, v in want.items()
             if moves.get(m) != v}
    assert moves == want, (pos, names)
    best = max if pos.side[pos.to_move] else min
    assert value == rd.value(pos) == best(want.values())
    assert nodes >= 0


def test_DBF_cpu_equals_reference_on_random_endings():
    """The compiled search's value and every legal play's value (merged plays mapped back)
    equal the oracle's on random endings of 1-4 cards a hand (`FLAGS`' variants)."""
    for pos in random_positions(random.Random(2027), 120, 4):
        check_same(pos)


def test_DBF_cpu_moves_match_the_engine_and_oracle():
    """The compiled move generator (unmerged) gives the reference engine's whole plays."""
    from solvers.cpu import multi

    for ref, flags in walk(random.Random(9), 15, 4):
        pos = position_of(ref, flags)
        assert multi.legal_plays(pos) == sorted(play_mask(p) for p in whole_plays(ref))


def test_DBF_cpu_scenarios():
    """§8's scenarios 10, 13 and the V4 penalty through the compiled search."""
    from solvers.cpu import multi

    _, pos = scenario({0: "AS QS", 1: "3H 4H", 2: "KS 2H", 3: "5H 6D"}, "KH 5D 3S 4S 7C 8C")
    assert multi.solve(pos, all_moves=True)[1][M("AS QS")] == 115
    kitty = "KH KD KC KS TH TD"
    hands = {0: "2H 3H 4D 7S", 1: "RJ BJ 6C 6S", 2: "AH 8D 9D 2S", 3: "6H 6D 3S 4S"}
    _, pos = scenario(hands, kitty, V4)
    check_same(pos)
    assert multi.solve(pos)[0] == 160


@pytest.mark.slow
def test_DBF_cpu_equals_reference_on_thousands_of_endings():
    rng = random.Random(4096)
    for pos in random_positions(rng, 3000, 4):
        check_same(pos)


@pytest.mark.slow
def test_DBF_cpu_moves_match_on_longer_walks():
    from solvers.cpu import multi

    for ref, flags in walk(random.Random(11), 60, 6):
        pos = position_of(ref, flags)
        want = sorted(play_mask(p) for p in whole_plays(ref))
        assert multi.legal_plays(pos) == rd.legal_plays(pos) == want


def test_DBF_api_solve_uses_the_multi_card_search():
    """`api.solve` with backend auto or cpu solves Da Bai Fen positions (moves by play mask,
    named by their cards); the JAX search and goals refuse them, naming why."""
    from solvers import api

    ref, pos = scenario({0: "AS KS 2H", 1: "3S 2C 4H", 2: "QS 9S 5H", 3: "4S 3H TD"},
                        "2D 3D 4D 7D 8H 9H")
    want = rd.move_values(pos)
    for backend in ("auto", "cpu"):
        [sol] = api.solve([pos], all_moves=True, backend=backend, threads=1)
        assert sol.move_ids == want and sol.value == rd.value(pos)
    assert pos.rules.move_name(M("AS KS")) == "KS AS"
    [a, b] = api.solve([pos, pos.other_side()], threads=2)
    assert (a.value, b.value) == (rd.value(pos), rd.value(pos.other_side()))
    with pytest.raises(ValueError, match="12 cards a play"):
        api.solve([pos], backend="jax")
    with pytest.raises(ValueError, match="goals are not searched with plays of several"):
        api.reaches([pos], [(10, 100)])


def test_DBF_bench_row():
    """`kanjax bench solver --set dbf_deals=N`: Da Bai Fen hands on the cpu backend (small
    hands here), their row and percentiles; the bench's positions solve as the oracle says."""
    from solvers import bench

    r = bench.bench_solver(deals=0, cards=3, lanes=16, gonin_deals=0, gonin_cards=2, seed=0,
                           threads=1, baseline=False, dbf_deals=4, dbf_cards=3)
    d = r["cpu_dbf"]
    assert d["deals"] == 4 and d["solves_per_s"] > 0 and d["p99_seconds"] >= d["p50_seconds"]
    table = bench.format_bench(r)
    assert "| da_bai_fen (3 cards a hand) | cpu backend (multi-card), 1 thread |" in table
    assert "Da Bai Fen (4 hands of 3 cards): a solve's time p50" in table
    for pos in bench.dbf_positions(4, 3, 0):
        check_same(pos)


@pytest.mark.slow
def test_DBF_moves_match_the_jax_engine():
    """Along random games of the JAX engine (random legal actions, leads mostly of one
    card, whole hands from the draw): at each play whose mover holds at most 3 cards, the
    oracle's and the compiled search's legal plays (from `convert.from_state`) are the plays
    the engine's mask completes pick by pick; and the oracle's value equals the compiled
    search's."""
    import jax
    import numpy as np

    from solvers.convert import from_state
    from solvers.cpu import multi
    from tests.games.da_bai_fen import scenario_helpers as sh
    from tests.games.da_bai_fen.cases import DEFAULT

    env = sh.make(DEFAULT)
    rng = random.Random(5)
    checked = 0
    for g in range(3):
        s = env.init(jax.random.PRNGKey(g))
        hands = 0
        while hands < 2 and not bool(s.terminated | s.truncated):
            f = sh.facts(env, s)
            if (int(f["phase"]) == ds.PHASE_PLAY and not f["selection"].any()
                    and (f["location"] == int(s.current_player)).sum() <= 3):
                pos, _ = from_state(env, s)
                want = sorted(play_mask(p) for p in sh.whole_plays(env, s))
                assert rd.legal_plays(pos) == multi.legal_plays(pos) == want
                assert rd.value(pos) == multi.solve(pos)[0]
                checked += 1
            before = int(f["hands_played"])
            legal = np.flatnonzero(np.asarray(s.legal_action_mask))
            # mostly single-card leads, so that hands reach their last tricks (a random
            # multi-lead is mostly invalid: a penalty ends the hand)
            a = ds.PLAY if ds.PLAY in legal and rng.random() < 0.8 else rng.choice(list(legal))
            s = sh.step(env, s, a)
            hands += int(sh.facts(env, s)["hands_played"]) > before
    assert checked > 10


def same_rules_positions(rng: random.Random, flags: dict, count: int, max_cards: int):
    """Random trick starts (1..max_cards cards a hand, random leader and taken points) under
    one hand's rules (one trump level and suit, one kitty)."""
    rules = position_of(random_ending(rng, 1, flags), flags).rules
    trump = rules.suit[ds.NUM_CARDS - 1]  # a joker: always a trump
    for _ in range(count):
        k = rng.randint(1, max_cards)
        deck = list(range(54))
        rng.shuffle(deck)
        hands = tuple(tuple(sorted(deck[i * k:(i + 1) * k])) for i in range(4))
        leader = rng.randrange(4)
        yield Position(rules, hands, trump, leader, tuple(s % 2 == 1 for s in range(4)),
                       tricks_done=12 - k, taken=5 * rng.randint(0, 4))



def relabelled(rng: random.Random, pos: Position) -> Position:
    """`pos` with some cards in play swapped for cards out of play of the same effective
    suit and points, strictly between the same cards in play (no card in play equal to
    either): the same relative ranks, other cards."""
    r = pos.rules
    hands = [list(h) for h in pos.hands]
    live = {c for h in hands for c in h}
    for h in hands:
        for i, c in enumerate(h):
            ranks = sorted(r.rank[x] for x in live if r.suit[x] == r.suit[c] and x != c)
            if r.rank[c] in ranks:
                continue
            below = max((x for x in ranks if x < r.rank[c]), default=-1)
            above = min((x for x in ranks if x > r.rank[c]), default=1 << 30)
            alts = [x for x in r.ids if x not in live and r.suit[x] == r.suit[c]
                    and r.points[x] == r.points[c] and below < r.rank[x] < above]
            if alts and rng.random() < 0.7:
                x = rng.choice(alts)
                live = (live - {c}) | {x}
                h[i] = x
    return Position(r, tuple(tuple(sorted(h)) for h in hands), pos.trump, pos.leader,
                    pos.side, tricks_done=pos.tricks_done, taken=pos.taken)


def table_key(pos: Position) -> tuple[tuple, int]:
    """(the compiled search's table key of trick start `pos`, the oracle's value less the
    side's taken points where the key leaves them out)."""
    import numpy as np

    from solvers.cpu import multi

    s = multi.Solver(pos)
    key = np.zeros(multi.KEY_LEN, np.int64)
    multi._keys(s.root, s.data, s.cards, s.params, int(s.root[multi.S_TAKEN]), key)
    return (tuple(key[:multi.K_RANKS]),
            rd.value(pos) - (0 if s.params[multi.P_KEY_TAKEN] else pos.taken))


def test_DBF_cpu_relative_rank_keys_are_exact():
    """The compiled search's table key (relative ranks: per effective suit the holders and
    point codes of the cards in play, strongest first, `multi._keys`) is exact: positions of
    one hand's rules bucketed by key all have the oracle's value (less the side's taken
    points where the key leaves them out); and a position with cards swapped for others of
    the same relative rank and points (`relabelled`) has the same key and value."""
    swapped = 0
    for g, flags in enumerate(FLAGS):
        rng = random.Random(100 + g)
        seen: dict[tuple, tuple[int, Position]] = {}
        for pos in same_rules_positions(rng, flags, 150, 3):
            key, want = table_key(pos)
            if key in seen:
                assert want == seen[key][0], (pos, seen[key][1])
            seen[key] = (want, pos)
            other = relabelled(rng, pos)
            if other.hands != pos.hands:
                assert table_key(other) == (key, want), (pos, other)
                swapped += 1
    assert swapped > 300


def swapped(rng: random.Random, pos: Position) -> Position:
    """`pos` with one to three pairs of cards of one effective suit and equal points
    swapped between two seats: the same table class (suit lengths and point cards of each
    hand), other holders."""
    r = pos.rules
    hands = [list(h) for h in pos.hands]
    for _ in range(rng.randint(1, 3)):
        a, b = rng.sample(range(r.n), 2)
        pairs = [(x, y) for x in hands[a] for y in hands[b]
                 if r.suit[x] == r.suit[y] and r.points[x] == r.points[y]]
        if pairs:
            x, y = rng.choice(pairs)
            hands[a][hands[a].index(x)], hands[b][hands[b].index(y)] = y, x
    return Position(r, tuple(tuple(sorted(h)) for h in hands), pos.trump, pos.leader,
                    pos.side, tricks_done=pos.tricks_done, taken=pos.taken)


def test_DBF_23_26_cpu_partition_entries_hold_for_their_positions():
    """Partition search (`multi_table`): an entry rests on the top k cards of each suit
    and answers for every position of its class that matches them. After a search, trick
    starts with cards of one suit and points swapped between seats (`swapped`: the same
    class) that an entry answers for get bounds the oracle's value lies within; many are
    answered, most by entries resting on fewer than all their cards."""
    from solvers.cpu import multi

    answered = partial = 0
    hits = np.zeros(5, np.int64)
    key = np.zeros(multi.KEY_LEN, np.int64)
    for g, flags in enumerate(FLAGS):
        rng = random.Random(500 + g)
        for pos in same_rules_positions(rng, flags, 40, 4):
            s = multi.Solver(pos)
            s.value()
            for _ in range(12):
                other = swapped(rng, pos)
                if other.hands == pos.hands:
                    continue
                st = s._state(other)
                multi._keys(st, s.data, s.cards, s.params, other.taken, key)
                rem = int(multi._rem(st, s.params))
                multi.mt.probe(s.tt, key[:multi.K_CODES], key[multi.K_CODES:multi.K_RANKS],
                               -1, rem + 1, rem, hits)
                if hits[2] < 0 and hits[3] < 0:
                    continue
                value = rd.value(other) - other.taken
                assert hits[0] <= value <= hits[1], (pos, other, hits)
                answered += 1
                full = multi._ks(np.full(4, -1), key)  # every card in play
                partial += any(e >= 0 and s.tt[1][e, multi.mt.E_KS] != full
                               for e in hits[2:])
    assert answered > 200 and partial > 100, (answered, partial)


def test_DBF_cpu_sure_points_never_wrong():
    """The compiled search's sure points (`multi._sure`: the leader's side's masters of a suit
    led together, not ruffable, with the fewest points each other seat can play to them)
    bound the oracle's value: at least `taken` + sure points where the leader's side is the
    side, at most `taken` + what is in play - sure points where it is the other side; and
    the bound is above nothing in many positions."""
    from solvers.cpu import multi

    some = 0
    for g, flags in enumerate(FLAGS):
        rng = random.Random(300 + g)
        for pos in same_rules_positions(rng, flags, 100, 3):
            for p in (pos, pos.other_side()):
                s = multi.Solver(p)
                sure = multi._sure(s.root, s.data, s.cards, s.params, s.side_arr)[0]
                rem = int(multi._rem(s.root, s.params))
                value = rd.value(p)
                if p.side[p.leader]:
                    assert value >= p.taken + sure, (p, sure)
                else:
                    assert value <= p.taken + rem - sure, (p, sure)
                some += sure > 0
    assert some > 100


def test_DBF_cpu_small_table_equals_reference():
    """With a table of at most 16 entries (a full table drops those of the fewest cards in
    play, `multi_table._evict`), the compiled search's values still equal the oracle's; some of
    the positions fill it many times over."""
    from solvers.cpu import multi

    full = 0
    for pos in random_positions(random.Random(77), 80, 4):
        s = multi.Solver(pos, max_entries=16)
        assert s.value() == rd.value(pos)
        assert multi.mt.size(s.tt) <= 16
        full += int(s.nodes[1]) > 100
    assert full > 5


def test_DBF_cpu_recursive_search_keeps_one_signature():
    """`multi._ab` recurses and is cached: numba loads it back safely only while its recursion
    stays within one signature (its comment), so every call of the solver (every move's value,
    mid-trick roots, a node limit, threads) compiles that one."""
    from solvers.cpu import multi

    positions = list(random_positions(random.Random(3), 8, 4))
    multi.solve_many(positions, all_moves=True, threads=2)
    multi.Solver(positions[0], limit=np.array([10**9])).value()
    assert len(multi._ab.signatures) == 1


def test_DBF_cpu_node_limit_gives_up():
    """A search past its node limit raises `GivenUp` and spends the solver; another thread
    lowering the limit to 0 stops a long search (a whole hand) at once; a limit it stays
    within changes nothing."""
    import threading
    import time

    from solvers import bench
    from solvers.cpu import multi

    pos = next(p for p in random_positions(random.Random(5), 40, 4)
               if multi.solve(p)[2] > 200)
    s = multi.Solver(pos, limit=np.array([100]))
    with pytest.raises(multi.GivenUp, match="given up after 1[0-9][0-9] nodes"):
        s.value()
    with pytest.raises(multi.GivenUp, match="not usable"):
        s.value()
    assert multi.Solver(pos, limit=np.array([10**9])).value() == rd.value(pos)
    whole = bench.dbf_positions(1, 12, 0)[0]  # takes minutes
    limit = np.array([np.iinfo(np.int64).max])
    threading.Timer(0.2, limit.fill, (0,)).start()
    t = time.perf_counter()
    with pytest.raises(multi.GivenUp):
        multi.Solver(whole, limit=limit).value()
    assert time.perf_counter() - t < 60


def test_DBF_bench_capped_rows():
    """`--set dbf_cap=S`: hands side by side, each given up after S seconds; the report
    counts the hands solved and marks a percentile at the cap as a floor."""
    from solvers import bench

    r = bench.bench_solver(deals=0, cards=3, lanes=16, gonin_deals=0, gonin_cards=2, seed=0,
                           threads=2, baseline=False, dbf_deals=3, dbf_cards=4, dbf_cap=60)
    d = r["cpu_dbf"]
    assert d["solved"] == 3 and d["solves_per_s"] > 0
    table = bench.format_bench(r)
    assert "(multi-card), 2 threads side by side, 60 s cap |" in table
    assert "(3 of 3 solved within 60 s, 2 side by side)" in table
    d = bench._cpu_dbf_capped(bench.dbf_positions(1, 12, 0), 0.3, 1)
    assert d["solved"] == 0 and d["p99_seconds"] == d["max_seconds"] == 0.3
    assert d["values"] == [None]
