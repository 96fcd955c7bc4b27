"""Compiled programs kept on disk, so that a person's short command (`kanjax play`, `replay`,
`show`, `view`) skips tracing, lowering and compiling a match's scan on later runs: it loads
the executable and runs it (tracing and lowering saved, on top of the compile that jax's
persistent cache would save).

`cached_jit(fn, name)` is `jax.jit(fn)`; where a folder is set (`use_folder`, which the CLI
does next to its compilation cache) and `name` names the program, its first call per input
shapes compiles it and serialises the executable (`jax.experimental.serialize_executable`)
there, and later processes load it back. A file is keyed by the name, the input shapes and
types, the jax and jaxlib versions, the device and a digest of kanjax's own source, so an
edited engine, another jax or another device never loads a stale program; a file that does
not load is compiled again.
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
import jaxlib
import numpy as np
from jax.experimental import serialize_executable
from jax.experimental.compilation_cache import compilation_cache

SUFFIX = ".jaxexe"  # a kept program's file
MAX_BYTES = 256 << 20  # the folder's size, beyond which the least recently used go
_folder: Path | None = None
_watchers: list[Callable[[str], None]] = []  # told the name of each program traced afresh


@contextlib.contextmanager
def on_trace(tell: Callable[[str], None]) -> Iterator[None]:
    """Within the block, `tell(name)` as a program kept in the folder is not found there and
    is compiled afresh (its first run, or the first since kanjax or jax
    changed), before that starts."""
    _watchers.append(tell)
    try:
        yield
    finally:
        _watchers.remove(tell)


def use_folder(folder: Path | str | None) -> None:
    """Keep compiled programs in `folder` (None: never)."""
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
    """`jax.jit(fn)`, its compiled program read from and written to the folder where one
    is set and `name` (stable across processes: the game, its flags, the policy) is given."""
    jitted = jax.jit(fn)
    loaded: dict[str, tuple[Callable, Any]] = {}

    def call(*args):
        if _folder is None or name is None:
            return jitted(*args)
        leaves, in_tree = jax.tree.flatten(args)
        shapes = [(np.shape(x), str(getattr(x, "dtype", None) or np.asarray(x).dtype),
                   getattr(x, "weak_type", None)) for x in leaves]
        device = jax.devices()[0]
        key = hashlib.sha256(repr((name, str(in_tree), shapes, jax.__version__,
                                   jaxlib.__version__, device.platform, device.device_kind,
                                   source_digest())).encode()).hexdigest()[:32]
        if key not in loaded:
            path = _folder / f"{key}{SUFFIX}"
            loaded[key] = _load(path) or _fresh(fn, name, in_tree, leaves, path)
        program, out_tree = loaded[key]
        return jax.tree.unflatten(out_tree, program(*leaves))

    return call


def _load(path: Path) -> tuple[Callable, Any] | None:
    try:
        data, in_tree, out_tree, fn_out_tree = pickle.loads(path.read_bytes())
        os.utime(path)  # recently used: kept the longest
        return serialize_executable.deserialize_and_load(data, in_tree, out_tree), fn_out_tree
    except Exception:  # missing, unreadable or from another jaxlib: compile it again
        return None


def _fresh(fn: Callable, name: str, in_tree, leaves: list, path: Path
           ) -> tuple[Callable, Any]:
    for tell in list(_watchers):
        tell(name)
    out: dict[str, Any] = {}

    def flat(*xs):
        result, out["tree"] = jax.tree.flatten(fn(*jax.tree.unflatten(in_tree, xs)))
        return result

    with _without_persistent_cache():
        compiled = jax.jit(flat).lower(*leaves).compile()
    try:  # written whole or not at all (another process may be writing the same file)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
            f.write(pickle.dumps((*serialize_executable.serialize(compiled), out["tree"])))
        os.replace(f.name, path)
        _prune(path.parent)
    except OSError:  # a read-only cache: the program still runs
        pass
    return compiled, out["tree"]


@contextlib.contextmanager
def _without_persistent_cache() -> Iterator[None]:
    """Compile afresh, neither reading nor writing jax's persistent compilation cache: on the
    CPU an executable that jax read from there serialises without some of its kernels (a
    later run fails, "Function ... not found"), and this folder keeps the program anyway."""
    enabled = jax.config.jax_enable_compilation_cache
    compilation_cache.reset_cache()  # jax decides whether to use its cache once, at first use
    jax.config.update("jax_enable_compilation_cache", False)
    try:
        yield
    finally:
        jax.config.update("jax_enable_compilation_cache", enabled)
        compilation_cache.reset_cache()


def _prune(folder: Path, max_bytes: int = MAX_BYTES) -> None:
    """Remove the least recently used programs until the folder holds at most `max_bytes`
    (and the traced programs that kanjax kept before it kept compiled ones, `*.jaxexp`)."""
    for old in folder.glob("*.jaxexp"):
        old.unlink(missing_ok=True)
    files = sorted(folder.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
    total = 0
    for path in files:
        total += path.stat().st_size
        if total > max_bytes:
            path.unlink(missing_ok=True)
