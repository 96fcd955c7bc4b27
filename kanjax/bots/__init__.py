"""Policies `(key, observation, legal_mask) -> action`, jittable and vmappable."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import jax.numpy as jnp

from kanjax.api import Array, Env
from kanjax.bots.random import uniform_random
from kanjax.capabilities import Bots

__all__ = ["best_scored", "has_heuristic", "make_heuristic", "make_random", "uniform_random"]

Policy = Callable[[Array, Array, Array], Array]


def best_scored(scores: Callable[[Array], Array]) -> Policy:
    """The deterministic policy playing the legal action of highest `scores(observation)`
    (float[num_actions]); ties go to the lowest action id."""

    def policy(key: Array, observation: Array, legal_mask: Array) -> Array:
        del key
        return jnp.argmax(jnp.where(legal_mask, scores(observation), -jnp.inf)).astype(
            jnp.int32)

    return policy


def has_heuristic(env: Env) -> bool:
    """Whether `env`'s game has a heuristic bot (the `Bots` capability)."""
    return isinstance(env, Bots)


def make_heuristic(env: Env) -> Policy:
    """The heuristic policy of `env`'s game: the factory its `Bots.heuristic` names."""
    if not isinstance(env, Bots):
        raise ValueError(f"{env.name} has no heuristic bot")
    return _factory(env.heuristic)(env)


def make_random(env: Env) -> Policy:
    """The random policy of `env`'s game (a tournament's kind "random"): the factory its
    `Bots.random_bot` names, or `uniform_random` (a uniformly random legal action) where it
    names none. A game gives its own where uniform play never gets anywhere (a rummy
    whose uniformly random turn almost never lays an opening of several melds)."""
    if not isinstance(env, Bots) or env.random_bot is None:
        return uniform_random
    return _factory(env.random_bot)(env)


def _factory(target: str) -> Callable:
    """The callable named by "module:factory"."""
    module, factory = target.split(":")
    return getattr(importlib.import_module(module), factory)
