"""`kanjax tournament run CONFIG` and `kanjax tournament report DIR` (registered with the
`kanjax` command through the `kanjax.commands` entry point, so kanjax never imports this).

`tournament run` exits 0 when the tournament is finished (every planned game stored, or the
A/B test decided), 2 on bad input (config, output folder), and `UNFINISHED` (3) when it
stopped before (Ctrl-C, a chunk that kept failing): the same command resumes it."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import socket
import sys
from pathlib import Path

from kanjax.cli import non_negative_int

UNFINISHED = 3  # the exit status of a run that stopped before its tournament was finished
VIEWS = 200  # `report --html`: the game pages written by default (each replays its game)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `tournament` command to the `kanjax` parser."""
    p = sub.add_parser("tournament", help="bot-vs-bot tournaments (run, report)")
    tsub = p.add_subparsers(dest="tournament_command", required=True)

    r = tsub.add_parser("run", help="play (or resume) the tournament of a TOML config",
                        epilog=f"exit status: 0 finished, 2 bad input, {UNFINISHED} not "
                               "finished (interrupted, or a chunk kept failing): the same "
                               "command resumes")
    r.add_argument("config", help="a TOML config (see configs/)")
    r.add_argument("--output", help="the results folder (default: the config's output)")
    r.add_argument("--address", help="a Ray cluster to join (default: RAY_ADDRESS, or the "
                                     "config's ray_address, or a local Ray)")
    r.add_argument("--local", action="store_true", help="run in this process, without Ray")
    r.add_argument("--actors", type=non_negative_int,
                   help="CPU Ray actors (default: one per CPU that GPU workers leave; 0: GPU "
                        "workers only)")
    r.add_argument("--gpus", type=float, metavar="N",
                   help="GPUs a GPU worker asks for (the config's gpus_per_worker; 0.5: two "
                        "share one); with no GPU, the run plays on CPU workers")
    r.add_argument("--report", action="store_true", help="print the report when done")
    r.set_defaults(fn=_run)

    g = tsub.add_parser("game", help="one stored game as a JSON record (for `kanjax replay`), "
                                     "or with --html as a page to step through")
    g.add_argument("dir")
    g.add_argument("game_id", type=int)
    g.add_argument("--html", action="store_true",
                   help="write the game's HTML view (`kanjax view`) instead of its record")
    g.add_argument("-o", "--out", help="the file written (default: game.json, with --html "
                                       "game.html)")
    g.set_defaults(fn=_game)

    rep = tsub.add_parser("report", help="statistics, ratings and plots of a results folder")
    rep.add_argument("dir")
    rep.add_argument("--json", action="store_true", help="print the JSON summary only")
    rep.add_argument("--html", action="store_true",
                     help="also write the report as one page, DIR/report.html, with a page "
                          "for each game (DIR/views/)")
    rep.add_argument("-o", "--out", help="with --html: the page's file (default "
                                         "DIR/report.html)")
    rep.add_argument("--views", type=int, metavar="N",
                     help=f"with --html: write the pages of the first N games (default "
                          f"{VIEWS})")
    rep.set_defaults(fn=_report)


def _run(args) -> None:
    from tournaments.config import load_config
    from tournaments.runner import run_tournament

    cfg = load_config(args.config)
    address = args.address or os.environ.get("RAY_ADDRESS") or cfg.ray_address
    cfg = dataclasses.replace(cfg, output=args.output or cfg.output, ray_address=address)
    if args.gpus is not None:
        if args.gpus < 0:
            raise ValueError(f"--gpus {args.gpus:g}: must be >= 0")
        cfg = dataclasses.replace(cfg, gpus_per_worker=args.gpus)
    if args.actors == 0 and not cfg.gpus_per_worker:
        raise ValueError("--actors 0: with no GPU workers (gpus_per_worker = 0, --gpus) "
                         "nobody would play: want 1 or more")
    if address and not args.local:
        join_ray_cluster(address)
    result = run_tournament(cfg, local=args.local, actors=args.actors)
    state = ("done" if result.finished else
             f"{'interrupted' if result.interrupted else result.failure or 'unfinished'}; "
             "run the same command to resume")
    print(f"{cfg.output}: {result.games} of {result.planned} games stored "
          f"({result.games - result.stored_before} now in {result.chunks_run} chunks) in "
          f"{result.seconds:.1f} s: {state}")
    if result.stopped_by_sprt:
        print(f"SPRT decided {result.stopped_by_sprt['verdict']}: the run stopped early")
    if not result.finished:
        sys.exit(UNFINISHED)
    if args.report:
        _print_report(cfg.output, as_json=False)


def join_ray_cluster(address: str, timeout: float = 5.0) -> None:
    """Get ready to join the Ray cluster at `address`: ValueError within `timeout` seconds
    when nothing answers there (Ray itself retries for minutes), and token authentication
    (on by default for `ray start` since Ray 2.59) switched on when this machine has a Ray
    token and RAY_AUTH_MODE is unset (Ray never sends it to an explicit address by itself)."""
    host, _, port = address.split("://")[-1].rpartition(":")
    if port.isdigit():
        try:
            socket.create_connection((host, int(port)), timeout=timeout).close()
        except OSError as err:
            raise ValueError(f"no Ray cluster answers at {address} ({err.strerror or err}): "
                             "start one with `ray start --head`, or leave out --address "
                             "(and RAY_ADDRESS) for a local Ray") from None
    token_file = os.environ.get("RAY_AUTH_TOKEN_PATH") or Path.home() / ".ray" / "auth_token"
    if "RAY_AUTH_MODE" not in os.environ and (
            os.environ.get("RAY_AUTH_TOKEN") or Path(token_file).is_file()):
        os.environ["RAY_AUTH_MODE"] = "token"


def _game(args) -> None:
    from kanjax import records
    from tournaments import stored

    [row] = stored.game_rows(args.dir, [args.game_id])
    record = stored.game_record(row, stored.run_seed(args.dir))
    p = row["forfeit"]
    what = (f"game {args.game_id} ({row['game']}, bots {', '.join(row['bots'])}), "
            f"{len(record['actions'])} actions"
            + (f", then player {p} forfeited ({row['forfeit_reason']})" if p >= 0 else ""))
    if args.html:
        from kanjax.view import view_html

        out = args.out or "game.html"
        Path(out).write_text(view_html(record, title=f"{args.dir}: {what}"))
        print(f"{out}: {what}; open it in a browser")
        return
    out = args.out or "game.json"
    records.save(record, out)
    print(f"{out}: {what}; check it with `kanjax replay {out}`")


def _report(args) -> None:
    if not args.html and (args.out or args.views is not None):
        raise ValueError("--out and --views go with --html")
    if args.views is not None and args.views < 0:
        raise ValueError(f"--views {args.views}: want 0 or more")
    result = _print_report(args.dir, args.json)
    if args.html:
        from tournaments.report_html import write_html

        page, views = write_html(args.dir, result, args.out,
                                 VIEWS if args.views is None else args.views)
        print(f"{page}: the report as a page, with {views} of {result['games']} games' pages "
              f"in {os.path.join(args.dir, 'views')}")


def _print_report(folder: str, as_json: bool) -> dict:
    """Compute the report of `folder`, print it (as JSON or a table) and return it."""
    from tournaments.report import format_report, report

    result = report(folder)
    print(json.dumps(result) if as_json else format_report(result))
    return result
