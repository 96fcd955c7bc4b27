"""`kanjax bench solver`: the batched JAX solver against DDS, and on Kan deals.

Whist: the same random bridge positions (`cards` cards a hand, one strain and one leader
each, the leader's side) solved by the JAX search (after a warm-up compile; `threads`
searches side by side, 0 = one per CPU core) and by DDS through endplay, when installed
(after a warm-up of its own: one SolveBoard each on one thread, then SolveAllBoards on every
core): solves/s and the ratios. Kan: random Gonin Kan deal-1 positions at the first card of
trick 1 (`gonin_cards` cards a hand left after random play; 10 = the whole deal): solves/s
and nodes/s. Trick nodes (positions at a trick's start that the search entered) are what DDS
counts as nodes: the table compares the two searches' sizes on the same positions. With
`tables` > 0, also the double-dummy tables of that many random whole deals (every strain and
declarer: `api.dd_tables` on the JAX search and on the CPU backend, as `jax` and `cpu` ask,
each against DDS's CalcDDtable timed beside it).

CPU backend (`cpu=1`, the default): the compiled scalar search (`solvers.cpu`) on the same whist
positions, one solve at a time on one thread (solves/s, the 99th percentile of a solve's time)
and all of them on every core (`threads`; one deal a thread); its first call in the process
(numba's compile, or the load of its cached machine code) is timed apart. `jax=0` skips the
JAX search's rows. With `cpu_gonin_deals` > 0: that many whole Gonin Kan deal-1 positions (10
cards a hand, exact value) on the CPU backend, `threads` deals side by side, one a thread:
deals/s and each deal's time (p50, p99); with `pimc_decisions` > 0: the PIMC bot on the CPU
backend (`solvers.pimc`, its defaults: 16 layouts, whole hands, a node budget a problem)
deciding that many first-trick moves (whole hands) of random deals in one batch: decisions/s.

Da Bai Fen (`dbf_deals` > 0, issue 27): that many random Da Bai Fen hands after the kitty
(`dbf_cards` cards a hand, 12: whole hands; a random deal, trump level and suit, leader and
kitty, default rules: DBF-24's penalty, the doubled kitty) solved exactly by the CPU
backend's multi-card search (`solvers.cpu.multi`), one at a time on one thread after a
warm-up solve: solves/s and a solve's time (p50, p99, max). With `dbf_cap` > 0 seconds:
`threads` hands side by side (one a thread), each given up after `dbf_cap` seconds: hands
solved and solved a second of wall time, percentiles counting a given-up hand as the cap.

Options (`--set KEY=VALUE`, `OPTIONS`; `kanjax bench solver --help` lists them): 0 deals /
gonin_deals skip those rows; `--no-baseline` skips DDS; `--json` prints the figures as JSON
instead of tables. A 99th percentile is given from 100 solves on (`P99_SOLVES`). `cards=13` /
`gonin_cards=10` ask for whole deals, far slower than the defaults. Solve times are
heavy-tailed, so give the queue many more positions than lanes.
"""

from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import jax
import numpy as np

from kanjax.cli import set_flags
from solvers import api, search, trick_play
from solvers.cpu import multi
from solvers.dds import BRIDGE
from solvers.position import Position

# --set KEY=VALUE: key -> (default, least, most (None: no bound), what it sets); dbf_cap is
# seconds (a number), the others integers
OPTIONS = {
    "deals": (64, 0, None, "random whist positions (0: no whist rows)"),
    "cards": (8, 1, 13, "cards a hand of those positions (13: whole deals)"),
    "lanes": (16, 1, None, "the JAX search's lanes a thread"),
    "gonin_deals": (32, 0, None, "Gonin Kan positions for the JAX search (0: none)"),
    "gonin_cards": (5, 1, 10, "cards a hand of those"),
    "seed": (0, None, None, "the random deals' seed"),
    "threads": (0, 0, None, "searches side by side (0: one per CPU core)"),
    "tables": (0, 0, None, "whole deals whose double-dummy tables are timed"),
    "cpu": (1, 0, 1, "the cpu backend's rows (1) or not (0)"),
    "jax": (1, 0, 1, "the JAX search's rows (1) or not (0)"),
    "cpu_gonin_deals": (0, 0, None, "Gonin Kan deals on the cpu backend"),
    "cpu_gonin_cards": (10, 1, 10, "cards a hand of those (10: whole deals)"),
    "pimc_decisions": (0, 0, None, "PIMC first-trick decisions timed"),
    "pimc_budget": (0, 0, None, "PIMC's nodes a problem (0: the bot's default)"),
    "dbf_deals": (0, 0, None, "Da Bai Fen hands on the multi-card search"),
    "dbf_cards": (12, 1, 12, "cards a hand of those (12: whole hands)"),
    "dbf_cap": (0, 0, None, "seconds before a Da Bai Fen hand is given up (0: no cap)"),
}
DEFAULTS = {k: v[0] for k, v in OPTIONS.items()}
P99_SOLVES = 100  # fewer solves give no 99th percentile (it would be about the slowest)


