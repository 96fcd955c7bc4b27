"""The Kan games' information sets for the PIMC bots (`kanjax.capabilities.InformationSets`):
layouts of the hidden hands (`kanjax.games.kan.sampler`, KAN-46) and each layout as trick play
from the observer's side, playing for his side's target: kankei `T(d)`, mukankei `U(d) = 17 -
T(d)` (KAN-29, KAN-48; Gambari: the bid target `t`, KAN-67); under a Yonin contract (KAN-60)
the declaring team's target (SKUNK) or all 16 (ALL16) with the others at 0, the other team's a
point card before that. In Yonin's deal 1 the teams are secret (KAN-52): each layout names
them (the holders of JK and the trump jack, KAN-50, KAN-51).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from kanjax.capabilities import InformationSets
from kanjax.core.dealing import ring_positions
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import JK, PLAY
from kanjax.games.kan.sampler import make_sampler

PLAY_ACTIONS = ks.LEAD_JK + 4  # the trick-play actions: cards 0..52 and the JK leads 53..56
POINT = np.array([c < JK and c % 13 >= 9 for c in range(ks.NUM_CARDS)])  # KAN-3


class KanLayouts(InformationSets):
    """`InformationSets` of a Kan env (mixed into `KanEnv`)."""

    def make_sampler(self, samples: int, tries: int):
        return make_sampler(self, samples, tries)

    @functools.cached_property
    def _pimc_rules(self) -> dict[str, Any]:
        return self.trick_rules()

    def layout_view(self, observation: np.ndarray) -> dict[str, Any]:
        sl = self.observation_spec().slices()
        o = np.asarray(observation).astype(np.int64)
        cards = o[sl["cards"]].reshape(ks.NUM_CARDS, 4)
        v = {k: int(o[sl[k]][0]) for k in ("me", "phase", "current_player", "deal", "dealer",
                                           "trump", "trick", "n_played", "leader", "led_suit")}
        v |= {k: o[sl[k]] for k in ("target", "contract") if k in sl}  # Gambari, Yonin
        return v | dict(mine=cards[:, 0] > 0, played_by=cards[:, 1], trick_of=cards[:, 2],
                        taken_by=cards[:, 3], points=o[sl["points"]], seat_of=o[sl["seat_of"]],
                        kankei=o[sl["kankei"]])

    def searched(self, view: dict[str, Any], mask: np.ndarray, max_cards: int) -> bool:
        return (view["phase"] == PLAY and view["current_player"] == view["me"]
                and int(np.sum(mask[:PLAY_ACTIONS])) > 1 and int(view["mine"].sum()) <= max_cards)

    def layout_kankei(self, v: dict[str, Any], holders: np.ndarray) -> np.ndarray:
        """bool[n]: the kankei of the layout `holders` seen in `v`: the observed ones, or in
        Yonin's deal 1, where they are secret (KAN-52), the deal-1 holders of JK and the
        trump jack (KAN-50), a lone holder of both with the player opposite (KAN-51)."""
        if (v["kankei"] >= 0).all():
            return v["kankei"] > 0
        dealt = np.where(v["played_by"] >= 0, v["played_by"], holders)  # holder since the deal
        jk, jack = int(dealt[JK]), int(dealt[13 * v["trump"] + 9])
        if jk == jack:
            pos = np.asarray(ring_positions(v["seat_of"], v["dealer"], self.num_players))
            jack = int(np.argmax(pos == (pos[jk] + 2) % 4))
        return np.isin(np.arange(self.num_players), [jk, jack])

    def layout_position(self, v: dict[str, Any], holders: np.ndarray) -> dict[str, Any]:
        holders = np.asarray(holders)
        active = self.active
        pos = np.asarray(ring_positions(v["seat_of"], v["dealer"], self.num_players))
        players = [int(np.argmax(pos == k)) for k in range(active)]  # seat -> player
        leader = int(pos[v["leader"]])
        in_trick = (v["trick_of"] == v["trick"]) & (v["played_by"] >= 0)
        trick = tuple(int(np.argmax(in_trick & (v["played_by"] == players[(leader + i) % active])))
                      for i in range(v["n_played"]))
        kankei = self.layout_kankei(v, holders)
        mine = bool(kankei[v["me"]])
        by_kankei = (v["taken_by"] >= 0) & kankei[np.maximum(v["taken_by"], 0)]
        points = (int(np.sum(POINT & by_kankei)),
                  int(np.sum(POINT & (v["taken_by"] >= 0) & ~by_kankei)))
        taken, other = points if mine else points[::-1]
        hands = tuple(tuple(np.flatnonzero(holders == p).tolist()) for p in players)
        live = [c for h in hands for c in h] + list(trick)
        total = taken + other + int(POINT[live].sum())
        return dict(players=players, hands=hands, trump=v["trump"], leader=leader,
                    side=tuple(bool(kankei[p] == mine) for p in players), trick=trick,
                    led=v["led_suit"] if trick else -1, tricks_done=v["trick"], taken=taken,
                    taken_other=other, rules=self._pimc_rules,
                    goal=self._goal(v, kankei, total), sign=1.0)

    def _goal(self, v: dict[str, Any], kankei: np.ndarray, total: int) -> tuple[int, int]:
        """(side_min, other_max) of the observer's side (see the module docstring)."""
        t = int(v["target"][0]) if "target" in v else ks.KANKEI_TARGET[v["deal"]]
        kind, declarer = (int(x) for x in v.get("contract", (ks.NO_CONTRACT, -1)))
        if kind == ks.NO_CONTRACT:
            target = t if kankei[v["me"]] else 17 - t
            return target, total - target
        need = 16 if kind == ks.ALL16 else t if kankei[declarer] else 17 - t
        if kankei[declarer] == kankei[v["me"]]:
            return need, 0
        return 1, need - 1
