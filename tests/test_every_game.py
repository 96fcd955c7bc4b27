"""Every registered game through every layer: the conformance suite, `kanjax simulate`,
`kanjax play` -> record -> `kanjax replay`, `kanjax show` of a record at a step and of a deal
string, and its golden playthroughs. A game is covered the moment it registers; its test
folder declares its small flags and golden cases (`tests/games/<game>/cases.py`)."""

from __future__ import annotations

import json

import jax
import pytest

import kanjax
from kanjax import records
from kanjax.bench import format_simulate
from kanjax.cli import main
from kanjax.conformance import check_env
from tests.harness import golden

GAMES = kanjax.games()


def small_flags(game: str) -> dict:
    return golden.game_cases(game).SMALL_FLAGS


def set_args(flags: dict) -> list[str]:
    return [a for k, v in flags.items() for a in ("--set", f"{k}={v}")]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> dict:
    """Per game: (record path, record) of one match played through `kanjax play`."""
    return {}


def record_of(game: str, played: dict, tmp_path_factory, capsys) -> tuple:
    if game not in played:
        path = tmp_path_factory.mktemp(game) / "game.json"
        main(["play", game, "--seed", "1", "--out", str(path), *set_args(small_flags(game))])
        assert f"{path}: " in capsys.readouterr().out
        played[game] = path, records.load(path)
    return played[game]


@pytest.mark.parametrize("game", GAMES)
def test_conformance(game):
    env = kanjax.make(game, **small_flags(game))
    figures = check_env(env, batch=3)
    assert all(0 < s <= env.max_steps for s in figures["steps"])


TIMING = ("batch", "compile_seconds", "wall_seconds", "games_per_second", "steps_per_second")


@pytest.mark.parametrize("game", GAMES)
def test_simulate_tallies_the_same_games_at_any_batch(game, capsys):
    """Issue 44 item 5: `simulate konkan --games 4 --batch 4` counted 1,788 rounds ended for
    20 deals (a finished match stays put, and its last deal was counted at every step the
    batch still ran); game i is the same at any batch size, so every count must agree."""
    flags = small_flags(game)
    runs = []
    for batch in ("8", "1"):
        main(["simulate", game, "--games", "8", "--batch", batch, "--json", *set_args(flags)])
        runs.append(json.loads(capsys.readouterr().out))
    result = runs[0]
    assert result["games"] == 8 and result["truncated"] == 0 and result["deals"] >= 8
    assert {k: v for k, v in result.items() if k not in TIMING} == {
        k: v for k, v in runs[1].items() if k not in TIMING}
    text = format_simulate(result)
    assert text.startswith(f"kanjax simulate {game}: 8 random matches") and "deals: " in text


@pytest.mark.parametrize("game", GAMES)
def test_play_record_replay(game, played, tmp_path_factory, capsys):
    path, record = record_of(game, played, tmp_path_factory, capsys)
    assert record["game"] == game and record["terminated"] and record["actions"]
    main(["replay", str(path)])
    assert "OK" in capsys.readouterr().out
    bad = dict(record, scores=[s + 1 for s in record["scores"]])
    assert not records.replay(bad).ok


@pytest.mark.parametrize("game", GAMES)
def test_show_record_and_deal_string(game, played, tmp_path_factory, capsys):
    path, record = record_of(game, played, tmp_path_factory, capsys)
    m = records.Match(game, record["flags"], record["seed"], None)
    for name in record["actions"][:3]:
        m.step(m.env.action_from_name(name, m.state))
    main(["show", str(path), "--step", "3"])
    assert capsys.readouterr().out == m.env.render(m.state) + "\n"
    deal = record["deals"][0]["deal"]
    main(["show", deal, *set_args(small_flags(game))])
    env = kanjax.deal_env(deal, **small_flags(game))
    state = env.from_deal(deal, jax.random.PRNGKey(0))
    shown = capsys.readouterr().out
    assert shown == env.render(state) + "\n" and len(shown.splitlines()) > env.num_players


@pytest.mark.parametrize("game", GAMES)
def test_golden_playthroughs(game):
    names = golden.cases(game)
    assert names, f"{game}: declare at least one golden playthrough"
    for name in names:
        golden.check(game, name)
