"""`kanjax solve`: double-dummy values of deals from the command line.

    kanjax solve "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83" \
        --trump NT --leader E --all-moves
    kanjax solve "N:Q7.KQ.8752.96542 ..." --table --dealer E --vul NS   # table and par
    kanjax solve "N:AK.. QJ.. T9.. 87.." --trump S --leader W   # an ending
    kanjax solve boards.pbn --table          # every board of a PBN file (tags, several)
    kanjax solve game.json --step 12 --all-moves   # a record, after its first 12 actions
    kanjax solve "<game> dealer=0 | ... " --all-moves --contracts   # a deal string
    kanjax solve --batch deals.txt           # or boards.pbn, or Parquet with a 'deal' column

Value: what the side the game optimises takes (`TrickPlay.trick_position`), as its rules value
tricks and cards (bridge's card play: the tricks of the side on lead, as DDS's SolveBoard).
Moves are named by card token (`Rules.move_name`); a joker lead naming suit s is `JK:s`. The
choices before trick 1 that the deal leaves open are weighed (`TrickPlay.trick_choices`), and
`--contracts` asks the game's named goals (`TrickPlay.trick_goals`). `--table` gives bridge's
double-dummy table and, for a whole deal, its par score (`solvers.par`). Output: tables for
people, one JSON object with `--json`. This module names no game.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from kanjax.cli import set_flags
from kanjax.core.pbn import is_ending, looks_like_pbn
from solvers import api, boards, convert
from solvers.par import par
from solvers.position import Position


@dataclasses.dataclass(frozen=True)
class _Problem:
    """A deal or a state to solve: each open choice before trick 1 (`TrickPlay.trick_choices`) with
    its position, its players and its state (None for an ending)."""

    env: Any
    options: list[dict]
    found: list[tuple[Position, tuple[int, ...]]]
    states: list


def _seat_name(pos: Position, players: tuple[int, ...], seat: int) -> str | int:
    """A seat as the game names it (`Rules.seat_names`), else its player number."""
    return pos.rules.seat_names[seat] if pos.rules.seat_names else players[seat]


def _leader(leader):
    """`--leader` as given: a player number, or the game's seat name (the env checks it)."""
    return int(leader) if leader is not None and str(leader).isdigit() else leader


def _deal_problem(text: str, game: str | None, trump, leader, flags: dict) -> _Problem:
    """A deal string, PBN deal or PBN ending, with the choices before trick 1 it leaves
    open."""
    leader = _leader(leader)
    env = convert.deal_env(text, game, **flags)
    if looks_like_pbn(text) and is_ending(text):
        found = boards.ending_position(text, game, trump=trump, leader=leader, **flags)
        return _Problem(env, [{"trump": trump, "leader": leader}], [found], [None])
    options = env.trick_choices(text, trump=trump, leader=leader)
    states = [convert.deal_state(text, env.name, **o, **flags)[1] for o in options]
    return _Problem(env, options, [convert.from_state(env, s) for s in states], states)


def _state_problem(env, state) -> _Problem:
    """A state in trick play (a record's, at a step)."""
    return _Problem(env, [{}], [convert.from_state(env, state)], [state])


def _solve_problems(problems: list[_Problem], *, all_moves: bool = False,
                    contracts: bool = False, threads: int | None = None,
                    backend: str = "auto") -> list[dict]:
    """The JSON-ready answer of each problem (one `api.solve` call for all): value, unit,
    side, player to act, trick leader, trump, optionally every move's value, the game's
    contracts, and the open choices weighed."""
    positions = [p for prob in problems for p, _ in prob.found]
    sols = iter(api.solve(positions, all_moves=all_moves, threads=threads, backend=backend))
    out = []
    for prob in problems:
        mine = [next(sols) for _ in prob.found]
        out.append(_answer(prob, mine))
    if contracts:
        _add_contracts(problems, out, threads, backend)
    return out


