"""kanjax.baselines: the OpenSpiel comparison figure of `kanjax bench` (needs the `bench` extra)."""

import sys

import pytest

import kanjax
from kanjax import bench
from kanjax.baselines import openspiel_random_play


def test_openspiel_random_play_positive_figures():
    pytest.importorskip("pyspiel")
    r = openspiel_random_play(min_seconds=0.2)
    assert r is not None
    assert r["engine"] == "openspiel"
    assert r["game"] == "oh_hell(players=5,num_tricks_fixed=10)"
    assert r["games"] > 0 and r["cpu_seconds"] >= 0.2 and r["wall_seconds"] > 0
    assert r["games_per_cpu_second"] > 0
    # 5 bids + 50 card plays per game, plus the chance moves (the deal, ...).
    assert r["actions"] >= 55 * r["games"]
    assert r["actions_per_cpu_second"] > 0


def test_openspiel_random_play_none_without_pyspiel(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` raise ImportError
    assert openspiel_random_play(min_seconds=0.01) is None


# ---- each game's baseline in `kanjax bench` (issue 44 item 9) ----------------------------
def test_whist_is_compared_with_a_4_player_52_card_trick_game():
    """Whist's baseline is bridge's card play (after a random auction), per decision: not
    the 5-player oh_hell of the other games."""
    env = kanjax.make("whist")
    game, unit = env.bench_baseline
    assert game == "bridge(use_double_dummy_result=false)" and unit in bench._UNITS
    pyspiel = pytest.importorskip("pyspiel")
    loaded = pyspiel.load_game(game)
    assert loaded.num_players() == env.num_players == 4
    state = loaded.new_initial_state()
    assert len(state.chance_outcomes()) == 52  # the deal, one card at a time


def fake_bench_batch(env, batch, min_seconds=2.0):
    """A measured row's figures, without measuring (`kanjax.bench.bench_batch`'s keys)."""
    return {"batch": batch, "compile_seconds": 1.0, "steps_per_second": 1000,
            "steps_per_cpu_second": 1000, "deals_per_second": 10.0,
            "deals_per_cpu_second": 10.0,
            "card_plays_per_cpu_second": 500 if bench.plays_cards(env) else None}


@pytest.fixture
def measured(monkeypatch) -> list[str]:
    """OpenSpiel games measured, by a fake `openspiel_random_play` (no pyspiel needed)."""
    calls: list[str] = []

    def fake(game, min_seconds=3.0):
        calls.append(game)
        return {"game": game, "games_per_cpu_second": 4.0, "decisions_per_cpu_second": 250.0}

    monkeypatch.setattr(bench, "bench_batch", fake_bench_batch)
    monkeypatch.setattr("kanjax.baselines.openspiel_random_play", fake)
    return calls


def test_every_game_of_a_multi_game_bench_gets_its_own_baseline(measured):
    games = ["gonin_kan", "whist", "yonin_kan", "konkan"]
    result = bench.bench_games(games, batches=(1, 8), min_seconds=0.01)
    envs = {g: kanjax.make(g) for g in games}
    for r in result["games"]:
        game, unit = envs[r["game"]].bench_baseline
        assert r["baseline"]["game"] == game and r["baseline_unit"] == unit
        assert r["ratio_vs_baseline"] == {"deals": 2.5, "decisions": 4.0}[unit]
    assert sorted(measured) == sorted({e.bench_baseline[0] for e in envs.values()})  # once each
    text = bench.format_bench_games(result)
    assert text.count("baseline: OpenSpiel C++") == len(games)


def test_konkan_plays_no_cards_to_tricks_and_shows_no_ratio_for_them(measured):
    """Konkan (rummy) has no card plays: "-", never 0, and no "0.00x" beside the others."""
    result = bench.bench_games(["konkan", "gonin_kan", "whist"], batches=(4,),
                               min_seconds=0.01)
    assert result["card_plays_vs"] == "gonin_kan"
    assert result["card_plays_vs_first"] == {"gonin_kan": 1.0, "whist": 1.0}
    text = bench.format_bench_games(result)
    konkan = text.split("\n\n")[0]
    assert konkan.splitlines()[2].split()[-1] == "-" and "no cards to tricks" in konkan
    assert "0.00x" not in text and "relative to gonin_kan: gonin_kan 1.00x, whist 1.00x" in text


def test_bench_without_openspiel_says_so(monkeypatch):
    monkeypatch.setattr(bench, "bench_batch", fake_bench_batch)
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    result = bench.bench_games(["gonin_kan", "whist"], batches=(1,), min_seconds=0.01)
    assert [r["baseline"] for r in result["games"]] == [None, None]
    assert bench.format_bench_games(result).count("OpenSpiel not installed") == 2


def test_issue_45_bench_rollout_times_whole_matches_through_the_public_rollout():
    result = bench.bench("whist", batches=(8,), min_seconds=0.01, baseline=False, stream=True)
    st = result["stream"]
    assert st["lanes"] == 8 and st["games"] == 64 and st["steps_per_cpu_second"] > 0
    assert st["vs_steady_state"] == round(
        st["steps_per_cpu_second"] / result["rows"][0]["steps_per_cpu_second"], 3)
    assert "public rollout (make_stream, 64 matches on 8 lanes" in bench.format_bench(result)
