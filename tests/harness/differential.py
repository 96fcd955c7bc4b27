"""Differential testing: a JAX engine against its plain-Python reference, step by step.

The engine plays a batch of random matches (one jitted `env.step_batch` per call, which is
`vmap(env.step)` bit for bit: tests/test_step_batch.py) with a biased
random policy: where anything else is legal, it avoids the game's rare actions most of the
time, so that matches run long (Kan: the JK reaches the late tricks), and the test asserts
that each rare action was still played. Every step's `env.summary` is recorded. The matches
are then replayed through the reference (`compare`), all of a batch step by step together,
each fed the engine's chance, and every legal mask, match score and compared summary field is
checked; a step's summary is converted to Python once for all its games.

What is game-specific lives in a small adapter in the game's test folder
(`tests/games/<game>/differential.py`, an `Adapter`): the reference of a match, how chance
is fed to it, what it says, the compared keys and the rare actions; optionally a bias of the
random policy (`prefer`), stacked starts (`init`) and host-side plans (`steer`) where random
play is too aimless to reach a game's branches (Konkan's 51 openings).

Where match lengths vary a lot, `run_counted(..., lanes=L)` plays a chunk's matches through L
engine lanes, a lane starting the next match when its own is over (`EngineRunner.play_lanes`),
so that a chunk costs its matches' total length rather than its longest match times the chunk.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import itertools
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import Env
from kanjax.bots import uniform_random
from kanjax.rollout import game_key, step_keys

AVOID_RARE_P = 0.875  # how often the policy avoids a rare action where it can


class Adapter(Protocol):
    """The game-specific half of a differential test.

    Optional methods, looked up with `getattr` (a game without them plays as before, bit for
    bit):
    - `prefer(env, state, key) -> bool[num_actions]`: jittable; the actions the random policy
      plays (uniformly among the legal ones) where any of them is legal, after the rare
      actions' avoidance; empty (or none legal): the policy's usual choice. `key` is the
      step's own.
    - `init(env, key) -> State`: jittable; a match's first state in place of `env.init(key)`
      (e.g. some matches with a stacked first deal).
    - `steer(env, seed) -> Callable[[dict], np.ndarray]`: host side; a fresh steering of one
      batch, called before every step with the batch's summary (numpy, one row a game) and
      returning the action each game plays (int per game, legal), -1 where the policy
      chooses (e.g. a planned opening that random play would seldom find).
    - `step_options: dict`: XLA options of the batched step's compile in place of the run's
      (tests/conftest.py: optimisation level 0), e.g. `{"xla_backend_optimization_level": 1}`
      where a config plays enough steps to repay the longer compile.
    """

    def rare_actions(self, env: Env) -> tuple[int, ...]:
        """Actions the policy plays rarely (each must still be played in a test's matches)."""

    def reference(self, env: Env, first: dict) -> Any:
        """A fresh reference for one match; `first` is the engine's summary after `init`."""

    def feed(self, ref: Any, s: dict) -> None:
        """Give `ref` the chance events (deals, exchanges) behind the engine summary `s`."""

    def facts(self, ref: Any) -> dict:
        """The reference's facts under the engine's summary names: `legal_actions`
        (sorted ids), `terminal`, `scores` (match scores so far) and the compared keys."""

    def compared(self, env: Env) -> tuple[str, ...]:
        """The summary keys compared while the match runs."""

    def final(self, env: Env) -> tuple[str, ...]:
        """The summary keys compared at the end of the match."""

    def engine_facts(self, s: dict) -> dict:
        """The engine summary `s` as the reference states it (e.g. a set sorted)."""


def plain_facts(s: dict, bools: tuple[str, ...]) -> dict:
    """An engine summary as a reference states it: the `bools` keys as bool, a staged
    `selection` (bool per card) as the sorted card ids (docs/turns.md)."""
    out = dict(s)
    for k in bools:
        if k in out:
            out[k] = bool(out[k])
    if "selection" in s:
        out["selection"] = [c for c, x in enumerate(s["selection"]) if x]
    return out


@dataclasses.dataclass
class Trajectories:
    """Per step t (0 = after init) and game g: the summary, and the action taken at t.

    Played through lanes (`EngineRunner.play_lanes`), g is a lane: `fresh[t]` the lanes whose
    match starts at step t; the step slot of a lane's new match is -1 in `actions` at t - 1."""

    summaries: list[dict[str, np.ndarray]]
    actions: list[np.ndarray]
    fresh: list[np.ndarray] | None = None

    def rows(self, t: int) -> np.ndarray:
        """The games (lanes) compared at step t: those not over before it, or starting."""
        if not t:
            return np.arange(len(self.summaries[0]["terminated"]))
        live = ~self.summaries[t - 1]["terminated"]
        if self.fresh is not None:
            live = live | self.fresh[t]
        return np.flatnonzero(live)

    def new(self, t: int) -> np.ndarray:
        """bool per game: its match starts at step t."""
        if self.fresh is not None:
            return self.fresh[t]
        return np.full(len(self.summaries[0]["terminated"]), t == 0)


class GameView(Mapping):
    """Game g's summary at step t, as numpy values read on access (for an adapter's `feed`)."""

    def __init__(self, traj: Trajectories, g: int, t: int):
        self._summary, self._g = traj.summaries[t], g

    def __getitem__(self, key: str) -> np.ndarray:
        return self._summary[key][self._g]

    def __iter__(self):
        return iter(self._summary)

    def __len__(self) -> int:
        return len(self._summary)


class EngineRunner:
    """Jitted batched init/step/summary for one config, reused across chunks."""

    def __init__(self, adapter: Adapter, game: str, flags: dict):
        self.env = env = kanjax.make(game, **flags)
        self.adapter = adapter
        rare = np.isin(np.arange(env.num_actions), adapter.rare_actions(env))
        prefer = getattr(adapter, "prefer", None)
        start = getattr(adapter, "init", None)

        def init(gkey):
            s = env.init(gkey) if start is None else start(env, gkey)
            return s, env.summary(s)

        def act(state, gkey, akey):
            pkey, skey = step_keys(env, gkey, state)
            k_act, k_rare = jax.random.split(jax.random.fold_in(akey, state.step_count))
            mask = state.legal_action_mask
            common = mask & ~rare
            avoid = jnp.any(common) & (jax.random.uniform(k_rare) < AVOID_RARE_P)
            mask = jnp.where(avoid, common, mask)
            if prefer is not None:  # the adapter's bias (other games trace as before)
                k_act, k_pref = jax.random.split(k_act)
                preferred = prefer(env, state, k_pref) & mask
                mask = jnp.where(jnp.any(preferred), preferred, mask)
            return uniform_random(k_act, None, mask), skey

        def step(states, gkeys, akeys, forced=None):  # step_batch: vmap(step), and cheaper
            actions, skeys = jax.vmap(act)(states, gkeys, akeys)
            if forced is not None:  # the adapter's steering (other games trace as before)
                actions = jnp.where(forced >= 0, forced, actions)
            nxt = env.step_batch(states, actions, skeys)
            return nxt, actions, jax.vmap(env.summary)(nxt)

        self.init = jax.jit(jax.vmap(init))
        self.step = jax.jit(step, compiler_options=getattr(adapter, "step_options", None))
        self.keys = jax.jit(jax.vmap(lambda key, g: (game_key(key, g), game_key(key, g + 10**6)),
                                     in_axes=(None, 0)))
        self.where_lanes = jax.jit(functools.partial(_where_lanes, jnp))
        self.steer = getattr(adapter, "steer", None)

    def _forced(self, steer, summary: dict) -> jax.Array | None:
        return None if steer is None else jnp.asarray(steer(summary), jnp.int32)

    def play(self, seed: int, batch: int) -> Trajectories:
        key = jax.random.PRNGKey(seed)
        gkeys = jax.vmap(lambda g: game_key(key, g))(jnp.arange(batch))
        akeys = jax.vmap(lambda g: game_key(key, g + 10**6))(jnp.arange(batch))
        state, summ = self.init(gkeys)
        summaries, actions = [jax.device_get(summ)], []
        steer = None if self.steer is None else self.steer(self.env, seed)
        for _ in range(self.env.max_steps):
            if bool(jnp.all(state.terminated | state.truncated)):
                break
            state, action, summ = self.step(state, gkeys, akeys,
                                            self._forced(steer, summaries[-1]))
            actions.append(np.asarray(action))
            summaries.append(jax.device_get(summ))
        return Trajectories(summaries, actions)

    def play_lanes(self, seed: int, games: int, lanes: int) -> Trajectories:
        """`play(seed, games)`'s matches (the same keys) through `lanes` lanes: a lane whose
        match is over starts the next match (its first state takes that step's slot), once a
        tenth of the lanes are free or no match is left to wait for. The batch's cost follows
        the matches' total length, not `games` times the longest."""
        key = jax.random.PRNGKey(seed)
        lanes = min(lanes, games)
        ids = np.arange(lanes)  # the match each lane plays
        gkeys, akeys = self.keys(key, ids)
        state, summ = self.init(gkeys)
        summaries, actions = [jax.device_get(summ)], []
        fresh = [np.ones(lanes, bool)]
        steer = None if self.steer is None else self.steer(self.env, seed)
        nxt = lanes
        for _ in range(self.env.max_steps * games):
            done = np.asarray(state.terminated | state.truncated)
            if done.all() and nxt == games:
                break
            state, action, summ = self.step(state, gkeys, akeys,
                                            self._forced(steer, summaries[-1]))
            action, summ = np.asarray(action), jax.device_get(summ)
            new = np.zeros(lanes, bool)
            if nxt < games and (done.sum() >= max(1, lanes // 10) or done.all()):
                free = np.flatnonzero(done)[:games - nxt]
                new[free] = True
                ids[free] = np.arange(nxt, nxt + len(free))
                nxt += len(free)
                gkeys, akeys = self.keys(key, ids)
                first, first_summ = self.init(gkeys)
                state = self.where_lanes(new, first, state)
                summ = _where_lanes(np, new, jax.device_get(first_summ), summ)
                action = np.where(new, -1, action)
            actions.append(action)
            summaries.append(summ)
            fresh.append(new)
        return Trajectories(summaries, actions, fresh)


def _where_lanes(xp, lanes: np.ndarray, new, old):
    """The pytree `new` in the `lanes` (bool per lane, the leading axis), `old` elsewhere."""
    return jax.tree.map(lambda a, b: xp.where(
        xp.asarray(lanes).reshape((-1,) + (1,) * (a.ndim - 1)), a, b), new, old)


def _legal_lists(mask: np.ndarray) -> list[list[int]]:
    """Each row of a bool mask as its sorted true indices."""
    rows, ids = np.nonzero(mask)
    ends = np.searchsorted(rows, np.arange(mask.shape[0] + 1)).tolist()
    ids = ids.tolist()
    return [ids[a:b] for a, b in itertools.pairwise(ends)]


class _Plain:
    """Each game's summary values as Python values, step after step: a game's value is
    converted where it differs from the step before (or was not converted then), else kept
    (most fields change in few steps: the table, the other players' hands)."""

    def __init__(self):
        self.values: dict[str, list] = {}  # key -> per game its value at the last step
        self.fresh: dict[str, np.ndarray] = {}  # key -> the games converted at the last step
        self.asked: dict[str, list[np.ndarray]] = {}  # key -> the games asked at this step
        self.last: dict | None = None  # the last step's summary

    def get(self, s: dict, key: str, games: np.ndarray) -> list:
        """`s[key]` per game (indexed by game; only `games` hold this step's values)."""
        n = len(s[key])
        values = self.values.setdefault(key, [None] * n)
        fresh = self.fresh.setdefault(key, np.zeros(n, bool))
        same = fresh[games]
        if self.last is not None and same.any():
            same &= (s[key][games] == self.last[key][games]).reshape(len(games), -1).all(-1)
        todo = games[~same]
        for g, v in zip(todo.tolist(), s[key][todo].tolist(), strict=True):
            values[g] = v
        self.asked.setdefault(key, []).append(games)
        return values

    def done(self, s: dict) -> None:
        """The step `s` compared: the next one starts."""
        for key, fresh in self.fresh.items():
            fresh[:] = False
            for games in self.asked.pop(key, ()):
                fresh[games] = True
        self.last = s


def _compare_step(adapter: Adapter, env: Env, s: dict, rows: np.ndarray, facts: list[dict],
                  scores: np.ndarray, where: Callable[[int], str], plain: _Plain) -> None:
    """Check the engine summary `s` of step t in the games `rows` against the reference's
    `facts` (one per row): terminal, the legal actions (a terminal mask all True), the compared
    keys (after the match, only the results: `final`) and the match scores; `where(i)` names
    row i's game and step in a failure."""
    terminal = s["terminated"][rows]
    for i in np.flatnonzero(terminal != np.array([r["terminal"] for r in facts], bool)):
        side = "engine" if terminal[i] else "reference"
        raise AssertionError(f"{where(i)}: {side} terminal, the other not")
    mask = s["legal_action_mask"][rows]
    for i in np.flatnonzero(terminal & ~mask.all(-1)):
        raise AssertionError(f"{where(i)}: terminal mask not all True")
    # the legal actions of the games in play, as one flat list in game order (each sorted)
    live = np.flatnonzero(~terminal)
    ref = [facts[i]["legal_actions"] for i in live.tolist()]
    ref_rows = np.repeat(np.arange(len(live)), [len(r) for r in ref])
    ref_ids = np.fromiter(itertools.chain.from_iterable(ref), np.int64, len(ref_rows))
    eng_rows, eng_ids = np.nonzero(mask[live])
    if not (np.array_equal(eng_rows, ref_rows) and np.array_equal(eng_ids, ref_ids)):
        for i, legal, want in zip(live.tolist(), _legal_lists(mask[live]), ref, strict=True):
            assert legal == want, (
                f"{where(i)}: legal actions differ\n engine {legal}\n ref    {want}")
    for keys, part in ((adapter.compared(env), live), (adapter.final(env),
                                                        np.flatnonzero(terminal))):
        if not len(part):
            continue
        games = rows[part]
        values = {k: plain.get(s, k, games) for k in keys}
        for g, i in zip(games.tolist(), part.tolist(), strict=True):
            e, r = adapter.engine_facts({k: v[g] for k, v in values.items()}), facts[i]
            for key in keys:
                assert e[key] == r[key], (
                    f"{where(i)}: {key} differs: engine {e[key]}, reference {r[key]}")
    want = [list(r["scores"]) for r in facts]
    for i in np.flatnonzero((scores != np.array(want, np.float64)).any(-1)):
        raise AssertionError(f"{where(i)}: match scores: engine {scores[i].tolist()}, "
                             f"{want[i]}")
    plain.done(s)


def compare(adapter: Adapter, env: Env, traj: Trajectories) -> int:
    """Replay every match of `traj` through the reference, all games (lanes) step by step
    together: a game's reference is made and fed at its first step, then takes the engine's
    action and is fed at each step until the match is over; each step's summary is converted
    to Python once for all its games, and only where it changed (`_Plain`). Returns the
    number of steps compared."""
    with _frozen_heap():
        return _compare_all(adapter, env, traj)


@contextlib.contextmanager
def _frozen_heap():
    """The process's objects (jax's, some 300,000) out of the cyclic garbage collector's way
    while a comparison allocates millions of short-lived lists: its full collections would
    walk them all again and again (a third of the comparison's time)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _compare_all(adapter: Adapter, env: Env, traj: Trajectories) -> int:
    games = len(traj.summaries[0]["terminated"])
    refs: list[Any] = [None] * games
    scores = np.zeros((games, env.num_players))  # the rewards summed since each match's start
    steps = 0
    plain = _Plain()
    for t, s in enumerate(traj.summaries):
        rows, new = traj.rows(t), traj.new(t)
        for g in rows.tolist():
            view = GameView(traj, g, t)
            if new[g]:
                refs[g] = adapter.reference(env, view)
            else:
                refs[g].apply(int(traj.actions[t - 1][g]))
            adapter.feed(refs[g], view)
        steps += int((~new[rows]).sum())
        scores[rows] = np.where(new[rows, None], 0.0, scores[rows] + s["rewards"][rows])
        _compare_step(adapter, env, s, rows, [adapter.facts(refs[g]) for g in rows.tolist()],
                      scores[rows], functools.partial(_where, traj, rows, t), plain)
    return steps


def _where(traj: Trajectories, rows: np.ndarray, t: int, i: int) -> str:
    """Row i of step t's games, named in a failure."""
    g = int(rows[i])
    if traj.new(t)[g]:
        return f"game {g} after init"
    return f"game {g} step {t - 1} (action {int(traj.actions[t - 1][g])})"


@functools.cache
def _runner(adapter: Adapter, game: str, flag_items: tuple) -> EngineRunner:
    return EngineRunner(adapter, game, dict(flag_items))


def run_differential(adapter: Adapter, game: str, flags: dict, seed: int,
                     batch: int) -> tuple[int, dict[int, int]]:
    """Play `batch` random matches of one config through both; returns the steps compared
    and how often each rare action was played."""
    runner = _runner(adapter, game, tuple(sorted(flags.items())))
    traj = runner.play(seed, batch)
    rare = adapter.rare_actions(runner.env)
    played = np.concatenate([a[~s["terminated"]] for s, a in zip(traj.summaries[:-1],
                                                                  traj.actions, strict=True)])
    return compare(adapter, runner.env, traj), {a: int((played == a).sum()) for a in rare}


def run_counted(adapter: Adapter, game: str, flags: dict, seeds, chunk: int,
                branches: Callable[[Trajectories], dict[str, int]],
                lanes: int | None = None) -> tuple[int, dict[str, int]]:
    """Play `chunk` random matches of one config per seed through both; returns the steps
    compared and the game's `branches(trajectories)` counts (rare branches fired), summed.
    With `lanes`, the engine plays each chunk through that many lanes (`play_lanes`)."""
    runner = _runner(adapter, game, tuple(sorted(flags.items())))
    steps, fired = 0, {}
    for seed in seeds:
        traj = (runner.play(seed, chunk) if lanes is None
                else runner.play_lanes(seed, chunk, lanes))
        steps += compare(adapter, runner.env, traj)
        for k, v in branches(traj).items():
            fired[k] = fired.get(k, 0) + v
    return steps, fired


CHUNK = 100  # matches per engine batch in the default run
SLOW_MATCHES = 100_000  # per game under `pytest -m slow`
SLOW_CHUNK = 500


def slow_seeds(matches: int, total: int) -> range:
    """Seeds of 500-match batches for one config of the slow run: the game's 100,000 matches
    split over its configs in proportion to their counts; disjoint from the default run's
    seeds."""
    return range(1000, 1000 + round(SLOW_MATCHES * matches / total) // SLOW_CHUNK)


def differential_tests(adapter: Adapter, configs: list[tuple[str, dict, int]],
                       slow_configs: list[tuple[str, dict, int]] | None = None):
    """The default and the slow differential test of `adapter`'s game over `configs`
    [(game, flags, matches in the default run)] (the slow run: `slow_configs`, default the
    same), for a test module to bind to `test_*` names."""
    ids = dict(ids=lambda v: str(v))
    slow_configs = slow_configs or configs

    @pytest.mark.parametrize("game,flags,matches", configs, **ids)
    def default(game, flags, matches):
        steps, fired = 0, {}
        for seed in range(matches // CHUNK):
            n, f = run_differential(adapter, game, flags, seed, CHUNK)
            steps += n
            fired = {a: fired.get(a, 0) + k for a, k in f.items()}
        assert steps > matches * 20
        never = [a for a, k in fired.items() if k == 0]
        assert not never, f"rare actions never played: {never}"

    @pytest.mark.slow
    @pytest.mark.parametrize("game,flags,matches", slow_configs, **ids)
    def slow(game, flags, matches):
        for seed in slow_seeds(matches, sum(m for _, _, m in slow_configs)):
            run_differential(adapter, game, flags, seed, SLOW_CHUNK)

    return default, slow
