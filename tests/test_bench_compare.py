"""`kanjax bench GAME... --compare REF`: the same-session A/B guard of random play (issue 45)."""

from __future__ import annotations

import json
import subprocess

import pytest

from kanjax import bench_compare
from kanjax.cli import main


def worktrees() -> str:
    return subprocess.run(["git", "worktree", "list"], cwd=bench_compare.repository(),
                          capture_output=True, text=True, check=True).stdout


def test_a_real_comparison_runs_both_trees_and_leaves_no_worktree():
    before = worktrees()
    result = bench_compare.compare("HEAD", ["whist"], batch=2, seconds=0.2, rounds=1)
    (row,) = result["games"]
    assert row["game"] == "whist" and row["base_steps_per_cpu_second"] > 0
    assert row["ratio"] == round(row["steps_per_cpu_second"]
                                 / row["base_steps_per_cpu_second"], 3)
    assert worktrees() == before


@pytest.fixture
def base_faster(monkeypatch):
    """Benches that find the base tree at 100 steps/CPU-s and this one at 80 (no jax run)."""
    top = bench_compare.repository()

    def fake(tree, game, batch, seconds, flags):
        rate = 80.0 if tree == top else 100.0
        return {"steps_per_cpu_second": rate, "deals_per_cpu_second": rate / 50}

    monkeypatch.setattr(bench_compare, "run_bench", fake)


def test_a_slower_tree_fails_the_comparison_with_exit_1(base_faster, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "gonin_kan", "konkan", "--compare", "HEAD", "--rounds", "2"])
    out = capsys.readouterr().out
    assert exit_.value.code == 1
    assert out.count("0.80x") == 2 and "<- SLOWER" in out and "FAILED" in out


def test_a_tree_within_the_threshold_passes_and_json_says_so(base_faster, capsys):
    main(["bench", "gonin_kan", "--compare", "HEAD", "--threshold", "0.75", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] and result["games"][0]["ratio"] == 0.8
