"""Compiling test kernels at XLA's cheapest optimisation level: integer results are the same
at any level, and the compile takes about a third of the time (the tests' kernels run briefly,
their compiles are most of the default run)."""

from __future__ import annotations

from collections.abc import Callable

import jax

QUICK_COMPILE = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def quick_compile(fn: Callable, *args) -> Callable:
    """`jax.jit(fn)` compiled for the shapes of `args` with `QUICK_COMPILE`."""
    return jax.jit(fn).lower(*args).compile(compiler_options=QUICK_COMPILE)