def whist_positions(deals: int, cards: int, seed: int) -> list[Position]:
    """Random deals at `cards` cards a hand (the others gone), a random strain and leader."""
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        ids = list(range(52))
        rng.shuffle(ids)
        leader = rng.randrange(4)
        out.append(Position(BRIDGE, tuple(tuple(sorted(ids[13 * s:13 * s + cards]))
                                         for s in range(4)),
                            rng.randrange(-1, 4), leader,
                            tuple((s - leader) % 2 == 0 for s in range(4)),
                            tricks_done=13 - cards))
    return out


def gonin_positions(deals: int, cards: int, seed: int) -> list[Position]:
    """Gonin Kan deal-1 positions (kankei side, default leader), after random play down to
    `cards` cards a hand."""
    import kanjax
    from solvers import convert

    env = kanjax.make("gonin_kan")
    rng = random.Random(seed)
    out = []
    for k in range(deals):
        state = env.init(jax.random.PRNGKey(seed * 100_003 + k))
        pos, _ = convert.from_deal(env.deal_string(state))
        while pos.cards_left > cards * pos.rules.n:
            pos = trick_play.play(pos, rng.choice(trick_play.legal_moves(pos)))
        out.append(pos)
    return out


def dbf_positions(deals: int, cards: int, seed: int) -> list[Position]:
    """Random Da Bai Fen hands after the kitty, `cards` cards a hand (the rest of the deck
    played or in the kitty): a random trump level R and suit T (DBF-4..7), leader (seat 0
    or 2's team declaring by the leader's), kitty of six; the side: the opponents (P)."""
    import kanjax
    from kanjax.games.da_bai_fen import spec as ds
    from solvers.position import Rules

    env = kanjax.make("da_bai_fen")
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        ids = list(range(ds.NUM_CARDS))
        rng.shuffle(ids)
        R, T, leader = rng.randint(2, 14), rng.randrange(4), rng.randrange(4)
        kp = sum(ds.CARD_POINTS[c] for c in ids[4 * cards:4 * cards + ds.KITTY_SIZE])
        rules = Rules(**env.hand_rules(R, T, kp))  # the engine's trick rules of that hand
        out.append(Position(rules, tuple(tuple(sorted(ids[cards * s:cards * (s + 1)]))
                                         for s in range(4)),
                            T, leader, tuple((s - leader) % 2 == 1 for s in range(4)),
                            tricks_done=12 - cards))
    return out


def _one_at_a_time(warm_up: Position, positions: list[Position]) -> dict:
    """The CPU backend on `positions`, one solve at a time on one thread, after solving
    `warm_up` (its first call: numba's compile or cache load): times, nodes, values."""
    t = time.perf_counter()
    api.solve([warm_up], backend="cpu", threads=1)
    first = time.perf_counter() - t
    times, sols = [], []
    for p in positions:
        t = time.perf_counter()
        sols += api.solve([p], backend="cpu", threads=1)
        times.append(time.perf_counter() - t)
    dt = sum(times)
    nodes = sum(s.nodes for s in sols)
    return {"first_call_seconds": first, "solves": len(positions), "seconds": dt,
            "solves_per_s": len(positions) / dt,
            "p50_seconds": float(np.percentile(times, 50)),
            "p99_seconds": float(np.percentile(times, 99)), "max_seconds": max(times),
            "nodes": nodes, "nodes_per_s": nodes / dt,
            "trick_nodes_per_solve": sum(s.trick_nodes for s in sols) / len(sols),
            "values": [s.value for s in sols]}


