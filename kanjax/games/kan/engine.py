"""The Kan family (Gonin, Yonin, Gambari) as jittable JAX environments: the shared machinery.

Rules: docs/rules/kan.md (rule ids KAN-n in comments). `KanEnv` holds what every variant shares:
the packed state, dealing, trick play, the end-of-deal scoring and round bookkeeping, the
observation, action names and deal strings. Each variant (`gonin.py`, `yonin.py`,
`gambari.py`) writes its own deal start (`_deal_start`), legal mask (`_legal_from`) and step
(`_step`), built from these pieces; the static `KanConfig` (`spec`) selects the variant.

Conventions (shared with the plain-Python references):
- players keep identity, seats move (KAN-7); `current_player` and `rewards` are by player;
- `init(key)` deals deal 1 of round 0; `step(state, a, key)` uses `key` whenever the step ends
  a deal: the next deal (or a redeal) is shuffled and its chance events are applied in that
  same step, so every returned state is at a decision;
- rewards: when a round ends, each player gets what the round adds to his match score.

The step is branch-free: every phase's update is computed and selected with `jnp.where` on
the phase, so `jit(vmap(step))` runs one fixed kernel; the trick winner and points are kept
as running values (no per-card reductions in a play step). `step` shuffles the next deal in
every step (it is selected only where a deal ended); `step_batch` (the same results) deals
only in the lanes that ended a deal, a few lanes at a time (`kanjax.core.match.MatchEnv`,
the match-of-deals base; `kanjax.core.dealing` shuffles and deals).

The state's arrays and the header's slots (`KanLayout`): docs/kan-engine.md.
"""

from __future__ import annotations

import dataclasses
import importlib
import re

import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, ObservationSpec, ObsField, common_summary, register_state
from kanjax.capabilities import Benchmarked, TrickPlay, Views
from kanjax.core import cards as cards_mod
from kanjax.core import dealing, jaxutil
from kanjax.core import trick as trick_kernel
from kanjax.core.deal_fields import DealFields, read_deal
from kanjax.core.layout import Layout
from kanjax.core.match import MatchEnv, MatchState
from kanjax.games.kan import spec as ks
from kanjax.games.kan.results import KanResults
from kanjax.games.kan.scoring import deal_tables, round_bound

# ---- phases --------------------------------------------------------------------------------
IKU_KOI, SIGNAL, TRUMP, PLAY, DECIDE, SHIPPO, OVER, BID, CONTRACT = range(len(ks.PHASE_NAMES))
PHASE_NAMES = ks.PHASE_NAMES

PLAYED = 8  # `_loc` code: PLAYED + 8 * trick + player for a card played this deal
JK = ks.JK
NC = ks.NUM_CARDS

