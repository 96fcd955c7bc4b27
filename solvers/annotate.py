"""Double-dummy notes on a game record: at each card play, the value of every legal card.

    from kanjax import records
    from solvers.annotate import annotate
    notes = annotate(records.load("game.json"), from_trick=3)
    notes[12]  # {"values": {"play AS": 9, ...}, "best": 9, "played": "play 7H", "loss": 1,
               #  "unit": "tricks", "solved": True}

Each position is the one `kanjax solve --all-moves` solves for that state
(`convert.from_state`: the hands, the trick so far, what each side has taken). On the cpu
backend the positions are solved a position a thread on every core, each within an optional
node `budget` (a position over it is noted not solved), `progress` told as they come; on the
jax backend (`backend` as `kanjax solve`'s) in calls of `JAX_BATCH` positions, without a
budget. Values are what the mover's side takes in the whole deal, `taken` included, as the
rules value tricks and cards (the deal's `Rules.total` less the other side's value where the
solvers optimise the other side). This module names no game.

Cost (CPU backend, numba compiled; CPU time, one deal): a whole whist deal (52 positions)
about 2 s; a Gonin deal's 50 card plays about 30 s from trick 1 (one deal measured), 0.5 s
from trick 3, 0.05 s from trick 6: a Kan deal's first two tricks hold nearly all of its
search. With a budget of 100,000 nodes a position (`kanjax view --dd`'s default) a whole
Gonin Kan match (845 card plays) takes about 13 s of CPU time, its first two tricks' positions
mostly not solved.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed

from kanjax import records
from kanjax.api import Env, State
from solvers import api, convert
from solvers.position import Position

JAX_BATCH = 64  # positions a call of the jax search (`annotate`'s progress steps)


def _card_plays(record: dict, from_trick: int
                ) -> tuple[Env, list[tuple[int, State, Position]]]:
    """The record's env, and (step, state, position) for each card play of the record from
    trick `from_trick` of its deal on (the state before action `step`)."""
    match = records.start_match(record)
    env, names = match.env, record["actions"]
    try:
        env.trick_rules()
    except NotImplementedError:
        raise ValueError(f"{env.name}: no card play to annotate (not a trick-taking game)"
                         ) from None
    except ValueError:  # rules that are a hand's: read from each state
        pass
    ids, bad = match.action_ids(names)
    if bad is not None:
        raise ValueError(f"step {len(ids)}: {bad}")
    played = match.run(ids)
    out = []
    for step in range(len(names)):
        state = played.state(step)
        try:
            env.trick_position(state)
        except ValueError:  # another phase (bidding, the trump choice, ...)
            continue
        pos, _ = convert.from_state(env, state)
        if pos.rules.cards_a_play > 1:
            raise ValueError(f"{env.name}: plays of several cards, which these notes do not "
                             "annotate yet (they name one card a move); `kanjax solve "
                             f"RECORD --step {step} --all-moves` solves a play's position")
        if pos.tricks_done + 1 >= from_trick:
            out.append((step, state, pos))
    return env, out


def annotate(record: dict, from_trick: int = 1, backend: str = "auto",
             budget: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict[int, dict]:
    """The double-dummy notes of a record's card plays from trick `from_trick` of each deal
    on: {step: {"values": {action name: value}, "best", "played", "loss", "unit",
    "solved"}}, step the index of the action taken (the state before it). `values`: what
    the mover's side takes in the deal after each legal card (in "tricks" or "points",
    `unit`, as `kanjax solve --all-moves` gives them); `best` the most of them; `loss` =
    best - the played card's value (None where the card played is one the solvers do not
    model, e.g. a Yonin joker under a contract in trick 1). `budget`: the most search nodes
    a position may take (shared evenly by its cards' searches; on the cpu backend, which
    "auto" then picks); a position over it is `solved` False, with no values.
    `progress(done, total)` is called as positions are solved. `backend`: "auto", "cpu"
    or "jax" (`api.backend_of`). ValueError for a game without trick play, rules the
    solvers refuse, a bad record, a budget for the jax backend."""
    if from_trick < 1:
        raise ValueError(f"from_trick={from_trick}: want a trick number, 1 or more")
    if budget is not None and budget < 1:
        raise ValueError(f"budget={budget}: want a number of search nodes, 1 or more")
    env, plays = _card_plays(record, from_trick)
    positions = [pos for _, _, pos in plays]
    found = _move_values(positions, backend, budget, progress or (lambda done, total: None))
    out = {}
    for (step, state, pos), moves in zip(plays, found, strict=True):
        played = record["actions"][step]
        unit = "tricks" if pos.rules.plain_tricks else "points"
        if moves is None:
            out[step] = {"values": {}, "best": None, "played": played, "loss": None,
                         "unit": unit, "solved": False}
            continue
        mine = pos.side[pos.to_move]  # else the solver's values are the other side's
        values = {env.action_name(m, state): v if mine else pos.rules.total - v
                  for m, v in moves.items()}
        best = max(values.values())
        out[step] = {"values": values, "best": best, "played": played,
                     "loss": best - values[played] if played in values else None,
                     "unit": unit, "solved": True}
    return out


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
