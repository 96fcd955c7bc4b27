"""Tournament statistics on the `seats` / `deals` tables (numpy and scipy, no JAX).

Every confidence interval allows for duplicate groups (the games sharing a deal seed), because
the games of a group share their luck and are not independent: every error is clustered by
group, and every interval is Student's t with (groups - 1) degrees of freedom, so it stays
honest with few groups (`tournaments.coverage` measures it from 2 groups up). Where there is
nothing to measure a spread from (one group, or every group alike) there is no interval (NaN,
None in a report), never a zero-width one.

Ratings: a Bradley-Terry model with ties (Davidson 1970) fitted on every pair of players of a
game, see `fit_ratings`. A/B tests: a Gaussian SPRT on per-group score differences, see `sprt`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

ELO = 400.0 / math.log(10.0)  # Elo points per logit of the win / loss odds
PRIOR_SD_ELO = 500.0  # weak Gaussian prior on each bot's rating (mean 0)
PRIOR_LOG_NU = (0.0, 2.0)  # Gaussian prior (mean, sd) on log nu, the Davidson tie parameter
MIN_GROUPS = 2  # an interval needs spread between groups: one group has none to measure

Columns = pa.Table | Mapping[str, Any]


def _col(table: Columns, name: str) -> np.ndarray:
    """One column of a pyarrow Table or a dict of arrays, as numpy."""
    if isinstance(table, pa.Table):
        return table.column(name).to_numpy()
    return np.asarray(table[name])


def t_quantile(level: float, groups: int) -> float:
    """The two-sided `level` quantile of Student's t with `groups` - 1 degrees of freedom
    (at least 1): the multiplier of an error clustered in `groups` groups."""
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, max(groups - 1, 1)))


def cluster_ci(num: np.ndarray, den: np.ndarray, level: float = 0.95
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ratios of sums with intervals clustered by group: num, den float[G, K] (a row a
    duplicate group) -> (estimate sum(num) / sum(den), lo, hi, groups) per column.

    The error is the delta method's for a ratio, clustered by group (the residuals
    num - r den of the groups that count, den > 0, with the small-sample factor G / (G - 1)),
    and the interval Student's t with G - 1 degrees of freedom (`t_quantile`), which keeps its
    coverage down to 2 groups (`tournaments.coverage`). No interval (NaN bounds) with fewer
    than `MIN_GROUPS` groups, or where every group gives the same ratio: one group has no
    spread to measure, and a zero-width interval would claim certainty the data lack."""
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    counts = den > 0
    groups = counts.sum(0)
    total = den.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = num.sum(0) / total
        resid = np.where(counts, num - est * den, 0.0)
        g = np.maximum(groups, 2)
        se = np.sqrt((resid ** 2).sum(0) * g / (g - 1)) / total
    spread = np.array([np.ptp(num[c, k] / den[c, k]) > 1e-12 * max(1.0, abs(est[k]))
                       if c.any() else False for k, c in enumerate(counts.T)], bool)
    ok = (groups >= MIN_GROUPS) & spread & (se > 0)
    t = np.array([t_quantile(level, int(n)) for n in groups])
    lo = np.where(ok, est - t * se, np.nan)
    hi = np.where(ok, est + t * se, np.nan)
    return est, lo, hi, groups


def no_interval_reason(groups: int) -> str:
    """Why a report shows no interval for an estimate over `groups` duplicate groups."""
    if groups < MIN_GROUPS:
        return f"{groups} group{'s' * (groups != 1)}: too few for an interval"
    return "no spread between groups"


