"""The solvers' `Rules` of the registered games, as their envs give them
(`TrickPlay.trick_rules`)."""

from __future__ import annotations

import kanjax
from solvers.convert import rules_of
from solvers.position import Rules


def game_rules(game: str, **flags) -> Rules:
    """The trick-play rules of `kanjax.make(game, **flags)`."""
    return rules_of(kanjax.make(game, **flags))


WHIST = game_rules("whist")
