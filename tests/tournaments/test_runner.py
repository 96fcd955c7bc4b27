"""The tournament runner: plans, chunks stored once, resume (with any chunk size, or more
deals), a killed Ray worker, the A/B test stopping a run, exit codes, progress, and bad configs
failing before anything is written (issues 4 and 22)."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import types
from collections import Counter
from pathlib import Path

import pyarrow.dataset as ds
import pytest

import kanjax
from kanjax import records
from kanjax.cli import main
from tournaments import runner
from tournaments.cli import UNFINISHED
from tournaments.config import parse_config
from tournaments.plan import pairings, plan_games, seatings
from tournaments.report import format_report, report
from tournaments.runner import ChunkFailed, LocalExecutor, Progress, RayExecutor, run_tournament
from tournaments.storage import StoreError, chunk_file

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


def test_issue_44_every_seating_mode_plays_each_seating_once():
    """The default "all": every seating that turning the table and exchanging the bots
    makes, each once (two bots at five players: 10; the old default played 2 seatings five
    times each, the same games since a group shares its keys); "distinct": the exchanges
    only (a Da Bai Fen team match: teams 0+2 / 1+3, then swapped on the same deals);
    "rotations": the old plan, kept with its hash so its folders resume. Every bot in every
    seat equally often in each."""
    assert seatings((0, 1), 4) == seatings((0, 1), 4, "distinct") == [(0, 1, 0, 1),
                                                                       (1, 0, 1, 0)]
    assert seatings((0, 1), 4, "rotations") == [(0, 1, 0, 1), (1, 0, 1, 0)] * 2
    assert seatings((0, 1), 5, "rotations") == [(0, 1, 0, 1, 0), (1, 0, 1, 0, 1)] * 5
    assert len(seatings((0, 1), 5)) == 10
    for k, n in ((2, 5), (2, 3), (3, 3), (2, 4), (3, 4), (4, 4), (3, 5), (2, 6), (4, 6)):
        for mode in ("all", "distinct"):
            rows = seatings(tuple(range(k)), n, mode)
            assert len(rows) == len(set(rows)) and len(rows) % k == 0
            for p in range(n):
                assert set(Counter(r[p] for r in rows).values()) == {len(rows) // k}
        assert set(seatings(tuple(range(k)), n, "distinct")) <= set(seatings(tuple(range(k)), n))
    text = CONFIG.format(deals=3, chunk=4, out="x", fmt="duplicate")
    default = parse_config(text)
    explicit, distinct, every = (parse_config(text.replace("[flags]", f'seatings = "{m}"\n\n'
                                                                      "[flags]"))
                                 for m in ("rotations", "distinct", "all"))
    assert default.config_hash() == every.config_hash()
    assert len({default.config_hash(), explicit.config_hash(), distinct.config_hash()}) == 3
    assert [g.bots for g in plan_games(default, 3)][:6] == seatings((0, 1), 3)
    games = plan_games(distinct, 3)
    assert [(g.deal_seed, g.rotation, g.bots) for g in games[:4]] == [
        (0, 0, (0, 1, 0)), (0, 1, (1, 0, 1)), (1, 0, (0, 1, 0)), (1, 1, (1, 0, 1))]
    assert len(games) == 3 * 2
    with pytest.raises(ValueError, match=r"seatings: unknown seatings 'some'"):
        parse_config(text.replace("[flags]", 'seatings = "some"\n\n[flags]'))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("local") / "out")
    cfg = config(out)
    return cfg, run_tournament(cfg, local=True, progress=False)


def test_local_run_stores_every_game_once_and_resumes(local_run):
    cfg, result = local_run
    assert (result.games, result.planned, result.chunks_total, result.chunks_run) == (24, 24, 6, 6)
    games = stored(cfg.output)
    assert sorted(games["game_id"].to_pylist()) == list(range(24))
    assert stored(cfg.output, "seats").num_rows == 72
    # the games of a duplicate group got the same deal (chance keyed by the deal)
    deals = stored(cfg.output, "deals").to_pylist()
    assert len({(d["trump"], d["dealer"]) for d in deals if d["game_id"] < 6}) == 1
    os.remove(os.path.join(cfg.output, "games", chunk_file(8)))  # lose one chunk
    again = run_tournament(cfg, local=True, progress=False)
    assert (again.chunks_run, again.stored_before, again.finished) == (1, 20, True)
    assert sorted(stored(cfg.output)["game_id"].to_pylist()) == list(range(24))


def rows(out, table):
    """A table's rows by game (and deal), without the `chunk` that played them."""
    t = stored(out, table)
    return sorted((r for r in t.drop_columns(["chunk"] if table == "games" else []
                                             ).to_pylist()),
                  key=lambda r: (r["game_id"], r.get("deal_index", 0), r.get("player", 0)))


