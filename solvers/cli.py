"""`kanjax solve`: double-dummy values of deals from the command line.

    kanjax solve "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83" \
        --game whist --trump NT --leader E --all-moves --json
    kanjax solve "N:Q7.KQ.8752.96542 ..." --table      # every strain and declarer
    kanjax solve "gonin_kan dealer=0 | ... " --all-moves --contracts
    kanjax solve --batch deals.txt --out values.parquet

Value: what the side the game optimises takes (`Env.trick_position`), as its rules value
tricks and cards (bridge's card play: the tricks of the side on lead, as DDS's SolveBoard).
Moves are named by card token; a joker lead naming suit s is `JK:s`. The choices before
trick 1 that the deal leaves open are weighed (`Env.trick_choices`), and `--contracts` asks
the game's named goals (`Env.trick_goals`). This module names no game.
"""

from __future__ import annotations

import argparse
import json

from kanjax.cli import set_flags
from solvers import api, convert
from solvers.position import Position


def _seat_name(pos: Position, players: tuple[int, ...], seat: int) -> str | int:
    """A seat as the game names it (`Rules.seat_names`), else its player number."""
    return pos.rules.seat_names[seat] if pos.rules.seat_names else players[seat]


def _leader(leader):
    """`--leader` as given: a player number, or the game's seat name (the env checks it)."""
    return int(leader) if leader is not None and str(leader).isdigit() else leader


def solve_deal(text: str, game: str | None = None, *, trump=None, leader=None,
               all_moves: bool = False, contracts: bool = False, threads: int | None = None,
               backend: str = "auto", **flags) -> dict:
    """The JSON-ready answer for one deal string (or PBN deal): value, side, player to act,
    optionally every move's value, the game's contracts, and the open choices weighed."""
    env = convert.deal_env(text, game, **flags)
    options = env.trick_choices(text, trump=trump, leader=_leader(leader))
    states = [convert.deal_state(text, env.name, **o, **flags) for o in options]
    found = [convert.from_state(e, state) for e, state in states]
    sols = api.solve([p for p, _ in found], all_moves=all_moves, threads=threads,
                     backend=backend)
    best = max(range(len(sols)), key=lambda i: sols[i].value)
    (pos, players), sol = found[best], sols[best]
    out = {"game": env.name, "value": sol.value,
           "side": [_seat_name(pos, players, s) for s in range(pos.rules.n) if pos.side[s]],
           "to_move": _seat_name(pos, players, pos.to_move),
           "trump": pos.rules.trump_name(pos.trump), "nodes": sol.nodes,
           "trick_nodes": sol.trick_nodes}
    if len(options) > 1:
        key = "trump" if options[0].get("trump") is not None else "leader"
        out["choices"] = {str(o[key]): s.value for o, s in zip(options, sols, strict=True)}
        out["best_" + key] = options[best][key]
    if sol.moves is not None:
        out["moves"] = {pos.rules.move_name(m): v for m, v in sol.moves.items()}
    if contracts:
        goals = env.trick_goals(states[best][1])
        if not goals:
            raise ValueError(f"--contracts: {env.name} has no contracts to ask")
        [out["contracts"]] = api.named_goals([pos], [goals], threads=threads,
                                               backend=backend)
    return out


def _table_deal(text: str, game: str | None, **flags) -> Position:
    """The position of a deal string or PBN deal at trick 1, for `--table` (plain tricks at
    four seats: `api.dd_tables` checks)."""
    return convert.from_deal(text, game, **flags)[0]


def _table_rows(table: dict[str, dict[str, int]]) -> list[str]:
    """A double-dummy table as text: a row a strain, a column a declarer."""
    seats = next(iter(table.values()))
    return ["      " + "".join(f"{seat:>4}" for seat in seats)] + [
        f"{strain:>4}  " + "".join(f"{row[seat]:>4}" for seat in seats)
        for strain, row in table.items()]


def _read_batch(path: str) -> list[str]:
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        if "deal" not in table.column_names:
            raise ValueError(f"{path}: want a column 'deal' of deal strings")
        return [str(d) for d in table.column("deal").to_pylist()]
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def _solve_batch(args, flags: dict) -> None:
    deals = _read_batch(args.batch)
    positions = []
    for i, text in enumerate(deals):
        try:
            positions.append(_table_deal(text, args.game, **flags) if args.table else
                             convert.from_deal(text, args.game, trump=args.trump,
                                               leader=_leader(args.leader), **flags)[0])
        except ValueError as err:
            raise ValueError(f"{args.batch}: deal {i + 1}: {err}") from err
    if args.table:  # a column per strain and declarer: NT_N, NT_E, ..., C_W
        tables = api.dd_tables(positions, threads=args.threads, backend=args.backend)
        cols = {"deal": deals} | {f"{strain}_{seat}": [t[strain][seat] for t in tables]
                                  for strain, row in tables[0].items() for seat in row}
        _write(cols, args)
        return
    sols = api.solve(positions, all_moves=args.all_moves, threads=args.threads,
                     backend=args.backend)
    cols = {"deal": deals, "value": [s.value for s in sols], "nodes": [s.nodes for s in sols],
            "trick_nodes": [s.trick_nodes for s in sols]}
    if args.all_moves:
        cols["moves"] = [json.dumps({p.rules.move_name(m): v for m, v in s.moves.items()})
                         for p, s in zip(positions, sols, strict=True)]
    _write(cols, args)


def _write(cols: dict[str, list], args) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = args.out or args.batch.rsplit(".", 1)[0] + ".solved.parquet"
    pq.write_table(pa.table(cols), out)
    print(f"{len(cols['deal'])} deals solved -> {out}")


def _solve(args) -> None:
    flags = set_flags(args.set)
    if args.table and (args.all_moves or args.contracts):
        raise ValueError("--table gives a table of values: not with --all-moves or "
                         "--contracts")
    if args.batch:
        _solve_batch(args, flags)
        return
    if not args.deal:
        raise ValueError("give a deal string (or --batch FILE)")
    if args.table:
        pos = _table_deal(args.deal, args.game, **flags)
        [table] = api.dd_tables([pos], threads=args.threads, backend=args.backend)
        print(json.dumps({"game": pos.rules.game, "table": table}) if args.json
              else "\n".join(_table_rows(table)))
        return
    out = solve_deal(args.deal, args.game, trump=args.trump, leader=args.leader,
                     all_moves=args.all_moves, contracts=args.contracts,
                     threads=args.threads, backend=args.backend, **flags)
    if args.json:
        print(json.dumps(out))
        return
    for k, v in out.items():
        print(f"{k:>12}: {v}")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `solve` command to the `kanjax` parser."""
    p = sub.add_parser("solve", help="double-dummy values of a deal (string, PBN) or a batch")
    p.add_argument("deal", nargs="?", help="a deal string, or a bridge PBN deal")
    p.add_argument("--game", help="the game (default: the deal string's first word; whist "
                                  "for PBN)")
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
                        "table, tricks for every strain and declarer (--trump and --leader "
                        "are ignored)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--batch", help="a file of deal strings (one a line) or Parquet with a "
                                   "'deal' column; writes Parquet")
    p.add_argument("--out", help="--batch output (default: FILE.solved.parquet)")
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
