"""Game records (JSON) and replay.

A record holds the game and its flags, the seed, the optional starting deal string, the hands
of every deal as dealt, every action by name and the final scores. Chance follows the key
convention of `kanjax.rollout` (game `game_index` of the seed, default 0: tournaments store
the deal seed index there), so `replay` re-runs the match through the engine and reports the
first step that disagrees with the record. Playing, replaying and showing a match run one
jitted program (`kanjax.rollout.make_trajectory`) on parts of `CHUNK` steps until the match
is over, which yields every state of the match.

A match a player forfeited (a tournament's crash, timeout or illegal move) is recorded up to
the forfeit: its `forfeit` entry names the `player`, the `reason`, the refused move (`action`,
None when none was chosen) and the match `scores` the forfeit gave; `replay` checks every step
up to it and that the forfeiting player is the one to act there.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import jax
import numpy as np

import kanjax
from kanjax.api import Env, State, jitted, legal_actions
from kanjax.bots import uniform_random
from kanjax.rollout import Policy, Trajectory, game_key, make_init, make_trajectory, step_keys

FORMAT = "kanjax-record/1"


CHUNK = 512  # steps a part of a match (`Match.run`) takes in one jitted scan


def _joined(parts: list[Trajectory]) -> Trajectory:
    """The trajectory of consecutive parts (each part's first state is the last one's
    last)."""
    states = jax.tree.map(lambda *xs: np.concatenate([xs[0], *(x[1:] for x in xs[1:])]),
                          *(p.states for p in parts))
    return Trajectory(states, np.concatenate([p.actions for p in parts]),
                      np.concatenate([p.deal_done for p in parts]))


@functools.cache
def _step_keys(env: Env):
    """`step_keys` for `env`, jitted (eager, its threefry costs tens of ms a step)."""
    return jax.jit(functools.partial(step_keys, env))


class Match:
    """One unbatched match under the rollout key convention: `run` plays it through one
    jitted call; `step` takes one action at a time (jitted steps: tests that watch every
    state, a person's game) and `record` is the record of the steps taken so far."""

    def __init__(self, game: str, flags: dict[str, Any], seed: int, start: str | None,
                 game_index: int = 0):
        self.game, self.flags, self.seed = game, dict(flags), seed
        self.start, self.game_index = start, game_index
        self.env: Env = kanjax.make(game, **flags)
        self.gkey = game_key(jax.random.PRNGKey(seed), game_index)
        self.first: State | None = (  # None: env.init(gkey)
            None if start is None else self.env.from_deal(start, self.gkey))
        self.returns = np.zeros(self.env.num_players)  # summed rewards = match scores
        self.names: list[str] = []  # the actions `step` took, by name
        self.deals: list[dict] = []  # the deal at step 0 and after each step that ended one

    @functools.cached_property
    def state(self) -> State:
        """The state now (`step` moves it on), at first the match's first state."""
        return jitted(self.env, "init")(self.gkey) if self.first is None else self.first

    @property
    def done(self) -> bool:
        return bool(self.state.terminated | self.state.truncated)

    def keys(self):
        return _step_keys(self.env)(self.gkey, self.state)

    def step(self, action: int) -> None:
        if not self.names:
            self.deals.append({"step": 0, "deal": self.env.deal_string(self.state)})
        name = self.env.action_name(action, self.state)
        self.state = jitted(self.env, "step")(self.state, np.int32(action), self.keys()[1])
        self.names.append(name)
        self.returns += np.asarray(self.state.rewards)
        if bool(jitted(self.env, "deal_done")(self.state)) and not self.done:
            self.deals.append({"step": len(self.names),
                               "deal": self.env.deal_string(self.state)})

    def record(self) -> dict:
        """The record of the steps `step` took. Before the match is over it is a partial
        record (`terminated` false, the scores so far) that `replay` checks up to its last
        step."""
        deals = self.deals or [{"step": 0, "deal": self.env.deal_string(self.state)}]
        return {"format": FORMAT, "game": self.game, "flags": self.flags, "seed": self.seed,
                "game_index": self.game_index, "start": self.start, "deals": deals,
                "actions": list(self.names), "scores": [float(x) for x in self.returns],
                "terminated": bool(self.state.terminated)}

    def run(self, actions: list[int], policy: Policy = uniform_random) -> Played:
        """The match taking `actions`, then `policy`'s choices until it ends: parts of
        `CHUNK` steps, each one jitted scan from the state the last one ended in, until the
        match is over and `actions` are taken (a match's bound, `max_steps`, is far longer
        than most matches: 128,000 steps for a rummy match of about a thousand)."""
        env = self.env
        if len(actions) > env.max_steps:
            raise ValueError(f"{len(actions)} actions: a {env.name} match has at most "
                             f"{env.max_steps}")
        chunk = min(CHUNK, env.max_steps)
        program = make_trajectory(env, policy, chunk)
        first = make_init(env)(self.gkey) if self.first is None else self.first
        state = jax.tree.map(np.asarray, first)  # as the later parts' (one compile)
        parts: list[Trajectory] = []
        for at in range(0, env.max_steps, chunk):
            given = np.zeros(chunk, np.int32)
            todo = actions[at: at + chunk]
            given[: len(todo)] = todo
            traj = jax.tree.map(np.asarray, program(self.gkey, given, np.int32(len(todo)),
                                                    state))
            parts.append(traj)
            state = jax.tree.map(lambda x: x[-1], traj.states)
            if at + chunk >= len(actions) and bool(state.terminated | state.truncated):
                break
        return Played(env, _joined(parts))

    def action_ids(self, names: list[str]) -> tuple[list[int], str | None]:
        """The ids of `names` (a prefix, and the error of the first name that is not an
        action of its state, if any). A name that needs its state (a hand-relative action)
        is read in the state the ids before it lead to."""
        ids: list[int] = []
        for i, name in enumerate(names):
            try:
                ids.append(self.env.action_from_name(name))
                continue
            except ValueError:
                pass
            try:
                ids.append(self.env.action_from_name(name, self.run(ids).state(i)))
            except ValueError as err:
                return ids, str(err)
        return ids, None


@dataclasses.dataclass(frozen=True)
class Played:
    """A match's trajectory as numpy arrays (`kanjax.rollout.Trajectory`), read by step."""

    env: Env
    traj: Trajectory  # numpy leaves

    @property
    def steps(self) -> int:
        """Steps the match took (to its end, or the step bound)."""
        count = self.traj.states.step_count
        return int(count[-1] - count[0])

    def state(self, i: int) -> State:
        """The state before step `i` (after step i - 1)."""
        return jax.tree.map(lambda x: x[i], self.traj.states)

    def done(self, i: int) -> bool:
        return bool(self.traj.states.terminated[i] | self.traj.states.truncated[i])

    def scores(self, n: int) -> list[float]:
        """The summed rewards of the first `n` steps."""
        return [float(x) for x in self.traj.states.rewards[1: n + 1].sum(0)]

    def names(self, n: int) -> list[str]:
        """The first `n` actions by name."""
        return [self.env.action_name(int(a), self.state(i))
                for i, a in enumerate(self.traj.actions[:n])]

    def deals(self, n: int) -> list[dict]:
        """The deal string at step 0 and after each step among the first `n` that ended a
        deal (and not the match)."""
        return [{"step": i, "deal": self.env.deal_string(self.state(i))} for i in range(n + 1)
                if i == 0 or (self.traj.deal_done[i - 1] and not self.done(i))]


def play_record(
    game: str,
    flags: dict[str, Any] | None = None,
    seed: int = 0,
    policy: Policy = uniform_random,
    start: str | None = None,
) -> dict:
    """Play one match with `policy` in every seat and return its record."""
    flags = dict(flags or {})
    played = Match(game, flags, seed, start).run([], policy)
    n = played.steps
    return {
        "format": FORMAT,
        "game": game,
        "flags": flags,
        "seed": seed,
        "start": start,
        "deals": played.deals(n),
        "actions": played.names(n),
        "scores": played.scores(n),
        "terminated": bool(played.traj.states.terminated[n]),
    }


@dataclasses.dataclass(frozen=True)
class ReplayResult:
    ok: bool
    steps: int  # steps replayed before the first disagreement (all of them when ok)
    error: str | None = None
    forfeit: str | None = None  # a forfeited match: who forfeited and why


def start_match(record: dict) -> Match:
    """The match of a record, before its first action; ValueError naming what is wrong."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        found = record.get("format") if isinstance(record, dict) else type(record).__name__
        raise ValueError(f"not a {FORMAT} record (format={found!r})")
    try:
        return Match(record["game"], record.get("flags", {}), record["seed"],
                     record.get("start"), record.get("game_index", 0))
    except KeyError as err:
        raise ValueError(f"the record has no {err.args[0]!r}") from None


def replay(record: dict) -> ReplayResult:
    """Re-run `record` through the engine; the first step that disagrees is reported.
    ValueError (`start_match`'s) when `record` is not a record whose match can start."""
    m = start_match(record)
    names = record.get("actions")
    if not isinstance(names, list):
        raise ValueError("the record has no list of 'actions'")
    ids, bad = m.action_ids(names)
    played = m.run(ids[: m.env.max_steps])  # the match is over by then
    deals = {d["step"]: d["deal"] for d in record.get("deals", [])}
    for i, name in enumerate(names):
        state = played.state(i)
        if i in deals and deals[i] != m.env.deal_string(state):
            return ReplayResult(False, i, f"step {i}: the deal differs from the record:\n"
                                f"  record: {deals[i]}\n  engine: {m.env.deal_string(state)}")
        if played.done(i):
            return ReplayResult(False, i, f"step {i}: the match is already over, "
                                f"but the record goes on with {name!r}")
        if i == len(ids):
            return ReplayResult(False, i, f"step {i}: {bad}")
        if not state.legal_action_mask[ids[i]]:
            legal = ", ".join(m.env.action_name(a, state) for a in legal_actions(state))
            return ReplayResult(False, i, f"step {i}: {name!r} is illegal here; legal: {legal}")
    n = len(names)
    if n in deals and deals[n] != m.env.deal_string(played.state(n)):
        return ReplayResult(False, n, f"step {n}: the deal differs from the record")
    terminated = bool(played.traj.states.terminated[n])
    if terminated != record.get("terminated", True):
        return ReplayResult(False, n, f"after step {n}: terminated={terminated}")
    scores = played.scores(n)
    if "scores" in record and not np.allclose(scores, record["scores"]):
        return ReplayResult(False, n, f"final scores {scores} differ from the record's "
                            f"{record['scores']}")
    forfeit = record.get("forfeit")
    if forfeit is None:
        return ReplayResult(True, n)
    error = _forfeit_error(m.env, played.state(n), played.done(n), forfeit)
    if error:
        return ReplayResult(False, n, f"after step {n}: {error}")
    return ReplayResult(True, n, forfeit=f"then player {forfeit['player']} forfeited: "
                        f"{forfeit.get('reason') or 'no reason given'}")


def _forfeit_error(env: Env, state: State, done: bool, forfeit: dict) -> str | None:
    """Why the record's `forfeit` cannot have happened at `state` (where the replay stands),
    or None."""
    if done:
        return "the match is over, so nobody can forfeit"
    if int(state.current_player) != forfeit.get("player"):
        return (f"player {int(state.current_player)} is to act, not the forfeiting player "
                f"{forfeit.get('player')}")
    name = forfeit.get("action")
    if name is not None:
        try:
            legal = bool(state.legal_action_mask[env.action_from_name(name, state)])
        except ValueError:
            legal = False
        if legal:
            return f"the forfeited move {name!r} is legal here"
    return None


def state_at(record: dict, step: int) -> tuple[Env, State]:
    """The env and the state after the record's first `step` actions (`kanjax show`)."""
    m = start_match(record)
    names = record["actions"]
    if not 0 <= step <= len(names):
        raise ValueError(f"--step {step}: the record has {len(names)} actions (0..{len(names)})")
    ids, bad = m.action_ids(names[:step])
    if bad is not None:
        raise ValueError(f"step {len(ids)}: {bad}")
    return m.env, m.run(ids).state(step)


def record_of_actions(game: str, flags: dict[str, Any], seed: int, game_index: int,
                      actions: list[int], scores: list[float], forfeit: dict | None = None
                      ) -> dict:
    """A record of a match known by its action ids (e.g. a tournament's `games` row). With
    `forfeit` (the forfeiting `player`, the `reason`) the last action is the refused move:
    the record stops before it, its `scores` are the engine's there, and its `forfeit` adds
    that move's name (None: no move chosen, -1) and the match `scores` given."""
    actions = [int(a) for a in actions]
    kept = actions[:-1] if forfeit else actions
    played = Match(game, flags, seed, None, game_index).run(kept)
    n = len(kept)
    ended = next((i for i in range(n) if played.done(i)), None)
    if ended is not None:
        raise ValueError(f"the match ended after {ended} of {len(actions)} actions")
    record = {"format": FORMAT, "game": game, "flags": flags, "seed": seed,
              "game_index": game_index, "start": None, "deals": played.deals(n),
              "actions": played.names(n),
              "scores": played.scores(n) if forfeit else [float(x) for x in scores],
              "terminated": bool(played.traj.states.terminated[n])}
    if forfeit:
        env, state, refused = played.env, played.state(n), actions[-1]
        name = env.action_name(refused, state) if 0 <= refused < env.num_actions else None
        record["forfeit"] = {**forfeit, "action": name, "scores": [float(x) for x in scores]}
    return record


def save(record: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load(path: str | Path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not a JSON game record ({err})") from None
    except OSError as err:
        raise ValueError(f"{path}: cannot read the record ({err.strerror})") from None
