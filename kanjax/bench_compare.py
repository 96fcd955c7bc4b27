"""`kanjax bench GAME... --compare REF`: a same-session A/B of random play against another
commit, the guard that every change to an engine, the rollout or the tournament loop runs
before it lands.

The commit `REF` is checked out in a temporary git worktree; each game's bench (`kanjax bench
GAME --batches B --no-baseline --json`, random play through `rollout.play_batch`: the policy,
the keys and the batched step) then runs in both trees, alternating, `rounds` times each, in
fresh processes on one CPU. A game's ratio is this tree's median steps per CPU-second over the
base's; a ratio below `threshold` fails the comparison (exit 1 from the CLI).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

THRESHOLD = 0.85  # below this ratio a change is slower than the load's noise explains


def run_bench(tree: Path, game: str, batch: int, seconds: float, flags: list[str]) -> dict:
    """One bench row of `game` measured with the code of `tree` (a fresh process)."""
    cmd = [sys.executable, "-m", "kanjax.cli", "bench", game, "--batches", str(batch),
           "--seconds", str(seconds), "--no-baseline", "--json"]
    for flag in flags:
        cmd += ["--set", flag]
    done = subprocess.run(cmd, cwd=tree, env=_env(tree), capture_output=True, text=True)
    out = done.stdout
    if done.returncode or "{" not in out:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ValueError(f"bench {game} with the code of {tree} failed: {tail}")
    result = json.loads(out[out.index("{"):])
    games = result["games"] if "games" in result else [result]
    return games[0]["rows"][0]


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def repository() -> Path:
    """The git work tree that holds this kanjax."""
    here = Path(__file__).resolve().parent
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=here,
                         capture_output=True, text=True)
    if top.returncode:
        raise ValueError("--compare needs kanjax run from a git checkout")
    return Path(top.stdout.strip())


def compare(ref: str, games: list[str], batch: int = 1024, seconds: float = 2.0,
            rounds: int = 3, threshold: float = THRESHOLD, flags: list[str] | None = None
            ) -> dict:
    """Each game's steps and deals per CPU-second in this tree and at commit `ref`, the
    medians' ratio (this / ref) and whether every ratio is at least `threshold`."""
    top = repository()
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=top,
                            capture_output=True, text=True)
    if commit.returncode:
        raise ValueError(f"--compare {ref}: not a commit of {top.name}")
    sha = commit.stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kanjax-compare-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(base), sha],
                       cwd=top, check=True, capture_output=True)
        try:
            for game in games:
                runs: dict[str, list[dict]] = {"base": [], "this": []}
                for _ in range(rounds):
                    for name, tree in (("base", base), ("this", top)):
                        runs[name].append(run_bench(tree, game, batch, seconds, flags or []))
                rows.append(_row(game, runs))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=top,
                           capture_output=True)
    ok = all(r["ratio"] >= threshold for r in rows)
    return {"ref": ref, "commit": sha[:12], "batch": batch, "seconds": seconds,
            "rounds": rounds, "threshold": threshold, "games": rows, "ok": ok}


def _row(game: str, runs: dict[str, list[dict]]) -> dict:
    med = {name: {unit: statistics.median(r[f"{unit}_per_cpu_second"] for r in rs)
                  for unit in ("steps", "deals")} for name, rs in runs.items()}
    return {"game": game,
            "base_steps_per_cpu_second": round(med["base"]["steps"]),
            "steps_per_cpu_second": round(med["this"]["steps"]),
            "base_deals_per_cpu_second": round(med["base"]["deals"], 1),
            "deals_per_cpu_second": round(med["this"]["deals"], 1),
            "ratio": round(med["this"]["steps"] / med["base"]["steps"], 3),
            "spread": round(max(_spread(runs["base"]), _spread(runs["this"])), 3)}


def _spread(rows: list[dict]) -> float:
    """(max - min) / median of one tree's steps per CPU-second: the run's noise."""
    xs = [r["steps_per_cpu_second"] for r in rows]
    return (max(xs) - min(xs)) / statistics.median(xs)


def format_compare(result: dict) -> str:
    lines = [f"random play, this tree against {result['ref']} ({result['commit']}): batch "
             f"{result['batch']}, {result['rounds']} run{'s' if result['rounds'] > 1 else ''} of "
             f"{result['seconds']} s a tree, alternating; medians; one CPU",
             f"{'game':<14} {'steps/CPU-s base':>17} {'this':>10} {'ratio':>7} {'noise':>6} "
             f"{'deals/CPU-s base':>17} {'this':>9}"]
    for r in result["games"]:
        mark = "" if r["ratio"] >= result["threshold"] else "  <- SLOWER"
        lines.append(f"{r['game']:<14} {r['base_steps_per_cpu_second']:>17,} "
                     f"{r['steps_per_cpu_second']:>10,} {r['ratio']:>6.2f}x "
                     f"{r['spread']:>6.0%} {r['base_deals_per_cpu_second']:>17,.1f} "
                     f"{r['deals_per_cpu_second']:>9,.1f}{mark}")
    verdict = ("every game at or above" if result["ok"] else "FAILED: a game below")
    lines.append(f"{verdict} {result['threshold']:.2f}x of the base (noise: the runs' spread "
                 "within a tree, (max - min) / median)")
    return "\n".join(lines)
