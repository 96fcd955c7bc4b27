"""Named slots of flat arrays, shared by every game's state header and observation.

A field list is `(name, size)` pairs, size None for a scalar; `slots` gives each name its
place (an index for a scalar, a slice for a vector) in the array made of the fields in order.
`Layout` uses it for a game's packed state header: a narrow part (`_h`, int8: phases, players,
cards, small counts) and an optional wide part (`_w`, int32: scores, round counters), read
into a dict of int32 slots by `unpack` and written back by `pack`. The observation specs
(`kanjax.api.ObservationSpec`) use it for their fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import jax
import jax.numpy as jnp

Array = jax.Array
Fields = Iterable[tuple[str, int | None]]


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


class Layout:
    """Named slots of a state's int8 header `_h` (`head` fields) and int32 header `_w`
    (`wide` fields; none: the state has no `_w`)."""

    def __init__(self, head: Fields, wide: Fields = ()) -> None:
        head, wide = list(head), list(wide)
        self.head, self.wide = slots(head), slots(wide)
        self.head_size, self.wide_size = _size(head), _size(wide)

    def unpack(self, s: Any) -> dict[str, Array]:
        """Every slot of state `s` as int32 (scalars: shape (...,); vectors: (..., m))."""
        h = s._h.astype(jnp.int32)
        g = {k: h[..., i] for k, i in self.head.items()}
        if self.wide:
            g.update({k: s._w[..., i] for k, i in self.wide.items()})
        return g

    def pack(self, g: Mapping[str, Array]) -> tuple[Array, Array | None]:
        """(`_h`, `_w`) from a full dict of slots (unbatched; `_w` None without wide slots).
        The int8 header is assembled four slots to a 32-bit word (shifts and ors, one fused
        pass) and bitcast: XLA's concatenate of dozens of scalars is an unfused strided copy
        per scalar on CPU."""
        parts = [jnp.asarray(g[k]).astype(jnp.uint32).reshape(-1) for k in self.head]
        flat = [x[i] for x in parts for i in range(x.shape[0])]
        flat += [jnp.uint32(0)] * (-len(flat) % 4)
        words = []
        for i in range(0, len(flat), 4):
            word = flat[i] & 0xFF
            for j in range(1, 4):
                word = word | ((flat[i + j] & 0xFF) << (8 * j))
            words.append(word)
        h = jax.lax.bitcast_convert_type(jnp.stack(words), jnp.int8).reshape(-1)
        w = jnp.concatenate([jnp.asarray(g[k]).astype(jnp.int32).reshape(-1)
                             for k in self.wide]) if self.wide else None
        return h[: self.head_size], w