# ---- static card tables (kan.md §15) ---------------------------------------------------------
CARD_IDS = np.arange(NC)
SUIT = np.array([c // 13 for c in range(52)] + [4], np.int32)  # JK: 4 (no suit)
NOT_JK = CARD_IDS != JK

# Signals (KAN-38): form and the two hand indices shown, per signal action.
SIG_TABLE = np.full((ks.NUM_SIGNALS, 3), -1, np.int32)
for _k in range(ks.NUM_SIGNALS):
    _form, _shown = ks.decode_signal(ks.SIGNAL + _k)
    SIG_TABLE[_k, 0] = _form
    SIG_TABLE[_k, 1 : 1 + len(_shown)] = _shown

_TOK = ks.deck("gonin_kan")
# Kan card tokens by id for every id 0..52 (cards outside a deck still name actions).
CARD_TOKENS = tuple(cards_mod.RANK_CHARS[c % 13] + ks.SUITS[c // 13] for c in range(52)) + (
    "JK",)
# What the players other than the shower see of a signal's form (KAN-38).
SIGNAL_SEEN = {ks.F1: "two together", ks.F2: "shown twice", ks.F3: "shown twice",
               ks.F4: "one", ks.F5: "none"}
# Names of every action but the signals (KanEnv.action_name).
SIMPLE_NAMES = {c: f"play {CARD_TOKENS[c]}" for c in range(NC)}
SIMPLE_NAMES.update({ks.LEAD_JK + i: f"lead JK naming {x}" for i, x in enumerate(ks.SUITS)})
SIMPLE_NAMES.update({ks.TRUMP + i: f"trump {x}" for i, x in enumerate(ks.SUITS)})
SIMPLE_NAMES.update({
    ks.IKU: "IKU", ks.KOI: "KOI", ks.STOP: "STOP", ks.JUUROKU: "JUUROKU",
    ks.SHIPPO_CALL: "Shippo CALL", ks.SHIPPO_NO_CALL: "Shippo NO_CALL", ks.KAN_BID: "KAN",
    ks.PASS_BID: "PASS", ks.CONTRACT_NONE: "contract NONE", ks.CONTRACT_SKUNK: "contract SKUNK",
    ks.CONTRACT_ALL16: "contract ALL16",
})
SIMPLE_IDS = {v: k for k, v in SIMPLE_NAMES.items()} | {"GYAKU_JUUROKU": ks.JUUROKU}


# ---- the packed state -------------------------------------------------------------------------
HEAD_SCALARS = (
    "phase", "deal", "dealer", "trump", "trick", "nplayed", "leader", "led", "jk_named",
    "jk1", "ace1", "iku0", "iku1", "sig_form", "sig_a", "sig_b", "declared", "shippo",
    "pk", "pm", "best_s", "best_p", "tpts", "nijuu_c", "nijuu_x", "out1", "out2", "out3",
    "last_outcome", "last_deal", "last_pk", "last_pm", "deal_done", "target", "contract",
    "declarer",
)
WIDE_SCALARS = ("round", "rk", "rm", "dealt")


class KanLayout(Layout):
    """The named slots of a Kan header for n players (see the module docstring)."""

    def __init__(self, n: int) -> None:
        super().__init__(
            head=[(k, None) for k in HEAD_SCALARS] + [
                ("first3", 3), ("winners", ks.NUM_TRICKS), ("seat_of", n), ("pos", n),
                ("kankei", n)],
            wide=[(k, None) for k in WIDE_SCALARS] + [("scores", n)])


def obs_fields(config: ks.KanConfig, active: int, deals: int) -> tuple[ObsField, ...]:
    """The observation's fields every variant has, in order (`KanEnv._observe`; a variant
    adds its own after them). Players are absolute ids (0..n-1); suits C D H S = 0..3."""
    n, nr, r = config.players, config.n_rounds, round_bound(config)
    f = ObsField
    return (
        f("cards", 4 * NC, -1, ks.NUM_TRICKS - 1, "53 x 4, card-major, for card ids 0..52 "
          "(this deal): [in my hand 1 / 0 (Yonin trump choice: the chooser sees only his first "
          "three cards, the others none, KAN-57), played by (player, -1), trick played in "
          "(0..9, -1), taken by (the trick's winner, -1)]"),
        f("me", 1, 0, n - 1, "the observer"),
        f("phase", 1, 0, len(PHASE_NAMES) - 1, "the phase (PHASE_NAMES)"),
        f("current_player", 1, -1, n - 1, "the player to act, -1 at the end"),
        f("round", 1, 0, nr, "rounds finished (n_rounds at the end)"),
        f("deal", 1, 1, deals, "the deal of the round"),
        f("dealer", 1, 0, n - 1, "the dealer"),
        f("trump", 1, -1, 3, "the trump suit, -1 not named yet"),
        f("trick", 1, 0, ks.NUM_TRICKS, "tricks completed this deal"),
        f("n_played", 1, 0, active - 1, "cards in the current trick"),
        f("leader", 1, 0, n - 1, "the leader of the current trick (IKU_KOI: the default "
          "leader)"),
        f("led_suit", 1, -1, 3, "the led suit of the current trick (a JK lead: the suit "
          "named), -1 before the lead"),
        f("jk_named", 1, -1, 3, "the suit named by this deal's JK lead, -1"),
        f("declared", 1, 0, 2, "0, 1 juuroku, 2 gyaku juuroku (KAN-32)"),
        f("shippo_offered", 1, 0, 1, "Shippo-Jo offered this deal (KAN-71)"),
        f("deal_done", 1, 0, 1, "the last step ended a deal"),
        f("last_outcome", 2, -1, ks.NUM_OUTCOMES - 1, "the last finished deal: its outcome "
          "(OUTCOME_NAMES), its deal number; -1 before any"),
        f("round_outcomes", 3, -1, ks.NUM_OUTCOMES - 1, "outcomes of deals 1..3 of this "
          "round, -1"),
        f("points", 2, -1, len(ks.POINT_CARDS), "point cards taken this deal by the kankei, "
          "the mukankei; -1 while the teams are secret (Yonin deal 1, KAN-28)"),
        f("seat_of", n, 0, n - 1, "the seat of each player (KAN-7)"),
        f("kankei", n, -1, 1, "each player kankei 1 / mukankei 0, -1 where the observer "
          "cannot know (Yonin deal 1, KAN-52)"),
        f("deal1_holders", 2, -1, n - 1, "the deal-1 holders of JK and poh (Yonin: the trump "
          "jack), from deal 2 on; -1"),
        f("nijuu", 3, -1, NC - 1, "the nijū exchange (KAN-18): happened 1 / 0, then the cards "
          "c and x for the two kankei (H and P), else -1"),
        f("iku", 2, -1, 1, "IKU 1 / KOI 0 of the default leader and of the other kankei, "
          "public once resolved (the default leader sees his own before), -1"),
        f("signal", 3, -1, NC - 1, "the signal (KAN-38): form 1..5 (-1 none; the others see "
          "F3 as F2), then the card ids shown, for the shower and the chooser only, -1"),
        f("rk_rm", 2, -r, r, "the round's accumulators Rk, Rm (KAN-40)"),
        f("scores", n, -nr * r, nr * r, "match scores of the finished rounds"),
        f("last_cards", 3 * NC, -1, ks.NUM_TRICKS - 1, "the previous deal (public, KAN-46: "
          "the last finished deal while the next is played; the match's final deal stays in "
          "`cards`), 53 x 3, card-major: [played by (player, -1), trick played in (0..9, -1), "
          "taken by (the trick's winner, -1)]; -1 in the first deal"),
        f("last_winners", ks.NUM_TRICKS, -1, n - 1, "the winner of each trick of the previous "
          "deal, -1"),
        f("last_points", 2, -1, len(ks.POINT_CARDS), "the final points of the previous deal: "
          "the kankei's, the mukankei's; -1 in the first deal"),
    )


def card_table(loc: Array, winners: Array) -> tuple[Array, Array, Array]:
    """The played cards of a deal with card codes `loc` (int32[53], `_loc`'s codes) and
    trick winners `winners` (int32[10]): (played by, trick played in, taken by), int32[53]
    each, -1 for the cards not played."""
    played = loc >= PLAYED
    trick_of = jnp.where(played, (loc >> 3) - 1, -1)
    return (jnp.where(played, loc & 7, -1), trick_of,
            jnp.where(played, winners[trick_of], -1))


@register_state
@dataclasses.dataclass(frozen=True)
class KanState(MatchState):
    """A Kan match state: `_loc` card locations, `_h` header, `_w` round and scores (see the
    module docstring; `KanLayout` names the slots)."""


# ---- small pure helpers ----------------------------------------------------------------------
def _round_trump(rnd: Array, n_rounds: int) -> Array:
    """KAN-11: C D H C D H ... and S in the last round (Tome Suppe)."""
    return jnp.where(rnd == n_rounds - 1, 3, rnd % 3)


def gonin_card_moves(plain: Array, jk_mine: Array, leading: Array, led: Array,
                     t: Array) -> tuple[Array, Array]:
    """Trick-play moves under the Gonin joker rules (Gonin, Gambari), shared with the
    double-dummy solver: (cards bool[53] for actions 0..52, JK lead bool for actions 53..56),
    from the mover's non-joker cards `plain` (bool[53]), whether he holds JK, whether he
    leads, the led suit and the trick index `t` (0..9). KAN-24 follow suit, KAN-25 JK never
    in tricks 1 and 10 and forced in trick 9 (odori ban), KAN-26 a JK lead names a suit."""
    jk_follow, jk_lead, odori = gonin_joker_moves(jk_mine, leading, t)
    follow = trick_kernel.follow_mask(plain, SUIT, led)  # KAN-24
    cards = jnp.where(leading, plain, follow) & ~odori
    return cards.at[JK].set(jk_follow), jk_lead


def gonin_joker_moves(jk_mine: Array, leading: Array, t: Array) -> tuple[Array, Array, Array]:
    """The joker's part of `gonin_card_moves` (KAN-25, KAN-26), for a player who holds it
    (`jk_mine`) in trick `t` (0..9): (may play it following, may lead it naming a suit, must
    play it: the odori ban of trick 9, no other card allowed)."""
    jk_ok = jk_mine & (t >= 1) & (t <= ks.NUM_TRICKS - 2)  # KAN-25: never in tricks 1, 10
    odori = jk_mine & (t == ks.NUM_TRICKS - 2)  # KAN-25 odori ban: JK only, in trick 9
    return jk_ok & ~leading, jk_ok & leading, odori


def gonin_joker_cards(g: dict[str, Array], loc: Array, cur: Array) -> tuple[Array, Array]:
    """`gonin_card_moves` for the player `cur` of a packed state; all False outside PLAY."""
    in_play = jnp.asarray(g["phase"]) == PLAY
    cards, jk_lead = gonin_card_moves((loc == cur) & NOT_JK, loc[JK] == cur,
                                      jnp.asarray(g["nplayed"]) == 0, g["led"],
                                      jnp.asarray(g["trick"]))
    return cards & in_play, jk_lead & in_play


def action_mask(cards: Array, jk_lead: Array, blocks: dict[int, Array]) -> Array:
    """The legal mask bool[228]: `cards` (bool[53], actions 0..52), `jk_lead` (53..56) and
    `blocks` {first action id: bool vector or scalar with its length} for the rest."""
    parts = [cards, jnp.broadcast_to(jk_lead, (4,))]
    at = ks.LEAD_JK + 4
    for start, (value, size) in sorted(blocks.items()):
        if start > at:
            parts.append(jnp.zeros(start - at, jnp.bool_))
        parts.append(jnp.broadcast_to(value, (size,)))
        at = start + size
    parts.append(jnp.zeros(ks.NUM_ACTIONS - at, jnp.bool_))
    return jnp.concatenate(parts)


def summary(state: KanState) -> dict[str, Array]:
    """The comparable facts of a state (jittable, vmappable) for differential tests / logs."""
    g = KanLayout(state._w.shape[-1] - len(WIDE_SCALARS)).unpack(state)
    loc = state._loc
    i8 = jnp.int8
    return {
        **common_summary(state),
        "hand_owner": jnp.where(loc < PLAYED, loc, -1).astype(i8),
        "seat_of": g["seat_of"].astype(i8),
        "dealer": g["dealer"].astype(i8),
        "round": g["round"].astype(jnp.int16),
        "deal": g["deal"].astype(i8),
        "trump": g["trump"].astype(i8),
        "kankei": g["kankei"] > 0,
        "rk": g["rk"],
        "rm": g["rm"],
        "scores": g["scores"],
        "points": jnp.stack([g["pk"], g["pm"]], -1).astype(i8),
        "last_outcome": g["last_outcome"].astype(i8),
        "last_points": jnp.stack([g["last_pk"], g["last_pm"]], -1).astype(i8),
        "nijuu": jnp.stack([g["nijuu_c"], g["nijuu_x"]], -1).astype(i8),
        "deal_done": g["deal_done"] > 0,
        "trick": g["trick"].astype(i8),
        "leader": g["leader"].astype(i8),
        "played": jnp.where(loc >= PLAYED, loc - PLAYED, -1).astype(i8),  # 8 * trick + player
        "target": g["target"].astype(i8),
        "contract": jnp.stack([g["contract"], g["declarer"]], -1).astype(i8),
        "first3": g["first3"].astype(i8),
    }


class KanEnv(KanResults, MatchEnv, Views, TrickPlay, Benchmarked):  # results: kan.results
    """A whole Kan match of `n_rounds` rounds; subclasses are the variants.

    Actions: `spec`'s table (228 ids). Observation: `observe(state, p)`, laid out as
    `observation_spec()` says (`obs_fields` and the variant's `_obs_extra_fields`).
    """

    stochastic_step = True
    active: int  # players per trick (KAN-16, KAN-47, KAN-63)
    deals_per_round: int = 3  # KAN-10

    def __init__(self, config: ks.KanConfig) -> None:
        self.config = config
        self.name = {v: k for k, v in ks.GAME_VARIANT.items()}[config.variant]
        self.num_players = config.players
        self.num_actions = ks.NUM_ACTIONS
        self.illegal_action_penalty = config.illegal_action_penalty
        self.card_deck = ks.deck(self.name, **self._deck_flags())  # tokens <-> ids
        self.deck = np.zeros(NC, bool)
        self.deck[list(self.card_deck.ids)] = True
        self._mult, self._add, self._w3, self._kwin = deal_tables(config)
        self.layout = KanLayout(self.num_players)
        self._obs_spec = ObservationSpec(
            obs_fields(config, self.active, self.deals_per_round) + self._obs_extra_fields())

    def _deck_flags(self) -> dict:
        """The flags of `spec.deck` for this variant's deck."""
        return {}

    def __hash__(self) -> int:
        return hash(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KanEnv) and other.config == self.config

    # ---- dealing ------------------------------------------------------------------------------
    def _shuffle(self, key: Array, seat_of: Array, dealer: Array) -> tuple[Array, Array, Array]:
        """A uniform deal (KAN-8) of the deck, 10 to each active player.

        Returns (loc int32[53] owner of each card, -1 absent; rank int32[53] the card's place
        in the shuffled deck (-1 absent): places 10q..10q+9 go to ring position q, so the card
        at place 10q + i is a uniform card of that hand, independent of the hands; spare
        uint32[2] random words for the other chance events of the deal)."""
        pos = dealing.ring_positions(seat_of, dealer, self.num_players)
        deal = dealing.shuffle(key, self.deck, (ks.HAND_SIZE,) * self.active)
        return dealing.owners(deal.hand, pos), deal.rank, deal.spare

    def _begin_deal(
        self, g: dict[str, Array], loc: Array, entry: Array, spare: Array
    ) -> tuple[dict[str, Array], Array, Array]:
        """Start deal `deal` of round `round` (dealer, seats, round from the slots `g`) with
        cards `loc` (`entry`, `spare`: the shuffle's places and spare words): the ring
        positions of this deal and the per-deal slots, then the variant's `_deal_start`.
        Returns (slots, loc, current player)."""
        g = dict(g)
        g["pos"] = dealing.ring_positions(g["seat_of"], g["dealer"], self.num_players)
        g.update(self._fresh_deal_slots())
        return self._deal_start(g, loc.astype(jnp.int32), entry, spare)

    def _deal_start(
        self, g: dict[str, Array], loc: Array, entry: Array, spare: Array
    ) -> tuple[dict[str, Array], Array, Array]:
        """The variant's deal start (kan, bidding, trump choice, ...) on the prepared slots;
        updates `g` in place. Returns (slots, loc, current player)."""
        raise NotImplementedError

    @staticmethod
    def _fresh_deal_slots() -> dict[str, Array]:
        """The per-deal slots every deal starts with."""
        return dict(trick=0, nplayed=0, led=-1, jk_named=-1, iku0=-1, iku1=-1, sig_form=-1,
                    sig_a=-1, sig_b=-1, declared=0, shippo=0, pk=0, pm=0, best_s=0, best_p=0,
                    tpts=0, contract=0, declarer=-1, first3=jnp.full(3, -1),
                    winners=jnp.full(ks.NUM_TRICKS, -1))

    def _separate(self, g: dict[str, Array], a: Array, b: Array, do: Array) -> None:
        """KAN-20 / KAN-55: if players a and b sit in adjacent active seats (and `do`), the
        right-hand one swaps seats with the next player to his right. Updates seat_of, pos."""
        players = jnp.arange(self.num_players)
        pos, k = g["pos"], self.active
        gap = (pos[b] - pos[a]) % k
        adjacent = do & ((gap == 1) | (gap == k - 1))
        right = jnp.where(gap == 1, b, a)
        m = dealing.player_at(pos, (pos[right] + 1) % k)
        moves = adjacent & ((players == right) | (players == m))
        partner_of = jnp.where(players == right, m, right)
        g["seat_of"] = jnp.where(moves, g["seat_of"][partner_of], g["seat_of"])
        g["pos"] = jnp.where(moves, pos[partner_of], pos)

    # ---- the API ------------------------------------------------------------------------------
    def _blank(self) -> KanState:
        """Match start before the first deal (round 0, first dealer, nobody moved)."""
        n = self.num_players
        g = {k: jnp.int32(-1) for k in HEAD_SCALARS}
        g.update(self._fresh_deal_slots())
        g.update(phase=PLAY, deal=1, dealer=self.config.first_dealer_seat, leader=0,
                 deal_done=0, seat_of=jnp.arange(n), pos=jnp.zeros(n), kankei=jnp.zeros(n),
                 round=0, rk=0, rm=0, dealt=0, scores=jnp.zeros(n))
        h, w = self.layout.pack(g)
        return KanState(
            current_player=jnp.int8(0),
            legal_action_mask=jnp.zeros(ks.NUM_ACTIONS, jnp.bool_),
            rewards=jnp.zeros(n, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            illegal_action=jnp.bool_(False),
            step_count=jnp.int32(0),
            _loc=jnp.full(NC, -1, jnp.int8), _h=h, _w=w,
            _last=jnp.full(NC + ks.NUM_TRICKS + 2, -1, jnp.int8),
        )

    def _init(self, key: Array) -> KanState:
        s = self._blank()
        g = self.layout.unpack(s)
        return self._finish(s, *self._begin_deal(g, *self._shuffle(key, g["seat_of"],
                                                                    g["dealer"])))

    def _legal(self, s: KanState) -> Array:
        """The legal mask of `s` (bool[228]), by phase."""
        return self._legal_from(self.layout.unpack(s), s._loc, s.current_player)

    def _legal_from(self, g: dict[str, Array], loc: Array, cur: Array) -> Array:
        raise NotImplementedError

    # ---- shared step pieces ---------------------------------------------------------------------
    def trick_strength(self, suit: Array, rank: Array, led: Array, trump: Array,
                       is_jk: Array, trick: Array) -> Array:
        """KAN-27 as a number (the JK always wins); Yonin overrides trick 10 (KAN-54)."""
        return trick_kernel.card_strength(suit, rank, led, trump, is_jk)

    def _play(self, g: dict[str, Array], new: dict[str, Array], loc: Array, a: Array,
              cur: Array, in_play: Array) -> tuple[Array, Array, Array]:
        """A card played (KAN-23..KAN-28): updates the trick slots of `new` where `in_play`.
        The winner is a running maximum. Returns (loc, trick complete, its winner)."""
        t = g["trick"]
        kankei = g["kankei"] > 0
        leading = g["nplayed"] == 0
        is_jk_lead = a >= ks.LEAD_JK
        card = jnp.where(is_jk_lead, JK, a)
        loc = jnp.where(in_play & (CARD_IDS == card), PLAYED + 8 * t + cur, loc)
        card_suit = (card >= 13).astype(jnp.int32) + (card >= 26) + (card >= 39) + (card >= JK)
        rank = card - 13 * card_suit
        suit = jnp.where(is_jk_lead, a - ks.LEAD_JK, card_suit)  # a JK lead names a suit
        before = trick_kernel.Trick(led=g["led"], best=g["best_s"], winner=g["best_p"],
                                    points=g["tpts"], count=g["nplayed"])
        strength = self.trick_strength(suit, rank, trick_kernel.led_after(before, suit),
                                       new["trump"], card == JK, t)
        after, complete = trick_kernel.add_play(before, cur, suit, strength,
                                                (card < JK) & (rank >= 9), self.active)  # KAN-3
        trick = jaxutil.tree_where(in_play, after, before)
        complete = in_play & complete
        winner = trick.winner
        wk = kankei[winner]
        new.update(
            led=trick.led, best_s=trick.best, best_p=winner, tpts=trick.points,
            nplayed=trick.count,
            jk_named=jnp.where(in_play & leading & is_jk_lead, suit, g["jk_named"]),
            trick=t + complete,
            pk=g["pk"] + jnp.where(complete & wk, trick.points, 0),  # KAN-28
            pm=g["pm"] + jnp.where(complete & ~wk, trick.points, 0),
            winners=jnp.where(complete & (jnp.arange(ks.NUM_TRICKS) == t), winner,
                              g["winners"]),
        )
        return loc, complete, winner

    def _next_player(self, pos: Array, cur: Array) -> Array:
        """next(cur): the next active player to the right (KAN-5, KAN-6)."""
        return dealing.player_at(pos, (pos[cur] + 1) % self.active)

    @staticmethod
    def _checks(deal: Array, pk: Array, pm: Array, tricks: Array, declared: Array,
                target: Array, decisions: bool) -> tuple[Array, Array]:
        """End-of-trick checks (c)-(e) of KAN-30 for kankei target `target` (KAN-29, KAN-67):
        (outcome or -1, the trick winner must choose STOP / JUUROKU). `declared` is the
        active juuroku (1) / gyaku juuroku (2) or 0; with `decisions` the sukonku condition of
        deals 2/3 asks for a decision (KAN-31), else it ends the deal at once."""
        suk = (declared == 0) & (pk >= target) & (pm == 0)  # KAN-31
        gsuk = (declared == 0) & (pm >= 17 - target) & (pk == 0)
        out = jnp.where(tricks == ks.NUM_TRICKS,
                        jnp.where(pk >= target, ks.NORMAL_WIN, ks.NORMAL_LOSS), -1)  # KAN-33
        decide = (deal > 1) & (suk | gsuk) if decisions else jnp.bool_(False)
        out = jnp.where(gsuk & ~decide, ks.GYAKU_SUKONKU, out)
        out = jnp.where(suk & ~decide, ks.SUKONKU, out)
        out = jnp.where(decide, -1, out)
        out = jnp.where((declared == 2) & (pm == 16), ks.GYAKU_JUUROKU_OK, out)  # KAN-32
        out = jnp.where((declared == 2) & (pk > 0), ks.GYAKU_JUUROKU_FAIL, out)
        out = jnp.where((declared == 1) & (pk == 16), ks.JUUROKU_OK, out)
        out = jnp.where((declared == 1) & (pm > 0), ks.JUUROKU_FAIL, out)
        return out, decide

    def _between_deals(self, new: dict[str, Array], deal1_won: Array) -> None:
        """Changes between a won deal 1 and deal 2 (Yonin's seat change, KAN-55)."""

    def _settle(self, s: KanState, g: dict[str, Array], new: dict[str, Array], loc: Array,
                cur: Array, outcome: Array, key: Array | None) -> KanState:
        """The end of the step: where `outcome` >= 0 the deal ended: score it (KAN-40..44,
        KAN-61, KAN-68), end the round (KAN-14; rewards), pass the deal (KAN-15), end the
        match (KAN-9) or deal the next deal from `key` (`key` None: not yet, `_dealt` deals
        it; `step_batch`). Otherwise the state is `new`, `loc`, player `cur`."""
        n = self.num_players
        players = jnp.arange(n)
        deal = g["deal"]
        # Computed once: XLA would otherwise inline the whole trick play into every slot.
        outcome = jaxutil.materialize(outcome)
        ended = outcome >= 0
        o = jnp.clip(outcome, 0, ks.NUM_OUTCOMES - 1)
        void = outcome == ks.SHIPPO_VOID
        d1 = (deal == 1).astype(jnp.int32)
        kwin = jnp.asarray(self._kwin)[o]
        r = jnp.stack([g["rk"], g["rm"]])
        r_new = jnp.asarray(self._mult)[o, d1] * r + jnp.asarray(self._add)[o, d1]
        r_new = r_new + ((deal == 3) & kwin) * jnp.asarray(self._w3)  # W3
        r = jnp.where(ended, r_new, r)
        round_over = ended & ~void & (~kwin | (deal == self.deals_per_round))
        kankei = new["kankei"] > 0
        gets_rk = kankei | ((players == g["dealer"]) if n == 6 else False)  # KAN-40
        rewards = jnp.where(round_over, jnp.where(gets_rk, r[0], r[1]), 0)
        rnd = g["round"] + round_over
        terminated = round_over & (rnd >= self.config.n_rounds)
        seat = new["seat_of"]
        right = (seat[g["dealer"]] + 1) % n
        for d in (1, 2, 3):
            new[f"out{d}"] = jnp.where(round_over, -1, jnp.where(
                ended & ~void & (deal == d), outcome, g[f"out{d}"]))
        new.update(
            phase=jnp.where(terminated, OVER, new["phase"]), round=rnd,
            rk=jnp.where(round_over, 0, r[0]), rm=jnp.where(round_over, 0, r[1]),
            scores=g["scores"] + rewards,
            dealer=jnp.where(round_over, jnp.argmax(seat == right), g["dealer"]),
            deal=jnp.where(round_over, 1, jnp.where(ended & ~void, deal + 1, deal)),
            last_outcome=jnp.where(ended, outcome, g["last_outcome"]),
            last_deal=jnp.where(ended, deal, g["last_deal"]), deal_done=ended,
            last_pk=jnp.where(ended, new["pk"], g["last_pk"]),
            last_pm=jnp.where(ended, new["pm"], g["last_pm"]),
        )
        self._between_deals(new, ended & (deal == 1) & kwin & ~round_over)
        last = s._last
        if key is not None:  # a new deal (next deal, next round or redeal) in this step
            new, loc, cur, last = self._deal_where(ended & ~terminated, new, loc, cur, last,
                                                   key)
        return self._finish(s, new, loc, cur, rewards=rewards.astype(jnp.float32),
                            terminated=terminated, _last=last)

    def _deal_record(self, g: dict[str, Array], loc: Array) -> Array:
        """The finished deal's cards, trick winners and points (`_last`; KAN-46: its
        played cards and trick winners stay public while the next deal is played)."""
        return jnp.concatenate([loc, g["winners"], jnp.stack([g["pk"], g["pm"]])]).astype(
            jnp.int8)

    def _new_deal(self, g: dict[str, Array], key: Array) -> tuple[dict[str, Array], Array,
                                                                    Array]:
        """The next deal of the match at slots `g` (round, deal, dealer, seats), shuffled
        from `key` (KAN-8)."""
        return self._begin_deal(g, *self._shuffle(key, g["seat_of"], g["dealer"]))

    # ---- observation ------------------------------------------------------------------------
    def _obs_hand(self, g: dict[str, Array], loc: Array, p: Array) -> Array:
        """The cards of his hand `p` sees (bool[53])."""
        return loc == p

    def _obs_teams(self, g: dict[str, Array], p: Array) -> tuple[Array, Array]:
        """What `p` knows of the teams: (kankei int[n] 1 / 0 / -1 unknown, points [pk, pm])."""
        return g["kankei"], jnp.stack([g["pk"], g["pm"]])

    def _obs_extra_fields(self) -> tuple[ObsField, ...]:
        """The variant's own fields, after `obs_fields`."""
        return ()

    def _obs_extra(self, g: dict[str, Array]) -> dict[str, Array]:
        """The values of the variant's own fields (`_obs_extra_fields`)."""
        return {}

    def observation_spec(self) -> ObservationSpec:
        return self._obs_spec

    def _observe(self, s: KanState, player: Array) -> Array:
        """What `player` may know (KAN-46), laid out as `observation_spec()` says: the cards
        of this deal (his hand, every card played, by whom, in which trick and who took it),
        the public header, what of the teams, the nijū exchange, the iku/koi choices and the
        signal he may know, the round's accumulators, the match scores, and the tricks and
        final points of the previous deal."""
        g = self.layout.unpack(s)
        p = player.astype(jnp.int32)
        loc = s._loc.astype(jnp.int32)
        cards = jnp.stack([self._obs_hand(g, loc, p), *card_table(loc, g["winners"])], axis=1)
        last = s._last.astype(jnp.int32)
        last_winners = last[NC: NC + ks.NUM_TRICKS]
        deal = g["deal"]
        resolved = g["phase"] != IKU_KOI
        iku = jnp.stack([g["iku0"], g["iku1"]])
        iku = jnp.where(resolved | (p == g["leader"]), iku, -1)
        shower = jnp.where(deal == 2, g["ace1"], g["jk1"])
        chooser = jnp.where(deal == 2, g["jk1"], g["ace1"])
        knows = (p == shower) | (p == chooser)
        shown = [jnp.where(knows, g[k], -1) for k in ("sig_a", "sig_b")]
        form = jnp.where(~knows & (g["sig_form"] == ks.F3), ks.F2, g["sig_form"])
        is_k = g["kankei"][p] > 0
        nijuu = jnp.stack([g["nijuu_c"], g["nijuu_x"]])
        kankei, points = self._obs_teams(g, p)
        return self._obs_spec.assemble({
            "cards": cards, "me": p, "phase": g["phase"], "current_player": s.current_player,
            "round": g["round"], "deal": deal, "dealer": g["dealer"], "trump": g["trump"],
            "trick": g["trick"], "n_played": g["nplayed"], "leader": g["leader"],
            "led_suit": g["led"], "jk_named": g["jk_named"], "declared": g["declared"],
            "shippo_offered": g["shippo"], "deal_done": g["deal_done"],
            "last_outcome": jnp.stack([g["last_outcome"], g["last_deal"]]),
            "round_outcomes": jnp.stack([g["out1"], g["out2"], g["out3"]]),
            "points": points, "seat_of": g["seat_of"], "kankei": kankei,
            "deal1_holders": jnp.where(deal >= 2, jnp.stack([g["jk1"], g["ace1"]]), -1),
            "nijuu": jnp.concatenate([(nijuu[:1] >= 0).astype(jnp.int32),
                                      jnp.where(is_k, nijuu, -1)]),
            "iku": iku, "signal": jnp.stack([form, *shown]),
            "rk_rm": jnp.stack([g["rk"], g["rm"]]), "scores": g["scores"],
            "last_cards": jnp.stack(card_table(last[:NC], last_winners), axis=1),
            "last_winners": last_winners,
            "last_points": last[NC + ks.NUM_TRICKS:],
            **self._obs_extra(g),
        })

    # ---- names ---------------------------------------------------------------------------------
    def _signal_hand(self, state: KanState | None) -> list[int] | None:
        """The shower's hand sorted by card id, when `state` is at a signal (unbatched)."""
        if state is None or int(np.asarray(self.layout.unpack(state)["phase"])) != SIGNAL:
            return None
        loc = np.asarray(state._loc)
        return [int(c) for c in np.flatnonzero(loc == int(np.asarray(state.current_player)))]

    def action_name(self, action: int, state: KanState | None = None) -> str:
        """'play AS', 'play JK', 'lead JK naming H', 'IKU', 'KOI', 'STOP', 'JUUROKU',
        'trump D', 'signal F2 KH QD' (without a signal state: 'signal F2 #3 #7'),
        'signal F5', 'Shippo CALL' / 'Shippo NO_CALL', 'KAN', 'PASS', 'contract SKUNK'."""
        a = int(action)
        if a in SIMPLE_NAMES:
            return SIMPLE_NAMES[a]
        if ks.SIGNAL <= a < ks.SIGNAL + ks.NUM_SIGNALS:
            form, shown = ks.decode_signal(a)
            hand = self._signal_hand(state)
            parts = [f"signal F{form}"]
            for i in shown:
                parts.append(_TOK.token(hand[i]) if hand and i < len(hand) else f"#{i}")
            return " ".join(parts)
        raise ValueError(f"bad action {action}: not an action id 0..{ks.NUM_ACTIONS - 1}")

    def public_name(self, name: str) -> str:
        """KAN-38: the others see a signal's outward form only (F2 and F3 look alike)."""
        m = re.fullmatch(r"signal F([1-5])(?: \S+)*", name)
        return name if m is None else f"signal {SIGNAL_SEEN[int(m.group(1))]}"

    def action_from_name(self, name: str, state: KanState | None = None) -> int:
        """The inverse of `action_name`; card names in a signal need the signal state."""
        text = " ".join(str(name).split())
        if text in SIMPLE_IDS:
            return SIMPLE_IDS[text]
        m = re.fullmatch(r"signal F([1-5])((?: \S+)*)", text)
        if m is None:
            raise ValueError(f"unknown action name {name!r}")
        form, words = int(m.group(1)), m.group(2).split()
        hand = self._signal_hand(state)
        shown = []
        for w in words:
            if re.fullmatch(r"#\d", w):
                shown.append(int(w[1:]))
            elif hand is None:
                raise ValueError(f"action name {name!r}: card names in a signal need the "
                                 "state at the signal (or use #hand-index)")
            else:
                try:
                    shown.append(hand.index(_TOK.card(w)))
                except (ValueError, cards_mod.CardError):
                    raise ValueError(f"action name {name!r}: {w!r} is not a card in the "
                                     "shower's hand") from None
        if form == ks.F3:
            shown = shown[:1] if len(shown) == 2 and shown[0] == shown[1] else shown
        want = {ks.F1: 2, ks.F2: 2, ks.F3: 1, ks.F4: 1, ks.F5: 0}[form]
        if len(shown) != want or any(not 0 <= i < ks.HAND_SIZE for i in shown) or (
                want == 2 and shown[0] == shown[1]):
            raise ValueError(f"unknown action name {name!r}: bad cards for signal F{form}")
        return ks.encode_signal(form, tuple(shown))

    # ---- deal strings ----------------------------------------------------------------------------
    DEAL_FIELDS: tuple[str, ...] = ("players", "dealer", "round", "seats", "scores")

    def from_deal(self, deal: str, key: Array | None = None) -> KanState:
        """A state from a deal string; see the variant's `_from_deal` for its fields."""
        n = self.num_players
        d, f = read_deal(deal, self.name, self.card_deck, self.DEAL_FIELDS)
        if "players" in f and f.ints("players", 1)[0] != n:
            raise ValueError(f"deal field players={f['players']}: this env has {n} players")
        seats = f.ints("seats", n, 0, n - 1) if "seats" in f else list(range(n))
        if sorted(seats) != list(range(n)):
            raise ValueError(f"deal field seats={f['seats']}: want each player once")
        seat_of = np.argsort(seats)
        dealer = (f.ints("dealer", 1, 0, n - 1)[0] if "dealer" in f
                  else seats[self.config.first_dealer_seat])
        rnd = f.ints("round", 1, 0, self.config.n_rounds - 1)[0] if "round" in f else 0
        scores = f.ints("scores", n) if "scores" in f else [0] * n
        # hands by seat -> card owners (KAN-8: 10 cards to each active seat)
        if len(d.hands) != n:
            raise ValueError(f"deal has {len(d.hands)} hands: want one per seat ({n})")
        loc = np.full(NC, -1, np.int32)
        for seat, hand in enumerate(d.hands):
            p = seats[seat]
            want = 0 if (n == 6 and p == dealer) else ks.HAND_SIZE
            if len(hand) != want:
                raise ValueError(f"hand of seat {seat} (player {p}) has {len(hand)} cards: "
                                 f"want {want}")
            for c in hand:
                if not self.deck[c]:
                    raise ValueError(f"card {_TOK.token(c)} is not in the {self.name} deck")
                if loc[c] >= 0:
                    raise ValueError(f"card {_TOK.token(c)} is dealt twice")
                loc[c] = p
        s = self._blank()
        g = self.layout.unpack(s)
        g.update(seat_of=seat_of, dealer=dealer, round=rnd, scores=np.asarray(scores))
        pos = np.asarray(dealing.ring_positions(jnp.asarray(seat_of), dealer, n))
        hands = [[int(c) for c in d.hands[int(seat_of[p])]] for p in range(n)]
        g, loc, entry, spare = self._from_deal(g, f, loc, hands, pos, key)
        return self._finish(s, *self._begin_deal(g, jnp.asarray(loc), jnp.asarray(entry),
                                                 jnp.asarray(spare)))

    def _from_deal(self, g: dict, f: DealFields, loc: np.ndarray, hands: list[list[int]],
                   pos: np.ndarray, key: Array | None) -> tuple[dict, np.ndarray, np.ndarray,
                                                                np.ndarray]:
        """The variant's fields: returns (slots, loc, entry, spare) for `_begin_deal`;
        `hands` are by player, as written."""
        return g, loc, np.full(NC, -1, np.int32), np.zeros(2, np.uint32)

    def _won_outcomes(self, f: DealFields, deal_no: int) -> list[int]:
        """`won=` of a deal 2/3 string: the earlier deals' outcomes, all kankei wins."""
        won = [-1, -1, -1]
        if "won" in f:
            vals = f["won"].split(",")
            if len(vals) != deal_no - 1:
                raise ValueError(f"deal field won={f['won']}: want {deal_no - 1} outcomes")
            for i, v in enumerate(vals):
                o = int(v) if v.lstrip("-").isdigit() else (
                    ks.OUTCOME_NAMES.index(v) if v in ks.OUTCOME_NAMES else -1)
                if o not in ks.KANKEI_WINS:
                    raise ValueError(f"deal field won={f['won']}: {v!r} is not a kankei "
                                     "win (the round would have ended)")
                won[i] = o
        return won


VARIANT_ENVS = {
    "gonin": "kanjax.games.kan.gonin:GoninKanEnv",
    "yonin": "kanjax.games.kan.yonin:YoninKanEnv",
    "gambari": "kanjax.games.kan.gambari:GambariKanEnv",
}


def make_kan(name: str, **flags) -> KanEnv:
    """`kanjax.make` factory: `make_kan("gonin_kan", players=6, shippo_jo=True, ...)`."""
    config = ks.KanConfig.for_game(name, **flags)
    module, cls = VARIANT_ENVS[config.variant].split(":")
    return getattr(importlib.import_module(module), cls)(config)
