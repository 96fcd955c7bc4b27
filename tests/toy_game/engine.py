"""Toy trick (`toy_trick`): the test-only example game of docs/adding_a_game.md, as a
jittable JAX environment. Its rules, with their ids: tests/toy_game/rules.md.

Two players P0, P1; six cards QS KS AS QH KH AH, three to each (TOY-1); the `leader` leads the
first trick, a trick's winner the next (TOY-2); follow suit if you can, the higher card of the
led suit wins (TOY-3); after three tricks each player is paid his tricks less the other's
(TOY-4). Card id = 3 * suit + rank (suits S H, ranks Q K A); action a plays card a. No chance
after the deal: `step` needs no key.

State (`ToyState`), besides the common fields:
- `_loc` int8[6], card c: p (0, 1) in player p's hand; PLAYED + 2t + p played by p in trick t.
- `_h` int8[6], the header: FIRST (the first trick's leader), LEADER (of the current trick),
  TRICK (tricks completed, 0..3), LED (the card led to the current trick, -1), WON (2: tricks
  taken by P0, P1).

Observation `observe(state, p)` -> int16[24] (`OBS_SPEC`): per card [in p's hand 1 / 0, played
by (player, -1), in trick (0..2, -1)], then p, the player to act, the current trick's leader,
tricks completed, the led card and the tricks each player took. Played cards are public.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import (
    Array,
    Env,
    ObservationSpec,
    ObsField,
    State,
    check_flag_keys,
    check_flag_types,
    common_summary,
    legal_actions,
    register_state,
)
from kanjax.capabilities import Bots, TournamentViews, Views
from kanjax.core import cards as cards_mod
from kanjax.core.deal_fields import read_deal
from kanjax.core.scenes import face_down
from kanjax.scene import Group, Scene, Seat, check_viewer

NAME = "toy_trick"
NUM_CARDS = 6
NUM_TRICKS = 3
PLAYED = 2  # `_loc` code: PLAYED + 2 * trick + player for a played card
CARD_IDS = np.arange(NUM_CARDS)
SUIT = CARD_IDS // 3
RANK = CARD_IDS % 3
DECK = cards_mod.Deck(NAME, tuple(cards_mod.suited_tokens("SH", "QKA")))
ACTION_NAMES = tuple(f"play {DECK.token(c)}" for c in range(NUM_CARDS))
ACTION_IDS = {name: a for a, name in enumerate(ACTION_NAMES)}
PLAYERS = ("P0", "P1")

FIRST, LEADER, TRICK, LED = 0, 1, 2, 3  # header slots of `_h`
WON = slice(4, 6)

OBS_SPEC = ObservationSpec((
    ObsField("cards", 3 * NUM_CARDS, -1, NUM_TRICKS - 1, "6 x 3, card-major: [in my hand "
             "1 / 0, played by (player, -1), in trick (0..2, -1)]"),
    ObsField("me", 1, 0, 1, "the observer"),
    ObsField("current_player", 1, -1, 1, "the player to act, -1 at the end"),
    ObsField("leader", 1, 0, 1, "the leader of the current trick"),
    ObsField("trick", 1, 0, NUM_TRICKS, "tricks completed (the current trick's index)"),
    ObsField("led", 1, -1, NUM_CARDS - 1, "the card led to the current trick, -1"),
    ObsField("won", 2, 0, NUM_TRICKS, "tricks taken by P0, P1"),
))


@dataclasses.dataclass(frozen=True)
class ToyConfig:
    """The variant flags (TOY-2): who leads the first trick."""

    leader: int = 0

    def __post_init__(self) -> None:
        check_flag_types(self)
        if self.leader not in (0, 1):
            raise ValueError(f"leader={self.leader!r}: must be 0 or 1")


@register_state
@dataclasses.dataclass(frozen=True)
class ToyState(State):
    """A deal in play: `_loc` card locations, `_h` header (the module docstring)."""

    _loc: Array
    _h: Array


def _follow_mask(hand: Array, led: Array) -> Array:
    """TOY-3: the cards of `hand` that may be played: those of the led card's suit if he holds
    any, else all (all too when leading, `led` -1)."""
    same = hand & (SUIT == led // 3) & (led >= 0)
    return jnp.where(jnp.any(same), same, hand)


def _start(loc: Array, leader: Array | int) -> ToyState:
    """The state before the first lead: `loc` the holder of each card (TOY-1)."""
    loc = jnp.asarray(loc).astype(jnp.int8)
    leader = jnp.asarray(leader, jnp.int32)
    h = jnp.stack([leader, leader, 0, -1, 0, 0]).astype(jnp.int8)
    return ToyState(
        current_player=leader.astype(jnp.int8), legal_action_mask=loc == leader,
        rewards=jnp.zeros(2, jnp.float32), terminated=jnp.bool_(False),
        truncated=jnp.bool_(False), illegal_action=jnp.bool_(False), step_count=jnp.int32(0),
        _loc=loc, _h=h)


_start_jitted = jax.jit(_start)


def summary(state: ToyState) -> dict[str, Array]:
    """The comparable facts of a state (jittable, batched or not): the reference's
    (tests/toy_game/reference.py `ToyRef.summary`) under the same names."""
    loc, h, i8 = state._loc, state._h, jnp.int8
    return {
        **common_summary(state),
        "hand_owner": jnp.where(loc < PLAYED, loc, -1).astype(i8),
        "played": jnp.where(loc >= PLAYED, loc - PLAYED, -1).astype(i8),  # 2 * trick + player
        "first_leader": h[..., FIRST], "leader": h[..., LEADER], "trick": h[..., TRICK],
        "led": h[..., LED], "won": h[..., WON],
    }


_summary_jitted = jax.jit(summary)


def summary_numpy(state: ToyState) -> dict[str, np.ndarray]:
    return {k: np.asarray(v) for k, v in _summary_jitted(state).items()}


class ToyEnv(Env, Views, TournamentViews, Bots):
    """Toy trick: one deal of three tricks. Actions: card ids 0..5."""

    name = NAME
    num_players = 2
    num_actions = NUM_CARDS
    max_steps = NUM_CARDS
    stochastic_step = False
    version = "1"
    card_deck = DECK
    # tournament views: the first trick's leader and the other player, each his own side
    role_names = ("leader", "follower")
    deal_columns = (("leader", "int8"), ("tricks_p0", "int8"), ("tricks_p1", "int8"))
    worst_score = -3.0  # TOY-4: no trick taken
    heuristic = "tests.toy_game.heuristic:make_toy_heuristic"

    def __init__(self, config: ToyConfig | None = None) -> None:
        self.config = config or ToyConfig()

    def __hash__(self) -> int:
        return hash(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToyEnv) and other.config == self.config

    # ---- the jittable core ----------------------------------------------------------------
    def _init(self, key: Array) -> ToyState:
        """TOY-1: the cards at places 0..2 of a random permutation go to P0, the rest to P1."""
        loc = (jax.random.permutation(key, NUM_CARDS) >= NUM_TRICKS).astype(jnp.int8)
        return _start(loc, self.config.leader)

    def _step(self, s: ToyState, action: Array, key: Array) -> ToyState:
        """Card `action` played by the current player (legal: `Env.step` checked the mask)."""
        cur = s.current_player.astype(jnp.int32)
        h = s._h.astype(jnp.int32)
        t, led = h[TRICK], h[LED]
        loc = jnp.where(CARD_IDS == action, PLAYED + 2 * t + cur, s._loc.astype(jnp.int32))
        complete = led >= 0  # the second card of the trick
        # TOY-3: the follower wins with a higher card of the led suit
        beats = (action // 3 == led // 3) & (action % 3 > led % 3)
        winner = jnp.where(beats, cur, 1 - cur)
        won = h[WON] + (complete & (jnp.arange(2) == winner))
        nxt = jnp.where(complete, winner, 1 - cur)  # TOY-2: the winner leads next
        led_now = jnp.where(complete, -1, action)
        done = complete & (t + 1 == NUM_TRICKS)
        header = jnp.concatenate([h[:LEADER], jnp.where(complete, winner, h[LEADER])[None],
                                  (t + complete)[None], led_now[None], won])
        return s.replace(
            current_player=nxt.astype(jnp.int8),
            legal_action_mask=_follow_mask(loc == nxt, led_now),
            rewards=jnp.where(done, won - won[::-1], 0).astype(jnp.float32),  # TOY-4
            terminated=done, _loc=loc.astype(jnp.int8), _h=header.astype(jnp.int8))

    def _deal_done(self, state: ToyState) -> Array:
        return state._h[..., TRICK] == NUM_TRICKS

    def _observe(self, s: ToyState, player: Array) -> Array:
        loc, h = s._loc.astype(jnp.int32), s._h.astype(jnp.int32)
        played, code = loc >= PLAYED, loc - PLAYED
        cards = jnp.stack([loc == player, jnp.where(played, code % 2, -1),
                           jnp.where(played, code // 2, -1)], axis=1)
        return OBS_SPEC.assemble({
            "cards": cards, "me": player, "current_player": s.current_player,
            "leader": h[LEADER], "trick": h[TRICK], "led": h[LED], "won": h[WON]})

    @staticmethod
    def observation_spec() -> ObservationSpec:
        return OBS_SPEC

    # ---- names and deals -----------------------------------------------------------------
    def action_name(self, action: int, state: ToyState | None = None) -> str:
        """'play AS', 'play QH', ..."""
        a = int(action)
        if not 0 <= a < NUM_CARDS:
            raise ValueError(f"bad action {action}: not an action id 0..{NUM_CARDS - 1}")
        return ACTION_NAMES[a]

    def action_from_name(self, name: str, state: ToyState | None = None) -> int:
        text = " ".join(str(name).split())
        if text not in ACTION_IDS:
            raise ValueError(f"unknown action name {name!r}: want 'play <card>', e.g. 'play AS'")
        return ACTION_IDS[text]

    def from_deal(self, deal: str, key: Array | None = None) -> ToyState:
        """The state before the first lead of `toy_trick [leader=0|1] | <P0> | <P1>` (three
        cards each; no leader field: the env's flag). `key` is unused (no chance)."""
        d, f = read_deal(deal, self.name, DECK, ("leader",))
        leader = int(f.choice("leader", ("0", "1"), str(self.config.leader)))
        if len(d.hands) != 2:
            raise ValueError(f"deal has {len(d.hands)} hands: want 2 (P0, P1)")
        loc = np.full(NUM_CARDS, -1, np.int32)
        for p, hand in enumerate(d.hands):
            if len(hand) != NUM_TRICKS:
                raise ValueError(f"hand of P{p} has {len(hand)} cards: want {NUM_TRICKS}")
            for c in hand:
                if loc[c] >= 0:
                    raise ValueError(f"card {DECK.token(c)} is dealt twice")
                loc[c] = p
        return _start_jitted(loc, leader)

    def deal_string(self, state: ToyState) -> str:
        s = summary_numpy(state)
        hands = [DECK.format_hand(DECK.sort_hand(np.flatnonzero(s["hand_owner"] == p)))
                 for p in range(2)]
        return " | ".join([f"{self.name} leader={int(s['first_leader'])}", *hands])

    # ---- views -------------------------------------------------------------------------------
    def summary(self, state: ToyState) -> dict[str, Array]:
        return summary(state)

    def _table(self, s: dict) -> tuple[str, list[tuple[int, int]]]:
        """The trick on the table (its label, its (player, card)): the current one's lead,
        else the trick just taken (by player)."""
        t, played = int(s["trick"]), s["played"]
        now = [(int(played[c] % 2), int(c)) for c in np.flatnonzero(played // 2 == t)]
        if now or t == 0:
            return f"trick {min(t + 1, NUM_TRICKS)}", now
        taken = sorted((int(played[c] % 2), int(c)) for c in np.flatnonzero(played // 2 == t - 1))
        return f"trick {t}, taken by {PLAYERS[int(s['leader'])]}", taken

    def render(self, state: ToyState) -> str:
        s = summary_numpy(state)
        won = s["won"]
        lines = [f"{self.name}  trick {min(int(s['trick']) + 1, NUM_TRICKS)}/{NUM_TRICKS}  "
                 f"tricks P0 {int(won[0])} / P1 {int(won[1])}"]
        for p in range(2):
            hand = DECK.sort_hand(np.flatnonzero(s["hand_owner"] == p))
            lines.append(f"{PLAYERS[p]}  {DECK.format_hand(hand) or '-'}")
        label, table = self._table(s)
        if table:
            lines.append(f"{label}: " + ", ".join(f"{PLAYERS[p]} {DECK.token(c)}"
                                                  for p, c in table))
        lines.append(self.status_line(state, PLAYERS.__getitem__))
        return "\n".join(lines)

    def scene(self, state: ToyState, player: int | None = None) -> Scene:
        """Both seats (P0 at the bottom), the trick on the table (earlier tricks face down),
        the tricks taken; for `player`, his own hand only and the legal plays only on his
        turn."""
        s = summary_numpy(state)
        viewer = check_viewer(player, 2)
        done = bool(state.terminated | state.truncated)
        to_act = None if done else int(state.current_player)
        first, owner, won = int(s["first_leader"]), s["hand_owner"], s["won"]
        seats = tuple(Seat(
            player=p, label=PLAYERS[p], role=self.role_names[p != first],
            cards=tuple(DECK.token(c) for c in DECK.sort_hand(np.flatnonzero(owner == p)))
            if viewer in (None, p) else None,
            count=int((owner == p).sum()), notes=(f"tricks {int(won[p])}",),
            to_act=p == to_act) for p in (1, 0))
        label, table = self._table(s)
        groups = (Group(label, tuple(DECK.token(c) for _, c in table),
                        tuple(p for p, _ in table)),) if table else ()
        shown = {c for _, c in table}
        groups += face_down(("earlier tricks", int(sum(
            1 for c in np.flatnonzero(s["played"] >= 0) if c not in shown))))
        status = "match over" if done else f"to act: {PLAYERS[to_act]}"
        if done and bool(state.illegal_action):
            status += " (illegal action)"
        return Scene(
            game=self.name, header=f"{self.name}  trick {min(int(s['trick']) + 1, 3)}/3",
            seats=seats, table=groups, scores=(f"tricks P0 {int(won[0])} / P1 {int(won[1])}",),
            to_act=to_act, legal=tuple(self.action_name(a) for a in legal_actions(state))
            if not done and viewer in (None, to_act) else (), status=status, viewer=viewer)

    # ---- tournament views ----------------------------------------------------------------------
    def deal_facts(self, before: ToyState, after: ToyState) -> dict[str, Array]:
        h = after._h.astype(jnp.int32)
        won = h[WON]
        return {"role": (jnp.arange(2) != h[FIRST]).astype(jnp.int8),
                "side": jnp.arange(2, dtype=jnp.int8), "won": won > won[::-1],
                "counted": jnp.bool_(True), "leader": h[FIRST].astype(jnp.int8),
                "tricks": won.astype(jnp.int8)}

    def deal_row(self, facts: dict) -> dict:
        return {"leader": int(facts["leader"]), "tricks_p0": int(facts["tricks"][0]),
                "tricks_p1": int(facts["tricks"][1])}


def make_toy(name: str, **flags) -> ToyEnv:
    """`kanjax.make` factory: `make_toy("toy_trick", leader=1)`."""
    check_flag_keys(name, flags, (f.name for f in dataclasses.fields(ToyConfig)))
    return ToyEnv(ToyConfig(**flags))
