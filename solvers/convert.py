"""Double-dummy `Position`s from what users have: a kanjax state in trick play, a deal string
or a bridge PBN deal. The game says what its trick play is (`TrickPlay.trick_rules`,
`TrickPlay.trick_position`, `TrickPlay.trick_start`); this module names no game.

- `rules_of(env, state=None)`: the game's trick-play `Rules` (a hand's, where they change from
  hand to hand, as Da Bai Fen's trumps do: then `state` is needed);
- `from_state(env, state)`: an unbatched state in trick play -> `(position, players)`;
  `players[seat]` is the kanjax player in Position seat `seat`.
- `deal_state(text, ...)` / `from_deal(text, ...)`: a deal string -> the env's state at the
  first card of trick 1 (the decisions before it taken as the game's `trick_start` says) ->
  `from_state`; `from_pbn(pbn, trump, leader)`: the same for a PBN deal.

Where the state's legal mask allows fewer trick-play moves than the rules the solver plays
(`TrickPlay.trick_rules`; e.g. a compulsory first lead), the mask's moves become `root_moves`; a
move the mask allows beyond those rules (one the solver does not model) is left out. Rules
beyond the single-card searches' limits (`Rules.limits`: Da Bai Fen's multi-card plays)
still give a position, with no root moves (its mask selects cards, not plays); the multi-card
searches (`solvers.reference_dbf`, `solvers.cpu.multi`) take it, the others refuse it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from kanjax import deal_env, deal_game
from kanjax.capabilities import TrickPlay
from solvers.position import Position, Rules
from solvers.trick_play import legal_moves

__all__ = ["deal_env", "deal_game", "deal_state", "from_deal", "from_pbn", "from_state",
           "position_of", "rules_of"]


def rules_of(env, state=None) -> Rules:
    """The solvers' `Rules` of an env's trick play (`TrickPlay.trick_rules`; of the hand `state` is
    in, for a game whose rules change from hand to hand); ValueError for a game without, or
    one that needs the state where none is given."""
    if not isinstance(env, TrickPlay):
        raise ValueError(f"no double-dummy positions for {env.name!r}")
    return Rules(**(env.trick_rules() if state is None else env.trick_rules(state)))


def position_of(t: dict, rules: Rules) -> Position:
    """The `Position` of trick play as plain data (`TrickPlay.trick_position`'s fields, or
    `InformationSets.layout_position`'s) under `rules`."""
    return Position(rules, tuple(t["hands"]), t["trump"], t["leader"], tuple(t["side"]),
                    tuple(t["trick"]), t["led"], t["tricks_done"], t["taken"], t["taken_other"],
                    play_cards=t.get("play_cards", 1), quad_led=t.get("quad_led", False))


def from_state(env, state) -> tuple[Position, tuple[int, ...]]:
    """An unbatched state in trick play -> (position, players), `players[seat]` the kanjax
    player in Position seat `seat` (so `players[position.to_move]` is
    `state.current_player`). ValueError, naming the phase, outside trick play."""
    if np.ndim(state.current_player) != 0:
        raise ValueError(f"from_state takes one state, not a batch of shape "
                         f"{np.shape(state.current_player)}")
    rules = rules_of(env, state)
    t = env.trick_position(state)
    players = tuple(t["players"])
    pos = position_of(t, rules)
    if players[pos.to_move] != int(state.current_player):
        raise ValueError(f"{env.name}: bad state: player {int(state.current_player)} to act, "
                         f"but player {players[pos.to_move]} is next in the trick")
    if pos.rules.limits:
        return pos, players
    mask, allowed = set(t["moves"]), set(legal_moves(pos))
    if mask & allowed != allowed:
        pos = dataclasses.replace(pos, root_moves=tuple(sorted(mask & allowed)))
    return pos, players


def deal_state(text: str, game: str | None = None, *, trump=None, leader=None, key=None,
               **flags):
    """(env, state) for a deal string (or a PBN deal), at the first card of trick 1.

    `game`: the env (default: `kanjax.deal_game(text)`); `flags`: the env's flags (the
    string's own variant fields, `Views.deal_flags`, are used where not given); `trump`,
    `leader`, `key`: what the game's `TrickPlay.trick_start` takes (the choices before trick 1 the
    rules leave open, the chance the deal may still need)."""
    env = deal_env(text, game, **flags)
    if not isinstance(env, TrickPlay):
        raise ValueError(f"{env.name}: no double-dummy positions (no trick play)")
    return env, env.trick_start(text, key, trump=trump, leader=leader)


def from_deal(text: str, game: str | None = None, *, trump: str | int | None = None,
              leader: str | int | None = None, key=None,
              **flags) -> tuple[Position, tuple[int, ...]]:
    """The position at the first card of trick 1 of a deal string (or a PBN deal):
    `from_state(*deal_state(...))`, see `deal_state` for the arguments and what is
    decided before trick 1. Returns (position, players) like `from_state`."""
    return from_state(*deal_state(text, game, trump=trump, leader=leader, key=key, **flags))


def from_pbn(pbn: str, trump, leader) -> Position:
    """A full bridge deal in PBN (`N:<hand> <hand> <hand> <hand>`, `kanjax.core.pbn`) before the
    opening lead, with `trump` and the opening `leader` as the PBN game's `trick_start`
    takes them; bad input raises ValueError (`CardError` for the PBN text)."""
    return from_deal(pbn, trump=trump, leader=leader)[0]
