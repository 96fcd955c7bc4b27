"""JAX policies for the `jax` bot tests (`make_policy(env)` factories): a good one without
parameters, one that plays illegal moves, and two that do not trace; and checkpoints of a
tiny network (`examples.policy_net.net`) for any game."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp

import kanjax
from examples.policy_net.net import init_params
from tests.harness.golden import game_cases
from tournaments.policies import save_params

NET = "examples.policy_net.net:make_sampling_policy"  # a greedy random network can loop


def tiny_net(folder: Path, game: str) -> str:
    """The path of a new checkpoint in `folder` of a tiny random network (a hidden layer of
    8) for `game` with its small test flags."""
    env = kanjax.make(game, **game_cases(game).SMALL_FLAGS)
    path = folder / f"{game}.npz"
    save_params(path, init_params(env, jax.random.PRNGKey(1), hidden=(8,)))
    return str(path)


def make_first_legal(env):
    return lambda key, observation, legal_mask: jnp.argmax(legal_mask).astype(jnp.int32)


def make_illegal(env):
    """The first illegal action (where every action is legal, the first)."""
    return lambda key, observation, legal_mask: jnp.argmin(legal_mask).astype(jnp.int32)


def make_untraceable(env):
    def policy(key, observation, legal_mask):
        if observation[0] > 0:  # Python control flow on a traced value
            return jnp.int32(0)
        return jnp.argmax(legal_mask).astype(jnp.int32)

    return policy


def make_float_action(env):
    return lambda key, observation, legal_mask: jnp.argmax(legal_mask).astype(jnp.float32)
