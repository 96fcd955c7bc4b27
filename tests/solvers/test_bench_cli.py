"""`kanjax bench solver` from the command line (issue 44): its own help, `--set` values checked,
JSON only with `--json`, and a 99th percentile only where it means something."""

from __future__ import annotations

import json

import pytest

from kanjax.cli import main
from solvers import bench
from tests.solvers.test_solve_cli import error_of


def test_help_lists_the_solver_bench_keys(capsys):
    main(["bench", "solver", "--help"])
    text = capsys.readouterr().out
    assert text.startswith("usage: kanjax bench solver")
    assert all(f"\n  {key} " in text for key in bench.OPTIONS)
    assert "--batches" not in text  # the game bench's flags are not this bench's


@pytest.mark.parametrize(("pair", "message"), [
    ("cards=abc", "bench solver option cards='abc': want an integer in 1..13"),
    ("cards=0", "bench solver option cards=0: want an integer in 1..13"),
    ("deals=-1", "bench solver option deals=-1: want an integer in 0.."),
    ("dbf_cap=soon", "bench solver option dbf_cap='soon': want a number in 0.."),
    ("lanez=4", "unknown bench solver option 'lanez'"),
])
def test_bad_set_values_exit_2_naming_key_and_value(capsys, pair, message):
    assert message in error_of(capsys, "bench", "solver", "--set", pair)


def test_set_values_within_bounds_are_taken():
    opts = bench.options(["cards=13", "dbf_cap=2.5", "seed=-3"])
    assert (opts["cards"], opts["dbf_cap"], opts["seed"], opts["deals"]) == (13, 2.5, -3, 64)


def test_json_only_with_json(monkeypatch, capsys):
    monkeypatch.setattr(bench, "bench_solver", lambda **kw: {"cards": kw["cards"]})
    monkeypatch.setattr(bench, "format_bench", lambda r: "a table")
    main(["bench", "solver", "--set", "cards=3"])
    assert capsys.readouterr().out == "a table\n"
    main(["bench", "solver", "--set", "cards=3", "--json"])
    assert json.loads(capsys.readouterr().out) == {"cards": 3}


def cpu_result(solves: int, p99: float) -> dict:
    return {"threads": 2, "lanes": 16, "cards": 5, "cpu": {
        "solves": solves, "solves_per_s": 1000.0, "nodes_per_s": 1e6,
        "trick_nodes_per_solve": 10.0, "all_cores_solves_per_s": 1800.0, "p50_seconds": 1e-4,
        "p99_seconds": p99, "max_seconds": 2e-3, "first_call_seconds": 1.0}}


def test_p99_is_a_figure_or_says_why_none():
    """A fast solve's p99 is given in its unit, never "0.000 s"; under 100 solves, none."""
    text = bench.format_bench(cpu_result(200, 3.2e-4))
    assert "p99 320 us" in text and "p50 100 us" in text and "0.000" not in text
    text = bench.format_bench(cpu_result(64, 3.2e-4))
    assert "no p99 (64 solves; it takes 100 or more)" in text
