"""Traced programs kept on disk, so that a person's short command (`kanjax play`, `replay`,
`show`) skips tracing and lowering a whole match's scan on later runs (about as long as
XLA's compile, which the persistent compilation cache already skips).

`cached_jit(fn, name)` is `jax.jit(fn)`; where a folder is set (`use_folder`, which the CLI
does next to its compilation cache) and `name` names the program, its first call per input
shapes serialises the traced program (`jax.export`) there, and later processes read it back.
A file is keyed by the name, the input shapes and types, the jax version and a digest of
kanjax's own source, so an edited engine or another jax never reads a stale program.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jax
import numpy as np
from jax import export

_folder: Path | None = None
_watchers: list[Callable[[str], None]] = []  # told the name of each program traced afresh


@contextlib.contextmanager
def on_trace(tell: Callable[[str], None]) -> Iterator[None]:
    """Within the block, `tell(name)` as a program kept in the folder is not found there and
    is traced, exported and compiled afresh (its first run, or the first since kanjax or jax
    changed), before that starts."""
    _watchers.append(tell)
    try:
        yield
    finally:
        _watchers.remove(tell)


def use_folder(folder: Path | str | None) -> None:
    """Keep exported programs in `folder` (None: never)."""
    global _folder
    _folder = None if folder is None else Path(folder)


@functools.cache
def source_digest() -> str:
    """A digest of kanjax's Python source (the engines, bots and rollouts)."""
    h = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cached_jit(fn: Callable, name: str | None) -> Callable:
    """`jax.jit(fn)`, its traced program read from and written to the export folder where one
    is set and `name` (stable across processes: the game, its flags, the policy) is given."""
    jitted = jax.jit(fn)
    loaded: dict[str, tuple[Callable, Any]] = {}

    def call(*args):
        if _folder is None or name is None:
            return jitted(*args)
        leaves, in_tree = jax.tree.flatten(args)
        shapes = [(np.shape(x), str(getattr(x, "dtype", None) or np.asarray(x).dtype))
                  for x in leaves]
        key = hashlib.sha256(repr((name, str(in_tree), shapes, jax.__version__,
                                   source_digest())).encode()).hexdigest()[:32]
        if key not in loaded:
            loaded[key] = _load(_folder / f"{key}.jaxexp") or _fresh(
                fn, name, in_tree, leaves, _folder / f"{key}.jaxexp")
        program, out_tree = loaded[key]
        return jax.tree.unflatten(out_tree, program(*leaves))

    return call


def _load(path: Path) -> tuple[Callable, Any] | None:
    try:
        data, out_tree = pickle.loads(path.read_bytes())
        return jax.jit(export.deserialize(bytearray(data)).call), out_tree
    except Exception:  # missing, unreadable or from another jaxlib: trace it again
        return None


def _fresh(fn: Callable, name: str, in_tree, leaves: list, path: Path
           ) -> tuple[Callable, Any]:
    for tell in list(_watchers):
        tell(name)
    return _export(fn, in_tree, leaves, path)


def _export(fn: Callable, in_tree, leaves: list, path: Path) -> tuple[Callable, Any]:
    out: dict[str, Any] = {}

    def flat(*xs):
        result, out["tree"] = jax.tree.flatten(fn(*jax.tree.unflatten(in_tree, xs)))
        return result

    exp = export.export(jax.jit(flat))(*leaves)
    try:  # written whole or not at all (another process may be writing the same file)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
            f.write(pickle.dumps((exp.serialize(), out["tree"])))
        os.replace(f.name, path)
    except OSError:  # a read-only cache: the program still runs
        pass
    return jax.jit(exp.call), out["tree"]
