"""Conquian's half of the differential test (`tests.harness.differential`): `CqRef` fed the
engine's deck order (the summary's `place`) and dealer, its `facts()` compared under the
engine's names at every step. The "rare" actions are the refusals: where the policy may take
E instead it mostly does, so deals reach big melds, layoffs, forced discards and wins (a
uniform policy refuses most takes)."""

from __future__ import annotations

import numpy as np

from kanjax.envs import cq_spec as cq
from kanjax.reference.conquian import CqRef

SCALARS = ("phase", "current_player", "dealer", "exposed", "refusal", "stock_left",
           "outcome", "winner")
BOOLS = ("fresh", "forced")
LISTS = ("location",)


class Reference(CqRef):
    """`CqRef` as the harness drives it (`apply`)."""

    def apply(self, action: int) -> None:
        self.step(action)


class CqAdapter:
    def rare_actions(self, env) -> tuple[int, ...]:
        return (cq.PASS, cq.DECLINE)

    def reference(self, env, first: dict) -> Reference:
        return Reference(env.config)

    def feed(self, ref: Reference, s: dict) -> None:
        if ref.needs_deal:
            order = np.argsort(np.asarray(s["place"], np.int64)).tolist()
            ref.deal(order, int(s["dealer"]))

    def facts(self, ref: Reference) -> dict:
        f = ref.facts()
        out = {k: f[k] for k in (*SCALARS, *BOOLS, *LISTS)}
        out["selection"] = sorted(f["selection"])
        return out | {"terminal": f["terminal"], "scores": f["scores"],
                      "legal_actions": f["legal_actions"]}

    def compared(self, env) -> tuple[str, ...]:
        return SCALARS + BOOLS + LISTS + ("selection",)

    def final(self, env) -> tuple[str, ...]:
        return ("outcome", "winner", "location")

    def engine_facts(self, s: dict) -> dict:
        out = dict(s)
        for k in BOOLS:
            if k in out:
                out[k] = bool(out[k])
        if "selection" in s:
            out["selection"] = [c for c, x in enumerate(s["selection"]) if x]
        return out


ADAPTER = CqAdapter()
