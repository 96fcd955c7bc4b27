"""Short matches of every game, one record per game and process, for the view tests."""

from __future__ import annotations

import functools

from kanjax import records
from tests.harness.golden import game_cases


@functools.cache
def short_record(game: str) -> dict:
    """A random match of `game` under its small flags (`tests/games/<game>/cases.py`)."""
    return records.play_record(game, game_cases(game).SMALL_FLAGS, seed=1)


def mid_trick_step(record: dict) -> int:
    """The first step at which the table shows a trick of two cards or more (0: none)."""
    from kanjax.view import record_scenes

    return next((s for s, scene in enumerate(record_scenes(record))
                 if any(g.owners and len(g.cards) >= 2 for g in scene.table)), 0)


def deal_ends(record: dict) -> list[bool]:
    """Whether each action of `record` ended a deal."""
    m = records.start_match(record)
    names = record["actions"]
    return [bool(d) for d in m.run(m.action_ids(names)[0]).traj.deal_done[: len(names)]]
