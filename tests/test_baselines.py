"""kanjax.baselines: the OpenSpiel comparison figure of `kanjax bench` (needs the `bench` extra)."""

import sys

import pytest

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
