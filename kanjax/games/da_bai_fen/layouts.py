"""Da Bai Fen's information sets for the PIMC bots (`kanjax.capabilities.InformationSets`):
layouts of the hidden hands and the kitty (`kanjax.games.da_bai_fen.sampler`) and each layout
as trick play: the hand's rules (`DbfEnv.hand_rules`) with the layout's kitty points (DBF-29's
last-trick bonus, DBF-24's penalty), the current trick and the points taken; the value solved
is the opponents' points P (DBF-30), a gain for the opponents and a loss for the declarers.

A play of several cards is several actions (picks, and `play` to close a lead): at every pick
the bot keeps to the plays that contain the cards already selected (`play_actions`), and the
scores of one play's picks are those of its first pick (`decision_key`: the observation
without the selection). Not taken (`pimc_limits`): Dun plays (`jilin_dun`, DBF-V8: the
multi-card search plays no four-of-a-kind), `dun_points_protected` (DBF-V9) and
`changchun_kitty` (DBF-V11, the sampler's limit).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from kanjax.capabilities import InformationSets
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.trumps import TRUMP

N = ds.NUM_CARDS
POINTS = np.array(ds.CARD_POINTS)


class DbfLayouts(InformationSets):
    """`InformationSets` of a Da Bai Fen env (mixed into `DbfEnv`)."""

    pimc_max_cards = 6  # exact solves take ~0.015 s at 6 cards a hand, 0.25 s at 8

    def pimc_limits(self) -> str:
        for flag in ("jilin_dun", "dun_points_protected", "changchun_kitty"):
            if getattr(self.config, flag):
                return f"da_bai_fen with {flag} is not supported"
        return ""

    def make_sampler(self, samples: int, tries: int):
        from kanjax.games.da_bai_fen.sampler import make_sampler  # it imports the engine

        return make_sampler(self, samples, tries)

    def layout_view(self, observation: np.ndarray) -> dict[str, Any]:
        sl = self.observation_spec().slices()
        o = np.asarray(observation).astype(np.int64)
        cards = o[sl["cards"]].reshape(N, 6)
        v = {k: int(x) for k, x in zip(_obs_head(), o[sl["head"]], strict=True)}
        return v | dict(mine=cards[:, 0] > 0, sel=cards[:, 1] > 0, played_by=cards[:, 4],
                        trick_of=cards[:, 5], me=int(o[sl["me"]][0]),
                        current=int(o[sl["current_player"]][0]), points=o[sl["points"]])

    def searched(self, view: dict[str, Any], mask: np.ndarray, max_cards: int) -> bool:
        return (view["phase"] == ds.PHASE_PLAY and view["current"] == view["me"]
                and int(view["mine"].sum()) <= max_cards and int(mask.sum()) > 1)

    @functools.lru_cache(maxsize=256)  # noqa: B019 (an env lives as long as its games)
    def _layout_rules(self, level: int, trump: int, kitty_points: int) -> dict[str, Any]:
        return self.hand_rules(level, trump, kitty_points)

    def layout_position(self, v: dict[str, Any], holders: np.ndarray) -> dict[str, Any]:
        from kanjax.games.da_bai_fen.sampler import KITTY

        holders = np.asarray(holders).astype(np.int64)
        tno, leader, nplays = v["tno"], v["tleader"], v["nplays"]
        in_trick = (v["trick_of"] == tno) & (v["played_by"] >= 0)
        trick: list[int] = []
        for i in range(nplays):
            trick += np.flatnonzero(in_trick & (v["played_by"] == (leader + i) % 4)).tolist()
        opp = 1 - v["declaring"]
        return dict(
            players=list(range(4)),
            hands=tuple(tuple(np.flatnonzero(holders == p).tolist()) for p in range(4)),
            trump=v["T"], leader=leader, side=tuple(p % 2 == opp for p in range(4)),
            trick=tuple(trick), led=-1 if not nplays else v["T"] if v["led"] == TRUMP else v["led"],
            tricks_done=tno, taken=int(v["points"][opp]), taken_other=int(v["points"][1 - opp]),
            play_cards=v["n"] if nplays else 1,
            rules=self._layout_rules(v["R"], v["T"], int(POINTS[holders == KITTY].sum())),
            goal=None, sign=1.0 if v["me"] % 2 == opp else -1.0)

    def play_actions(self, v: dict[str, Any], play: int, mask: np.ndarray) -> list[int]:
        """The actions that continue the selection towards `play` (a mask of cards that
        contains it): its missing cards' picks, or `play` for a lead complete."""
        sel = sum(1 << int(c) for c in np.flatnonzero(v["sel"]))
        if play & sel != sel:
            return []
        if play == sel:
            acts = [ds.PLAY] if v["nplays"] == 0 else []
        else:
            acts = [ds.PICK + c for c in range(N) if (play & ~sel) >> c & 1]
        return [a for a in acts if mask[a]]

    def decision_key(self, observation: np.ndarray) -> bytes:
        o = np.array(observation)
        sl = self.observation_spec().slices()["cards"]
        cards = o[sl].reshape(N, 6)
        cards[:, 1] = 0
        o[sl] = cards.reshape(-1)
        return o.tobytes()


@functools.cache
def _obs_head() -> tuple[str, ...]:
    """The names of the observation's `head` field (the engine imports this module)."""
    from kanjax.games.da_bai_fen.engine import OBS_HEAD

    return OBS_HEAD
