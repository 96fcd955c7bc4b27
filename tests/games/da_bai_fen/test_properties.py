"""Properties of the Da Bai Fen reference over random legal play from random deck orders.

A biased random policy makes the rare branches fire: multi-leads of 2-4 cards (often of the
strongest cards, so that some are valid), invalid multi-leads, exposures (some games never
expose, so open deals get annulled), discards of trumps first (so that claims happen), claims,
and Duns whenever a quad is in the leader's hand. Every step checks: 54 cards conserved, 100
points conserved in play, a legal action until the end, `turn_done` False only inside a
selection, levels moving as the tables say, and the game's bounds.
"""

from __future__ import annotations

import collections
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.reference import (
    TRUMP,
    DbfRef,
    is_quad,
    last_trick_gain,
    points_of,
    quads_in,
    table_result,
    valid_multilead,
)

from .helpers import whole_plays

CONFIGS = [
    {"target_level": 5, "max_hands": 10},
    {"target_level": 6, "max_hands": 10, "jilin": True, "dun_points_protected": True},
    {"target_level": 5, "max_hands": 10, "invalid_multilead": "mask", "step20": True,
     "tie_at_40": True, "first_starter": 3},
    {"start_level": 9, "target_level": 12, "max_hands": 10, "jilin": True,
     "changchun_kitty": True, "kitty_mult_last_trick": True, "jilin_dun": True},
]
RARE = ("multi2", "multi3", "multi4", "invalid", "claim", "open", "no_exposer", "dun", "expose")


