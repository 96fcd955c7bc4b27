"""Named slots of flat arrays, shared by every game's state header and observation.

A field list is `(name, size)` pairs, size None for a scalar; `slots` gives each name its
place (an index for a scalar, a slice for a vector) in the array made of the fields in order.
`Layout` uses it for a game's packed state header: a narrow part (`_h`: int8 by default, or
int16; phases, players, cards, small counts) and an optional wide part (`_w`, int32: scores,
round counters), read into a dict of int32 slots by `unpack` and written back by `pack`. The
observation specs (`kanjax.api.ObservationSpec`) use it for their fields.

`pack` is strict: the dict must hold every slot and nothing else, each of its size (a
ValueError at trace time naming the slots and the layout). A value outside the narrow dtype's
range would wrap silently; inside `checked_packing()` (a trace-time switch: no cost when off)
`pack` emits a `jax.experimental.checkify` check per narrow slot, for tests to run under
`checkify.checkify`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import checkify

Array = jax.Array
Fields = Iterable[tuple[str, int | None]]

_checked = False  # `checked_packing`: read when `pack` is traced


def slots(fields: Fields) -> dict[str, int | slice]:
    """Each field's place in the array of `fields` in order: an index for a scalar (size
    None), a slice for a vector."""
    out, at = {}, 0
    for name, size in fields:
        out[name] = at if size is None else slice(at, at + size)
        at += 1 if size is None else size
    return out


def _size(fields: Fields) -> int:
    return sum(1 if size is None else size for _, size in fields)


@contextlib.contextmanager
def checked_packing() -> Iterator[None]:
    """Within it, every `Layout.pack` traced checks that its narrow slots fit the header's
    dtype (`checkify.check`: run the traced function under `checkify.checkify`). Functions
    traced (and cached) outside it carry no checks."""
    global _checked
    before, _checked = _checked, True
    try:
        yield
    finally:
        _checked = before


class Layout:
    """Named slots of a state's narrow header `_h` (`head` fields, dtype `head_dtype`: int8
    or int16) and int32 header `_w` (`wide` fields; none: the state has no `_w`), `_w` of
    shape `wide_shape` (default: flat). `name` names the layout in errors."""

    def __init__(self, head: Fields, wide: Fields = (), *, head_dtype: Any = jnp.int8,
                 wide_shape: tuple[int, ...] | None = None, name: str = "header") -> None:
        head, wide = list(head), list(wide)
        self.name = name
        self.head, self.wide = slots(head), slots(wide)
        self.head_size, self.wide_size = _size(head), _size(wide)
        self.sizes = {k: 0 if n is None else n for k, n in head + wide}  # 0: a scalar
        self.head_dtype = jnp.dtype(head_dtype)
        if self.head_dtype not in (jnp.dtype(jnp.int8), jnp.dtype(jnp.int16)):
            raise ValueError(f"{name} layout: head dtype {self.head_dtype}: int8 or int16")
        self.wide_shape = (self.wide_size,) if wide_shape is None else tuple(wide_shape)
        if int(np.prod(self.wide_shape)) != self.wide_size:
            raise ValueError(f"{name} layout: wide shape {self.wide_shape} does not hold "
                             f"{self.wide_size} slots")

    def __repr__(self) -> str:
        return f"Layout({self.name!r}, head={list(self.head)}, wide={list(self.wide)})"

    def _wide_flat(self, w: Array) -> Array:
        """`_w` (batched or not) with its `wide_shape` axes flattened."""
        if len(self.wide_shape) == 1:
            return w
        return w.reshape(*w.shape[: w.ndim - len(self.wide_shape)], self.wide_size)

    def unpack(self, s: Any) -> dict[str, Array]:
        """Every slot of state `s` as int32 (scalars: shape (...,); vectors: (..., m))."""
        h = s._h.astype(jnp.int32)
        g = {k: h[..., i] for k, i in self.head.items()}
        if self.wide:
            w = self._wide_flat(s._w)
            g.update({k: w[..., i] for k, i in self.wide.items()})
        return g

    def get(self, s: Any, name: str) -> Array:
        """One slot of state `s` (batched or not) as int32."""
        if name in self.head:
            return s._h[..., self.head[name]].astype(jnp.int32)
        return self._wide_flat(s._w)[..., self.wide[name]]

    def check_keys(self, g: Mapping[str, Any]) -> None:
        """A ValueError unless `g` holds every slot, each of its size, and nothing else."""
        unknown = sorted(set(g) - set(self.sizes))
        missing = sorted(set(self.sizes) - set(g))
        if unknown or missing:
            raise ValueError(f"{self!r}: pack got unknown slot(s) {unknown}, lacks slot(s) "
                             f"{missing}")
        wrong = [f"{k} {jnp.shape(g[k])}" for k, n in self.sizes.items()
                 if jnp.shape(g[k]) != ((n,) if n else ())]
        if wrong:
            raise ValueError(f"{self!r}: pack got slot(s) of the wrong shape: "
                             f"{', '.join(wrong)}")

    def pack(self, g: Mapping[str, Array]) -> tuple[Array, Array | None]:
        """(`_h`, `_w`) from the dict of every slot (unbatched; `_w` None without wide slots;
        `check_keys`). The narrow header is assembled 32 / bits slots to a 32-bit word
        (shifts and ors, one fused pass) and bitcast: XLA's concatenate of dozens of scalars
        is an unfused strided copy per scalar on CPU."""
        self.check_keys(g)
        info = jnp.iinfo(self.head_dtype)
        if _checked:
            for k in self.head:
                v = jnp.asarray(g[k])
                checkify.check(jnp.all((v >= info.min) & (v <= info.max)),
                               f"{self.name} layout: slot {k} = {{v}} outside "
                               f"{self.head_dtype} {info.min}..{info.max}", v=v)
        bits = info.bits
        per, mask = 32 // bits, (1 << bits) - 1
        parts = [jnp.asarray(g[k]).astype(jnp.uint32).reshape(-1) for k in self.head]
        flat = [x[i] for x in parts for i in range(x.shape[0])]
        flat += [jnp.uint32(0)] * (-len(flat) % per)
        words = []
        for i in range(0, len(flat), per):
            word = flat[i] & mask
            for j in range(1, per):
                word = word | ((flat[i + j] & mask) << (bits * j))
            words.append(word)
        h = jax.lax.bitcast_convert_type(jnp.stack(words), self.head_dtype).reshape(-1)
        w = jnp.concatenate([jnp.asarray(g[k]).astype(jnp.int32).reshape(-1)
                             for k in self.wide]).reshape(self.wide_shape) if self.wide else None
        return h[: self.head_size], w
