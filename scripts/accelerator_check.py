"""The accelerator check: one command for the day a GPU is lent, within 8 minutes on one GPU.

    bash scripts/accelerator_check.sh            # installs '.[gpu,test]', then runs this
    python scripts/accelerator_check.py [--out DIR] [--games G,G] [--dry-run]

Steps, each timed and recorded (a failed step is recorded and the others still run):
1. `tests`: the `gpu`-marked tests (`tests/test_device.py`: whole matches on the default device
   equal the CPU's, and the results live on that device);
2. `bench`: `kanjax bench` of every game at batches up to 65,536 (steady-state random play);
3. `search`: the batched JAX double-dummy search at 16,384 and 65,536 lanes against the CPU
   backend on the same bridge endings (values equal; positions per second);
4. `tournament`: the worked example's network (`examples/policy_net`) as a `jax` bot against
   the heuristic on a GPU worker (`--gpus 1 --actors 0`: no CPU actors).
It writes `DIR/accelerator_check.json` and `DIR/accelerator_check.md` and exits 1 when a step
failed. Without `--dry-run` the default device must be a GPU (or TPU); `--dry-run` runs the
same steps on the CPU at tiny sizes (the default test run does, so that the check cannot rot).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # solvers, tournaments and examples, from a checkout

# (batches, bench seconds, search cards a hand, search positions, search lanes, tournament deals)
SIZES = {
    "full": {"batches": (1024, 16384, 65536), "seconds": 1.0, "cards": 6,
             "positions": 65536, "lanes": (16384, 65536), "deals": 20},
    "dry": {"batches": (2,), "seconds": 0.05, "cards": 2, "positions": 8, "lanes": (4, 8),
            "deals": 1},
}


def step_tests() -> dict:
    done = subprocess.run([sys.executable, "-m", "pytest", "-m", "gpu", "-n", "0",
                           "-p", "no:cacheprovider", "tests/test_device.py"],
                          cwd=ROOT, capture_output=True, text=True)
    tail = done.stdout.strip().splitlines()[-1:] or [done.stderr.strip()[-300:]]
    passed = re.search(r"(\d+) passed", tail[0])
    if done.returncode or not passed:
        raise RuntimeError(f"gpu tests: {tail[0]}")
    return {"passed": int(passed.group(1)), "summary": tail[0]}


def step_bench(sizes: dict, games: list[str]) -> dict:
    from kanjax.bench import bench_games

    result = bench_games(games, sizes["batches"], sizes["seconds"], baseline=False)
    return {"games": {r["game"]: [{k: row[k] for k in (
        "batch", "compile_seconds", "steps_per_second", "deals_per_second")}
        for row in r["rows"]] for r in result["games"]}}


def step_search(sizes: dict) -> dict:
    from solvers import api
    from solvers.bench import whist_positions

    positions = whist_positions(sizes["positions"], sizes["cards"], seed=45)
    t0 = time.perf_counter()
    want = [s.value for s in api.solve(positions, backend="cpu")]
    cpu = time.perf_counter() - t0
    rows = [{"backend": "cpu", "seconds": round(cpu, 3),
             "positions_per_second": round(len(positions) / cpu)}]
    for lanes in sizes["lanes"]:
        api.warm_up(positions, lanes=lanes)  # compiled before the clock starts
        t0 = time.perf_counter()
        got = [s.value for s in api.solve(positions, backend="jax", lanes=lanes)]
        took = time.perf_counter() - t0
        if got != want:
            wrong = sum(a != b for a, b in zip(got, want, strict=True))
            raise RuntimeError(f"search at {lanes} lanes: {wrong} values differ from the cpu's")
        rows.append({"backend": "jax", "lanes": lanes, "seconds": round(took, 3),
                     "positions_per_second": round(len(positions) / took)})
    return {"positions": len(positions), "cards": sizes["cards"], "rows": rows}


def step_tournament(sizes: dict, out: Path, dry: bool) -> dict:
    import pyarrow.parquet as pq

    config = (ROOT / "examples/policy_net/gonin_eval.toml").read_text()
    config = re.sub(r"(?m)^deals = \d+$", f"deals = {sizes['deals']}", config)
    config = re.sub(r'(?m)^params = "', f'params = "{ROOT}/', config)
    config = re.sub(r"(?m)^\[bots.random\]\nkind = \"random\"\n", "", config)
    (out / "tournament.toml").write_text(config)
    results = out / "tournament"
    cmd = [sys.executable, "-m", "kanjax.cli", "tournament", "run", str(out / "tournament.toml"),
           "--output", str(results), "--gpus", "1", "--actors", "1" if dry else "0"]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    took = time.perf_counter() - t0
    if done.returncode:
        raise RuntimeError(f"tournament: exit {done.returncode}: "
                           f"{(done.stderr.strip().splitlines() or [''])[-1]}")
    games = pq.read_table(results / "games").num_rows
    return {"games": games, "seconds": round(took, 2), "games_per_second": round(games / took, 1)}


def markdown(report: dict) -> str:
    lines = [f"# Accelerator check ({report['device']}{', dry run' if report['dry_run'] else ''})",
             "", "| step | ok | seconds | result |", "|---|---|---:|---|"]
    for name, step in report["steps"].items():
        result = step.get("error") or json.dumps(
            {k: v for k, v in step.items() if k not in ("ok", "seconds")})
        lines.append(f"| {name} | {'yes' if step['ok'] else 'NO'} | {step['seconds']} | "
                     f"{result} |")
    for game, rows in report["steps"].get("bench", {}).get("games", {}).items():
        lines.append(f"\n{game}: " + ", ".join(
            f"batch {r['batch']}: {r['steps_per_second']:,} steps/s" for r in rows))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="accelerator-check", help="the report's folder")
    parser.add_argument("--games", help="comma-separated games to bench (default: every game)")
    parser.add_argument("--dry-run", action="store_true",
                        help="the same steps on the CPU, at tiny sizes")
    args = parser.parse_args(argv)
    import jax

    import kanjax

    device = jax.devices()[0]
    if not args.dry_run and device.platform == "cpu":
        print("accelerator check: no GPU or TPU found (pip install -e '.[gpu]'); "
              "--dry-run runs the steps on the CPU", file=sys.stderr)
        return 2
    games = args.games.split(",") if args.games else kanjax.games()
    sizes = SIZES["dry" if args.dry_run else "full"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    steps: dict[str, Callable[[], dict]] = {
        "tests": step_tests,
        "bench": lambda: step_bench(sizes, games),
        "search": lambda: step_search(sizes),
        "tournament": lambda: step_tournament(sizes, out, args.dry_run),
    }
    report = {"device": f"{device.platform}: {device.device_kind}", "dry_run": args.dry_run,
              "jax": jax.__version__, "sizes": sizes, "steps": {}}
    for name, run in steps.items():
        t0 = time.perf_counter()
        try:
            report["steps"][name] = {"ok": True, **run()}
        except Exception as err:  # recorded; the other steps still run
            report["steps"][name] = {"ok": False, "error": f"{type(err).__name__}: {err}"}
        report["steps"][name]["seconds"] = round(time.perf_counter() - t0, 1)
        print(f"{name}: {'ok' if report['steps'][name]['ok'] else 'FAILED'} "
              f"({report['steps'][name]['seconds']} s)", flush=True)
    (out / "accelerator_check.json").write_text(json.dumps(report, indent=1))
    (out / "accelerator_check.md").write_text(markdown(report))
    print(f"wrote {out / 'accelerator_check.md'} and accelerator_check.json")
    return 0 if all(s["ok"] for s in report["steps"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