def _dbf_warm_up() -> Position:
    """A small Da Bai Fen position whose first solve compiles (or loads) the search."""
    return dbf_positions(1, 3, 12345)[0]


def _cpu_dbf_timed(positions: list[Position]) -> dict:
    """Da Bai Fen hands on the CPU backend (multi-card search), one at a time on one thread,
    after a warm-up solve (numba's compile or cache load)."""
    out = _one_at_a_time(_dbf_warm_up(), positions)
    return out | {"deals": len(positions), "nodes_per_solve": out["nodes"] / len(positions)}


def _capped_solve(pos: Position, cap: float) -> tuple[float, int | None, int, int]:
    """(seconds, value or None if given up after `cap` seconds, nodes, trick nodes) of one
    Da Bai Fen hand on the multi-card search, on this thread."""
    limit = np.array([np.iinfo(np.int64).max])
    timer = threading.Timer(cap, limit.fill, (0,))
    t = time.perf_counter()
    timer.start()
    solver = multi.Solver(pos, limit=limit)
    try:
        value = solver.value()
    except multi.GivenUp:
        value = None
    finally:
        timer.cancel()
    return time.perf_counter() - t, value, int(solver.nodes[0]), int(solver.nodes[1])


def _cpu_dbf_capped(positions: list[Position], cap: float, threads: int) -> dict:
    """Da Bai Fen hands on the multi-card search, `threads` side by side (one a thread), each
    given up after `cap` seconds: hands solved a second of wall time, a hand's time (p50,
    p99, max: observed times, a given-up hand's counted as `cap`, so a percentile at `cap`
    is only a floor)."""
    t = time.perf_counter()
    multi.solve(_dbf_warm_up())
    first = time.perf_counter() - t
    t = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        runs = list(pool.map(lambda p: _capped_solve(p, cap), positions))
    wall = time.perf_counter() - t
    times = [min(s, cap) if v is None else s for s, v, _, _ in runs]
    solved = sum(v is not None for _, v, _, _ in runs)
    nodes = sum(n for _, _, n, _ in runs)
    return {"deals": len(positions), "cap_seconds": cap, "threads": threads, "solved": solved,
            "first_call_seconds": first, "seconds": wall, "solves_per_s": solved / wall,
            "p50_seconds": float(np.percentile(times, 50, method="higher")),
            "p99_seconds": float(np.percentile(times, 99, method="higher")),
            "max_seconds": max(times), "nodes": nodes,
            "nodes_per_s": nodes / sum(s for s, _, _, _ in runs),
            "trick_nodes_per_solve": sum(k for _, _, _, k in runs) / len(runs),
            "values": [v for _, v, _, _ in runs]}


def _cpu_timed(positions: list[Position], threads: int) -> dict:
    """The CPU backend on `positions`: its first call (compile or cache load, on another
    position), then one solve at a time on one thread, then all on `threads` threads."""
    out = _one_at_a_time(whist_positions(1, 5, 12345)[0], positions)
    t = time.perf_counter()
    every = api.solve(positions, backend="cpu", threads=threads)
    dt_all = time.perf_counter() - t
    return out | {"all_cores_seconds": dt_all,
                  "all_cores_solves_per_s": len(positions) / dt_all,
                  "agree_all_cores": [s.value for s in every] == out["values"]}


def _cpu_gonin_timed(positions: list[Position], threads: int) -> dict:
    """Whole Gonin deals on the CPU backend, `threads` at a time (one deal a thread): deals/s
    over the whole run and each deal's own time (p50, p99, max)."""
    from concurrent.futures import ThreadPoolExecutor

    api.solve(gonin_positions(1, 4, 12345), backend="cpu", threads=1)  # compile or load

    def one(p: Position) -> tuple[float, api.Solution]:
        t = time.perf_counter()
        [sol] = api.solve([p], backend="cpu", threads=1)
        return time.perf_counter() - t, sol

    t = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        done = list(pool.map(one, positions))
    dt = time.perf_counter() - t
    times = [d for d, _ in done]
    nodes = sum(s.nodes for _, s in done)
    return {"deals": len(positions), "seconds": dt, "deals_per_s": len(positions) / dt,
            "p50_seconds": float(np.percentile(times, 50)),
            "p99_seconds": float(np.percentile(times, 99)), "max_seconds": max(times),
            "nodes_per_deal": nodes / len(positions),
            "trick_nodes_per_deal": sum(s.trick_nodes for _, s in done) / len(positions),
            "values": [s.value for _, s in done]}


