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

import jax
import pytest


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
