"""`kanjax solve`: double-dummy values of deals from the command line.

    kanjax solve "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83" \
        --game whist --trump NT --leader E --all-moves --json
    kanjax solve "N:Q7.KQ.8752.96542 ..." --table      # every strain and declarer
    kanjax solve "gonin_kan dealer=0 | ... " --all-moves --contracts
    kanjax solve --batch deals.txt --out values.parquet

Value: whist, the tricks of the side on lead (DDS's SolveBoard); Kan, the point cards the
kankei take. Moves are named by card token; a Kan joker lead naming suit s is `JK:s`.
"""

from __future__ import annotations

import argparse
import json

from kanjax.cli import set_flags
from kanjax.envs.whist import TRUMPS as WHIST_TRUMPS
from kanjax.pbn import SEATS
from solvers import api, convert, kan_questions


def _move_token(pos, move: int) -> str:
    from kanjax import cards

    if pos.rules.game == "whist":
        return cards.deck("whist").token(move)
    if move >= 53:
        return "JK:" + "CDHS"[move - 53]
    return cards.deck("gonin_kan").tokens[move] or f"#{move}"


def solve_deal(text: str, game: str | None = None, *, trump=None, leader=None,
               all_moves: bool = False, contracts: bool = False, threads: int | None = None,
               **flags) -> dict:
    """The JSON-ready answer for one deal string (or PBN deal): value, side, player to act,
    optionally every move's value, the Kan contracts, and the open choices weighed."""
    game = game or convert.deal_game(text)
    if leader is not None and game != "whist":
        if not str(leader).isdigit():
            raise ValueError(f"leader={leader!r}: want a player number for {game}")
        leader = int(leader)
    options = kan_questions.open_choices(text, game, trump=trump, leader=leader, **flags)
    states = [convert.deal_state(text, game, **o, **flags) for o in options]
    found = [convert.from_state(env, state) for env, state in states]
    sols = api.solve([p for p, _ in found], all_moves=all_moves, threads=threads)
    best = max(range(len(sols)), key=lambda i: sols[i].value)
    (pos, players), sol = found[best], sols[best]
    seat = (lambda s: SEATS[s]) if game == "whist" else (lambda s: players[s])
    out = {"game": game, "value": sol.value,
           "side": [seat(s) for s in range(pos.rules.n) if pos.side[s]],
           "to_move": seat(pos.to_move), "trump": states[best][0].strain_name(pos.trump),
           "nodes": sol.nodes,
           "trick_nodes": sol.trick_nodes}
    if len(options) > 1:
        key = "trump" if options[0].get("trump") is not None else "leader"
        out["choices"] = {str(o[key]): s.value for o, s in zip(options, sols, strict=True)}
        out["best_" + key] = options[best][key]
    if sol.moves is not None:
        out["moves"] = {_move_token(pos, m): v for m, v in sol.moves.items()}
    if contracts and game != "whist":
        env, state = states[best]
        [out["contracts"]] = kan_questions.contracts([pos], [kan_questions.kankei_target(
            env, state)])
    return out


def _whist_deal(text: str, game: str | None, **flags):
    """The whist position of a deal string or PBN deal at trick 1 (for `--table`)."""
    if (game or convert.deal_game(text)) != "whist":
        raise ValueError("--table: double-dummy tables are for whist (bridge) deals")
    return convert.from_deal(text, "whist", **flags)[0]


def _table_rows(table: dict[str, dict[str, int]]) -> list[str]:
    """A double-dummy table as text: a row a strain, a column a declarer."""
    return ["      " + "".join(f"{seat:>4}" for seat in SEATS)] + [
        f"{strain:>4}  " + "".join(f"{table[strain][seat]:>4}" for seat in SEATS)
        for strain in WHIST_TRUMPS]


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
            positions.append(_whist_deal(text, args.game, **flags) if args.table else
                             convert.from_deal(text, args.game, trump=args.trump,
                                               leader=args.leader, **flags)[0])
        except ValueError as err:
            raise ValueError(f"{args.batch}: deal {i + 1}: {err}") from err
    if args.table:  # a column per strain and declarer: NT_N, NT_E, ..., C_W
        tables = api.dd_tables(positions, threads=args.threads)
        cols = {"deal": deals} | {f"{strain}_{seat}": [t[strain][seat] for t in tables]
                                  for strain in WHIST_TRUMPS for seat in SEATS}
        _write(cols, args)
        return
    sols = api.solve(positions, all_moves=args.all_moves, threads=args.threads)
    cols = {"deal": deals, "value": [s.value for s in sols], "nodes": [s.nodes for s in sols],
            "trick_nodes": [s.trick_nodes for s in sols]}
    if args.all_moves:
        cols["moves"] = [json.dumps({_move_token(p, m): v for m, v in s.moves.items()})
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
        [table] = api.dd_tables([_whist_deal(args.deal, args.game, **flags)],
                                threads=args.threads)
        print(json.dumps({"game": "whist", "table": table}) if args.json
              else "\n".join(_table_rows(table)))
        return
    out = solve_deal(args.deal, args.game, trump=args.trump, leader=args.leader,
                     all_moves=args.all_moves, contracts=args.contracts,
                     threads=args.threads, **flags)
    if args.json:
        print(json.dumps(out))
        return
    for k, v in out.items():
        print(f"{k:>12}: {v}")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `solve` command to the `kanjax` parser."""
    p = sub.add_parser("solve", help="double-dummy values of a deal (string, PBN) or a batch")
    p.add_argument("deal", nargs="?", help="a deal string, or a bridge PBN deal for whist")
    p.add_argument("--game", help="the game (default: the deal string's first word; whist "
                                  "for PBN)")
    p.add_argument("--trump", help="whist: NT S H D C; Kan deals 2/3: C D H S (default: "
                                   "every suit, best first)")
    p.add_argument("--leader", help="whist: N E S W; Kan: the player who leads trick 1 "
                                    "(Gonin deal 1 default: both kankei weighed)")
    p.add_argument("--all-moves", action="store_true", help="the value of every legal move")
    p.add_argument("--contracts", action="store_true",
                   help="Kan: which of sukonku, juuroku and their gyaku forms can be forced")
    p.add_argument("--table", action="store_true",
                   help="whist: the double-dummy table, tricks for every strain and declarer "
                        "(--trump and --leader are ignored)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--batch", help="a file of deal strings (one a line) or Parquet with a "
                                   "'deal' column; writes Parquet")
    p.add_argument("--out", help="--batch output (default: FILE.solved.parquet)")
    p.add_argument("--threads", type=int, help="searches side by side, each on a share of "
                                               "the problems (default: one per CPU core on a "
                                               "CPU)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="an env flag (repeatable), e.g. --set players=6")
    p.set_defaults(fn=_solve)
