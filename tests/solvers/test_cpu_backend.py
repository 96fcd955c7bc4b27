"""The CPU backend (`solvers.cpu`, through `api.solve(backend="cpu")`): exact values and every
move's value against the plain-Python reference on random small endings of plain tricks
(four seats and three, random sides, mid-trick roots, root limits), against DDS (endplay) on
whole bridge deals for every strain and leader, and its refusals (the Kan rules:
`test_cpu_kan`).

The first test in a fresh checkout compiles the numba functions (about 40 s on the 2-core
CI machine); numba caches them (`cache=True`), so later runs load them in about a second.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from solvers import api
from solvers import reference as ref
from solvers.cpu import backend as cpu
from solvers.position import Position
from tests.solvers.rules import WHIST
from tests.solvers.test_reference_solver import random_position

THREE = dataclasses.replace(WHIST, game="whist_three_seats", n=3, n_tricks=17, ids=tuple(
    range(51)), suit=WHIST.suit[:51], rank=WHIST.rank[:51], points=WHIST.points[:51],
    tokens=WHIST.tokens[:51], seat_names=())


def _endings(rules, count: int, seed: int, most: int) -> list[Position]:
    rng = random.Random(seed)
    return [random_position(rules, rng, rng.randint(1, most), rng.randrange(rules.n))
            for _ in range(count)]


@pytest.mark.parametrize(("rules", "count", "most"), [(WHIST, 300, 5), (THREE, 100, 5)])
def test_values_and_every_move_equal_the_reference(rules, count, most):
    positions = _endings(rules, count, seed=count + rules.n, most=most)
    sols = api.solve(positions, all_moves=True, backend="cpu", threads=2)
    for pos, sol in zip(positions, sols, strict=True):
        assert sol.value == ref.value(pos), pos
        assert sol.move_ids == ref.move_values(pos), pos
        assert sol.nodes >= sol.trick_nodes >= 0


def test_values_alone_and_root_limits():
    positions = _endings(WHIST, 150, seed=7, most=5)
    rng = random.Random(3)
    limited = []
    for p in positions[:60]:
        moves = ref.legal_moves(p)
        if moves:
            p = dataclasses.replace(p, root_moves=tuple(rng.sample(moves, rng.randint(
                1, len(moves)))))
        limited.append(p)
    got = api.solve(positions + limited, backend="cpu", threads=1)
    assert [s.value for s in got] == [ref.value(p) for p in positions + limited]
    assert all(s.moves is None for s in got)


@pytest.mark.parametrize("threads", [2, 3])
def test_a_lone_value_problem_on_several_threads_equals_the_reference(threads):
    """One value problem with threads to spare runs null-window searches of several targets
    side by side (`backend._value_side_by_side`): the same values, taken and the other
    side's points included, at every kind of root."""
    positions = _endings(WHIST, 40, seed=23, most=6) + _endings(THREE, 20, seed=29, most=5)
    rng = random.Random(5)
    positions = [dataclasses.replace(p, taken=rng.randint(0, 3), taken_other=rng.randint(
        0, 3)) for p in positions]
    for p in positions:
        [sol] = api.solve([p], backend="cpu", threads=threads)
        assert sol.value == ref.value(p) and sol.nodes > 0


def test_a_stopped_or_exhausted_search_gives_up():
    """A search whose limit another thread set to 0 stops at once (-1); a lone value
    problem past its node budget gives up (-1) on several threads too."""
    import numpy as np

    p = next(p for p in _endings(WHIST, 20, seed=31, most=6)
             if cpu._solve_group([(p, None)], 30)[0][0] == -1)  # one past 30 nodes
    v, nodes = cpu._solve_group([(p, None)], 10**9, limit=np.zeros(1, np.int64))
    assert v[0] == -1 and nodes[0, 0] == 0
    v, _ = cpu._value_side_by_side(p, 30, workers=2)
    assert v[0] == -1
    v, _ = cpu._value_side_by_side(p, 10**9, workers=2)
    assert v[0] == ref.value(p)


