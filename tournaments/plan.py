"""Which games a tournament plays: pairings, seatings and duplicate groups, in a fixed order.

Every format is built from duplicate groups: one deal seed played by one pairing of bots under
a balanced set of seatings, so that each bot of the pairing sits in every seat equally often
with the same deals (the luck of the deal cancels). Pairings:
- `duplicate` (default): all the bots together;
- `round_robin`: every pair of bots;
- `gauntlet`: the champion against each other bot;
- `ab`: the candidate against the baseline.
Each deal seed is played by every pairing (the same seeds for every pairing). The games of a
group share their keys, so two games of a group with the same seating are the same game:
every `seatings` mode plays each seating once. Seatings of a pairing of k bots over n players
(`seatings`), with `config.seatings`:
- "all" (default): every seating that turning the table (r = 0..n-1 seats) and exchanging the
  bots' places (s = 0..k-1) makes of the base seating "bot p mod k at player p": bot
  (((p + r) mod n) + s) mod k at player p, each distinct one once, in that order. Every bot
  sits in every seat equally often (the k n turns and exchanges do so, and each distinct
  seating is made by equally many of them). Two bots at 5 players: 10 seatings; at 4: 2
  ((a,b,a,b) turned is (b,a,b,a)).
- "distinct": the k exchanges only, s = 0..k-1 (two bots at 5 players: 2 seatings).
- "rotations": the plans of folders run before "all" was the default: s = 0..L-1 for a
  common multiple L of k and n, which plays each of the k exchanges L / k times (the same
  games again); kept so that such a folder resumes, not for new runs.
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


def seatings(pairing: tuple[int, ...], n: int, mode: str = "all") -> list[tuple[int, ...]]:
    """Balanced seatings of `pairing` over n players, per `mode` (see the module doc)."""
    k = len(pairing)
    if k > n:
        raise ValueError(f"{k} bots cannot share a {n}-player table")
    if mode == "rotations":
        shifts = [(0, s) for s in range(k * n // math.gcd(k, n))]
    elif mode == "distinct":
        shifts = [(0, s) for s in range(k)]
    else:
        shifts = [(r, s) for r in range(n) for s in range(k)]
    made = [tuple(pairing[((p + r) % n + s) % k] for p in range(n)) for r, s in shifts]
    return made if mode == "rotations" else list(dict.fromkeys(made))


def plan_games(cfg: TournamentConfig, num_players: int) -> list[PlannedGame]:
    """Every game of the tournament in a fixed order (game ids are positions)."""
    games = []
    pairs = pairings(cfg)
    for seed in range(cfg.deals):
        for i, pairing in enumerate(pairs):
            group = seed * len(pairs) + i
            for r, bots in enumerate(seatings(pairing, num_players, cfg.seatings)):
                games.append(PlannedGame(len(games), group, r, seed, bots))
    return games


def chunked(games: list[PlannedGame], size: int) -> list[list[PlannedGame]]:
    """Consecutive games in work units of `size` (the last may be shorter)."""
    return [games[i: i + size] for i in range(0, len(games), size)]
