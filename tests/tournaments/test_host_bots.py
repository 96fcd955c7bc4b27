"""Python bots and external engines in tournaments: they play, and a bot that crashes, hangs
or plays an illegal move forfeits the game, with the reason stored; nothing is lost."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow.dataset as ds
import pytest

from tournaments.config import ConfigError, parse_config
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
time_limit = 0.5
"""


def run(tmp_path, guest: str):
    cfg = parse_config(CONFIG.format(out=tmp_path / "out", guest=guest))
    result = run_tournament(cfg, local=True, progress=False)
    games = ds.dataset(tmp_path / "out" / "games").to_table().to_pylist()
    assert result.games == len(games) == 6  # 2 bots x 3 seats: every game stored
    return games


def guest_seats(game: dict) -> list[int]:
    return [p for p, b in enumerate(game["bots"]) if b == "guest"]


def test_a_python_bot_plays_whole_games(tmp_path):
    games = run(tmp_path, 'kind = "python"\ntarget = "tests.tournaments.sample_bots:FirstLegal"')
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
        assert g["scores"][g["forfeit"]] == -20.0  # the game's worst (Env.worst_score)


def test_an_external_engine_plays_and_a_crashing_one_forfeits(tmp_path):
    games = run(tmp_path / "ok", f'kind = "external"\ncommand = "{ENGINE}"')
    assert all(g["forfeit"] == -1 for g in games)
    games = run(tmp_path / "crash", f'kind = "external"\ncommand = "{ENGINE} --crash-after 5"')
    assert any("crash: the engine exited" in g["forfeit_reason"] for g in games)
    assert all(g["forfeit"] in [-1, *guest_seats(g)] for g in games)


def test_unknown_host_bots_fail_before_any_work():
    bad = CONFIG.format(out="x", guest='kind = "python"\ntarget = "tests.nowhere:Bot"')
    with pytest.raises(ConfigError, match=r"\[bots.guest\] target: cannot import"):
        parse_config(bad)
    bad = CONFIG.format(out="x", guest='kind = "external"\ncommand = "no-such-engine --x"')
    with pytest.raises(ConfigError, match=r"\[bots.guest\] command: program not found"):
        parse_config(bad)
