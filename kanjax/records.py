"""Game records (JSON) and replay.

A record holds the game and its flags, the seed, the optional starting deal string, the hands
of every deal as dealt, every action by name and the final scores. Chance follows the key
convention of `kanjax.rollout` (game `game_index` of the seed, default 0: tournaments store
the deal seed index there), so `replay` re-runs the match through the engine and reports the
first step that disagrees with the record.

A match a player forfeited (a tournament's crash, timeout or illegal move) is recorded up to
the forfeit: its `forfeit` entry names the `player`, the `reason`, the refused move (`action`,
None when none was chosen) and the match `scores` the forfeit gave; `replay` checks every step
up to it and that the forfeiting player is the one to act there.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import jax
import numpy as np

import kanjax
from kanjax.api import Env, State
from kanjax.bots import uniform_random
from kanjax.rollout import Policy, game_key, step_keys

FORMAT = "kanjax-record/1"


class Match:
    """One unbatched match under the rollout key convention, with jitted steps."""

    def __init__(self, game: str, flags: dict[str, Any], seed: int, start: str | None,
                 game_index: int = 0):
        self.env: Env = kanjax.make(game, **flags)
        self.gkey = game_key(jax.random.PRNGKey(seed), game_index)
        self.state: State = (
            self.env.init(self.gkey) if start is None else self.env.from_deal(start, self.gkey)
        )
        self._step = self.env.jitted("step")
        self.returns = np.zeros(self.env.num_players)  # summed rewards = match scores

    @property
    def done(self) -> bool:
        return bool(self.state.terminated | self.state.truncated)

    def keys(self):
        return step_keys(self.env, self.gkey, self.state)

    def step(self, action: int) -> None:
        self.state = self._step(self.state, np.int32(action), self.keys()[1])
        self.returns += np.asarray(self.state.rewards)


def play_record(
    game: str,
    flags: dict[str, Any] | None = None,
    seed: int = 0,
    policy: Policy = uniform_random,
    start: str | None = None,
) -> dict:
    """Play one match with `policy` in every seat and return its record."""
    flags = dict(flags or {})
    m = Match(game, flags, seed, start)
    observe = m.env.jitted("observe")
    deals = [{"step": 0, "deal": m.env.deal_string(m.state)}]
    actions = []
    while not m.done:
        pkey, _ = m.keys()
        obs = observe(m.state, m.state.current_player)
        action = int(policy(pkey, obs, m.state.legal_action_mask))
        actions.append(m.env.action_name(action, m.state))
        m.step(action)
        if bool(m.env.deal_done(m.state)) and not m.done:
            deals.append({"step": len(actions), "deal": m.env.deal_string(m.state)})
    return {
        "format": FORMAT,
        "game": game,
        "flags": flags,
        "seed": seed,
        "start": start,
        "deals": deals,
        "actions": actions,
        "scores": _scores(m),
        "terminated": bool(m.state.terminated),
    }


def _scores(m: Match) -> list[float]:
    return [float(x) for x in m.returns]


@dataclasses.dataclass(frozen=True)
class ReplayResult:
    ok: bool
    steps: int  # steps replayed before the first disagreement (all of them when ok)
    error: str | None = None
    forfeit: str | None = None  # a forfeited match: who forfeited and why


def replay(record: dict) -> ReplayResult:
    """Re-run `record` through the engine; the first step that disagrees is reported."""
    if record.get("format") != FORMAT:
        return ReplayResult(False, 0, f"not a {FORMAT} record (format={record.get('format')!r})")
    try:
        m = Match(record["game"], record.get("flags", {}), record["seed"], record.get("start"),
                  record.get("game_index", 0))
    except (KeyError, ValueError) as err:
        return ReplayResult(False, 0, f"cannot start the match: {err}")
    deals = {d["step"]: d["deal"] for d in record.get("deals", [])}
    for i, name in enumerate(record["actions"]):
        if i in deals and deals[i] != m.env.deal_string(m.state):
            return ReplayResult(False, i, f"step {i}: the deal differs from the record:\n"
                                f"  record: {deals[i]}\n  engine: {m.env.deal_string(m.state)}")
        if m.done:
            return ReplayResult(False, i, f"step {i}: the match is already over, "
                                f"but the record goes on with {name!r}")
        try:
            action = m.env.action_from_name(name, m.state)
        except ValueError as err:
            return ReplayResult(False, i, f"step {i}: {err}")
        if not bool(m.state.legal_action_mask[action]):
            legal = ", ".join(m.env.action_name(a, m.state) for a in m.env.legal_actions(m.state))
            return ReplayResult(False, i, f"step {i}: {name!r} is illegal here; legal: {legal}")
        m.step(action)
    n = len(record["actions"])
    if n in deals and deals[n] != m.env.deal_string(m.state):
        return ReplayResult(False, n, f"step {n}: the deal differs from the record")
    if bool(m.state.terminated) != record.get("terminated", True):
        return ReplayResult(False, n, f"after step {n}: terminated={bool(m.state.terminated)}")
    scores = _scores(m)
    if "scores" in record and not np.allclose(scores, record["scores"]):
        return ReplayResult(False, n, f"final scores {scores} differ from the record's "
                            f"{record['scores']}")
    forfeit = record.get("forfeit")
    if forfeit is None:
        return ReplayResult(True, n)
    error = _forfeit_error(m, forfeit)
    if error:
        return ReplayResult(False, n, f"after step {n}: {error}")
    return ReplayResult(True, n, forfeit=f"then player {forfeit['player']} forfeited: "
                        f"{forfeit.get('reason') or 'no reason given'}")


def _forfeit_error(m: Match, forfeit: dict) -> str | None:
    """Why the record's `forfeit` cannot have happened where the replay stands, or None."""
    if m.done:
        return "the match is over, so nobody can forfeit"
    if int(m.state.current_player) != forfeit.get("player"):
        return (f"player {int(m.state.current_player)} is to act, not the forfeiting player "
                f"{forfeit.get('player')}")
    name = forfeit.get("action")
    if name is not None:
        try:
            legal = bool(m.state.legal_action_mask[m.env.action_from_name(name, m.state)])
        except ValueError:
            legal = False
        if legal:
            return f"the forfeited move {name!r} is legal here"
    return None


