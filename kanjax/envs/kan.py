"""Gonin Kan (5 players, or 6 with the dealer sitting out) as a jittable JAX environment.

Rules: `rules/kan.md` §0-9, §12-16 (rule ids KAN-n in comments). One module for the Kan family:
the static `KanConfig` (kan_spec) selects the variant; Yonin (§10) and Gambari (§11) will add
phases to the same phase machine. Only Gonin is implemented.

Conventions (shared with the plain-Python reference):
- players keep identity, seats move (KAN-7); `current_player` and `rewards` are by player;
- `init(key)` deals deal 1 of round 0; `step(state, a, key)` uses `key` whenever the step ends
  a deal: the next deal (or the Shippo-Jo redeal) is shuffled and its chance events (nijū
  exchange KAN-18, kan KAN-17, seat change KAN-20) are applied in that same step, so every
  returned state is at a decision;
- decision order: deal 1: IKU/KOI by the default leader, then by the other kankei (KAN-21),
  then trick play; deals 2/3: the shower signals, the chooser names trump and leads
  (KAN-36..39); STOP/JUUROKU by the trick winner (KAN-31); Shippo CALL/NO_CALL (KAN-71);
- rewards: when a round ends, each player gets what the round adds to his match score.

The step is branch-free: every phase's update is computed and selected with `jnp.where` on
the phase, so `jit(vmap(step))` runs one fixed kernel; the trick winner and points are kept
as running values (no per-card reductions in a play step). The next deal is shuffled in
every step (it is selected only where a deal ended): `kanjax.trick.random_ranks` ranks 50
distinct keyed-hash keys by compare-and-add, far cheaper on CPU than a sort.

State (`KanState`): three dense arrays besides the common fields.

`_loc` int8[53], card c: -1 not in the deck; p (0..5) in player p's hand; 8 + 8t + p played
by player p in trick t (0..9) of this deal.

`_h` int8[31 + 10 + 3n], the header (named slots, `Layout`):

| slot | meaning |
|---|---|
| phase | IKU_KOI, SIGNAL, TRUMP, PLAY, DECIDE, SHIPPO, OVER |
| deal, dealer, trump | deal 1..3; dealer (player); trump suit C D H S = 0..3 (-1 unnamed) |
| trick, nplayed, leader | trick 0..9; cards in it; its leader (IKU_KOI: the default leader) |
| led, jk_named | led suit of the current trick; suit named by this deal's JK lead (-1) |
| jk1, ace1 | deal-1 joker / poh holders of the round (KAN-19) |
| iku0, iku1 | IKU 1 / KOI 0 of the default leader and of the other kankei (-1) |
| sig_form, sig_a, sig_b | signal form 1..5 and the card ids shown, in order (-1) (KAN-38) |
| declared, shippo | 0 / 1 juuroku / 2 gyaku juuroku (KAN-32); Shippo-Jo offered (KAN-71) |
| pk, pm | kankei, mukankei points this deal |
| best_s, best_p, tpts | current trick: best strength so far, its player, point cards in it |
| nijuu_c, nijuu_x | nijū exchange of this round's latest deal-1 dealing (-1) (KAN-18) |
| out1..out3 | outcome of deals 1..3 of this round (-1) |
| last_outcome, last_deal, deal_done | last finished deal; whether the last step ended one |
| winners[10] | winner of each trick of this deal (-1) |
| seat_of[n], pos[n] | seat of each player (KAN-7); ring position 0..4 in play order (6p dealer 5) |
| kankei[n] | the two active kankei of the round (KAN-17) |

`_w` int32[3 + n]: round, Rk, Rm (KAN-40), match scores of finished rounds.
"""

from __future__ import annotations

import dataclasses
import re

import jax
import jax.numpy as jnp
import numpy as np

from kanjax import cards as cards_mod
from kanjax import trick as trick_kernel
from kanjax.api import Array, Env, State, register_state
from kanjax.envs import kan_spec as ks
from kanjax.envs.kan_scoring import deal_tables

# ---- phases --------------------------------------------------------------------------------
IKU_KOI, SIGNAL, TRUMP, PLAY, DECIDE, SHIPPO, OVER = range(7)
PHASE_NAMES = ("IKU_KOI", "SIGNAL", "TRUMP", "PLAY", "DECIDE", "SHIPPO", "OVER")

PLAYED = 8  # `_loc` code: PLAYED + 8 * trick + player for a card played this deal
JK = ks.JK
NC = ks.NUM_CARDS
ACTIVE = 5  # active players per trick in Gonin (KAN-16)

