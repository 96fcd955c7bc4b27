"""The uniform random legal bot, as a jittable policy."""

from __future__ import annotations

import jax
import jax.numpy as jnp

Array = jax.Array


def uniform_random(key: Array, observation: Array, legal_mask: Array) -> Array:
    """A uniformly random legal action: `(key, observation, legal_mask) -> action`.

    One random integer and `argmax(cumsum(mask) > r % count)`: cheaper under vmap than
    Gumbel or categorical sampling (STYLE.md).
    """
    del observation
    count = jnp.maximum(legal_mask.sum(dtype=jnp.int32), 1)
    r = jax.random.randint(key, (), 0, jnp.iinfo(jnp.int32).max) % count
    return jnp.argmax(jnp.cumsum(legal_mask, dtype=jnp.int32) > r).astype(jnp.int32)
