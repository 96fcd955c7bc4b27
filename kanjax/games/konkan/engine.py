"""Konkan as a jittable JAX environment (`kanjax.make("konkan", **flags)`, flags: `KonConfig`):
a whole game of `n_rounds` rounds in one episode, 2..5 players solo or 4 in pairs.

Rules: `docs/rules/konkan.md` (KON-1..38); the turn, the masks and the summary:
docs/rules/konkan_engine.md (KON-E1..E16), followed to the letter; vocabulary (types, action ids,
phases, outcomes, summary keys, config): `kanjax.games.konkan.spec`. Meld questions go to the kernel
`kanjax.games.konkan.meld` (rank words, windows of positions, half tables; no search at run time).

A step is a decision. A turn: (PHASE_DRAW) `request` in the last round, then `draw` or `take`;
(PHASE_ACT) picks and finishing actions (`run p`, `set`, `layoff m`, `layoff m low`,
`retrieve m`), `retract`, and the `discard` that ends the turn (KON-E1..E14). The round's first
turn starts in PHASE_ACT (KON-11). A turn start where nothing is legal ends the round blocked
inside the step that ended the previous turn (KON-E2); a round that ends deals the next one
inside the same step, from the step's key (`chance_index` counts the rounds dealt, so duplicate
seatings get the same rounds).

The readings taken where the rules are silent, what a step costs and the state's arrays:
docs/rules/konkan_engine.md ("The engine's readings, costs and state").
"""

from __future__ import annotations

import dataclasses
import functools

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
from kanjax.core.deal_fields import read_deal
from kanjax.core.jaxutil import random_ranks, tree_where, update_lanes, update_lanes_batched
from kanjax.core.layout import Layout
from kanjax.core.match import DealSeries
from kanjax.games.konkan import meld as mk
from kanjax.games.konkan import spec as ks
from kanjax.games.konkan import views as kon_views
from kanjax.scene import Scene

T = ks.NUM_TYPES
M = ks.MAX_MELDS
N_DECK = ks.DECK_SIZE
TYPES = np.repeat(np.arange(T), ks.COPIES).astype(np.int32)  # the 106 cards as types
CARD_VALUE = mk.CARD_VALUE  # KON-3, a joker in hand 15
TURN_FLAGS = ("opened_start", "turn_melds", "turn_run", "kr10", "kr11", "ks3", "ks4", "layret",
              "taken_meld", "taken_lay", "laid_any", "acted")
HEAD = ("phase", "dealer", "round", "drawn", "pile_n", "nmelds", "snap_nmelds", "taken",
        "opened", "requested", *TURN_FLAGS, "outcome", "finisher", "turn_done", "deal_done",
        "pending", "ending", "round_over", "winners", "turns", "turn_value", "dealt")


# `_h` int16[len(HEAD)]; `_w` int32[2, 5]: the totals and the last round's scores
LAYOUT = Layout([(k, None) for k in HEAD], [("totals", 5), ("scores", 5)],
                head_dtype=jnp.int16, wide_shape=(2, 5), name="konkan")
RUN_LENGTHS = sum(1 << k for k in range(3, 14))
SET_SIZES = (1 << 3) | (1 << 4)
FULL_1_13 = 0x3FFE  # a run on positions 1..13 is stored on 0..12 (KON-38)
ROUND_MAX = 2 * (2 * ks.JOKER_HAND_VALUE + 12 * 11)  # a bound of one round's score (a hand)
DEAL_FIELDS = ("n", "dealer", "round")
ACT_WIDTH = 8  # meld slots every lane's PHASE_ACT mask reads in `step_batch` (`_finalize_batch`)


@register_state
@dataclasses.dataclass(frozen=True)
class KonState(State):
    _hands: Array
    _sel: Array
    _deck: Array
    _pile: Array
    _mk: Array
    _mo: Array
    _mx: Array
    _mn: Array
    _mj: Array
    _sh: Array
    _sn: Array
    _sj: Array
    _h: Array
    _w: Array


def _bits(flags: Array) -> Array:
    """bool[k] -> an int bitmask."""
    return (flags.astype(jnp.int32) << jnp.arange(flags.shape[-1], dtype=jnp.int32)).sum(-1)


def _unbits(x: Array, n: int) -> Array:
    return ((x >> jnp.arange(n, dtype=jnp.int32)) & 1) == 1


def _top(s: KonState) -> Array:
    """The discard pile's top card (batched or not; meaningless on an empty pile)."""
    n_ = s._h[..., LAYOUT.head["pile_n"]].astype(jnp.int32)
    idx = jnp.clip(n_ - 1, 0, N_DECK - 1)
    return jnp.take_along_axis(s._pile.astype(jnp.int32), idx[..., None], -1)[..., 0]


def _shuffled(key: Array) -> Array:
    """A uniform order of the 106 cards, as types (KON-6)."""
    rank, _ = random_ranks(key, N_DECK)
    return jnp.zeros(N_DECK, jnp.int32).at[rank].set(jnp.asarray(TYPES))


MELD_FIELDS = {"kind": "_mk", "own": "_mo", "key": "_mx", "nat": "_mn", "jok": "_mj"}


def _action_kinds(a: Array) -> dict[str, Array]:
    """Which kind of action `a` is (spec's id blocks), and the finishing kinds grouped."""
    x = {"pick": a < ks.RUN, "run": (a >= ks.RUN) & (a < ks.SET), "set": a == ks.SET,
         "lay": (a >= ks.LAYOFF) & (a < ks.LAYOFF_LOW),
         "low": (a >= ks.LAYOFF_LOW) & (a < ks.RETRIEVE),
         "ret": (a >= ks.RETRIEVE) & (a < ks.DISCARD), "disc": (a >= ks.DISCARD) & (a < ks.DRAW),
         "draw": a == ks.DRAW, "take": a == ks.TAKE, "req": a == ks.REQUEST,
         "retract": a == ks.RETRACT}
    x["new_meld"] = x["run"] | x["set"]
    x["on_table"] = x["lay"] | x["low"] | x["ret"]
    x["finish"] = x["new_meld"] | x["on_table"]
    return x


def _selection_shape(sel: Array) -> dict[str, Array]:
    """The selection `sel` (int32[53]) as words: its suit words `sw` and rank suits `sr`
    (`meld`), its first suit and rank, its cards `k` and jokers `js`."""
    sw, sr = mk.suit_words(sel), mk.rank_suits(sel)
    return {"sw": sw, "sr": sr, "suit": jnp.argmax(sw != 0), "rank": jnp.argmax(sr != 0),
            "k": sel.sum(), "js": sel[ks.JOKER]}


def _pos_bits(x: Array) -> Array:
    return ((x >> jnp.arange(14)) & 1) == 1


def _unshift(x: Array) -> Array:
    """A run on positions 1..13 stored on 0..12 (KON-38)."""
    return (x & 0x1FFF) | ((x >> 13) & 1)


def _new_run(a: Array, ss: dict) -> tuple[Array, Array, Array]:
    """`run p` (KON-E6) with the selection `ss`: (natural positions, joker positions, the
    run's value)."""
    p = a - ks.RUN
    k = ss["k"]
    window = jnp.asarray(mk.RANGE_POS)[jnp.clip(p, 0, 13), jnp.clip(p + k - 1, 0, 13)]
    nat = mk.ranks_to_pos(ss["sw"][ss["suit"]], p > 0)
    value = jnp.where(_pos_bits(window), jnp.asarray(mk.POS_VALUE), 0).sum()
    return nat, window & ~nat, value