class Policy:
    """Random legal choices, biased towards the rare branches; counts what fired."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        # Per game: how often to expose, to lead several cards, to discard trumps first.
        self.p_expose = rng.choice((0.0, 0.1, 0.5))
        self.p_multi = rng.choice((0.0, 0.02, 0.1, 0.4))
        self.void_trumps = rng.random() < 0.5
        self.plan: list[int] = []  # the rest of a planned Dun
        self.size = 1  # the planned size of the current lead
        self.fired: collections.Counter = collections.Counter()

    def __call__(self, ref: DbfRef) -> int:
        legal, rng, ph = ref.legal_actions(), self.rng, ref.phase
        if ph in (ds.PHASE_DRAW, ds.PHASE_FINAL_PASS):
            return rng.choice(legal[:-1]) if rng.random() < self.p_expose else ds.PASS
        if ph == ds.PHASE_CLAIM:
            return ds.CLAIM if rng.random() < 0.5 else ds.PASS
        if ph == ds.PHASE_DISCARD:
            quads = set().union(*quads_in(ref.hands[ref.current_player]))
            keep = [a for a in legal if a - ds.PICK not in quads] or legal  # Duns to lead
            trumps = [a for a in keep if ref.ranking().is_trump(a - ds.PICK)]
            return rng.choice(trumps if trumps and self.void_trumps else keep)
        if ref.trick:  # a follow: any completable pick
            return rng.choice(legal)
        return self._lead(ref, legal)

    def _lead(self, ref: DbfRef, legal: list[int]) -> int:
        rng = self.rng
        if not ref.selection:
            quads = quads_in(ref.hands[ref.current_player]) if ref.cfg.jilin_dun else []
            self.plan = sorted(rng.choice(quads)) if quads and rng.random() < 0.8 else []
            self.size = rng.choice((2, 3, 4)) if rng.random() < self.p_multi else 1
        if self.plan:
            card = self.plan.pop(0)
            assert ds.PICK + card in legal, "a quad in hand must be leadable as a Dun (V8)"
            return ds.PICK + card
        picks = [a for a in legal if a < ds.PLAY]
        if ds.PLAY in legal and (len(ref.selection) >= self.size or not picks):
            return ds.PLAY
        if rng.random() < 0.7:  # the strongest: masters make valid multi-leads
            return max(picks, key=lambda a: ref.ranking().strength(a - ds.PICK))
        return rng.choice(picks)


def deck_order(rng: random.Random, plant_quad: bool) -> list[int]:
    """A shuffled deck order; with `plant_quad`, often a quad drawn by the starter (who leads
    trick 1 of a later hand), so that Duns get led."""
    order = list(range(ds.NUM_CARDS))
    rng.shuffle(order)
    if plant_quad and rng.random() < 0.5:
        quad = [ds.card_id(s, rng.randrange(13)) for s in range(4)]
        rest = [c for c in order if c not in quad]
        for k, c in zip((0, 4, 8, 12), quad, strict=True):
            rest.insert(k, c)
        order = rest
    return order


def card_sets(ref: DbfRef) -> list[list[int]]:
    undrawn = ref.order[ref.drawn:ds.NUM_DRAWN] if ref.order else list(range(ds.NUM_CARDS))
    trick = [c for _, cards in ref.trick for c in cards]
    return [*map(list, ref.hands), ref.kitty, trick, *map(list, ref.won), undrawn]


def check_step(ref: DbfRef) -> None:
    """Invariants of every state."""
    sets = card_sets(ref)
    if not ref.terminal:  # DBF-1: every card in exactly one place
        assert sum(map(len, sets)) == ds.NUM_CARDS and set().union(*sets) == set(range(54))
    if ref.phase == ds.PHASE_PLAY:  # DBF-2: 100 points, taken, protected or still out
        out = points_of([c for s in sets[:6] for c in s])
        assert sum(ref.points) + ref.protected + out == ds.TOTAL_POINTS
    legal = ref.legal_actions()
    if ref.terminal or ref.needs_deal:
        assert legal == [] and ref.current_player == -1
    else:
        assert legal and legal == sorted(set(legal)) and 0 <= legal[0] < ds.NUM_ACTIONS


def check_hand_end(ref: DbfRef, before: dict) -> None:
    """Levels move only as DBF-31/34, V5, V12, V13 say; P and points add up (DBF-29/30)."""
    decl = before["declaring"]
    opp = 1 - decl
    delta = [ref.levels[t] - before["levels"][t] for t in (0, 1)]
    if ref.outcome in (ds.CLAIMED, ds.NO_EXPOSER, ds.TIE):
        assert delta == [0, 0]
        return
    kitty = points_of(ref.last_kitty)
    if ref.outcome == ds.PENALTY:
        assert ref.P in (0, ds.TOTAL_POINTS + kitty)
    else:
        assert sum(ref.last_points) + ref.last_protected + kitty == ds.TOTAL_POINTS
        assert ref.P == ref.last_points[opp] + ref.kitty_bonus[opp]
    v12 = last_trick_gain(ref.last_points[opp])
    if ref.hook:
        assert ref.levels[decl] == (3 if ref.cfg.yuan_zhu else 2) and delta[opp] in (0, v12)
        return
    gain = table_result(ref.P, ref.cfg.step20)[:2]
    allowed = [gain] + ([(0, v12)] if ref.cfg.jilin_last_trick else [])
    assert (delta[decl], delta[opp]) in allowed


def play_game(seed: int, flags: dict) -> collections.Counter:
    """One random game with every check; returns what fired."""
    rng = random.Random(seed)
    cfg = ds.DbfConfig.from_flags(**flags)
    ref, policy = DbfRef(cfg), Policy(rng)
    steps = hand_steps = 0
    while not ref.terminal:
        if ref.needs_deal:
            policy.fired["open"] += ref.kind == ds.OPEN_DEAL
            ref.deal(deck_order(rng, cfg.jilin_dun))
            hand_steps = 0
            check_step(ref)
            continue
        before = {"levels": list(ref.levels), "declaring": ref.declaring,
                  "player": ref.current_player, "hands": ref.hands_played}
        action = policy(ref)
        if action == ds.PLAY:
            lead = sorted(ref.selection)
            dun = cfg.jilin_dun and is_quad(lead)
            policy.fired["dun" if dun else f"multi{len(lead)}"] += 1
        policy.fired["expose"] += ds.EXPOSE <= action < ds.PASS
        ref.step(action)
        steps, hand_steps = steps + 1, hand_steps + 1
        check_step(ref)
        if not ref.turn_done:  # docs/turns.md: inside a selection the mover moves again
            assert ref.selection and ref.current_player == before["player"]
        if ref.hands_played > before["hands"]:
            check_hand_end(ref, before)
            outcome = ds.OUTCOME_NAMES[ref.outcome]
            policy.fired[{"penalty": "invalid", "claimed": "claim"}.get(outcome, outcome)] += 1
            policy.fired["hook"] += ref.hook
        assert hand_steps <= ds.MAX_HAND_STEPS
    assert steps <= ds.max_game_steps(cfg) and ref.hands_played <= cfg.max_hands
    a, b = ref.levels
    passed = [t for t in (0, 1) if ref.levels[t] > cfg.target_level]
    assert ref.winner == (passed[0] if passed else 0 if a > b else 1 if b > a else -1)
    assert sum(ref.scores) == 0 and set(ref.scores) <= {-1, 0, 1}
    return policy.fired


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), config=st.sampled_from(range(len(CONFIGS))))
def test_random_games_keep_the_invariants(seed, config):
    play_game(seed, CONFIGS[config])


def test_rare_branches_fire():
    """The biased policy reaches every rare branch in a fixed set of games."""
    fired: collections.Counter = collections.Counter()
    for seed in range(8):
        for flags in CONFIGS:
            fired += play_game(seed, flags)
    never = [name for name in RARE if fired[name] == 0]
    assert not never, f"never fired: {never} ({dict(fired)})"


# ---- the mask against the rules' definitions (docs/turns.md: only completable selections) ----
def brute_leads(ref: DbfRef) -> set[frozenset[int]]:
    """DBF-21/23/24, V8 by enumeration."""
    rk, seat = ref.ranking(), ref.current_player
    hand = sorted(ref.hands[seat])
    others = [c for p in range(4) if p != seat for c in ref.hands[p]]
    leads = set()
    for n in range(1, len(hand) + 1):
        for lead in itertools.combinations(hand, n):
            if ref.cfg.jilin_dun and is_quad(lead) or n == 1:
                leads.add(frozenset(lead))
            elif len({rk.eff_suit(c) for c in lead}) == 1 and (
                    ref.cfg.invalid_multilead == "penalty" or valid_multilead(lead, others, rk)):
                leads.add(frozenset(lead))
    return leads


def brute_follows(ref: DbfRef) -> set[frozenset[int]]:
    """DBF-25, V8 by enumeration."""
    rk, lead = ref.ranking(), ref.trick[0][1]
    hand = sorted(ref.hands[ref.current_player])
    if ref.dun and quads_in(hand):
        return set(quads_in(hand))
    led = TRUMP if ref.dun else rk.eff_suit(min(lead))
    k = sum(rk.eff_suit(c) == led for c in hand)
    return {frozenset(f) for f in itertools.combinations(hand, len(lead))
            if sum(rk.eff_suit(c) == led for c in f) == min(k, len(lead))}


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), flags=st.sampled_from(
    [{}, {"invalid_multilead": "mask"}, {"jilin": True}, {"jilin_dun": True, "yuan_zhu": True}]))
def test_mask_allows_exactly_the_whole_plays(seed, flags):
    """Small random positions (6 cards a seat, Duns planted): the plays the mask completes are
    exactly the rules' legal leads, then the legal follows of each follower."""
    rng = random.Random(seed)
    deck = list(range(ds.NUM_CARDS))
    rng.shuffle(deck)
    quad = [ds.card_id(s, rng.randrange(13)) for s in range(4)]
    deck = quad + [c for c in deck if c not in quad]
    if rng.random() < 0.5:  # the quad to seat 1 (a follower) instead of the leader
        deck = deck[4:10] + deck[:4] + deck[10:]
    hands = [deck[6 * p:6 * p + 6] for p in range(4)]
    level = rng.randrange(2, 15)
    cfg = ds.DbfConfig.from_flags(**flags)
    ref = DbfRef.from_position(cfg, hands, level, rng.randrange(4), 0, kitty=deck[24:30])
    leads = whole_plays(ref)
    assert leads == brute_leads(ref)
    valid = [lead for lead in leads if len(lead) == 1 or is_quad(lead)
             or valid_multilead(lead, set().union(*ref.hands[1:]), ref.ranking())]
    lead = rng.choice(sorted(valid, key=sorted))
    for c in sorted(lead):
        ref.step(ds.PICK + c)
    ref.step(ds.PLAY)
    for _ in range(3):
        follows = whole_plays(ref)
        assert follows == brute_follows(ref)
        for c in sorted(rng.choice(sorted(follows, key=sorted))):
            ref.step(ds.PICK + c)
