"""Double-dummy notes on a game record: at each card play, the value of every legal card.

    from kanjax import records
    from solvers.annotate import annotate
    notes = annotate(records.load("game.json"), from_trick=3)
    notes[12]  # {"values": {"play AS": 9, ...}, "best": 9, "played": "play 7H", "loss": 1,
               #  "unit": "tricks"}

Each position is the one `kanjax solve --all-moves` solves for that state
(`convert.from_state`: the hands, the trick so far, what each side has taken), and all the
record's positions are solved in one `solvers.api.solve` call (`backend` as `kanjax solve`'s).
Values are what the mover's side takes in the whole deal, `taken` included, as the rules
value tricks and cards (the deal's `Rules.total` less the other side's value where the
solvers optimise the other side). This module names no game.

Cost (CPU backend, numba compiled; CPU time, one deal): a whole whist deal (52 positions)
about 2 s; a Gonin deal's 50 card plays about 30 s from trick 1 (one deal measured), 0.5 s
from trick 3, 0.05 s from trick 6: a Kan deal's first two tricks hold nearly all of its
search, so a caller that keeps a person waiting should start Kan games at trick 3 or later
(`from_trick`).
"""

from __future__ import annotations

from kanjax import records
from kanjax.api import Env, State
from solvers import api, convert
from solvers.position import Position


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
        if pos.tricks_done + 1 >= from_trick:
            out.append((step, state, pos))
    return env, out


def annotate(record: dict, from_trick: int = 1, backend: str = "auto") -> dict[int, dict]:
    """The double-dummy notes of a record's card plays from trick `from_trick` of each deal
    on: {step: {"values": {action name: value}, "best", "played", "loss", "unit"}}, step the
    index of the action taken (the state before it). `values`: what the mover's side takes
    in the deal after each legal card (in "tricks" or "points", `unit`, as `kanjax solve
    --all-moves` gives them); `best` the most of them; `loss` = best - the played card's
    value (None where the card played is one the solvers do not model, e.g. a Yonin joker
    under a contract in trick 1). `backend`: "auto", "cpu" or "jax" (`api.backend_of`).
    ValueError for a game without trick play, rules the solvers refuse, a bad record."""
    if from_trick < 1:
        raise ValueError(f"from_trick={from_trick}: want a trick number, 1 or more")
    env, plays = _card_plays(record, from_trick)
    sols = api.solve([pos for _, _, pos in plays], all_moves=True, backend=backend)
    out = {}
    for (step, state, pos), sol in zip(plays, sols, strict=True):
        mine = pos.side[pos.to_move]  # else the solver's values are the other side's
        values = {env.action_name(m, state): v if mine else pos.rules.total - v
                  for m, v in sol.move_ids.items()}
        best, played = max(values.values()), record["actions"][step]
        out[step] = {"values": values, "best": best, "played": played,
                     "loss": best - values[played] if played in values else None,
                     "unit": "tricks" if pos.rules.plain_tricks else "points"}
    return out
