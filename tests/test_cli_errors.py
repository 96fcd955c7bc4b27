"""Bad input through the `kanjax` command: exit code 2, a message naming the fault, no
traceback (issue 22 items 10 and 12); `kanjax.api.checked_step`'s refusals."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import pytest

import kanjax
from kanjax import cli
from kanjax.api import checked_step, jitted, legal_actions
from kanjax.cli import main

TOURNAMENT = """[tournament]
game = "gonin_kan"
deals = 2
output = "{out}"

[flags]
{flag}

[bots.random]
kind = "random"
"""


def config(tmp_path, flag: str) -> str:
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT.format(out=tmp_path / "out", flag=flag))
    return str(path)


CASES = {
    "replay a missing file": (["replay", "nope.json"], "nope.json: cannot read the record"),
    "solve a missing batch": (["solve", "--batch", "/nonexistent"],
                              "/nonexistent: No such file or directory"),
    "export from a missing folder": (["tournament", "game", "/nonexistent", "3"],
                                     "/nonexistent: not a tournament results folder"),
    "simulate no games": (["simulate", "gonin_kan", "--games", "0"],
                          "argument --games: want a positive integer, got '0'"),
    "simulate negative games": (["simulate", "gonin_kan", "--games", "-5"],
                                "argument --games: want a positive integer, got '-5'"),
    "show a missing file": (["show", "nope.json"], "nope.json: no such record file"),
    "bench bad batches": (["bench", "gonin_kan", "--batches", "1,x"],
                          "argument --batches: want comma-separated positive integers"),
    "bench negative cpus": (["bench", "gonin_kan", "--cpus", "-1"],  # issue 44 item 9
                            "argument --cpus: want 0 or a positive integer, got '-1'"),
    "bench more cpus than there are": (["bench", "gonin_kan", "--cpus", "100000"],
                                       "--cpus 100000: this process may run on"),
    "compare with no such commit": (["bench", "gonin_kan", "--compare", "no-such-ref"],
                                    "--compare no-such-ref: not a commit of"),  # issue 45
    "compare at two batch sizes": (["bench", "gonin_kan", "--compare", "HEAD",
                                    "--batches", "64,1024"],
                                   "--compare: give one batch size (--batches 1024)"),
    "compare with no threshold": (["bench", "gonin_kan", "--compare", "HEAD",
                                   "--threshold", "0"],
                                  "--threshold 0.0: want a ratio in (0, 1]"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_exits_2_with_a_message(case, capsys):
    argv, message = CASES[case]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err, err


@pytest.mark.parametrize("actors, message", [  # issue 44 item 9
    ("-1", "argument --actors: want 0 or a positive integer, got '-1'"),
    ("0", "--actors 0: with no GPU workers (gpus_per_worker = 0, --gpus) nobody would play"),
])
def test_tournament_actors_are_checked(tmp_path, capsys, actors, message):
    with pytest.raises(SystemExit) as exit_:
        main(["tournament", "run", config(tmp_path, 'n_rounds = 1\n[bots.other]\nkind = '
                                                    '"random"'), "--actors", actors])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err, err
    assert message in err.strip().splitlines()[-1] and not (tmp_path / "out").exists()


@pytest.mark.parametrize("record, message", [  # issue 44 item 9: bad input, not DISAGREES
    ({"game": "gonin_kan", "seed": 0, "actions": []},
     "not a kanjax-record/1 record (format=None)"),
    ({"format": "kanjax-record/1", "game": "gonin_kan", "seed": 0},
     "the record has no list of 'actions'"),
    ({"format": "kanjax-record/1", "seed": 0, "actions": []}, "the record has no 'game'"),
    ([1, 2], "not a kanjax-record/1 record (format='list')"),
])
def test_replay_of_what_is_not_a_record_is_bad_input(tmp_path, capsys, record, message):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path)])
    captured = capsys.readouterr()
    assert exit_.value.code == 2 and "DISAGREES" not in captured.out
    assert captured.err == f"kanjax replay: error: {path}: {message}\n"


@pytest.mark.parametrize("flag, message", [
    ('n_rounds = "two"', "t.toml:7: [flags] n_rounds: n_rounds='two': must be an integer"),
    ('players = "6"', "t.toml:7: [flags] players: players='6': must be an integer"),
])
def test_tournament_flag_types_are_checked(tmp_path, capsys, flag, message):
    with pytest.raises(SystemExit) as exit_:
        main(["tournament", "run", config(tmp_path, flag)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("game, flags, message", [
    ("gonin_kan", {"shippo_jo": 1}, "shippo_jo=1: must be true or false"),
    ("gonin_kan", {"illegal_action_penalty": "x"}, "illegal_action_penalty='x': must be a "
                                                   "number"),
    ("whist", {"trump": 3}, "trump=3: must be a string"),
])
def test_every_game_checks_its_flag_types(game, flags, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        kanjax.make(game, **flags)
    assert kanjax.make("gonin_kan", illegal_action_penalty=-2).config.illegal_action_penalty == -2


@pytest.fixture(scope="module")
def start():
    env = kanjax.make("gonin_kan", n_rounds=1)
    return env, jitted(env, "init")(jax.random.PRNGKey(0))


@pytest.mark.parametrize("action, message", [
    ("KOI ", "bad action name 'KOI ' (stray spaces)"),
    (3.5, "bad action 3.5: want an action id"),
    (None, "bad action None: want an action id"),
    (True, "bad action True: want an action id"),
    ("fold", "unknown action name 'fold'"),
    (999, "illegal action 999"),
])
def test_checked_step_refuses_what_is_not_an_action(start, action, message):
    env, state = start
    with pytest.raises(ValueError) as err:
        checked_step(env, state, action, jax.random.PRNGKey(1))
    legal = ", ".join(env.action_name(a, state) for a in legal_actions(state))
    assert message in str(err.value) and str(err.value).endswith(f"legal: {legal}")


SUITS = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


def test_solve_names_the_strain(capsys):
    main(["solve", SUITS, "--game", "whist", "--trump", "NT", "--leader", "E"])
    assert ["trump", "NT"] in [line.split() for line in capsys.readouterr().out.splitlines()]
    main(["solve", SUITS, "--game", "whist", "--trump", "H", "--leader", "E", "--json"])
    assert json.loads(capsys.readouterr().out)["trump"] == "H"


def test_bench_prints_json_only_when_asked(monkeypatch, capsys):
    result = {"games": [], "card_plays_vs_first": {}}
    monkeypatch.setattr("kanjax.bench.bench_games", lambda *a, **k: result)
    monkeypatch.setattr("kanjax.bench.format_bench_games", lambda r: "a table")
    main(["bench", "gonin_kan", "--cpus", "0"])
    assert capsys.readouterr().out == "a table\n"
    main(["bench", "gonin_kan", "--cpus", "0", "--json"])
    assert json.loads(capsys.readouterr().out) == result


def test_a_persons_game_says_when_preparing(capsys):
    with cli.preparing_notice(after=0.0):
        __import__("time").sleep(0.2)
    assert "kanjax: preparing the game" in capsys.readouterr().err


@pytest.mark.slow  # ~40 s: the example's eager `env.init` runs op by op
def test_readme_example_runs_to_checked_step():
    """The README's Env example, up to its `checked_step`, runs from the start state."""
    text = (Path(__file__).parents[1] / "README.md").read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    lines = example.splitlines()
    upto = next(i for i, line in enumerate(lines) if "checked_step(" in line)
    exec("\n".join(lines[: upto + 1]), {})
