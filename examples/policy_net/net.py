"""A small policy network for any kanjax game: an MLP from the observation's features (by
default `features`: each element of few values one-hot, the others scaled; a game may give
its own, compacter ones, e.g. `gonin.features`) to one logit an action, the illegal ones
masked out. Plain JAX: the parameters are a nested dict of
arrays (`tournaments.policies.save_params` stores them), and the layer sizes come from them.

As a tournament bot (`kind = "jax"`, `target = "examples.policy_net.net:make_policy"`,
`params = "....npz"`) it plays the legal action of highest logit; `make_sampling_policy`
draws it from their softmax.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import kanjax

Array = jax.Array
Params = dict[str, dict[str, Array]]  # layer index ("0", "1", ...) -> {"w", "b"}
ONE_HOT_MAX = 16  # an element with at most this many values is one-hot encoded


class Sparse(NamedTuple):
    """Features of 0s and 1s then a few other values, by the indices of their ones: the
    features are `zeros(n)` with 1 at each of `hot` (-1: none, and no index twice) and
    `dense` as the last `len(dense)`."""

    hot: Array  # int32[k]
    dense: Array  # float32[d]


Features = Callable[[Array], Array | Sparse]  # observation -> float32 features


def features(env: kanjax.Env) -> Features:
    """Observation -> float32 features, from the bounds of `env.observation_spec()`: an
    element of at most `ONE_HOT_MAX` values (a card's place, a phase, a seat) one-hot, the
    others (scores) scaled to [0, 1]."""
    low, high = env.observation_spec().bounds()
    values = high - low + 1
    few, many = np.flatnonzero(values <= ONE_HOT_MAX), np.flatnonzero(values > ONE_HOT_MAX)
    element = np.repeat(few, values[few])  # the element of each one-hot slot
    code = np.concatenate([low[i] + np.arange(values[i]) for i in few])  # its value there
    scale = 1.0 / (high[many] - low[many])

    def feats(observation: Array) -> Array:
        x = observation.astype(jnp.int32)
        return jnp.concatenate([(x[element] == code).astype(jnp.float32),
                                (x[many] - low[many]).astype(jnp.float32) * scale])

    return feats


def init_params(env: kanjax.Env, key: Array, hidden: Sequence[int] = (128, 128),
                feats: Features | None = None) -> Params:
    """He-initialised layers from the size of `feats` (default: `features(env)`) through
    `hidden` to one logit an action."""
    spec = env.observation_spec()
    n_in = jax.eval_shape(feats or features(env),
                          jax.ShapeDtypeStruct(spec.shape, spec.dtype)).shape[0]
    sizes = [n_in, *hidden, env.num_actions]
    keys = jax.random.split(key, len(sizes) - 1)
    return {str(i): {"w": jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m),
                     "b": jnp.zeros(n)}
            for i, (k, m, n) in enumerate(zip(keys, sizes[:-1], sizes[1:], strict=True))}


def logits(params: Params, x: Array | Sparse) -> Array:
    """The MLP (ReLU between layers) on features `x` (any leading axes; `Sparse`: one
    observation's): on `Sparse` ones the first layer adds up the weight rows of the ones."""
    layers = [params[str(i)] for i in range(len(params))]
    if isinstance(x, Sparse):
        w = jnp.asarray(layers[0]["w"])
        on = (x.hot >= 0).astype(w.dtype)
        x = jax.nn.relu(on @ w[jnp.maximum(x.hot, 0)] + x.dense @ w[-x.dense.shape[-1]:]
                        + layers[0]["b"])
        layers = layers[1:]
    for layer in layers[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def masked_logits(env: kanjax.Env, feats: Features | None = None
                  ) -> Callable[[Params, Array, Array], Array]:
    """`(params, observation, legal_mask) -> logits`, -inf where the action is illegal, on
    the features `feats` (default: `features(env)`; a game's own, e.g. `gonin.features`)."""
    feats = feats or features(env)
    return lambda params, observation, legal_mask: jnp.where(
        legal_mask, logits(params, feats(observation)), -jnp.inf)


def make_policy(env: kanjax.Env, feats: Features | None = None
                ) -> Callable[[Params, Array, Array, Array], Array]:
    """The greedy policy `(params, key, observation, legal_mask) -> action`."""
    scores = masked_logits(env, feats)

    def policy(params: Params, key: Array, observation: Array, legal_mask: Array) -> Array:
        del key
        return jnp.argmax(scores(params, observation, legal_mask)).astype(jnp.int32)

    return policy


def make_sampling_policy(env: kanjax.Env, feats: Features | None = None
                         ) -> Callable[[Params, Array, Array, Array], Array]:
    """The policy drawing its action from the softmax of the legal logits (self-play)."""
    scores = masked_logits(env, feats)

    def policy(params: Params, key: Array, observation: Array, legal_mask: Array) -> Array:
        return jax.random.categorical(key, scores(params, observation, legal_mask)).astype(
            jnp.int32)

    return policy
