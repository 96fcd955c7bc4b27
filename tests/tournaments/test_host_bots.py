"""Python bots and external engines in tournaments: they play, and a bot that crashes, hangs
or plays an illegal move forfeits the game, with the reason stored; nothing is lost. Engine
replies echo the request's id: other lines are skipped, and a broken engine is restarted
(issue 22 items 2 and 6). Batched bots (issue 28): a Python class with `act_batch`, an engine
with `batch = true`, are asked once a step for every game waiting on them, and play as the
same bot one move at a time does; a batch that fails forfeits its games, an illegal action
in it only its game."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.dataset as ds
import pytest

from tournaments.bots import host_bot
from tournaments.config import BotSpec, ConfigError, parse_config
from tournaments.runner import run_tournament

ENGINE = f"{sys.executable} {Path(__file__).with_name('sample_engine.py')}"

CONFIG = """\
[tournament]
game = "gambari_kan"
deals = 1
chunk_size = 3
output = "{out}"

[flags]
n_rounds = 1

[bots.random]
kind = "random"

[bots.guest]
{guest}
time_limit = {limit}
"""


def run(tmp_path, guest: str, limit: float = 0.5):
    cfg = parse_config(CONFIG.format(out=tmp_path / "out", guest=guest, limit=limit))
    result = run_tournament(cfg, local=True, progress=False)
    games = ds.dataset(tmp_path / "out" / "games").to_table().to_pylist()
    assert result.games == len(games) == 6  # 2 bots x 3 seats: every game stored
    return games


def run_engine(tmp_path, flags: str = ""):
    """`run` with the sample engine as the guest; its first move includes Python's start-up."""
    return run(tmp_path, f'kind = "external"\ncommand = "{ENGINE} {flags}"', limit=2.0)


def guest_seats(game: dict) -> list[int]:
    return [p for p, b in enumerate(game["bots"]) if b == "guest"]


def test_a_python_bot_plays_whole_games(tmp_path):
    games = run(tmp_path, 'kind = "python"\ntarget = "tests.tournaments.sample_bots:FirstLegal"',
                limit=2.0)
    assert all(g["forfeit"] == -1 and g["forfeit_reason"] == "" for g in games)
    assert all(g["steps"] >= 30 for g in games)  # 30 cards played at least


@pytest.mark.parametrize("cls,reason", [
    ("Crasher", "guest: crash: RuntimeError('boom')"),
    ("Sleeper", "guest: timeout: no move within 0.5 s"),
    ("Illegal", "guest: illegal: action 999 is not legal here"),
])
def test_a_failing_python_bot_forfeits(tmp_path, cls, reason):
    games = run(tmp_path, f'kind = "python"\ntarget = "tests.tournaments.sample_bots:{cls}"')
    for g in games:
        assert g["forfeit"] in guest_seats(g) and g["forfeit_reason"] == reason
        assert g["scores"][g["forfeit"]] == -21.0  # below the game's worst (-20)


