"""Conquian as a jittable JAX environment (`kanjax.make("conquian")`): a deal, or with
`carry_pot` (the default) the series of deals that settles one stake (CQ-22).

Rules: `docs/rules/conquian.md` (CQ-1..27, CQ-V1/V2); vocabulary (card ids, action ids,
phases, outcomes, locations, `CqConfig`): `kanjax.games.conquian.spec`. Meld questions go to
the rummy kernel `kanjax.games.conquian.meld` (rank words, no search at run time).

A step is a decision; the engine turns stock cards by itself (CQ-10, CQ-12). A TAKE with hand
cards is a turn of several actions (docs/turns.md): `pick c` stages hand card c, `take` melds
E with the selection. Between steps:
- the mover facing E (`PHASE_FACE`) may pick a hand card when some legal take contains the
  selection with it (the kernel's `cover`: the meld, E and the selection required, the rest of
  the hand optional), `take` when the meld, E and the selection split into melds, and refuse
  (`pass` a fresh E, `decline` an offered one) with an empty selection unless a DEMAND sent him;
- a refusal of an E that fits the refuser's meld alone (exactly when `take` was legal with
  no selection) asks the other seat to `demand` or `waive` (CQ-15, CQ-24); a demanded take is
  the same turn of picks and `take` without the refusals;
- after a take (`PHASE_DISCARD`): `discard x`, or `layoff x` onto the opponent's meld when his
  meld with x splits and he holds a card (CQ-16); a layoff sends him to
  `PHASE_FORCED_DISCARD`, whose discard is offered to the player who laid off;
- a decline turns E dead and the decliner turns the next stock card; from an empty stock the
  deal is drawn (CQ-20). A take that empties the hand wins (CQ-18).
- with `carry_pot`, a drawn deal is followed within the step by the next deal of the series,
  shuffled from the step's key and dealt by the other seat (CQ-4), one stake more in the pot;
  the decided deal pays its winner 1 + the pot (CQ-22). `max_deals` drawn deals end the series
  at 0 each. `chance_index` counts the deals, so duplicate seatings get the same series.

State (`CqState`): `_loc` int8[40] (spec LOC_* per card), `_place` int8[40] (the card's
place in the deck order: the deal and the stock order, CQ-5), `_picked` bool[40] (the take's
selection), `_h` int8 header (`LAYOUT`): phase, dealer, E, fresh, forced, refusal, stock cards
turned, outcome, winner, turn_done, deal_done, pot; `_w` int32: deals dealt before this one.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import (
    Array,
    ObservationSpec,
    ObsField,
    State,
    common_summary,
    jitted,
    register_state,
)
from kanjax.capabilities import Benchmarked, Bots, TournamentViews, Views
from kanjax.core.cards import Deal, format_deal
from kanjax.core.deal_fields import deck_places, read_deal
from kanjax.core.jaxutil import tree_where, update_lanes
from kanjax.core.layout import Layout
from kanjax.core.match import DealSeries
from kanjax.core.scenes import label, legal_names, shows_mover, status, to_act
from kanjax.games.conquian import meld
from kanjax.games.conquian import spec as cq
from kanjax.scene import Group, Scene, Seat

N = cq.NUM_CARDS
IDS = np.arange(N)
LAYOUT = Layout([(k, None) for k in (
    "phase", "dealer", "exposed", "fresh", "forced", "refusal", "turned", "outcome", "winner",
    "turn_done", "deal_done", "pot")], [("dealt", None)], name="conquian")
DEAL_FIELDS = ("dealer", "deck")
NO_CARD = -1

OBS_SPEC = ObservationSpec((
    ObsField("hand", N, 0, 1, "1 where the card is in my hand"),
    ObsField("selection", N, 0, 1, "1 where I picked the card for my take"),
    ObsField("my_meld", N, 0, 1, "1 where the card is in my meld"),
    ObsField("their_meld", N, 0, 1, "1 where the card is in the opponent's meld"),
    ObsField("exposed", N, 0, 1, "1 for the exposed card E"),
    ObsField("dead", N, 0, 1, "1 where the card was turned down (CQ-12)"),
    ObsField("me", 1, 0, 1, "my seat"),
    ObsField("current_player", 1, -1, 1, "the seat to act, -1 at the end"),
    ObsField("dealer", 1, 0, 1, "the dealer's seat"),
    ObsField("phase", 1, 0, len(cq.PHASE_NAMES) - 1, "spec PHASE_*"),
    ObsField("fresh", 1, 0, 1, "E was turned from the stock this turn"),
    ObsField("forced", 1, 0, 1, "the mover was sent a demand (CQ-15)"),
    ObsField("refusal", 1, -1, cq.DECLINE, "in the respond phase: the refused action id"),
    ObsField("stock_left", 1, 0, cq.STOCK_SIZE, "cards left in the stock"),
    ObsField("their_hand", 1, 0, cq.HAND_SIZE, "cards in the opponent's hand"),
    ObsField("outcome", 1, cq.IN_PLAY, cq.DRAWN, "spec IN_PLAY / WON / DRAWN"),
    ObsField("winner", 1, -1, 1, "the winner's seat, -1"),
    ObsField("pot", 1, 0, cq.MAX_MAX_DEALS, "drawn deals carried by the pot (CQ-22)"),
))


@register_state
@dataclasses.dataclass(frozen=True)
class CqState(State):
    _loc: Array
    _place: Array
    _picked: Array
    _h: Array
    _w: Array


def _shuffled(key: Array) -> Array:
    """A uniform deck order: each card's place (CQ-5)."""
    return jnp.argsort(jax.random.permutation(key, N))


