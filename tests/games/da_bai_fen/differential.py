"""Da Bai Fen's half of the differential test (`tests.harness.differential`): `DbfRef` fed the
engine's deck orders (the summary's `place`; deals annulled within a step from `skip`), its
`facts()` compared under the engine's names at every step. The "rare" actions are the card
picks: where the policy may `play` instead (a lead of one card or more) it mostly does, so
most leads are single cards, some multi-leads of 2, 3, 4 or more (a uniform policy would
lead long invalid multi-leads and end nearly every hand by the penalty)."""

from __future__ import annotations

import numpy as np

from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.reference import DbfRef
from tests.harness import differential as hd

SCALARS = ("phase", "current_player", "hands_played", "hand_kind", "declaring", "trump_level",
           "trump_suit", "starter", "leader", "exposer", "exposed", "drawn", "turned",
           "trick_leader", "protected", "outcome", "P", "last_protected", "winner")
BOOLS = ("turn_done", "dun", "hook")
LISTS = ("levels", "points", "kitty_bonus", "last_points", "location")
DERIVED = ("selection", "trick", "trick_winners", "last_kitty")


def order_of(place) -> list[int]:
    """The deck order (card at each place) of a hand's `place` per card."""
    place = np.asarray(place, np.int64)
    order = [0] * ds.NUM_CARDS
    for c, k in enumerate(place.tolist()):
        order[k] = c
    return order


class DbfAdapter:
    def rare_actions(self, env) -> tuple[int, ...]:
        return tuple(range(ds.PICK, ds.PICK + ds.NUM_CARDS))

    def reference(self, env, first: dict) -> DbfRef:
        return DbfRef(env.config)

    def feed(self, ref: DbfRef, s: dict) -> None:
        if not ref.needs_deal or ref.terminal:
            return
        skips = [order_of(s["skip"][i]) for i in range(int(s["nskip"]))]
        for order in skips + [order_of(s["place"])]:
            ref.deal(order)
            if not ref.needs_deal or ref.terminal:
                break

    def facts(self, ref: DbfRef) -> dict:
        f = ref.facts()
        out = {k: f[k] for k in (*SCALARS, *BOOLS, *LISTS, *DERIVED)}
        for k in BOOLS:
            out[k] = bool(out[k])
        out["trick"] = [[int(p), sorted(c)] for p, c in out["trick"]]
        out["selection"] = sorted(out["selection"])
        out["last_kitty"] = sorted(out["last_kitty"])
        return out | {"terminal": f["terminal"], "scores": f["scores"],
                      "legal_actions": f["legal_actions"]}

    def compared(self, env) -> tuple[str, ...]:
        return SCALARS + BOOLS + LISTS + DERIVED

    def final(self, env) -> tuple[str, ...]:
        return ("levels", "winner", "hands_played", "outcome", "P", "last_points")

    def engine_facts(self, s: dict) -> dict:
        out = hd.plain_facts(s, BOOLS)
        if "trick" in s:
            seat = s["trick"]
            lead = s["trick_leader"]
            out["trick"] = [[p, [c for c in range(ds.NUM_CARDS) if seat[c] == p]]
                            for p in ((lead + i) % 4 for i in range(4)) if p in seat]
        if "trick_winners" in s:
            out["trick_winners"] = [w for w in s["trick_winners"] if w >= 0]
        if "last_kitty" in s:
            out["last_kitty"] = sorted(c for c in s["last_kitty"] if c >= 0)
        return out


ADAPTER = DbfAdapter()
