"""Konkan's half of the differential test (`tests.harness.differential`): one `KonRef` plays
the engine's whole game (`n_rounds` rounds), fed each round's deck order and dealer from the
engine's summary (`deck`, `dealer`; KON-E16), its `facts()` compared under the engine's names
at every step: every `kanjax.games.konkan.spec.SUMMARY_KEYS` field, the mover, the legal mask, the
scores (the same keys after the game's end).

Uniform random play almost never opens with 51 (KON-14), so the players are steered three
ways, all compared step by step like any other play:
- `prefer` (jittable, from the legal mask and the state's header): at a turn's start take the
  top discard when it may (KON-E11 says a completion exists), sometimes request (KON-27), else
  draw; in PHASE_ACT retrieve jokers when it can, pick the taken card first, mostly extend a
  selection rather than lay it, mostly start a meld (an opened player) rather than discard;
- `steer` (host side, `Steering`): planned openings for unopened takers and for half the other
  unopened players, the taken card placed by opened takers, konkans and hands;
- `init`: a konkan (KON-25) needs fourteen cards of exactly a run of 10 or 11 and a set of 4
  or 3, which random deals never hold: one game in `STACK` (`STACK_ROUNDS` in a game of
  several rounds: KON-26) is dealt with such a hand for the seat that moves first (KON-11).
"""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.games.konkan import spec as ks
from kanjax.games.konkan.reference import KonRef
from tests.games.konkan.helpers import plan_konkan, plan_opening, plan_placing

COMPARED = ("current_player", *ks.SUMMARY_KEYS)
A = ks.NUM_ACTIONS
IDS = np.arange(A)
PICKS = IDS < ks.RUN
FINISH = (IDS >= ks.RUN) & (IDS < ks.DISCARD)
RETRIEVES = (IDS >= ks.RETRIEVE) & (IDS < ks.DISCARD)
DISCARDS = (IDS >= ks.DISCARD) & (IDS < ks.DRAW)
STACK = 8  # one game in STACK starts with a konkan hand for the first mover ...
STACK_ROUNDS = 3  # ... one in STACK_ROUNDS of a game of several rounds (KON-26 in round 1)

# the policy's bias (`prefer`): how often it prefers each kind of action where one is legal
P_REQUEST = 0.01  # per turn start where the request is legal (KON-27)
P_TAKE = 0.8  # an opened player
P_TAKE_REQUESTER = 0.3  # a konkan requester (who may always take, KON-27: rounds go long)
P_TAKE_UNOPENED = 0.5  # an unopened player (the steering lays a planned opening)
P_RETRIEVE = 0.9
P_PICK_TAKEN = 0.9  # pick the taken card first (KON-16)
P_LAY = 0.15  # an opened player lays a selection that could be laid rather than extend it
P_LAY_UNOPENED = 0.5  # an unopened player: short melds are worth little, long ones too much
P_MELD = 0.6  # start a selection rather than discard (an opened player)
P_MELD_UNOPENED = 0.15  # the same unopened (the steering plans most openings)
P_MELD_REQUESTER = 0.1  # the same for a konkan requester (only a konkan's parts, KON-27)
P_MELD_FUTILE = 0.05  # the same for an unopened player whose pickable cards are worth too
# little for the opening (the sum of their values, a joker 11, is below opening_min)
# the steering's plans (`Steering`, host side)
P_PLAN = 0.5  # an unopened player (not a taker) plans an opening at his turn's table start
P_HAND = 0.3  # a planned opening is a whole hand (KON-24) where there is one
P_KONKAN = 0.5  # a first mover who holds a konkan lays it (else the cards as a hand)
PLAN_BUDGET = 300  # nodes of a planned opening's search (a taker's: 100 times more)
VALUE = np.array([ks.rank_value(ks.rank_of(t)) for t in range(ks.JOKER)] + [11])


def _one(action: int) -> np.ndarray:
    return IDS == action


