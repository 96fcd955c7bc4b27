"""`kanjax bench solver` (`solvers.bench`) on a small workload: its fields, its table, and the
JAX search's and the cpu backend's values equal to DDS's (single-thread and every-core runs
alike)."""

import pytest

pytest.importorskip("endplay")

from solvers import bench  # noqa: E402
from solvers.convert import from_pbn  # noqa: E402
from tests.solvers.test_solve_cli import SUITS  # noqa: E402


def test_bench_solver_reports_both_solvers():
    r = bench.bench_solver(deals=32, cards=3, lanes=16, gonin_deals=0, gonin_cards=2, seed=0,
                           threads=2)
    assert r["agree"] and r["threads"] == 2 and r["whist"]["positions"] == 32
    for k in ("solves_per_s", "all_cores_solves_per_s", "trick_nodes_per_solve"):
        assert r["dds"][k] > 0
    assert r["ratio"] == r["whist"]["solves_per_s"] / r["dds"]["solves_per_s"]
    assert r["cpu"]["agree"] and r["cpu"]["p99_seconds"] > 0 and r["cpu"]["ratio"] > 0
    table = bench.format_bench(r)
    assert "cpu backend, 2 threads" in table and "cpu / DDS:" in table
    assert "JAX, 2 x 16 lanes" in table and "DDS (endplay), every core" in table
    assert "against DDS on one thread" in table
    # a double-dummy table (each seat a whole suit: quick to solve), as `tables=1` times one
    r["tables"] = bench.tables_timed([from_pbn(SUITS, "NT", "N")], lanes=16, threads=1,
                                     baseline=True)
    assert r["tables"]["agree"] and r["tables"]["deals"] == 1 and r["tables"]["ratio"] > 0
    table = bench.format_bench(r)
    assert "| whist double-dummy tables (1 whole deals) | DDS (endplay), CalcDDtable |" in table
    assert "Double-dummy tables (20 solves each), JAX / DDS:" in table
    r["cpu_tables"] = bench.tables_timed([from_pbn(SUITS, "NT", "N")], lanes=16, threads=2,
                                         baseline=True, backend="cpu")
    assert r["cpu_tables"]["agree"] and r["cpu_tables"]["ratio"] > 0
    table = bench.format_bench(r)
    assert "| whist double-dummy tables (1 whole deals) | cpu backend, 2 threads |" in table
    assert "Double-dummy tables (20 solves each), cpu backend / DDS:" in table


def test_bench_solver_rejects_unknown_options():
    class Args:
        set = ["lanez=4"]
        no_baseline = json = True
    with pytest.raises(ValueError, match="unknown bench solver option 'lanez'"):
        bench.main(Args)


def test_bench_solver_cpu_gonin_and_pimc_rows():
    """The cpu backend's Gonin Kan row (`cpu_gonin_deals`, at `cpu_gonin_cards` cards a hand)
    and PIMC's first-trick decisions (`pimc_decisions`, `pimc_budget`), without the JAX
    search (`jax=0`) or DDS."""
    r = bench.bench_solver(deals=0, cards=3, lanes=16, gonin_deals=0, gonin_cards=2, seed=0,
                           threads=2, baseline=False, jax=0, cpu_gonin_deals=3,
                           cpu_gonin_cards=3, pimc_decisions=2, pimc_budget=300)
    assert "whist" not in r and "gonin_kan" not in r and "dds" not in r
    g, p = r["cpu_gonin"], r["pimc"]
    assert g["deals"] == 3 and g["deals_per_s"] > 0 and g["nodes_per_deal"] > 0
    assert g["p50_seconds"] <= g["p99_seconds"] <= g["max_seconds"]
    assert (p["decisions"], p["budget"], p["max_cards"]) == (2, 300, 10)
    assert p["decisions_per_s"] > 0
    table = bench.format_bench(r)
    assert "| gonin_kan deal 1 (3 cards a hand) | cpu backend, 2 threads |" in table
    assert "Gonin Kan deals (3 cards a hand)" in table and "300 nodes a problem" in table
