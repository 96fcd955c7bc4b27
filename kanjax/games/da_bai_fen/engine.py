"""Da Bai Fen (打百分), the whole game as a jittable JAX environment (`kanjax.make("da_bai_fen")`).

Rules: `docs/rules/da_bai_fen.md` (DBF-1..44, V1..V13); vocabulary (card ids, action ids,
phases, outcomes, location codes, `DbfConfig`): `kanjax.games.da_bai_fen.spec`. The decisions
the rules leave to the implementer are those of `kanjax.games.da_bai_fen.reference`'s docstring.

Steps are decisions; between them the engine advances by itself: the draw runs to the next
seat that may expose (DBF-13, in closed form: each seat's first exposable card fixes the
draws at which it decides), the kitty is turned (DBF-14), picked up (DBF-17, V11), the claims
are offered to the seats without trumps (DBF-18), tricks end, hands are scored and the next
hand is dealt from the step's key (`MatchEnv`). An open deal nobody can expose in is annulled
and redealt within the step (a bounded loop; its deck orders are kept in `_skip`).

State (`DbfState`, a `MatchState`):
- `_loc` int8[54]: the card's location (spec LOC_*: seat 0..3, kitty, trick, won by team
  0/1, deck); `_place` int8[54]: its place in the hand's shuffled deck order (DBF-11);
  `_picked` bool[54]: the mover's selection; `_by` int8[54]: 4 * trick + seat of a played
  card, -1; `_skip` int8[2, 54]: places of deals annulled within the last step (`nskip`).
- `_h` int8 header (`LAYOUT`): phase, hand kind, S, L, declaring team, R (a level), T, exposer,
  exposed card, cards drawn, kitty cards turned, the final-pass and claim indices, the trick
  (number, leader, plays, cards per play, led suit, Dun, best strength and player), points and
  protected points, levels, the last hand's outcome, hook and points, the winner, and the
  step flags deal_done / turn_done, each seat's first draw of a card it may expose (`first`);
  `_w` int32: P, the kitty bonus, hands played, deals dealt.
- `_last` int8[6]: the last ended hand's kitty.
- `_eff`, `_str` int8[54]: the hand's card tables (effective suit, strength: `trumps.tables`
  of R and T), written with every state so that a step need not recompute them.

Batched steps (`step_batch`): the common steps of play (a pass in the exposure, a discard
pick, a lead's pick, a play of one card, an invalid multi-lead's penalty) are one routine of a
few passes over the cards (`_common_step`); the rest (about a tenth of the lanes in random
play) take the whole step a few lanes at a time, and the lanes whose hand ended deal the next.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, ObservationSpec, ObsField, common_summary, jitted, register_state
from kanjax.capabilities import Benchmarked, Bots, TournamentViews, TrickPlay, Views
from kanjax.core import cards as cards_mod
from kanjax.core import dealing, jaxutil
from kanjax.core import trick as tk
from kanjax.core.deal_fields import deck_places, read_deal
from kanjax.core.jaxutil import tree_where
from kanjax.core.layout import Layout
from kanjax.core.match import MatchEnv, MatchState
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen import trumps as sj
from kanjax.games.da_bai_fen import views as dbf_views
from kanjax.games.da_bai_fen.layouts import DbfLayouts
from kanjax.scene import Scene

N = ds.NUM_CARDS
IDS, PSUIT, PRANK, JOKER, TRUMP = sj.IDS, sj.PSUIT, sj.PRANK, sj.JOKER, sj.TRUMP
POINTS = np.array(ds.CARD_POINTS, np.int32)
NUM_TRICKS = ds.HAND_SIZE
MAX_SKIP = 2

HEAD = [(k, None) for k in (
    "phase", "kind", "starter", "leader", "declaring", "R", "T", "exposer", "exposed", "drawn",
    "turned", "fidx", "cidx", "tno", "tleader", "nplays", "n", "led", "dun", "best_s",
    "best_p", "protected", "outcome", "hook", "lprot", "winner", "deal_done", "turn_done",
    "cur", "nskip", "nkind", "nstarter", "ndecl", "took", "kt", "kturned")] + [
    ("pts", 2), ("lev", 2), ("lpts", 2), ("tw", NUM_TRICKS), ("first", 4)]
WIDE = [("P", None), ("kb", 2), ("hands_played", None), ("dealt", None)]
LAYOUT = Layout(HEAD, WIDE, name="da_bai_fen")
CARD_TABLES = ("eff", "str")  # the hand's card tables in the working state (`_tables`)
# `step_batch`: the share of lanes taken at a time by the whole step and by the dealing
# (random play: about 0.3% and 7% of the lanes a step; one trip of the loop in most steps)
WHOLE_SHARE, DEAL_SHARE = 1 / 128, 3 / 32


@register_state
@dataclasses.dataclass(frozen=True)
class DbfState(MatchState):
    _place: Array
    _picked: Array
    _by: Array
    _skip: Array
    _eff: Array
    _str: Array


def _header_slots(g: dict) -> dict:
    """The working slots `g` less the hand's card tables (`CARD_TABLES`): what `LAYOUT.pack`
    takes (strictly: any other slot is an error)."""
    return {k: v for k, v in g.items() if k not in CARD_TABLES}


tables, quad_value = sj.tables, sj.quad_value  # the hand's card tables (DBF-5..8, V6, V8)


class DbfEnv(MatchEnv, Views, TournamentViews, Bots, Benchmarked, TrickPlay, DbfLayouts):
    """Da Bai Fen (`da_bai_fen`): four players in two teams, hands until a team passes the
    target level. Actions: `spec` (picks 0..53, play, expose S H D C, pass, claim)."""

    name = "da_bai_fen"
    num_players = 4
    num_actions = ds.NUM_ACTIONS
    card_deck = ds.DECK
    card_actions = N
    bench_baseline = ("oh_hell(players=5,num_tricks_fixed=10)", "deals")  # as Gonin Kan's
    layout = LAYOUT
    version = "1"
    role_names = ("declarer", "opponent")
    worst_score = -1.0  # the losing team's match result (spec: DBF-36, DBF-37)
    heuristic = "kanjax.games.da_bai_fen.heuristic:make_dbf_heuristic"

    def __init__(self, config: ds.DbfConfig | None = None) -> None:
        self.config = config = config or ds.DbfConfig()
        self.max_steps = ds.max_game_steps(config)
        self.max_deals = config.max_hands
        self.illegal_action_penalty = config.illegal_action_penalty

    def __hash__(self) -> int:
        return hash(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DbfEnv) and other.config == self.config

    # ---- the hand's tables --------------------------------------------------------------
    def _tables(self, g, stored: bool = False):
        """(trump, effective suit, strength) per card: `stored` (static), the hand's as the
        state keeps them (`_eff`, `_str`: `_pack` writes them from R and T, which a common
        step never changes); else from R and T."""
        if stored:
            return g["eff"] == TRUMP, g["eff"], g["str"]
        return tables(g["R"], g["T"], self.config.yuan_zhu)

    def _expo_rank(self, g, seat):
        """The rank index `seat` may expose: R, or in an open deal his team's level."""
        lev = g["lev"]
        return jnp.where(g["kind"] == ds.OPEN_DEAL, lev[seat % 2], g["R"]) - 2

    def _exposable(self, g, hand):
        """bool[4]: the suits of which the mover holds a card of his exposable rank, among
        the cards `hand` (DBF-12, 13, 22)."""
        held = hand & (jnp.asarray(PRANK) == self._expo_rank(g, g["cur"]))
        return jnp.stack([jnp.any(held & (jnp.asarray(PSUIT) == x)) for x in range(4)])

    # ---- the draw (DBF-11..16) ----------------------------------------------------------
    def _draw_loc(self, g, place, drawn):
        owner = (g["starter"] + place) % 4
        return jnp.where(place < drawn, owner, jnp.where(place >= ds.NUM_DRAWN, ds.LOC_KITTY,
                                                         ds.LOC_DECK))

    def _first_draws(self, g, place):
        """Each seat's first draw of a card it may expose (99: none), one reduction: fixed
        for the hand by its deck order (`g["first"]`, which `_scan` reads)."""
        owner = (g["starter"] + place) % 4
        seats = jnp.arange(4)
        ok = ((place < ds.NUM_DRAWN)[:, None] & (owner[:, None] == seats)
              & (jnp.asarray(PRANK)[:, None] == self._expo_rank(g, seats)))
        return jnp.min(jnp.where(ok, place[:, None], 99), axis=0)

    @staticmethod
    def _kitty_turn(g, place):
        """DBF-14, fixed for the hand by its deck order and R (an open deal's R is not
        known until it is exposed, but its kitty is never turned): the suit T and how many
        cards are turned. The kitty in order: the first card of rank R, else the first of the
        highest rank (jokers aside), found as the greatest of one key per kitty card."""
        order = place - ds.NUM_DRAWN  # 0..5 in the kitty
        prank = jnp.asarray(PRANK)
        rank_key = jnp.where(prank == g["R"] - 2, 200 - order,  # above any other rank
                             jnp.where(jnp.asarray(JOKER), -1, 8 * prank + 7 - order))
        top = jnp.max(jnp.where(order >= 0, 4 * rank_key + jnp.asarray(PSUIT) % 4, -1000))
        any_r = top >= 4 * (200 - ds.KITTY_SIZE)
        return top % 4, jnp.where(any_r, 200 - top // 4 + 1, ds.KITTY_SIZE)

    def _scan(self, g, k0, j0):
        """The next exposure decision from draw k0 (or, past the draw, final-pass index j0):
        (g, found). Not found: the exposure is over (drawn = 48)."""
        S = g["starter"]
        seats = jnp.arange(4)
        first = g["first"]
        # each seat's next draw from k0 on (its draws are those of its residue mod 4)
        m = jnp.maximum(k0, first)
        k = m + ((seats - S) % 4 - m) % 4
        best = jnp.min(jnp.where(first < 99, k, 99))
        in_draw = (best < ds.NUM_DRAWN) & (k0 < ds.NUM_DRAWN)
        has = first[(S + seats) % 4] < 99  # by final index
        has = has & (jnp.arange(4) >= jnp.where(k0 < ds.NUM_DRAWN, 0, j0))
        j = jnp.argmax(has)
        in_final = ~in_draw & jnp.any(has)
        g = dict(g)
        g["phase"] = jnp.where(in_draw, ds.PHASE_DRAW, jnp.where(in_final, ds.PHASE_FINAL_PASS,
                                                                 g["phase"]))
        g["drawn"] = jnp.where(in_draw, best + 1, ds.NUM_DRAWN)
        g["fidx"] = jnp.where(in_final, j, 0)
        g["cur"] = jnp.where(in_draw, (S + best) % 4, jnp.where(in_final, (S + j) % 4,
                                                                 g["cur"]))
        return g, in_draw | in_final

    # ---- hand start ----------------------------------------------------------------------
    def _deal_hand(self, g, key, place=None):
        """The next hand of slots `g` (kind, starter, declaring, levels set), shuffled from
        `key` (or dealt in the deck order `place`), advanced to its first decision (or its
        annulment)."""
        w, found = self._draw_to_exposure(g, key, place)
        return self._after_exposure(w, ~found)

    def _draw_to_exposure(self, g, key, place=None):
        """(working state, found): `_deal_hand` up to the draw's first exposure decision,
        where one is `found` (the draw's end, `_after_exposure`, not applied)."""
        if place is None:
            place = dealing.shuffle(key, np.ones(N, bool), (ds.NUM_DRAWN,)).rank
        g = dict(g)
        for k, v in dict(phase=ds.PHASE_DRAW, exposer=-1, exposed=-1, drawn=0, turned=0,
                         fidx=0, cidx=0, tno=0, tleader=-1, nplays=0, n=0, led=-1, dun=0,
                         best_s=0, best_p=-1, protected=0, T=-1, took=0).items():
            g[k] = jnp.int32(v)
        g["pts"] = jnp.zeros(2, jnp.int32)
        g["tw"] = jnp.full(NUM_TRICKS, -1, jnp.int32)
        first = g["kind"] == ds.FIRST_HAND
        later = g["kind"] == ds.LATER_HAND
        g["leader"] = jnp.where(later, g["starter"], -1)
        g["declaring"] = jnp.where(later, g["declaring"], -1)
        g["R"] = jnp.where(first, self.config.start_level,
                           jnp.where(later, g["lev"][jnp.clip(g["declaring"], 0, 1)], -1))
        g["first"] = self._first_draws(g, place)
        g["kt"], g["kturned"] = self._kitty_turn(g, place)
        g, found = self._scan(g, jnp.int32(0), jnp.int32(0))
        loc = self._draw_loc(g, place, g["drawn"])
        return (g, loc, place, jnp.zeros(N, bool), jnp.full(N, -1, jnp.int32)), found

    # ---- after the exposure ---------------------------------------------------------------
    def _after_exposure(self, w, do, annul=True):
        """Where `do`: the draw is complete; T (and L) fixed, the kitty turned (DBF-14), or an
        open deal annulled (DBF-22; not `annul`: left to the caller, `_annulled`); then the
        pickup (DBF-17, V11)."""
        g, loc, place, picked, by = w
        g = dict(g)
        S = g["starter"]
        loc = jnp.where(do, self._draw_loc(g, place, ds.NUM_DRAWN), loc)
        exposed = g["exposer"] >= 0
        first = g["kind"] == ds.FIRST_HAND
        opened = g["kind"] == ds.OPEN_DEAL
        turn = do & ~exposed & ~opened  # the kitty turned (DBF-14, `_kitty_turn`)
        g["T"] = jnp.where(turn, g["kt"], g["T"])
        g["turned"] = jnp.where(turn, g["kturned"], g["turned"])
        g["leader"] = jnp.where(turn & first, S, g["leader"])
        g["declaring"] = jnp.where(turn & first, S % 2, g["declaring"])
        g["drawn"] = jnp.where(do, ds.NUM_DRAWN, g["drawn"])
        annulled = do & self._annulled(g)
        w = (g, loc, place, picked, by)
        if annul:
            w = self._end_hand(w, annulled, ds.NO_EXPOSER)
        return self._pickup(w, do & ~annulled)

    @staticmethod
    def _annulled(g):
        """Whether an exposure that ends now annuls the hand: an open deal with no exposer
        (DBF-22)."""
        return (g["exposer"] < 0) & (g["kind"] == ds.OPEN_DEAL)

    def _pickup(self, w, do):
        g, loc, place, picked, by = w
        g = dict(g)
        trump, _, _ = self._tables(g)
        kitty = loc == ds.LOC_KITTY
        L = g["leader"]
        if self.config.changchun_kitty:
            r = g["R"] - 2
            yz2 = self.config.yuan_zhu & (r != 0) & (jnp.asarray(PRANK) == 0)
            qual = (jnp.asarray(PSUIT) == g["T"]) & (jnp.asarray(PRANK) != r) & ~yz2
            takes = jnp.any(kitty & qual)
        else:
            takes = jnp.bool_(True)
        take = do & takes
        loc = jnp.where(take & kitty, L, loc)
        g["took"] = jnp.where(do, take, g["took"]).astype(jnp.int32)
        g["phase"] = jnp.where(take, ds.PHASE_DISCARD, g["phase"])
        g["cur"] = jnp.where(take, L, g["cur"])
        w = (g, loc, place, picked, by)
        return self._claims(w, do & ~takes, jnp.int32(0))

    # ---- claims (DBF-18/19) -----------------------------------------------------------------
    def _claims(self, w, do, j0):
        g, loc, place, picked, by = w
        g = dict(g)
        trump, _, _ = self._tables(g)
        L = g["leader"]
        seats = (L + jnp.arange(4)) % 4
        none = ~jnp.any((loc[:, None] == seats) & trump[:, None], axis=0)
        none = none & (jnp.arange(4) >= j0)
        j = jnp.argmax(none)
        claim = do & jnp.any(none)
        g["phase"] = jnp.where(claim, ds.PHASE_CLAIM, g["phase"])
        g["cidx"] = jnp.where(claim, j, g["cidx"])
        g["cur"] = jnp.where(claim, seats[j], g["cur"])
        play = do & ~jnp.any(none)
        g["phase"] = jnp.where(play, ds.PHASE_PLAY, g["phase"])
        g["cur"] = jnp.where(play, L, g["cur"])
        g["tleader"] = jnp.where(play, L, g["tleader"])
        return (g, loc, place, picked, by)

    # ---- play (DBF-20..28, V8, V9) ------------------------------------------------------------
    def _close_play(self, w, do):
        """The mover's selection is played to the trick."""
        g, loc, place, picked, by = w
        g = dict(g)
        cfg = self.config
        trump, eff, strength = self._tables(g)
        cur = g["cur"]
        cards = picked
        count = jnp.sum(cards, dtype=jnp.int32)
        leading = g["nplays"] == 0
        first_card = jnp.argmax(cards)
        qs = sj.quad_strength(cards, g["R"], cfg.yuan_zhu) if cfg.jilin_dun else jnp.int32(0)
        is_dun = qs > 0
        dun = jnp.where(leading, is_dun, g["dun"] > 0)
        led = jnp.where(leading, eff[first_card], g["led"])
        # the play's strength (DBF-26; in a Dun trick its quad's, V8)
        zeros = jnp.zeros(N, bool)
        ps = tk.play_strength(cards, eff, strength, led, jnp.int32(TRUMP), zeros)
        s = jnp.where(dun, qs, ps)
        better = leading | (s > g["best_s"])
        # DBF-23/24: the validity of a multi-lead
        others = (loc >= 0) & (loc < 4) & (loc != cur)
        invalid = (leading & ~is_dun & ~tk.lead_valid(cards, others, eff, strength)
                   & (cfg.invalid_multilead == "penalty"))
        loc = jnp.where(do & cards, ds.LOC_TRICK, loc)
        by = jnp.where(do & cards, 4 * g["tno"] + cur, by)
        picked = jnp.where(do, False, picked)
        g["n"] = jnp.where(do & leading, count, g["n"])
        g["led"] = jnp.where(do, led, g["led"])
        g["dun"] = jnp.where(do, dun, g["dun"])
        g["best_s"] = jnp.where(do & better, s, g["best_s"])
        g["best_p"] = jnp.where(do & better, cur, g["best_p"])
        g["nplays"] = jnp.where(do, g["nplays"] + 1, g["nplays"])
        g["cur"] = jnp.where(do, (cur + 1) % 4, g["cur"])
        g["turn_done"] = jnp.where(do, 1, g["turn_done"])
        w = (g, loc, place, picked, by)
        pen = do & invalid
        w = self._end_hand(w, pen, ds.PENALTY)
        return self._end_trick(w, do & ~invalid & (g["nplays"] == 4))

    def _end_trick(self, w, do):
        g, loc, place, picked, by = w
        g = dict(g)
        win = g["best_p"]
        team = win % 2
        in_trick = loc == ds.LOC_TRICK
        pts = jnp.sum(jnp.where(in_trick, jnp.asarray(POINTS), 0))
        prot = jnp.int32(0)
        if self.config.dun_points_protected:
            prank = jnp.asarray(PRANK)
            for q in range(4):
                mine = in_trick & (by == 4 * g["tno"] + q)
                for rk in (ds.RANK_K, ds.RANK_T, ds.RANK_5):
                    quad = jnp.sum(mine & (prank == rk)) == 4
                    prot = prot + jnp.where(quad, jnp.sum(jnp.where(
                        mine & (prank == rk), jnp.asarray(POINTS), 0)), 0)
            prot = jnp.where((g["dun"] > 0) & (team != g["declaring"]), prot, 0)
        g["pts"] = jnp.where(do & (jnp.arange(2) == team), g["pts"] + pts - prot, g["pts"])
        g["protected"] = jnp.where(do, g["protected"] + prot, g["protected"])
        g["tw"] = jnp.where(do & (jnp.arange(NUM_TRICKS) == g["tno"]), win, g["tw"])
        last = ~jnp.any((loc >= 0) & (loc < 4))  # every hand empty (DBF-20)
        # the card the last trick was won by (DBF-38), for the hook (V13)
        _, eff, strength = self._tables(g)
        cs = tk.card_strength(eff, strength, g["led"], jnp.int32(TRUMP), jnp.zeros(N, bool))
        wins = in_trick & (by == 4 * g["tno"] + win)
        by_card = jnp.argmax(wins & (cs == g["best_s"]))
        prank = jnp.asarray(PRANK)
        won_rank = jnp.where(g["dun"] > 0, prank[jnp.argmax(wins)], prank[by_card])
        hook = (self.config.jilin_hook & (g["R"] == ds.LEVEL_J) & (team != g["declaring"])
                & (won_rank == ds.RANK_J))
        g, loc = self._next_trick(g, loc, in_trick, do, last, win, team)
        return self._score((g, loc, place, picked, by), do & last, team, hook)

    @staticmethod
    def _next_trick(g, loc, in_trick, do, last, win, team):
        """Where `do`: the trick's cards to the winning team's won pile, and (unless it was
        the `last`) the next trick led by its winner."""
        loc = jnp.where(do & in_trick, ds.LOC_WON + team, loc)
        g = dict(g, tno=jnp.where(do, g["tno"] + 1, g["tno"]))
        nxt = do & ~last
        g["nplays"] = jnp.where(nxt, 0, g["nplays"])
        g["tleader"] = jnp.where(nxt, win, g["tleader"])
        g["cur"] = jnp.where(nxt, win, g["cur"])
        g["dun"] = jnp.where(nxt, 0, g["dun"])
        return g, loc

    # ---- scoring (DBF-29..37, V3..V5, V12, V13) ----------------------------------------------
    def _table(self, P):
        """(declarers' gain, opponents' gain, switch) of DBF-31 / DBF-34."""
        if self.config.step20:
            dg = jnp.where(P == 0, 3, jnp.where(P < 20, 2, jnp.where(P < 40, 1, 0)))
            og = jnp.where(P >= 40, (P - 40) // 20, 0)
        else:
            dg = jnp.where(P == 0, 2, jnp.where(P < 40, 1, 0))
            og = jnp.where(P >= 100, 2, jnp.where(P >= 80, 1, 0))
        return dg, og, P >= 40

    def _score(self, w, do, last_team, hook):
        g, loc, place, picked, by = w
        g = dict(g)
        cfg = self.config
        D = g["declaring"]
        O = 1 - D
        kpts = jnp.sum(jnp.where(loc == ds.LOC_KITTY, jnp.asarray(POINTS), 0))
        mult = g["n"] if cfg.kitty_mult_last_trick else 2
        bonus = kpts * mult
        kb = jnp.where(jnp.arange(2) == last_team, bonus, 0)
        P = g["pts"][O] + kb[O]
        dg, og, switch = self._table(P)
        v12 = cfg.jilin_last_trick & (last_team == O)
        tp = g["pts"][O]
        og12 = jnp.where(tp >= 80, 2, jnp.where(tp >= 40, 1, 0))
        dg = jnp.where(v12, 0, dg)
        og = jnp.where(v12, og12, og)
        switch = switch | v12
        tie = cfg.tie_at_40 & ~v12 & (P == 40) & ~hook  # DBF-44: a hook is no tie
        low = 3 if cfg.yuan_zhu else 2
        og = jnp.where(hook, og12 if cfg.jilin_last_trick else 0, og)
        lev = g["lev"]
        new_lev = jnp.where(jnp.arange(2) == D, lev + dg, lev + og)
        new_lev = jnp.where(hook & (jnp.arange(2) == D), low, new_lev)
        switch = switch & ~hook
        g["P"] = jnp.where(do, P, g["P"])
        g["kb"] = jnp.where(do, kb, g["kb"])
        g["hook"] = jnp.where(do, hook, g["hook"])
        g["lev"] = jnp.where(do & ~tie, new_lev, lev)
        L = g["leader"]
        nk = jnp.where(tie, ds.OPEN_DEAL, ds.LATER_HAND)
        ns = jnp.where(switch | tie, L + 1, L + 2) % 4
        nd = jnp.where(switch, O, D)
        w = (g, loc, place, picked, by)
        return self._end_hand(w, do, jnp.where(tie, ds.TIE, ds.NORMAL), nk, ns, nd)

    def _end_hand(self, w, do, outcome, kind=None, starter=None, declaring=None):
        """Where `do`: the hand ends with `outcome`; the next hand's kind, starter and
        declaring team (defaults by outcome: PENALTY scored by the table, annulments open)."""
        g, loc, place, picked, by = w
        g = dict(g)
        L, S = g["leader"], g["starter"]
        code = outcome if isinstance(outcome, int) else None
        outcome = jnp.asarray(outcome, jnp.int32)
        if kind is None:
            if code == ds.PENALTY:
                D = g["declaring"]
                offender = g["tleader"]
                P = jnp.where(offender % 2 == D, ds.TOTAL_POINTS + jnp.sum(jnp.where(
                    loc == ds.LOC_KITTY, jnp.asarray(POINTS), 0)), 0)
                dg, og, switch = self._table(P)
                lev = g["lev"]
                new_lev = jnp.where(jnp.arange(2) == D, lev + dg, lev + og)
                g["lev"] = jnp.where(do, new_lev, lev)
                g["P"] = jnp.where(do, P, g["P"])
                g["kb"] = jnp.where(do, 0, g["kb"])
                g["hook"] = jnp.where(do, 0, g["hook"])
                kind = jnp.int32(ds.LATER_HAND)
                starter = jnp.where(switch, L + 1, L + 2) % 4
                declaring = jnp.where(switch, 1 - D, D)
            else:  # CLAIMED (starter L+2) or NO_EXPOSER (S+1): open, not scored
                g["P"] = jnp.where(do, -1, g["P"])
                g["kb"] = jnp.where(do, 0, g["kb"])
                g["hook"] = jnp.where(do, 0, g["hook"])
                kind = jnp.int32(ds.OPEN_DEAL)
                starter = (L + 2) % 4 if code == ds.CLAIMED else (S + 1) % 4
                declaring = jnp.int32(-1)
        g["outcome"] = jnp.where(do, outcome, g["outcome"])
        g["lpts"] = jnp.where(do, g["pts"], g["lpts"])
        g["lprot"] = jnp.where(do, g["protected"], g["lprot"])
        hp = g["hands_played"] + do
        g["hands_played"] = hp
        lev = g["lev"]
        passed = lev > self.config.target_level
        over = passed.any() | (hp >= self.config.max_hands)
        winner = jnp.where(passed[0], 0, jnp.where(passed[1], 1, jnp.where(
            lev[0] > lev[1], 0, jnp.where(lev[1] > lev[0], 1, -1))))
        g["winner"] = jnp.where(do & over, winner, g["winner"])
        g["phase"] = jnp.where(do, jnp.where(over, ds.PHASE_OVER, ds.PHASE_DEAL), g["phase"])
        g["deal_done"] = jnp.where(do, 1, g["deal_done"])
        g["nkind"] = jnp.where(do, kind, g["nkind"])
        g["nstarter"] = jnp.where(do, starter, g["nstarter"])
        g["ndecl"] = jnp.where(do, declaring, g["ndecl"])
        return (g, loc, place, picked, by)

    @staticmethod
    def _mat_slots(g, *values):
        """(the slots `g`, `values` as int32) computed once (`jaxutil.materialize`), before
        the card arrays are written with them: XLA on CPU would otherwise inline their scalar
        chains into each of the 54 cards of every such write."""
        keys = [k for k in g if k not in CARD_TABLES]
        parts = [jnp.asarray(g[k], jnp.int32).reshape(-1) for k in keys]
        parts += [jnp.asarray(v, jnp.int32).reshape(-1) for v in values]
        flat = jaxutil.materialize(jnp.concatenate(parts))
        out, at = {k: g[k] for k in CARD_TABLES if k in g}, 0
        for k, x in zip(keys, parts, strict=False):
            out[k] = flat[at] if jnp.ndim(g[k]) == 0 else flat[at:at + x.shape[0]]
            at += x.shape[0]
        return out, flat[at:]

    @staticmethod
    def _mat(w):
        """The working state `w` computed once (`jaxutil.materialize`). Measured: once before
        the legal mask is best; once more after each stage of the step costs more than the
        inlining it saves."""
        g, loc, place, picked, by = w
        keys = [k for k in g if k not in CARD_TABLES]
        parts = [jnp.asarray(g[k], jnp.int32).reshape(-1) for k in keys]
        sizes = [x.shape[0] for x in parts]
        flat = jaxutil.materialize(jnp.concatenate(
            parts + [loc, picked.astype(jnp.int32), by]))
        out, at = {k: g[k] for k in CARD_TABLES if k in g}, 0
        for k, n in zip(keys, sizes, strict=True):
            out[k] = flat[at] if jnp.ndim(g[k]) == 0 else flat[at:at + n]
            at += n
        return (out, flat[at:at + N], place, flat[at + N:at + 2 * N] > 0, flat[at + 2 * N:])

    # ---- init / step -----------------------------------------------------------------------
    def _blank_slots(self):
        g = {k: jnp.int32(0) for k, _ in HEAD}
        g.update(pts=jnp.zeros(2, jnp.int32), lev=jnp.full(2, self.config.start_level,
                                                             jnp.int32),
                 lpts=jnp.zeros(2, jnp.int32), tw=jnp.full(NUM_TRICKS, -1, jnp.int32),
                 P=jnp.int32(-1), kb=jnp.zeros(2, jnp.int32), hands_played=jnp.int32(0),
                 dealt=jnp.int32(0), first=jnp.full(4, 99, jnp.int32))
        g.update(kind=jnp.int32(ds.FIRST_HAND), starter=jnp.int32(self.config.first_starter),
                 declaring=jnp.int32(-1), outcome=jnp.int32(ds.NO_OUTCOME),
                 winner=jnp.int32(-1), leader=jnp.int32(-1), exposer=jnp.int32(-1),
                 exposed=jnp.int32(-1), T=jnp.int32(-1), turn_done=jnp.int32(1))
        return g

    def _init(self, key: Array) -> DbfState:
        g = self._blank_slots()
        w = self._deal_hand(g, key)
        s = DbfState(
            current_player=jnp.int8(0), legal_action_mask=jnp.zeros(self.num_actions, bool),
            rewards=jnp.zeros(4, jnp.float32), terminated=jnp.bool_(False),
            truncated=jnp.bool_(False), illegal_action=jnp.bool_(False),
            step_count=jnp.int32(0), _loc=jnp.zeros(N, jnp.int8),
            _h=jnp.zeros(LAYOUT.head_size, jnp.int8), _w=jnp.zeros(LAYOUT.wide_size, jnp.int32),
            _last=jnp.full(ds.KITTY_SIZE, -1, jnp.int8), _place=jnp.zeros(N, jnp.int8),
            _picked=jnp.zeros(N, bool), _by=jnp.full(N, -1, jnp.int8),
            _skip=jnp.full((MAX_SKIP, N), -1, jnp.int8), _eff=jnp.zeros(N, jnp.int8),
            _str=jnp.zeros(N, jnp.int8))
        return self._pack(s, w)

    def _unpack(self, s: DbfState):
        g = dict(LAYOUT.unpack(s), eff=s._eff.astype(jnp.int32), str=s._str.astype(jnp.int32))
        return (g, s._loc.astype(jnp.int32), s._place.astype(jnp.int32), s._picked,
                s._by.astype(jnp.int32))

    def _pack(self, s: DbfState, w, rewards=None, terminated=None, last=None,
              skip=None, mask=None) -> DbfState:
        """`s` with the working state `w` (computed once, `_mat`: XLA on CPU would otherwise
        inline the step's whole scalar chain into every element of the legal mask), its legal
        mask (`mask(g, loc)` if given, else `_legal`) and the other fields given."""
        g, loc, place, picked, by = self._mat(w)
        _, eff, strength = self._tables(g)
        s = s.replace(_eff=eff.astype(jnp.int8), _str=strength.astype(jnp.int8))
        g = _header_slots(g)
        h, wide = LAYOUT.pack(g)
        s = s.replace(_h=h, _w=wide, _loc=loc.astype(jnp.int8), _place=place.astype(jnp.int8),
                      _picked=picked, _by=by.astype(jnp.int8),
                      current_player=g["cur"].astype(jnp.int8))
        if rewards is not None:
            s = s.replace(rewards=rewards, terminated=terminated)
        if last is not None:
            s = s.replace(_last=last)
        if skip is not None:
            s = s.replace(_skip=skip)
        legal = self._legal(s) if mask is None else mask(g, loc)
        return s.replace(legal_action_mask=legal)

    def _step(self, s: DbfState, action: Array, key: Array | None) -> DbfState:
        w, a = self._begin(s), action
        phase = w[0]["phase"]
        w = self._exposure(w, phase, a)[0]
        w = self._discard(w, phase, a)
        # claims
        g = dict(w[0])
        in_claim = phase == ds.PHASE_CLAIM
        w = self._claims((g,) + w[1:], in_claim & (a == ds.PASS), g["cidx"] + 1)
        w = self._end_hand(w, in_claim & (a == ds.CLAIM), ds.CLAIMED)
        w = self._play(w, phase, a)
        g, loc = w[0], w[1]
        # rewards at the game's end
        over = (g["phase"] == ds.PHASE_OVER) & (g["deal_done"] > 0)
        team = jnp.arange(4) % 2
        rew = jnp.where(g["winner"] < 0, 0.0, jnp.where(team == g["winner"], 1.0, -1.0))
        rewards = jnp.where(over, rew, 0.0).astype(jnp.float32)
        need = (g["deal_done"] > 0) & ~over
        last = jnp.where(need | over, self._kitty_record(loc), s._last)
        nxt = self._pack(s, w, rewards=rewards, terminated=over, last=last,
                         skip=jnp.full((MAX_SKIP, N), -1, jnp.int8))
        if key is None:
            return nxt
        return tree_where(need, self._redeal(nxt, key), nxt)

    def _exposure(self, w, phase, a, annul=True):
        """An exposure decision (DBF-12, 13, 22): `expose S` ends the draw, a `pass` moves
        the draw on to the next seat that may expose, or ends it (`_scan`); at its end the
        kitty is turned or the open deal annulled (`annul`), then picked up
        (`_after_exposure`). Returns (w, whether the draw ended)."""
        g, loc, place, picked, by = w
        g = dict(g)
        cur = g["cur"]
        drawing = (phase == ds.PHASE_DRAW) | (phase == ds.PHASE_FINAL_PASS)
        expose = drawing & (a >= ds.EXPOSE) & (a < ds.PASS)
        ecard = 13 * (a - ds.EXPOSE) + self._expo_rank(g, cur)
        g["exposer"] = jnp.where(expose, cur, g["exposer"])
        g["exposed"] = jnp.where(expose, ecard, g["exposed"])
        g["T"] = jnp.where(expose, a - ds.EXPOSE, g["T"])
        claims_l = expose & (g["kind"] != ds.LATER_HAND)
        g["leader"] = jnp.where(claims_l, cur, g["leader"])
        g["declaring"] = jnp.where(claims_l, cur % 2, g["declaring"])
        g["R"] = jnp.where(expose & (g["kind"] == ds.OPEN_DEAL), g["lev"][cur % 2], g["R"])
        dpass = (phase == ds.PHASE_DRAW) & (a == ds.PASS)
        fpass = (phase == ds.PHASE_FINAL_PASS) & (a == ds.PASS)
        k0 = jnp.where(dpass, g["drawn"], ds.NUM_DRAWN)
        j0 = jnp.where(fpass, g["fidx"] + 1, 0)
        g2, found = self._scan(g, k0, j0)
        scanning = dpass | fpass
        g = {k: jnp.where(scanning, g2[k], v) for k, v in g.items()}
        loc = jnp.where(scanning & found, self._draw_loc(g, place, g["drawn"]), loc)
        ended = expose | (scanning & ~found)
        return self._after_exposure((g, loc, place, picked, by), ended, annul), ended

    def _begin(self, s: DbfState):
        """The working state of `s` at the start of a step (its step flags cleared)."""
        g, loc, place, picked, by = self._unpack(s)
        g = dict(g, deal_done=jnp.int32(0), turn_done=jnp.int32(1), nskip=jnp.int32(0))
        return g, loc, place, picked, by

    def _discard(self, w, phase, a):
        """A kitty discard pick (DBF-17); the sixth lays the discards down, then the claims
        (DBF-18)."""
        g, loc, place, picked, by = w
        g = dict(g)
        disc = (phase == ds.PHASE_DISCARD) & (a < ds.PLAY)
        picked = jnp.where(disc & (IDS == a), True, picked)
        full = disc & (jnp.sum(picked) == ds.KITTY_SIZE)
        loc = jnp.where(full & picked, ds.LOC_KITTY, loc)
        picked = jnp.where(full, False, picked)
        g["turn_done"] = jnp.where(disc & ~full, 0, g["turn_done"])
        return self._claims((g, loc, place, picked, by), full, jnp.int32(0))

    def _play(self, w, phase, a):
        """A pick or a `play` in trick play (DBF-20..28): a lead closes on `play`, a follow
        on its n-th pick."""
        g, loc, place, picked, by = w
        g = dict(g)
        playing = phase == ds.PHASE_PLAY
        ppick = playing & (a < ds.PLAY)
        picked = jnp.where(ppick & (IDS == a), True, picked)
        following = g["nplays"] > 0
        closes = (ppick & following & (jnp.sum(picked) == g["n"])) | (playing & (a == ds.PLAY))
        g["turn_done"] = jnp.where(ppick & ~closes, 0, g["turn_done"])
        return self._close_play((g, loc, place, picked, by), closes)

    def _common_step(self, s: DbfState, action: Array) -> tuple[DbfState, Array]:
        """`step` for the common steps, and which lanes it covers: (next state, common).
        Common: a live game, a legal action, not the last step allowed, and one of
        - an exposure decision (DBF-12, 13), with the draw's end, the kitty's turn and the
          pickup (DBF-14, 17), but not the annulment of an open deal (DBF-22);
        - a kitty discard pick (DBF-17), the sixth followed by the claims' first (DBF-18);
        - (`invalid_multilead = "penalty"`) a pick of a lead;
        - a play that does not end the hand (DBF-20..26): a lead by `play`, a follower's
          picks (his n-th closes his play), and the trick's end but the last;
        - (`invalid_multilead = "penalty"`) a multi-lead that DBF-23 refuses, ended by
          DBF-24's penalty (the end of the match excepted); its kitty is recorded when the
          next hand is dealt (`_dealt`).
        Written for these cases only, from the hand's card tables the state keeps (`_eff`,
        `_str`): a few reductions over the cards and a few passes, where the whole step
        evaluates every stage (`step_batch` gives it the other lanes). With `jilin_dun` (V8)
        trick play is never common. Stages: the exposure decision (`_exposure`), the discard
        or play (`_common_play`), the slots (`_common_slots`), the cards (`_common_cards`),
        the trick's points and the claims (`_common_claims`), the mask (`_common_legal`).
        """
        a = jnp.asarray(action, jnp.int32)
        g = LAYOUT.unpack(s)
        loc, picked, by = s._loc.astype(jnp.int32), s._picked, s._by.astype(jnp.int32)
        eff, strength = s._eff.astype(jnp.int32), s._str.astype(jnp.int32)
        phase = g["phase"]
        legal = (a >= 0) & (a < self.num_actions) & s.legal_action_mask[
            jnp.clip(a, 0, self.num_actions - 1)]
        # one reduction over the picked cards: how many, their effective suits' sum (a
        # lead's picks share one), how many are trumps and how many of the led suit
        sel = jnp.sum(jnp.where(picked, 1 + (eff << 6) + ((eff == TRUMP) << 12)
                                + ((eff == g["led"]) << 16), 0))
        # an exposure decision: the whole stage (the next seat's turn, or the draw's end)
        drawing = (phase == ds.PHASE_DRAW) | (phase == ds.PHASE_FINAL_PASS)
        place = s._place.astype(jnp.int32)
        w, ended = self._exposure((g, loc, place, picked, by), phase, a, annul=False)
        annulled = ended & self._annulled(w[0])  # rare: the whole step
        p = self._common_play(w[0], w[1], a, phase, g, sel, picked, eff, strength)
        g, q = self._common_slots(w[0], p, g, eff)
        loc, picked, by, tally, in_trick, expose = self._common_cards(g, q, w[1], picked, by,
                                                                      eff)
        g, loc, last = self._common_claims(g, q, loc, tally, in_trick)
        g = self._end_hand((g, loc, place, picked, by), q["pen"], ds.PENALTY)[0]
        common = (legal & ~s.terminated & ~s.truncated & (s.step_count + 1 < self.max_steps)
                  & (drawing | q["picks"] | q["full"] | q["close"] | q["pen"]) & ~last
                  & ~annulled & (g["phase"] != ds.PHASE_OVER))
        h, wide = LAYOUT.pack(_header_slots(g))
        _, new_eff, new_str = self._tables(g)  # R and T change where the draw ended
        nxt = s.replace(_h=h, _w=wide, _loc=loc.astype(jnp.int8), _picked=picked,
                        _eff=jnp.where(drawing, new_eff, eff).astype(jnp.int8),
                        _str=jnp.where(drawing, new_str, strength).astype(jnp.int8),
                        _by=by.astype(jnp.int8), current_player=g["cur"].astype(jnp.int8),
                        _skip=jnp.full((MAX_SKIP, N), -1, jnp.int8),
                        step_count=s.step_count + 1)
        mask = self._common_legal(g, loc, picked, eff, q["count"], q["sel_eff"],
                                  (tally >> 16) & 255, q["led_picked"], expose)
        return nxt.replace(legal_action_mask=mask), common

    def _common_play(self, g, loc, a, phase, g0, sel, picked, eff, strength) -> dict:
        """The discard or play of a common step (slots `g` after the exposure stage, `g0`
        before it; `sel` the picked cards' reduction): a discard pick, the sixth (`full`), a
        lead's pick, a follower's pick, a lead by `play`, whether the play closes (or a
        multi-lead DBF-23 refuses: `pen`, DBF-24), its strength (DBF-26) and the trick's
        best so far."""
        cfg = self.config
        cur, nplays = g0["cur"], g0["nplays"]
        count, n_trump = sel & 63, (sel >> 12) & 15
        card = jnp.clip(a, 0, N - 1)
        is_card = a < ds.PLAY
        leading = nplays == 0
        playing = (phase == ds.PHASE_PLAY) & (not cfg.jilin_dun)
        disc = (phase == ds.PHASE_DISCARD) & is_card
        full = disc & (count + 1 == ds.KITTY_SIZE)
        # a lead's pick (with "mask" the next pick's mask reads DBF-23: the whole step)
        lead_pick = playing & leading & is_card & (cfg.invalid_multilead == "penalty")
        follow = playing & ~leading & is_card  # a follower's pick: the n-th closes his play
        lead = playing & leading & (a == ds.PLAY) & (count >= 1)
        cards = picked | (follow & (IDS == card))  # the play, where it closes
        # the strengths as bit sets (one OR-reduction each): a lead's cards, and the other
        # hands' in its suit (DBF-23); a follow's trumps, and its cards of a plain led suit
        led = jnp.where(leading, (sel >> 6 & 63) // jnp.maximum(count, 1), g["led"])
        bit = jnp.left_shift(jnp.uint32(1), strength.astype(jnp.uint32))
        others = (loc >= 0) & (loc < 4) & (loc != cur) & (eff == led)
        sets = jnp.stack([jnp.where(leading, picked, cards & (eff == TRUMP)),
                          jnp.where(leading, others, cards & (eff == led) & (led != TRUMP))])
        bits = jax.lax.reduce(jnp.where(sets, bit, 0), jnp.uint32(0), jax.lax.bitwise_or, (1,))
        top = 31 - jax.lax.clz(bits).astype(jnp.int32)  # -1: none
        pen = jnp.bool_(False)  # a multi-lead DBF-23 refuses: DBF-24's penalty ends the hand
        if cfg.invalid_multilead == "penalty":
            pen = lead & (count >= 2) & (top[1] > jaxutil.trailing_zeros(bits[0]))
        close = (lead & ~pen) | (follow & (count + 1 == g["n"]))
        # DBF-26: a lead is worth its top card; a follow all of trumps its top trump, else
        # its top card of the led plain suit (0: none)
        all_trump = n_trump + (eff[card] == TRUMP) == count + 1
        st = jnp.where(leading, jnp.where(led == TRUMP, tk.TRUMP_BASE, tk.LED_BASE) + top[0],
                       jnp.where(all_trump, tk.TRUMP_BASE + top[0],
                                 jnp.where(top[1] >= 0, tk.LED_BASE + top[1], 0)))
        better = leading | (st > g["best_s"])
        fpick = follow & ~close
        return {"card": card, "leading": leading, "full": full, "follow": follow,
                "close": close, "pen": pen, "led": led, "st": st, "better": better,
                "ends": close & (nplays == 3), "win": jnp.where(better, cur, g["best_p"]),
                "fpick": fpick, "picks": (disc & ~full) | lead_pick | fpick, "count": count,
                "n_led": (sel >> 16) & 15}

    def _common_slots(self, g, p, g0, eff) -> tuple[dict, dict]:
        """The slots after the common step's play `p` (`g`: after the exposure stage, `g0`:
        before it), computed once with the values the card passes read (`_mat_slots`):
        (slots, those values)."""
        cur, nplays, tno = g0["cur"], g0["nplays"], g0["tno"]
        close, pen, leading, ends, win = p["close"], p["pen"], p["leading"], p["ends"], p["win"]
        picks, full, card, count = p["picks"], p["full"], p["card"], p["count"]
        g = dict(g)
        g["turn_done"] = jnp.where(picks, 0, 1)
        g["deal_done"] = jnp.int32(0)
        g["nskip"] = jnp.int32(0)
        g["n"] = jnp.where((close | pen) & leading, count, g["n"])
        g["led"] = jnp.where(close | pen, p["led"], g["led"])
        g["dun"] = jnp.where((close | pen) & leading, 0, g["dun"])
        g["best_s"] = jnp.where((close & p["better"]) | pen, p["st"], g["best_s"])
        g["best_p"] = jnp.where(close | pen, win, g["best_p"])
        g["nplays"] = jnp.where(ends, 0, nplays + (close | pen))
        g["cur"] = jnp.where(ends, win, jnp.where(close | pen, (cur + 1) % 4, g["cur"]))
        g["tleader"] = jnp.where(ends, win, g["tleader"])
        g["tno"] = tno + ends
        g["tw"] = jnp.where(ends & (jnp.arange(NUM_TRICKS) == tno), win, g["tw"])
        g, v = self._mat_slots(g, picks, close, p["follow"], 4 * tno + cur, ends, win % 2,
                               jnp.where(close | full | pen, 0, count + picks), eff[card],
                               full, self._expo_rank(g, g["cur"]), pen,
                               jnp.where(p["fpick"], p["n_led"] + (eff[card] == g["led"]), 0))
        return g, {"picks": v[0] > 0, "close": v[1] > 0, "follow": v[2] > 0, "mark": v[3],
                   "ends": v[4] > 0, "team": v[5], "count": v[6], "sel_eff": v[7],
                   "full": v[8] > 0, "er": v[9], "pen": v[10] > 0, "led_picked": v[11],
                   "card": card}

    @staticmethod
    def _common_cards(g, q, loc, picked, by, eff):
        """The cards after the common step (`q`: `_common_slots`' values): the play or the
        kitty's cards moved, the selection, then one reduction (`tally`): after the sixth
        discard, each seat's trumps (4 bits a seat); else the trick's points, the cards in
        hand, the mover's cards of the led suit and the suits of his exposable cards (DBF-12,
        13, 22). Returns (loc, picked, by, tally, the cards in the trick, the exposures)."""
        card, close, full, pen, picks = q["card"], q["close"], q["full"], q["pen"], q["picks"]
        played = (close | pen) & (picked | (q["follow"] & (IDS == card)))
        picked = picked | ((picks | full) & (IDS == card))
        loc = jnp.where(full & picked, ds.LOC_KITTY, jnp.where(played, ds.LOC_TRICK, loc))
        picked = picked & ~close & ~full & ~pen
        loc = jaxutil.materialize(loc)  # read by several passes below
        by = jnp.where(played, q["mark"], by)
        in_trick = loc == ds.LOC_TRICK
        in_hand = (loc >= 0) & (loc < 4)
        mine = loc == g["cur"]
        tally = jnp.sum(jnp.where(full, jnp.where(in_hand & (eff == TRUMP), 1 << (4 * loc), 0),
                                  jnp.where(in_trick, jnp.asarray(POINTS), 0)
                                  + jnp.where(in_hand, 256, 0)
                                  + jnp.where(mine & (eff == g["led"]), 1 << 16, 0)
                                  + jnp.where(mine & (jnp.asarray(PRANK) == q["er"]),
                                              1 << (24 + jnp.asarray(PSUIT) % 4), 0)))
        expose = ((tally >> (24 + jnp.arange(4))) & 1 > 0) & (
            (g["phase"] == ds.PHASE_DRAW) | (g["phase"] == ds.PHASE_FINAL_PASS))
        return loc, picked, by, tally, in_trick, expose

    @staticmethod
    def _common_claims(g, q, loc, tally, in_trick):
        """The trick's points to its winner's team where it ended (and whether it was the
        hand's last: scored, not a common step), then after the sixth discard the claims
        (DBF-18): the first seat from L without trumps, else play. Returns (slots, loc,
        last)."""
        ends, team, full = q["ends"], q["team"], q["full"]
        pts, in_hands = tally & 255, (tally >> 8) & 255
        g["pts"] = jnp.where(ends & (jnp.arange(2) == team), g["pts"] + pts, g["pts"])
        last = ends & (in_hands == 0)  # the hand's last trick: scored
        loc = jnp.where(ends & in_trick, ds.LOC_WON + team, loc)
        L = g["leader"]
        seats = (L + jnp.arange(4)) % 4
        none = (tally >> (4 * seats)) & 15 == 0
        j = jnp.argmax(none)
        claim = full & jnp.any(none)
        g["phase"] = jnp.where(full, jnp.where(claim, ds.PHASE_CLAIM, ds.PHASE_PLAY),
                               g["phase"])
        g["cidx"] = jnp.where(claim, j, g["cidx"])
        g["cur"] = jnp.where(full, jnp.where(claim, seats[j], L), g["cur"])
        g["tleader"] = jnp.where(full & ~claim, L, g["tleader"])
        return g, loc, last

    def _common_legal(self, g, loc, picked, eff, count, sel_eff, of_led, led_picked,
                      expose) -> Array:
        """The legal mask after a common step (`_common_step`), `count` cards picked (a lead's
        all of the effective suit `sel_eff`; a follow's `led_picked` of the led suit), the
        mover holding `of_led` cards of the led suit and `expose` the suits he may expose:
        as `_legal_from`, without Dun (V8) and the later picks of a lead that
        `invalid_multilead = "mask"` restricts."""
        phase = g["phase"]
        hand = loc == g["cur"]
        free = hand & ~picked
        playing = phase == ds.PHASE_PLAY
        leading = g["nplays"] == 0
        lead = free & ((count == 0) | (eff == sel_eff))
        # DBF-25 (`tk.follow_n_mask`): as many cards of the led suit as he holds, up to n
        n = g["n"]
        owed = jnp.minimum(of_led, n) - led_picked
        follow = free & (count < n) & ((eff == g["led"]) | (n - count - 1 >= owed))
        picks = jnp.where(playing, jnp.where(leading, lead, follow),
                          free & (phase == ds.PHASE_DISCARD))
        play = playing & leading & (count > 0)
        claim = phase == ds.PHASE_CLAIM
        passes = claim | (phase == ds.PHASE_DRAW) | (phase == ds.PHASE_FINAL_PASS)
        return jnp.concatenate([picks, play[None], expose, passes[None], claim[None]])

    def step_batch(self, states: DbfState, actions: Array, keys: Array) -> DbfState:
        """`jax.vmap(self.step)`, bit for bit: every lane takes the common step
        (`_common_step`) and a finished game stays put; the live lanes the common step does not
        cover (about 0.3% in random play: claims, the last trick, an annulled open deal, the
        match's end) take the whole step without dealing, `WHOLE_SHARE` of the lanes at a time
        (`jaxutil.update_lanes_batched`); then the lanes whose hand ended deal the next,
        `DEAL_SHARE` at a time: the shuffle and the draw to the first exposure decision
        (`_quick_dealt`), the whole `_dealt` only in a group where some hand has nobody who
        may expose."""
        batch = actions.shape[0]
        nxt, common = jax.vmap(self._common_step)(states, actions)
        # a finished game stays put (`Env._template`), as the idle lanes of a stream's end
        done = states.terminated | states.truncated
        nxt = jax.vmap(tree_where)(done, jax.vmap(self._seal)(
            states.replace(rewards=jnp.zeros_like(states.rewards))), nxt)

        def whole(_nxt, lanes, _valid):
            return jax.vmap(lambda s, a: self._template(s, a, None))(*lanes)

        nxt, own = jaxutil.update_lanes_batched(
            ~common & ~done, whole, (nxt, common), (states, actions),
            max(8, int(batch * WHOLE_SHARE)))
        need = own & self._deal_done(nxt) & ~nxt.terminated

        def deal(lanes, lane_keys, valid):  # `_dealt` where the quick deal cannot serve
            dealt, found = jax.vmap(self._quick_dealt)(lanes, lane_keys)
            return jax.lax.cond(jnp.any(valid & ~found), lambda: jax.vmap(tree_where)(
                found, dealt, jax.vmap(self._dealt)(lanes, lane_keys)), lambda: dealt)

        return jaxutil.update_lanes_batched(need, deal, nxt, keys,
                                            max(8, int(batch * DEAL_SHARE)))

    def _quick_dealt(self, s: DbfState, key: Array) -> tuple[DbfState, Array]:
        """(`_dealt(s, key)`, True) where the next hand's draw reaches an exposure decision
        (all but the rare hand in which nobody may expose): the shuffle and the draw to that
        decision, its legal mask the exposures and `pass`, without the draw's end and the
        redeal loop; else (a state not to be used, False)."""
        last = self._kitty_record(s._loc.astype(jnp.int32))
        g = self._next_slots(LAYOUT.unpack(s))
        w, found = self._draw_to_exposure(g, key)
        g = dict(w[0], dealt=w[0]["dealt"] + 1, nskip=jnp.int32(0), deal_done=jnp.int32(1))

        def exposures(g, loc):  # `_legal_from` in the draw
            return jnp.concatenate([jnp.zeros(ds.PLAY + 1, bool),
                                    self._exposable(g, loc == g["cur"]),
                                    jnp.array([True, False])])

        dealt = self._pack(s, (g,) + w[1:], rewards=jnp.zeros(4, jnp.float32),
                           terminated=jnp.bool_(False), last=last, mask=exposures)
        return dealt, found

    @staticmethod
    def _kitty_record(loc):
        kit = loc == ds.LOC_KITTY
        return dealing.kth_card(kit, jnp.arange(ds.KITTY_SIZE)).astype(jnp.int8)

    @staticmethod
    def _next_slots(g):
        return dict(g, kind=g["nkind"], starter=g["nstarter"], declaring=g["ndecl"])

    def _dealt(self, s: DbfState, key: Array) -> DbfState:
        """`MatchEnv.step_batch`'s dealing in the lanes whose step ended a hand (the ended
        hand's kitty recorded here: a common step that ends a hand leaves it to this)."""
        s = s.replace(_last=self._kitty_record(s._loc.astype(jnp.int32)))
        return self._seal(self._redeal(s, key))

    def _redeal(self, s: DbfState, key: Array) -> DbfState:
        """`s`, whose last step ended a hand (the game not over), with the next hand dealt
        from `key` and advanced to its first decision; open deals annulled at once (nobody
        can expose) are redealt, counted as hands (DBF-22, DBF-37)."""
        g0 = LAYOUT.unpack(s)
        keys = list(g0)
        sizes = [int(np.prod(jnp.shape(g0[k]))) for k in keys]

        def flat(g):  # the slots as one vector: a loop carry of few arrays is cheaper
            return jnp.concatenate([jnp.asarray(g[k], jnp.int32).reshape(-1) for k in keys])

        def slots(v):
            out, at = {}, 0
            for k, n in zip(keys, sizes, strict=True):
                out[k] = v[at] if jnp.ndim(g0[k]) == 0 else v[at:at + n]
                at += n
            return out

        def body(c):
            i, v, _, skip, _, last = c
            g = self._next_slots(slots(v))
            w = self._deal_hand(g, jnp.where(i == 0, key, jax.random.fold_in(key, i)))
            g1, loc, place, picked, by = w
            again = g1["phase"] == ds.PHASE_DEAL
            ended = again | (g1["phase"] == ds.PHASE_OVER)
            skip = jnp.where(again & (jnp.arange(MAX_SKIP) == i)[:, None],
                             place.astype(jnp.int8)[None], skip)
            last = jnp.where(ended, self._kitty_record(loc), last)
            g1 = dict(g1, dealt=g1["dealt"] + 1)
            return i + 1, flat(g1), w[1:], skip, again, last

        wt = (jnp.zeros(N, jnp.int32), jnp.zeros(N, jnp.int32), jnp.zeros(N, bool),
              jnp.zeros(N, jnp.int32))
        init = (jnp.int32(0), flat(g0), wt, s._skip, jnp.bool_(True), s._last)
        i, v, rest, skip, _, last = jax.lax.while_loop(lambda c: c[4], body, init)
        g = slots(v)
        over = g["phase"] == ds.PHASE_OVER
        g["nskip"] = i - 1
        g["deal_done"] = jnp.int32(1)
        team = jnp.arange(4) % 2
        rew = jnp.where(g["winner"] < 0, 0.0, jnp.where(team == g["winner"], 1.0, -1.0))
        rewards = jnp.where(over, rew, 0.0).astype(jnp.float32)
        return self._pack(s, (g,) + tuple(rest), rewards=rewards, terminated=over,
                          skip=skip, last=last)

    # ---- the legal mask -------------------------------------------------------------------
    def _legal(self, s: DbfState) -> Array:
        g, loc, place, picked, by = self._unpack(s)
        return self._legal_from(g, loc, picked)

    def _legal_from(self, g, loc, picked) -> Array:
        cfg = self.config
        phase, cur = g["phase"], g["cur"]
        trump, eff, strength = self._tables(g, stored=True)
        hand = loc == cur
        prank = jnp.asarray(PRANK)
        # exposure: the mover's cards of his exposable rank (DBF-12/13/22)
        drawing = (phase == ds.PHASE_DRAW) | (phase == ds.PHASE_FINAL_PASS)
        expose = self._exposable(g, hand) & drawing
        # the discard
        discard = (phase == ds.PHASE_DISCARD) & hand & ~picked
        # play
        playing = phase == ds.PHASE_PLAY
        count = jnp.sum(picked, dtype=jnp.int32)
        leading = g["nplays"] == 0
        # a lead (DBF-21/23, V8): completable selections only
        sel_eff = jnp.max(jnp.where(picked, eff, -1))
        same_eff = jnp.all(~picked | (eff == sel_eff))
        others = (loc >= 0) & (loc < 4) & (loc != cur)
        omax = tk.highest_by_suit(others, eff, strength, TRUMP + 1)  # by effective suit (DBF-23)
        smin = jnp.min(jnp.where(picked, strength, 99))
        multi = hand & ~picked & ((count == 0) | (same_eff & (eff == sel_eff)))
        if cfg.invalid_multilead == "mask":
            ok = omax[eff] <= jnp.minimum(smin, strength)
            multi = multi & ((count == 0) | ok)
        if cfg.jilin_dun:
            nrank = jnp.sum(hand[:, None] & (prank[:, None] == jnp.arange(13)), axis=0)
            quad_rank = jnp.concatenate([nrank == 4, jnp.zeros(1, bool)])[prank]  # -1: False
            sel_rank = jnp.max(jnp.where(picked, prank, -1))
            same_rank = jnp.all(~picked | (prank == sel_rank)) & ~jnp.any(picked & JOKER)
            dun = (hand & ~picked & quad_rank & ~jnp.asarray(JOKER)
                   & ((count == 0) | (same_rank & (prank == sel_rank))))
            dun_whole = (count == 4) & same_rank
        else:
            dun = jnp.zeros(N, bool)
            dun_whole = jnp.bool_(False)
        lead = multi | dun
        whole = (count == 1) | dun_whole | ((count >= 2) & same_eff & (
            True if cfg.invalid_multilead == "penalty" else
            jnp.all(omax[jnp.clip(sel_eff, 0, 4)] <= smin)))
        # a follow (DBF-25, V8)
        n = g["n"]
        follow = tk.follow_n_mask(hand, picked, eff == g["led"], n)
        if cfg.jilin_dun:
            has_quad = jnp.any(nrank == 4)
            qfollow = (hand & ~picked & quad_rank & ~jnp.asarray(JOKER)
                       & ((count == 0) | (prank == sel_rank)))
            tfollow = tk.follow_n_mask(hand, picked, trump, n)
            dfollow = jnp.where(has_quad, qfollow, tfollow)
            follow = jnp.where(g["dun"] > 0, dfollow, follow)
        picks = jnp.where(playing, jnp.where(leading, lead, follow), discard)
        play = playing & leading & (count > 0) & whole
        passes = drawing | (phase == ds.PHASE_CLAIM)
        claim = phase == ds.PHASE_CLAIM
        return jnp.concatenate([picks, play[None], expose, passes[None], claim[None]])

    def turn_done(self, state):
        return state._h[..., LAYOUT.head["turn_done"]] > 0

    def plays_card(self, state, action):
        """Whether `action` at `state` plays a card to a trick (`kanjax bench`'s unit): a pick
        in the play phase (a kitty discard pick is not one)."""
        phase = state._h[..., LAYOUT.head["phase"]]
        return (jnp.asarray(action) < N) & (phase == ds.PHASE_PLAY)

    # ---- views -------------------------------------------------------------------------------
    def summary(self, state):
        """The comparable facts of a state under the reference's names (`DbfRef.facts`):
        arrays; `selection` bool[54], `trick` the seat of each card in the current trick
        (-1), `trick_winners` int8[12] (-1 for tricks not played); and the chance: `place`
        (each card's place in the hand's deck order), `skip` / `nskip` (deals annulled within
        the step)."""
        g = LAYOUT.unpack(state)
        i8 = jnp.int8
        out = dict(common_summary(state))
        for name, k in SUMMARY_SLOTS.items():
            out[name] = g[k].astype(jnp.int32 if k in LAYOUT.wide else i8)
        loc = state._loc
        by = state._by.astype(jnp.int32)
        out["location"] = loc
        out["selection"] = state._picked
        out["trick"] = jnp.where(loc == ds.LOC_TRICK, by % 4, -1).astype(i8)
        out["place"] = state._place
        out["skip"] = state._skip
        out["last_kitty"] = state._last
        return out

    def observation_spec(self) -> ObservationSpec:
        return OBS_SPEC

    def _observe(self, s, player):
        g, loc, place, picked, by = self._unpack(s)
        cfg = self.config
        p = player
        mine = loc == p
        played_by = jnp.where(by >= 0, by % 4, -1)
        trick_no = jnp.where(by >= 0, by // 4, -1)
        kitty = loc == ds.LOC_KITTY
        after_draw = g["phase"] >= ds.PHASE_DISCARD
        seen_kitty = kitty & (g["leader"] == p) & (g["took"] > 0)
        turned = (place >= ds.NUM_DRAWN) & (place < ds.NUM_DRAWN + g["turned"])
        shown = jnp.bool_(cfg.expose_kitty or cfg.jilin_show_kitty) & after_draw & (
            place >= ds.NUM_DRAWN)
        # the dealt kitty cards L took stay known to all where they were shown
        known_kitty = seen_kitty | turned | shown | (
            kitty & jnp.bool_(cfg.jilin_show_kitty) & after_draw)
        exposed = IDS == g["exposed"]
        cards = jnp.stack([mine, picked & mine, known_kitty, exposed, played_by, trick_no],
                          axis=1)
        return OBS_SPEC.assemble({
            "cards": cards, "me": p, "current_player": s.current_player,
            "head": jnp.stack([g[k] for k in OBS_HEAD]), "levels": g["lev"],
            "points": g["pts"], "trick_winners": g["tw"],
        })

    def action_name(self, action, state=None) -> str:
        return ds.action_name(int(action))

    def action_from_name(self, name, state=None) -> int:
        return ds.action_id(" ".join(str(name).split()))

    # ---- deal strings ----------------------------------------------------------------------
    def _start_from(self, place, kind, starter, declaring, lev, hands_played):
        g = self._blank_slots()
        g.update(kind=kind, starter=starter, declaring=declaring, lev=lev,
                 hands_played=hands_played)
        w = self._deal_hand(g, None, place)
        s = self._init(jax.random.PRNGKey(0))
        return self._pack(s, w, last=jnp.full(ds.KITTY_SIZE, -1, jnp.int8))

    def from_deal(self, deal: str, key: Array | None = None) -> DbfState:
        """The state at the first decision of a hand given as a deal string

        `da_bai_fen [kind=first|later|open] [starter=0..3] [declaring=0|1] [levels=a,b]
        [hands=k] | <seat 0> | <seat 1> | <seat 2> | <seat 3> | kitty: <6 cards>`

        each seat's 12 cards in the order drawn and the kitty in its order (so the deck order
        of DBF-11 is fixed); missing fields: the game's first hand (`first_starter`,
        `start_level`). A later hand needs `declaring`. `key` is unused."""
        cfg = self.config
        d, f = read_deal(deal, self.name, ds.DECK, DEAL_FIELDS, ("kitty",))
        kind = ds.HAND_KIND_NAMES.index(f.choice("kind", ds.HAND_KIND_NAMES, "first"))
        starter = f.ints("starter", 1, 0, 3)[0] if "starter" in f else cfg.first_starter
        levels = (f.ints("levels", 2, ds.MIN_LEVEL, ds.MAX_LEVEL) if "levels" in f
                  else [cfg.start_level] * 2)
        played = f.ints("hands", 1, 0, cfg.max_hands - 1)[0] if "hands" in f else 0
        if kind == ds.LATER_HAND and "declaring" not in f:
            raise ValueError("deal field declaring=0|1 is needed for kind=later")
        if kind != ds.LATER_HAND and "declaring" in f:
            raise ValueError(f"deal field declaring: a {ds.HAND_KIND_NAMES[kind]} hand has "
                             "no preset declarers")
        declaring = f.ints("declaring", 1, 0, 1)[0] if "declaring" in f else -1
        if len(d.hands) != ds.NUM_PLAYERS:
            raise ValueError(f"deal has {len(d.hands)} hands: want 4 (seats 0..3)")
        kitty = d.section("kitty")
        if kitty is None or len(kitty) != ds.KITTY_SIZE:
            raise ValueError("deal needs a kitty section of 6 cards: '| kitty: <cards>'")
        for seat, hand in enumerate(d.hands):
            if len(hand) != ds.HAND_SIZE:
                raise ValueError(f"hand of seat {seat} has {len(hand)} cards: want 12")
        place = deck_places(ds.DECK, [
            *((c, 4 * i + (seat - starter) % 4) for seat, hand in enumerate(d.hands)
              for i, c in enumerate(hand)),
            *((c, ds.NUM_DRAWN + i) for i, c in enumerate(kitty))])
        s = jitted(self, "_start_from")(
            jnp.asarray(place, jnp.int32), jnp.int32(kind), jnp.int32(starter),
            jnp.int32(declaring), jnp.asarray(levels, jnp.int32), jnp.int32(played))
        if int(np.asarray(s._h)[LAYOUT.head["phase"]]) == ds.PHASE_DEAL:
            raise ValueError("this open deal has no seat that may expose: it is annulled at "
                             "once (DBF-22)")
        return s

    def deal_string(self, state: DbfState) -> str:
        """The current hand's deal (unbatched): each seat's 12 cards in the order drawn, the
        kitty in order, and the hand's kind, starter, declarers and levels (`from_deal` reads
        it back at the hand's first decision)."""
        h = np.asarray(state._h).astype(np.int64)
        g = {k: h[i] for k, i in LAYOUT.head.items()}
        wide = np.asarray(state._w)
        place = np.asarray(state._place).astype(np.int64)
        order = np.argsort(place)
        S = int(g["starter"])
        kind = int(g["kind"])
        fields = [("kind", ds.HAND_KIND_NAMES[kind]), ("starter", str(S))]
        if kind == ds.LATER_HAND:
            fields.append(("declaring", str(int(g["declaring"]))))
        fields.append(("levels", ",".join(str(int(x)) for x in g["lev"])))
        fields.append(("hands", str(int(wide[LAYOUT.wide["hands_played"]]))))
        hands = tuple(tuple(int(order[4 * i + (q - S) % 4]) for i in range(ds.HAND_SIZE))
                      for q in range(4))
        kitty = tuple(int(c) for c in order[ds.NUM_DRAWN:])
        return cards_mod.format_deal(cards_mod.Deal(self.name, tuple(fields), hands,
                                                    (("kitty", kitty),)), ds.DECK)

    def _view(self, state: DbfState) -> dict[str, np.ndarray]:
        """`summary` of one state as numpy arrays (the text view and the scene read it), and
        `by`: 4 * trick + seat of each card played in this hand (-1)."""
        view = {k: np.asarray(v) for k, v in jitted(self, "summary")(state).items()}
        return view | {"by": np.asarray(state._by).astype(np.int32)}

    def render(self, state: DbfState) -> str:
        """Levels, the hand's roles, R and T, each hand by suit, the kitty, the trick."""
        s = self._view(state)
        lines = [dbf_views.head_line(s),
                 f"points 0+2 {int(s['points'][0])} / 1+3 {int(s['points'][1])}"]
        loc = s["location"]
        for p in range(4):
            lines.append(f"{p}  {ds.DECK.format_by_suit(np.flatnonzero(loc == p))}")
        lines.append(f"kitty  {ds.DECK.format_hand(np.flatnonzero(loc == ds.LOC_KITTY))}")
        if int(s["exposed"]) >= 0:
            lines.append(f"exposed  {ds.DECK.token(int(s['exposed']))} by "
                         f"{int(s['exposer'])}")
        sel = np.flatnonzero(s["selection"])
        if len(sel):
            lines.append(f"selection  {ds.DECK.format_hand(sel)}")
        plays = dbf_views.trick_plays(s)
        if plays:
            lines.append("trick: " + ", ".join(f"{q} {ds.DECK.format_hand(c)}"
                                               for q, c in plays))
        lines.append(self.status_line(state, str, over="game over", limit=20))
        return "\n".join(lines)

    def scene(self, state: DbfState, player: int | None = None) -> Scene:
        """`views.scene`: the hands (the viewer's alone with `player`), the trick, the
        kitty as far as the viewer knows it, levels and points, how the last hand ended."""
        return dbf_views.scene(self, state, self._view(state), player)

    # ---- tournament views ---------------------------------------------------------------------
    deal_columns = (("outcome", "string"), ("P", "int16"), ("declaring", "int8"),
                    ("trump_level", "int8"), ("trump_suit", "string"))

    def deal_facts(self, before: DbfState, after: DbfState) -> dict[str, Array]:
        """The finished hand's roles (declarers / opponents by its declaring team; none in an
        annulled open deal), sides (teams), winners (the declarers with P < 40, else the
        opponents; nobody on an annulment or a tie), outcome, P, R and T."""
        gb, ga = LAYOUT.unpack(before), LAYOUT.unpack(after)
        side = jnp.arange(4) % 2
        D = gb["declaring"]
        outcome = ga["outcome"]
        scored = (outcome == ds.NORMAL) | (outcome == ds.PENALTY)
        dwin = ga["P"] < 40
        won = scored & jnp.where(side == D, dwin, ~dwin)
        return {
            "role": jnp.where(D < 0, -1, (side != D).astype(jnp.int32)).astype(jnp.int8),
            "side": side.astype(jnp.int8), "won": won, "counted": scored | (outcome == ds.TIE),
            "outcome": outcome.astype(jnp.int8), "P": ga["P"].astype(jnp.int16),
            "declaring": D.astype(jnp.int8), "trump_level": gb["R"].astype(jnp.int8),
            "trump_suit": gb["T"].astype(jnp.int8),
        }

    def deal_row(self, facts: dict) -> dict:
        t = int(facts["trump_suit"])
        return {"outcome": ds.OUTCOME_NAMES[int(facts["outcome"])], "P": int(facts["P"]),
                "declaring": int(facts["declaring"]), "trump_level": int(facts["trump_level"]),
                "trump_suit": ds.SUITS[t] if t >= 0 else "-"}


    # ---- trick play for the double-dummy solvers (`solvers.convert`) ------------------------
    def _trick_slots(self, state: DbfState) -> dict[str, np.ndarray]:
        """The header slots of an unbatched state in trick play; ValueError outside it."""
        g = {k: np.asarray(v) for k, v in LAYOUT.unpack(state).items()}
        phase = int(g["phase"])
        if phase != ds.PHASE_PLAY or bool(np.asarray(state.terminated | state.truncated)):
            what = "the match is over" if phase == ds.PHASE_PLAY else (
                f"phase {ds.PHASE_NAMES[phase]}")
            raise ValueError(f"{self.name}: the state is not in trick play ({what}); a "
                             "double-dummy position needs phase play")
        return g

    def trick_rules(self, state: DbfState | None = None) -> dict[str, Any]:
        """The rules of the hand `state` is in (its trump level R and suit T, its kitty), as
        `solvers.position.Rules`: each card's effective suit (every trump of suit T: RJ, BJ,
        the R cards, the cards of T and with yuan zhu the 2s, DBF-5) and strength within it
        (`kanjax.games.da_bai_fen.trumps.tables`, DBF-6..8: equal cards equal), its points (DBF-2: K
        and T 10, 5 5), no value for a trick as such, the last trick worth the kitty's points twice
        more (DBF-29; with `kitty_mult_last_trick` once a card of a play in it, V4), plays of up to
        12 cards (DBF-21..27) and with `jilin_dun` each card's Dun quad strength (V8). Beyond the
        solvers' limits (`Rules.limits`): the searches refuse these rules.

        An invalid multi-lead (DBF-23) is as `invalid_multilead` says (DBF-24): with
        "penalty" a move that ends the hand, the offending team's total 0 and the other's
        `penalty` = 100 + the kitty's points (DBF-42); with "mask" an illegal move.

        Not described, so refused (ValueError): `dun_points_protected` (V9). Also not in the
        rules: the scoring table (DBF-31..37, V12, V13), which reads the position's value."""
        if state is None:
            raise ValueError(f"{self.name}: the trick rules are a hand's (its trump level and "
                             "suit, its kitty): pass a state in trick play")
        cfg = self.config
        if cfg.dun_points_protected:
            raise ValueError(f"{self.name}: dun_points_protected (DBF-V9) is not described by "
                             "the solvers' rules")
        g = self._trick_slots(state)
        kitty = np.asarray(state._loc) == ds.LOC_KITTY
        return self.hand_rules(int(g["R"]), int(g["T"]), int(POINTS[kitty].sum()))

    def hand_rules(self, R: int, T: int, kitty_points: int) -> dict[str, Any]:
        """`trick_rules` of a hand of trump level `R` (a level 2..14), trump suit `T` and
        a kitty worth `kitty_points` (a PIMC bot's layout: its sampled kitty)."""
        cfg = self.config
        if cfg.dun_points_protected:
            raise ValueError(f"{self.name}: dun_points_protected (DBF-V9) is not described by "
                             "the solvers' rules")
        trump, eff, strength = (np.asarray(x) for x in sj.tables(
            jnp.int32(R), jnp.int32(T), cfg.yuan_zhu))
        kpts = kitty_points
        quads = (tuple(int(x) for x in np.asarray(sj.quad_values(jnp.int32(R), cfg.yuan_zhu)))
                 if cfg.jilin_dun else ())
        return dict(
            game=self.name, n=4, n_tricks=NUM_TRICKS, ids=tuple(range(N)),
            suit=tuple(int(x) for x in np.where(trump, T, eff)),
            rank=tuple(int(x) for x in strength), points=ds.CARD_POINTS, trick_value=0,
            last_bonus=kpts * (1 if cfg.kitty_mult_last_trick else 2),
            last_bonus_per_card=cfg.kitty_mult_last_trick, cards_a_play=ds.HAND_SIZE,
            quads=quads, invalid_lead=cfg.invalid_multilead, penalty=ds.TOTAL_POINTS + kpts,
            tokens=ds.DECK.tokens, suit_names=ds.SUITS)

    def trick_start(self, deal: str, key: Array | None = None, trump: Any = None,
                    leader: Any = None) -> DbfState:
        """Refused (ValueError): a deal string is a hand before its draw, whose exposures fix
        the trump suit (DBF-12..14) and whose declarer then exchanges the kitty (DBF-17); the
        solvers decide neither, so they take Da Bai Fen positions from states in trick play."""
        raise ValueError(f"{self.name}: no double-dummy position from a deal string: it is a "
                         "hand before the draw, whose exposures fix the trump (DBF-12..14) "
                         "and whose declarer exchanges the kitty (DBF-17), which the solvers "
                         "do not decide; solve a state in trick play instead (a record at a "
                         "card play: kanjax solve RECORD.json --step N)")

    def trick_position(self, state: DbfState) -> dict[str, Any]:
        """Seats: the players 0..3; the side: the opponents of the declaring team, so that
        the value is their card points P (DBF-30, DESIGN's Da Bai Fen value): taken /
        taken_other their and the declarers' trick points so far (the kitty's bonus is the
        last trick's, `trick_rules`). The current trick's plays, each in id order, from its
        leader's; its led suit the effective one (trumps: T); `quad_led` for a Dun (V8).
        `moves`: the cards the mover may pick first (a play is several picks). ValueError
        outside trick play, or while the mover has picked part of his play (a position
        starts at a play)."""
        g = self._trick_slots(state)
        loc = np.asarray(state._loc).astype(np.int32)
        by = np.asarray(state._by).astype(np.int32)
        picked = np.flatnonzero(np.asarray(state._picked))
        cur = int(g["cur"])
        if len(picked):
            raise ValueError(f"{self.name}: player {cur} has picked "
                             f"{ds.DECK.format_hand(picked)} of his play; a double-dummy "
                             "position starts at a play")
        tno, leader, nplays = int(g["tno"]), int(g["tleader"]), int(g["nplays"])
        trick: list[int] = []
        for i in range(nplays):
            seat = (leader + i) % 4
            play = np.flatnonzero((loc == ds.LOC_TRICK) & (by == 4 * tno + seat))
            if len(play) != int(g["n"]):
                raise ValueError(f"{self.name}: bad state: {len(play)} cards of player "
                                 f"{seat} in a trick of plays of {int(g['n'])}")
            trick += [int(c) for c in play]
        led = int(g["led"])
        opp = 1 - int(g["declaring"])
        pts = g["pts"]
        return dict(
            players=(0, 1, 2, 3),
            hands=tuple(tuple(int(c) for c in np.flatnonzero(loc == p)) for p in range(4)),
            trump=int(g["T"]), leader=leader, side=tuple(p % 2 == opp for p in range(4)),
            trick=tuple(trick), led=-1 if not nplays else int(g["T"]) if led == TRUMP else led,
            tricks_done=tno, taken=int(pts[opp]), taken_other=int(pts[1 - opp]),
            moves=tuple(int(a) for a in np.flatnonzero(
                np.asarray(state.legal_action_mask)[:N])),
            play_cards=int(g["n"]) if nplays else 1, quad_led=bool(nplays and g["dun"] > 0))


DEAL_FIELDS = ("kind", "starter", "declaring", "levels", "hands")
SUMMARY_SLOTS = {
    "phase": "phase", "turn_done": "turn_done", "deal_done": "deal_done",
    "hands_played": "hands_played", "hand_kind": "kind", "declaring": "declaring",
    "trump_level": "R", "trump_suit": "T", "starter": "starter", "leader": "leader",
    "exposer": "exposer", "exposed": "exposed", "drawn": "drawn", "turned": "turned",
    "trick_leader": "tleader", "dun": "dun", "protected": "protected", "outcome": "outcome",
    "P": "P", "hook": "hook", "last_protected": "lprot", "winner": "winner", "levels": "lev",
    "points": "pts", "kitty_bonus": "kb", "last_points": "lpts", "trick_winners": "tw",
    "tricks_done": "tno", "plays": "nplays", "nskip": "nskip", "dealt": "dealt",
}
OBS_HEAD = ("phase", "kind", "starter", "leader", "declaring", "R", "T", "exposer", "drawn",
            "turned", "tno", "tleader", "nplays", "n", "led", "dun", "outcome")
OBS_SPEC = ObservationSpec((
    ObsField("cards", 6 * N, -1, NUM_TRICKS, "54 x 6, card-major: [in my hand, in my "
             "selection, a kitty card I know, the exposed card, played by (seat, -1), in "
             "trick (0..11, -1)]"),
    ObsField("me", 1, 0, 3, "the observer"),
    ObsField("current_player", 1, -1, 3, "the player to act, -1 at the end"),
    ObsField("head", len(OBS_HEAD), -1, 127, "the hand's public slots: " + ", ".join(OBS_HEAD)),
    ObsField("levels", 2, 0, 127, "team levels"),
    ObsField("points", 2, 0, 127, "trick points by team"),
    ObsField("trick_winners", NUM_TRICKS, -1, 3, "the winner of each trick, -1"),
))


def make_dbf(name: str, **flags) -> DbfEnv:
    """`kanjax.make` factory."""
    return DbfEnv(ds.DbfConfig.from_flags(**flags))