class KonAdapter:
    # the batched step compiled at XLA's level 1, not the test run's 0: about 3 CPU-seconds more
    # a config, its play 8 times faster (a config's 500 games: about 8 CPU-seconds less)
    step_options = {"xla_backend_optimization_level": 1}

    def rare_actions(self, env) -> tuple[int, ...]:
        return ()

    def reference(self, env, first: dict) -> KonRef:
        return KonRef(env.config)

    def feed(self, ref: KonRef, s: dict) -> None:
        if ref.needs_deal:  # KON-E1: the round's deck order and dealer (KON-5)
            ref.deal([int(t) for t in s["deck"]], int(s["dealer"]))

    def facts(self, ref: KonRef) -> dict:
        return ref.facts()

    def compared(self, env) -> tuple[str, ...]:
        return COMPARED

    def final(self, env) -> tuple[str, ...]:
        return COMPARED

    def engine_facts(self, s: dict) -> dict:
        return s

    # ---- the players' steering: the policy's bias and the stacked deals (jittable), plans -----
    def prefer(self, env, state, key) -> jax.Array:
        """The preferred actions of this step: the first tier (in order) that holds a legal
        action and whose coin comes up; none: the plain random choice."""
        g = env._unpack(state)  # the header's named fields (cheaper to compile than summary)
        mask = state.legal_action_mask
        draw_phase = g["phase"] == ks.PHASE_DRAW
        selecting = state._sel.astype(jnp.int32).sum() > 0
        taken = g["taken"]
        cur = jnp.clip(state.current_player.astype(jnp.int32), 0, env.n - 1)
        requester = ((g["requested"] >> cur) & 1) == 1
        pick_taken = jnp.asarray(PICKS) & (jnp.arange(A) == taken) & ~requester
        opened = ((g["opened"] >> cur) & 1) == 1
        hand = state._hands[cur].astype(jnp.int32)
        bound = (hand * jnp.asarray(VALUE) * mask[:ks.NUM_TYPES]).sum()
        futile = ~opened & (bound < env.config.opening_min)
        p_meld = jnp.select([requester, futile, ~opened],
                            [P_MELD_REQUESTER, P_MELD_FUTILE, P_MELD_UNOPENED], P_MELD)
        lay = jnp.asarray(FINISH) & selecting
        tiers = [
            (draw_phase, _one(ks.REQUEST), P_REQUEST),
            (draw_phase, _one(ks.TAKE), jnp.select([requester, opened],
                                                   [P_TAKE_REQUESTER, P_TAKE], P_TAKE_UNOPENED)),
            (draw_phase, _one(ks.DRAW), 1.0),
            (~draw_phase, RETRIEVES, P_RETRIEVE),
            (~draw_phase, pick_taken, P_PICK_TAKEN),
            (~draw_phase, lay, jnp.where(opened, P_LAY, P_LAY_UNOPENED)),
            (~draw_phase, PICKS, jnp.where(selecting, 1.0, p_meld)),
            (~draw_phase, DISCARDS, 1.0),
        ]
        coins = jax.random.uniform(key, (len(tiers),))
        chosen = jnp.zeros(A, bool)
        found = jnp.bool_(False)
        for (when, acts, p), coin in zip(tiers, coins, strict=True):
            hit = when & ~found & (coin < p)
            cand = jnp.asarray(acts) & mask
            hit &= cand.any()
            chosen = jnp.where(hit, cand, chosen)
            found |= hit
        return chosen

    def init(self, env, key) -> jax.Array:
        """`env.init(key)`, or in one game in STACK (STACK_ROUNDS in a game of several rounds)
        the same deal but for the first mover's cards (KON-6, KON-11): a konkan hand (a run
        of 10 and a set of 4, or 11 and 3; a run card a joker half the time) and one card of
        the shuffled rest."""
        state = env.init(key)  # only its deck and dealer are used
        k_stack, k_len, k_suit, k_start, k_rank, k_skip, k_joker, k_jpos = jax.random.split(
            jax.random.fold_in(key, 0x5AC), 8)
        n = env.n
        deck = state._deck.astype(jnp.int32)
        dealer = env._unpack(state)["dealer"]
        length = jnp.where(jax.random.bernoulli(k_len), 11, 10)
        suit = jax.random.randint(k_suit, (), 0, 4)
        start = jax.random.randint(k_start, (), 0, 15 - length)  # positions start..start+L-1
        rank = jax.random.randint(k_rank, (), 0, 13)
        skip = jax.random.randint(k_skip, (), 0, 4)  # the suit a set of 3 lacks
        pos = jnp.arange(11)
        run = suit * 13 + jnp.where(start + pos == 13, 0, start + pos)  # KON-2: 13 = Ace high
        run = jnp.where(jax.random.bernoulli(k_joker) & (pos == jax.random.randint(
            k_jpos, (), 0, 10)), ks.JOKER, run)
        suits = jnp.arange(4)
        sets = jnp.where((length == 10) | (suits != skip), suits * 13 + rank, -1)
        hand = jnp.concatenate([jnp.where(pos < length, run, -1), sets])  # 14 cards, -1 pad
        hand = hand[jnp.argsort(hand < 0, stable=True)][:14]
        want = jnp.zeros(ks.NUM_TYPES + 1, jnp.int32).at[jnp.where(hand < 0, ks.NUM_TYPES,
                                                                   hand)].add(1)[:-1]
        # the deck less the hand: the first copies of its types in deck order go
        seen = (deck[:, None] == deck[None, :]) & (jnp.arange(106)[None, :] < jnp.arange(
            106)[:, None])
        gone = seen.sum(1) < want[deck]
        rest = deck[jnp.argsort(gone, stable=True)]  # the 92 cards left, in deck order
        k = jnp.arange(ks.DECK_SIZE)
        # seat d + 1 gets cards 0, n, .., 13n (the hand) and 14n (a card of the rest)
        mine_hand = (k < ks.HAND_SIZE * n) & (k % n == 0)
        other_idx = jnp.cumsum(~mine_hand) - 1
        stacked = jnp.where(mine_hand, hand[jnp.clip(k // n, 0, 13)], rest[jnp.clip(
            other_idx, 0, 91)])
        every = STACK if env.config.n_rounds == 1 else STACK_ROUNDS
        stack = jax.random.randint(k_stack, (), 0, every) == 0
        return env._deal_state(jnp.where(stack, stacked, deck), dealer, jnp.int32(1))

    def steer(self, env, seed: int) -> Steering:
        return Steering(env.config, seed)


