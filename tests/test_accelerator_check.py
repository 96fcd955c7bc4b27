"""The accelerator check's dry run (issue 45 item 5): every step of
`scripts/accelerator_check.py` on the CPU at tiny sizes, so that the check a lent GPU runs
cannot rot."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_accelerator_checks_dry_run_passes_every_step(tmp_path):
    done = subprocess.run([sys.executable, "scripts/accelerator_check.py", "--dry-run",
                           "--out", str(tmp_path), "--games", "whist"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "accelerator_check.json").read_text())
    assert report["dry_run"] and set(report["steps"]) == {"tests", "bench", "search",
                                                          "tournament"}
    steps = report["steps"]
    assert all(s["ok"] for s in steps.values())
    assert steps["tests"]["passed"] == 2 and steps["tournament"]["games"] == 10
    assert [r["backend"] for r in steps["search"]["rows"]] == ["cpu", "jax", "jax"]
    assert "| tournament | yes |" in (tmp_path / "accelerator_check.md").read_text()


def test_without_a_gpu_the_check_asks_for_one_or_a_dry_run(tmp_path):
    done = subprocess.run([sys.executable, "scripts/accelerator_check.py", "--out",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "no GPU or TPU found" in done.stderr