def record_of_actions(game: str, flags: dict[str, Any], seed: int, game_index: int,
                      actions: list[int], scores: list[float], forfeit: dict | None = None
                      ) -> dict:
    """A record of a match known by its action ids (e.g. a tournament's `games` row). With
    `forfeit` (the forfeiting `player`, the `reason`) the last action is the refused move:
    the record stops before it, its `scores` are the engine's there, and its `forfeit` adds
    that move's name (None: no move chosen, -1) and the match `scores` given."""
    m = Match(game, flags, seed, None, game_index)
    names, deals = [], [{"step": 0, "deal": m.env.deal_string(m.state)}]
    played = actions[:-1] if forfeit else actions
    for a in played:
        if m.done:
            raise ValueError(f"the match ended after {len(names)} of {len(actions)} actions")
        names.append(m.env.action_name(int(a), m.state))
        m.step(int(a))
        if bool(m.env.deal_done(m.state)) and not m.done:
            deals.append({"step": len(names), "deal": m.env.deal_string(m.state)})
    record = {"format": FORMAT, "game": game, "flags": flags, "seed": seed,
              "game_index": game_index, "start": None, "deals": deals, "actions": names,
              "scores": _scores(m) if forfeit else [float(x) for x in scores],
              "terminated": bool(m.state.terminated)}
    if forfeit:
        refused = int(actions[-1])
        name = (m.env.action_name(refused, m.state) if 0 <= refused < m.env.num_actions
                else None)
        record["forfeit"] = {**forfeit, "action": name, "scores": [float(x) for x in scores]}
    return record


def save(record: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load(path: str | Path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not a JSON game record ({err})") from None