def table(s: dict, lane: int) -> list[tuple]:
    """Game `lane`'s table melds in slot order, as the reference's meld tuples."""
    out = []
    for m in range(int(s["melds"][lane])):
        cells = tuple(s["meld_cards"][lane][m].tolist())
        if s["meld_kind"][lane][m] == ks.RUN_MELD:
            out.append((ks.RUN_MELD, int(s["meld_suit"][lane][m]), cells))
        else:
            out.append((ks.SET_MELD, int(s["meld_rank"][lane][m]), cells[:ks.NUM_SUITS],
                        int(s["meld_jokers"][lane][m])))
    return out


class Steering:
    """Host-side plans (`tests.harness.differential`'s `steer`) where random play is hopeless
    or wasteful. An unopened taker (KON-16: he may not discard before an opening that uses the
    card, which random picks sometimes miss for thousands of steps) lays a planned opening
    (`helpers.plan_opening`; a whole hand at times), an opened one places the card
    (`helpers.plan_placing`); other unopened players plan an opening half the
    time (random tries mostly lay melds and retract them); a first mover whose fifteen cards
    hold a konkan (the stacked deals of `KonAdapter.init`) lays it, or the same cards as a
    hand of shorter runs (KON-24). A plan is a sequence of picks and finishing actions,
    dropped when one of them is not legal; the policy plays the rest of the turn."""

    def __init__(self, config: ks.KonConfig, seed: int):
        self.cfg = config
        self.rng = random.Random(seed)
        self.plans: dict[int, list[int]] = {}
        self.planned: dict[int, tuple] = {}  # lane -> the turn it planned last

    def __call__(self, s: dict) -> np.ndarray:
        lanes = len(s["terminated"])
        out = np.full(lanes, -1)
        every = np.arange(lanes)
        p = np.clip(s["current_player"].astype(np.int64), 0, self.cfg.n - 1)
        acting = (s["phase"] == ks.PHASE_ACT) & ~s["terminated"]
        free = acting & (s["selection"].sum(-1) == 0) & ~s["requested"][every, p]
        opened = s["opened"][every, p]
        start = free & ~opened  # unopened, nothing laid this turn
        taker = start & (s["taken"] >= 0)
        placer = free & opened & (s["taken"] >= 0)  # an opened taker
        first = start & (s["turns"] == 0) & (s["hands"][every, p].sum(-1) == ks.MAX_HAND)
        for lane in np.flatnonzero(s["terminated"]).tolist():  # the lane's next game
            self.planned.pop(lane, None)
        for lane in np.flatnonzero(acting).tolist():
            turn = (int(s["round"][lane]), int(s["turns"][lane]), int(p[lane]))
            if (start[lane] or placer[lane]) and self.planned.get(lane) != turn:
                self.planned[lane] = turn
                hand = s["hands"][lane][p[lane]].tolist()
                if placer[lane]:
                    plan = plan_placing(hand, table(s, lane), int(s["taken"][lane]),
                                        self.cfg.take_must_use_card)
                elif taker[lane]:
                    plan = self._opening(hand, int(s["taken"][lane]), PLAN_BUDGET * 100)
                else:
                    plan = self._first(hand) if first[lane] else None
                    if plan is None and self.rng.random() < P_PLAN:
                        plan = self._opening(hand, -1, PLAN_BUDGET)
                self.plans[lane] = [a for mv in plan or ()
                                    for a in [ks.PICK + t for t in mv.sel] + [mv.action]]
            plan = self.plans.get(lane)
            if plan:
                a = plan.pop(0)
                if s["legal_action_mask"][lane][a]:
                    out[lane] = a
                else:
                    self.plans[lane] = []
        return out

    def _opening(self, hand: list[int], taken: int, budget: int):
        if self.rng.random() < P_HAND:
            plan = plan_opening(hand, self.cfg, taken, self.rng, True, PLAN_BUDGET)
            if plan:
                return plan
        return plan_opening(hand, self.cfg, taken, self.rng, False, budget)

    def _first(self, hand: list[int]):
        if plan_konkan(hand, -1) is None:
            return None
        if self.rng.random() < P_KONKAN:
            return plan_konkan(hand, -1)
        return plan_opening(hand, self.cfg, -1, self.rng, True, PLAN_BUDGET * 100, max_run=9)


ADAPTER = KonAdapter()