def _on_meld(x: dict, m: Array, t: dict, ss: dict) -> dict[str, Array]:
    """A layoff (KON-E7) or retrieval (KON-E8) on meld `m` with the selection `ss`: the
    meld's new naturals and jokers, per case (run / set meld), and the jokers retrieved."""
    nat, jok, k = t["nat"][m], t["jok"][m], ss["k"]
    is_setm = t["kind"][m] == ks.SET_MELD
    occ = nat | jnp.where(t["kind"][m] == ks.RUN_MELD, jok, 0)
    lo, hi = mk.lowest(occ), mk.highest(occ)
    hi_rng = jnp.asarray(mk.RANGE_POS)[jnp.clip(hi + 1, 0, 13), jnp.clip(hi + k, 0, 13)]
    lo_rng = jnp.asarray(mk.RANGE_POS)[jnp.clip(lo - k, 0, 13), jnp.clip(lo - 1, 0, 13)]
    msw = ss["sw"][jnp.clip(t["key"][m], 0, 3)]
    lay_nat = mk.ranks_to_pos(msw, x["lay"])
    rng_ = jnp.where(x["lay"], hi_rng, lo_rng)
    r_rank = mk.lowest(msw)
    rank_pos = jnp.where(r_rank == 0, 1 | (1 << 13), 1 << r_rank)
    ret_bit = jok & rank_pos
    return {"is_setm": is_setm,
            "run_lay": (nat | lay_nat, jok | (rng_ & ~lay_nat)),
            "set_lay": (nat | ss["sr"][jnp.clip(t["key"][m], 0, 12)], jok + ss["js"]),
            "run_ret": (nat | ret_bit, jok & ~ret_bit), "set_ret": (15, 0),
            "gained": jnp.where(x["ret"], jnp.where(is_setm, jok, 1), 0)}


def _table_after(x: dict, a: Array, nmelds: Array, t: dict, ss: dict, cur: Array
                 ) -> tuple[dict, Array, Array]:
    """The table melds `t` after a finishing action (`run p`, `set`, `layoff m`, `layoff m
    low`, `retrieve m`) with the selection `ss`. Returns (melds, jokers gained, the new
    run's value)."""
    m = jnp.clip(jnp.select([x["lay"], x["low"], x["ret"]],
                            [a - ks.LAYOFF, a - ks.LAYOFF_LOW, a - ks.RETRIEVE], 0), 0, M - 1)
    slot = jnp.where(x["new_meld"], jnp.clip(nmelds, 0, M - 1), m)
    run_nat, run_jok, run_value = _new_run(a, ss)
    o = _on_meld(x, m, t, ss)
    lay, setm = x["lay"] | x["low"], o["is_setm"]
    cases = [x["run"], x["set"], lay & ~setm, x["lay"] & setm, x["ret"] & ~setm,
             x["ret"] & setm]
    parts = [(run_nat, run_jok), (ss["sr"][ss["rank"]], ss["js"]), o["run_lay"], o["set_lay"],
             o["run_ret"], o["set_ret"]]
    new_nat = jnp.select(cases, [p[0] for p in parts], t["nat"][slot])
    new_jok = jnp.select(cases, [p[1] for p in parts], t["jok"][slot])
    shift = (x["run"] | (lay & ~setm)) & ((new_nat | new_jok) == FULL_1_13)  # KON-38
    new_nat = jnp.where(shift, _unshift(new_nat), new_nat)
    new_jok = jnp.where(shift, _unshift(new_jok), new_jok)
    at = jnp.arange(M) == slot
    meld_at, new_at = x["finish"] & at, x["new_meld"] & at
    t = {"nat": jnp.where(meld_at, new_nat, t["nat"]),
         "jok": jnp.where(meld_at, new_jok, t["jok"]),
         "kind": jnp.where(new_at, jnp.where(x["run"], ks.RUN_MELD, ks.SET_MELD), t["kind"]),
         "own": jnp.where(new_at, cur, t["own"]),
         "key": jnp.where(new_at, jnp.where(x["run"], ss["suit"], ss["rank"]), t["key"])}
    return t, o["gained"], run_value


def _turn_flags(g: dict, x: dict, ss: dict, sel: Array, run_value: Array, top: Array,
                cur: Array) -> dict:
    """The turn's flags and counters after the action (the selection `sel` before it):
    melds and their value, the konkan parts (KON-27), the table actions, the taken card's
    use, opened and requested seats, the draw and the take."""
    taken = g["taken"]
    has_taken = (taken >= 0) & (sel[jnp.clip(taken, 0, T - 1)] >= 1)
    k, new_meld = ss["k"], x["new_meld"]
    set_value = k * jnp.asarray(mk.RANK_VALUE)[jnp.clip(ss["rank"], 0, 12)]
    lay = x["lay"] | x["low"]
    g["nmelds"] = g["nmelds"] + new_meld
    g["turn_melds"] = g["turn_melds"] + new_meld
    g["turn_value"] = g["turn_value"] + jnp.where(x["run"], run_value,
                                                  jnp.where(x["set"], set_value, 0))
    g["turn_run"] = g["turn_run"] | x["run"]
    g["kr10"] = g["kr10"] | (x["run"] & (k == 10))
    g["kr11"] = g["kr11"] | (x["run"] & (k == 11))
    g["ks3"] = g["ks3"] | (x["set"] & (k == 3))
    g["ks4"] = g["ks4"] | (x["set"] & (k == 4))
    g["layret"] = g["layret"] | x["on_table"]
    g["taken_meld"] = g["taken_meld"] | (new_meld & has_taken)
    g["taken_lay"] = g["taken_lay"] | (lay & has_taken)
    g["laid_any"] = g["laid_any"] | new_meld | lay
    g["acted"] = g["acted"] | x["finish"]
    g["opened"] = jnp.where(new_meld, g["opened"] | (1 << cur), g["opened"])
    g["requested"] = jnp.where(x["req"], g["requested"] | (1 << cur), g["requested"])
    g["drawn"] = g["drawn"] + x["draw"]
    g["taken"] = jnp.where(x["take"], top, taken)
    return g


