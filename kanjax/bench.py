"""`kanjax bench` and `kanjax simulate`: throughput of random play, measured, never asserted.

Throughput is counted in deals (and card plays: cards played to tricks,
`Benchmarked.plays_card`; none,
shown `-`, in a game without tricks) per CPU-second of this process (all XLA threads
together), so a figure compares fairly with a single-threaded C++ baseline measured in the
same run: each game's own (`Benchmarked.bench_baseline`), in a run of several games too. `kanjax
bench` runs on one CPU by default (`--cpus`): XLA's second thread buys less than 2x the speed
for 2x the CPU time.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

import kanjax
from kanjax.api import Env
from kanjax.bots import uniform_random
from kanjax.capabilities import Benchmarked
from kanjax.core.jaxutil import update_lanes
from kanjax.rollout import game_key, make_stream, play_batch


def process_cpus() -> int:
    """How many CPUs this process may run on (its affinity, where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


class Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self):
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall0
        self.cpu = time.process_time() - self.cpu0


def plays_cards(env: Env) -> bool:
    """Whether `env` has card plays to count (`Benchmarked.plays_card`): a rummy
    plays no card to a trick, and its "card plays per CPU-second" is undefined, not 0."""
    return isinstance(env, Benchmarked) and env.card_actions > 0


def _scan_fn(env: Env, steps: int) -> Callable:
    """A jitted `(states, gkeys, epoch) -> (states, decisions, deals, plays)`: `steps` random
    steps of every lane (a scan over batched steps, `play_batch`), a lane whose match ends
    starting a fresh one at once (keyed by `epoch` and the step; `env.init` only in those
    lanes, `update_lanes`), so every lane decides at every step; per lane, the decisions
    taken, finished deals and card plays."""

    def run(states, gkeys, epoch):
        seating = jnp.zeros((gkeys.shape[0], env.num_players), jnp.int32)
        counts = plays_cards(env)
        size = max(8, gkeys.shape[0] // 64)

        def body(carry, t):
            s, decisions, deals, plays = carry
            nxt, action = play_batch(env, (uniform_random,), s, gkeys, seating)
            moved = ~(s.terminated | s.truncated)
            played = (moved & env.plays_card(s, action)) if counts else jnp.zeros_like(moved)
            dealt = env.deal_done(nxt) & moved
            fresh = jax.vmap(lambda k: jax.random.fold_in(k, epoch * steps + t))(gkeys)
            nxt = update_lanes(nxt.terminated | nxt.truncated, lambda _s, k: env.init(k),
                               nxt, fresh, size)
            return (nxt, decisions + moved, deals + dealt, plays + played), None

        zeros = jnp.zeros(gkeys.shape[0], jnp.int32)
        (states, decisions, deals, plays), _ = jax.lax.scan(
            body, (states, zeros, zeros, zeros), jnp.arange(steps))
        return states, decisions, deals, plays

    return jax.jit(run)


def bench_batch(env: Env, batch: int, steps: int = 128, min_seconds: float = 2.0) -> dict:
    """Compile time and random-play throughput of `env` at one batch size, in the steady
    state: every lane decides at every step (a finished match restarts at once), and `steps`
    counts those decisions (a lane idle at the end of its match would count as none)."""
    key = jax.random.PRNGKey(batch)
    gkeys = jax.vmap(lambda g: game_key(key, g))(jnp.arange(batch))
    init = jax.jit(jax.vmap(env.init))
    states = init(gkeys)
    fn = _scan_fn(env, steps)
    with Clock() as compile_clock:
        compiled = fn.lower(states, gkeys, jnp.int32(0)).compile()
    states = compiled(states, gkeys, jnp.int32(0))[0]  # warm-up
    jax.block_until_ready(states)
    total_steps = deals = plays = calls = 0
    with Clock() as clock:
        while True:
            calls += 1
            states, n, d, p = compiled(states, gkeys, jnp.int32(calls))
            total_steps += int(n.sum())
            deals += int(d.sum())
            plays += int(p.sum())
            if time.perf_counter() - clock.wall0 >= min_seconds:
                break
    return {
        "engine": "kanjax",
        "game": env.name,
        "batch": batch,
        "compile_seconds": round(compile_clock.wall, 2),
        "steps": total_steps,
        "deals": deals,
        "wall_seconds": round(clock.wall, 3),
        "cpu_seconds": round(clock.cpu, 3),
        "steps_per_second": round(total_steps / clock.wall),
        "steps_per_cpu_second": round(total_steps / clock.cpu),
        "deals_per_second": round(deals / clock.wall, 1),
        "deals_per_cpu_second": round(deals / clock.cpu, 1),
        "card_plays_per_cpu_second": round(plays / clock.cpu) if plays_cards(env) else None,
    }


def bench_stream(env: Env, lanes: int, games_per_lane: int = 8) -> dict:
    """Random play through the public rollout (`rollout.make_stream`): `games_per_lane` x
    `lanes` whole matches on `lanes` lanes, from the first step to the last match's end."""
    games = lanes * games_per_lane
    seating = jnp.zeros((games, env.num_players), jnp.int32)
    key = jax.random.PRNGKey(lanes)
    with Clock() as compile_clock:
        compiled = make_stream(env, uniform_random, lanes=lanes).lower(
            key, seating, jnp.int32(0)).compile()
    with Clock() as clock:
        out = jax.block_until_ready(compiled(key, seating, jnp.int32(0)))
    steps = int(np.asarray(out.steps).sum())
    return {"lanes": lanes, "games": games, "compile_seconds": round(compile_clock.wall, 2),
            "cpu_seconds": round(clock.cpu, 3),
            "steps_per_cpu_second": round(steps / clock.cpu)}


def bench(
    game: str,
    batches: tuple[int, ...] = (1, 64, 1024, 4096),
    min_seconds: float = 2.0,
    baseline: bool = True,
    baselines: dict[str, dict | None] | None = None,
    stream: bool = False,
    **flags,
) -> dict:
    """Rows for each batch size, the game's OpenSpiel baseline (`Benchmarked.bench_baseline`, when
    installed) and the ratio of the best row to it, in deals or decisions per CPU-second.
    `baselines` (OpenSpiel game -> its figures) keeps a baseline measured for one game of a
    run for the next game that names it. `stream`: also whole matches through the public
    rollout on the largest batch's lanes (`bench_stream`) and their rate against that row's
    steady state."""
    env = kanjax.make(game, **flags)
    rows = [bench_batch(env, b, min_seconds=min_seconds) for b in batches]
    result = {"game": game, "flags": flags, "device": jax.devices()[0].platform,
              "cpus": process_cpus(), "rows": rows}
    if stream:
        result["stream"] = bench_stream(env, batches[-1])
        result["stream"]["vs_steady_state"] = round(
            result["stream"]["steps_per_cpu_second"] / rows[-1]["steps_per_cpu_second"], 3)
    if isinstance(env, Benchmarked) and env.bench_kernels:
        module, function = env.bench_kernels.split(":")
        result["kernels"] = getattr(importlib.import_module(module), function)(
            min_seconds=min_seconds)
    if baseline and isinstance(env, Benchmarked):
        result |= _vs_baseline(env, rows, min_seconds, {} if baselines is None else baselines)
    return result


def _vs_baseline(env: Env, rows: list[dict], min_seconds: float,
                 baselines: dict[str, dict | None]) -> dict:
    """`env`'s OpenSpiel baseline (measured unless `baselines` has it) and the best row's
    ratio to it: the `baseline` entry (None: OpenSpiel not installed), `baseline_unit` and
    `ratio_vs_baseline` (None where the baseline's figure is 0)."""
    from kanjax.baselines import openspiel_random_play

    other, unit = env.bench_baseline
    if other not in baselines:
        baselines[other] = openspiel_random_play(other, min_seconds=min_seconds)
    base = baselines[other]
    if not base:
        return {"baseline": None}
    ours, theirs = _UNITS[unit]
    best = max(r[ours] for r in rows)
    return {"baseline": base, "baseline_unit": unit,
            "ratio_vs_baseline": round(best / base[theirs], 3) if base[theirs] else None}


# a baseline unit -> (the kanjax row's figure, the OpenSpiel figure)
_UNITS = {"deals": ("deals_per_cpu_second", "games_per_cpu_second"),
          "decisions": ("steps_per_cpu_second", "decisions_per_cpu_second")}


def _best_card_plays(result: dict) -> int | None:
    """A game's best card plays per CPU-second; None where it plays no cards to tricks."""
    figures = [r["card_plays_per_cpu_second"] for r in result["rows"]]
    return None if None in figures else max(figures)


def bench_games(
    games: list[str],
    batches: tuple[int, ...] = (1, 64, 1024, 4096),
    min_seconds: float = 2.0,
    baseline: bool = True,
    stream: bool = False,
    **flags,
) -> dict:
    """`bench` for each game in one run, each with its own baseline (one measured once where
    games share it), plus each game's best card plays per CPU-second relative to the first
    game's that has them (`card_plays_vs`; games that play no cards to tricks left out)."""
    baselines: dict[str, dict | None] = {}
    results = [bench(g, batches, min_seconds, baseline, baselines, stream, **flags)
               for g in games]
    best = {r["game"]: _best_card_plays(r) for r in results}
    counted = {g: x for g, x in best.items() if x}
    first = next(iter(counted), None)
    return {
        "games": results,
        "card_plays_vs": first,
        "card_plays_vs_first": {g: round(x / counted[first], 3) for g, x in counted.items()},
    }


def format_bench_games(result: dict) -> str:
    parts = [format_bench(r) for r in result["games"]]
    ratios = result["card_plays_vs_first"]
    if len(result["games"]) > 1 and len(ratios) > 1:
        parts.append(f"best card plays per CPU-second relative to {result['card_plays_vs']}: "
                     + ", ".join(f"{g} {x:.2f}x" for g, x in ratios.items()))
    return "\n\n".join(parts)


def _figure(x: int | None, width: int) -> str:
    """A row's figure, `-` where it is undefined (a game without card plays)."""
    return f"{'-' if x is None else x:>{width}}"


def format_bench(result: dict) -> str:
    head = (f"{'batch':>6} {'compile s':>9} {'steps/s':>10} {'steps/CPU-s':>11} "
            f"{'deals/s':>9} {'deals/CPU-s':>11} {'plays/CPU-s':>11}")
    lines = [f"kanjax bench {result['game']} on {result['device']} ({result['cpus']} CPU"
             f"{'s' if result['cpus'] > 1 else ''} for this process, XLA threads included)", head]
    for r in result["rows"]:
        lines.append(
            f"{r['batch']:>6} {r['compile_seconds']:>9.2f} {r['steps_per_second']:>10} "
            f"{r['steps_per_cpu_second']:>11} {r['deals_per_second']:>9} "
            f"{r['deals_per_cpu_second']:>11} "
            f"{_figure(r['card_plays_per_cpu_second'], 11)}"
        )
    if any(r["card_plays_per_cpu_second"] is None for r in result["rows"]):
        lines.append("plays/CPU-s: - (the game plays no cards to tricks)")
    if "stream" in result:
        st = result["stream"]
        lines.append(f"public rollout (make_stream, {st['games']} matches on {st['lanes']} "
                     f"lanes, start to end): {st['steps_per_cpu_second']} steps/CPU-s = "
                     f"{st['vs_steady_state']:.2f}x the steady state (compile "
                     f"{st['compile_seconds']:.2f} s)")
    for k in result.get("kernels", ()):
        lines.append(f"kernel {k['kernel']}: {k['checks_per_cpu_second']:,} checks/CPU-s "
                     f"(batch {k['batch']})")
    base = result.get("baseline")
    if base:
        unit = result["baseline_unit"]
        ratio = result["ratio_vs_baseline"]
        lines.append(f"baseline: OpenSpiel C++ {base['game']}: "
                     f"{base[_UNITS[unit][1]]:.0f} {unit}/CPU-s")
        lines.append(f"ratio (best kanjax batch / baseline, {unit} per CPU-second): "
                     + ("- (the baseline's figure is 0)" if ratio is None else f"{ratio:.2f}x"))
    elif "baseline" in result:
        lines.append("baseline: OpenSpiel not installed (pip install -e '.[bench]')")
    return "\n".join(lines)


# ---- simulate ----------------------------------------------------------------------------
def _deal_stats(env: Env):
    """The rollout's `stats_fn`: (deals the step ended, the game's `deal_tally`)."""

    def stats(before, after):
        live = after.step_count != before.step_count  # a finished match stays put
        tally = env.deal_tally(before, after)
        return ((env.deal_done(after) & live).astype(jnp.int32),
                jnp.where(live, tally, jnp.zeros_like(tally)))

    return stats


def simulate(game: str, games: int, batch: int, seed: int = 0, **flags) -> dict:
    """Play `games` random matches through `batch` lanes (`rollout.make_stream`: a lane whose
    match ends starts the next); throughput, and how deals end as the game reports it
    (`TournamentViews.tally_report`; by default the deals and the mean returns per player).
    Game i is the same whatever the batch (games are keyed by index)."""
    env = kanjax.make(game, **flags)
    batch = min(batch, games)
    stream = make_stream(env, uniform_random, stats_fn=_deal_stats(env), lanes=batch)
    key = jax.random.PRNGKey(seed)
    seating = jnp.zeros((games, env.num_players), jnp.int32)
    with Clock() as compile_clock:
        compiled = stream.lower(key, seating, jnp.int32(0)).compile()
    with Clock() as clock:
        out = jax.block_until_ready(compiled(key, seating, jnp.int32(0)))
    deals, tally = int(out.stats[0]), np.asarray(out.stats[1], np.int64)
    steps = int(np.asarray(out.steps).sum())
    result = {
        "game": game,
        "flags": flags,
        "games": games,
        "batch": batch,
        "seed": seed,
        "compile_seconds": round(compile_clock.wall, 2),
        "wall_seconds": round(clock.wall, 3),
        "games_per_second": round(games / clock.wall, 1),
        "steps_per_second": round(steps / clock.wall),
        "truncated": int(np.asarray(out.truncated).sum()),
    }
    return result | env.tally_report(tally, np.asarray(out.returns), deals)


def format_simulate(r: dict) -> str:
    lines = [
        f"kanjax simulate {r['game']}: {r['games']} random matches (batch {r['batch']}, "
        f"seed {r['seed']})",
        f"  compile {r['compile_seconds']} s; {r['games_per_second']} games/s, "
        f"{r['steps_per_second']} steps/s ({r['wall_seconds']} s)",
        *kanjax.make(r["game"], **r["flags"]).tally_lines(r),
    ]
    if r["truncated"]:
        lines.append(f"  truncated matches: {r['truncated']}")
    return "\n".join(lines)
