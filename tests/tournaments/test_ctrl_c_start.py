"""Ctrl-C while the workers start (issue 44 item 10: a double Ctrl-C while "starting Ray"
printed a Ray traceback, once a segmentation fault): the first stops the run once they have
started, a second quits at once with a line and exit status 130, the folder intact. The
start-up is a stand-in that signals its own process, so no Ray is needed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tournaments.cli import UNFINISHED
from tournaments.runner import QUIT_STATUS

CONFIG = """[tournament]
game = "gonin_kan"
deals = 2
chunk_size = 4
output = "{out}"
[flags]
n_rounds = 1
[bots.a]
kind = "random"
[bots.b]
kind = "random"
"""

SCRIPT = """
import os, signal, sys, time
from tournaments import runner
from kanjax.cli import main

class SlowStart:
    workers = 1

    def __init__(self, cfg, actors):
        for _ in range({presses}):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)
        print("started", flush=True)

    def run(self, work):
        for first, _ in work:
            raise AssertionError(f"chunk {{first}} played after Ctrl-C")
        yield from ()

    def close(self):
        print("closed", flush=True)

runner.RayExecutor = SlowStart
main(["tournament", "run", sys.argv[1]])
"""


@pytest.mark.parametrize("presses, status", [(1, UNFINISHED), (2, QUIT_STATUS)])
def test_ctrl_c_while_the_workers_start(tmp_path, presses, status):
    path = tmp_path / "t.toml"
    path.write_text(CONFIG.format(out=tmp_path / "out"))
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(presses=presses), str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Ctrl-C: the run stops after starting Ray (Ctrl-C again: quit now)" in proc.stderr
    if presses == 1:  # started, played nothing, stopped the workers
        assert "started\nclosed\n" in proc.stdout
        assert "0 of 20 games stored" in proc.stdout and "interrupted" in proc.stdout
    else:
        assert "started" not in proc.stdout
        assert proc.stderr.strip().splitlines()[-1] == (
            "kanjax tournament: stopped while starting Ray; the stored games are intact: "
            "run the same command to resume")
    assert (tmp_path / "out" / "manifest.json").is_file()
    assert not list((tmp_path / "out").glob("games/*.parquet"))
