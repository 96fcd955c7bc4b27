"""The `kanjax` command: simulate, bench, play, replay, show, view."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path


def _flag_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"want a positive integer, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"want 0 or a positive integer, got {text!r}")
    return value


def positive_ints(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated positive integers (`--batches 1,64`)."""
    try:
        return tuple(positive_int(part) for part in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"want comma-separated positive integers (e.g. 1,64,1024), got {text!r}") from None


def set_flags(pairs: list[str]) -> dict:
    """`--set key=value` pairs -> variant flags."""
    flags = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ValueError(f"bad --set {pair!r}: want key=value (e.g. --set players=6)")
        flags[key] = _flag_value(value)
    return flags


def _cmd_simulate(args) -> None:
    from kanjax.bench import format_simulate, simulate

    result = simulate(args.game, args.games, args.batch, args.seed, **set_flags(args.set))
    print(json.dumps(result) if args.json else format_simulate(result))


def _cmd_bench(args) -> None:
    from importlib.metadata import entry_points

    from kanjax.bench import bench_games, format_bench_games

    # Benches of other packages (`kanjax bench tournament`), found through entry points.
    for ep in entry_points(group="kanjax.benches", name=args.game):
        return ep.load()(args)

    if args.cpus and hasattr(os, "sched_setaffinity"):  # before XLA sizes its thread pool
        cpus = sorted(os.sched_getaffinity(0))
        if args.cpus > len(cpus):
            raise ValueError(f"--cpus {args.cpus}: this process may run on {len(cpus)} CPUs "
                             "(0: all of them)")
        os.sched_setaffinity(0, cpus[: args.cpus])
    games = [args.game, *args.more_games]
    if args.compare:
        return _bench_compare(args, games)
    result = bench_games(games, args.batches or DEFAULT_BATCHES, args.seconds,
                         not args.no_baseline, args.rollout, **set_flags(args.set))
    print(json.dumps(result) if args.json else format_bench_games(result))


