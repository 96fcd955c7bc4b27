"""A match of deals: the base of the games whose match is several deals (a round of deals,
hands played to a target level).

`DealSeries`, what every such game shares whatever its state: a header of named slots
(`kanjax.core.layout.Layout`) with the slots `deal_done` (the last step ended a deal) and
`dealt` (deals dealt after the first: the chance index, so duplicate play can key each deal's
shuffle by it), and the batched dealing: the next deal is dealt in the step that ends one,
from the step's key (every state returned is at a decision), but a game's `step_batch` steps
the batch without dealing and deals only in the lanes whose step ended a deal (about one in
50 in Kan), a few lanes at a time (`_deal_lanes`, `jaxutil.update_lanes`), with the game's
`_dealt`.

`MatchEnv` adds a state shape and the whole step around it (Kan, Da Bai Fen): `MatchState`,
card locations `_loc` (int8, one code per card id, the game's own), the header `_h` (int8) /
`_w` (int32) and `_last` (int8, the game's record of the previous deal, `_deal_record`, taken
when the next one is dealt: the finished deal's tricks and points stay visible while the next
is played). Its `step_batch` is the game's `_step` with key None (which must then leave the
finished deal as it is) and `_deal_lanes`.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from kanjax.api import Array, Env, State, register_state
from kanjax.core import jaxutil
from kanjax.core.layout import Layout


class DealSeries(Env):
    """A match of several deals over a header `layout` with slots `deal_done` and `dealt`
    (see the module docstring). A game writes `_dealt` (a state whose step ended a deal,
    with the next deal dealt from a key as `step` deals it)."""

    layout: Layout

    def _dealt(self, s: State, key: Array) -> State:
        """`s`, whose last step ended a deal but did not deal the next one, with that deal
        dealt from `key` as `step` would have."""
        raise NotImplementedError

    def _deal_lanes(self, nxt: State, own: Array, keys: Array,
                    share: float = 1 / 16) -> State:
        """The batch `nxt`, stepped without dealing (`own`: the lanes where it was the
        game's own step), with the next deal dealt (`_dealt`) where a deal ended and the
        match goes on, max(8, `share` x B) lanes at a time."""
        need = own & self._deal_done(nxt) & ~nxt.terminated
        return jaxutil.update_lanes(need, self._dealt, nxt, keys,
                                    max(8, int(need.shape[0] * share)))

    def chance_index(self, state: State) -> Array:
        """Deals dealt so far after the first: the next deal's chance index."""
        return self.layout.get(state, "dealt")

    def _deal_done(self, state: State) -> Array:
        return state._h[..., self.layout.head["deal_done"]] > 0


@register_state
@dataclasses.dataclass(frozen=True)
class MatchState(State):
    """A match state: `_loc` card locations, `_h` / `_w` header, `_last` the previous deal
    (see the module docstring); games subclass it."""

    _loc: Array
    _h: Array
    _w: Array
    _last: Array


class MatchEnv(DealSeries):
    """A match of deals over a `MatchState` (see the module docstring).

    A game sets `layout` (with slots `deal_done` and `dealt`) and writes `_new_deal` (the
    next deal of the match from the slots and a key), `_deal_record` (what `_last` keeps of a
    finished deal) and `_legal` (a state's legal mask)."""

    def _new_deal(self, g: dict[str, Array], key: Array) -> tuple[dict[str, Array], Array,
                                                                    Array]:
        """The next deal of the match at slots `g` (the match's place: round, dealer, seats),
        shuffled from `key`: (slots, card locations, current player)."""
        raise NotImplementedError

    def _deal_record(self, g: dict[str, Array], loc: Array) -> Array:
        """`_last` for the finished deal of slots `g` and cards `loc` (int8)."""
        raise NotImplementedError

    def _legal(self, s: MatchState) -> Array:
        """The legal mask of `s`."""
        raise NotImplementedError

    def _finish(self, s: MatchState, g: dict[str, Array], loc: Array, cur: Array,
                **common: Array) -> MatchState:
        """`s` with slots `g`, cards `loc`, player `cur` (and `common` fields) and its mask."""
        h, w = self.layout.pack(g)
        # Materialise the new state once: XLA would otherwise inline its (long, scalar)
        # computation into every element of the legal mask.
        both = jaxutil.materialize(jnp.concatenate(
            [h, loc.astype(jnp.int8), cur.astype(jnp.int8)[None]]))
        h, loc, cur = both[: h.size], both[h.size: h.size + loc.size], both[-1]
        s = s.replace(_loc=loc, _h=h, _w=w, current_player=cur, **common)
        return s.replace(legal_action_mask=self._legal(s))

    def _deal_where(self, do: Array, g: dict[str, Array], loc: Array, cur: Array,
                    last: Array, key: Array) -> tuple[dict[str, Array], Array, Array, Array]:
        """Where `do`: the next deal (`_new_deal` from `key`), one more deal dealt (the chance
        index) and the finished deal of `g`, `loc` recorded (`_deal_record`). Returns (slots,
        loc, current player, `_last`); elsewhere `g`, `loc`, `cur`, `last`."""
        fresh, fresh_loc, fresh_cur = self._new_deal(dict(g), key)
        new = {k: jnp.where(do, fresh[k], v) for k, v in g.items()}
        new["dealt"] = g["dealt"] + do
        return (new, jnp.where(do, fresh_loc, loc), jnp.where(do, fresh_cur, cur),
                jnp.where(do, self._deal_record(g, loc), last))

    def _dealt(self, s: MatchState, key: Array) -> MatchState:
        """`s`, a state whose last step ended a deal but did not deal the next one (`_step`
        with no key), with that deal dealt from `key` as `step` would have (`_deal_where`)."""
        g, loc, cur, last = self._deal_where(jnp.bool_(True), self.layout.unpack(s),
                                             s._loc.astype(jnp.int32), s.current_player,
                                             s._last, key)
        return self._seal(self._finish(s, g, loc, cur, _last=last))

    def step_batch(self, states: MatchState, actions: Array, keys: Array) -> MatchState:
        """`jax.vmap(self.step)`, bit for bit, with the next deal shuffled and dealt only in
        the lanes whose step ended a deal: the batch steps without dealing (`_step` with no
        key), then `update_lanes` deals in those lanes, max(8, B // 16) at a time."""
        nxt, own = jax.vmap(lambda s, a: self._template(s, a, None))(states, actions)
        return self._deal_lanes(nxt, own, keys)

    def ended_deal(self, state: MatchState, action: Array) -> MatchState:
        """`step` without the next deal (`_step` with no key): where `action` ends a deal,
        the deal as it ended, its legal mask empty (a deal ended early may leave cards in
        hand, but nobody acts between deals)."""
        ended = self._template(state, action, None)[0]
        return ended.replace(legal_action_mask=jnp.zeros_like(ended.legal_action_mask))
