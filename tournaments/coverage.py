"""Coverage of the report's rating intervals under a null: two equally strong bots.

`python -m tournaments.coverage --tournaments 1000 --groups 32` simulates that many duplicate
tournaments (numpy, no engine) shaped like the quickstart's results: 5 players, two bots
seated by the planner's balanced rotations (10 games a group), two rounds a match; each round
the deal sets a pair of players against the other three (the same in every game of the
group) and the pair's chance of winning it; the pair then scores +1 each on a win, -1 (now
and then -3 or -10) on a loss, the other three the opposite, as in the quickstart's game.
Play varies the outcome from game to game of a group, and the bot has no effect. Each
tournament goes through `stats.fit_ratings` with the whole-match partners, as the report
does; an interval covers when it holds the true rating, 0. The report's other intervals are
measured the same way: bot "a"'s mean match score (`stats.bot_summary`; the true mean is
`TRUE_SCORE`) and the pairwise difference a - b (`stats.pairwise`; truly 0). A tournament
that gets no interval (one group, or no spread) counts as a miss.
"""

from __future__ import annotations

import argparse
import json
from statistics import NormalDist

import numpy as np

from tournaments import stats
from tournaments.plan import seatings

PLAYERS, ROUNDS = 5, 2
SHAPE = 1.0  # see null_tournament
LOSS_VALUES, LOSS_ODDS = np.array([1, 3, 10]), np.array([0.85, 0.12, 0.03])
# a player's expected match score: each round he is in the pair (2 of 5) and scores the
# round's value, or not and scores its opposite; a round's value is +1 or -loss, evenly
TRUE_SCORE = ROUNDS * (2 - (PLAYERS - 2)) / PLAYERS * 0.5 * (1 - LOSS_VALUES @ LOSS_ODDS)


def null_tournament(groups: int, rng: np.random.Generator, shape: float = SHAPE
                    ) -> tuple[dict, dict]:
    """(seats, deals) columns of one simulated tournament of two equal bots; the chance that
    a deal's pair wins is Beta(shape, shape): the smaller `shape`, the more the deal decides."""
    seating = np.array(seatings((0, 1), PLAYERS))  # [games a group, players] -> bot
    per_group = len(seating)
    n = groups * per_group
    pair = np.zeros((groups, ROUNDS, PLAYERS), bool)  # each round's pair, set by the deal
    for g in range(groups):
        for r in range(ROUNDS):
            pair[g, r, rng.choice(PLAYERS, 2, replace=False)] = True
    win_p = rng.beta(shape, shape, (groups, ROUNDS))  # how good the deal is for its pair
    won = rng.random((groups, per_group, ROUNDS)) < win_p[:, None]
    value = np.where(won, 1, -rng.choice(LOSS_VALUES, (groups, per_group, ROUNDS), p=LOSS_ODDS))
    k = np.repeat(pair[:, None], per_group, 1)  # [G, games, rounds, players]
    score = np.where(k, value[..., None], -value[..., None]).sum(2).reshape(n, PLAYERS)
    game = np.arange(n)
    seats = {"game_id": np.repeat(game, PLAYERS), "group": np.repeat(game // per_group, PLAYERS),
             "player": np.tile(np.arange(PLAYERS), n),
             "bot": np.array(["a", "b"])[np.tile(seating, (groups, 1))].ravel(),
             "score": score.ravel().astype(np.float64), "deals": np.full(n * PLAYERS, ROUNDS),
             "deals_by_role": [[ROUNDS]] * (n * PLAYERS), "won_by_role": [[0]] * (n * PLAYERS)}
    deals = {"game_id": np.repeat(game, ROUNDS),
             "side": k.reshape(n * ROUNDS, PLAYERS).astype(int)}  # side 1: the pair
    return seats, deals


def coverage(tournaments: int, groups: int, seed: int = 0, shape: float = SHAPE) -> dict:
    """How often the report's 95% intervals hold the truth over `tournaments` null
    tournaments: bot "a"'s rating with the clustered standard error (`se`, the report's) and
    the model-based one (`se_model`), his mean match score (`score`) and the pairwise
    difference a - b (`pairwise`)."""
    rng = np.random.default_rng(seed)
    z = NormalDist().inv_cdf(0.975)
    hits = {"se": 0, "se_model": 0, "score": 0, "pairwise": 0}
    for _ in range(tournaments):
        seats, deals = null_tournament(groups, rng, shape)
        r = stats.fit_ratings(seats, stats.whole_match_partners(deals, PLAYERS))
        hits["se"] += r["lo"][0] <= 0 <= r["hi"][0]
        hits["se_model"] += abs(r["elo"][0]) <= z * r["se_model"][0]
        a = stats.bot_summary(seats, ("any",))[0]
        hits["score"] += a["score_lo"] <= TRUE_SCORE <= a["score_hi"]
        ab = stats.pairwise(seats)[0]
        hits["pairwise"] += ab["lo"] <= 0 <= ab["hi"]
    return {"tournaments": tournaments, "groups": groups, "seed": seed, "shape": shape,
            **{f"coverage_{k}": v / tournaments for k, v in hits.items()}}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tournaments", type=int, default=1000)
    p.add_argument("--groups", type=int, default=32, help="duplicate groups a tournament")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shape", type=float, default=SHAPE,
                   help="Beta shape of a deal's pair's chance to win (small: deals decide)")
    args = p.parse_args(argv)
    print(json.dumps(coverage(args.tournaments, args.groups, args.seed, args.shape)))


if __name__ == "__main__":
    main()
