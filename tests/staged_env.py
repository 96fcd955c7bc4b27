"""A small test game that prototypes turns of several actions (kanjax/api.py, "Turns"):
multi-card leads and n-card follows, built as staged selections on the shared trick kernel.

Two players, 16 cards (suits 0 and 1, ranks 0..7 each; no trump), 8 each. The leader leads one
card, or two of one suit; the follower plays as many cards as were led, following suit as
Da Bai Fen does (DBF-25: as many of the led suit as he holds, up to n); the stronger play
wins (DBF-26 with no trump), its player leads next; a player wins the cards of his tricks.
At the end each is paid the share of the cards he won.

A turn is staged: `pick c` (actions 0..15) adds card c to the selection, `play` (16) plays the
selection and ends the turn. The legal mask only allows picks that can still be completed
(a second lead card of the first card's suit; follows by `trick.follow_n_mask`) and `play`
only when the selection is a whole legal play, so every turn a policy starts it can finish.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, Env, ObservationSpec, ObsField, State, register_state
from kanjax.core import trick

NUM_CARDS = 16
PLAY = NUM_CARDS  # the action that plays the selection
SUIT = np.arange(NUM_CARDS) // 8
RANK = np.arange(NUM_CARDS) % 8
NO_TOP = np.zeros(NUM_CARDS, bool)
OBS_SPEC = ObservationSpec((
    ObsField("hand", NUM_CARDS, 0, 1, "the observer's cards"),
    ObsField("picked", NUM_CARDS, 0, 1, "the observer's selection in his turn"),
    ObsField("current_player", 1, -1, 1, "the player to act, -1 at the end"),
    ObsField("n", 1, 0, 2, "cards a play of this trick, 0 before the lead"),
))
TOKENS = tuple(f"{'AB'[s]}{r}" for s, r in zip(SUIT, RANK, strict=True))


@register_state
@dataclasses.dataclass(frozen=True)
class StagedState(State):
    _owner: Array  # int8[16]: the holder (0, 1), -1 once played
    _picked: Array  # bool[16]: the mover's selection in this turn
    _trick: Array  # int32[5]: the running trick (led, best, winner, points, count)
    _n: Array  # int32: cards a play of this trick (0 before the lead)
    _won: Array  # int32[2]: cards won
    _turn_done: Array  # bool: the last step ended a turn


class StagedEnv(Env):
    """The prototype game (`StagedEnv()`; not registered in `kanjax.games()`)."""

    name = "staged_test"
    num_players = 2
    num_actions = NUM_CARDS + 1
    max_steps = 2 * NUM_CARDS  # a pick per card and at most one play per card
    stochastic_step = False

    def _legal(self, owner: Array, picked: Array, t: trick.Trick, n: Array,
               cur: Array) -> Array:
        """Picks that can still make a whole play, and `play` once the selection is one."""
        hand = owner == cur
        count = jnp.sum(picked, dtype=jnp.int32)
        leading = t.count == 0
        first_suit = jnp.max(jnp.where(picked, SUIT, -1))
        lead_picks = hand & ~picked & ((count == 0) | ((count == 1) & (SUIT == first_suit)))
        follow_picks = trick.follow_n_mask(hand, picked, SUIT == t.led, n)
        picks = jnp.where(leading, lead_picks, follow_picks)
        can_play = jnp.where(leading, count >= 1, count == n)
        return jnp.concatenate([picks, can_play[None]])

    def _state(self, owner, picked, t, n, won, cur, **common) -> StagedState:
        tr = jnp.stack(list(t)).astype(jnp.int32)
        return StagedState(
            current_player=jnp.asarray(cur).astype(jnp.int8),
            legal_action_mask=self._legal(owner, picked, t, n, cur),
            _owner=owner.astype(jnp.int8), _picked=picked, _trick=tr, _n=n, _won=won,
            **common)

    def _init(self, key: Array) -> StagedState:
        owner = (jax.random.permutation(key, NUM_CARDS) >= 8).astype(jnp.int32)
        return self._state(owner, jnp.zeros(NUM_CARDS, bool), trick.new_trick(0),
                           jnp.int32(0), jnp.zeros(2, jnp.int32), jnp.int32(0),
                           rewards=jnp.zeros(2, jnp.float32), terminated=jnp.bool_(False),
                           truncated=jnp.bool_(False), illegal_action=jnp.bool_(False),
                           step_count=jnp.int32(0), _turn_done=jnp.bool_(True))

    def _step(self, s: StagedState, action: Array, key: Array) -> StagedState:
        cur = s.current_player.astype(jnp.int32)
        t = trick.Trick(*s._trick)
        owner = s._owner.astype(jnp.int32)
        plays = action == PLAY
        picked = s._picked | ((jnp.arange(NUM_CARDS) == action) & ~plays)
        # `play`: the selection goes to the trick (DBF-26 strength, the shared update)
        suit = jnp.max(jnp.where(picked, SUIT, -1))
        strength = trick.play_strength(picked, SUIT, RANK, trick.led_after(t, suit),
                                       jnp.int32(-1), NO_TOP)
        size = jnp.sum(picked, dtype=jnp.int32)
        played, complete = trick.add_play(t, cur, suit, strength, size, 2)
        n = jnp.where(t.count == 0, size, s._n)
        won = s._won + jnp.where(complete, 2 * n, 0) * (jnp.arange(2) == played.winner)
        owner_after = jnp.where(picked, -1, owner)
        nxt = jnp.where(complete, played.winner, 1 - cur)
        over = plays & complete & ~jnp.any(owner_after >= 0)
        t = jax.tree.map(lambda a, b: jnp.where(plays, a, b), played, t)
        return self._state(
            jnp.where(plays, owner_after, owner), picked & ~plays, t,
            jnp.where(plays & complete, 0, jnp.where(plays, n, s._n)),
            jnp.where(plays, won, s._won), jnp.where(plays, nxt, cur),
            rewards=jnp.where(over, won / NUM_CARDS, 0.0).astype(jnp.float32),
            terminated=over, truncated=s.truncated, illegal_action=s.illegal_action,
            step_count=s.step_count, _turn_done=plays)

    def turn_done(self, state: StagedState) -> Array:
        return state._turn_done

    def _deal_done(self, state: StagedState) -> Array:
        return state.terminated

    def _observe(self, s: StagedState, player: Array) -> Array:
        """`OBS_SPEC`: the player's hand, his selection (only the mover sees it), whose turn
        and the size of the trick's plays."""
        mine = s._owner == player
        shown = jnp.where(s.current_player == player, s._picked, False)
        return jnp.concatenate([mine, shown, jnp.stack([s.current_player, s._n])]
                               ).astype(OBS_SPEC.dtype)

    @staticmethod
    def observation_spec() -> ObservationSpec:
        return OBS_SPEC

    def action_name(self, action: int, state: StagedState | None = None) -> str:
        a = int(action)
        if a == PLAY:
            return "play"
        if 0 <= a < NUM_CARDS:
            return f"pick {TOKENS[a]}"
        raise ValueError(f"bad action {action}: not an action id 0..{PLAY}")

    def action_from_name(self, name: str, state: StagedState | None = None) -> int:
        text = " ".join(str(name).split())
        names = {self.action_name(a): a for a in range(self.num_actions)}
        if text not in names:
            raise ValueError(f"unknown action name {name!r}")
        return names[text]

    def deal_string(self, state: StagedState) -> str:
        owner = np.asarray(state._owner)
        hands = [" ".join(TOKENS[c] for c in np.flatnonzero(owner == p)) for p in range(2)]
        return " | ".join([self.name, *hands])

    def from_deal(self, deal: str, key: Array | None = None) -> StagedState:
        raise ValueError("the staged test game has no deal strings")


def make_staged(name: str, **flags) -> StagedEnv:
    """A `kanjax.make`-style factory (tests register it to run records through it)."""
    if flags:
        raise ValueError(f"unknown config keys for {name}: {', '.join(flags)}")
    return StagedEnv()