def _by_group_bot(seats: Columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bot names, group index per row, bot index per row)."""
    bots, b = np.unique(_col(seats, "bot").astype(str), return_inverse=True)
    _, g = np.unique(_col(seats, "group"), return_inverse=True)
    return bots, g, b


def _table(g: np.ndarray, b: np.ndarray, values: np.ndarray, shape: tuple[int, int]
           ) -> np.ndarray:
    """Sum of `values` per (group, bot): float[G, B]."""
    out = np.zeros(shape)
    np.add.at(out, (g, b), values)
    return out


def bot_summary(seats: Columns, roles: Sequence[str] = (), level: float = 0.95) -> list[dict]:
    """Per bot (sorted by name): games, groups, mean match score and mean score per deal
    (sum of scores / sum of deals) with intervals clustered by group (`cluster_ci`; None
    where there is none), and the share of deals his side won: overall and in each role
    (`win_share_by_role`, keyed by the game's role names `roles`, from `deals_by_role` /
    `won_by_role`; None where he never held the role)."""
    bots, g, b = _by_group_bot(seats)
    shape = (g.max() + 1, len(bots))
    score = _col(seats, "score").astype(np.float64)
    deals = _col(seats, "deals").astype(np.float64)
    in_role = _col_matrix(seats, "deals_by_role", len(roles))
    won = _col_matrix(seats, "won_by_role", len(roles))
    num = _table(g, b, score, shape)
    den_match, den_deal = _table(g, b, np.ones_like(score), shape), _table(g, b, deals, shape)
    est, lo, hi, groups = cluster_ci(np.hstack([num, num]), np.hstack([den_match, den_deal]),
                                     level)
    k = len(bots)
    out = []
    for i, name in enumerate(bots):
        rows = b == i
        n_role, won_role = in_role[rows].sum(0), won[rows].sum(0)
        out.append({
            "bot": str(name), "seats": int(rows.sum()), "groups": int(groups[i]),
            "deals": int(deals[rows].sum()),
            "score": float(est[i]), "score_lo": float(lo[i]), "score_hi": float(hi[i]),
            "score_per_deal": float(est[k + i]),
            "score_per_deal_lo": float(lo[k + i]), "score_per_deal_hi": float(hi[k + i]),
            "win_share": _share(won_role.sum(), deals[rows].sum()),
            "win_share_by_role": {str(r): _share(won_role[j], n_role[j])
                                  for j, r in enumerate(roles)},
        })
    return out


def _col_matrix(table: Columns, name: str, width: int) -> np.ndarray:
    """A column of equal-length lists (`width` each) as float[rows, width]."""
    if isinstance(table, pa.Table):
        values = table.column(name).combine_chunks().flatten().to_numpy()
        return values.astype(np.float64).reshape(-1, width)
    return np.asarray(list(table[name]), np.float64).reshape(-1, width)


def _share(won: float, n: float) -> float | None:
    return float(won / n) if n > 0 else None


def group_means(seats: Columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bot names, group ids, float[G, B] mean match score of each bot in each group, NaN
    where the bot did not play in the group)."""
    bots, g, b = _by_group_bot(seats)
    ids = np.unique(_col(seats, "group"))
    shape = (len(ids), len(bots))
    score = _col(seats, "score").astype(np.float64)
    with np.errstate(invalid="ignore"):
        means = _table(g, b, score, shape) / _table(g, b, np.ones_like(score), shape)
    return bots, ids, means


def pairwise(seats: Columns, level: float = 0.95) -> list[dict]:
    """For each pair of bots (a < b by name) that met in some duplicate group: the mean over
    those groups of (a's mean match score - b's mean match score) in the group, with an
    interval clustered by group (`cluster_ci`; None where there is none) and the number of
    groups."""
    bots, _, means = group_means(seats)
    pairs = [(i, j) for i in range(len(bots)) for j in range(i + 1, len(bots))]
    if not pairs:
        return []
    both = np.stack([~np.isnan(means[:, i]) & ~np.isnan(means[:, j]) for i, j in pairs], 1)
    diff = np.stack([np.nan_to_num(means[:, i] - means[:, j]) for i, j in pairs], 1)
    est, lo, hi, groups = cluster_ci(diff * both, both.astype(np.float64), level)
    return [{"a": str(bots[i]), "b": str(bots[j]), "diff": float(est[p]),
             "lo": float(lo[p]), "hi": float(hi[p]), "groups": int(groups[p])}
            for p, (i, j) in enumerate(pairs) if groups[p]]


