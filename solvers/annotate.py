"""Double-dummy notes on a game record: at each card play, the value of every legal card.

    from kanjax import records
    from solvers.annotate import annotate
    notes = annotate(records.load("game.json"), from_trick=3)
    notes[12]  # {"values": {"play AS": 9, ...}, "best": 9, "played": "play 7H", "loss": 1,
               #  "unit": "tricks", "solved": True, "minimise": False}

Each position is the one `kanjax solve --all-moves` solves for that state
(`convert.from_state`: the hands, the trick so far, what each side has taken). On the cpu
backend the positions are solved a position a thread on every core, each within an optional
node `budget` (a position over it is noted not solved), `progress` told as they come; on the
jax backend (`backend` as `kanjax solve`'s) in calls of `JAX_BATCH` positions, without a
budget. Values are what the mover's side takes in the whole deal, `taken` included, as the
rules value tricks and cards (the deal's `Rules.total` less the other side's value where the
solvers optimise the other side). This module names no game.

Plays of several cards (`Rules.cards_a_play` > 1: Da Bai Fen's, a turn of staged picks closed
by a finishing action, `Env.turn_done`) are noted at the turn's first action, each legal play
by its cards' name (`Rules.move_name`, "3S 8D"), `played` the cards the turn took, solved by
the cpu multi-card search (`solvers.cpu.multi`, `budget` nodes a position in all). Their
values are the side's the game values (as `kanjax solve --all-moves` gives them): where the
mover is of the other side he wants them low (`minimise`), as the game's own value has no
complement to state his side's by (an invalid multi-lead's penalty, DBF-24, gives one side
a total that the other's does not mirror).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np

from kanjax import records
from kanjax.api import Env, State
from kanjax.capabilities import TrickPlay
from kanjax.records import Played
from solvers import api, convert
from solvers.position import Position, play_mask

JAX_BATCH = 64  # positions a call of the jax search (`annotate`'s progress steps)


def _card_plays(record: dict, from_trick: int
                ) -> tuple[Env, list[tuple[int, State, Position, str]]]:
    """The record's env, and (step, state, position, play made) for each card play of the
    record from trick `from_trick` of its deal on (the state before action `step`; a play of
    several cards starts at the turn's first action, the play its cards' name)."""
    match = records.start_match(record)
    env, names = match.env, record["actions"]
    if not isinstance(env, TrickPlay):
        raise ValueError(f"{env.name}: no card play to annotate (not a trick-taking game)")
    ids, bad = match.action_ids(names)
    if bad is not None:
        raise ValueError(f"step {len(ids)}: {bad}")
    played = match.run(ids)
    out = []
    for step in range(len(names)):
        state = played.state(step)
        try:
            env.trick_position(state)
        except ValueError:  # another phase (bidding, the trump choice, a play half picked)
            continue
        pos, _ = convert.from_state(env, state)
        if pos.tricks_done + 1 >= from_trick:
            play = names[step] if pos.rules.cards_a_play == 1 else _turn_play(
                pos, _turn(env, played, names, step))
            out.append((step, state, pos, play))
    return env, out


def _turn(env: Env, played: Played, names: list[str], step: int) -> list[str]:
    """The names of the actions of the turn that starts at `step` (to its finishing action,
    `Env.turn_done`, or the record's end)."""
    end = step + 1
    while end < len(names) and not env.turn_done(played.state(end)):
        end += 1
    return names[step: end]


def _turn_play(pos: Position, actions: list[str]) -> str:
    """The play a turn's actions made, named as `Rules.move_name` names it: the cards of the
    mover's hand whose tokens the actions name (a pick names its card, DESIGN's notation)."""
    words = [w for name in actions for w in name.split()]
    cards = []
    for c in pos.hands[pos.to_move]:
        token = pos.rules.move_name(play_mask([c]))
        if token in words:
            words.remove(token)
            cards.append(c)
    return pos.rules.move_name(play_mask(cards))


def annotate(record: dict, from_trick: int = 1, backend: str = "auto",
             budget: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict[int, dict]:
    """The double-dummy notes of a record's card plays from trick `from_trick` of each deal
    on: {step: {"values": {action name: value}, "best", "played", "loss", "unit",
    "solved", "minimise"}}, step the index of the action taken (the state before it; a
    play of several cards: its turn's first action). `values`: what the mover's side takes
    in the deal after each legal card (in "tricks" or "points", `unit`, as `kanjax solve
    --all-moves` gives them), or play (by its cards' name; where `minimise`, what the other
    side takes: the module's docstring); `best` the most of them (the least where
    `minimise`); `loss` = how much the played card's value falls short of `best` (None
    where the card played is one the solvers do not model, e.g. a low joker under a
    contract in trick 1). `budget`: the most search nodes a position may take (shared
    evenly by its cards' searches; on the cpu backend, which "auto" then picks); a
    position over it is `solved` False, with no values.
    `progress(done, total)` is called as positions are solved. `backend`: "auto", "cpu"
    or "jax" (`api.backend_of`). ValueError for a game without trick play, rules the
    solvers refuse, a bad record, a budget for the jax backend."""
    if from_trick < 1:
        raise ValueError(f"from_trick={from_trick}: want a trick number, 1 or more")
    if budget is not None and budget < 1:
        raise ValueError(f"budget={budget}: want a number of search nodes, 1 or more")
    env, plays = _card_plays(record, from_trick)
    positions = [pos for _, _, pos, _ in plays]
    found = _move_values(positions, backend, budget, progress or (lambda done, total: None))
    return {step: _note(env, state, pos, play, moves)
            for (step, state, pos, play), moves in zip(plays, found, strict=True)}


def _note(env: Env, state: State, pos: Position, played: str,
          moves: dict[int, int] | None) -> dict:
    """The note of one card play (`annotate`'s), from the solver's values of its moves (None:
    not solved)."""
    unit = "tricks" if pos.rules.plain_tricks else "points"
    mine = bool(pos.side[pos.to_move])  # else the solver's values are the other side's
    several = pos.rules.cards_a_play > 1
    note = {"values": {}, "best": None, "played": played, "loss": None, "unit": unit,
            "solved": moves is not None, "minimise": several and not mine}
    if moves is None:
        return note
    if several:  # the side's values as the solver gives them (the module's docstring)
        values = {pos.rules.move_name(m): v for m, v in moves.items()}
    else:
        values = {env.action_name(m, state): v if mine else pos.rules.total - v
                  for m, v in moves.items()}
    best = (min if note["minimise"] else max)(values.values())
    loss = abs(best - values[played]) if played in values else None
    return note | {"values": values, "best": best, "loss": loss}


def _move_values(positions: list[Position], backend: str, budget: int | None,
                 progress: Callable[[int, int], None]) -> list[dict[int, int] | None]:
    """Every legal move's value at each position (None: a search past `budget`), and
    `progress(done, len(positions))` as they come: the cpu backend a position a thread on
    every core (the first alone: the compiled search loads, or compiles on its first run),
    the jax one `JAX_BATCH` positions a call."""
    total = len(positions)
    progress(0, total)
    if not positions:
        return []
    if budget is not None and backend == "auto":
        backend = "cpu"  # the search a budget limits
    if api.backend_of(positions, backend) == "jax":
        if budget is not None:
            raise ValueError("a search budget needs the cpu backend (the jax search has none)")
        out: list[dict[int, int] | None] = []
        for at in range(0, total, JAX_BATCH):
            part = positions[at: at + JAX_BATCH]
            out += [sol.move_ids for sol in api.solve(part, all_moves=True, backend="jax")]
            progress(len(out), total)
        return out
    from solvers.cpu import backend as cpu

    def solve(pos: Position) -> dict[int, int] | None:
        if pos.rules.cards_a_play > 1:
            return _multi_values(pos, budget)
        share = None if budget is None else max(1, budget // len(set(
            cpu.move_classes(pos).values())))
        [(_, moves, _, _)] = cpu.solve([pos], all_moves=True, threads=1, budget=share)
        return None if min(moves.values()) < 0 else moves

    found = [solve(positions[0])] + [None] * (total - 1)  # alone: the search loads here
    progress(1, total)
    with ThreadPoolExecutor(cpu.default_threads()) as pool:
        jobs = {pool.submit(solve, pos): k for k, pos in enumerate(positions[1:], 1)}
        for done, job in enumerate(as_completed(jobs), 2):
            found[jobs[job]] = job.result()
            progress(done, total)
    return found


def _multi_values(pos: Position, budget: int | None) -> dict[int, int] | None:
    """Every legal play's value (by play mask) at a position of plays of several cards, by
    the cpu multi-card search within `budget` nodes in all (None: over it; its table no
    larger than the budget: a node stores at most one entry)."""
    from solvers.cpu import multi

    if budget is None:
        solver = multi.Solver(pos)
    else:
        solver = multi.Solver(pos, min(multi.MAX_ENTRIES, budget),
                              np.array([budget], np.int64))
    try:
        return solver.move_values()
    except multi.GivenUp:
        return None
