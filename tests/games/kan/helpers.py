"""Helpers shared by the Kan engine tests: summaries as numpy, observations, action names."""

from __future__ import annotations

import numpy as np

from kanjax.api import jitted, legal_actions
from kanjax.games.kan.engine import CARD_TOKENS, summary


def obs(env, state, p: int) -> np.ndarray:
    """Player p's observation (the env's jitted `observe`, compiled once per env)."""
    return np.asarray(jitted(env, "observe")(state, p))


def card(tok: str) -> int:
    """The id of a card token (any of the 53 Kan ids, in a deck or not)."""
    return CARD_TOKENS.index(tok)


def S(state) -> dict:
    """The summary as numpy."""
    return {k: np.asarray(v) for k, v in summary(state).items()}


def cur(state) -> int:
    return int(state.current_player)


def legal_names(env, state) -> set[str]:
    return {env.action_name(a, state) for a in legal_actions(state)}
