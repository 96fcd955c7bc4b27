"""Scenario tests' shorthand: actions by their names (`Env.action_name`)."""

from __future__ import annotations

import jax

from kanjax.api import checked_step, legal_actions


def legal(env, state) -> set[str]:
    """The names of the legal actions at `state`."""
    return {env.action_name(a) for a in legal_actions(state)}


def play(env, state, *names: str):
    """`checked_step` each action name in turn."""
    for name in names:
        state = checked_step(env, state, name, jax.random.PRNGKey(0))
    return state