def test_windows_clip_as_the_jax_search_does():
    positions = _endings(WHIST, 40, seed=11, most=4)
    values = [ref.value(p) for p in positions]
    windows = [(v - 1, v + 1) if i % 3 == 0 else (v + 1, v + 2) if i % 3 == 1 else
               (v - 3, v - 1) for i, v in enumerate(values)]
    got = [s.value for s in api.solve(positions, windows=windows, backend="cpu")]
    for v, (lo, hi), g in zip(values, windows, got, strict=True):
        assert g == v if lo <= v <= hi else (g == hi if v > hi else g <= lo)


@pytest.mark.parametrize("deals", [pytest.param(4, id="4"),
                                   pytest.param(100, id="100", marks=pytest.mark.slow)])
def test_whole_deals_equal_dds_every_strain_and_leader(deals):
    """Whole deals, 5 strains x 4 leaders each: 4 deals in the default run (its time
    budget), 100 under `-m slow`."""
    pytest.importorskip("endplay")
    from solvers.dds import dds_solve_all
    from tests.solvers.test_search_dds import endings

    positions = endings(deals, 13, seed=5)
    got = api.solve(positions, backend="cpu")
    assert [s.value for s in got] == dds_solve_all(positions)


def test_every_move_equals_dds_mid_trick():
    pytest.importorskip("endplay")
    from solvers.dds import dds_move_values
    from tests.solvers.test_search_dds import endings

    rng = random.Random(1)
    positions = endings(3, 9, seed=9)[::3]
    positions = [ref.play(p, rng.choice(ref.legal_moves(p))) for p in positions]
    positions = [dataclasses.replace(p, taken=0, taken_other=0) for p in positions]
    for p, s in zip(positions, api.solve(positions, all_moves=True, backend="cpu"),
                    strict=True):
        assert s.move_ids == dds_move_values(p)


def test_dd_tables_equal_dds():
    pytest.importorskip("endplay")
    from solvers import bench
    from solvers.dds import dds_table

    deals = bench.whist_positions(3, 13, seed=21)
    assert api.dd_tables(deals, backend="cpu") == [dds_table(d) for d in deals]


def test_unsupported_rules_are_refused_by_name():
    """Multi-card plays (`Rules.limits`) stay refused by the single-card search; `api.solve`
    sends them to the multi-card search (`solvers.cpu.multi`, issue 27), which refuses what
    it does not take (here a trick's own value) by name."""
    rules = dataclasses.replace(WHIST, game="whist_pairs", cards_a_play=2)
    pos = random_position(WHIST, random.Random(0), 2)
    with pytest.raises(ValueError, match="cpu backend cannot solve these rules: 2 cards a play"):
        cpu.check(rules)
    with pytest.raises(ValueError, match="cpu multi-card search cannot solve these rules: a "
                                         "trick worth 1"):
        api.solve([dataclasses.replace(pos, rules=rules)], backend="cpu")
    assert not cpu.supports(rules)


def test_auto_picks_cpu_on_a_cpu():
    import jax

    whist = _endings(WHIST, 1, seed=0, most=2)
    on_cpu = jax.default_backend() == "cpu"
    assert api.backend_of(whist) == ("cpu" if on_cpu else "jax")
    assert api.backend_of(whist, "jax") == "jax"
    with pytest.raises(ValueError, match="backend 'gpu': want one of auto, cpu, jax"):
        api.backend_of(whist, "gpu")


def test_bad_thread_count_is_refused():
    with pytest.raises(ValueError, match="threads must be at least 1, not 0"):
        api.solve(_endings(WHIST, 1, seed=0, most=2), backend="cpu", threads=0)


def test_table_rows_are_cache_lines():
    """A class's head slot and an entry are each one 64-byte row (`solvers.cpu.table`)."""
    from solvers.cpu import table

    head, pool, fill = table.new_table(4)
    assert head.shape == (16, 8) and pool.shape == (32, 8) and fill.tolist() == [0, 0]
    assert head.ctypes.data % 64 == 0 and pool.ctypes.data % 64 == 0
    assert (head[:, table.H_META] == -1).all() and (head[:, table.H_FIRST] == -1).all()
