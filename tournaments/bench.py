"""`kanjax bench tournament`: a 2-bot tournament (the workload of
configs/bench_tournament.toml) through Ray against the same chunks in one process without
Ray, in the same run (Ray's overhead, measured, never asserted).

Rates are steady-state: games per second after each executor's first chunks (those include the
one-time compile of every actor), over the same planned games.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from pathlib import Path

from tournaments.config import load_config
from tournaments.runner import LocalExecutor, RayExecutor, run_tournament

WORKLOAD = Path(__file__).resolve().parents[1] / "configs" / "bench_tournament.toml"


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
        with tempfile.TemporaryDirectory() as out:
            cfg = dataclasses.replace(base, output=out)
            inner = LocalExecutor(cfg) if mode == "local" else RayExecutor(cfg, actors)
            warm = 1 if mode == "local" else inner.n_actors
            timed = _Timed(inner)
            t0 = time.perf_counter()
            run = run_tournament(cfg, progress=False, executor=timed)
            result[mode] = {"games": run.games, "chunks": run.chunks_total,
                            "wall_seconds": round(time.perf_counter() - t0, 2),
                            "warm_chunks": warm,
                            "games_per_second": round(timed.rate(warm), 1)}
    result["ray_vs_local"] = round(result["ray"]["games_per_second"]
                                   / result["local"]["games_per_second"], 3)
    return result


def format_bench(r: dict) -> str:
    flags = " ".join(f"{k}={v}" for k, v in r["flags"].items())
    lines = [f"kanjax bench tournament: {r['game']} {flags} {' vs '.join(r['bots'])}, "
             f"{r['deals']} deal seeds, chunk {r['chunk_size']}",
             f"{'executor':>9} {'games':>6} {'chunks':>6} {'wall s':>7} {'games/s':>8}"]
    for mode in ("local", "ray"):
        m = r[mode]
        lines.append(f"{mode:>9} {m['games']:>6} {m['chunks']:>6} {m['wall_seconds']:>7} "
                     f"{m['games_per_second']:>8}")
    lines.append(f"Ray / in-process steady-state games/s: {r['ray_vs_local']:.2f}x "
                 f"(overhead {max(0.0, 1 - r['ray_vs_local']):.0%})")
    return "\n".join(lines)


def main(args) -> None:
    result = bench_tournament()
    print(format_bench(result))
    print(json.dumps(result))
