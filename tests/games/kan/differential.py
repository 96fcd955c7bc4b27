"""The Kan family's half of the differential test (`tests.harness.differential`): the three
references, fed the engine's deals and nijū exchanges, compared on the Kan summary."""

from __future__ import annotations

import numpy as np

from kanjax.games.kan import spec as ks
from kanjax.games.kan.reference_gambari import GambariKanRef
from kanjax.games.kan.reference_gonin import GoninKanRef
from kanjax.games.kan.reference_yonin import YoninKanRef

COMPARED = ("current_player", "hand_owner", "seat_of", "dealer", "round", "deal", "trump",
            "kankei", "rk", "rm", "scores", "points", "last_outcome", "last_points")
FINAL = ("scores", "last_outcome", "last_points")
REFERENCES = {"gonin": GoninKanRef, "yonin": YoninKanRef, "gambari": GambariKanRef}
EXTRA_COMPARED = {"gonin": (), "yonin": ("contract", "first3"), "gambari": ("target",)}
# Played rarely so that deals run long and the JK reaches the late tricks (KAN-25, KAN-54);
# uniform play spends it early and declares a Yonin contract every deal (KAN-56).
RARE = (ks.JK, *range(ks.LEAD_JK, ks.LEAD_JK + 4))
RARE_CONTRACTS = (ks.CONTRACT_SKUNK, ks.CONTRACT_ALL16)


class KanAdapter:
    def rare_actions(self, env) -> tuple[int, ...]:
        return RARE + (RARE_CONTRACTS if env.config.variant == "yonin" else ())

    def reference(self, env, first: dict):
        return REFERENCES[env.config.variant](env.config)

    def feed(self, ref, s: dict) -> None:
        """The deal (and nijū exchange) the engine made; a Yonin trump chooser's hand starts
        with the three cards dealt to him first (KAN-57)."""
        players = len(s["scores"])
        while ref.chance_kind() is not None:
            kind = ref.chance_kind()
            owner = s["hand_owner"].copy()
            c, x = (int(v) for v in s["nijuu"])
            if kind == "deal":
                if int(s["deal"]) == 1 and c >= 0:  # undo the exchange: H had x, P had c
                    owner[c], owner[x] = owner[x], owner[c]
                hands = [[int(k) for k in np.flatnonzero(owner == p)] for p in range(players)]
                first3 = [int(k) for k in s["first3"] if k >= 0]
                if first3:
                    chooser = hands[owner[first3[0]]]
                    chooser[:] = first3 + [k for k in chooser if k not in first3]
                ref.deal(hands)
            elif kind == "nijuu":
                ref.nijuu_exchange(c, x)
            else:
                raise AssertionError(f"unknown chance kind {kind!r}")

    def facts(self, ref) -> dict:
        r = ref.summary()
        return r | {"terminal": ref.terminal(), "scores": ref.scores(),
                    "kankei": [bool(v) for v in r["kankei"]]}

    def compared(self, env) -> tuple[str, ...]:
        return COMPARED + EXTRA_COMPARED[env.config.variant]

    def final(self, env) -> tuple[str, ...]:
        return FINAL

    def engine_facts(self, s: dict) -> dict:
        return s | ({"first3": sorted(s["first3"])} if "first3" in s else {})


ADAPTER = KanAdapter()