def _one_card(card: Array) -> Array:
    """int32[4] words of one card id (none for -1)."""
    return meld.words((IDS == card) & (card >= 0))


class ConquianEnv(DealSeries, Views, TournamentViews, Bots, Benchmarked):
    """Conquian (`conquian`): two players, a deal or a series of deals (`DealSeries`: the
    chance index, the batched dealing). Actions: `spec` (picks, take, pass, decline, demand,
    waive, discards, layoffs)."""

    name = "conquian"
    num_players = 2
    num_actions = cq.NUM_ACTIONS
    card_actions = N
    heuristic = "kanjax.games.conquian.heuristic:make_conquian_heuristic"
    bench_baseline = ("gin_rummy", "decisions")  # the nearest rummy OpenSpiel plays
    bench_kernels = "kanjax.games.conquian.meld:throughput"
    layout = LAYOUT

    def __init__(self, config: cq.CqConfig | None = None) -> None:
        self.config = config = config or cq.CqConfig()
        self.card_deck = cq.DECKS[config.deck]
        self.illegal_action_penalty = config.illegal_action_penalty
        self.max_deals = config.deals
        self.max_steps = config.deals * cq.MAX_DEAL_STEPS
        self.stochastic_step = config.deals > 1  # a drawn deal is followed by a new one

    def __hash__(self) -> int:
        return hash(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConquianEnv) and other.config == self.config

    # ---- the legal mask ---------------------------------------------------------------------
    def _legal(self, loc: Array, picked: Array, g: dict, cur: Array, layoffs: bool) -> Array:
        """The legal mask of the decision (phase `g["phase"]`, mover `cur`); without
        `layoffs`, every `layoff x` is left False (`step_batch` adds them, see there)."""
        hand = loc == cq.LOC_HAND + cur
        phase = g["phase"]
        sel = meld.words(picked)
        req = meld.words(loc == cq.LOC_MELD + cur) | _one_card(g["exposed"]) | sel
        ok, usable = meld.cover(req, meld.words(hand) & ~sel)
        face = phase == cq.PHASE_FACE
        refuse = face & ~g["forced"].astype(bool) & ~picked.any()
        discard = hand & ((phase == cq.PHASE_DISCARD) | (phase == cq.PHASE_FORCED_DISCARD))
        layoff = self._layoffs(loc, cur) & (phase == cq.PHASE_DISCARD) if layoffs else (
            jnp.zeros(N, bool))
        return jnp.concatenate([
            face & ok & meld.cards(usable), (face & meld.partitionable(req))[None],
            (refuse & (g["fresh"] == 1))[None], (refuse & (g["fresh"] == 0))[None],
            jnp.full(2, phase == cq.PHASE_RESPOND), discard, layoff])

    @staticmethod
    def _layoffs(loc: Array, cur: Array) -> Array:
        """bool[40]: the mover's hand cards x with the opponent's meld and x splitting into
        melds, while the opponent holds a card (CQ-16): one check per hand card."""
        hand = loc == cq.LOC_HAND + cur
        slots = jnp.nonzero(hand, size=cq.HAND_SIZE, fill_value=N)[0]
        onto = meld.words(loc == cq.LOC_MELD + 1 - cur)
        fits = meld.partitionable(jax.vmap(_one_card)(slots) | onto)
        fits = jnp.zeros(N, bool).at[slots].max(fits, mode="drop")
        return fits & (loc == cq.LOC_HAND + 1 - cur).any()

    def _add_layoffs(self, s: CqState, _key: Array) -> CqState:
        mask = s.legal_action_mask.at[cq.LAYOFF:].set(self._layoffs(
            s._loc.astype(jnp.int32), s.current_player.astype(jnp.int32)))
        return s.replace(legal_action_mask=mask)

    def step_batch(self, states: CqState, actions: Array, keys: Array) -> CqState:
        """`jax.vmap(self.step)`, bit for bit, with the costly parts made only in the lanes
        that need them: the batch steps without them (`_step` with no key), then
        `update_lanes` adds the layoff checks (ten meld checks) in the lanes that reach a
        discard, max(8, B // 8) at a time, and deals the next deal of a series in the lanes
        whose deal was drawn, max(8, B // 16) at a time."""
        nxt, own = jax.vmap(lambda s, a: self._template(s, a, None))(states, actions)
        phase = nxt._h[..., LAYOUT.head["phase"]]
        b = own.shape[0]
        nxt = update_lanes(own & (phase == cq.PHASE_DISCARD), self._add_layoffs, nxt, keys,
                           max(8, b // 8))
        if self.max_deals == 1:
            return nxt
        return self._deal_lanes(nxt, own, keys)

    # ---- init and step ----------------------------------------------------------------------
    def _state(self, loc, place, picked, g, cur, rewards=None, terminated=None,
               layoffs=True) -> CqState:
        h, w = LAYOUT.pack(g)
        over = g["phase"] == cq.PHASE_OVER
        return CqState(
            current_player=jnp.where(over, -1, cur).astype(jnp.int8),
            legal_action_mask=self._legal(loc, picked, g, cur, layoffs),
            rewards=jnp.zeros(2, jnp.float32) if rewards is None else rewards,
            terminated=over if terminated is None else terminated,
            truncated=jnp.bool_(False),
            illegal_action=jnp.bool_(False),
            step_count=jnp.int32(0),
            _loc=loc.astype(jnp.int8), _place=place.astype(jnp.int8), _picked=picked, _h=h,
            _w=w)

    def _start(self, place: Array, dealer: Array, pot: Array | int = 0, dealt: Array | int = 0,
               ended: Array | int = 0) -> CqState:
        """The deal of deck order `place` (card -> place) by `dealer`: N turns the top stock
        card, fresh for him (CQ-5, CQ-10); `pot` drawn deals before it in the series, `dealt`
        deals dealt before it, `ended` whether this step ended the last one."""
        place = place.astype(jnp.int32)
        dealer = jnp.asarray(dealer, jnp.int32)
        n = 1 - dealer
        loc = jnp.where(place < 2 * cq.HAND_SIZE,
                        cq.LOC_HAND + jnp.where(place % 2 == 0, n, dealer), cq.LOC_STOCK)
        top = place == 2 * cq.HAND_SIZE
        loc = jnp.where(top, cq.LOC_EXPOSED, loc)
        g = dict(phase=cq.PHASE_FACE, dealer=dealer, exposed=jnp.argmax(top), fresh=1,
                 forced=0, refusal=-1, turned=1, outcome=cq.IN_PLAY, winner=-1, turn_done=ended,
                 deal_done=ended, pot=pot, dealt=dealt)
        g = {k: jnp.asarray(v, jnp.int32) for k, v in g.items()}
        return self._state(loc, place, jnp.zeros(N, bool), g, n)

    def _init(self, key: Array) -> CqState:
        """A uniform deck order and, with `dealer=-1`, a uniform dealer (the low cut)."""
        kd, ko = jax.random.split(key)
        dealer = (jax.random.bernoulli(kd).astype(jnp.int32) if self.config.dealer < 0
                  else jnp.int32(self.config.dealer))
        return self._start(_shuffled(ko), dealer)

    def _dealt(self, s: CqState, key: Array) -> CqState:
        """`s`, whose step drew a deal of a series (CQ-20, CQ-22), with the next deal dealt
        from `key` by the other seat (CQ-4) and the pot one stake higher."""
        g = LAYOUT.unpack(s)
        nxt = self._start(_shuffled(key), 1 - g["dealer"], g["pot"] + 1, g["dealt"] + 1, 1)
        return nxt.replace(step_count=s.step_count, truncated=s.truncated)

    def _step(self, s: CqState, action: Array, key: Array) -> CqState:
        """One decision (legal: `Env.step` checked the mask); see the module docstring."""
        g = LAYOUT.unpack(s)
        loc = s._loc.astype(jnp.int32)
        picked = s._picked
        place = s._place.astype(jnp.int32)
        a = action.astype(jnp.int32)
        cur = s.current_player.astype(jnp.int32)
        opp = 1 - cur
        E = g["exposed"]
        is_pick = a < cq.TAKE
        card = jnp.where(a >= cq.LAYOFF, a - cq.LAYOFF, jnp.where(a >= cq.DISCARD,
                                                                 a - cq.DISCARD, a))
        at = IDS == card

        # picks stage a card; take melds E with the selection (CQ-13)
        take = a == cq.TAKE
        picked_after = jnp.where(is_pick, picked | at, picked)
        loc = jnp.where(take & (picked | (IDS == E)), cq.LOC_MELD + cur, loc)
        hand_left = ((loc == cq.LOC_HAND + cur) & ~(take & picked)).sum()
        won = take & (hand_left == 0)

        # refusals: E fitting the refuser's meld alone (take was legal) asks for a response
        refuse = (a == cq.PASS) | (a == cq.DECLINE)
        fits = s.legal_action_mask[cq.TAKE]
        ask = refuse & fits
        waive, demand = a == cq.WAIVE, a == cq.DEMAND
        refuser = jnp.where(refuse, cur, opp)  # a response comes from the refuser's opponent
        refused = jnp.where(refuse, a, g["refusal"])
        # a pass that goes ahead offers E to the other seat; a decline kills E and turns
        passes = (refuse & ~fits & (a == cq.PASS)) | (waive & (refused == cq.PASS))
        declines = (refuse & ~fits & (a == cq.DECLINE)) | (waive & (refused == cq.DECLINE))
        stock_empty = g["turned"] == cq.STOCK_SIZE
        drawn = declines & stock_empty
        turns = declines & ~stock_empty
        top = place == 2 * cq.HAND_SIZE + g["turned"]
        loc = jnp.where(declines & (IDS == E), cq.LOC_DEAD, loc)
        loc = jnp.where(turns & top, cq.LOC_EXPOSED, loc)

        # discards (CQ-13, CQ-16/27) and layoffs (CQ-16)
        discards = (a >= cq.DISCARD) & (a < cq.LAYOFF)
        layoff = a >= cq.LAYOFF
        loc = jnp.where(discards & at, cq.LOC_EXPOSED, loc)
        loc = jnp.where(layoff & at, cq.LOC_MELD + opp, loc)

        over = won | drawn
        last = won | (drawn & (g["dealt"] + 1 >= self.max_deals))  # the series ends
        phase = jnp.select(
            [over, take, ask, layoff, demand | passes | turns | discards, is_pick],
            [cq.PHASE_OVER, cq.PHASE_DISCARD, cq.PHASE_RESPOND, cq.PHASE_FORCED_DISCARD,
             cq.PHASE_FACE, cq.PHASE_FACE], g["phase"])
        nxt = jnp.select([ask | passes & ~waive | discards | layoff, demand, turns],
                         [opp, refuser, refuser], cur)
        exposed = jnp.select([turns, take | declines, discards],
                             [jnp.argmax(top), NO_CARD, card], E)
        g = g | dict(
            phase=phase, exposed=exposed,
            fresh=jnp.select([turns, passes | discards | (exposed < 0)], [1, 0], g["fresh"]),
            forced=jnp.where(demand, 1, jnp.where(is_pick, g["forced"], 0)),
            refusal=jnp.where(ask, a, -1),
            turned=g["turned"] + turns,
            outcome=jnp.select([won, drawn], [cq.WON, cq.DRAWN], g["outcome"]),
            winner=jnp.where(won, cur, g["winner"]),
            turn_done=(~is_pick & ~(take & ~won)).astype(jnp.int32),
            deal_done=over.astype(jnp.int32))
        stake = 1 + g["pot"]  # CQ-22: the drawn deals' stakes go to the winner
        result = jnp.where(won, jnp.where(jnp.arange(2) == cur, stake, -stake), 0)
        s = self._state(loc, place, jnp.where(take | ~is_pick, False, picked_after), g, nxt,
                        result.astype(jnp.float32), last, layoffs=key is not None)
        if key is None or self.max_deals == 1:  # step_batch deals in the lanes that need it
            return s
        return tree_where(over & ~last, self._dealt(s, key), s)

    def turn_done(self, state: CqState) -> Array:
        return state._h[..., LAYOUT.head["turn_done"]] == 1

    # ---- views --------------------------------------------------------------------------------
    def observation_spec(self) -> ObservationSpec:
        return OBS_SPEC

    def _observe(self, s: CqState, player: Array) -> Array:
        g = LAYOUT.unpack(s)
        loc = s._loc.astype(jnp.int32)
        mine = s.current_player == player
        return OBS_SPEC.assemble({
            "hand": loc == cq.LOC_HAND + player,
            "selection": s._picked & mine,
            "my_meld": loc == cq.LOC_MELD + player,
            "their_meld": loc == cq.LOC_MELD + 1 - player,
            "exposed": loc == cq.LOC_EXPOSED,
            "dead": loc == cq.LOC_DEAD,
            "me": player, "current_player": s.current_player, "dealer": g["dealer"],
            "phase": g["phase"], "fresh": g["fresh"], "forced": g["forced"],
            "refusal": g["refusal"], "stock_left": cq.STOCK_SIZE - g["turned"],
            "their_hand": (loc == cq.LOC_HAND + 1 - player).sum(),
            "outcome": g["outcome"], "winner": g["winner"], "pot": g["pot"],
        })

    def summary(self, state: CqState) -> dict[str, Array]:
        """The comparable facts of a state (jittable, batched or not): the reference's
        `facts()` names, `selection` as bool[40], and `place` (the deck order)."""
        g = LAYOUT.unpack(state)
        i8 = jnp.int8
        return {
            **common_summary(state),
            **{k: g[k].astype(i8) for k in ("phase", "dealer", "exposed", "refusal",
                                             "outcome", "winner", "pot")},
            "fresh": g["fresh"] == 1, "forced": g["forced"] == 1,
            "turn_done": g["turn_done"] == 1, "deal_done": g["deal_done"] == 1,
            "dealt": g["dealt"],
            "stock_left": (cq.STOCK_SIZE - g["turned"]).astype(i8),
            "location": state._loc, "selection": state._picked, "place": state._place,
        }

    # ---- tournament views (`kanjax.api.Env`) --------------------------------------------
    # Sides: the seats; roles: the dealer and N, who acts first (CQ-4). The winner wins the
    # deal; a drawn deal has no winner (CQ-20/21).
    version = "1"
    role_names = ("dealer", "non-dealer")
    deal_columns = (("outcome", "string"), ("winner", "int8"), ("melded_0", "int8"),
                    ("melded_1", "int8"), ("stock_left", "int8"))
    worst_score = -1.0  # a lost deal (CQ-21)

    def deal_facts(self, before: CqState, after: CqState) -> dict[str, Array]:
        """The finished deal's sides (seats), roles (dealer / non-dealer), winner, outcome,
        melds and the stock left. A drawn deal followed by the next one of its series (CQ-22)
        is read from `before` (its last step, a decline, changed no meld)."""
        gb, ga = LAYOUT.unpack(before), LAYOUT.unpack(after)
        on = ga["dealt"] > gb["dealt"]  # the series went on to the next deal
        seats = jnp.arange(2)
        loc = jnp.where(on, before._loc, after._loc).astype(jnp.int32)
        winner = jnp.where(on, -1, ga["winner"])
        return {
            "role": (seats != gb["dealer"]).astype(jnp.int8), "side": seats.astype(jnp.int8),
            "won": seats == winner, "counted": jnp.bool_(True),
            "outcome": jnp.where(on, cq.DRAWN, ga["outcome"]).astype(jnp.int8),
            "winner": winner.astype(jnp.int8),
            "melded": (loc[None, :] == cq.LOC_MELD + seats[:, None]).sum(-1).astype(jnp.int8),
            "stock_left": jnp.where(on, 0, cq.STOCK_SIZE - ga["turned"]).astype(jnp.int8),
        }

    def deal_row(self, facts: dict) -> dict:
        """The `deals` columns: outcome (won / drawn), the winner's seat (-1), each seat's
        melded cards and the stock left."""
        outcome = int(facts["outcome"])
        return {"outcome": cq.OUTCOME_NAMES[outcome] if outcome >= 0 else "unfinished",
                "winner": int(facts["winner"]), "melded_0": int(facts["melded"][0]),
                "melded_1": int(facts["melded"][1]), "stock_left": int(facts["stock_left"])}

    def action_name(self, action: int, state: CqState | None = None) -> str:
        return cq.action_name(int(action), self.config.deck)

    def action_from_name(self, name: str, state: CqState | None = None) -> int:
        return cq.action_id(" ".join(str(name).split()), self.config.deck)

    # ---- deal strings -------------------------------------------------------------------------
    def from_deal(self, deal: str, key: Array | None = None) -> CqState:
        """The state at the first decision of a deal given as

        `conquian [dealer=0|1] [deck=spanish|numerals] | <N's 10> | <D's 10> | stock: <20>`

        hands in the order dealt (CQ-5) and the stock top first; the dealer defaults to the
        env's `dealer` flag (0 when it is random), the pack must be the env's. `key` is
        unused."""
        d, f = read_deal(deal, self.name, self.card_deck, DEAL_FIELDS, ("stock",))
        deck = f.choice("deck", tuple(cq.RANKS), self.config.deck)
        if deck != self.config.deck:
            raise ValueError(f"deal field deck={deck}: this env plays the {self.config.deck} "
                             "pack (flag deck)")
        dealer = f.ints("dealer", 1, 0, 1)[0] if "dealer" in f else max(self.config.dealer, 0)
        if len(d.hands) != 2:
            raise ValueError(f"deal has {len(d.hands)} hands: want 2 (the non-dealer's, then "
                             "the dealer's)")
        stock = d.section("stock")
        if stock is None or len(stock) != cq.STOCK_SIZE:
            raise ValueError("deal needs a stock section of 20 cards: '| stock: <cards>'")
        for q, hand in enumerate(d.hands):
            if len(hand) != cq.HAND_SIZE:
                raise ValueError(f"hand {q + 1} has {len(hand)} cards: want 10")
        place = deck_places(self.card_deck, [
            *((c, 2 * i + q) for q, hand in enumerate(d.hands) for i, c in enumerate(hand)),
            *((c, 2 * cq.HAND_SIZE + i) for i, c in enumerate(stock))])
        return jitted(self, "_start")(jnp.asarray(place, jnp.int32), jnp.int32(dealer))

    def deal_string(self, state: CqState) -> str:
        """The deal (unbatched): the hands in the order dealt, the stock top first, the
        dealer and the pack (`from_deal` reads it back at the deal's first decision)."""
        order = np.argsort(np.asarray(state._place).astype(np.int64))
        dealer = int(np.asarray(state._h)[LAYOUT.head["dealer"]])
        hands = (tuple(int(c) for c in order[0:20:2]), tuple(int(c) for c in order[1:20:2]))
        return format_deal(Deal(self.name, (("dealer", str(dealer)), ("deck", self.config.deck)),
                                hands, (("stock", tuple(int(c) for c in order[20:])),)),
                           self.card_deck)

    def _view(self, state: CqState) -> dict[str, np.ndarray]:
        """`summary` of one state as numpy arrays (the text view and the scene read it)."""
        return {k: np.asarray(v) for k, v in jitted(self, "summary")(state).items()}

    def _head(self, s: dict[str, np.ndarray]) -> str:
        return (f"conquian ({self.config.deck})  dealer {int(s['dealer'])}  stock "
                f"{int(s['stock_left'])}  phase {cq.PHASE_NAMES[int(s['phase'])]}")

    def render(self, state: CqState) -> str:
        """The dealer, each hand and meld, E, the dead cards, the stock left, whose turn."""
        s = self._view(state)
        deck = self.card_deck
        loc = s["location"]
        E = int(s["exposed"])
        lines = [self._head(s)]
        for p in range(2):
            lines.append(f"{p}  hand {deck.format_by_suit(np.flatnonzero(loc == p))}   meld "
                         f"{deck.format_by_suit(np.flatnonzero(loc == cq.LOC_MELD + p))}")
        if E >= 0:
            lines.append(f"exposed  {deck.token(E)} ({'fresh' if s['fresh'] else 'offered'})")
        sel = np.flatnonzero(s["selection"])
        if len(sel):
            lines.append(f"selection  {deck.format_hand(sel)}")
        dead = np.flatnonzero(loc == cq.LOC_DEAD)
        if len(dead):
            lines.append(f"dead  {deck.format_hand(dead)}")
        lines.append(self.status_line(state, str, over="deal over"))
        return "\n".join(lines)

    def scene(self, state: CqState, player: int | None = None) -> Scene:
        """Both hands open, or with `player` his alone (the other's a count, his selection
        his own); each seat's meld, E (fresh or offered), the dead cards (turned down, but
        seen), the stock, the deal of the series and its pot (CQ-22), how the deal ended."""
        s = self._view(state)
        deck = self.card_deck
        loc = s["location"]
        mover = to_act(state)

        def tokens(where: np.ndarray) -> tuple[str, ...]:
            return tuple(deck.token(c) for c in deck.sort_hand(np.flatnonzero(where)))

        seats = tuple(Seat(
            p, label(p), self.role_names[int(p != s["dealer"])],
            cards=tokens(loc == cq.LOC_HAND + p) if player in (None, p) else None,
            count=int((loc == cq.LOC_HAND + p).sum()),
            notes=(f"melded {int((loc == cq.LOC_MELD + p).sum())}",), to_act=p == mover)
            for p in range(2))
        table = [Group(f"{label(p)} meld", tokens(loc == cq.LOC_MELD + p)) for p in range(2)]
        E = int(s["exposed"])
        if E >= 0:
            table.append(Group(f"exposed ({'fresh' if s['fresh'] else 'offered'})",
                               (deck.token(E),)))
        if s["selection"].any() and shows_mover(mover, player):
            table.append(Group(f"{label(mover)} picked", tokens(s["selection"])))
        table += [Group("dead", tokens(loc == cq.LOC_DEAD)),
                  Group("stock", (), hidden=int(s["stock_left"]))]
        scores = [f"deal {int(s['dealt']) + 1}  pot {int(s['pot'])}"]
        if mover is None:
            scores.append("result  " + "  ".join(
                f"{label(p)} {float(r):+g}" for p, r in enumerate(np.asarray(state.rewards))))
        outcome = int(s["outcome"])
        last = ("" if outcome == cq.IN_PLAY else f"deal won by {label(int(s['winner']))}"
                if outcome == cq.WON else "deal drawn")
        return Scene(self.name, self._head(s), seats, tuple(table), tuple(scores), mover,
                     legal_names(self, state, player), status(state, "match over", last),
                     player)


def make_conquian(name: str, **flags) -> ConquianEnv:
    return ConquianEnv(cq.CqConfig.from_flags(**flags))