def _pimc_timed(decisions: int, seed: int, threads: int, budget: int = 0) -> dict:
    """The PIMC bot on the CPU backend (its defaults; `budget` nodes a problem if not 0)
    deciding the first move of trick 1 of `decisions` random Gonin Kan deals, in one batch
    (after a warm-up batch of two)."""
    import jax.numpy as jnp

    import kanjax
    from solvers import convert
    from solvers.pimc import Pimc

    env = kanjax.make("gonin_kan")
    bot = Pimc(env, threads=threads, budget=budget or None)
    states = [convert.deal_state(env.deal_string(env.init(jax.random.PRNGKey(seed * 7 + k))),
                                 env.name)[1] for k in range(decisions + 2)]
    obs = jnp.stack([env.observe(s, s.current_player.astype(jnp.int32)) for s in states])
    masks = jnp.stack([s.legal_action_mask for s in states])
    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(len(states)))
    on = jnp.ones(len(states), bool)
    bot.decide(keys[:2], obs[:2], masks[:2], on[:2])
    t = time.perf_counter()
    np.asarray(bot.decide(keys[2:], obs[2:], masks[2:], on[2:]))
    dt = time.perf_counter() - t
    return {"decisions": decisions, "seconds": dt, "decisions_per_s": decisions / dt,
            "samples": bot.samples, "budget": bot.budget, "max_cards": bot.max_cards}


def _timed(positions: list[Position], lanes: int, threads: int) -> dict:
    api.warm_up(positions, lanes=lanes, threads=threads)
    t = time.perf_counter()
    sols = api.solve(positions, lanes=lanes, threads=threads, backend="jax")
    dt = time.perf_counter() - t
    nodes = sum(s.nodes for s in sols)
    return {"positions": len(positions), "seconds": dt, "solves_per_s": len(positions) / dt,
            "nodes": nodes, "nodes_per_s": nodes / dt,
            "trick_nodes_per_solve": sum(s.trick_nodes for s in sols) / len(sols),
            "values": [s.value for s in sols]}


def _dds_timed(positions: list[Position], cards: int, seed: int) -> dict:
    """DDS on `positions`: one SolveBoard each on one thread, then SolveAllBoards on every
    core; both after solving a few other positions (DDS's first calls set up its tables and
    threads: half a second here, which is not solving)."""
    from solvers.dds import dds_solve, dds_solve_all

    warm = whist_positions(8, cards, seed + 1)
    [dds_solve(p) for p in warm]
    dds_solve_all(warm)
    t = time.perf_counter()
    solved = [dds_solve(p) for p in positions]
    dt = time.perf_counter() - t
    t = time.perf_counter()
    values = dds_solve_all(positions)
    dt_all = time.perf_counter() - t
    return {"seconds": dt, "solves_per_s": len(positions) / dt,
            "trick_nodes_per_solve": sum(n for _, n in solved) / len(positions),
            "all_cores_seconds": dt_all, "all_cores_solves_per_s": len(positions) / dt_all,
            "values": [v for v, _ in solved], "agree_all_cores": values == [v for v, _ in solved]}


def tables_timed(deals: list[Position], lanes: int, threads: int, baseline: bool,
                 backend: str = "jax") -> dict:
    """Double-dummy tables of `deals` (whole bridge deals): the JAX search (compiled first)
    or the CPU backend (`backend`: after loading its machine code) and, with `baseline`,
    DDS's CalcDDtable (after a warm-up table), tables a second."""
    if backend == "jax":
        api.warm_up(api.table_positions(deals), lanes=lanes, threads=threads)
    else:
        api.solve(whist_positions(1, 4, 12345), backend=backend, threads=1)
    t = time.perf_counter()
    tables = api.dd_tables(deals, lanes=lanes, threads=threads, backend=backend)
    out = {"deals": len(deals), "seconds": time.perf_counter() - t}
    out["tables_per_s"] = len(deals) / out["seconds"]
    if baseline:
        from solvers.dds import dds_table

        dds_table(deals[0])
        t = time.perf_counter()
        want = [dds_table(d) for d in deals]
        out["dds_seconds"] = time.perf_counter() - t
        out["dds_tables_per_s"] = len(deals) / out["dds_seconds"]
        out["agree"] = tables == want
        out["ratio"] = out["tables_per_s"] / out["dds_tables_per_s"]
    return out


