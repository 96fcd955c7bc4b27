"""`kanjax bench tournament`: a 2-bot tournament (the workload of
configs/bench_tournament.toml) through Ray against the same chunks in one process without
Ray, in the same run (Ray's overhead, measured, never asserted); then the worked example's
network (examples/policy_net, issue 28) against the heuristic bot as a `jax` bot, inside the
batch (in process and through Ray), and as a `python` bot asked one move of one game at a
time (in process, fewer games), in the same run.

Each executor's row gives its games, wall seconds and games per wall second (all of them: the
compile and Ray's start included), and its steady-state rate: games per second after its first
chunks (those include the one-time compile of every actor), over the same planned games.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from tournaments.config import TournamentConfig, load_config
from tournaments.runner import LocalExecutor, RayExecutor, run_tournament

ROOT = Path(__file__).resolve().parents[1]
WORKLOAD = ROOT / "configs" / "bench_tournament.toml"
NEURAL = ROOT / "configs" / "bench_tournament_net.toml"  # the example's network
HOST_NET = "examples.policy_net.host_bot:NetBot"  # the same network as a `python` bot


class _Timed:
    """Wraps an executor; stamps the time each chunk comes back."""

    def __init__(self, inner) -> None:
        self.inner, self.stamps = inner, []

    def run(self, work):
        for chunk, rows in self.inner.run(work):
            self.stamps.append((time.perf_counter(), len(rows["games"])))
            yield chunk, rows

    def close(self) -> None:
        self.inner.close()

    def rate(self, warm: int) -> float:
        """Games per second after the first `warm` chunks."""
        (t0, _), rest = self.stamps[warm - 1], self.stamps[warm:]
        return sum(g for _, g in rest) / (rest[-1][0] - t0)


def bench_tournament(deals: int = 48, chunk_size: int = 32, actors: int | None = None,
                     config: str | Path = WORKLOAD) -> dict:
    """Both executors on `config`'s tournament with `deals` deal seeds in chunks of
    `chunk_size` games."""
    base = dataclasses.replace(load_config(config), deals=deals, chunk_size=chunk_size)
    result = {"game": base.game, "flags": base.flags, "bots": [b.name for b in base.bots],
              "deals": deals, "chunk_size": chunk_size}
    for mode in ("local", "ray"):
        result[mode] = _measure(base, mode, actors)
    result["ray_vs_local"] = round(result["ray"]["games_per_second"]
                                   / result["local"]["games_per_second"], 3)
    return result


def _measure(base: TournamentConfig, mode: str, actors: int | None = None) -> dict:
    """The tournament `base` played into a fresh folder by one executor ("local" or "ray"):
    games, chunks, wall time, games per wall second, steady-state games/s."""
    with tempfile.TemporaryDirectory() as out:
        cfg = dataclasses.replace(base, output=out)
        inner = LocalExecutor(cfg) if mode == "local" else RayExecutor(cfg, actors)
        warm = 1 if mode == "local" else inner.n_actors
        timed = _Timed(inner)
        t0 = time.perf_counter()
        run = run_tournament(cfg, progress=False, executor=timed)
        wall = time.perf_counter() - t0
        return {"games": run.games, "chunks": run.chunks_total, "wall_seconds": round(wall, 2),
                "games_per_wall_second": round(run.games / wall, 1), "warm_chunks": warm,
                "games_per_second": round(timed.rate(warm), 1)}


def bench_neural(deals: int = 256, host_deals: int = 64, chunk_size: int = 128,
                 actors: int | None = None) -> dict:
    """The example's network against the heuristic bot: as a `jax` bot in process and
    through Ray (`deals` deal seeds), and as a one-move-at-a-time `python` bot in process
    (`host_deals` deal seeds: it is slow; at least two chunks, the first one not timed);
    chunks of `chunk_size` games for both (a batch of 128 is what a batched bot is for).
    A deal seed is 10 games (2 bots, 5 seats): by default 20 chunks and 5 chunks, the rates
    over the last 19 and 4 (a rate over one chunk of a few seconds moved by 1.5x with the
    other load of a shared machine)."""
    _example_on_path()
    with contextlib.chdir(ROOT):  # the workload's `params` path is the repository's
        base = dataclasses.replace(load_config(NEURAL), deals=deals, chunk_size=chunk_size)
    host = dataclasses.replace(base, deals=host_deals, bots=tuple(
        dataclasses.replace(b, kind="python", target=HOST_NET, params="")
        if b.kind == "jax" else b for b in base.bots))
    result = {"game": base.game, "flags": base.flags, "bots": [b.name for b in base.bots],
              "deals": deals, "host_deals": host_deals, "chunk_size": chunk_size,
              "jax_local": _measure(base, "local"), "jax_ray": _measure(base, "ray", actors),
              "python_local": _measure(host, "local")}
    result["jax_vs_python"] = round(result["jax_local"]["games_per_second"]
                                    / result["python_local"]["games_per_second"], 1)
    return result


def _example_on_path() -> None:
    """examples/ is not installed: the repository root goes on the path of this process and
    (PYTHONPATH) of the Ray workers and bot processes it starts."""
    root = str(ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p)


ROW_HEAD = (f"{'games':>6} {'chunks':>6} {'wall s':>7} {'games/wall-s':>12} "
            f"{'steady games/s':>14}")
STEADY = ("steady games/s: after each executor's first chunks (its compile and start-up), so "
          "not games / wall s")


def _row(m: dict) -> str:
    return (f"{m['games']:>6} {m['chunks']:>6} {m['wall_seconds']:>7} "
            f"{m['games_per_wall_second']:>12} {m['games_per_second']:>14}")


def format_bench(r: dict) -> str:
    flags = " ".join(f"{k}={v}" for k, v in r["flags"].items())
    lines = [f"kanjax bench tournament: {r['game']} {flags} {' vs '.join(r['bots'])}, "
             f"{r['deals']} deal seeds, chunk {r['chunk_size']}", f"{'executor':>9} {ROW_HEAD}"]
    lines += [f"{mode:>9} {_row(r[mode])}" for mode in ("local", "ray")]
    lines.append(STEADY)
    lines.append(f"Ray / in-process steady-state games/s: {r['ray_vs_local']:.2f}x "
                 f"(overhead {max(0.0, 1 - r['ray_vs_local']):.0%})")
    return "\n".join(lines)


def format_neural(r: dict) -> str:
    lines = [f"the example's network vs heuristic: {r['game']} n_rounds={r['flags']['n_rounds']}"
             f", chunk {r['chunk_size']}", f"{'network as':>20} {ROW_HEAD}"]
    for mode, label in (("jax_local", "jax, in process"), ("jax_ray", "jax, Ray"),
                        ("python_local", "python, in process")):
        lines.append(f"{label:>20} {_row(r[mode])}")
    lines.append(STEADY)
    lines.append(f"jax bot / python bot, in process, steady games/s: {r['jax_vs_python']:.1f}x")
    return "\n".join(lines)


def main(args) -> None:
    result = bench_tournament()
    print(format_bench(result))
    print(json.dumps(result))
    neural = bench_neural()
    print(format_neural(neural))
    print(json.dumps(neural))
