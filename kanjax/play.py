"""`kanjax play GAME --human SEAT ...`: people play a match against the game's bots (or each
other, hot-seat, at one terminal), each decision drawn from `Views.scene` of what that player
may see (`kanjax.terminal`); a person plays the seats `Views.seats_played_with` gives (bridge's
declarer plays the dummy), and a turn with one legal action is played for him and shown.
A deal's end is drawn as the deal ended (`Views.ended_deal`) before the next deal is played.
Chance follows the record's key convention (`records.Match`), so the saved record replays; a
match stopped early (Ctrl-C, end of input, `quit`) is saved as a partial record."""

from __future__ import annotations

import contextlib
import dataclasses
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
from kanjax.api import Env, State, jitted, legal_actions
from kanjax.bots import make_heuristic, make_random
from kanjax.rollout import choose
from kanjax.scene import Scene

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
    """The terminal side of one match: draws scenes, reads answers, prints every move. Each
    person plays one or more seats (`Views.seats_played_with`); seats go by their scene labels
    (N E S W at a bridge table, P0 P1 ... elsewhere)."""

    def __init__(self, env: Env, people: tuple[tuple[int, ...], ...], labels: dict[int, str],
                 stdin: TextIO, console: Console):
        self.env, self.people, self.labels = env, people, labels
        self.stdin, self.console = stdin, console
        self.facing: tuple[int, ...] | None = None  # the person whose hands the terminal shows

    def person(self, player: int) -> tuple[int, ...] | None:
        """The seats of the person who plays `player`'s turns; None: a bot plays them."""
        return next((seats for seats in self.people if player in seats), None)

    def name(self, seats: tuple[int, ...]) -> str:
        return " and ".join(self.labels[q] for q in seats)

    def read(self, prompt: str) -> str:
        self.console.print(Text(prompt, style="bold green"), end="")
        self.console.file.flush()
        line = self.stdin.readline()
        if not line:
            raise Stopped("end of input")
        if line.strip().lower() in QUIT:
            raise Stopped(line.strip())
        return line

    def hand_over(self, seats: tuple[int, ...]) -> None:
        """Hot-seat: before the terminal shows a person's hands, the others look away."""
        if len(self.people) > 1 and self.facing != seats:
            if self.console.is_terminal:
                self.console.clear()
            name = self.name(seats)
            self.read(f"{name}'s turn; the others look away. Press Enter, {name}: ")
        self.facing = seats

    def scene(self, state: State, player: int) -> Scene:
        """What the person playing `player`'s turn sees: `player`'s scene, with the hands of
        his other seats open too."""
        scene = self.env.scene(state, player)
        others = {q: self.env.scene(state, q) for q in self.person(player) if q != player}
        if not others:
            return scene
        seats = tuple(next(o for o in others[s.player].seats if o.player == s.player)
                      if s.player in others else s for s in scene.seats)
        return dataclasses.replace(scene, seats=seats)

    def ask(self, state: State, player: int) -> tuple[int, bool]:
        """The action the person playing `player`'s turn chooses at `state`, asked again until
        it is legal, and whether it was forced: the only legal action is played, not asked."""
        legal = legal_actions(state)
        if len(legal) == 1:
            return int(legal[0]), True
        seats = self.person(player)
        self.hand_over(seats)
        scene = self.scene(state, player)
        self.console.print(terminal.draw(scene))
        while True:
            try:
                name = terminal.answer(self.read(f"{self.labels[player]}> "), scene.legal)
                return self.env.action_from_name(name, state), False
            except ValueError as err:
                self.console.print(Text(f"{err}; type a number from the list, an action or a "
                                        "card (quit: stop and save)", style="red"),
                                   soft_wrap=True)

    def deal_ended(self, state: State) -> None:
        """Draw the deal a step just ended as it ended (`Views.ended_deal`: its last trick
        whole, its result) for the person facing the terminal, before the next deal's table
        replaces it."""
        seats = self.facing or self.people[0]
        self.hand_over(seats)
        self.console.print(terminal.draw(self.scene(state, seats[0])))

    def moved(self, player: int, name: str, forced: bool = False) -> None:
        self.console.print(Text.assemble((self.labels[player], "bold"), f": {name}",
                                         (" (the only legal move)", "dim") if forced else ""))


def people_of(env: Env, state: State, humans: list[int]) -> tuple[tuple[int, ...], ...]:
    """The people at the terminal, each as the seats he plays (`Views.seats_played_with`): one
    for each seat of `humans`, those that play the same seats once."""
    people: list[tuple[int, ...]] = []
    for seat in humans:
        if not 0 <= seat < env.num_players:
            raise ValueError(f"--human {seat}: {env.name} has players 0..{env.num_players - 1}")
        seats = env.seats_played_with(state, seat)
        if seats not in people:
            people.append(seats)
    return tuple(people)


def who_plays(scene: Scene, people: tuple[tuple[int, ...], ...]) -> str:
    """A line saying whom the people at the terminal play, by label and role."""
    seat = {s.player: s for s in scene.seats}
    names = [" and ".join(f"{seat[q].label}" + (f" ({seat[q].role})" if seat[q].role else "")
                          for q in seats) for seats in people]
    return ("you play " if len(names) == 1 else "hot-seat: ") + "; ".join(names)


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
    people = people_of(env, m.state, humans)
    console = console or Console(highlight=False)
    bot = _chooser(env, bots)
    with preparing():  # compile what a turn needs before anyone waits on it
        state = m.state
        first = env.scene(state, None)
        bot(state, m.gkey)
        first_action = np.int32(legal_actions(state)[0])
        jitted(env, "step")(state, first_action, m.keys()[1])
        jitted(env, "ended_deal")(state, first_action)
    table = Table(env, people, {s.player: s.label for s in first.seats}, stdin or sys.stdin,
                  console)
    console.print(who_plays(first, people), soft_wrap=True)
    stopped = None
    try:
        while not m.done:
            player = int(m.state.current_player)
            forced = False
            if table.person(player):
                action, forced = table.ask(m.state, player)
            else:
                time.sleep(delay)
                action = int(bot(m.state, m.gkey)[0])
            table.moved(player, env.action_name(action, m.state), forced)
            before = m.state
            m.step(action)
            if bool(jitted(env, "deal_done")(m.state)) and not m.done:
                ended = jitted(env, "ended_deal")(before, np.int32(action))
                if ended is not None:
                    table.deal_ended(ended)
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