# ---- static card tables (kan.md §15) ---------------------------------------------------------
CARD_IDS = np.arange(NC)
SUIT = np.array([c // 13 for c in range(52)] + [4], np.int32)  # JK: 4 (no suit)
NOT_JK = CARD_IDS != JK
ACES_JK = np.array([12, 25, 38, 51, JK])  # KAN-71
GONIN_DECK = np.array([c not in (0, 13, 26) for c in range(NC)])  # KAN-1: no 2C 2D 2H

# Signals (KAN-38): form and the two hand indices shown, per signal action.
SIG_TABLE = np.full((ks.NUM_SIGNALS, 3), -1, np.int32)
for _k in range(ks.NUM_SIGNALS):
    _form, _shown = ks.decode_signal(ks.SIGNAL + _k)
    SIG_TABLE[_k, 0] = _form
    SIG_TABLE[_k, 1 : 1 + len(_shown)] = _shown

_TOK = cards_mod.deck("gonin_kan")
# Kan card tokens by id for every id 0..52 (2C 2D 2H name actions even where not dealt).
CARD_TOKENS = tuple(cards_mod.RANK_CHARS[c % 13] + ks.SUITS[c // 13] for c in range(52)) + (
    "JK",)
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
    "last_outcome", "last_deal", "deal_done",
)
WIDE_SCALARS = ("round", "rk", "rm")


class Layout:
    """Named slots of the header `_h` (int8) and of `_w` (int32) for n players."""

    def __init__(self, n: int) -> None:
        self.n = n
        head = [(k, None) for k in HEAD_SCALARS]
        head += [("winners", ks.NUM_TRICKS), ("seat_of", n), ("pos", n), ("kankei", n)]
        wide = [(k, None) for k in WIDE_SCALARS] + [("scores", n)]
        self.head, self.wide = self._slots(head), self._slots(wide)
        self.head_size = sum(1 if m is None else m for _, m in head)
        self.wide_size = sum(1 if m is None else m for _, m in wide)

    @staticmethod
    def _slots(fields) -> dict[str, int | slice]:
        out, at = {}, 0
        for name, size in fields:
            out[name] = at if size is None else slice(at, at + size)
            at += 1 if size is None else size
        return out

    def unpack(self, s: KanState) -> dict[str, Array]:
        """Every slot as int32 (scalars: shape (...,); vectors: (..., m))."""
        h, w = s._h.astype(jnp.int32), s._w
        g = {k: h[..., i] for k, i in self.head.items()}
        g.update({k: w[..., i] for k, i in self.wide.items()})
        return g

    def pack(self, g: dict[str, Array]) -> tuple[Array, Array]:
        """(`_h`, `_w`) from a full dict of slots (unbatched)."""

        def cat(slots, dtype):
            parts = [jnp.asarray(g[k]).astype(dtype).reshape(-1) for k in slots]
            return jnp.concatenate(parts)

        return cat(self.head, jnp.int8), cat(self.wide, jnp.int32)


def obs_layout(n: int) -> tuple[tuple[str, int], ...]:
    """The observation's fields in order: (name, length); see `KanEnv._observe`."""
    return (
        ("cards", 4 * NC), ("me", 1), ("phase", 1), ("current_player", 1), ("round", 2),
        ("deal", 1), ("dealer", 1), ("trump", 1), ("trick", 1), ("n_played", 1), ("leader", 1),
        ("led_suit", 1), ("jk_named", 1), ("declared", 1), ("shippo_offered", 1),
        ("deal_done", 1), ("last_outcome", 2), ("round_outcomes", 3), ("points", 2),
        ("seat_of", n), ("kankei", n), ("deal1_holders", 2), ("nijuu", 3), ("iku", 2),
        ("signal", 3), ("rk_rm", 8), ("scores", 4 * n),
    )


@register_state
@dataclasses.dataclass(frozen=True)
class KanState(State):
    """A Kan match state: `_loc` card locations, `_h` header, `_w` round and scores (see the
    module docstring; `Layout` names the slots)."""

    _loc: Array
    _h: Array
    _w: Array


# ---- small pure helpers ----------------------------------------------------------------------
def _at_pos(pos: Array, k: Array) -> Array:
    """The player at ring position `k` (0..4)."""
    return jnp.argmax(pos == k)


def _positions(seat_of: Array, dealer: Array, n: int) -> Array:
    """Ring positions in play order starting right of the dealer (KAN-5, KAN-6): active seats
    get 0..4; the 6-player dealer gets 5 (inactive)."""
    s = seat_of.astype(jnp.int32)
    p = s - s[dealer] - 1  # -n .. n-2
    return jnp.where(p < 0, p + n, p)


def _round_trump(rnd: Array, n_rounds: int) -> Array:
    """KAN-11: C D H C D H ... and S in the last round (Tome Suppe)."""
    return jnp.where(rnd == n_rounds - 1, 3, rnd % 3)


def _kth_card(hand: Array, k: Array) -> Array:
    """The id of the card with `k` smaller cards in `hand` (bool[53]), -1 if k < 0: the hand
    as two 32-bit words, then a binary search with popcounts (scalar work; a prefix sum over
    the cards would be a slow pass on CPU)."""
    weights = (jnp.uint32(1) << jnp.asarray(CARD_IDS % 32, jnp.uint32))
    words = jnp.stack([jnp.sum(jnp.where(hand & (CARD_IDS < 32), weights, 0), dtype=jnp.uint32),
                       jnp.sum(jnp.where(hand & (CARD_IDS >= 32), weights, 0), dtype=jnp.uint32)])
    low = jax.lax.population_count(words[0]).astype(jnp.int32)
    in_low = k < low
    word = jnp.where(in_low, words[0], words[1])
    kk = jnp.where(in_low, k, k - low)
    p = jnp.zeros_like(k)
    for step in (16, 8, 4, 2, 1):  # largest p with popcount(word below bit p) <= kk
        below = jax.lax.population_count(word & ((jnp.uint32(1) << (p + step).astype(
            jnp.uint32)) - 1)).astype(jnp.int32)
        p = jnp.where(below <= kk, p + step, p)
    return jnp.where(k < 0, -1, jnp.where(in_low, p, 32 + p))


def _card_with(rank: Array, e: Array) -> Array:
    """The card id at place `e` of the shuffled deck."""
    return jnp.max(jnp.where(rank == e, CARD_IDS, -1))


def summary(state: KanState) -> dict[str, Array]:
    """The comparable facts of a state (jittable, vmappable) for differential tests / logs."""
    g = Layout(state._w.shape[-1] - len(WIDE_SCALARS)).unpack(state)
    loc = state._loc
    i8 = jnp.int8
    return {
        "current_player": state.current_player.astype(i8),
        "legal_action_mask": state.legal_action_mask,
        "rewards": state.rewards,
        "terminated": state.terminated,
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
        "nijuu": jnp.stack([g["nijuu_c"], g["nijuu_x"]], -1).astype(i8),
        "deal_done": g["deal_done"] > 0,
        "trick": g["trick"].astype(i8),
        "leader": g["leader"].astype(i8),
        "played": jnp.where(loc >= PLAYED, loc - PLAYED, -1).astype(i8),  # 8 * trick + player
    }


class KanEnv(Env):
    """Gonin Kan (`gonin_kan`, `players=5|6`): a whole match of `n_rounds` rounds.

    Actions: kan_spec's table (228 ids). Observation: `observe(state, p)` -> int8[L], fields
    in `obs_layout(n)` order (see `_observe`).
    """

    name = "gonin_kan"
    stochastic_step = True

    def __init__(self, config: ks.KanConfig) -> None:
        if config.variant != "gonin":
            raise NotImplementedError(f"Kan variant {config.variant!r} is not implemented yet")
        self.config = config
        self.num_players = config.players
        self.num_actions = ks.NUM_ACTIONS
        self.illegal_action_penalty = config.illegal_action_penalty
        # Steps per round without Shippo-Jo: deal 1: 2 (iku/koi) + 50 cards; deals 2/3:
        # signal + trump + 50 cards + one STOP/JUUROKU decision. Shippo-Jo adds one decision
        # per deal and CALL redeals (unbounded): the bound is then 4x a round's length, and a
        # match with that many CALLs truncates (State.truncated).
        per_round = 52 + 2 * 53
        rounds = config.n_rounds
        self.max_steps = (per_round + 3) * 4 * rounds if config.shippo_jo else per_round * rounds
        mult, add, w3, kwin = deal_tables(config)
        self._mult, self._add, self._w3, self._kwin = mult, add, w3, kwin
        sig_mask = np.ones(ks.NUM_SIGNALS, bool)
        if config.tournament_signals:  # KAN-73: F1, F2, F3 only
            sig_mask[ks.SIGNAL_F4 - ks.SIGNAL:] = False
        self._sig_mask = sig_mask
        self.layout = Layout(self.num_players)
        self._obs_layout = obs_layout(self.num_players)

    def __hash__(self) -> int:
        return hash(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KanEnv) and other.config == self.config

    # ---- dealing ------------------------------------------------------------------------------
    def _shuffle(self, key: Array, seat_of: Array, dealer: Array) -> tuple[Array, Array, Array]:
        """A uniform deal (KAN-8) of the 50 cards, 10 to each active player.

        Returns (loc int32[53] owner of each card, -1 absent; rank int32[53] the card's place
        0..49 in the shuffled deck: places 10q..10q+9 go to ring position q, so the card at
        place 10q is a uniform card of that hand, independent of the hands; spare uint32[2]
        random words for the other chance events of the deal)."""
        pos = _positions(seat_of, dealer, self.num_players)
        ranks, spare = trick_kernel.random_ranks(key, 50)
        absent = jnp.full(1, -1)  # 2C, 2D, 2H (KAN-1)
        rank = jnp.concatenate([absent, ranks[:12], absent, ranks[12:24], absent, ranks[24:]])
        slot = (rank >= 10).astype(jnp.int32) + (rank >= 20) + (rank >= 30) + (rank >= 40)
        loc = jnp.full(NC, -1)
        for q in range(ACTIVE):
            loc = jnp.where(GONIN_DECK & (slot == q), _at_pos(pos, q), loc)
        return loc, rank, spare

    def _begin_deal(
        self, g: dict[str, Array], loc: Array, entry: Array, spare: Array
    ) -> tuple[dict[str, Array], Array, Array]:
        """Start deal `deal` of round `round` (dealer, seats, round from the slots `g`) with
        cards `loc`: deal 1 -> kan, nijū, seat change, IKU/KOI; deals 2/3 -> the signal
        phase. Returns (slots, loc, current player)."""
        n = self.num_players
        players = jnp.arange(n)
        g = dict(g)
        deal1 = g["deal"] == 1
        pos = _positions(g["seat_of"], g["dealer"], n)
        loc = loc.astype(jnp.int32)
        trump1 = _round_trump(g["round"], self.config.n_rounds)  # KAN-11
        poh = 13 * trump1 + 12
        holder = loc[JK]
        nijuu = deal1 & (loc[poh] == holder)
        if self.config.nijuu_kan_redeal:
            # KAN-70: redealing until JK and poh are split == swapping poh with a uniform
            # card of the 40 outside the holder's hand (exactly the conditional law).
            r = (spare[1] % 40).astype(jnp.int32)
            q = pos[holder] + 1 + r // ks.HAND_SIZE
            y = _card_with(entry, ks.HAND_SIZE * jnp.where(q >= ACTIVE, q - ACTIVE, q)
                           + r % ks.HAND_SIZE)
            swapped = jnp.where(CARD_IDS == poh, loc[y], jnp.where(CARD_IDS == y, holder, loc))
            loc = jnp.where(nijuu, swapped, loc)
            nij_c, nij_x = jnp.int32(-1), jnp.int32(-1)
        else:
            # KAN-18: partner P = next(next(H)); c uniform in P's hand, x uniform in {JK, poh}.
            partner = _at_pos(pos, (pos[holder] + 2) % ACTIVE)
            c = _card_with(entry, ks.HAND_SIZE * pos[partner])
            x = jnp.where((spare[0] & 1) == 1, JK, poh)
            swapped = jnp.where(CARD_IDS == x, partner, jnp.where(CARD_IDS == c, holder, loc))
            loc = jnp.where(nijuu, swapped, loc)
            nij_c, nij_x = jnp.where(nijuu, c, -1), jnp.where(nijuu, x, -1)
        jk1, ace1 = loc[JK], loc[poh]  # KAN-17, KAN-19
        # KAN-20: adjacent kankei -> the right-hand one swaps with the next player.
        gap = (pos[ace1] - pos[jk1]) % ACTIVE
        adjacent = deal1 & ((gap == 1) | (gap == ACTIVE - 1))
        b = jnp.where(gap == 1, ace1, jk1)
        m = _at_pos(pos, (pos[b] + 1) % ACTIVE)
        moves = adjacent & ((players == b) | (players == m))
        partner_of = jnp.where(players == b, m, b)
        seat_of = jnp.where(moves, g["seat_of"][partner_of], g["seat_of"])
        pos = jnp.where(moves, pos[partner_of], pos)
        # KAN-21: default leader = the kankei with two mukankei on his right.
        dleader = jnp.where((pos[ace1] - pos[jk1]) % ACTIVE == 3, jk1, ace1)
        # KAN-36/37: in deal 2 the ace holder shows, in deal 3 the joker holder.
        shower = jnp.where(g["deal"] == 2, g["ace1"], g["jk1"])
        chooser = jnp.where(g["deal"] == 2, g["jk1"], g["ace1"])
        g.update(
            seat_of=seat_of, pos=pos,
            kankei=jnp.where(deal1, (players == jk1) | (players == ace1), g["kankei"]),
            phase=jnp.where(deal1, IKU_KOI, SIGNAL),
            leader=jnp.where(deal1, dleader, chooser),
            trump=jnp.where(deal1, trump1, -1),
            jk1=jnp.where(deal1, jk1, g["jk1"]), ace1=jnp.where(deal1, ace1, g["ace1"]),
            nijuu_c=jnp.where(deal1, nij_c, g["nijuu_c"]),
            nijuu_x=jnp.where(deal1, nij_x, g["nijuu_x"]),
            trick=0, nplayed=0, led=-1, jk_named=-1, iku0=-1, iku1=-1, sig_form=-1, sig_a=-1,
            sig_b=-1, declared=0, shippo=0, pk=0, pm=0, best_s=0, best_p=0, tpts=0,
            winners=jnp.full(ks.NUM_TRICKS, -1),
        )
        return g, loc, jnp.where(deal1, dleader, shower)

    def _finish(self, s: KanState, g: dict[str, Array], loc: Array, cur: Array,
                **common: Array) -> KanState:
        """`s` with slots `g`, cards `loc`, player `cur` (and `common` fields) and its mask."""
        h, w = self.layout.pack(g)
        # Materialise the new state once: XLA would otherwise inline its (long, scalar)
        # computation into every element of the legal mask.
        both = trick_kernel.materialize(jnp.concatenate(
            [h, loc.astype(jnp.int8), cur.astype(jnp.int8)[None]]))
        h, loc, cur = both[: h.size], both[h.size: h.size + NC], both[-1]
        s = s.replace(_loc=loc, _h=h, _w=w, current_player=cur, **common)
        return s.replace(legal_action_mask=self._legal(s))

    # ---- the API ------------------------------------------------------------------------------
    def _blank(self) -> KanState:
        """Match start before the first deal (round 0, first dealer, nobody moved)."""
        n = self.num_players
        g = {k: jnp.int32(-1) for k in HEAD_SCALARS}
        g.update(phase=IKU_KOI, deal=1, dealer=self.config.first_dealer_seat, trick=0,
                 nplayed=0, leader=0, declared=0, shippo=0, pk=0, pm=0, best_s=0, best_p=0,
                 tpts=0, deal_done=0, winners=jnp.full(ks.NUM_TRICKS, -1),
                 seat_of=jnp.arange(n), pos=jnp.zeros(n), kankei=jnp.zeros(n),
                 round=0, rk=0, rm=0, scores=jnp.zeros(n))
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
        ph, t = jnp.asarray(g["phase"]), jnp.asarray(g["trick"])
        leading = jnp.asarray(g["nplayed"]) == 0
        jk_mine = loc[JK] == cur
        jk_ok = jk_mine & (t >= 1) & (t <= 8)  # KAN-25: never in tricks 1 and 10
        odori = jk_mine & (t == 8)  # KAN-25 odori ban: JK is the only card in trick 9
        plain = (loc == cur) & NOT_JK
        follow = trick_kernel.follow_mask(plain, SUIT, g["led"])  # KAN-24
        cards = jnp.where(leading, plain, follow) & ~odori & (ph == PLAY)
        jk_play = (ph == PLAY) & jk_ok
        return jnp.concatenate([
            cards[:JK],
            (jk_play & ~leading)[None],  # 52 play JK when following
            jnp.broadcast_to(jk_play & leading, (4,)),  # 53..56 lead JK naming a suit (KAN-26)
            jnp.broadcast_to(ph == IKU_KOI, (2,)),  # 57, 58
            jnp.broadcast_to(ph == DECIDE, (2,)),  # 59, 60
            jnp.broadcast_to(ph == TRUMP, (4,)),  # 61..64
            jnp.asarray(self._sig_mask) & (ph == SIGNAL),  # 65..220 (KAN-38, KAN-73)
            jnp.broadcast_to(ph == SHIPPO, (2,)),  # 221, 222
            jnp.zeros(5, jnp.bool_),  # 223..227: Gambari / Yonin
        ])

    def _step(self, s: KanState, action: Array, key: Array) -> KanState:
        n = self.num_players
        cfg = self.config
        players = jnp.arange(n)
        g = self.layout.unpack(s)
        new = dict(g)
        a = action.astype(jnp.int32)
        cur = s.current_player.astype(jnp.int32)
        ph = g["phase"]
        in_iku, in_sig, in_trump = ph == IKU_KOI, ph == SIGNAL, ph == TRUMP
        in_play, in_dec, in_ship = ph == PLAY, ph == DECIDE, ph == SHIPPO
        kankei = g["kankei"] > 0
        pos, deal, leader = g["pos"], g["deal"], g["leader"]

        # ---- IKU / KOI (KAN-21): the default leader (`leader`) first, then the other kankei.
        first = g["iku0"] < 0
        said = (a == ks.IKU).astype(jnp.int32)
        other_k = jnp.argmax(kankei & (players != leader))
        new["iku0"] = jnp.where(in_iku & first, said, g["iku0"])
        new["iku1"] = jnp.where(in_iku & ~first, said, g["iku1"])
        resolved = in_iku & ~first
        iku_leader = jnp.where((g["iku0"] == 0) & (said == 1), other_k, leader)

        # ---- signal (KAN-38): hand index i = the card with i smaller cards in the hand
        sig = jnp.asarray(SIG_TABLE)[jnp.clip(a - ks.SIGNAL, 0, ks.NUM_SIGNALS - 1)]
        shown = _kth_card(s._loc == cur, sig[1:])
        new["sig_form"] = jnp.where(in_sig, sig[0], g["sig_form"])
        new["sig_a"] = jnp.where(in_sig, shown[0], g["sig_a"])
        new["sig_b"] = jnp.where(in_sig, shown[1], g["sig_b"])
        chooser = jnp.where(deal == 2, g["jk1"], g["ace1"])
        trump = jnp.where(in_trump, a - ks.TRUMP, g["trump"])
        new["trump"] = trump

        # ---- trick play (KAN-23..KAN-28); the winner is a running maximum
        t = g["trick"]
        leading = g["nplayed"] == 0
        is_jk_lead = a >= ks.LEAD_JK
        card = jnp.where(is_jk_lead, JK, a)
        loc = jnp.where(in_play & (CARD_IDS == card), PLAYED + 8 * t + cur, s._loc)
        card_suit = (card >= 13).astype(jnp.int32) + (card >= 26) + (card >= 39) + (card >= JK)
        rank = card - 13 * card_suit
        suit = jnp.where(is_jk_lead, a - ks.LEAD_JK, card_suit)  # a JK lead names a suit
        led = jnp.where(in_play & leading, suit, g["led"])
        new["led"] = led
        new["jk_named"] = jnp.where(in_play & leading & is_jk_lead, suit, g["jk_named"])
        strength = trick_kernel.card_strength(suit, rank, led, trump, card == JK)  # KAN-27
        better = leading | (strength > g["best_s"])
        best_s = jnp.where(better, strength, g["best_s"])
        winner = jnp.where(better, cur, g["best_p"])
        tpts = jnp.where(leading, 0, g["tpts"]) + ((card < JK) & (rank >= 9))  # KAN-3
        nplayed = g["nplayed"] + 1
        complete = in_play & (nplayed == ACTIVE)
        wk = kankei[winner]
        pk = g["pk"] + jnp.where(complete & wk, tpts, 0)  # KAN-28
        pm = g["pm"] + jnp.where(complete & ~wk, tpts, 0)
        ntricks = t + complete
        next_player = _at_pos(pos, (pos[cur] + 1) % ACTIVE)
        new.update(
            best_s=jnp.where(in_play, best_s, g["best_s"]),
            best_p=jnp.where(in_play, winner, g["best_p"]),
            tpts=jnp.where(in_play, tpts, g["tpts"]),
            nplayed=jnp.where(in_play, nplayed % ACTIVE, g["nplayed"]),
            trick=ntricks, pk=pk, pm=pm,
            winners=jnp.where(complete & (jnp.arange(ks.NUM_TRICKS) == t), winner,
                              g["winners"]),
        )
        leader = jnp.where(resolved, iku_leader, leader)
        leader = jnp.where(in_trump, cur, leader)
        leader = jnp.where(complete, winner, leader)
        new["leader"] = leader

        # ---- end-of-trick checks (KAN-30)
        # (a) Shippo-Jo (KAN-71): all aces and JK played by one team -> the other may call.
        if cfg.shippo_jo:
            code = loc[ACES_JK].astype(jnp.int32)
            by_k = kankei[code & 7]
            one_team = jnp.all(code >= PLAYED) & (jnp.all(by_k) | jnp.all(~by_k))
            trig = complete & (g["shippo"] == 0) & one_team
            callers = (kankei != by_k[0]) & (pos < ACTIVE)
            decider = jnp.argmin(jnp.where(callers, (pos - pos[winner]) % ACTIVE, ACTIVE))
        else:
            trig = jnp.bool_(False)
            decider = jnp.int32(0)
        new["shippo"] = g["shippo"] | trig
        nocall = in_ship & (a == ks.SHIPPO_NO_CALL)
        run = (complete & ~trig) | nocall
        # (c) juuroku, (d) sukonku, (e) normal end.
        tgt = jnp.where(deal == 2, 8, 9)  # KAN-29: T(d) = 9, 8, 9; U(d) = 17 - T(d)
        decl = g["declared"]
        suk = (decl == 0) & (pk >= tgt) & (pm == 0)  # KAN-31
        gsuk = (decl == 0) & (pm >= 17 - tgt) & (pk == 0)
        out = jnp.where(ntricks == ks.NUM_TRICKS,
                        jnp.where(pk >= tgt, ks.NORMAL_WIN, ks.NORMAL_LOSS), -1)  # KAN-33
        out = jnp.where((deal == 1) & gsuk, ks.GYAKU_SUKONKU, out)
        out = jnp.where((deal == 1) & suk, ks.SUKONKU, out)
        decide = (deal > 1) & (suk | gsuk)
        out = jnp.where(decide, -1, out)
        out = jnp.where((decl == 2) & (pm == 16), ks.GYAKU_JUUROKU_OK, out)  # KAN-32
        out = jnp.where((decl == 2) & (pk > 0), ks.GYAKU_JUUROKU_FAIL, out)
        out = jnp.where((decl == 1) & (pk == 16), ks.JUUROKU_OK, out)
        out = jnp.where((decl == 1) & (pm > 0), ks.JUUROKU_FAIL, out)
        outcome = jnp.where(run, out, -1)
        to_decide = run & decide
        # STOP / JUUROKU by the trick winner (KAN-31), Shippo CALL (KAN-71).
        outcome = jnp.where(in_dec & (a == ks.STOP),
                            jnp.where(pm == 0, ks.SUKONKU, ks.GYAKU_SUKONKU), outcome)
        new["declared"] = jnp.where(in_dec & (a == ks.JUUROKU), jnp.where(pm == 0, 1, 2), decl)
        outcome = jnp.where(in_ship & (a == ks.SHIPPO_CALL), ks.SHIPPO_VOID, outcome)

        # ---- next phase and player
        cur_new = jnp.where(in_iku, jnp.where(first, other_k, iku_leader), cur)
        cur_new = jnp.where(in_sig, chooser, cur_new)
        cur_new = jnp.where(in_play, jnp.where(complete, winner, next_player), cur_new)
        cur_new = jnp.where(nocall, leader, cur_new)
        phase = jnp.where(resolved | in_trump | in_dec | nocall, PLAY, ph)
        phase = jnp.where(in_sig, TRUMP, phase)
        phase = jnp.where(trig, SHIPPO, phase)
        cur_new = jnp.where(trig, decider, cur_new)
        phase = jnp.where(to_decide, DECIDE, phase)

        # ---- end of deal: score (KAN-40..44), round end (KAN-14), next dealer (KAN-15)
        ended = outcome >= 0
        o = jnp.clip(outcome, 0, ks.SHIPPO_VOID)
        void = outcome == ks.SHIPPO_VOID
        d1 = (deal == 1).astype(jnp.int32)
        kwin = jnp.asarray(self._kwin)[o]
        r = jnp.stack([g["rk"], g["rm"]])
        r_new = jnp.asarray(self._mult)[o, d1] * r + jnp.asarray(self._add)[o, d1]
        r_new = r_new + ((deal == 3) & kwin) * jnp.asarray(self._w3)  # W3
        r = jnp.where(ended, r_new, r)
        round_over = ended & ~void & (~kwin | (deal == 3))
        gets_rk = kankei | ((players == g["dealer"]) if n == 6 else False)  # KAN-40
        rewards = jnp.where(round_over, jnp.where(gets_rk, r[0], r[1]), 0)
        rnd = g["round"] + round_over
        terminated = round_over & (rnd >= cfg.n_rounds)
        seat = g["seat_of"]
        right = (seat[g["dealer"]] + 1) % n
        for d in (1, 2, 3):
            new[f"out{d}"] = jnp.where(round_over, -1, jnp.where(
                ended & ~void & (deal == d), outcome, g[f"out{d}"]))
        new.update(
            phase=jnp.where(terminated, OVER, phase), round=rnd,
            rk=jnp.where(round_over, 0, r[0]), rm=jnp.where(round_over, 0, r[1]),
            scores=g["scores"] + rewards,
            dealer=jnp.where(round_over, jnp.argmax(seat == right), g["dealer"]),
            deal=jnp.where(round_over, 1, jnp.where(ended & ~void, deal + 1, deal)),
            last_outcome=jnp.where(ended, outcome, g["last_outcome"]),
            last_deal=jnp.where(ended, deal, g["last_deal"]), deal_done=ended,
        )
        # a new deal (next deal, next round or Shippo-Jo redeal) is dealt in this step
        fresh, fresh_loc, fresh_cur = self._begin_deal(
            new, *self._shuffle(key, new["seat_of"], new["dealer"]))
        deal_now = ended & ~terminated
        new = {k: jnp.where(deal_now, fresh[k], v) for k, v in new.items()}
        return self._finish(
            s, new, jnp.where(deal_now, fresh_loc, loc), jnp.where(deal_now, fresh_cur, cur_new),
            rewards=rewards.astype(jnp.float32), terminated=terminated,
        )

    def _deal_done(self, state: KanState) -> Array:
        return state._h[..., self.layout.head["deal_done"]] > 0

    def _observe(self, s: KanState, player: Array) -> Array:
        """What `player` may know (KAN-46), int8[L]; fields in `obs_layout(n)` order:

        - cards (53 x 4, card-major): [in my hand, played by (player, -1), trick played in
          (0..9, -1), taken by (trick winner, -1)] for card ids 0..52 (this deal);
        - me, phase, current_player, round (int16 as 2 little-endian bytes), deal (1..3),
          dealer, trump (-1 unnamed), trick (0..9), n_played (cards in the current trick),
          leader (of the current trick; IKU_KOI: the default leader), led_suit, jk_named (suit
          named by this deal's JK lead), declared (0, 1 juuroku, 2 gyaku), shippo_offered,
          deal_done, last_outcome (outcome, deal), round_outcomes (deals 1..3 of this round),
          points (kankei, mukankei), seat_of (n), kankei (n);
        - deal1_holders: deal-1 joker and poh holders, from deal 2 on (else -1);
        - nijuu: [exchange happened, c, x]; c and x only for the two kankei (H and P), else -1;
        - iku: IKU(1)/KOI(0) of the default leader and of the other kankei, public once
          resolved; the default leader sees his own choice before (the other never does);
        - signal: [form, card, card]; the card ids only for the shower and the chooser;
          others see F3 as F2 (KAN-38);
        - rk_rm: Rk, Rm as int32 little-endian bytes (8); scores: n int32 as bytes (4n).
        Players are absolute ids (0..n-1); suits C=0 D=1 H=2 S=3.
        """
        g = self.layout.unpack(s)
        p = player.astype(jnp.int32)
        loc = s._loc.astype(jnp.int32)
        played = loc >= PLAYED
        trick_of = jnp.where(played, (loc >> 3) - 1, -1)
        cards = jnp.stack([
            loc == p, jnp.where(played, loc & 7, -1), trick_of,
            jnp.where(played, g["winners"][trick_of], -1),
        ], axis=1).reshape(-1)
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

        def byte(x: Array, dtype) -> Array:
            return jax.lax.bitcast_convert_type(x.astype(dtype), jnp.int8).reshape(-1)

        def i8(*xs: Array) -> Array:
            return jnp.concatenate([jnp.asarray(x).astype(jnp.int8).reshape(-1) for x in xs])

        return jnp.concatenate([
            i8(cards, p, g["phase"], s.current_player), byte(g["round"], jnp.int16),
            i8(deal, g["dealer"], g["trump"], g["trick"], g["nplayed"], g["leader"], g["led"],
               g["jk_named"], g["declared"], g["shippo"], g["deal_done"], g["last_outcome"],
               g["last_deal"], g["out1"], g["out2"], g["out3"], g["pk"], g["pm"],
               g["seat_of"], g["kankei"],
               jnp.where(deal >= 2, jnp.stack([g["jk1"], g["ace1"]]), -1),
               nijuu[0] >= 0, jnp.where(is_k, nijuu, -1), iku, form, *shown),
            byte(jnp.stack([g["rk"], g["rm"]]), jnp.int32), byte(g["scores"], jnp.int32),
        ])

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (sum(size for _, size in self._obs_layout),)

    def obs_slices(self) -> dict[str, slice]:
        """Field name -> slice of the observation (see `_observe`)."""
        out, at = {}, 0
        for name, size in self._obs_layout:
            out[name] = slice(at, at + size)
            at += size
        return out

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
    def from_deal(self, deal: str, key: Array | None = None) -> KanState:
        """A state from a deal string (hands by SEAT; the 6-player dealer's hand is empty):

            gonin_kan [players=6] [dealer=<player>] [round=<r>] [seats=<player per seat,...>]
                      [scores=<n ints>] [nijuu=<card>,<JK|poh>] | <seat 0> | <seat 1> | ...

        builds deal 1 of round r: kan (KAN-17), the nijū exchange (KAN-18; `nijuu=` gives c,
        taken from P's hand, and x; without it the exchange is drawn from `key`), the seat
        change (KAN-20); the state is at the first IKU/KOI. With `nijuu_kan_redeal` a deal
        where one hand holds JK and poh is replaced by a fresh deal drawn from `key` (KAN-70).
        Deals 2/3: add `deal=2|3 kankei=<p>,<p> joker=<p> ace=<p> [rk=<int>] [rm=<int>]
        [won=<outcome code or name>,...]` (deal-1 joker / poh holders; outcomes of the earlier
        deals of the round): the state is at the signal. Defaults: seats identity, dealer the
        occupant of `first_dealer_seat`, round 0, scores 0, rk = rm = 0. Bad fields or values
        raise ValueError naming them.
        """
        n = self.num_players
        d = cards_mod.parse_deal(deal)
        if d.game != "gonin_kan":
            raise ValueError(f"deal string for {d.game!r}: this env plays gonin_kan")
        keys = [k for k, _ in d.fields]
        f = dict(d.fields)
        allowed = {"players", "dealer", "round", "seats", "scores", "nijuu", "deal", "kankei",
                   "joker", "ace", "rk", "rm", "won"}
        for k in keys:
            if k not in allowed:
                raise ValueError(f"unknown deal field {k!r}; fields: {', '.join(sorted(allowed))}")
            if keys.count(k) > 1:
                raise ValueError(f"deal field {k!r} given twice")
        if d.sections:
            raise ValueError(f"gonin_kan deals have no named sections: {d.sections[0][0]!r}")

        def ints(k: str, count: int | None = None, lo: int | None = None,
                 hi: int | None = None) -> list[int]:
            try:
                vals = [int(v) for v in f[k].split(",")]
            except ValueError:
                raise ValueError(f"deal field {k}={f[k]!r}: want integers") from None
            if count is not None and len(vals) != count:
                raise ValueError(f"deal field {k}={f[k]!r}: want {count} values")
            if any((lo is not None and v < lo) or (hi is not None and v > hi) for v in vals):
                raise ValueError(f"deal field {k}={f[k]!r}: values must be in {lo}..{hi}")
            return vals

        if "players" in f and ints("players", 1)[0] != n:
            raise ValueError(f"deal field players={f['players']}: this env has {n} players")
        seats = ints("seats", n, 0, n - 1) if "seats" in f else list(range(n))
        if sorted(seats) != list(range(n)):
            raise ValueError(f"deal field seats={f['seats']}: want each player once")
        seat_of = np.argsort(seats)
        dealer = (ints("dealer", 1, 0, n - 1)[0] if "dealer" in f
                  else seats[self.config.first_dealer_seat])
        rnd = ints("round", 1, 0, self.config.n_rounds - 1)[0] if "round" in f else 0
        scores = ints("scores", n) if "scores" in f else [0] * n
        deal_no = ints("deal", 1, 1, 3)[0] if "deal" in f else 1
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
                if not GONIN_DECK[c]:
                    raise ValueError(f"card {_TOK.token(c)} is not in the gonin_kan deck")
                if loc[c] >= 0:
                    raise ValueError(f"card {_TOK.token(c)} is dealt twice")
                loc[c] = p
        s = self._blank()
        g = self.layout.unpack(s)
        g.update(seat_of=seat_of, dealer=dealer, round=rnd, scores=np.asarray(scores),
                 deal=deal_no)
        pos = np.asarray(_positions(jnp.asarray(seat_of), dealer, n))
        entry = np.full(NC, -1, np.int32)
        spare = np.zeros(2, np.uint32)
        if deal_no == 1:
            for k in ("kankei", "joker", "ace", "rk", "rm", "won"):
                if k in f:
                    raise ValueError(f"deal field {k!r} is only for deal=2|3")
            poh = 13 * int(_round_trump(rnd, self.config.n_rounds)) + 12
            holder = int(loc[JK])
            nijuu = loc[poh] == holder
            if "nijuu" in f and (not nijuu or self.config.nijuu_kan_redeal):
                raise ValueError(f"deal field nijuu={f['nijuu']}: no nijū exchange in this deal "
                                 f"(JK and {_TOK.token(poh)} in different hands, or "
                                 "nijuu_kan_redeal)")
            if nijuu and self.config.nijuu_kan_redeal:
                if key is None:
                    raise ValueError("nijuu_kan_redeal: this deal is redealt; pass a key")
                loc, entry, spare = self._shuffle(key, jnp.asarray(seat_of), dealer)
            elif nijuu:
                partner = int(np.flatnonzero(pos == (pos[holder] + 2) % ACTIVE)[0])
                hand = [int(c) for c in np.flatnonzero(loc == partner)]
                if "nijuu" in f:
                    toks = f["nijuu"].split(",")
                    if len(toks) != 2:
                        raise ValueError(f"deal field nijuu={f['nijuu']}: want <card>,<JK|poh>")
                    try:
                        c, x = _TOK.card(toks[0]), _TOK.card(toks[1])
                    except cards_mod.CardError as err:
                        raise ValueError(f"deal field nijuu={f['nijuu']}: {err}") from None
                    if c not in hand:
                        raise ValueError(f"deal field nijuu={f['nijuu']}: {toks[0]} is not in "
                                         f"the hand of the partner (player {partner})")
                    if x not in (JK, poh):
                        raise ValueError(f"deal field nijuu={f['nijuu']}: x must be JK or "
                                         f"{_TOK.token(poh)}")
                elif key is None:
                    raise ValueError("this deal needs a nijū exchange: give nijuu=<card>,<JK|"
                                     "poh> or a key")
                else:  # KAN-18 chance event drawn from key
                    k_c, k_x = jax.random.split(key)
                    c = hand[int(jax.random.randint(k_c, (), 0, ks.HAND_SIZE))]
                    x = JK if bool(jax.random.bernoulli(k_x)) else poh
                entry[c] = ks.HAND_SIZE * pos[partner]
                spare[0] = int(x == JK)
        else:
            for k in ("kankei", "joker", "ace"):
                if k not in f:
                    raise ValueError(f"deal={deal_no} needs field {k!r}")
            if "nijuu" in f:
                raise ValueError("deal field 'nijuu' is only for deal 1")
            kk = ints("kankei", 2, 0, n - 1)
            jk1, ace1 = ints("joker", 1, 0, n - 1)[0], ints("ace", 1, 0, n - 1)[0]
            if kk[0] == kk[1] or (n == 6 and dealer in kk):
                raise ValueError(f"deal field kankei={f['kankei']}: want two active players")
            if sorted([jk1, ace1]) != sorted(kk):
                raise ValueError(f"deal fields joker={jk1} ace={ace1}: must be the two kankei "
                                 f"{kk}")
            if (pos[kk[0]] - pos[kk[1]]) % ACTIVE in (1, ACTIVE - 1):
                raise ValueError(f"deal field kankei={f['kankei']}: kankei sit next to each "
                                 "other (KAN-20 separates them in deal 1)")
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
            g.update(kankei=np.isin(np.arange(n), kk), jk1=jk1, ace1=ace1,
                     rk=ints("rk", 1)[0] if "rk" in f else 0,
                     rm=ints("rm", 1)[0] if "rm" in f else 0,
                     out1=won[0], out2=won[1], out3=won[2])
        return self._finish(s, *self._begin_deal(g, jnp.asarray(loc), jnp.asarray(entry),
                                                 jnp.asarray(spare)))


def make_kan(name: str, **flags) -> KanEnv:
    """`kanjax.make` factory: `make_kan("gonin_kan", players=6, shippo_jo=True, ...)`."""
    return KanEnv(ks.KanConfig.for_game(name, **flags))