def _answer(prob: _Problem, sols: list[api.Solution]) -> dict:
    """A problem's answer from its options' solutions: the best option's (`_best`: its
    index, dropped by `_public`), and each option's value where several are open."""
    best = max(range(len(sols)), key=lambda i: sols[i].value)
    (pos, players), sol = prob.found[best], sols[best]
    out = {"game": prob.env.name, "value": sol.value,
           "unit": "tricks" if pos.rules.plain_tricks else "points",
           "side": [_seat_name(pos, players, s) for s in range(pos.rules.n) if pos.side[s]],
           "to_move": _seat_name(pos, players, pos.to_move),
           "leader": _seat_name(pos, players, pos.leader), "trick": pos.tricks_done + 1,
           "trump": pos.rules.trump_name(pos.trump), "nodes": sol.nodes,
           "trick_nodes": sol.trick_nodes}
    if len(prob.options) > 1:
        key = "trump" if prob.options[0].get("trump") is not None else "leader"
        out["choices"] = {str(o[key]): s.value for o, s in zip(prob.options, sols,
                                                               strict=True)}
        out["best_" + key] = prob.options[best][key]
    if sol.moves is not None:
        out["moves"] = sol.moves
    out["_best"] = best
    return out


def _add_contracts(problems: list[_Problem], answers: list[dict], threads, backend) -> None:
    """Each answer's `contracts`: which of the game's named goals (`TrickPlay.trick_goals`) each
    side can force from its best choice."""
    positions, goals = [], []
    for prob, out in zip(problems, answers, strict=True):
        state = prob.states[out["_best"]]
        named = prob.env.trick_goals(state) if state is not None else {}
        if not named:
            raise ValueError(f"--contracts: {prob.env.name} has no contracts to ask"
                             + ("" if state is not None else " (of an ending)"))
        positions.append(prob.found[out["_best"]][0])
        goals.append(named)
    for out, got in zip(answers, api.named_goals(positions, goals, threads=threads,
                                                 backend=backend), strict=True):
        out["contracts"] = got


def solve_deal(text: str, game: str | None = None, *, trump=None, leader=None,
               all_moves: bool = False, contracts: bool = False, threads: int | None = None,
               backend: str = "auto", **flags) -> dict:
    """The JSON-ready answer for one deal string, PBN deal or PBN ending: value, side,
    player to act, optionally every move's value (by name), the game's contracts, and the
    open choices weighed."""
    [out] = _solve_problems([_deal_problem(text, game, trump, leader, flags)],
                            all_moves=all_moves, contracts=contracts, threads=threads,
                            backend=backend)
    return _public(out)


def _public(out: dict) -> dict:
    """An answer without its private keys (`_best`)."""
    return {k: v for k, v in out.items() if not k.startswith("_")}


def _table_position(text: str, game: str | None, flags: dict) -> Position:
    """The position of a deal string, PBN deal or PBN ending at a trick's start, for
    `--table` (plain tricks at four seats: `api.dd_tables` checks)."""
    if looks_like_pbn(text) and is_ending(text):
        return boards.ending_position(text, game, **flags)[0]
    return convert.from_deal(text, game, **flags)[0]


def tables(texts: list[str], game: str | None = None,
           dealers: list[str | None] | None = None, vuls: list[str | None] | None = None, *,
           threads: int | None = None, backend: str = "auto", **flags) -> list[dict]:
    """The double-dummy table of each deal (`api.dd_tables`) and, for a whole deal, its
    par (`solvers.par`; `dealers[i]`, `vuls[i]`: deal i's dealer and vulnerability, where
    None or not given N and None)."""
    positions = []
    for i, text in enumerate(texts):
        try:
            positions.append(_table_position(text, game, flags))
        except ValueError as err:
            raise ValueError(f"deal {i + 1}: {err}" if len(texts) > 1 else str(err)) from err
    out = []
    for i, (pos, table) in enumerate(zip(positions, api.dd_tables(
            positions, threads=threads, backend=backend), strict=True)):
        row = {"game": pos.rules.game, "table": table}
        if not pos.tricks_done:  # par is a whole deal's
            dealer, vul = (dealers or [None] * len(texts))[i] or "N", (
                vuls or [None] * len(texts))[i] or "None"
            try:
                p = par(table, dealer, vul)
            except ValueError as err:
                raise ValueError(f"deal {i + 1}: {err}" if len(texts) > 1 else str(err)
                                 ) from err
            row["par"] = {"dealer": dealer, "vulnerable": vul, "score": p.score,
                          "contracts": [str(c) for c in p.contracts]}
        out.append(row)
    return out


