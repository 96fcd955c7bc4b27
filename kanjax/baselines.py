"""Comparison baselines for `kanjax bench`: other engines' throughput on a comparable game.

The OpenSpiel baseline needs the optional extra `bench` (`pip install kanjax[bench]`, which
installs `open_spiel`); without it `openspiel_random_play` returns None.
"""

from __future__ import annotations

import time

OH_HELL_5P_10T = "oh_hell(players=5,num_tricks_fixed=10)"


def openspiel_random_play(
    game: str = OH_HELL_5P_10T, min_seconds: float = 3.0, seed: int = 0
) -> dict | None:
    """Throughput of OpenSpiel's C++ engine playing complete uniformly random games of `game`.

    Each game runs in C++ via `pyspiel.evaluate_bots`, one `make_uniform_random_bot` per
    player: chance nodes (the deal, the trump card) are sampled from the per-game seed, every
    player move is a uniformly random legal action. Python only starts each game. Games are played
    until `min_seconds` of this process's CPU time (`time.process_time`, one thread) have
    passed, after a short warm-up. `actions` counts every move, chance moves included
    (OpenSpiel's `move_number`: 108 per oh_hell 5x10 game, 53 of them chance moves);
    `decisions` counts the players' moves only.

    Returns None if `pyspiel` is not importable.
    """
    try:
        import pyspiel
    except ImportError:
        return None

    the_game = pyspiel.load_game(game)
    bots = [
        pyspiel.make_uniform_random_bot(p, (seed * 1_000_003 + p) % 2**31)
        for p in range(the_game.num_players())
    ]

    def play(first: int, n: int) -> tuple[int, int]:
        moves = decisions = 0
        for i in range(first, first + n):
            state = the_game.new_initial_state()
            pyspiel.evaluate_bots(state, bots, (seed * 1_000_003 + i) % 2**31)  # C++ int seed
            moves += state.move_number()
            decisions += sum(h.player >= 0 for h in state.full_history())
        return moves, decisions

    play(2**30, 50)  # warm-up, on seeds the timed games do not use

    games = actions = decisions = 0
    batch = 100
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while True:
        moves, made = play(games, batch)
        actions, decisions = actions + moves, decisions + made
        games += batch
        cpu = time.process_time() - cpu0
        if cpu >= min_seconds:
            break
    wall = time.perf_counter() - wall0
    return {
        "engine": "openspiel",
        "version": getattr(pyspiel, "__version__", None),
        "game": game,
        "games": games,
        "actions": actions,
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "games_per_cpu_second": games / cpu,
        "actions_per_cpu_second": actions / cpu,
        "decisions": decisions,
        "decisions_per_cpu_second": decisions / cpu,
    }