class StopAfter(LocalExecutor):
    """A run stopped after `n` chunks by `error` (default: Ctrl-C)."""

    def __init__(self, cfg, n: int, error: BaseException | None = None) -> None:
        super().__init__(cfg)
        self.n, self.error = n, error or KeyboardInterrupt()

    def run(self, work):
        for i, item in enumerate(super().run(work)):
            if i == self.n:
                raise self.error
            yield item


def test_a_resume_with_another_chunk_size_stores_every_game_once(local_run, tmp_path,
                                                                 capsys):
    """Issue 22 item 1: chunks were keyed by index, so a resume with another chunk size lost
    games; items 9: the report says a tournament is incomplete, a finished run exits 0."""
    full, _ = local_run
    out = str(tmp_path / "out")
    cut = run_tournament(config(out, chunk=4), progress=False,
                         executor=StopAfter(config(out, chunk=4), 2))
    assert (cut.interrupted, cut.finished, cut.games, cut.planned) == (True, False, 8, 24)
    r = report(out)  # group 1 (games 6-11) has 2 of its 6 games
    assert r["completeness"] == {"stored": 8, "planned": 24, "finished": False,
                                 "partial_groups": 1}
    assert format_report(r).splitlines()[:3] == [
        "8 games stored of 24 planned",
        "WARNING: incomplete tournament: run `kanjax tournament run` with its config again "
        "to finish it",
        "WARNING: 1 duplicate groups partly stored (not all their games): their comparisons "
        "are not balanced"]
    path = tmp_path / "t.toml"
    # chunks of 6: the A/B test's batch size, compiled once for both
    path.write_text(CONFIG.format(deals=4, chunk=6, out=out, fmt="duplicate"))
    main(["tournament", "run", str(path), "--local"])  # finished: exit status 0
    assert "24 of 24 games stored (16 now in 3 chunks)" in capsys.readouterr().out
    ids = stored(out)["game_id"].to_pylist()
    assert sorted(ids) == list(range(24))  # every planned game exactly once
    for table in ("games", "seats", "deals"):  # as the uninterrupted run stored them
        assert rows(out, table) == rows(full.output, table)


def test_a_chunk_that_keeps_failing_stops_the_run_keeping_the_games_stored(tmp_path):
    """Issue 22 item 9: it ended the run with a traceback, the manifest not updated."""
    cfg = config(str(tmp_path / "out"))
    failed = ChunkFailed("the chunk from game 4 failed 3 times: boom")
    result = run_tournament(cfg, progress=False, executor=StopAfter(cfg, 1, failed))
    assert (result.finished, result.interrupted, result.games) == (False, False, 4)
    assert result.failure == str(failed) == manifest(cfg.output)["failure"]


def manifest(out):
    return json.loads(open(os.path.join(out, "manifest.json")).read())


def test_more_deals_extend_a_tournament_and_another_config_is_refused(local_run, tmp_path,
                                                                      monkeypatch):
    """Issue 22 item 1: raising deals plays only the new deal seeds, keeping the old rows;
    a config that changes the games is refused, naming what differs."""
    full, _ = local_run
    out = str(tmp_path / "out")
    shutil.copytree(full.output, out)
    more = run_tournament(config(out, deals=6), local=True, progress=False)
    assert (more.stored_before, more.games, more.chunks_run) == (24, 36, 3)
    monkeypatch.setattr(runner, "RayExecutor", None)  # nothing left to play: no Ray started
    assert run_tournament(config(out, deals=6), progress=False).finished
    assert sorted(stored(out)["game_id"].to_pylist()) == list(range(36))
    assert [r for r in rows(out, "games") if r["game_id"] < 24] == rows(full.output, "games")
    with pytest.raises(StoreError, match="can grow, not shrink"):
        run_tournament(config(out, deals=5), local=True, progress=False)
    with pytest.raises(StoreError, match=r"holds 36 games of another tournament .*seed: 5 -> 6"):
        run_tournament(parse_config(CONFIG.format(deals=6, chunk=4, out=out, fmt="duplicate")
                                    .replace("seed = 5", "seed = 6")), local=True)


