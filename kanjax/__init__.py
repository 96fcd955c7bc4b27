"""kanjax: batched JAX engines for the Kan family, Da Bai Fen, Konkan, Conquian and whist."""

from __future__ import annotations

import importlib

from kanjax.api import Env, State

__all__ = ["Env", "State", "games", "make"]

# game name -> "module:factory"; the factory takes the game name and its variant flags.
_REGISTRY = {
    "gonin_kan": "kanjax.envs.kan:make_kan",
    "yonin_kan": "kanjax.envs.kan:make_kan",
    "gambari_kan": "kanjax.envs.kan:make_kan",
    "whist": "kanjax.envs.whist:make_whist",
}


def games() -> list[str]:
    """Names accepted by `make`."""
    return sorted(_REGISTRY)


def make(name: str, **flags) -> Env:
    """The environment of game `name` with its variant flags (rules-file defaults otherwise)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(games())}")
    module, factory = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), factory)(name, **flags)
