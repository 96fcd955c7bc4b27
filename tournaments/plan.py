"""Which games a tournament plays: pairings, seatings and duplicate groups, in a fixed order.

Every format is built from duplicate groups: one deal seed played by one pairing of bots under
a balanced set of seatings, so that each bot of the pairing sits in every seat equally often
with the same deals (the luck of the deal cancels). Pairings:
- `duplicate` (default): all the bots together;
- `round_robin`: every pair of bots;
- `gauntlet`: the champion against each other bot;
- `ab`: the candidate against the baseline.
Each deal seed is played by every pairing (the same seeds for every pairing). Seatings of a
pairing of k bots over n players: bot (p + r) mod k at player p, for r = 0..L-1, where L is a
common multiple of k and n (every bot in every seat L / k times). Since the seating of r only
depends on r mod k, that plays each of the k distinct seatings L / k times, and the games of
a group share their keys, so the repeats are the same games again (two bots at 4 players:
(a,b,a,b), (b,a,b,a), then both again). The config's `seatings = "distinct"` plays r =
0..k-1 only: each seating once, still every bot in every seat equally often. The default
("rotations") keeps the plans (game ids) of the tournaments run before the option.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

from tournaments.config import TournamentConfig


@dataclasses.dataclass(frozen=True)
class PlannedGame:
    game_id: int
    group: int  # duplicate group: deal seed index x pairing
    rotation: int  # seating index within the group
    deal_seed: int  # index of the deal seed (the game key is derived from it)
    bots: tuple[int, ...]  # index into config.bots of the bot playing each player


def pairings(cfg: TournamentConfig) -> list[tuple[int, ...]]:
    """The bot index tuples that meet, per the format."""
    names = [b.name for b in cfg.bots]
    if cfg.format == "round_robin":
        return list(itertools.combinations(range(len(names)), 2))
    if cfg.format == "gauntlet":
        champ = names.index(cfg.champion)
        return [(champ, i) for i in range(len(names)) if i != champ]
    if cfg.format == "ab":
        return [(names.index(cfg.ab["candidate"]), names.index(cfg.ab["baseline"]))]
    return [tuple(range(len(names)))]


def seatings(pairing: tuple[int, ...], n: int, distinct: bool = False
             ) -> list[tuple[int, ...]]:
    """Balanced seatings of `pairing` over n players (see the module doc): lcm(k, n)
    rotations, or with `distinct` the k different ones."""
    k = len(pairing)
    if k > n:
        raise ValueError(f"{k} bots cannot share a {n}-player table")
    rotations = k if distinct else k * n // math.gcd(k, n)
    return [tuple(pairing[(p + r) % k] for p in range(n)) for r in range(rotations)]


def plan_games(cfg: TournamentConfig, num_players: int) -> list[PlannedGame]:
    """Every game of the tournament in a fixed order (game ids are positions)."""
    games = []
    pairs = pairings(cfg)
    for seed in range(cfg.deals):
        for i, pairing in enumerate(pairs):
            group = seed * len(pairs) + i
            for r, bots in enumerate(seatings(pairing, num_players,
                                              cfg.seatings == "distinct")):
                games.append(PlannedGame(len(games), group, r, seed, bots))
    return games


def chunked(games: list[PlannedGame], size: int) -> list[list[PlannedGame]]:
    """Consecutive games in work units of `size` (the last may be shorter)."""
    return [games[i: i + size] for i in range(0, len(games), size)]
