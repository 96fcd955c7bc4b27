"""Forfeits (issue 22 items 3 and 5, issue 44 item 1): a crash, timeout or illegal move is a
loss for the offender (below the game's worst score, or the config's `forfeit_score`) that
nobody gains from,
the report counts forfeits per bot and reason in a column, and a forfeited game exports as
a record that `kanjax replay` checks up to the forfeit."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.dataset as ds
import pytest

import kanjax
from kanjax import records
from kanjax.api import legal_actions
from kanjax.cli import main
from tournaments.config import ConfigError, parse_config
from tournaments.play import ChunkPlayer
from tournaments.report import format_report, report
from tournaments.runner import run_tournament

CONFIG = """\
[tournament]
game = "gambari_kan"
deals = 2
seed = 1
chunk_size = 6
output = "{out}"
{extra}
[flags]
n_rounds = 2

[bots.random]
kind = "random"

[bots.guest]
kind = "python"
target = "tests.tournaments.forfeit_bots:Flaky"
"""
FLAGS = {"n_rounds": 2}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("forfeits") / "out"
    run_tournament(parse_config(CONFIG.format(out=out, extra="")), local=True, progress=False)
    return out


@pytest.fixture(scope="module")
def games(folder):
    return ds.dataset(folder / "games").to_table().to_pylist()


def scores_before_forfeit(game: dict) -> list[float]:
    """The engine's match scores of a forfeited game's moves before the refused one."""
    m = records.Match(game["game"], FLAGS, 1, None, game["seed"])
    for a in game["actions"][:-1]:
        m.step(a)
    return m.returns.tolist()


def test_worst_scores_come_from_each_games_tables():
    assert kanjax.make("gambari_kan", n_rounds=2).worst_score == -40  # 2 x GS per opponent
    assert kanjax.make("gambari_kan", gambari_scoring="flat").worst_score == -100
    assert kanjax.make("whist").worst_score == 0  # no tricks
    for game in kanjax.games():
        env = kanjax.make(game)
        assert np.isfinite(env.worst_score) and env.worst_score <= 0


def test_a_forfeit_is_a_loss_that_nobody_gains_from(games):
    worst = kanjax.make("gambari_kan", **FLAGS).worst_score - 1  # below any legal result
    forfeited = [g for g in games if g["forfeit"] >= 0]
    assert len(games) == 12 and len(forfeited) >= 6
    assert all(g["bots"][g["forfeit"]] == "guest" and g["scores"][g["forfeit"]] == worst
               for g in forfeited)
    # the others keep the match scores they had, the guest's other seat too (each got +0.5
    # before): 0 in a game forfeited in round 1, the engine's in one forfeited later
    assert any(sorted(g["scores"]) == [worst, 0, 0] for g in forfeited)
    late = min((g for g in forfeited if sorted(g["scores"]) != [worst, 0, 0]),
               key=lambda g: g["steps"])
    engine = scores_before_forfeit(late)
    f = late["forfeit"]
    assert [s for p, s in enumerate(late["scores"]) if p != f] == [
        s for p, s in enumerate(engine) if p != f]


def test_a_configured_forfeit_score_is_the_offenders():
    cfg = parse_config(CONFIG.format(out="x", extra="forfeit_score = -300\n"))
    player = ChunkPlayer(cfg)  # compiles nothing until it plays
    scores, reason = player._scored(np.array([1.0, 2.0, -5.0]), 1, ["a", "b", "c"], -1,
                                    "b: crash: boom")
    assert scores.tolist() == [1.0, -300.0, -5.0] and reason == "b: crash: boom"
    with pytest.raises(ConfigError, match=r"\[tournament\] forfeit_score: must be a number"):
        parse_config(CONFIG.format(out="x", extra='forfeit_score = "lots"\n'))
    # issue 44: a forfeit must lose, so not at or above the game's worst (-40 here)
    with pytest.raises(ConfigError, match=r"forfeit_score: must be below gambari_kan's worst "
                                          r"match score -40 \(a forfeit always loses\), got -3"):
        parse_config(CONFIG.format(out="x", extra="forfeit_score = -3\n"))


def test_the_report_counts_forfeits_per_bot_and_reason(folder, games):
    result = report(folder)
    kinds = {"crash": 0, "illegal": 0}
    for g in games:
        if g["forfeit"] >= 0:
            kinds[g["forfeit_reason"].split(": ")[1]] += 1
    assert result["forfeits"] == {"guest": kinds} and min(kinds.values()) > 0
    lines = format_report(result).splitlines()
    header = next(line for line in lines if line.startswith("bot"))
    column = header.index("forfeits")
    rows = {line.split()[0]: line[column:] for line in lines[lines.index(header) + 1:][:2]}
    assert rows == {"guest": f"{sum(kinds.values())} (crash {kinds['crash']}, illegal "
                             f"{kinds['illegal']})", "random": "0"}


def test_a_forfeited_game_exports_and_replays_up_to_the_forfeit(folder, games, tmp_path,
                                                                capsys):
    g = next(g for g in games if g["forfeit"] >= 0)
    out = tmp_path / "game.json"
    main(["tournament", "game", str(folder), str(g["game_id"]), "--out", str(out)])
    assert f"then player {g['forfeit']} forfeited" in capsys.readouterr().out
    record = json.loads(out.read_text())
    assert len(record["actions"]) == g["steps"] - 1 and not record["terminated"]
    assert record["forfeit"] == {"player": g["forfeit"], "bot": "guest",
                                 "reason": g["forfeit_reason"], "action": None,
                                 "scores": g["scores"]}
    main(["replay", str(out)])
    assert f"OK, {g['steps'] - 1} steps replayed" in capsys.readouterr().out
    other = (g["forfeit"] + 1) % 3
    result = records.replay({**record, "forfeit": {**record["forfeit"], "player": other}})
    assert not result.ok and "not the forfeiting player" in result.error


def test_an_illegal_move_a_record_names_is_checked(games):
    g = games[0]
    m = records.Match("gambari_kan", FLAGS, 1, None, g["seed"])
    for a in g["actions"][:3]:
        m.step(a)
    env = m.env
    illegal = int(np.argmin(np.asarray(m.state.legal_action_mask)))
    forfeit = {"player": int(m.state.current_player), "reason": "a JAX bot's move"}
    named = records.record_of_actions("gambari_kan", FLAGS, 1, g["seed"],
                                      g["actions"][:3] + [illegal], [0.0] * 3, forfeit)
    assert named["forfeit"]["action"] == env.action_name(illegal, m.state)
    assert records.replay(named).ok
    legal = env.action_name(legal_actions(m.state)[0], m.state)
    result = records.replay({**named, "forfeit": {**named["forfeit"], "action": legal}})
    assert not result.ok and "is legal here" in result.error
