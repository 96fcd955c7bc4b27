"""Conquian's half of the differential test (`tests.harness.differential`): `CqRef` fed the
engine's deck order (the summary's `place`) and dealer deal by deal (`Series`: an episode is a
series of deals, CQ-22), its `facts()` compared under the engine's names at every step. The
"rare" actions are the refusals: where the policy may take E instead it mostly does, so deals
reach big melds, layoffs, forced discards and wins (a uniform policy refuses most takes)."""

from __future__ import annotations

import dataclasses

import numpy as np

from kanjax.games.conquian import spec as cq
from kanjax.games.conquian.reference import CqRef, pot_settlement
from tests.harness import differential as hd

SCALARS = ("phase", "current_player", "dealer", "exposed", "refusal", "stock_left",
           "outcome", "winner", "pot", "dealt")
BOOLS = ("fresh", "forced")
LISTS = ("location",)


class Series:
    """The engine's episode through the reference: one `CqRef` per deal of the series
    (CQ-22), each drawn deal followed by the next from the engine's summary, the match scores
    settled with the pot (`pot_settlement`)."""

    def __init__(self, config: cq.CqConfig):
        self.config = config
        self.deal_config = dataclasses.replace(config, dealer=-1)  # later dealers alternate
        self.results: list[list[int]] = []  # the finished deals' own results (CQ-21)
        self.ref = CqRef(self.deal_config)

    def feed(self, s: dict) -> None:
        if not self.ref.needs_deal and int(s["dealt"]) == len(self.results):
            return
        if not self.ref.needs_deal:  # the engine went on to the next deal: this one is drawn
            assert self.ref.terminal and self.ref.outcome == cq.DRAWN, "no draw, next deal"
            self.results.append(self.ref.scores)
            self.ref = CqRef(self.deal_config)
        order = np.argsort(np.asarray(s["place"], np.int64)).tolist()
        self.ref.deal(order, int(s["dealer"]))

    def apply(self, action: int) -> None:
        self.ref.step(action)

    @property
    def terminal(self) -> bool:
        last = len(self.results) + 1 == self.config.deals
        return self.ref.terminal and (self.ref.outcome == cq.WON or last)

    def facts(self) -> dict:
        f = self.ref.facts()
        done = self.results + ([self.ref.scores] if self.ref.terminal else [])
        net = pot_settlement(done, self.config.carry_pot)
        return f | {"pot": len(self.results), "dealt": len(self.results),
                    "terminal": self.terminal,
                    "scores": [sum(r[p] for r in net) for p in range(cq.NUM_PLAYERS)]}


class CqAdapter:
    def rare_actions(self, env) -> tuple[int, ...]:
        return (cq.PASS, cq.DECLINE)

    def reference(self, env, first: dict) -> Series:
        return Series(env.config)

    def feed(self, ref: Series, s: dict) -> None:
        ref.feed(s)

    def facts(self, ref: Series) -> dict:
        f = ref.facts()
        out = {k: f[k] for k in (*SCALARS, *BOOLS, *LISTS)}
        out["selection"] = sorted(f["selection"])
        return out | {"terminal": f["terminal"], "scores": f["scores"],
                      "legal_actions": f["legal_actions"]}

    def compared(self, env) -> tuple[str, ...]:
        return SCALARS + BOOLS + LISTS + ("selection",)

    def final(self, env) -> tuple[str, ...]:
        return ("outcome", "winner", "location", "pot")

    def engine_facts(self, s: dict) -> dict:
        out = hd.plain_facts(s, BOOLS)
        return out


ADAPTER = CqAdapter()