def bench_solver(deals: int, cards: int, lanes: int, gonin_deals: int, gonin_cards: int,
                 seed: int, threads: int = 0, tables: int = 0, baseline: bool = True,
                 cpu: int = 1, jax: int = 1, cpu_gonin_deals: int = 0,
                 cpu_gonin_cards: int = 10, pimc_decisions: int = 0,
                 pimc_budget: int = 0, dbf_deals: int = 0, dbf_cards: int = 12,
                 dbf_cap: float = 0) -> dict:
    """The figures of the module docstring, as a dict (`threads` 0: `api.solve`'s default)."""
    threads = threads or search.default_threads()
    result = {"cards": cards, "gonin_cards": gonin_cards, "lanes": lanes, "threads": threads,
              "cpu_gonin_cards": cpu_gonin_cards}
    if deals and jax:
        result["whist"] = _timed(whist_positions(deals, cards, seed), lanes, threads)
    if deals and cpu:
        result["cpu"] = _cpu_timed(whist_positions(deals, cards, seed), threads)
    if deals and baseline:
        dds = result["dds"] = _dds_timed(whist_positions(deals, cards, seed), cards, seed)
        want = dds.pop("values")
        agree = dds.pop("agree_all_cores")
        if "whist" in result:
            result["agree"] = agree and want == result["whist"]["values"]
            result["ratio"] = result["whist"]["solves_per_s"] / dds["solves_per_s"]
            result["ratio_all_cores"] = (result["whist"]["solves_per_s"]
                                         / dds["all_cores_solves_per_s"])
        if "cpu" in result:
            c = result["cpu"]
            c["agree"] = agree and c.pop("agree_all_cores") and want == c["values"]
            c["ratio"] = c["solves_per_s"] / dds["solves_per_s"]
            c["ratio_all_cores"] = c["all_cores_solves_per_s"] / dds["all_cores_solves_per_s"]
    for r in ("whist", "cpu"):
        result.get(r, {}).pop("values", None)
    if gonin_deals and jax:
        result["gonin_kan"] = _timed(gonin_positions(gonin_deals, gonin_cards, seed), lanes,
                                     threads)
    if cpu_gonin_deals:
        g = result["cpu_gonin"] = _cpu_gonin_timed(
            gonin_positions(cpu_gonin_deals, cpu_gonin_cards, seed), threads)
        g.pop("values")
    if dbf_deals:
        result["dbf_cards"] = dbf_cards
        hands = dbf_positions(dbf_deals, dbf_cards, seed)
        result["cpu_dbf"] = (_cpu_dbf_capped(hands, dbf_cap, threads) if dbf_cap
                             else _cpu_dbf_timed(hands))
        result["cpu_dbf"].pop("values")
    if pimc_decisions:
        result["pimc"] = _pimc_timed(pimc_decisions, seed, threads, pimc_budget)
    if tables and jax:
        result["tables"] = tables_timed(whist_positions(tables, 13, seed + 2), lanes, threads,
                                        baseline)
    if tables and cpu:
        result["cpu_tables"] = tables_timed(whist_positions(tables, 13, seed + 2), lanes,
                                            threads, baseline, backend="cpu")
    return result


def _secs(t: float) -> str:
    """A time to three significant figures, in s, ms or us."""
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if t >= scale or unit == "us":
            return f"{t / scale:.3g} {unit}"
    raise AssertionError


def _p99(d: dict, count: int) -> str:
    """The 99th percentile of `count` times, or why there is none (too few)."""
    if count < P99_SOLVES:
        return f"no p99 ({count} solves; it takes {P99_SOLVES} or more)"
    return f"p99 {_secs(d['p99_seconds'])}"


