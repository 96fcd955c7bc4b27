"""The Env core and the capabilities (`kanjax.capabilities`): `kanjax games`' table says what
each game implements, no game carries a capability's members without declaring it, and the
layers above test for capabilities by type, never by probing attributes."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

import kanjax
from kanjax.api import Env
from kanjax.capabilities import CAPABILITIES, capabilities, game_table
from kanjax.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORE = {"name", "num_players", "num_actions", "max_steps", "config", "version",
        "stochastic_step", "illegal_action_penalty", "init", "step", "step_batch", "observe",
        "observation_spec", "action_name", "action_from_name", "from_deal", "deal_done",
        "turn_done", "chance_index"}


def members(cls: type) -> set[str]:
    """The public names a class itself declares (methods, attributes, annotated fields)."""
    return {n for n in (*vars(cls), *getattr(cls, "__annotations__", {}))
            if not n.startswith("_")}


def test_the_env_core_is_small():
    public = {n for n in dir(Env) if not n.startswith("_")} | members(Env)
    assert public == CORE


@pytest.mark.parametrize("game", kanjax.games())
def test_a_game_declares_every_capability_it_implements(game):
    env = kanjax.make(game)
    for name, cap in CAPABILITIES.items():
        if isinstance(env, cap):
            continue
        stray = {n for n in members(cap) if hasattr(env, n)}
        assert not stray, f"{game} has {name}'s {sorted(stray)} without declaring {name}"


def test_kanjax_games_prints_each_games_capabilities(capsys):
    main(["games", "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["game"] for r in rows] == kanjax.games()
    for r in rows:
        env = kanjax.make(r["game"])
        assert r["capabilities"] == [n for n, c in CAPABILITIES.items() if isinstance(env, c)]
        assert (r["players"], r["actions"]) == (env.num_players, env.num_actions)
    assert rows == game_table()
    main(["games"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["game", "players", "actions", "views", "tournament", "bots",
                                "bench", "trick", "play", "information", "sets", "pbn"]
    whist = next(line.split() for line in lines if line.startswith("whist"))
    assert whist[3:] == ["yes"] * 5 + ["-", "yes"]
    assert capabilities(kanjax.make("whist"))[-1] == "pbn"
    konkan = next(line.split() for line in lines if line.startswith("konkan"))
    assert konkan[-3:] == ["-", "-", "-"]


def test_the_layers_above_never_probe_an_env_for_members():
    probe = re.compile(r"\b(getattr|hasattr)\((self\.)?env, *[\"']")
    found = [f"{p.relative_to(ROOT)}:{i}" for folder in ("kanjax", "solvers", "tournaments")
             for p in (ROOT / folder).rglob("*.py") if "games" not in p.parts
             for i, line in enumerate(p.read_text().splitlines(), 1) if probe.search(line)]
    assert not found, found


GAME_WORDS = re.compile(r"\b(kankei|mukankei|shippo|konkan|conquian|da_bai_fen|dbf|gonin|yonin|"
                        r"gambari|whist)(?!-)", re.IGNORECASE)  # rule ids (DBF-23) are citations


@pytest.mark.parametrize("folder", ["kanjax", "tournaments"])
def test_the_layers_above_name_no_game(folder):
    """Issue 46 item 2: outside `kanjax/games/`, the code reaches a game only through the
    registry and its capabilities (it cites rule ids, never names a game)."""
    found = [f"{p.relative_to(ROOT)}:{i}" for p in (ROOT / folder).rglob("*.py")
             if "games" not in p.relative_to(ROOT).parts
             for i, line in enumerate(p.read_text().splitlines(), 1) if GAME_WORDS.search(line)]
    assert not found, found


@pytest.mark.parametrize("game", kanjax.games())
def test_no_capability_default_hides_a_games_own_member(game):
    """A capability's default (`Views.ended_deal`, `public_name`, ...) never comes before the
    game's own definition in its Env's method order: capabilities are mixed in last."""
    mro = type(kanjax.make(game)).__mro__
    caps = set(CAPABILITIES.values())
    for cap in caps & set(mro):
        for name in members(cap):
            owners = [c for c in mro if name in vars(c)]  # none: an instance attribute
            own = [c for c in owners if c not in caps]
            assert not owners or owners[0] not in caps or not own, (
                f"{game}: {cap.__name__}.{name} hides {own[0].__qualname__}.{name}")
