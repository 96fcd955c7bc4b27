"""The tournament runner: plans, chunks stored once, resume, a killed Ray worker, the A/B
test stopping a run, and bad configs failing before any work (issue 4)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import types
from collections import Counter

import pyarrow.dataset as ds
import pytest

from kanjax import records
from tournaments.config import parse_config
from tournaments.plan import pairings, plan_games, seatings
from tournaments.runner import RayExecutor, run_tournament
from tournaments.storage import StoreError

CONFIG = """\
[tournament]
game = "gambari_kan"
deals = {deals}
seed = 5
chunk_size = {chunk}
output = "{out}"
format = "{fmt}"

[flags]
n_rounds = 1

[bots.random]
kind = "random"

[bots.heuristic]
kind = "heuristic"
"""


def config(out, deals=4, chunk=4, fmt="duplicate", extra=""):
    return parse_config(CONFIG.format(deals=deals, chunk=chunk, out=out, fmt=fmt) + extra)


def stored(out, table="games"):
    return ds.dataset(os.path.join(out, table)).to_table()


def test_plan_balances_seats_and_pairings():
    for k, n in ((2, 5), (2, 3), (3, 3), (2, 4)):
        rows = seatings(tuple(range(k)), n)
        for p in range(n):  # every bot in every seat equally often
            assert set(Counter(r[p] for r in rows).values()) == {len(rows) // k}
    cfg = parse_config(CONFIG.format(deals=2, chunk=4, out="x", fmt="round_robin")
                       + '\n[bots.third]\nkind = "random"\n')
    assert pairings(cfg) == [(0, 1), (0, 2), (1, 2)]
    games = plan_games(cfg, 3)
    assert [g.game_id for g in games] == list(range(len(games)))
    assert len(games) == 2 * 3 * 6  # seeds x pairings x seatings (lcm(2, 3))
    assert {g.deal_seed for g in games if g.group == 4} == {1}  # same seed for every pairing


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("local") / "out")
    cfg = config(out)
    return cfg, run_tournament(cfg, local=True, progress=False)


def test_local_run_stores_every_game_once_and_resumes(local_run):
    cfg, result = local_run
    assert (result.games, result.chunks_total, result.chunks_run) == (24, 6, 6)
    games = stored(cfg.output)
    assert sorted(games["game_id"].to_pylist()) == list(range(24))
    assert stored(cfg.output, "seats").num_rows == 72
    # the games of a duplicate group got the same deal (chance keyed by the deal)
    deals = stored(cfg.output, "deals").to_pylist()
    assert len({(d["trump"], d["dealer"]) for d in deals if d["game_id"] < 6}) == 1
    os.remove(os.path.join(cfg.output, "games", "chunk-000002.parquet"))  # lose one chunk
    again = run_tournament(cfg, local=True, progress=False)
    assert (again.chunks_run, again.chunks_skipped) == (1, 5)
    assert sorted(stored(cfg.output)["game_id"].to_pylist()) == list(range(24))


def test_stored_games_replay(local_run):
    cfg, _ = local_run
    row = stored(cfg.output).to_pylist()[7]
    record = records.record_of_actions(row["game"], {"n_rounds": 1}, cfg.seed, row["seed"],
                                       row["actions"], row["scores"])
    assert records.replay(record).ok


def test_ab_sprt_stops_the_run_when_it_decides(tmp_path):
    ab = '\n[ab]\ncandidate = "heuristic"\nbaseline = "random"\nmu0 = 0.0\nmu1 = 3.0\n'
    cfg = config(str(tmp_path / "ab"), deals=60, chunk=6, fmt="ab", extra=ab)
    result = run_tournament(cfg, local=True, progress=False)
    assert result.stopped_by_sprt["verdict"] == "H1"
    assert result.chunks_run < result.chunks_total


def test_unwritable_output_fails_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="not writable"):
        run_tournament(config(str(blocker / "out")), local=True, progress=False)


def test_a_killed_ray_worker_loses_and_duplicates_nothing(tmp_path):
    # two random bots: the cheapest compile for the three actors this test starts
    text = CONFIG.format(deals=8, chunk=4, out=tmp_path / "ray", fmt="duplicate")
    cfg = parse_config(text.replace("[bots.heuristic]\nkind = \"heuristic\"",
                                    "[bots.other]\nkind = \"random\""))
    assert [b.kind for b in cfg.bots] == ["random", "random"]
    killed = []

    class KillingExecutor(RayExecutor):
        """Kills one of its actors (SIGKILL) as soon as the first chunk comes back, while
        the other chunks are in flight."""

        def run(self, work):
            for chunk, rows in super().run(work):
                if not killed:
                    pid = self.actor_pids()[0]
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                yield chunk, rows

    result = run_tournament(cfg, progress=False, executor=KillingExecutor(cfg, actors=2))
    assert killed
    ids = stored(cfg.output)["game_id"].to_pylist()
    assert result.games == len(ids) == 48 and sorted(ids) == list(range(48))
    assert run_tournament(cfg, local=True, progress=False).chunks_run == 0


def test_an_actor_that_dies_with_two_chunks_is_replaced_once():
    """Both chunks in flight on a dead actor fail; they are retried on one replacement (a
    second would wait forever for a CPU the first holds: a hang seen on 2 CPUs)."""
    class ActorDied(Exception):
        pass

    class Actor:
        def __init__(self, dead: bool) -> None:
            self.dead, self.play = dead, types.SimpleNamespace(remote=self.submit)

        def submit(self, chunk, games):
            return (self, chunk)

    def get(ref):
        actor, chunk = ref
        if actor.dead:
            raise ActorDied(chunk)
        return {"chunk": chunk}

    executor = RayExecutor.__new__(RayExecutor)
    executor.ray = types.SimpleNamespace(
        wait=lambda refs, num_returns: (refs[:1], refs[1:]), get=get,
        exceptions=types.SimpleNamespace(RayActorError=ActorDied, WorkerCrashedError=ActorDied))
    executor.n_actors, executor.actors = 1, [Actor(dead=True)]
    made = []
    executor._new_actor = lambda: made.append(Actor(dead=False)) or made[-1]
    done = list(executor.run(iter([(0, []), (1, [])])))
    assert sorted(chunk for chunk, _ in done) == [0, 1]
    assert len(made) == 1 and executor.actors == made


def test_ctrl_c_keeps_finished_chunks_and_the_same_command_resumes(tmp_path):
    text = CONFIG.format(deals=20, chunk=3, out=tmp_path / "out", fmt="duplicate")
    text = text.replace("n_rounds = 1", "n_rounds = 10").replace(
        "[bots.heuristic]\nkind = \"heuristic\"", "[bots.other]\nkind = \"random\"")
    path = tmp_path / "t.toml"
    path.write_text(text)
    games_dir = tmp_path / "out" / "games"
    proc = subprocess.Popen([sys.executable, "-m", "kanjax.cli", "tournament", "run", str(path),
                             "--local"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 180
    while time.time() < deadline and proc.poll() is None:
        if games_dir.is_dir() and len(list(games_dir.glob("*.parquet"))) >= 2:
            proc.send_signal(signal.SIGINT)
            break
        time.sleep(0.05)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "interrupted; run the same command to resume" in out
    stored_before = len(list(games_dir.glob("*.parquet")))
    assert 2 <= stored_before < 40
    cfg = parse_config(text)
    again = run_tournament(cfg, local=True, progress=False)
    assert (again.chunks_skipped, again.chunks_run) == (stored_before, 40 - stored_before)
    assert sorted(stored(cfg.output)["game_id"].to_pylist()) == list(range(120))
