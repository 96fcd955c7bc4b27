"""A small policy network for any kanjax game: an MLP from the observation's features to one
logit an action, the illegal ones masked out. Plain JAX: the parameters are a nested dict of
arrays (`tournaments.policies.save_params` stores them), and the layer sizes come from them.

As a tournament bot (`kind = "jax"`, `target = "examples.policy_net.net:make_policy"`,
`params = "....npz"`) it plays the legal action of highest logit; `make_sampling_policy`
draws it from their softmax.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

import kanjax

Array = jax.Array
Params = dict[str, dict[str, Array]]  # layer index ("0", "1", ...) -> {"w", "b"}


def features(env: kanjax.Env) -> Callable[[Array], Array]:
    """Observation -> float32 features: every element scaled from its field's bounds
    (`env.observation_spec()`) to [0, 1]."""
    low, high = env.observation_spec().bounds()
    low, span = jnp.asarray(low, jnp.float32), jnp.asarray((high - low).clip(1), jnp.float32)
    return lambda observation: (observation.astype(jnp.float32) - low) / span


def init_params(env: kanjax.Env, key: Array, hidden: Sequence[int] = (128, 128)) -> Params:
    """He-initialised layers from the observation's size through `hidden` to one logit an
    action."""
    sizes = [env.observation_shape[0], *hidden, env.num_actions]
    keys = jax.random.split(key, len(sizes) - 1)
    return {str(i): {"w": jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m),
                     "b": jnp.zeros(n)}
            for i, (k, m, n) in enumerate(zip(keys, sizes[:-1], sizes[1:], strict=True))}


def logits(params: Params, x: Array) -> Array:
    """The MLP (ReLU between layers) on features `x` (any leading axes)."""
    layers = [params[str(i)] for i in range(len(params))]
    for layer in layers[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def masked_logits(env: kanjax.Env) -> Callable[[Params, Array, Array], Array]:
    """`(params, observation, legal_mask) -> logits`, -inf where the action is illegal."""
    feats = features(env)
    return lambda params, observation, legal_mask: jnp.where(
        legal_mask, logits(params, feats(observation)), -jnp.inf)


def make_policy(env: kanjax.Env) -> Callable[[Params, Array, Array, Array], Array]:
    """The greedy policy `(params, key, observation, legal_mask) -> action`."""
    scores = masked_logits(env)

    def policy(params: Params, key: Array, observation: Array, legal_mask: Array) -> Array:
        del key
        return jnp.argmax(scores(params, observation, legal_mask)).astype(jnp.int32)

    return policy


def make_sampling_policy(env: kanjax.Env) -> Callable[[Params, Array, Array, Array], Array]:
    """The policy drawing its action from the softmax of the legal logits (self-play)."""
    scores = masked_logits(env)

    def policy(params: Params, key: Array, observation: Array, legal_mask: Array) -> Array:
        return jax.random.categorical(key, scores(params, observation, legal_mask)).astype(
            jnp.int32)

    return policy