def format_bench(r: dict) -> str:
    jax_name = f"JAX, {r['threads']} x {r['lanes']} lanes"
    rows = []
    if "whist" in r:
        w = r["whist"]
        rows.append(f"| whist ({r['cards']} cards a hand) | {jax_name} | "
                    f"{w['solves_per_s']:.2f} | {w['nodes_per_s']:,.0f} | "
                    f"{w['trick_nodes_per_solve']:,.0f} |")
    if "cpu" in r:
        c = r["cpu"]
        rows.append(f"| whist ({r['cards']} cards a hand) | cpu backend, 1 thread | "
                    f"{c['solves_per_s']:.2f} | {c['nodes_per_s']:,.0f} | "
                    f"{c['trick_nodes_per_solve']:,.0f} |")
        rows.append(f"| whist ({r['cards']} cards a hand) | cpu backend, {r['threads']} "
                    f"threads | {c['all_cores_solves_per_s']:.2f} | | |")
    if "dds" in r:
        rows.append(f"| whist ({r['cards']} cards a hand) | DDS (endplay), 1 thread | "
                    f"{r['dds']['solves_per_s']:.2f} | | "
                    f"{r['dds']['trick_nodes_per_solve']:,.0f} |")
        rows.append(f"| whist ({r['cards']} cards a hand) | DDS (endplay), every core | "
                    f"{r['dds']['all_cores_solves_per_s']:.2f} | | |")
    if "gonin_kan" in r:
        g = r["gonin_kan"]
        rows.append(f"| gonin_kan deal 1 ({r['gonin_cards']} cards a hand) | {jax_name} | "
                    f"{g['solves_per_s']:.2f} | {g['nodes_per_s']:,.0f} | "
                    f"{g['trick_nodes_per_solve']:,.0f} |")
    if "cpu_gonin" in r:
        g = r["cpu_gonin"]
        cards = r["cpu_gonin_cards"]
        what = f"{cards} cards a hand" + (": whole deals" if cards == 10 else "")
        rows.append(f"| gonin_kan deal 1 ({what}) | cpu backend, "
                    f"{r['threads']} threads | {g['deals_per_s']:.2f} | | "
                    f"{g['trick_nodes_per_deal']:,.0f} |")
    if "cpu_dbf" in r:
        d = r["cpu_dbf"]
        how = (f"{d['threads']} threads side by side, {d['cap_seconds']:g} s cap"
               if "cap_seconds" in d else "1 thread")
        rows.append(f"| da_bai_fen ({r['dbf_cards']} cards a hand"
                    f"{': whole hands' if r['dbf_cards'] == 12 else ''}) | cpu backend "
                    f"(multi-card), {how} | {d['solves_per_s']:.3f} | "
                    f"{d['nodes_per_s']:,.0f} | {d['trick_nodes_per_solve']:,.0f} |")
    cpu_name = f"cpu backend, {r['threads']} threads"
    for key, name in (("tables", jax_name), ("cpu_tables", cpu_name)):
        if key in r:
            t = r[key]
            rows.append(f"| whist double-dummy tables ({t['deals']} whole deals) | {name} | "
                        f"{20 * t['tables_per_s']:.2f} | | |")
            if "dds_tables_per_s" in t:
                rows.append(f"| whist double-dummy tables ({t['deals']} whole deals) | DDS "
                            f"(endplay), CalcDDtable | {20 * t['dds_tables_per_s']:.2f} | | |")
    out = ("| positions | solver | solves/s | nodes/s | trick nodes a solve |\n"
           "|---|---|---:|---:|---:|\n" + "\n".join(rows))
    if "ratio" in r:
        out += (f"\n\nJAX / DDS: {r['ratio']:.3f}x against DDS on one thread, "
                f"{r['ratio_all_cores']:.3f}x against DDS on every core (values agree: "
                f"{r['agree']})")
    if "cpu" in r:
        c = r["cpu"]
        out += (f"\n\ncpu backend: a solve's time p50 {_secs(c['p50_seconds'])}, "
                f"{_p99(c, c['solves'])}, max {_secs(c['max_seconds'])} (one thread); "
                f"first call (numba compile or cache load) {c['first_call_seconds']:.1f} s")
        if "ratio" in c:
            out += (f"\n\ncpu / DDS: {c['ratio']:.3f}x on one thread, "
                    f"{c['ratio_all_cores']:.3f}x on every core (values agree: {c['agree']})")
    if "cpu_gonin" in r:
        g = r["cpu_gonin"]
        out += (f"\n\ncpu backend, Gonin Kan deals ({r['cpu_gonin_cards']} cards a hand): a "
                f"deal's time p50 {_secs(g['p50_seconds'])}, {_p99(g, g['deals'])}, max "
                f"{_secs(g['max_seconds'])} ({r['threads']} side by side); "
                f"{g['nodes_per_deal']:,.0f} nodes a deal")
    if "cpu_dbf" in r:
        d = r["cpu_dbf"]
        cap = d.get("cap_seconds", 0)

        def at_least(key: str) -> str:
            return (f"{'>= ' if cap and d[key] >= cap else ''}{_secs(d[key])}")

        p99 = (f"p99 {at_least('p99_seconds')}" if d["deals"] >= P99_SOLVES
               else _p99(d, d["deals"]))
        out += (f"\n\ncpu backend, Da Bai Fen ({d['deals']} hands of {r['dbf_cards']} cards): a "
                f"solve's time p50 {at_least('p50_seconds')}, {p99}, "
                f"max {at_least('max_seconds')} "
                + (f"({d['solved']} of {d['deals']} solved within {cap:g} s, "
                   f"{d['threads']} side by side)" if cap else "(one thread)")
                + f"; first call {d['first_call_seconds']:.1f} s")
    if "pimc" in r:
        p = r["pimc"]
        out += (f"\n\nPIMC on the cpu backend, first-trick decisions (whole hands, "
                f"{p['samples']} layouts, {p['budget']:,} nodes a problem): "
                f"{p['decisions_per_s']:.3f} decisions/s ({p['decisions']} in "
                f"{p['seconds']:.1f} s)")
    for key, name in (("tables", "JAX"), ("cpu_tables", "cpu backend")):
        if "ratio" in r.get(key, {}):
            out += (f"\n\nDouble-dummy tables (20 solves each), {name} / DDS: "
                    f"{r[key]['ratio']:.4f}x (values agree: {r[key]['agree']})")
    return out


