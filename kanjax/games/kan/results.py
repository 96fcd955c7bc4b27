"""What a Kan match tells a tournament (`kanjax.api.Env`'s views): its roles, its rows of the
`deals` table, its bound on deals and its engine version, for all three variants.

Roles (KAN-17, KAN-50, KAN-65): 0 kankei, 1 mukankei; in 6-player Gonin Kan the dealer, who
sits out, counts with the kankei (KAN-17, KAN-40). A deal's sides are its two teams (side 0
the kankei, 1 the mukankei); a team won the deal when its outcome is a win for it (KAN-34,
KAN-60). A Shippo-Jo CALL voids the deal (KAN-71): it has a row but counts in no statistic.

`KanResults` is a mixin of `kanjax.games.kan.engine.KanEnv`: it reads the packed state through the
env's `layout` and needs nothing else of it.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from kanjax.capabilities import Bots, TournamentViews
from kanjax.core.jaxutil import Array
from kanjax.games.kan import spec as ks
from kanjax.games.kan.scoring import worst_round

KANKEI, MUKANKEI = 0, 1  # role (and side) indices
_KANKEI_WINS = np.isin(np.arange(ks.NUM_OUTCOMES), ks.KANKEI_WINS)  # by outcome
_PLAYERS_OF = [[p for p in range(6) if m >> p & 1] for m in range(1 << 6)]  # by bit mask


class KanResults(TournamentViews, Bots):
    """The tournament views of a Kan env (see the module docstring)."""

    version = "1"
    role_names = ("kankei", "mukankei")
    deal_columns = (
        ("round", "int32"), ("deal", "int8"), ("dealer", "int8"), ("trump", "int8"),
        ("kankei", "list<int8>"), ("points_kankei", "int8"), ("points_mukankei", "int8"),
        ("outcome", "string"),
    )
    heuristic = "kanjax.games.kan.heuristic:make_heuristic"

    @property
    def max_deals(self) -> int:
        """Deals of a whole match (KAN-10, KAN-63): 1-3 a round; Shippo-Jo CALLs redeal
        (KAN-71), and a match bounds them by truncating at 4x a round's steps."""
        c = self.config
        return c.n_rounds * self.deals_per_round * (4 if c.shippo_jo else 1)

    @property
    def worst_score(self) -> float:
        """`n_rounds` times the worst round result the scoring tables allow (KAN-40..44,
        KAN-61, KAN-68; `scoring.worst_round`)."""
        return float(self.config.n_rounds * worst_round(self.config))

    def deal_facts(self, before: Any, after: Any) -> dict[str, Array]:
        """The finished deal: its round, deal number, dealer, trump and kankei from `before`
        (the state at its last decision), its points and outcome from `after`."""
        a, b = self.layout.unpack(before), self.layout.unpack(after)
        kankei = a["kankei"] > 0
        if self.num_players == 6:  # the sitting-out dealer is a kankei for scoring (KAN-17)
            kankei = kankei | (jnp.arange(6) == a["dealer"])
        outcome = b["last_outcome"]
        kwin = jnp.asarray(_KANKEI_WINS)[jnp.clip(outcome, 0, ks.NUM_OUTCOMES - 1)]
        counted = outcome != ks.SHIPPO_VOID
        role = jnp.where(kankei, KANKEI, MUKANKEI).astype(jnp.int8)
        return {
            "role": role, "side": role, "won": counted & (kankei == kwin), "counted": counted,
            "round": a["round"], "deal": a["deal"].astype(jnp.int8),
            "dealer": a["dealer"].astype(jnp.int8), "trump": a["trump"].astype(jnp.int8),
            "kankei": kankei,
            "points": jnp.stack([b["last_pk"], b["last_pm"]]).astype(jnp.int8),
            "outcome": outcome.astype(jnp.int8),
        }

    def deal_row(self, facts: dict[str, Any]) -> dict[str, Any]:
        """The `deals` columns: round, deal (1..3), dealer, trump (C D H S = 0..3), the
        kankei players (the 6-player dealer too), both teams' points, the outcome's name."""
        return {
            "round": int(facts["round"]), "deal": int(facts["deal"]),
            "dealer": int(facts["dealer"]), "trump": int(facts["trump"]),
            "kankei": np.flatnonzero(facts["kankei"]).tolist(),
            "points_kankei": int(facts["points"][0]),
            "points_mukankei": int(facts["points"][1]),
            "outcome": ks.OUTCOME_NAMES[int(facts["outcome"])],
        }

    def deal_rows(self, facts: dict[str, Any]) -> dict[str, Any]:
        """`deal_row`'s columns of several deals (facts stacked), in array operations."""
        kankei = np.asarray(facts["kankei"], bool)
        return {
            "round": facts["round"], "deal": facts["deal"], "dealer": facts["dealer"],
            "trump": facts["trump"],
            "kankei": [_PLAYERS_OF[m] for m in (kankei @ (1 << np.arange(kankei.shape[1]))
                                                 ).tolist()],
            "points_kankei": facts["points"][:, 0], "points_mukankei": facts["points"][:, 1],
            "outcome": np.asarray(ks.OUTCOME_NAMES, object)[facts["outcome"]].tolist(),
        }