# ---- text output -----------------------------------------------------------------------------
def _print_rows(title: str | None, header: list[str] | None, rows: list[list]) -> None:
    """A table on stdout (rich, plain lines; without a header: a column of names)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(*(header or [""] * len(rows[0])), title=title, box=box.SIMPLE_HEAD,
                  title_justify="left", show_header=header is not None)
    for row in rows:
        table.add_row(*map(str, row))
    Console(soft_wrap=True).print(table)


def _print_answer(out: dict, title: str | None = None) -> None:
    """A solve's answer as tables: the value and its facts, the choices, contracts, moves."""
    side = " ".join(map(str, out["side"]))
    if any(isinstance(s, int) for s in out["side"]):  # a game's players, not seat names
        side = "players " + side
    facts = [["value", f"{out['value']} {out['unit']} for {side}"],
             ["to move", out["to_move"]], ["leader", out["leader"]],
             ["trick", out["trick"]], ["trump", out["trump"]],
             ["nodes", f"{out['nodes']:,} ({out['trick_nodes']:,} at a trick's start)"]]
    for key in ("board", "step"):
        if key in out:
            facts.insert(0, [key, out[key]])
    _print_rows(title or out["game"], None, facts)
    if "choices" in out:
        key = "trump" if "best_trump" in out else "leader"
        best = str(out["best_" + key])
        _print_rows(f"each {key} open before trick 1", [key, out["unit"]], [
            [k + (" (best)" if k == best else ""), v] for k, v in out["choices"].items()])
    if "contracts" in out:
        _print_rows("contracts", ["contract", "can force"],
                    [[k, "yes" if v else "no"] for k, v in out["contracts"].items()])
    if "moves" in out:
        mover = out["to_move"]
        mover = f"player {mover}" if isinstance(mover, int) else mover
        _print_rows(f"each move of {mover}", ["move", f"{out['unit']} for {side}"],
                    [[k, v] for k, v in out["moves"].items()])


def _print_table(row: dict, title: str | None = None) -> None:
    """A double-dummy table (a row a strain, a column a declarer) and the par."""
    table = row["table"]
    seats = list(next(iter(table.values())))
    _print_rows(title or f"{row['game']}: tricks of each declarer", ["strain", *seats],
                [[strain, *(r[s] for s in seats)] for strain, r in table.items()])
    if "par" in row:
        p = row["par"]
        print(f"par {p['score']:+d} for N-S (dealer {p['dealer']}, vulnerable "
              f"{p['vulnerable']}): " + (" ".join(p["contracts"]) or "passed out"))


# ---- the command -----------------------------------------------------------------------------
def _target_kind(target: str) -> str:
    """"record" (a .json file), "pbn" (a .pbn file) or "deal" (a deal string)."""
    low = target.rstrip().lower()
    return "record" if low.endswith(".json") else "pbn" if low.endswith(".pbn") else "deal"


def _solve(args) -> None:
    flags = set_flags(args.set)
    if args.table and (args.all_moves or args.contracts):
        raise ValueError("--table gives a table of values: not with --all-moves or "
                         "--contracts")
    if args.batch:
        if args.deal:
            raise ValueError(f"give a deal ({args.deal!r}) or --batch FILE, not both")
        _solve_batch(args, flags)
        return
    if not args.deal:
        raise ValueError("give a deal string, a PBN deal, a .pbn file or a record .json "
                         "(or --batch FILE)")
    kind = _target_kind(args.deal)
    if args.step is not None and kind != "record":
        raise ValueError(f"--step N is a record's step: {args.deal!r} is not a .json record")
    if (args.dealer or args.vul) and not args.table:
        raise ValueError("--dealer and --vul are for the par score: add --table")
    if kind == "record":
        out = [_solve_record(args, flags)]
    elif kind == "pbn":
        out = _solve_boards(args, flags)
    elif args.table:
        out = tables([args.deal], args.game, [args.dealer], [args.vul],
                     threads=args.threads, backend=args.backend, **flags)
    else:
        out = [solve_deal(args.deal, args.game, trump=args.trump, leader=args.leader,
                          all_moves=args.all_moves, contracts=args.contracts,
                          threads=args.threads, backend=args.backend, **flags)]
    if args.json:
        print(json.dumps({"boards": out} if kind == "pbn" else out[0]))
        return
    for row in out:
        title = f"board {row['board']}" if "board" in row else None
        _print_table(row, title) if args.table else _print_answer(row, title)


