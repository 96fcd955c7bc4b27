"""`kanjax play GAME --human SEAT ...`: people play a match against the game's bots (or each
other, hot-seat, at one terminal), each decision drawn from `Env.scene` of what that player
may see (`kanjax.terminal`). Chance follows the record's key convention (`records.Match`), so
the saved record replays; a match stopped early (Ctrl-C, end of input, `quit`) is saved as a
partial record."""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TextIO

import jax
import jax.numpy as jnp
import numpy as np
from rich.console import Console
from rich.text import Text

from kanjax import records, terminal
from kanjax.api import Env, State
from kanjax.bots import make_heuristic, make_random
from kanjax.rollout import choose

BOTS = {"heuristic": make_heuristic, "random": make_random}
QUIT = ("quit", "exit")


@functools.cache
def _chooser(env: Env, bots: str) -> Callable[[State, jax.Array], tuple[jax.Array, jax.Array]]:
    """The bots' jitted `(state, game key) -> (action, step key)` (the rollout's keys)."""
    policy = BOTS[bots](env)
    seating = jnp.zeros(env.num_players, jnp.int32)
    return jax.jit(lambda state, gkey: choose(env, (policy,), state, gkey, seating))


class Stopped(Exception):
    """The person stopped the match (`quit`, end of input)."""


class Table:
    """The terminal side of one match: draws scenes, reads answers, prints the bots' moves."""

    def __init__(self, env: Env, humans: tuple[int, ...], stdin: TextIO, console: Console):
        self.env, self.humans, self.stdin, self.console = env, humans, stdin, console
        self.facing: int | None = None  # the human whose hand the terminal shows

    def read(self, prompt: str) -> str:
        self.console.print(Text(prompt, style="bold green"), end="")
        self.console.file.flush()
        line = self.stdin.readline()
        if not line:
            raise Stopped("end of input")
        if line.strip().lower() in QUIT:
            raise Stopped(line.strip())
        return line

    def hand_over(self, player: int) -> None:
        """Hot-seat: before the terminal shows `player`'s hand, the others look away."""
        if len(self.humans) > 1 and self.facing != player:
            if self.console.is_terminal:
                self.console.clear()
            self.read(f"P{player}'s turn; the others look away. Press Enter, P{player}: ")
        self.facing = player

    def ask(self, state: State, player: int) -> int:
        """The action `player` chooses at `state`: asked again until it is legal."""
        self.hand_over(player)
        scene = self.env.scene(state, player)
        self.console.print(terminal.draw(scene))
        while True:
            try:
                name = terminal.answer(self.read(f"P{player}> "), scene.legal)
                return self.env.action_from_name(name, state)
            except ValueError as err:
                self.console.print(Text(f"{err}; type a number from the list, an action or a "
                                        "card (quit: stop and save)", style="red"),
                                   soft_wrap=True)

    def moved(self, player: int, name: str) -> None:
        self.console.print(Text.assemble((f"P{player}", "bold"), f": {name}"))


def play(game: str, flags: dict[str, Any], seed: int, humans: list[int], out: str,
         bots: str = "heuristic", delay: float = 0.5, start: str | None = None,
         stdin: TextIO | None = None, console: Console | None = None,
         preparing: Callable[[], AbstractContextManager] = contextlib.nullcontext) -> dict:
    """Play one match with people in the seats `humans` and the bots `bots` in the others,
    save its record to `out` (partial when stopped early) and return it. `preparing` wraps
    the first compiles (the CLI's notice)."""
    if bots not in BOTS:
        raise ValueError(f"--bots {bots!r}: want one of {', '.join(BOTS)}")
    if delay < 0:
        raise ValueError(f"--delay {delay}: want seconds >= 0")
    m = records.Match(game, flags, seed, start)
    env = m.env
    for seat in humans:
        if not 0 <= seat < env.num_players:
            raise ValueError(f"--human {seat}: {game} has players 0..{env.num_players - 1}")
    console = console or Console(highlight=False)
    table = Table(env, tuple(sorted(set(humans))), stdin or sys.stdin, console)
    bot = _chooser(env, bots)
    with preparing():  # compile what a turn needs before anyone waits on it
        state = m.state
        env.scene(state, None)
        bot(state, m.gkey)
        env.jitted("step")(state, np.int32(env.legal_actions(state)[0]), m.keys()[1])
    stopped = None
    try:
        while not m.done:
            player = int(m.state.current_player)
            if player in table.humans:
                action = table.ask(m.state, player)
            else:
                time.sleep(delay)
                action = int(bot(m.state, m.gkey)[0])
            table.moved(player, env.action_name(action, m.state))
            m.step(action)
    except (Stopped, KeyboardInterrupt) as err:
        stopped = str(err) or type(err).__name__
    record = m.record()
    records.save(record, out)
    if stopped is None:
        console.print(terminal.draw(env.scene(m.state)))
        console.print(f"{out}: {len(record['actions'])} actions, scores {record['scores']}",
                      soft_wrap=True)
    else:
        console.print(f"\nstopped ({stopped}): {out} holds the {len(record['actions'])} "
                      f"actions so far (a partial record: `kanjax replay` checks them), "
                      f"scores so far {record['scores']}", soft_wrap=True)
    return record