def test_a_hung_python_bot_forfeits_and_local_run_exits(tmp_path):
    """An `act` that never returns is killed with its process: `--local` exits (issue 22
    item 6; it hung at exit, joining the stuck thread: here `timeout` would end the test)."""
    guest = 'kind = "python"\ntarget = "tests.tournaments.sample_bots:Spinner"'
    (tmp_path / "t.toml").write_text(CONFIG.format(out=tmp_path / "out", guest=guest, limit=0.2))
    done = subprocess.run([sys.executable, "-m", "kanjax.cli", "tournament", "run",
                           str(tmp_path / "t.toml"), "--local"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    games = ds.dataset(tmp_path / "out" / "games").to_table().to_pylist()
    assert len(games) == 6 and all(
        g["forfeit_reason"] == "guest: timeout: no move within 0.2 s" for g in games)


def test_a_python_bot_runs_in_a_session_of_its_own():
    """Ctrl-C at the terminal (SIGINT to its process group) stops the run, not its bots."""
    bot = host_bot(BotSpec("guest", "python", target="tests.tournaments.sample_bots:FirstLegal"))
    try:
        assert bot.act("g", 0, np.zeros(3, np.int8), [4, 7], ["a", "b"]) == 4
        assert os.getsid(bot.proc.pid) != os.getsid(0)
    finally:
        bot.close()
    assert bot.proc is None


@pytest.mark.slow
def test_a_hung_python_bot_forfeits_under_ray(tmp_path):
    """The same in a Ray actor: the bot's process is started and killed there."""
    guest = 'kind = "python"\ntarget = "tests.tournaments.sample_bots:Spinner"'
    cfg = parse_config(CONFIG.format(out=tmp_path / "out", guest=guest, limit=0.5))
    assert run_tournament(cfg, actors=1, progress=False).games == 6
    games = ds.dataset(tmp_path / "out" / "games").to_table().to_pylist()
    assert all(g["forfeit_reason"] == "guest: timeout: no move within 0.5 s" for g in games)


@pytest.fixture(scope="module")
def engine_games(tmp_path_factory) -> dict[int, dict]:
    """The games of the well-behaved sample engine, by game id."""
    games = run_engine(tmp_path_factory.mktemp("ok"))
    assert all(g["forfeit"] == -1 for g in games)
    return {g["game_id"]: g for g in games}


def same_play(a: dict, b: dict) -> bool:
    return a["actions"] == b["actions"] and a["scores"] == b["scores"]


@pytest.mark.parametrize("flag,skipped", [("--banner", "'sample engine 1.0 ready'"),
                                          ("--stale", '"action"')])
def test_lines_that_are_no_reply_are_skipped_and_logged(tmp_path, caplog, engine_games, flag,
                                                        skipped):
    """A banner line or a stale reply (legal, but for the previous request) is never played:
    every game is the well-behaved engine's."""
    games = run_engine(tmp_path, flag)
    assert all(g["forfeit"] == -1 and same_play(g, engine_games[g["game_id"]]) for g in games)
    assert any(r.message.startswith("bot guest: skipped a line that is not the reply")
               and skipped in r.message for r in caplog.records)


@pytest.mark.parametrize("flag,reason", [
    ("--crash-after 5", "guest: crash: the engine exited (code 3)"),
    ("--mute-after 5", "guest: timeout: no move within 2 s"),
])
def test_an_engine_that_breaks_mid_game_forfeits_it_and_is_restarted(tmp_path, engine_games,
                                                                     flag, reason):
    """An engine that dies, or only chatters until the time limit, forfeits the game in hand;
    the restarted engine plays every other game as the well-behaved one does."""
    once = tmp_path / "broke-once"
    games = run_engine(tmp_path, f"{flag} --once {once}")
    lost = [g for g in games if g["forfeit"] != -1]
    assert len(lost) == 1 and lost[0]["forfeit"] in guest_seats(lost[0])
    assert lost[0]["forfeit_reason"] == reason
    assert all(same_play(g, engine_games[g["game_id"]]) for g in games if g not in lost)


def test_an_engine_crashing_again_and_again_forfeits_but_loses_no_game(tmp_path):
    games = run_engine(tmp_path, "--crash-after 5")
    assert any("crash: the engine exited" in g["forfeit_reason"] for g in games)
    assert all(g["forfeit"] in [-1, *guest_seats(g)] for g in games)


def test_unknown_host_bots_fail_before_any_work():
    bad = CONFIG.format(out="x", guest='kind = "python"\ntarget = "tests.nowhere:Bot"', limit=1)
    with pytest.raises(ConfigError, match=r"\[bots.guest\] target: cannot import"):
        parse_config(bad)
    bad = CONFIG.format(out="x", guest='kind = "external"\ncommand = "no-such-engine --x"',
                        limit=1)
    with pytest.raises(ConfigError, match=r"\[bots.guest\] command: program not found"):
        parse_config(bad)


def test_a_batched_bot_is_asked_once_for_all_its_games():
    bot = host_bot(BotSpec("guest", "python", target="tests.tournaments.sample_bots:BatchLast"))
    masks = np.zeros((3, 6), bool)
    masks[[0, 0, 1, 2], [1, 4, 2, 5]] = True
    try:
        assert bot.moves("g", np.array([0, 2, 1]), np.zeros((3, 4), np.int16), masks,
                         str) == [4, 2, 5]
        assert next(bot.ids) == 2  # one request
    finally:
        bot.close()


@pytest.mark.parametrize("guest", [
    'kind = "python"\ntarget = "tests.tournaments.sample_bots:BatchLast"',
    f'kind = "external"\ncommand = "{ENGINE}"\nbatch = true',
])
def test_batched_bots_play_as_the_engine_does_move_by_move(tmp_path, engine_games, guest):
    games = run(tmp_path, guest, limit=2.0)
    assert all(g["forfeit"] == -1 and same_play(g, engine_games[g["game_id"]]) for g in games)


@pytest.mark.parametrize("cls,reason", [
    ("BatchCrasher", "guest: crash: RuntimeError('boom')"),
    ("BatchSleeper", "guest: timeout: no move within 0.5 s"),
    ("BatchShort", "guest: illegal: a batch of "),  # n games answered with n + 1 actions
])
def test_a_failing_batch_forfeits_its_games(tmp_path, cls, reason):
    games = run(tmp_path, f'kind = "python"\ntarget = "tests.tournaments.sample_bots:{cls}"')
    assert all(g["forfeit"] in guest_seats(g) and g["forfeit_reason"].startswith(reason)
               for g in games)


def test_an_illegal_action_in_a_batch_forfeits_its_game_only(tmp_path, engine_games):
    games = run(tmp_path, 'kind = "python"\n'
                          'target = "tests.tournaments.sample_bots:BatchOnceIllegal"', limit=2.0)
    lost = [g for g in games if g["forfeit"] != -1]
    assert len(lost) == 1
    assert lost[0]["forfeit_reason"] == "guest: illegal: action 999 is not legal here"
    assert all(same_play(g, engine_games[g["game_id"]]) for g in games if g not in lost)
