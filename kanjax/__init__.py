"""kanjax: batched JAX engines for traditional card games (the games: `kanjax.games()`).

`kanjax.games`, the attribute, is that function; the package of the engines, `kanjax/games/`,
is reached by its full module names (`from kanjax.games.kan import engine`, `from
kanjax.games import GAMES`, the registry)."""

from __future__ import annotations

import functools
import importlib

from kanjax.api import Env, State
from kanjax.games import GAMES

__all__ = ["Env", "State", "deal_env", "deal_game", "games", "make"]


def games() -> list[str]:
    """Names accepted by `make`."""
    return sorted(GAMES)


def make(name: str, **flags) -> Env:
    """The environment of game `name` with its variant flags (rules-file defaults otherwise).
    Envs are immutable values: one instance per game and flags, so that its `jitted`
    functions compile once per process."""
    try:  # the key holds each value's type: True == 1, but only one of them is a valid flag
        return _make(name, tuple(sorted((k, type(v), v) for k, v in flags.items())))
    except TypeError:  # an unhashable flag value: the factory names what is wrong
        return _new(name, flags)


@functools.cache
def _make(name: str, flags: tuple) -> Env:
    return _new(name, {k: v for k, _, v in flags})


def _new(name: str, flags: dict) -> Env:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(games())}")
    module, factory = GAMES[name].split(":")
    return getattr(importlib.import_module(module), factory)(name, **flags)


def deal_game(text: str) -> str:
    """The game of a deal string (its first word), or of a bridge PBN deal (`kanjax.core.pbn`):
    the registered game whose `from_deal` reads PBN."""
    from kanjax.core.cards import deal_header
    from kanjax.core.pbn import looks_like_pbn

    if not looks_like_pbn(text):
        return deal_header(text).game
    return _pbn_game()


@functools.cache
def _pbn_game() -> str:
    from kanjax.capabilities import PbnDeals

    readers = [g for g in games() if isinstance(make(g), PbnDeals)]
    if not readers:
        raise ValueError("a PBN deal, but no registered game reads PBN deals")
    return readers[0]


def deal_env(text: str, game: str | None = None, **flags) -> Env:
    """The env of a deal string: game `game` (default: `deal_game(text)`) with `flags`, plus
    the variant flags the string's header implies (`Views.deal_flags`) where `flags` does not
    set them."""
    from kanjax.core.cards import deal_header
    from kanjax.core.pbn import looks_like_pbn

    game = game or deal_game(text)
    if not looks_like_pbn(text):
        flags = make(game).deal_flags(deal_header(text)) | flags
    return make(game, **flags)