def _cmd_games(args) -> None:
    from kanjax.capabilities import CAPABILITIES, game_table

    rows = game_table()
    if args.json:
        print("\n".join(json.dumps(r) for r in rows))
        return
    heads = ["game", "players", "actions", *CAPABILITIES]
    cells = [[r["game"], str(r["players"]), str(r["actions"]),
              *("yes" if c in r["capabilities"] else "-" for c in CAPABILITIES)] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(heads, *cells, strict=True)]
    for line in [heads, *cells]:
        print("  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)).rstrip())


def _bench_compare(args, games: list[str]) -> None:
    """`kanjax bench GAME... --compare REF`: exit 1 where a game is slower than the base."""
    from kanjax.bench_compare import compare, format_compare

    if args.batches and len(args.batches) != 1:
        raise ValueError(f"--compare: give one batch size (--batches {args.batches[-1]})")
    if not 0 < args.threshold <= 1:
        raise ValueError(f"--threshold {args.threshold}: want a ratio in (0, 1]")
    set_flags(args.set)  # checked here, passed on as given
    result = compare(args.compare, games, (args.batches or (1024,))[0], args.seconds,
                     args.rounds, args.threshold, args.set)
    print(json.dumps(result) if args.json else format_compare(result))
    if not result["ok"]:
        sys.exit(1)


def _bench_help(argv: list[str]) -> str | None:
    """The help of `kanjax bench NAME --help` where NAME is a bench of another package (an
    entry point of `kanjax.benches`): its function's docstring (None: the game bench's)."""
    import inspect
    from importlib.metadata import entry_points

    if argv[:1] != ["bench"] or len(argv) < 3 or not {"-h", "--help"} & set(argv[2:]):
        return None
    for ep in entry_points(group="kanjax.benches", name=argv[1]):
        return inspect.getdoc(ep.load())
    return None


def _cmd_play(args) -> None:
    from kanjax import records

    if args.human:
        from kanjax.play import play

        play(args.game, set_flags(args.set), args.seed, args.human, args.out,
             args.bots or "heuristic", 0.5 if args.delay is None else args.delay, args.deal,
             preparing=preparing_notice)
        return
    if args.bots or args.delay is not None:
        raise ValueError("--bots and --delay are for a match with --human seats")
    record = records.play_record(args.game, set_flags(args.set), args.seed, start=args.deal)
    records.save(record, args.out)
    print(f"{args.out}: {len(record['actions'])} actions, scores {record['scores']}")


def _cmd_replay(args) -> None:
    from kanjax import records

    record = records.load(args.file)
    try:
        result = records.replay(record)
    except ValueError as err:  # not a record: bad input, not a disagreement
        raise ValueError(f"{args.file}: {err}") from None
    if result.ok:
        print(f"{args.file}: OK, {result.steps} steps replayed, every step agrees"
              + (f"; {result.forfeit}" if result.forfeit else ""))
    else:
        print(f"{args.file}: DISAGREES after {result.steps} steps: {result.error}")
        sys.exit(1)


def _cmd_show(args) -> None:
    import jax

    import kanjax
    from kanjax import records

    target = args.target
    try:
        is_file = Path(target).is_file()
    except OSError:  # a long deal string (a rummy's) is too long for a file name
        is_file = False
    if is_file:
        env, state = records.state_at(records.load(target), args.step)
        print(env.render(state))
        return
    if not target.split()[1:]:  # one word: a file name (deal strings have several)
        raise ValueError(f"{target}: no such record file (want a record file or a deal "
                         "string)")
    env = kanjax.deal_env(target, **set_flags(args.set))
    print(env.render(env.from_deal(target, jax.random.PRNGKey(args.seed))))


DEFAULT_BATCHES = (1, 64, 1024, 4096)  # `kanjax bench`'s batch sizes
DD_BUDGET = 100_000  # --dd's default search nodes a position: a whole match in under a minute


def _cmd_view(args) -> None:
    from kanjax import records
    from kanjax.view import view_html

    record = records.load(args.record)
    notes = None
    if args.dd:
        notes = _dd_notes(record, args.from_trick or 1, args.dd_budget or DD_BUDGET)
    elif args.from_trick is not None or args.dd_budget is not None:
        raise ValueError("--from-trick and --dd-budget are --dd's settings: add --dd")
    Path(args.out).write_text(view_html(record, player=args.player, notes=notes))
    print(f"{args.out}: {len(record['actions'])} actions; open it in a browser (arrow keys "
          "step through the game; add #step=N to its address to open step N)")
    if notes:
        over = sum(not note.get("solved", True) for note in notes.values())
        print(f"double dummy: {len(notes)} card plays annotated"
              + (f", {over} not solved within {args.dd_budget or DD_BUDGET:,} nodes (marked"
                 " ?; a larger --dd-budget solves more)" if over else ""))


def _dd_notes(record: dict, from_trick: int, budget: int) -> dict[int, dict]:
    """`solvers.annotate`'s notes on `record`, with a progress bar (positions solved, time
    left) on stderr."""
    import importlib

    from rich import progress as rp
    from rich.console import Console

    try:  # the double-dummy solvers (a package above kanjax), only when asked for
        annotate = importlib.import_module("solvers.annotate").annotate
    except ImportError as err:
        raise ValueError(f"--dd needs the double-dummy solvers ({err})") from None
    columns = (rp.TextColumn("{task.description}"), rp.BarColumn(), rp.MofNCompleteColumn(),
               rp.TextColumn("positions"), rp.TimeElapsedColumn(), rp.TextColumn("left"),
               rp.TimeRemainingColumn())
    bar = rp.Progress(*columns, console=Console(stderr=True))
    task = None

    def progress(done: int, total: int) -> None:
        nonlocal task
        if task is None:  # the record is read and its positions found: the bar starts
            bar.start()
            task = bar.add_task("", total=total)
        described = "double dummy" if done else "double dummy: preparing the solver"
        bar.update(task, completed=done, total=total, description=described)

    try:
        return annotate(record, from_trick=from_trick, budget=budget, progress=progress)
    finally:
        if task is not None:
            bar.stop()


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    bench_help = _bench_help(argv)
    if bench_help:
        print(bench_help)
        return
    parser = argparse.ArgumentParser(prog="kanjax", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def game_cmd(name: str, help: str):
        p = sub.add_parser(name, help=help)
        p.add_argument("game", help="a game name (see `kanjax games`)")
        p.add_argument("--set", action="append", metavar="KEY=VALUE",
                       help="a variant flag, e.g. --set players=6 (repeatable)")
        return p

    p = game_cmd("simulate", "play random matches; print throughput and how deals end")
    p.add_argument("--games", type=positive_int, default=1024)
    p.add_argument("--batch", type=positive_int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON only")
    p.set_defaults(fn=_cmd_simulate)

    p = game_cmd("bench", "compile time and throughput at several batch sizes (+ baseline)")
    p.add_argument("more_games", nargs="*", metavar="GAME",
                   help="more games measured in the same run (compared per card played)")
    p.add_argument("--batches", type=positive_ints,
                   help="batch sizes (default: " + ",".join(map(str, DEFAULT_BATCHES))
                   + "; with --compare one, default 1024)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per row")
    p.add_argument("--no-baseline", action="store_true", help="skip the OpenSpiel baseline")
    p.add_argument("--cpus", type=non_negative_int, default=1,
                   help="run on this many CPUs (XLA's threads follow; 0: all). Per CPU-second, "
                        "XLA is most efficient on one, like the one-thread baseline")
    p.add_argument("--rollout", action="store_true",
                   help="also whole matches through the public rollout (rollout.make_stream, "
                        "8 a lane on the last batch's lanes) against the steady state")
    p.add_argument("--compare", metavar="REF",
                   help="A/B against the git commit REF (a worktree of it): both trees' "
                        "random play alternating in fresh processes, ratios of the medians; "
                        "exit 1 where a game is below --threshold")
    p.add_argument("--threshold", type=float, default=0.85,
                   help="with --compare: the lowest ratio that passes (default 0.85)")
    p.add_argument("--rounds", type=positive_int, default=3,
                   help="with --compare: runs of each tree per game (default 3)")
    p.add_argument("--json", action="store_true", help="print JSON only")
    p.set_defaults(fn=_cmd_bench)

    p = game_cmd("play", "play one match and write its JSON record: random, or with "
                         "--human seats at this terminal against the bots")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--deal", help="start from this deal string")
    p.add_argument("--out", default="game.json")
    p.add_argument("--human", type=int, action="append", metavar="SEAT",
                   help="a player played at this terminal (repeatable: hot-seat)")
    p.add_argument("--bots", choices=("heuristic", "random"),
                   help="with --human: the other seats' bots (default heuristic)")
    p.add_argument("--delay", type=float, metavar="SECONDS",
                   help="with --human: the pause before each bot move (default 0.5)")
    p.set_defaults(fn=_cmd_play)

    p = sub.add_parser("replay", help="re-run a JSON record through the engine; check each step")
    p.add_argument("file")
    p.set_defaults(fn=_cmd_replay)

    p = sub.add_parser("show", help="render a deal string, or a record at --step, as text")
    p.add_argument("target", help="a deal string, a bridge PBN deal or a record file")
    p.add_argument("--step", type=int, default=0, help="with a record: after this many actions")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE")
    p.set_defaults(fn=_cmd_show)

    p = sub.add_parser("view", help="a record as one HTML page: the table at every step")
    p.add_argument("record", help="a JSON record (kanjax play, kanjax tournament game)")
    p.add_argument("-o", "--out", default="game.html", help="the page written")
    p.add_argument("--player", type=int, help="show only what this player has seen at each "
                                              "step (default: every hand open)")
    p.add_argument("--dd", action="store_true",
                   help="annotate each card play with its double-dummy value and loss")
    p.add_argument("--from-trick", type=positive_int, metavar="K",
                   help="with --dd: annotate from trick K of each deal on (default 1)")
    p.add_argument("--dd-budget", type=positive_int, metavar="NODES",
                   help=f"with --dd: the most search nodes a position may take (default "
                        f"{DD_BUDGET:,}: a whole match of any trick game in about a minute "
                        "or less); a position over it is marked not solved")
    p.set_defaults(fn=_cmd_view)

    p = sub.add_parser("games", help="list the games and what each offers (its capabilities)")
    p.add_argument("--json", action="store_true", help="one JSON object a game")
    p.set_defaults(fn=_cmd_games)

    # Commands of other packages (e.g. `tournament`), found through entry points.
    from importlib.metadata import entry_points

    for ep in entry_points(group="kanjax.commands"):
        ep.load()(sub)

    args = parser.parse_args(argv)
    try:
        if args.command in ("play", "replay", "show", "view"):  # a person waits for these
            use_compilation_cache()
            # a person's match shows the notice only while it compiles, not while he thinks
            human = getattr(args, "human", None)
            with contextlib.nullcontext() if human else compiling_notice():
                args.fn(args)
        else:
            args.fn(args)
    except ValueError as err:  # bad flags, deals, records: a clear message, no traceback
        print(f"kanjax {args.command}: error: {err}", file=sys.stderr)
        sys.exit(2)
    except OSError as err:  # a missing or unreadable file
        what = f"{err.filename}: {err.strerror}" if err.filename else err
        print(f"kanjax {args.command}: error: {what}", file=sys.stderr)
        sys.exit(2)


def use_compilation_cache() -> None:
    """Keep XLA's compiled programs across runs (jax's persistent compilation cache) in
    ~/.cache/kanjax/jax (under $XDG_CACHE_HOME when set), unless JAX_COMPILATION_CACHE_DIR
    names another folder; and the traced match programs beside it, in `<that folder>-export`
    (`kanjax.exported`)."""
    import jax

    from kanjax import exported

    if not jax.config.jax_compilation_cache_dir:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        jax.config.update("jax_compilation_cache_dir", str(base / "kanjax" / "jax"))
        jax.config.update("jax_compilation_cache_max_size", 512 << 20)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)
    exported.use_folder(str(jax.config.jax_compilation_cache_dir).rstrip("/") + "-export")


@contextlib.contextmanager
def compiling_notice() -> Iterator[None]:
    """A line on stderr as the block starts to compile a match's program that no earlier run
    left in the cache (`kanjax.exported.on_trace`): only then, and once."""
    import jax

    from kanjax import exported

    told = False

    def tell(_name: str) -> None:
        nonlocal told
        if not told:
            told = True
            print("kanjax: preparing the engine (compiling it the first time; later runs "
                  f"read {jax.config.jax_compilation_cache_dir}) ...", file=sys.stderr,
                  flush=True)

    with exported.on_trace(tell):
        yield


@contextlib.contextmanager
def preparing_notice(after: float = 4.0) -> Iterator[None]:
    """A line on stderr when the block (a person's game getting its steps and bots ready,
    compiled or read from the cache) takes longer than `after` seconds."""
    notice = threading.Timer(after, lambda: print("kanjax: preparing the game ...",
                                                  file=sys.stderr, flush=True))
    notice.daemon = True
    notice.start()
    try:
        yield
    finally:
        notice.cancel()


if __name__ == "__main__":
    main()