def options(pairs: list[str] | None) -> dict:
    """`--set KEY=VALUE` pairs -> `bench_solver`'s options (DEFAULTS for the others);
    ValueError naming the key and the bad value: an unknown key, a value of the wrong kind or
    outside the key's bounds (`OPTIONS`)."""
    opts = dict(DEFAULTS)
    for k, v in set_flags(pairs).items():
        if k not in OPTIONS:
            raise ValueError(f"unknown bench solver option {k!r}; options: "
                             f"{', '.join(OPTIONS)} (kanjax bench solver --help)")
        _, least, most, _ = OPTIONS[k]
        number = (int, float) if k == "dbf_cap" else int
        bounds = (f"{'' if least is None else least}..{'' if most is None else most}"
                  if (least, most) != (None, None) else "any")
        if (not isinstance(v, number) or isinstance(v, bool)
                or least is not None and v < least or most is not None and v > most):
            kind = "a number" if k == "dbf_cap" else "an integer"
            raise ValueError(f"bench solver option {k}={v!r}: want {kind} in {bounds}")
        opts[k] = v
    return opts


def _help() -> str:
    rows = "\n".join(f"  {k:<16} {d!s:>4}  {what}" for k, (d, _, _, what) in OPTIONS.items())
    return ("usage: kanjax bench solver [--set KEY=VALUE ...] [--no-baseline] [--json]\n\n"
            "The double-dummy solvers timed: the JAX search and the cpu backend against DDS "
            "(endplay)\non random whist positions, and on Gonin Kan and Da Bai Fen "
            "positions (solvers/bench.py).\n\noptions:\n"
            "  --set KEY=VALUE  one of the keys below (repeatable)\n"
            "  --no-baseline    skip DDS\n"
            "  --json           print the figures as one JSON object, not as tables\n\n"
            f"keys (default):\n{rows}")


def main(args) -> None:
    opts = options(args.set)
    result = bench_solver(**opts, baseline=not args.no_baseline)
    print(json.dumps(result) if args.json else format_bench(result))


main.__doc__ = _help()  # `kanjax bench solver --help` prints it