def _solve_record(args, flags: dict) -> dict:
    """A record (`kanjax play`, a tournament's game) after its first `--step` actions, or
    at its first card play."""
    from kanjax import records

    if args.table or flags or args.game or args.trump or args.leader is not None:
        raise ValueError("a record gives its game, flags and choices: with it give only "
                         "--step, --all-moves, --contracts, --json, --threads, --backend")
    record = records.load(args.deal)
    if args.step is None:
        step, prob = _first_card_play(record)
    else:
        step = args.step
        env, state = records.state_at(record, step)
        try:
            prob = _state_problem(env, state)
        except ValueError as err:
            raise ValueError(f"{args.deal} at step {step}: {err} (give --step N at a card "
                             "play)") from None
    [out] = _solve_problems([prob], all_moves=args.all_moves, contracts=args.contracts,
                            threads=args.threads, backend=args.backend)
    return {"step": step} | _public(out)


def _first_card_play(record: dict) -> tuple[int, _Problem]:
    """The step of a record's first state in trick play (a position), and its problem."""
    from kanjax import records

    match = records.start_match(record)
    ids, bad = match.action_ids(record["actions"])
    if bad is not None:
        raise ValueError(f"step {len(ids)}: {bad}")
    played = match.run(ids)
    for step in range(len(ids)):
        try:
            return step, _state_problem(match.env, played.state(step))
        except ValueError:  # another phase (bidding, the kitty, a play half picked)
            continue
    raise ValueError(f"{match.env.name}: the record has no card play to solve")


def _solve_boards(args, flags: dict) -> list[dict]:
    """Every board of a .pbn file: solved, or with `--table` its table and par (dealer and
    vulnerability: the board's tags, else `--dealer` / `--vul`)."""
    found = boards.read_boards(args.deal)
    if args.table:
        rows = tables([b.deal for b in found], args.game,
                      [args.dealer or b.dealer for b in found],
                      [args.vul or b.vulnerable for b in found],
                      threads=args.threads, backend=args.backend, **flags)
    else:
        rows = [_public(r) for r in _solve_problems(
            _problems([b.deal for b in found], args, flags), all_moves=args.all_moves,
            contracts=args.contracts, threads=args.threads, backend=args.backend)]
    return [{"board": b.name} | row for b, row in zip(found, rows, strict=True)]


def _problems(deals: list[str], args, flags: dict) -> list[_Problem]:
    out = []
    for i, text in enumerate(deals):
        try:
            out.append(_deal_problem(text, args.game, args.trump, args.leader, flags))
        except ValueError as err:
            raise ValueError(f"deal {i + 1}: {err}" if len(deals) > 1 else str(err)) from err
    return out


# ---- --batch ---------------------------------------------------------------------------------
def _read_batch(path: str) -> tuple[list[str], dict[str, list]]:
    """The deals of a batch file and the columns it adds to each row (a .pbn file's board,
    dealer and vulnerability)."""
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        if "deal" not in table.column_names:
            raise ValueError(f"{path}: want a column 'deal' of deal strings")
        return [str(d) for d in table.column("deal").to_pylist()], {}
    if Path(path).suffix.lower() == ".pbn":
        found = boards.read_boards(path)
        return [b.deal for b in found], {"board": [b.name for b in found],
                                         "dealer": [b.dealer for b in found],
                                         "vulnerable": [b.vulnerable for b in found]}
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")], {}


def _solve_batch(args, flags: dict) -> None:
    deals, extra = _read_batch(args.batch)
    if not deals:
        raise ValueError(f"{args.batch}: no deals")
    if args.table:
        dealers = [args.dealer or d for d in extra.get("dealer", [None] * len(deals))]
        vuls = [args.vul or v for v in extra.get("vulnerable", [None] * len(deals))]
        rows = tables(deals, args.game, dealers, vuls, threads=args.threads,
                      backend=args.backend, **flags)
        cols = {"deal": deals} | {k: v for k, v in extra.items()
                                  if k not in ("dealer", "vulnerable")}
        for strain, row in rows[0]["table"].items():  # a column per strain and declarer
            for seat in row:
                cols[f"{strain}_{seat}"] = [r["table"][strain][seat] for r in rows]
        if any("par" in r for r in rows):
            for key in ("dealer", "vulnerable", "score", "contracts"):
                cols["par_" + key if key in ("score", "contracts") else key] = [
                    (" ".join(r["par"][key]) if key == "contracts" else r["par"][key])
                    if "par" in r else None for r in rows]
        _write(cols, args, "tables")
        return
    if args.dealer or args.vul:
        raise ValueError("--dealer and --vul are for the par score: add --table")
    answers = [_public(a) for a in _solve_problems(
        _problems(deals, args, flags), all_moves=args.all_moves, contracts=args.contracts,
        threads=args.threads, backend=args.backend)]
    cols = {"deal": deals} | extra
    keys = [k for k in ("value", "unit", "side", "to_move", "leader", "trick", "trump",
                        "choices", "best_trump", "best_leader", "contracts", "moves", "nodes",
                        "trick_nodes") if any(k in a for a in answers)]
    for k in keys:
        cols[k] = [_cell(a.get(k), k in COUNTS) for a in answers]
    _write(cols, args, "solved")


