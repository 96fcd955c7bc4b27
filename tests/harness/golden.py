"""Golden playthroughs (OpenSpiel's habit): every step of a few fixed random matches as text.

Each file records, per step, the player to act, the legal actions, the action taken, the
rewards and a digest of every player's observation, plus the game's text view (`env.render`)
at each deal start. A test diffs a fresh playthrough against the file, so any change of
behaviour shows up as a readable diff. Each game declares its cases in its test folder
(`tests/games/<game>/cases.py`, or for a game registered from outside kanjax, `cases.py`
beside its engine module: `GOLDEN = {file name: (flags, seed)}`, and `GOLDEN_DIR` where its
files live if not in tests/harness/golden/). After an intended change, regenerate: `python -m
tests.harness.golden [file name ...]`.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import sys
from pathlib import Path

import jax
import numpy as np

import kanjax
from kanjax.api import legal_actions
from kanjax.bots import uniform_random
from kanjax.records import Match

GOLDEN_DIR = Path(__file__).parent / "golden"


def game_cases(game: str):
    """The test cases of a registered game (its golden cases and the small flags of the
    every-game tests): the module `tests.games.<game>.cases`, else the module `cases` beside
    the game's engine module (the registered "module:factory"), e.g. `tests.toy_game.cases`."""
    engine = kanjax.registry().get(game, "").partition(":")[0]
    tried = [f"tests.games.{game}.cases", f"{engine.rpartition('.')[0]}.cases"]
    for module in tried:
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as err:
            if not module.startswith(err.name or "?"):
                raise  # the cases module itself imports something missing
    raise AssertionError(f"{game}: declare its test cases in tests/games/{game}/cases.py (or "
                         f"a cases.py beside its engine); tried {', '.join(tried)}")


def golden_file(game: str, name: str) -> Path:
    """The file of golden case `name` of `game` (its cases' `GOLDEN_DIR`, else GOLDEN_DIR)."""
    return Path(getattr(game_cases(game), "GOLDEN_DIR", GOLDEN_DIR)) / f"{name}.txt"


def cases(game: str) -> dict[str, tuple[dict, int]]:
    """The golden cases of `game`: file name -> (flags, seed)."""
    return game_cases(game).GOLDEN


def playthrough(game: str, flags: dict, seed: int) -> str:
    m = Match(game, flags, seed, None)
    observe = jax.jit(jax.vmap(m.env.observe, in_axes=(None, 0)))
    policy = jax.jit(uniform_random)
    players = np.arange(m.env.num_players)
    lines = [f"# {game} {flags} seed={seed}", m.env.render(m.state)]
    while not m.done:
        s = m.state
        obs = np.asarray(observe(s, players))
        digest = hashlib.sha1(obs.tobytes()).hexdigest()[:12]
        legal = [m.env.action_name(a, s) for a in legal_actions(s)]
        action = int(policy(m.keys()[0], None, s.legal_action_mask))
        m.step(action)
        rewards = np.asarray(m.state.rewards)
        lines.append(
            f"step {int(s.step_count)}: P{int(s.current_player)} obs {digest} "
            f"legal [{', '.join(legal)}] -> {m.env.action_name(action, s)}"
            + (f"  rewards {rewards.tolist()}" if rewards.any() else "")
        )
        if bool(m.env.deal_done(m.state)) and not m.done:
            lines.append(m.env.render(m.state))
    lines.append(f"final scores {m.returns.tolist()}")
    return "\n".join(lines) + "\n"


def check(game: str, name: str) -> None:
    """The playthrough of golden case `name` of `game` equals its file."""
    flags, seed = cases(game)[name]
    expected = golden_file(game, name).read_text()
    actual = playthrough(game, flags, seed)
    if actual != expected:
        diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden", "now",
                                    lineterm="", n=2)
        raise AssertionError("behaviour changed; if intended, run `python -m "
                             f"tests.harness.golden {name}`:\n" + "\n".join(list(diff)[:60]))


if __name__ == "__main__":
    import tests.conftest  # noqa: F401 (the test run's settings and its games: the toy game)

    wanted = set(sys.argv[1:])
    for game in kanjax.games():
        for name, (flags, seed) in cases(game).items():
            if not wanted or name in wanted:
                path = golden_file(game, name)
                path.parent.mkdir(exist_ok=True)
                path.write_text(playthrough(game, flags, seed))
                print(f"wrote {path}")
