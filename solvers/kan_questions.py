"""Kan questions on top of the solver: which contract can be forced, the best trump (deals
2/3), the best iku/koi choice (Gonin deal 1).

- Contracts (KAN-31, KAN-32) are goals (`solvers.position`): sukonku is the kankei reaching
  `T(d)` points while the mukankei have none, juuroku all 16 with none for the mukankei; the
  gyaku forms the same for the mukankei (`U(d) = 17 - T(d)`). "Can be forced" ignores when
  the deal may stop (deal 1 stops at a sukonku at once, which only helps the side).
- The trump chooser (KAN-36, KAN-37, KAN-57) and the two kankei choosing iku / koi (KAN-21)
  are kankei: the best choice is the one with the greatest kankei value.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from kanjax.envs import kan_spec as ks
from solvers import api, convert
from solvers.position import Position

CONTRACTS = ("sukonku", "gyaku_sukonku", "juuroku", "gyaku_juuroku")
KAN_SUITS = "CDHS"


def kankei_target(env, state) -> int:
    """T(d) of the state's deal (KAN-29), or the Gambari bid target t (KAN-65)."""
    g = {k: np.asarray(v) for k, v in env.layout.unpack(state).items()}
    if int(g["target"]) >= 0:
        return int(g["target"])
    return ks.KANKEI_TARGET[int(g["deal"])]


def _other_side(pos: Position) -> Position:
    return dataclasses.replace(pos, side=tuple(not s for s in pos.side),
                               taken=pos.taken_other, taken_other=pos.taken)


def contracts(positions: list[Position], targets: list[int]) -> list[dict[str, bool]]:
    """For kankei-side positions and each one's kankei target T: can the kankei force
    sukonku / juuroku, can the mukankei force gyaku sukonku / gyaku juuroku."""
    asks, goals = [], []
    for pos, t in zip(positions, targets, strict=True):
        other = _other_side(pos)
        asks += [pos, other, pos, other]
        goals += [(t, 0), (17 - t, 0), (16, 0), (16, 0)]
    res = api.reaches(asks, goals)
    return [dict(zip(CONTRACTS, res[4 * i: 4 * i + 4], strict=True))
            for i in range(len(positions))]


def open_choices(text: str, game: str | None = None, *, trump=None, leader=None,
                 **flags) -> list[dict]:
    """The choices before trick 1 a deal string leaves open and the solver can weigh: the
    trump in Gonin / Yonin deals 2/3 (no `trump`), the leading kankei in Gonin deal 1 (no
    `leader`). Each as keyword arguments for `convert.deal_state` (one if none is open)."""
    from kanjax.envs.kan import IKU_KOI, SIGNAL, TRUMP

    game = game or convert.deal_game(text)
    if game not in ("gonin_kan", "yonin_kan"):
        return [{"trump": trump, "leader": leader}]
    env = convert.deal_env(text, game, **flags)
    state = env.from_deal(text)
    g = {k: np.asarray(v) for k, v in env.layout.unpack(state).items()}
    phase = int(g["phase"])
    if phase in (SIGNAL, TRUMP) and trump is None:
        return [{"trump": s, "leader": leader} for s in KAN_SUITS]
    if phase == IKU_KOI and leader is None:
        return [{"trump": trump, "leader": int(p)} for p in np.flatnonzero(g["kankei"] > 0)]
    return [{"trump": trump, "leader": leader}]
