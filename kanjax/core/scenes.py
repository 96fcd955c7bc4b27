"""What the games' `Views.scene` builders share (`kanjax.scene`): player labels, the player to
act, his legal actions as the viewer may see them, the status line."""

from __future__ import annotations

import numpy as np

from kanjax.api import Env, State, legal_actions
from kanjax.scene import Group


def label(player: int) -> str:
    """A player's label in scenes: `P2`."""
    return f"P{player}"


def to_act(state: State) -> int | None:
    """The player to act, None when the match is over or between deals (`Views.ended_deal`'s
    state: no legal action)."""
    done = bool(np.asarray(state.terminated | state.truncated))
    return None if done or not np.asarray(state.legal_action_mask).any() else int(
        state.current_player)


def legal_names(env: Env, state: State, viewer: int | None) -> tuple[str, ...]:
    """The legal actions by name where the view shows them (`shows_mover`), else ()."""
    if not shows_mover(to_act(state), viewer):
        return ()
    return tuple(env.action_name(a, state) for a in legal_actions(state))


def shows_mover(mover: int | None, viewer: int | None) -> bool:
    """Whether a view shows what only the player to act knows (his legal actions, the cards
    he picked for a turn of several actions): an open view and his own, while the match is
    on (the others' would show his hidden cards)."""
    return mover is not None and viewer in (None, mover)


def status(state: State, over: str, last: str = "", ended: str = "deal over") -> str:
    """`to act: P2`, `ended` between deals (`Views.ended_deal`'s state), or `over` (and
    whether an illegal action or the step bound ended it); then `last`, how the last deal
    ended ("" when none has)."""
    mover = to_act(state)
    if mover is not None:
        head = f"to act: {label(mover)}"
    elif not bool(np.asarray(state.terminated | state.truncated)):
        head = ended
    else:
        head = over + (" (illegal action)" if bool(np.asarray(state.illegal_action)) else
                       " (the step bound)" if not bool(np.asarray(state.terminated)) else "")
    return f"{head}; {last}" if last else head


def face_down(*groups: tuple[str, int]) -> tuple[Group, ...]:
    """Table groups of face-down cards, (label, count) each, those with any: the cards out of
    the hands that the view does not show (earlier tricks, cards not dealt)."""
    return tuple(Group(name, (), hidden=k) for name, k in groups if k)