def test_config_errors_come_before_anything_is_written(tmp_path, capsys):
    """Issue 22 item 7: "4 bots cannot share a 3-player table" came after the output folder
    and manifest were written, naming no file or line."""
    path, out = tmp_path / "t.toml", tmp_path / "out"
    path.write_text(CONFIG.format(deals=2, chunk=4, out=out, fmt="duplicate")
                    + '\n[bots.b]\nkind = "random"\n\n[bots.c]\nkind = "random"\n')
    with pytest.raises(SystemExit) as exit:
        main(["tournament", "run", str(path), "--local"])
    err = capsys.readouterr().err
    assert exit.value.code == 2 and "Traceback" not in err
    assert f"{path}:21: [bots.c]: 4 bots cannot share a 3-player table" in err
    assert not out.exists()


def test_the_rate_counts_from_the_first_chunks_after_the_compile(monkeypatch):
    """Issue 22 item 12: the first ETA was about 4x too high, the compile (inside each
    worker's first chunk) counted as playing time."""
    now = [0.0]
    monkeypatch.setattr("tqdm.std.time", lambda: now[0])  # tqdm's clock
    shown = Progress(100, 10, file=io.StringIO())
    shown.phase("compiling", warmup=2)  # two workers compile 28 s, then play 2 s a chunk
    for t in (30.0, 30.5, 31.5, 32.5, 33.5):
        now[0] = t
        shown.update(10)
    assert shown.bar.n == 60
    assert shown.bar.format_dict["rate"] == pytest.approx(10.0)  # games/s, compile left out
    shown.close()


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
    # whist and two random bots: the cheapest compile for the three actors this test starts
    text = CONFIG.format(deals=12, chunk=4, out=tmp_path / "ray", fmt="duplicate")
    cfg = parse_config(text.replace('"gambari_kan"', '"whist"').replace("n_rounds = 1", "")
                       .replace("[bots.heuristic]\nkind = \"heuristic\"",
                                "[bots.other]\nkind = \"random\""))
    assert [b.kind for b in cfg.bots] == ["random", "random"]
    planned = len(plan_games(cfg, 4))
    assert planned // cfg.chunk_size >= 6  # chunks still in flight when an actor dies
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
    assert result.games == len(ids) == planned and sorted(ids) == list(range(planned))
    assert run_tournament(cfg, local=True, progress=False).chunks_run == 0


def test_an_actor_that_dies_with_two_chunks_is_replaced_once():
    """Both chunks in flight on a dead actor fail; they are retried on one replacement (a
    second would wait forever for a CPU the first holds: a hang seen on 2 CPUs)."""
    class ActorDied(Exception):
        pass

    class Actor:
        def __init__(self, dead: bool) -> None:
            self.dead, self.play = dead, types.SimpleNamespace(remote=self.submit)

        def submit(self, work):
            return (self, tuple(chunk for chunk, _ in work))

    def get(ref):
        actor, chunks = ref
        if actor.dead:
            raise ActorDied(chunks)
        return [(chunk, {"chunk": chunk}) for chunk in chunks]

    executor = RayExecutor.__new__(RayExecutor)
    executor.ray = types.SimpleNamespace(
        wait=lambda refs, num_returns: (refs[:1], refs[1:]), get=get,
        exceptions=types.SimpleNamespace(RayActorError=ActorDied, WorkerCrashedError=ActorDied))
    executor.n_actors, executor.actors, executor.units = 1, [Actor(dead=True)], [1]
    made = []
    executor._new_actor = lambda i: made.append(Actor(dead=False)) or made[-1]
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
    assert proc.returncode == UNFINISHED, err  # issue 22 item 9: it exited 0
    assert "interrupted; run the same command to resume" in out
    stored_before = len(list(games_dir.glob("*.parquet")))
    assert 2 <= stored_before < 40
    cfg = parse_config(text)
    again = run_tournament(cfg, local=True, progress=False)
    assert (again.stored_before, again.chunks_run) == (3 * stored_before, 40 - stored_before)
    assert sorted(stored(cfg.output)["game_id"].to_pylist()) == list(range(120))


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "configs").glob("*.toml")),
                         ids=lambda p: p.stem)
def test_issue_44_every_shipped_config_plans_distinct_games(path):
    """No shipped config plays a game twice (the quickstart did: 256 of its 320 games were
    copies): no two planned games share a duplicate group and a seating."""
    cfg = parse_config(path.read_text(), str(path))
    games = plan_games(cfg, kanjax.make(cfg.game, **cfg.flags).num_players)
    assert len({(g.group, g.bots) for g in games}) == len(games)