COUNTS = ("value", "trick", "nodes", "trick_nodes")  # a batch's integer columns


def _cell(value, count: bool):
    """An answer's value in a Parquet column of one type: a count as it is, a dict as JSON
    text, seats and choices as text (a game's players are numbers, another's letters)."""
    if value is None or count:
        return value
    if isinstance(value, dict):
        return json.dumps(value)
    return [str(x) for x in value] if isinstance(value, list) else str(value)


def _out_path(batch: str, kind: str, out: str | None) -> Path:
    """`--out`, else `<batch without its extension>.<kind>.parquet`, numbered (`-2`, `-3`,
    ...) past the files already there: a run never writes over another's output."""
    if out:
        return Path(out)
    stem = str(Path(batch).with_suffix(""))
    path, k = Path(f"{stem}.{kind}.parquet"), 1
    while path.exists():
        k += 1
        path = Path(f"{stem}.{kind}-{k}.parquet")
    return path


def _write(cols: dict[str, list], args, kind: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = _out_path(args.batch, kind, args.out)
    pq.write_table(pa.table(cols), out)
    print(f"{len(cols['deal'])} deals solved -> {out}")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `solve` command to the `kanjax` parser."""
    p = sub.add_parser("solve", help="double-dummy values of a deal (string, PBN deal or "
                                     "ending, .pbn file, record) or a batch")
    p.add_argument("deal", nargs="?",
                   help="a deal string; a bridge PBN deal (N:<hand> <hand> <hand> <hand>), "
                        "whole or an ending (fewer cards, as many in each hand); a .pbn file "
                        "(every board); or a JSON record (with --step)")
    p.add_argument("--step", type=int, metavar="N",
                   help="with a record: the state after its first N actions, at a card play "
                        "(default: the first card play)")
    p.add_argument("--game", help="the game (default: the deal string's first word; for "
                                  "PBN, the game that reads PBN deals)")
    p.add_argument("--trump", help="the trump, as the game names it (e.g. NT S H D C), where "
                                   "the deal leaves it open (default: every choice, best "
                                   "first)")
    p.add_argument("--leader", help="who leads trick 1 where the deal leaves it open: a seat "
                                    "name (N E S W) or a player number (default: every "
                                    "choice the rules allow, best first)")
    p.add_argument("--all-moves", action="store_true", help="the value of every legal move")
    p.add_argument("--contracts", action="store_true",
                   help="which of the game's contracts each side can force (e.g. Kan's "
                        "sukonku, juuroku and their gyaku forms)")
    p.add_argument("--table", action="store_true",
                   help="plain tricks at four seats (bridge's card play): the double-dummy "
                        "table, tricks for every strain and declarer, and a whole deal's par "
                        "score and contracts (--trump and --leader are ignored)")
    p.add_argument("--dealer", choices=tuple("NESW"),
                   help="with --table: the dealer, for the par (default: a .pbn board's "
                        "Dealer tag, else N)")
    p.add_argument("--vul", choices=("None", "NS", "EW", "All"),
                   help="with --table: the vulnerability, for the par (default: a .pbn "
                        "board's Vulnerable tag, else None)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (a .pbn file: {\"boards\": [...]})")
    p.add_argument("--batch", help="a file of deal strings (one a line), a .pbn file or "
                                   "Parquet with a 'deal' column; writes Parquet, a row a "
                                   "deal")
    p.add_argument("--out", help="--batch output (default: the batch file's name without "
                                 "its extension + .solved.parquet, or .tables.parquet with "
                                 "--table; numbered -2, -3, ... where that file exists)")
    p.add_argument("--threads", type=int, help="searches side by side, each on a share of "
                                               "the problems (default: one per CPU core on a "
                                               "CPU)")
    p.add_argument("--backend", choices=api.BACKENDS, default="auto",
                   help="the search: cpu (compiled scalar search, one deal a thread), jax "
                   "(batched search, for accelerators), auto (cpu on a CPU-only jax where it "
                   "supports the rules; default)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="an env flag (repeatable), e.g. --set players=6")
    p.set_defaults(fn=_solve)
