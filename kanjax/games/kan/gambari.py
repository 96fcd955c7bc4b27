"""Gambari Kan (3 players): kan.md §11 (KAN-63..KAN-68), with §2-§9 where unchanged.

Each round is one deal: the kan/pass bidding from the dealer's right with the target falling
9, 8, 7, ... after each full pass (KAN-65), then one lone kankei leads ten tricks of three
cards under the Gonin joker rules (KAN-66) against the other two; sukonku and gyaku sukonku end
the deal at once (KAN-67); scores per KAN-68 (`gambari_scoring`).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, ObsField
from kanjax.core.deal_fields import DealFields
from kanjax.core.dealing import player_at
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import (
    BID,
    PLAY,
    KanEnv,
    KanState,
    _round_trump,
    action_mask,
    gonin_joker_cards,
)
from kanjax.games.kan.layouts import KanLayouts
from kanjax.games.kan.views import KanViews

FIRST_TARGET = 9  # KAN-65


class GambariKanEnv(KanViews, KanEnv, KanLayouts):
    """Gambari Kan (`gambari_kan`): a whole match of `n_rounds` one-deal rounds."""

    active = 3
    deals_per_round = 1  # KAN-63

    def __init__(self, config: ks.KanConfig) -> None:
        super().__init__(config)
        # Per round: at most 3 bids per target from 9 down to the floor, then 30 cards.
        bids = 3 * (FIRST_TARGET - config.gambari_min_target + 1)
        self.max_steps = (bids + 30) * config.n_rounds

    def _deal_start(
        self, g: dict[str, Array], loc: Array, entry: Array, spare: Array
    ) -> tuple[dict[str, Array], Array, Array]:
        """The bidding starts at the dealer's right with target 9 (KAN-64, KAN-65)."""
        first = player_at(g["pos"], 0)
        g.update(phase=BID, target=FIRST_TARGET, leader=first,
                 trump=_round_trump(g["round"], self.config.n_rounds),
                 kankei=jnp.zeros(self.num_players, jnp.int32))
        return g, loc, first

    def _legal_from(self, g: dict[str, Array], loc: Array, cur: Array) -> Array:
        ph = jnp.asarray(g["phase"])
        cards, jk_lead = gonin_joker_cards(g, loc, cur)
        # KAN-65 floor: at the lowest target the dealer, bidding last, must say KAN.
        forced = (g["target"] <= self.config.gambari_min_target) & (cur == g["dealer"])
        return action_mask(cards, jk_lead, {
            ks.KAN_BID: (ph == BID, 1),
            ks.PASS_BID: ((ph == BID) & ~forced, 1),
        })

    def _step(self, s: KanState, action: Array, key: Array | None) -> KanState:
        g = self.layout.unpack(s)
        new = dict(g)
        a = action.astype(jnp.int32)
        cur = s.current_player.astype(jnp.int32)
        ph = g["phase"]
        in_bid, in_play = ph == BID, ph == PLAY
        next_player = self._next_player(g["pos"], cur)

        # ---- bidding (KAN-65): the first KAN makes the lone kankei with the current target.
        kan = in_bid & (a == ks.KAN_BID)
        new["kankei"] = jnp.where(kan, jnp.arange(self.num_players) == cur, g["kankei"])
        new["target"] = g["target"] - (in_bid & ~kan & (cur == g["dealer"]))

        # ---- trick play (KAN-23..KAN-28, KAN-66); the kankei leads trick 1
        loc, complete, winner = self._play(g, new, s._loc, a, cur, in_play)
        new["leader"] = jnp.where(kan, cur, jnp.where(complete, winner, g["leader"]))

        # ---- end-of-trick checks (KAN-67): sukonku / gyaku sukonku at once, normal end
        out, _ = self._checks(g["deal"], new["pk"], new["pm"], new["trick"], g["declared"],
                              g["target"], decisions=False)
        outcome = jnp.where(complete, out, -1)
        cur_new = jnp.where(in_play & complete, winner, next_player)
        cur_new = jnp.where(kan, cur, cur_new)
        new["phase"] = jnp.where(kan, PLAY, ph)
        return self._settle(s, g, new, loc, cur_new, outcome, key)

    def _obs_extra_fields(self) -> tuple[ObsField, ...]:
        return (ObsField("target", 1, self.config.gambari_min_target, FIRST_TARGET,
                         "the bidding target t (KAN-65)"),)

    def _obs_extra(self, g: dict[str, Array]) -> dict[str, Array]:
        return {"target": g["target"]}

    def _from_deal(self, g: dict, f: DealFields, loc: np.ndarray, hands: list[list[int]],
                   pos: np.ndarray, key: Array | None):
        """Gambari fields: `gambari_kan [dealer=<player>] [round=<r>] [scores=<3 ints>] |
        <seat 0> | <seat 1> | <seat 2>`: the state is at the first bid of the deal."""
        if "seats" in f and f.ints("seats", 3) != [0, 1, 2]:
            raise ValueError(f"deal field seats={f['seats']}: Gambari Kan never changes seats")
        return super()._from_deal(g, f, loc, hands, pos, key)
