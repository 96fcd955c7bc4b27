"""The game registry (`kanjax.registry`, docs/adding_a_game.md): the built-in games, the
installed distributions' `kanjax.games` entry points and `KANJAX_GAMES` (which
`kanjax.register` writes, so that the processes a run starts know its games too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import kanjax
from kanjax.games import GAMES

STAGED = "tests.staged_env:make_staged"  # a small game of the tests, registered by none
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def variable(monkeypatch):
    """`KANJAX_GAMES` as the run set it, put back after the test."""
    monkeypatch.setenv(kanjax.GAMES_VAR, os.environ.get(kanjax.GAMES_VAR, ""))


def test_register_makes_a_game_known_here_and_to_child_processes(variable):
    assert "staged_test" not in kanjax.games()
    kanjax.register("staged_test", STAGED)
    kanjax.register("staged_test", STAGED)  # again, the same: nothing changes
    assert "staged_test" in kanjax.games() and kanjax.registry()["staged_test"] == STAGED
    assert kanjax.make("staged_test").name == "staged_test"
    assert os.environ[kanjax.GAMES_VAR].count("staged_test=") == 1
    child = subprocess.run(
        [sys.executable, "-c", "import kanjax; print(kanjax.registry()['staged_test'])"],
        cwd=ROOT, capture_output=True, text=True, check=True)
    assert child.stdout.strip() == STAGED


def test_a_name_has_one_target(variable, monkeypatch):
    kanjax.register("staged_test", STAGED)
    with pytest.raises(ValueError, match="'staged_test' is registered already as tests"):
        kanjax.register("staged_test", "elsewhere:make")
    with pytest.raises(ValueError, match="'whist' is registered already as kanjax"):
        kanjax.register("whist", STAGED)
    monkeypatch.setattr(kanjax, "_entry_points", lambda: (("whist", STAGED),))
    with pytest.raises(ValueError, match=r"'whist' \(an entry point: tests.staged_env"):
        kanjax.games()


def test_entry_points_register_installed_games(monkeypatch):
    monkeypatch.setattr(kanjax, "_entry_points", lambda: (("staged_test", STAGED),))
    assert kanjax.games() == sorted([*kanjax.registry()]) and "staged_test" in kanjax.games()
    assert kanjax.make("staged_test").num_players == 2
    assert set(GAMES) < set(kanjax.registry())


@pytest.mark.parametrize("entry", ["staged_test", "staged_test=tests.staged_env",
                                   "staged test=tests.staged_env:make_staged",
                                   "staged_test=:make_staged"])
def test_bad_entries_say_what_is_wrong(monkeypatch, entry):
    monkeypatch.setenv(kanjax.GAMES_VAR, entry)
    with pytest.raises(ValueError, match=f"{kanjax.GAMES_VAR}: bad"):
        kanjax.games()
    with pytest.raises(ValueError, match="register: bad game entry"):
        kanjax.register(*entry.partition("=")[::2])


def test_the_variable_reads_several_entries(monkeypatch):
    monkeypatch.setenv(kanjax.GAMES_VAR, f" staged_test = {STAGED} , ,other=a.b:make_other")
    found = kanjax.registry()
    assert found["staged_test"] == STAGED and found["other"] == "a.b:make_other"
    with pytest.raises(ModuleNotFoundError, match="'a'"):
        kanjax.make("other")
