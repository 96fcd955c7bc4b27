"""PIMC (perfect-information Monte Carlo) bots for every game with information sets
(`kanjax.capabilities.InformationSets`): one driver, the game's layouts.

At a decision the game searches (`searched`: the observer to play in trick play, with at most
`max_cards` cards in hand): sample `samples` layouts of the hidden cards consistent with the
observation (the game's sampler), turn each into a double-dummy position from the observer's
side (`layout_position`), solve every move open in every layout on the compiled CPU search,
and keep the moves of the best mean. What is solved is the game's: a goal (`goal`: whether
the side still reaches it after the move, a search past `budget` nodes counting 1/2; the
moves of one rank-equivalence class are one problem) or the value (the points the position's
side takes, `sign` times it the observer's gain, exact). The game's heuristic bot chooses
among the kept moves' actions (`play_actions`) and decides everything else, so PIMC keeps the
heuristic's move unless the search finds a better one.

`make_bot(env, ...)` is a tournament's `pimc` bot; `decide(keys, observations, masks, active)`
decides a batch of games, `policy(key, observation, mask)` one game (host code). On an
accelerator, the batched JAX search plays the games it can instead (`solvers.pimc_jax`).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

import kanjax
from kanjax.api import Array, Env
from kanjax.bots import make_heuristic
from kanjax.capabilities import InformationSets, TrickPlay
from solvers import api, convert
from solvers.cpu import backend as cpu
from solvers.position import Position, Rules

CPU_BUDGET = 200_000  # default search nodes a goal problem
CACHE = 4096  # decisions kept for the later actions of their plays (`decision_key`)


def unsupported(env: Env) -> str:
    """Why no PIMC bot plays `env` ("" if one does)."""
    if not isinstance(env, InformationSets) or not isinstance(env, TrickPlay):
        games = [g for g in kanjax.games() if isinstance(kanjax.make(g), InformationSets)]
        return f"pimc bots play {', '.join(games)} only, not {env.name!r}"
    why = env.pimc_limits()
    return f"pimc bots: {why}" if why else ""


def supports(env: Env) -> bool:
    """Whether a PIMC bot plays `env` (`unsupported`)."""
    return not unsupported(env)


def make_bot(env: Env, samples: int = 16, budget: int | None = None,
             max_cards: int | None = None, backend: str = "auto"):
    """The PIMC bot of `env`'s game: `Pimc` on the CPU search, or where the batched JAX search
    plays the game and `backend` asks for it ("auto": on an accelerator), `pimc_jax.JaxPimc`."""
    from solvers import pimc_jax

    if backend not in api.BACKENDS:
        raise ValueError(f"backend {backend!r}: want one of {', '.join(api.BACKENDS)}")
    if backend == "jax" or (backend == "auto" and jax.default_backend() != "cpu"
                            and pimc_jax.plays(env)):
        return pimc_jax.JaxPimc(env, samples=samples, budget=budget, max_cards=max_cards)
    return Pimc(env, samples=samples, budget=budget, max_cards=max_cards)


class Pimc:
    """The PIMC bot of an `InformationSets` game on the compiled CPU search: `samples`
    layouts a decision, `budget` search nodes a goal problem (default CPU_BUDGET), searching
    from `max_cards` cards in hand (default: the game's `pimc_max_cards`), `tries` sampling
    attempts a layout, `threads` host threads (default one per core). See the module
    docstring."""

    def __init__(self, env: Env, samples: int = 16, budget: int | None = None,
                 max_cards: int | None = None, tries: int = 8,
                 threads: int | None = None) -> None:
        why = unsupported(env)
        if why:
            raise ValueError(f"PIMC bot: {why}")
        self.env, self.samples, self.threads = env, samples, threads
        self.budget = CPU_BUDGET if budget is None else budget
        self.max_cards = env.pimc_max_cards if max_cards is None else max_cards
        self._sample = jax.jit(jax.vmap(env.make_sampler(samples, tries)))
        self._heuristic = jax.jit(jax.vmap(make_heuristic(env)))
        self._rules: dict[int, tuple[dict, Rules]] = {}
        self._cache: dict[bytes, dict[int, float]] = {}

    def policy(self, key: Array, observation: Array, legal_mask: Array) -> Array:
        """One game's action (host code: not jittable)."""
        return self.decide(key[None], observation[None], legal_mask[None],
                           jnp.ones(1, bool))[0]

    def decide(self, keys: Array, obs: Array, masks: Array, active: Array) -> Array:
        """int32[B]: each game's action; the heuristic's where not `active` or not searched."""
        env = self.env
        obs_np, masks_np, act = np.asarray(obs), np.asarray(masks), np.asarray(active)
        views = [env.layout_view(o) for o in obs_np]
        found: dict[int, dict[int, float]] = {}
        todo: list[tuple[int, bytes | None]] = []
        for b, v in enumerate(views):
            if act[b] and env.searched(v, masks_np[b], self.max_cards):
                k = env.decision_key(obs_np[b])
                if k is not None and k in self._cache:
                    found[b] = self._cache[k]
                else:
                    todo.append((b, k))
        if todo:
            # the whole batch is sampled (one compile for the batch's shape), the searched
            # games' layouts used
            holders, ok = (np.asarray(x) for x in self._sample(keys, obs))
            idx = [b for b, _ in todo]
            scores = self.scores([views[b] for b in idx], holders[idx], ok[idx])
            if len(self._cache) > CACHE:
                self._cache.clear()
            for (b, k), s in zip(todo, scores, strict=True):
                found[b] = s
                if k is not None:
                    self._cache[k] = s
        keep = masks_np.copy()
        for b, s in found.items():
            keep[b] = self.best_actions(views[b], s, masks_np[b])
        return self._heuristic(keys, obs, jnp.asarray(keep))

    def position(self, view: dict, holders: np.ndarray) -> tuple[Position, dict]:
        """The double-dummy position of the layout `holders` seen in `view`, and the game's
        layout data (`layout_position`: its goal or sign)."""
        t = self.env.layout_position(view, holders)
        d = t["rules"]
        if id(d) not in self._rules:  # a game hands the same rules dict for the same rules
            self._rules[id(d)] = (d, Rules(**d))
        return convert.position_of(t, self._rules[id(d)][1]), t

    def scores(self, views: list[dict], holders: np.ndarray, ok: np.ndarray
               ) -> list[dict[int, float]]:
        """For each view and its layouts `holders` (int[B, S, cards]) marked `ok`: each move
        open in every ok layout -> its mean over them (a goal: the share of layouts where the
        side still reaches it, a search past the budget 1/2; else the observer's mean gain);
        {} where no layout is ok. One CPU search call for all."""
        goal_jobs: list[tuple[int, list[int]]] = []  # (view, the moves of one class)
        goal_pos, goals, value_pos, value_of = [], [], [], []
        for b, v in enumerate(views):
            for i in np.flatnonzero(ok[b]):
                pos, t = self.position(v, holders[b, i])
                if t["goal"] is None:
                    value_pos.append(pos)
                    value_of.append((b, t["sign"]))
                    continue
                reps = cpu.move_classes(pos)
                for rep in sorted(set(reps.values())):
                    goal_jobs.append((b, [m for m, r in reps.items() if r == rep]))
                    goal_pos.append(dataclasses.replace(pos, root_moves=(rep,)))
                    goals.append(t["goal"])
        sums: list[dict[int, float]] = [{} for _ in views]
        counts = [int(np.sum(ok[b])) for b in range(len(views))]
        if goal_pos:
            results = cpu.goal_results(goal_pos, goals, budget=self.budget,
                                       threads=self.threads)
            for (b, members), res in zip(goal_jobs, results, strict=True):
                for m in members:
                    sums[b][m] = sums[b].get(m, 0.0) + (0.5 if res < 0 else res)
        open_moves: list[set[int] | None] = [None] * len(views)
        if value_pos:
            sols = api.solve(value_pos, all_moves=True, backend="cpu", threads=self.threads)
            for (b, sign), sol in zip(value_of, sols, strict=True):
                moves = sol.move_ids or {}
                for m, val in moves.items():
                    sums[b][m] = sums[b].get(m, 0.0) + sign * val
                open_moves[b] = set(moves) if open_moves[b] is None else open_moves[b] & set(moves)
        return [{m: sums[b][m] / counts[b] for m in sorted(
            sums[b] if open_moves[b] is None else open_moves[b])} for b in range(len(views))]

    def best_actions(self, view: dict, scores: dict[int, float], mask: np.ndarray
                     ) -> np.ndarray:
        """The legal actions of the best-scored moves (`play_actions`; the whole mask where no
        scored move can be made)."""
        best, keep = None, np.zeros_like(mask)
        for m, s in scores.items():
            acts = self.env.play_actions(view, m, mask)
            if not acts:
                continue
            if best is None or s > best + 1e-9:
                best, keep = s, np.zeros_like(mask)
            if s >= best - 1e-9:
                keep[acts] = True
        return keep if keep.any() else mask