def _snapshot(s: KonState, x: dict, g: dict, hand: Array, t: dict, cur: Array
              ) -> tuple[Array, dict, tuple[Array, Array, Array], dict]:
    """The snapshot after a draw or take (KON-35), and `retract` restoring it: the mover's
    hand, the table's naturals and jokers, the melds laid this turn removed, the turn's
    flags cleared. Returns (hand, melds, snapshot (hand, naturals, jokers), slots)."""
    i32 = jnp.int32
    snap, back = x["draw"] | x["take"], x["retract"]
    sh = jnp.where(snap, hand, s._sh.astype(i32))
    sn = jnp.where(snap, t["nat"], s._sn.astype(i32))
    sj = jnp.where(snap, t["jok"], s._sj.astype(i32))
    g["snap_nmelds"] = jnp.where(snap, g["nmelds"], g["snap_nmelds"])
    hand = jnp.where(back, sh, hand)
    keep = jnp.arange(M) < g["snap_nmelds"]
    drop = back & ~keep
    t = {"nat": jnp.where(back, jnp.where(keep, sn, 0), t["nat"]),
         "jok": jnp.where(back, jnp.where(keep, sj, 0), t["jok"]),
         "kind": jnp.where(drop, -1, t["kind"]), "own": jnp.where(drop, -1, t["own"]),
         "key": jnp.where(drop, -1, t["key"])}
    g["nmelds"] = jnp.where(back, g["snap_nmelds"], g["nmelds"])
    g["opened"] = jnp.where(back & (g["opened_start"] == 0), g["opened"] & ~(1 << cur),
                            g["opened"])
    g["turn_value"] = jnp.where(back, 0, g["turn_value"])
    for f in TURN_FLAGS:
        if f != "opened_start":
            g[f] = jnp.where(back, 0, g[f])
    return hand, t, (sh, sn, sj), g


def _outcome(g: dict) -> Array:
    """How a player who goes out ends the round (KON-E13, KON-27): a konkan (a run of 10
    and a set of 4, or 11 and 3, laid in the turn, nothing laid before), a hand (all his
    melds this turn) or out."""
    fresh = (g["opened_start"] == 0) & (g["layret"] == 0)
    konkan = fresh & (g["turn_melds"] == 2) & (((g["kr10"] == 1) & (g["ks4"] == 1))
                                               | ((g["kr11"] == 1) & (g["ks3"] == 1)))
    hand_out = fresh & (g["turn_melds"] >= 1)
    return jnp.select([konkan, hand_out], [ks.KONKAN, ks.HAND], ks.OUT)


