"""kanjax: batched JAX engines for traditional card games (the games: `kanjax.games()`).

`kanjax.games`, the attribute, is that function; the package of the engines, `kanjax/games/`,
is reached by its full module names (`from kanjax.games.kan import engine`, `from
kanjax.games import GAMES`, the built-in games).

The registry (docs/adding_a_game.md): a game name -> "module:factory", the factory taking the
name and the variant flags. `registry()` reads, in this order,
- the built-in games (`kanjax.games.GAMES`);
- the entry points of group `kanjax.games` of the installed distributions (a package of
  one's own games declares them in its pyproject.toml; every process sees them);
- the environment variable `KANJAX_GAMES`, `name=module:factory` entries separated by commas
  (games not installed: a script's, a test folder's; the processes a run starts inherit it);
  `register(name, target)` adds one there.
A name given twice with two targets is an error, never a silent override.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os

from kanjax.api import Env, State
from kanjax.games import GAMES

__all__ = ["Env", "State", "deal_env", "deal_game", "games", "make", "register", "registry"]

ENTRY_POINTS = "kanjax.games"  # the entry-point group of installed games
GAMES_VAR = "KANJAX_GAMES"  # the environment variable of games not installed


def games() -> list[str]:
    """Names accepted by `make`."""
    return sorted(registry())


def registry() -> dict[str, str]:
    """Every registered game: name -> "module:factory" (the built-in games, the installed
    distributions' `kanjax.games` entry points, then `KANJAX_GAMES`). ValueError for a
    malformed entry or a name registered with two targets."""
    found = dict(GAMES)
    sources = [("an entry point", _entry_points()), (GAMES_VAR, _variable_games())]
    for source, entries in sources:
        for name, target in entries:
            if found.get(name, target) != target:
                raise ValueError(f"game {name!r} ({source}: {target}) is registered already "
                                 f"as {found[name]}")
            found[name] = target
    return found


def register(name: str, target: str) -> None:
    """Register game `name`, made by `target` ("module:factory", the factory called as
    `factory(name, **flags)`), for this process and the processes it starts from now on (a
    local Ray's workers, `kanjax` subprocesses): it is added to `KANJAX_GAMES`. The module is
    imported only when the game is made. Registering a name again with the same target does
    nothing; with another, or a built-in name, raises ValueError. An installed package
    declares its games as entry points instead (docs/adding_a_game.md)."""
    _check_entry(name, target, "register")
    known = registry()
    if name in known:
        if known[name] != target:
            raise ValueError(f"game {name!r} is registered already as {known[name]}")
        return
    entries = [f"{n}={t}" for n, t in _variable_games()] + [f"{name}={target}"]
    os.environ[GAMES_VAR] = ",".join(entries)


def _check_entry(name: str, target: str, source: str) -> None:
    module, colon, factory = target.partition(":")
    if not (name.isidentifier() and colon and module and factory.isidentifier()):
        raise ValueError(f"{source}: bad game entry {name}={target!r}: want a name (letters, "
                         "digits, _) and a target \"module:factory\"")


@functools.cache
def _entry_points() -> tuple[tuple[str, str], ...]:
    """(name, target) of the installed distributions' `kanjax.games` entry points."""
    points = importlib.metadata.entry_points(group=ENTRY_POINTS)
    for p in points:
        _check_entry(p.name, p.value, f"entry point of group {ENTRY_POINTS}")
    return tuple((p.name, p.value) for p in points)


def _variable_games() -> list[tuple[str, str]]:
    """(name, target) of the entries of `KANJAX_GAMES` (`name=module:factory,...`)."""
    entries = []
    for entry in os.environ.get(GAMES_VAR, "").split(","):
        if not entry.strip():
            continue
        name, eq, target = (x.strip() for x in entry.partition("="))
        if not eq:
            raise ValueError(f"{GAMES_VAR}: bad entry {entry.strip()!r}: want "
                             "name=module:factory")
        _check_entry(name, target, GAMES_VAR)
        entries.append((name, target))
    return entries


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
    known = registry()
    if name not in known:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(sorted(known))}")
    module, factory = known[name].split(":")
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