def whole_match_partners(deals: Columns, n_players: int) -> np.ndarray:
    """int64[M, 3] rows (game_id, p, q), p < q: players who were on the same side (equal
    `side`, not -1) in every deal of their game. A deal in which a player has no side breaks
    his partnerships."""
    side = _col_matrix(deals, "side", n_players)
    game = _col(deals, "game_id").astype(np.int64)
    ids, g = np.unique(game, return_inverse=True)
    same = (side[:, :, None] == side[:, None, :]) & (side[:, :, None] >= 0)
    n_same = np.zeros((len(ids), n_players, n_players), np.int64)
    np.add.at(n_same, g, same)
    always = n_same == np.bincount(g, minlength=len(ids))[:, None, None]
    gi, p, q = np.nonzero(np.triu(always, 1))
    return np.stack([ids[gi], p, q], 1).astype(np.int64)


def _comparisons(seats: Columns, partners: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Every pair of players of a game with different bots, not whole-match partners:
    (bot names, bot a, bot b, outcome for a: 1 win / 0 tie / -1 loss, group index, number
    of partner pairs left out)."""
    bots, group, b = _by_group_bot(seats)
    ids, gi = np.unique(_col(seats, "game_id").astype(np.int64), return_inverse=True)
    player = _col(seats, "player").astype(np.int64)
    n = int(player.max()) + 1
    bot = np.full((len(ids), n), -1)
    score = np.zeros((len(ids), n))
    grp = np.zeros(len(ids), np.int64)
    bot[gi, player], score[gi, player], grp[gi] = b, _col(seats, "score"), group
    mate = np.zeros((len(ids), n, n), bool)
    if partners is not None and len(partners):
        partners = np.asarray(partners, np.int64)
        k = np.searchsorted(ids, partners[:, 0]).clip(0, len(ids) - 1)
        ok = ids[k] == partners[:, 0]
        mate[k[ok], partners[ok, 1], partners[ok, 2]] = True
    i, j = np.triu_indices(n, 1)
    valid = (bot[:, i] >= 0) & (bot[:, j] >= 0) & (bot[:, i] != bot[:, j])
    left_out = int((valid & mate[:, i, j]).sum())
    valid &= ~mate[:, i, j]
    gg, pp = np.nonzero(valid)
    a, c = bot[gg, i[pp]], bot[gg, j[pp]]
    outcome = np.sign(score[gg, i[pp]] - score[gg, j[pp]]).astype(np.int64)
    return bots, a, c, outcome, grp[gg], left_out


def _davidson(theta: np.ndarray, eta: float, a: np.ndarray, b: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(a wins), P(tie), P(b wins) for strengths theta (logits) and log nu = eta."""
    x = (theta[a] - theta[b]) / 2
    m = np.maximum(np.abs(x), eta)
    ew, el, et = np.exp(x - m), np.exp(-x - m), np.exp(eta - m)
    z = ew + el + et
    return ew / z, et / z, el / z


def _objective(params: np.ndarray, a, b, w, t, l, prior: np.ndarray, mean: np.ndarray
               ) -> float:
    theta, eta = params[:-1], params[-1]
    pw, pt, pl = _davidson(theta, eta, a, b)
    ll = (w * np.log(pw) + t * np.log(pt) + l * np.log(pl)).sum()
    return float(ll - 0.5 * (((params - mean) / prior) ** 2).sum())


def _derivatives(params: np.ndarray, a, b, w, t, l, prior, mean
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of the log posterior in (theta..., eta)."""
    k = len(params)
    pw, pt, pl = _davidson(params[:-1], params[-1], a, b)
    n = w + t + l
    d = pw - pl
    gx, ge = (w - l) - n * d, t - n * pt  # d/dx and d/deta, x = (theta_a - theta_b) / 2
    hxx, hee, hxe = -n * (pw + pl - d * d), -n * pt * (1 - pt), n * d * pt
    u = np.zeros((len(a), k))
    u[np.arange(len(a)), a] += 0.5
    u[np.arange(len(a)), b] -= 0.5
    e = np.zeros(k)
    e[-1] = 1.0
    grad = u.T @ gx + e * ge.sum() - (params - mean) / prior**2
    cross = u.T @ hxe
    hess = (u.T * hxx) @ u + np.outer(e, e) * hee.sum() + np.outer(cross, e) + np.outer(e, cross)
    return grad, hess - np.diag(1 / prior**2)


def _newton(params: np.ndarray, args: tuple, max_iter: int) -> tuple[np.ndarray, int, bool]:
    """Maximise the concave log posterior: (params, iterations, converged)."""
    for it in range(1, max_iter + 1):
        grad, hess = _derivatives(params, *args)
        step = np.linalg.solve(hess, -grad)
        f0, s = _objective(params, *args), 1.0
        while _objective(params + s * step, *args) < f0 - 1e-12 and s > 1e-6:
            s /= 2
        params = params + s * step
        if np.abs(s * step).max() < 1e-9:
            return params, it, True
    return params, max_iter, False


def fit_ratings(seats: Columns, partners: np.ndarray | None = None, level: float = 0.95,
                max_iter: int = 100) -> dict:
    """Joint Elo ratings of all bots: Bradley-Terry with ties (Davidson) by batch maximum
    a posteriori (Newton with step halving; the log posterior is concave).

    Data: every pair of players of every game, compared by match score (higher wins, equal
    ties); a player's strength is his bot's rating. Left out: pairs of the same bot (no
    information on ratings) and, team-aware, `partners` rows (game_id, p, q) from
    `whole_match_partners` (a whole-match partnership makes the scores equal by construction).
    P(a beats b) = pa / (pa + pb + nu sqrt(pa pb)), P(tie) = nu sqrt(pa pb) / (...), so the
    rating difference is the log-odds of win vs loss, reported as Elo (400 / ln 10 per logit).

    Priors (light regularisation, so a bot that never loses keeps a finite rating): each
    rating ~ N(0, PRIOR_SD_ELO) and log nu ~ N(PRIOR_LOG_NU); the prior's symmetry puts the
    ratings' mean at exactly 0. Covariance `cov` (Elo^2, of the mean-zero ratings) and `se`:
    the sandwich clustered by duplicate group, which allows for the correlation of the games
    of a group (they share a deal) and of the pairs of one game, with the small-sample
    factor G / (G - 1) for G groups; CIs `lo`, `hi` are t intervals at `level` with G - 1
    degrees of freedom (`t_quantile`; the null simulation of `tournaments.coverage` checks
    their coverage), NaN with fewer than `MIN_GROUPS` groups or no spread between them.
    `se_model`: the model's own standard error (the inverse observed information), which
    treats every pair as independent and is far too small here."""
    bots, a, b, outcome, group, left_out = _comparisons(seats, partners)
    k = len(bots)
    wins, ties, losses = (np.zeros((k, k)) for _ in range(3))
    np.add.at(wins, (a, b), outcome > 0)
    np.add.at(ties, (a, b), outcome == 0)
    np.add.at(losses, (a, b), outcome < 0)
    ia, ib = np.triu_indices(k, 1)
    w = wins[ia, ib] + losses[ib, ia]
    l = losses[ia, ib] + wins[ib, ia]
    t = ties[ia, ib] + ties[ib, ia]
    prior = np.r_[np.full(k, PRIOR_SD_ELO / ELO), PRIOR_LOG_NU[1]]
    mean = np.r_[np.zeros(k), PRIOR_LOG_NU[0]]
    args = (ia, ib, w, t, l, prior, mean)
    params, it, converged = _newton(mean.copy(), args, max_iter)
    _, hess = _derivatives(params, *args)
    cov = np.linalg.inv(-hess)
    proj = np.eye(k) - 1.0 / k
    se_model = np.sqrt(np.diag(proj @ cov[:k, :k] @ proj)) * ELO
    groups = len(np.unique(group))
    cov_t = _cluster_cov(params, a, b, outcome, group, cov, proj) * groups / max(groups - 1, 1)
    se = np.sqrt(np.diag(cov_t))
    z = t_quantile(level, groups) if groups >= MIN_GROUPS else np.nan
    rating = (params[:k] - params[:k].mean()) * ELO
    z = np.where(se > 1e-9, z, np.nan)  # no spread between groups: no interval
    return {
        "bots": [str(x) for x in bots], "elo": rating.tolist(),
        "lo": (rating - z * se).tolist(), "hi": (rating + z * se).tolist(), "se": se.tolist(),
        "se_model": se_model.tolist(), "cov": cov_t.tolist(), "nu": float(np.exp(params[-1])),
        "comparisons": int(len(a)), "groups": groups, "partner_pairs_left_out": left_out,
        "iterations": it, "converged": converged, "level": level,
        "prior_sd_elo": PRIOR_SD_ELO, "prior_log_nu": list(PRIOR_LOG_NU),
    }


def _cluster_cov(params: np.ndarray, a, b, outcome, group, cov: np.ndarray, proj: np.ndarray
                 ) -> np.ndarray:
    """The sandwich covariance (Elo^2) of the mean-zero ratings, clustered by group."""
    k = len(params) - 1
    pw, pt, pl = _davidson(params[:-1], params[-1], a, b)
    gx, ge = outcome - (pw - pl), (outcome == 0) - pt
    score = np.zeros((group.max() + 1 if len(group) else 0, k + 1))
    np.add.at(score, (group, a), gx / 2)
    np.add.at(score, (group, b), -gx / 2)
    np.add.at(score, (group, np.full_like(a, k)), ge)
    sandwich = cov @ (score.T @ score) @ cov
    return proj @ sandwich[:k, :k] @ proj * ELO**2


def sprt(diffs: np.ndarray, mu0: float, mu1: float, alpha: float = 0.05, beta: float = 0.05,
         state: Mapping[str, Any] | None = None) -> dict:
    """Sequential probability ratio test of H1: mean difference = mu1 against H0: = mu0, on
    per-duplicate-group score differences (candidate - baseline), modelled as Gaussian with
    the variance estimated from all the data so far (sample variance, ddof 1):
    llr = (mu1 - mu0) / var * sum(d - (mu0 + mu1) / 2). Verdict "H1" at llr >= log((1 - beta)
    / alpha), "H0" at llr <= log(beta / (1 - alpha)), else "continue" (also with < 2 data or
    zero variance and the mean at the midpoint).

    Incremental: pass the previous result as `state` and only the new `diffs`; the result
    carries the running n, sum and sum of squares. The caller stops at the first verdict."""
    d = np.asarray(diffs, np.float64).ravel()
    n = int((state or {}).get("n", 0)) + d.size
    s = float((state or {}).get("sum", 0.0)) + float(d.sum())
    ss = float((state or {}).get("sum_sq", 0.0)) + float((d * d).sum())
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    llr, var = 0.0, float("nan")
    if n >= 2:
        var = max(ss - s * s / n, 0.0) / (n - 1)
        excess = (mu1 - mu0) * (s - n * (mu0 + mu1) / 2)
        llr = excess / var if var > 0 else math.copysign(math.inf, excess) if excess else 0.0
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
    return {"n": n, "sum": s, "sum_sq": ss, "mean": s / n if n else float("nan"), "var": var,
            "llr": llr, "lower": lower, "upper": upper, "verdict": verdict,
            "mu0": mu0, "mu1": mu1, "alpha": alpha, "beta": beta}