class KonkanEnv(DealSeries, Views, TournamentViews, Bots, Benchmarked):
    """Konkan (`konkan`): see the module docstring (`DealSeries`: the chance index, the
    batched dealing of the next rounds). Actions: `spec`."""

    name = "konkan"
    num_actions = ks.NUM_ACTIONS
    card_actions = 0
    bench_baseline = ("gin_rummy", "decisions")  # the nearest rummy OpenSpiel plays
    card_deck = ks.DECK
    layout = LAYOUT
    version = "1"
    role_names = ("dealer", "first", "other")
    heuristic = "kanjax.games.konkan.heuristic:make_konkan_heuristic"
    random_bot = "kanjax.games.konkan.random_bot:make_konkan_random"

    def __init__(self, config: ks.KonConfig | None = None) -> None:
        self.config = config = config or ks.KonConfig()
        self.n = n = config.n
        self.num_players = n
        self.illegal_action_penalty = config.illegal_action_penalty
        self.max_deals = config.n_rounds
        self.max_steps = config.n_rounds * config.max_turns_per_round * 64
        self.stock_size = ks.stock_size(n)
        self.deal_columns = (("round", "int8"), ("outcome", "string"), ("finisher", "int8"),
                             ("turns", "int16"), ("stock_left", "int8"),
                             *((f"score_{p}", "int16") for p in range(n)))
        self.obs_spec = self._obs_spec()

    def __hash__(self) -> int:
        return hash(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KonkanEnv) and other.config == self.config

    @property
    def worst_score(self) -> float:
        if self.config.reward == "win":
            return 0.0
        return -float(ROUND_MAX * self.config.n_rounds)

    # ---- helpers --------------------------------------------------------------------------
    def _teams(self) -> np.ndarray:
        return np.array([self.config.team(p) for p in range(self.n)])

    def _unpack(self, s: KonState) -> dict:
        g = LAYOUT.unpack(s)
        return g

    def _owner(self, dealer: Array) -> Array:
        """int32[106]: the seat each card of the deck order is dealt to, -1 for the stock."""
        n = self.n
        k = jnp.arange(N_DECK)
        own = jnp.where(k < ks.HAND_SIZE * n, (dealer + 1 + k) % n, -1)
        return jnp.where(k == ks.HAND_SIZE * n, (dealer + 1) % n, own)

    def _hand_value(self, hands: Array) -> Array:
        return (hands.astype(jnp.int32) * jnp.asarray(CARD_VALUE)).sum(-1)

    # ---- the legal masks ------------------------------------------------------------------
    def _act_mask(self, s: KonState, g: dict, width: int = M) -> Array:
        """PHASE_ACT (KON-E6..E9, KON-E12, KON-E14), reading the first `width` meld slots (the
        melds fill a prefix of the slots: exact where `nmelds` <= `width`)."""
        c = self.config
        cur = g["cur"]
        hand = s._hands[cur].astype(jnp.int32)
        sel = s._sel.astype(jnp.int32)
        requester = _unbits(g["requested"], self.n)[cur]
        meets = (g["turn_value"] >= c.opening_min) & (
            (g["turn_run"] == 1) | (not c.opening_requires_run))
        opened_start = g["opened_start"] == 1
        can_table = (opened_start | meets) & ~requester
        tm = g["turn_melds"]
        kr10, kr11, ks3, ks4 = (g[k] == 1 for k in ("kr10", "kr11", "ks3", "ks4"))
        req_runs = jnp.where(tm == 0, (1 << 10) | (1 << 11),
                             jnp.where((tm == 1) & ks4, 1 << 10,
                                       jnp.where((tm == 1) & ks3, 1 << 11, 0)))
        req_sets = jnp.where(tm == 0, SET_SIZES, jnp.where((tm == 1) & kr10, 1 << 4,
                                                            jnp.where((tm == 1) & kr11, 1 << 3, 0)))
        run_lengths = jnp.where(requester, req_runs, RUN_LENGTHS)
        set_sizes = jnp.where(requester, req_sets, SET_SIZES)
        m = mk.act_masks(hand, sel, s._mk[:width], s._mx[:width], s._mn[:width], s._mj[:width],
                         jnp.bool_(True), run_lengths, set_sizes, can_table)
        rest = jnp.zeros(M - width, bool)
        nh = hand.sum()
        empty = sel.sum() == 0
        taken = g["taken"]
        konkan = (~opened_start & (g["layret"] == 0) & (tm == 2)
                  & ((kr10 & ks4) | (kr11 & ks3)))
        c14 = opened_start | (tm == 0) | meets | (konkan & (nh == 1))
        if c.take_must_use_card:
            used = (g["taken_meld"] == 1) | (opened_start & (g["taken_lay"] == 1))
        else:
            used = g["laid_any"] == 1
        c16 = (taken < 0) | requester | used
        c27 = ~requester | (tm == 0) | ((tm == 2) & (nh == 1))
        placed = (g["taken_meld"] == 1) | (g["taken_lay"] == 1)
        c18 = (jnp.arange(T) != taken) | placed
        discard = empty & (hand >= 1) & c14 & c16 & c27 & c18
        retract = empty & (g["acted"] == 1) & ~discard.any()
        return jnp.concatenate([
            m["pick"], m["run"], m["set"][None], m["layoff"], rest, m["layoff_low"], rest,
            m["retrieve"], rest, discard, jnp.zeros(3, bool), retract[None]])

    def _take_who(self, s: KonState) -> tuple[Array, Array, Array, Array, Array]:
        """At a turn start: the mover's hand (int32[53]), the top discard, and which KON-E11
        case the take mask is: the requester's (the pile has a card), an opened player's
        (`_take_opened`), an unopened one's (`_take_bound`, then maybe the exact search)."""
        g = self._unpack(s)
        cur = s.current_player.astype(jnp.int32)
        pile = g["pile_n"] > 0
        requester = _unbits(g["requested"], self.n)[cur]
        opened = _unbits(g["opened"], self.n)[cur]
        return (s._hands[cur].astype(jnp.int32), _top(s), pile & requester,
                pile & ~requester & opened, pile & ~requester & ~opened)

    def _take_opened(self, hand: Array, top: Array, melds: tuple) -> Array:
        return mk.opened_take(hand, top, *melds, self.config.take_must_use_card)

    def _take_bound(self, cards: Array, top: Array) -> Array:
        c = self.config
        return mk.opening_bound(cards, top, c.opening_min, c.opening_requires_run,
                                c.take_must_use_card)

    def _exact(self, cards: Array, top: Array, active: Array) -> Array:
        """The exact opening search (KON-E11) of the `active` lanes of a batch (B = 1: the
        step's own), up to 64 set choices a trip: melds with the taken card c leaving a card,
        or, without `take_must_use_card`, melds of the cards other than c's type leaving one
        of them (the turn can end: c is not discarded unless placed,
        docs/rules/konkan_engine.md)."""
        c = self.config

        def search(lanes: tuple[Array, Array], valid: Array) -> Array:
            cards, top = lanes
            b = cards.shape[0]
            run = functools.partial(mk.opening_batch, c=top, opening_min=jnp.full(
                b, c.opening_min), active=valid, need_run=c.opening_requires_run,
                width=min(64, mk.CHUNK * b))
            found = run(cards, need_c=True)
            if not c.take_must_use_card:
                found |= run(cards.at[jnp.arange(b), top].set(0), need_c=False)
            return found

        B = cards.shape[0]  # the lanes that need it, at most B / 16 at a time
        return update_lanes_batched(active, lambda _old, lanes, valid: search(lanes, valid),
                                    jnp.zeros(B, bool), (cards, top), max(64, B // 16))

    def _finish_draw(self, s: KonState, take: Array) -> KonState:
        """A turn start with its take mask known: the mask, or the round ended blocked
        (KON-E2)."""
        g = self._unpack(s)
        cur = s.current_player.astype(jnp.int32)
        stock = g["drawn"] < self.stock_size
        pile = g["pile_n"] > 0
        request = ((g["round"] == self.config.n_rounds) & ~_unbits(g["opened"], self.n)[cur]
                   & ~_unbits(g["requested"], self.n)[cur] & (stock | pile))
        mask = jnp.zeros(ks.NUM_ACTIONS, bool).at[ks.DRAW].set(stock).at[ks.TAKE].set(
            take).at[ks.REQUEST].set(request)
        blocked = ~(stock | take | request)
        g = g | {"pending": jnp.int32(0), "ending": jnp.where(blocked, 1 + ks.BLOCKED, 0),
                 "finisher": jnp.where(blocked, -1, g["finisher"])}
        return s.replace(legal_action_mask=mask, _h=LAYOUT.pack(g)[0])

    def _resolve(self, s: KonState) -> KonState:
        hand, top, req, opened, unopened = self._take_who(s)
        cards = hand.at[top].add(1)
        ambiguous = unopened & self._take_bound(cards, top)
        exact = self._exact(cards[None], top[None], ambiguous[None])[0]
        take = req | (opened & self._take_opened(hand, top, (s._mk, s._mx, s._mn, s._mj)))
        return self._finish_draw(s, take | (ambiguous & exact))

    # ---- rounds -----------------------------------------------------------------------------
    def _start_round(self, deck: Array, dealer: Array, rnd: Array, g_prev: dict | None,
                     step_count: Array) -> KonState:
        """Round `rnd` dealt from `deck` (int[106] types) by `dealer` (KON-6, KON-E1): seat
        dealer + 1 to act, in PHASE_ACT without a draw (KON-11)."""
        n = self.n
        deck = deck.astype(jnp.int32)
        dealer = jnp.asarray(dealer, jnp.int32)
        own = self._owner(dealer)
        # a scatter-add (the stock's cards, owner -1, dropped): XLA's CPU integer matmul of a
        # one-hot [n, 106] x [106, 53] costs about as much as the rest of a step
        hands = jnp.zeros((n, T), jnp.int32).at[jnp.where(own < 0, n, own), deck].add(
            1, mode="drop")
        first = (dealer + 1) % n
        zeros35 = jnp.zeros(M, jnp.int16)
        g = {k: jnp.int32(0) for k in HEAD}
        g["totals"] = jnp.zeros(5, jnp.int32)
        g["scores"] = jnp.zeros(5, jnp.int32)
        g["outcome"] = jnp.int32(ks.IN_PLAY)
        g["finisher"] = jnp.int32(-1)
        if g_prev is not None:
            for k in ("totals", "scores", "outcome", "finisher", "dealt"):
                g[k] = g_prev[k]
            g["deal_done"] = jnp.int32(1)
            g["turn_done"] = jnp.int32(1)
        g |= {"phase": jnp.int32(ks.PHASE_ACT), "dealer": dealer, "round": jnp.asarray(rnd),
              "taken": jnp.int32(-1)}
        s = KonState(
            current_player=first.astype(jnp.int8),
            legal_action_mask=jnp.zeros(ks.NUM_ACTIONS, bool),
            rewards=jnp.zeros(n, jnp.float32), terminated=jnp.bool_(False),
            truncated=jnp.bool_(False), illegal_action=jnp.bool_(False),
            step_count=jnp.asarray(step_count, jnp.int32),
            _hands=hands.astype(jnp.int8), _sel=jnp.zeros(T, jnp.int8),
            _deck=deck.astype(jnp.int8), _pile=jnp.zeros(N_DECK, jnp.int8),
            _mk=jnp.full(M, -1, jnp.int8), _mo=jnp.full(M, -1, jnp.int8),
            _mx=jnp.full(M, -1, jnp.int8), _mn=zeros35, _mj=zeros35,
            _sh=hands[first].astype(jnp.int8), _sn=zeros35, _sj=zeros35,
            _h=jnp.zeros(len(HEAD), jnp.int16), _w=jnp.zeros((2, 5), jnp.int32))
        return self._pack(s, g)

    @staticmethod
    def _pack(s: KonState, g: dict) -> KonState:
        h, w = LAYOUT.pack(g)
        return s.replace(_h=h, _w=w)

    def _finalize(self, s: KonState, width: int = M) -> KonState:
        """The legal mask of a PHASE_ACT state (picks, finishing actions, discards, retract);
        other states keep theirs. `width`: `_act_mask`'s."""
        g = self._unpack(s) | {"cur": jnp.clip(s.current_player.astype(jnp.int32), 0,
                                               self.n - 1)}
        act = (g["phase"] == ks.PHASE_ACT) & ~s.terminated
        return s.replace(legal_action_mask=jnp.where(act, self._act_mask(s, g, width),
                                                     s.legal_action_mask))

    def _finalize_batch(self, s: KonState) -> KonState:
        """`vmap(_finalize)`: every lane reads the first `ACT_WIDTH` meld slots, the lanes with
        more melds all of them (`update_lanes`; in random play 2-3% of the lanes)."""
        b = s.legal_action_mask.shape[0]
        narrow = jax.vmap(functools.partial(self._finalize, width=ACT_WIDTH))(s)
        wide = s._h[:, LAYOUT.head["nmelds"]] > ACT_WIDTH
        mask = update_lanes(wide, lambda _old, st: self._finalize(st).legal_action_mask,
                            narrow.legal_action_mask, s, max(8, b // 16))
        return s.replace(legal_action_mask=mask)

    def _init(self, key: Array) -> KonState:
        kd, ko = jax.random.split(key)
        dealer = (jax.random.randint(kd, (), 0, self.n) if self.config.dealer < 0
                  else jnp.int32(self.config.dealer))
        return self._finalize(self._start_round(_shuffled(ko), dealer, jnp.int32(1), None,
                                                jnp.int32(0)))

    def _dealt(self, s: KonState, key: Array) -> KonState:
        """`s`, whose step ended a round that is not the game's last, with the next round dealt
        from `key` by the next dealer (KON-5)."""
        g = self._unpack(s)
        g["dealt"] = g["dealt"] + 1
        nxt = self._start_round(_shuffled(key), (g["dealer"] + 1) % self.n, g["round"] + 1, g,
                                s.step_count)
        return nxt.replace(rewards=s.rewards, truncated=s.truncated)

    def _end_round(self, s: KonState) -> KonState:
        """The round ends (KON-22..30, KON-E15) as its header says (`ending` = 1 + outcome,
        `finisher`): scores, totals, the game's end or the next round's deal pending
        (`round_over`)."""
        g = self._unpack(s)
        outcome = g["ending"] - 1
        finisher = g["finisher"]
        c = self.config
        n = self.n
        seats = jnp.arange(n)
        teams = jnp.asarray(self._teams())
        outcome = jnp.asarray(outcome, jnp.int32)
        f = jnp.asarray(finisher, jnp.int32)
        opened = _unbits(g["opened"], n)
        base = jnp.where(opened, self._hand_value(s._hands), 100)
        me = seats == f
        partner = (teams == teams[jnp.clip(f, 0, n - 1)]) & ~me
        opp = ~me & ~partner
        score = jnp.select(
            [outcome == ks.BLOCKED, outcome == ks.OUT, outcome == ks.HAND],
            [base, jnp.where(me, -30, base), jnp.where(me, -60, jnp.where(opp, 2 * base, base))],
            jnp.where(me, -60, jnp.where(opp, 200, 0)))
        totals = g["totals"].at[:n].add(score)
        last = g["round"] >= c.n_rounds
        tot_team = jnp.zeros(n, jnp.int32).at[teams].add(totals[:n])[teams]
        low = tot_team == tot_team.min()
        winners = jnp.where((outcome == ks.KONKAN), teams == teams[jnp.clip(f, 0, n - 1)], low)
        if c.reward == "win":
            rewards = jnp.where(last, winners.astype(jnp.float32), 0.0)
        else:
            rewards = -score.astype(jnp.float32)
        g = g | {"totals": totals, "scores": jnp.zeros(5, jnp.int32).at[:n].set(score),
                 "outcome": outcome, "finisher": f, "deal_done": jnp.int32(1),
                 "turn_done": jnp.int32(1), "pending": jnp.int32(0), "ending": jnp.int32(0),
                 "round_over": (~last).astype(jnp.int32),
                 "winners": jnp.where(last, _bits(winners), 0),
                 "phase": jnp.where(last, ks.PHASE_OVER, g["phase"])}
        h, w = LAYOUT.pack(g)
        return s.replace(_h=h, _w=w, rewards=rewards, terminated=last,
                         current_player=jnp.where(last, -1, s.current_player).astype(jnp.int8))

    # ---- the step ---------------------------------------------------------------------------
    def _step(self, s: KonState, action: Array, key: Array) -> KonState:
        """The action (`_core`), then a new turn's start (`_resolve`: the draw mask, or the round
        ends blocked), the round's end (`_end_round`), the next round's deal from `key`
        (`_dealt`) and the PHASE_ACT mask (`_finalize`). Without a key only `_core`:
        `step_batch` does the rest in the lanes that need it."""
        nxt = self._core(s, action)
        if key is None:
            return nxt
        g = self._unpack(nxt)
        nxt = tree_where(g["pending"] == 1, self._resolve(nxt), nxt)
        g = self._unpack(nxt)
        nxt = tree_where(g["ending"] > 0, self._end_round(nxt), nxt)
        g = self._unpack(nxt)
        nxt = tree_where((g["round_over"] == 1) & ~nxt.terminated, self._dealt(nxt, key),
                         nxt)
        return self._finalize(nxt)

    # ---- the action's effect (`_core`), stage by stage ------------------------------------
    def _core(self, s: KonState, action: Array) -> KonState:
        """The action's effect (legal: `Env.step` checked the mask); a new turn's start is left
        pending (`_resolve`), an ended round's next deal too (`_dealt`). Stages: the
        table (`_table_after`: a new meld, a layoff, a retrieval), the hand and selection
        (`_cards_after`), the turn's flags (`_turn_flags`), the pile, the snapshot and
        `retract` (`_snapshot`), the turn's end (`_turn_end`)."""
        i32, i16, i8 = jnp.int32, jnp.int16, jnp.int8
        a = action.astype(i32)
        x = _action_kinds(a)
        g = dict(self._unpack(s))
        cur = s.current_player.astype(i32)
        sel0 = s._sel.astype(i32)
        t = {k: getattr(s, f).astype(i32) for k, f in MELD_FIELDS.items()}
        ss = _selection_shape(sel0)
        t, gained, run_value = _table_after(x, a, g["nmelds"], t, ss, cur)
        hand, sel, top = self._cards_after(s, x, a, g, sel0, gained, cur)
        g = _turn_flags(g, x, ss, sel0, run_value, top, cur)
        t_disc = jnp.clip(a - ks.DISCARD, 0, T - 1)
        pile = jnp.where(x["disc"] & (jnp.arange(N_DECK) == g["pile_n"]), t_disc, s._pile)
        g["pile_n"] = g["pile_n"] - x["take"] + x["disc"]
        hand, t, snap, g = _snapshot(s, x, g, hand, t, cur)
        g, cur2, out, bound = self._turn_end(g, x, hand, cur)
        ns = s.replace(
            current_player=cur2.astype(i8), rewards=jnp.zeros(self.n, jnp.float32),
            _hands=s._hands.astype(i32).at[cur].set(hand).astype(i8), _sel=sel.astype(i8),
            _pile=pile.astype(i8), _mk=t["kind"].astype(i8), _mo=t["own"].astype(i8),
            _mx=t["key"].astype(i8), _mn=t["nat"].astype(i16), _mj=t["jok"].astype(i16),
            _sh=snap[0].astype(i8), _sn=snap[1].astype(i16), _sj=snap[2].astype(i16))
        # a request keeps PHASE_DRAW: draw if the stock has cards, take if the pile does
        req_mask = jnp.zeros(ks.NUM_ACTIONS, bool).at[ks.DRAW].set(
            g["drawn"] < self.stock_size).at[ks.TAKE].set(g["pile_n"] > 0)
        ns = ns.replace(legal_action_mask=jnp.where(x["req"], req_mask, s.legal_action_mask))
        g["ending"] = jnp.where(out, 1 + _outcome(g), jnp.where(bound, 1 + ks.BLOCKED, 0))
        g["finisher"] = jnp.where(out, cur, jnp.where(bound, -1, g["finisher"]))
        return self._pack(ns, g)

    def _cards_after(self, s: KonState, x: dict, a: Array, g: dict, sel: Array,
                     gained: Array, cur: Array) -> tuple[Array, Array, Array]:
        """The mover's hand and selection after the action (a pick, a finishing action's
        cards leaving the hand, a retrieved joker, a discard, a draw or take), and the
        pile's top card before it."""
        i32 = jnp.int32
        types = jnp.arange(T)
        t_pick = jnp.clip(a, 0, T - 1)
        t_disc = jnp.clip(a - ks.DISCARD, 0, T - 1)
        drawn_card = s._deck[jnp.clip(ks.HAND_SIZE * self.n + 1 + g["drawn"], 0, N_DECK - 1)]
        top = s._pile[jnp.clip(g["pile_n"] - 1, 0, N_DECK - 1)].astype(i32)
        got = jnp.select([x["draw"], x["take"]], [drawn_card.astype(i32), top], -1)
        hand = (s._hands[cur].astype(i32) - jnp.where(x["finish"], sel, 0)
                + (types == ks.JOKER) * gained - (x["disc"] & (types == t_disc)) + (types == got))
        sel = jnp.where(x["pick"], sel + (types == t_pick), jnp.where(x["finish"], 0, sel))
        return hand, sel, top

    def _turn_end(self, g: dict, x: dict, hand: Array, cur: Array
                  ) -> tuple[dict, Array, Array, Array]:
        """A discard: going out (an empty hand), the next turn (left pending), or the turn
        bound (KON-E4). Returns (slots, the next mover, out, bound)."""
        out = x["disc"] & (hand.sum() == 0)
        nxt_turn = x["disc"] & ~out
        g["turns"] = g["turns"] + nxt_turn
        bound = nxt_turn & (g["turns"] >= self.config.max_turns_per_round)
        new_turn = nxt_turn & ~bound
        nxt_p = (cur + 1) % self.n
        g["phase"] = jnp.select([new_turn, x["draw"] | x["take"]],
                                [ks.PHASE_DRAW, ks.PHASE_ACT], g["phase"])
        g["pending"] = new_turn.astype(jnp.int32)
        g["turn_done"] = x["disc"].astype(jnp.int32)
        g["deal_done"] = jnp.int32(0)
        g["round_over"] = jnp.int32(0)
        if_turn = {f: jnp.where(new_turn, 0, g[f]) for f in TURN_FLAGS}
        if_turn["opened_start"] = jnp.where(new_turn, (g["opened"] >> nxt_p) & 1,
                                            g["opened_start"])
        g |= if_turn
        g["turn_value"] = jnp.where(new_turn, 0, g["turn_value"])
        g["taken"] = jnp.where(x["disc"], -1, g["taken"])  # the turn is over (KON-E16)
        return g, jnp.where(new_turn, nxt_p, cur), out, bound

    def step_batch(self, states: KonState, actions: Array, keys: Array) -> KonState:
        """`jax.vmap(self.step)`, bit for bit, with the costly parts only where needed: the
        batch takes its actions (`_core`); then the turn starts: KON-E11's cheap bound for the
        unopened movers and `opened_take` for the opened ones, each in those lanes only
        (`update_lanes`, on the hand, the top discard and the table), the exact opening search
        for the lanes the bound leaves open, all of them in one list of set choices
        (`meld.opening_batch`), the draw masks or blocked rounds; the rounds' ends; the
        next rounds' deals (`update_lanes`); the PHASE_ACT masks (`_finalize_batch`); then
        `Env._template`'s step count, truncation, forfeit and seal."""
        A = self.num_actions

        def first(s, a):
            a = jnp.asarray(a, jnp.int32)
            legal = (a >= 0) & (a < A) & s.legal_action_mask[jnp.clip(a, 0, A - 1)]
            return self._core(s, jnp.clip(a, 0, A - 1)), legal

        moved, legal = jax.vmap(first)(states, actions)
        done = states.terminated | states.truncated
        own = legal & ~done
        b = own.shape[0]
        g = LAYOUT.unpack(moved)
        pend = own & (g["pending"] == 1)
        zb = jnp.zeros(b, bool)
        hand, top, req, opened, unopened = jax.vmap(self._take_who)(moved)
        cards = hand.at[jnp.arange(b), top].add(1)
        amb = update_lanes(pend & unopened, lambda _old, x: self._take_bound(*x), zb,
                           (cards, top), max(8, b // 8))
        exact = self._exact(cards, top, amb)
        melds = (moved._mk, moved._mx, moved._mn, moved._mj)
        take = req | update_lanes(pend & opened, lambda _old, x: self._take_opened(*x), zb,
                                  (hand, top, melds), max(8, b // 16))
        drawn = jax.vmap(self._finish_draw)(moved, take | (amb & exact))
        moved = moved.replace(
            legal_action_mask=jnp.where(pend[:, None], drawn.legal_action_mask,
                                        moved.legal_action_mask),
            _h=jnp.where(pend[:, None], drawn._h, moved._h))
        g = LAYOUT.unpack(moved)

        def end(_old, st):
            e = self._end_round(st)
            return e._h, e._w, e.rewards, e.terminated, e.current_player

        h, w, rewards, terminated, cur = update_lanes(
            own & (g["ending"] > 0), end, (moved._h, moved._w, moved.rewards, moved.terminated,
                                           moved.current_player), moved, max(8, b // 16))
        moved = moved.replace(_h=h, _w=w, rewards=rewards, terminated=terminated,
                              current_player=cur)
        # the next rounds' deals: where a round ended (`deal_done`) and the game goes on,
        # exactly the lanes of `round_over`
        moved = self._deal_lanes(moved, own, keys)
        moved = self._finalize_batch(moved)

        def last(state, moved, legal):
            moved = moved.replace(step_count=state.step_count + 1)
            moved = moved.replace(truncated=moved.truncated | (~moved.terminated & (
                moved.step_count >= self.max_steps)))
            nxt = tree_where(legal, moved, self._forfeit(state))
            done = state.terminated | state.truncated
            nxt = tree_where(done, state.replace(rewards=jnp.zeros_like(state.rewards)), nxt)
            return self._seal(nxt)

        return jax.vmap(last)(states, moved, legal)

    # ---- episode facts ----------------------------------------------------------------------
    def turn_done(self, state: KonState) -> Array:
        return state._h[..., LAYOUT.head["turn_done"]] == 1

    # ---- views ------------------------------------------------------------------------------
    def _obs_spec(self) -> ObservationSpec:
        n, R = self.n, self.config.n_rounds
        return ObservationSpec((
            ObsField("hand", T, 0, 2, "my cards: count per type"),
            ObsField("selection", T, 0, 2, "the cards I picked this turn (mine only)"),
            ObsField("meld_owner", M, -1, n - 1, "table meld slots: who laid it, -1 empty"),
            ObsField("meld_kind", M, -1, 1, "spec NO_MELD / RUN_MELD / SET_MELD"),
            ObsField("meld_suit", M, -1, 3, "a run's suit, -1"),
            ObsField("meld_rank", M, -1, 12, "a set's rank, -1"),
            ObsField("meld_cards", M * 14, 0, 2, "spec meld_cards (EMPTY/NATURAL/JOKER)"),
            ObsField("meld_jokers", M, 0, 2, "jokers in the meld"),
            ObsField("pile", T, 0, 2, "the discard pile: count per type"),
            ObsField("pile_top", 1, -1, T - 1, "the top discard, -1"),
            ObsField("hand_sizes", n, 0, ks.MAX_HAND, "each player's cards in hand"),
            ObsField("opened", n, 0, 1, "has melds on the table this round"),
            ObsField("requested", n, 0, 1, "made the konkan request this round"),
            ObsField("me", 1, 0, n - 1, "my seat"),
            ObsField("current_player", 1, -1, n - 1, "the seat to act, -1 at the end"),
            ObsField("dealer", 1, 0, n - 1, "this round's dealer"),
            ObsField("round", 1, 1, R, "the round, 1..n_rounds"),
            ObsField("phase", 1, 0, 2, "spec PHASE_*"),
            ObsField("stock", 1, 0, self.stock_size, "cards left in the stock"),
            ObsField("taken", 1, -1, T - 1, "the type the mover took from the pile this turn"),
            ObsField("turns", 1, 0, ks.MAX_MAX_TURNS, "turns ended this round"),
            ObsField("totals", n, -60 * R, ROUND_MAX * R, "finished rounds' scores"),
            ObsField("round_scores", n, -60, ROUND_MAX, "the last finished round's scores"),
            ObsField("outcome", 1, ks.IN_PLAY, ks.BLOCKED, "the last finished round's outcome"),
        ))

    def observation_spec(self) -> ObservationSpec:
        return self.obs_spec

    def _meld_views(self, s: KonState) -> dict:
        kind = s._mk.astype(jnp.int32)
        key = s._mx.astype(jnp.int32)
        nat, jok = s._mn.astype(jnp.int32), s._mj.astype(jnp.int32)
        run, st = kind == ks.RUN_MELD, kind == ks.SET_MELD
        q = jnp.arange(14)
        natb = ((nat[..., None] >> q) & 1) == 1
        jokb = ((jok[..., None] >> q) & 1) == 1
        cards = jnp.where(run[..., None], jnp.where(natb, ks.NATURAL, jnp.where(
            jokb, ks.JOKER_CARD, ks.EMPTY)), jnp.where(st[..., None] & natb & (q < 4),
                                                       ks.NATURAL, ks.EMPTY))
        return {
            "meld_owner": s._mo.astype(jnp.int8), "meld_kind": s._mk.astype(jnp.int8),
            "meld_suit": jnp.where(run, key, -1).astype(jnp.int8),
            "meld_rank": jnp.where(st, key, -1).astype(jnp.int8),
            "meld_cards": cards.astype(jnp.int8),
            "meld_jokers": jnp.where(run, mk.popcount(jok), jnp.where(st, jok, 0)).astype(
                jnp.int8),
        }

    def _pile_counts(self, s: KonState) -> Array:
        """The pile's counts per type (batched or not): a scatter-add, which XLA runs on CPU
        about 15 times faster than a one-hot sum over the 106 places."""
        n_ = s._h[..., LAYOUT.head["pile_n"]].astype(jnp.int32)
        lead = s._pile.shape[:-1]
        idx = jnp.where(jnp.arange(N_DECK) < n_[..., None], s._pile.astype(jnp.int32), T)
        idx = idx.reshape(-1, N_DECK)
        rows = jnp.arange(idx.shape[0])[:, None]
        counts = jnp.zeros((idx.shape[0], T), jnp.int32).at[rows, idx].add(1, mode="drop")
        return counts.reshape(*lead, T).astype(jnp.int8)

    def _observe(self, s: KonState, player: Array) -> Array:
        g = LAYOUT.unpack(s)
        n = self.n
        mine = s.current_player.astype(jnp.int32) == player
        melds = self._meld_views(s)
        top = jnp.where(g["pile_n"] > 0, _top(s), -1)
        return self.obs_spec.assemble({
            "hand": s._hands[player], "selection": jnp.where(mine, s._sel, 0),
            **melds, "pile": self._pile_counts(s), "pile_top": top,
            "hand_sizes": s._hands.astype(jnp.int32).sum(-1),
            "opened": _unbits(g["opened"], n), "requested": _unbits(g["requested"], n),
            "me": player, "current_player": s.current_player, "dealer": g["dealer"],
            "round": g["round"], "phase": g["phase"], "stock": self.stock_size - g["drawn"],
            "taken": g["taken"], "turns": g["turns"], "totals": g["totals"][:n],
            "round_scores": g["scores"][:n], "outcome": g["outcome"],
        })

    def summary(self, state: KonState) -> dict[str, Array]:
        """KON-E16: every key of `spec.SUMMARY_KEYS`, `api.common_summary`'s and `deck`
        (the round's deck order)."""
        g = LAYOUT.unpack(state)
        n = self.n
        i8 = jnp.int8
        top = jnp.where(g["pile_n"] > 0, _top(state), -1)
        return {
            **common_summary(state),
            "phase": g["phase"].astype(i8), "round": g["round"].astype(i8),
            "dealer": g["dealer"].astype(i8), "hands": state._hands, "selection": state._sel,
            "opened": _unbits(g["opened"][..., None], n),
            "requested": _unbits(g["requested"][..., None], n),
            "melds": g["nmelds"].astype(i8), **self._meld_views(state),
            "stock": (self.stock_size - g["drawn"]).astype(i8),
            "pile": self._pile_counts(state), "pile_top": top.astype(i8),
            "taken": g["taken"].astype(i8), "turns": g["turns"],
            "round_scores": g["scores"][..., :n], "totals": g["totals"][..., :n],
            "outcome": g["outcome"].astype(i8),
            "winners": _unbits(g["winners"][..., None], n), "deck": state._deck,
        }

    # ---- tournament views (`kanjax.api.Env`) ----------------------------------------------
    # Sides: the seats (solo) or the teams {0, 2}, {1, 3}; roles: the dealer, seat d + 1 (15
    # cards, acts first), the others. A round is won by the side of the player who went out;
    # a blocked round has no winner.
    def deal_facts(self, before: KonState, after: KonState) -> dict[str, Array]:
        n = self.n
        gb, ga = LAYOUT.unpack(before), LAYOUT.unpack(after)
        seats = jnp.arange(n)
        teams = jnp.asarray(self._teams())
        d = gb["dealer"]
        role = jnp.where(seats == d, 0, jnp.where(seats == (d + 1) % n, 1, 2))
        f = ga["finisher"]
        won = (f >= 0) & (teams == teams[jnp.clip(f, 0, n - 1)])
        return {"role": role.astype(jnp.int8), "side": teams.astype(jnp.int8), "won": won,
                "counted": jnp.bool_(True), "round": gb["round"].astype(jnp.int8),
                "outcome": ga["outcome"].astype(jnp.int8), "finisher": f.astype(jnp.int8),
                "turns": gb["turns"].astype(jnp.int16),
                "stock_left": (self.stock_size - gb["drawn"]).astype(jnp.int8),
                "scores": ga["scores"][:n].astype(jnp.int16)}

    def deal_row(self, facts: dict) -> dict:
        outcome = int(facts["outcome"])
        return {"round": int(facts["round"]),
                "outcome": ks.OUTCOME_NAMES[outcome] if outcome >= 0 else "unfinished",
                "finisher": int(facts["finisher"]), "turns": int(facts["turns"]),
                "stock_left": int(facts["stock_left"]),
                **{f"score_{p}": int(facts["scores"][p]) for p in range(self.n)}}

    def deal_tally(self, before: KonState, after: KonState) -> Array:
        """Per outcome (out, hand, konkan, blocked): 1 where the step ended a round so."""
        outcome = LAYOUT.unpack(after)["outcome"]
        return ((jnp.arange(4) == outcome) & self._deal_done(after)).astype(jnp.int32)

    def tally_report(self, tally: np.ndarray, returns: np.ndarray, deals: int) -> dict:
        report = super().tally_report(tally, returns, deals)
        report["outcomes"] = {name: int(tally[i]) for i, name in enumerate(ks.OUTCOME_NAMES)}
        return report

    def tally_lines(self, report: dict) -> list[str]:
        return super().tally_lines(report) + ["  rounds ended: " + ", ".join(
            f"{k} {v}" for k, v in report.get("outcomes", {}).items())]

    def deal_flags(self, deal: Deal) -> dict:
        n = deal.field("n")
        return {"n": int(n)} if n is not None and n.isdigit() else {}

    def action_name(self, action: int, state: KonState | None = None) -> str:
        return ks.action_name(int(action))

    def action_from_name(self, name: str, state: KonState | None = None) -> int:
        return ks.action_id(" ".join(str(name).split()))

    # ---- deal strings -----------------------------------------------------------------------
    def from_deal(self, deal: str, key: Array | None = None) -> KonState:
        """The first decision of a round dealt as

        `konkan n=4 dealer=0 [round=1] | <seat 0> | ... | <seat n-1> | stock: <top first>`

        each hand in the order dealt (KON-6: seat dealer + 1 holds 15, its last card dealt
        last), the stock top first; totals zero. `key` is unused."""
        d, f = read_deal(deal, self.name, self.card_deck, DEAL_FIELDS, ("stock",))
        n = self.n
        if "n" in f and f.ints("n", 1)[0] != n:
            raise ValueError(f"deal field n={f['n']}: this env plays n={n} (flag n)")
        dealer = f.ints("dealer", 1, 0, n - 1)[0] if "dealer" in f else max(self.config.dealer, 0)
        rnd = f.ints("round", 1, 1, self.config.n_rounds)[0] if "round" in f else 1
        if len(d.hands) != n:
            raise ValueError(f"deal has {len(d.hands)} hands: want {n}, in seat order")
        first = (dealer + 1) % n
        for q, hand in enumerate(d.hands):
            want = ks.HAND_SIZE + (q == first)
            if len(hand) != want:
                raise ValueError(f"hand {q + 1} (seat {q}) has {len(hand)} cards: want {want}")
        stock = d.section("stock")
        if stock is None or len(stock) != self.stock_size:
            raise ValueError(f"deal needs a stock section of {self.stock_size} cards: "
                             "'| stock: <cards>'")
        counts = np.bincount([c for h in d.hands for c in h] + list(stock), minlength=T)
        for t in np.flatnonzero(counts > ks.COPIES):
            raise ValueError(f"card {self.card_deck.token(int(t))} is dealt {counts[t]} times: "
                             f"there are {ks.COPIES}")
        order = np.full(N_DECK, -1, np.int64)
        for q, hand in enumerate(d.hands):
            for i, c in enumerate(hand[:ks.HAND_SIZE]):
                order[(q - dealer - 1) % n + i * n] = c
        order[ks.HAND_SIZE * n] = d.hands[first][ks.HAND_SIZE]
        order[ks.HAND_SIZE * n + 1:] = stock
        return jitted(self, "_deal_state")(jnp.asarray(order, jnp.int32), jnp.int32(dealer),
                                          jnp.int32(rnd))

    def _deal_state(self, order: Array, dealer: Array, rnd: Array) -> KonState:
        return self._finalize(self._start_round(order, dealer, rnd, None, jnp.int32(0)))

    def deal_string(self, state: KonState) -> str:
        """The current round's deal (unbatched): the hands in the order dealt, the stock top
        first (`from_deal` reads it back at the round's first decision)."""
        order = np.asarray(state._deck).astype(np.int64)
        g = {k: int(np.asarray(v)) for k, v in LAYOUT.unpack(state).items()
             if np.asarray(v).ndim == 0}
        n, dealer = self.n, g["dealer"]
        hands, stock = ks.deal_hands(order, n, dealer)
        fields = (("n", str(n)), ("dealer", str(dealer)))
        if g["round"] != 1:
            fields += (("round", str(g["round"])),)
        return format_deal(Deal(self.name, fields, tuple(tuple(h) for h in hands),
                                (("stock", tuple(stock)),)), self.card_deck)

    def _view(self, state: KonState) -> dict[str, np.ndarray]:
        """`summary` of one state as numpy arrays (the text view and the scene read it)."""
        return {k: np.asarray(v) for k, v in jitted(self, "summary")(state).items()}

    def render(self, state: KonState) -> str:
        """The round, the dealer, each hand and the table, the pile's top, whose turn."""
        s = self._view(state)
        deck = self.card_deck
        lines = [kon_views.head_line(self.config, s), kon_views.totals_line(s)]
        for p in range(self.n):
            flags = ("  opened" if s["opened"][p] else "") + (
                "  requested" if s["requested"][p] else "")
            lines.append(f"{p}  {deck.format_by_suit(kon_views.multiset(s['hands'][p]))}"
                         f"{flags}")
        for m, _ in kon_views.melds(s):
            lines.append(f"meld {m} ({int(s['meld_owner'][m])})  "
                         f"{' '.join(kon_views.meld_tokens(s, m))}")
        top = int(s["pile_top"])
        lines.append(f"pile {int(s['pile'].sum())}" + (f", top {deck.token(top)}" if top >= 0
                                                        else ""))
        sel = kon_views.multiset(s["selection"])
        if sel:
            lines.append(f"selection  {deck.format_hand(sel)}")
        lines.append(self.status_line(state, str, over="game over", limit=40))
        return "\n".join(lines)

    def scene(self, state: KonState, player: int | None = None) -> Scene:
        """`views.scene`: the hands (the viewer's alone with `player`), the melds, the
        pile, the stock, the totals, how the last round ended."""
        s = self._view(state)
        s["finisher"] = np.asarray(state._h)[LAYOUT.head["finisher"]]
        return kon_views.scene(self, state, s, player)


def make_konkan(name: str, **flags) -> KonkanEnv:
    return KonkanEnv(ks.KonConfig.from_flags(**flags))
