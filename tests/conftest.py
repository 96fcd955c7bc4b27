"""Test-run settings: one persistent XLA compilation cache for the whole run, and the
solver's searches one thread a process (the test workers already fill the cores; tests that
are about threads ask for them).

Many test files (and the Ray workers and CLI subprocesses they start) compile the same
engines; with the cache each is compiled once a run, not once a process. It lives in
pytest's cache folder (`.pytest_cache/d/jax`, at most 256 MiB, least recently used out
first): a re-run starts warm, and `pytest --cache-clear` empties it.
"""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import Path

import jax
import pytest

import kanjax
from tests.view.browser import browser  # noqa: F401 (the fixture: headless Chromium)

# The test-only example game (docs/adding_a_game.md, tests/toy_game/), registered as the guide
# registers a game that is not installed: for this run and the processes it starts (CLI
# subprocesses, a local Ray's workers), before the every-game tests list `kanjax.games()`.
kanjax.register("toy_trick", "tests.toy_game.engine:make_toy")

# XLA's cheapest optimisation level and its older CPU fusion code generator: the same integer
# results, compiles about half as long (the default run is mostly compiles of kernels that then
# run briefly; the fusion emitters alone took the DBF differential step from 9 to 4 CPU-s).
# Set before jax starts its backend; subprocesses and Ray workers inherit it.
QUICK_XLA = ("--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"
             " --xla_cpu_use_fusion_emitters=false")
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {QUICK_XLA}".strip()


# The fast tier (`pytest -m fast`, under 3 minutes on 2 cores): conformance, the rules'
# scenarios and references, the CLI's bad input and records, and a few differential matches
# of every game (tests/test_fast_differential.py, in this tier only).
FAST = ("tests/test_conformance.py", "tests/test_cli_errors.py", "tests/test_records_cli.py",
        "tests/core/test_*.py", "tests/test_rules_docs.py", "tests/test_module_docs.py",
        "tests/games/conquian/test_meld.py",
        "tests/test_fast_differential.py", "tests/games/*/test_reference.py",
        "tests/games/*/test_engine_scenarios.py", "tests/games/gonin_kan/test_engine.py",
        "tests/games/yonin_kan/test_engine.py", "tests/games/gambari_kan/test_engine.py",
        "tests/games/whist/test_engine.py")


# The longest files of the default run (a cold run's --durations), run first: `--dist
# loadfile` gives each worker whole files in collection order, and a long file collected last
# kept one worker busy minutes after the other had finished.
LONGEST = ("tests/games/konkan/test_differential.py", "tests/games/da_bai_fen/test_differential.py",
           "tests/test_accelerator_check.py", "tests/tournaments/test_every_game_tournament.py",
           "tests/test_every_game.py", "tests/solvers/test_pimc.py", "tests/test_rollout.py",
           "tests/test_play_terminal.py", "tests/test_step_batch.py",
           "tests/solvers/test_cpu_dbf.py", "tests/games/conquian/test_differential.py",
           "tests/test_cli_errors.py", "tests/tournaments/test_chunk_stream.py",
           "tests/view/test_browser.py", "tests/view/test_svg.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(str(config.rootpath))
    rank = {path: i for i, path in enumerate(LONGEST)}
    items.sort(key=lambda item: rank.get(
        Path(str(item.fspath)).relative_to(root).as_posix(), len(LONGEST)))  # stable
    for item in items:
        if item.get_closest_marker("slow"):
            continue
        path = Path(str(item.fspath)).relative_to(root).as_posix()
        if item.get_closest_marker("fast_only") or any(fnmatch(path, p) for p in FAST):
            item.add_marker(pytest.mark.fast)


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("KANJAX_SOLVER_THREADS", "1")
    if getattr(config, "cache", None) is None:  # the cache plugin is off
        return
    settings = {"jax_compilation_cache_dir": str(config.cache.mkdir("jax")),
                "jax_persistent_cache_min_compile_time_secs": 0.5,
                "jax_compilation_cache_max_size": 256 << 20}
    for name, value in settings.items():
        os.environ[name.upper()] = str(value)  # subprocesses and Ray workers
        jax.config.update(name, value)
