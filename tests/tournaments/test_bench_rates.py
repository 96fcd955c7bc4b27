"""`kanjax bench tournament`'s rates (issue 44 item 9): each row's games per wall second is
its games / wall seconds, beside the steady-state rate, which is labelled as such."""

from __future__ import annotations

import types

from tournaments import bench


class FakeExecutor:
    """Four chunks of 10 games, the first one slow (the compile), the rest at once."""

    n_actors = workers = 1

    def __init__(self, cfg, actors=None) -> None:
        pass

    def run(self, work):
        for i in range(4):
            yield i, {"games": [0] * 10}

    def close(self) -> None:
        pass


def fake_run(cfg, progress=False, executor=None):
    for _ in executor.run(iter(())):
        pass
    return types.SimpleNamespace(games=40, chunks_total=4)


def test_games_per_wall_second_is_games_over_wall_seconds(monkeypatch):
    monkeypatch.setattr(bench, "LocalExecutor", FakeExecutor)
    monkeypatch.setattr(bench, "run_tournament", fake_run)
    clock = iter([0.0, 1.0, 1.5, 1.6, 1.7, 2.0])  # start, the 4 chunks' stamps, the end
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    cfg = bench.load_config(bench.WORKLOAD)
    m = bench._measure(cfg, "local")
    assert m["wall_seconds"] == 2.0 and m["games_per_wall_second"] == 20.0
    assert m["games_per_second"] == 42.9  # steady: 30 games in the 0.7 s after the first chunk


def test_the_table_says_which_rate_is_which():
    row = {"games": 2560, "chunks": 80, "wall_seconds": 25.6, "games_per_wall_second": 100.0,
           "games_per_second": 1171.0, "warm_chunks": 16}
    r = {"game": "gonin_kan", "flags": {"n_rounds": 1}, "bots": ["a", "b"], "deals": 256,
         "chunk_size": 32, "local": row, "ray": row, "ray_vs_local": 1.0}
    text = bench.format_bench(r)
    head, local = text.splitlines()[1:3]
    assert "games/wall-s" in head and "steady games/s" in head
    assert local.split()[1:] == ["2560", "80", "25.6", "100.0", "1171.0"]
    assert "not games / wall s" in text
