"""What the games' `Env.scene` builders share (`kanjax.scene`): player labels, the player to
act, his legal actions as the viewer may see them, the status line."""

from __future__ import annotations

import numpy as np

from kanjax.api import Env, State


def label(player: int) -> str:
    """A player's label in scenes: `P2`."""
    return f"P{player}"


def to_act(state: State) -> int | None:
    """The player to act, None when the match is over."""
    done = bool(np.asarray(state.terminated | state.truncated))
    return None if done else int(state.current_player)


def legal_names(env: Env, state: State, viewer: int | None) -> tuple[str, ...]:
    """The legal actions by name, where the viewer may know them: to an open view or to the
    player to act (the others' legal masks would show the mover's hidden cards)."""
    mover = to_act(state)
    if mover is None or viewer not in (None, mover):
        return ()
    return tuple(env.action_name(a, state) for a in env.legal_actions(state))


def status(state: State, over: str, last: str = "") -> str:
    """`to act: P2`, or `over` (and whether an illegal action ended it); then `last`, how the
    last deal ended ("" when none has)."""
    mover = to_act(state)
    if mover is not None:
        head = f"to act: {label(mover)}"
    else:
        head = over + (" (illegal action)" if bool(np.asarray(state.illegal_action)) else "")
    return f"{head}; {last}" if last else head
