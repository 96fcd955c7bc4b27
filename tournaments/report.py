"""The report of a tournament folder: DIR/report.json, DIR/ratings.png, DIR/scores.png and a
terminal table (`kanjax tournament report DIR`).

Reads DIR/seats/ (required), DIR/deals/ (its `game_id` and `side` columns, for the
team-aware ratings) and DIR/games/ (forfeits, truncations) with `pyarrow.dataset`. From
DIR/manifest.json it reads `roles` (the game's role names; without them roles are "role0",
"role1", ...), `config.format` and, when that is "ab", `config.ab` = {candidate, baseline,
mu0, mu1, alpha, beta} (alpha and beta default to 0.05); a missing or unreadable manifest
just means no SPRT.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from tournaments import stats
from tournaments.schema import GAMES, SEATS


def _read(root: Path, name: str, schema: pa.Schema) -> pa.Table:
    """One table of the folder (empty, with its schema, when absent)."""
    folder = root / name
    if not folder.is_dir():
        return schema.empty_table()
    return ds.dataset(folder, format="parquet", schema=schema).to_table()


def _sides(root: Path) -> pa.Table | None:
    """The `game_id` and `side` columns of the deals table, or None without deals."""
    folder = root / "deals"
    if not folder.is_dir():
        return None
    table = ds.dataset(folder, format="parquet").to_table(columns=["game_id", "side"])
    return table if table.num_rows else None


def _manifest(root: Path) -> dict:
    """manifest.json as a dict ({} when missing or unreadable)."""
    try:
        manifest = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def _roles(manifest: dict, seats: pa.Table) -> list[str]:
    """The game's role names: the manifest's, else role0, role1, ... (as many as the seats'
    per-role lists hold)."""
    roles = manifest.get("roles")
    if isinstance(roles, list) and all(isinstance(r, str) for r in roles):
        return roles
    lengths = pc.list_value_length(seats.column("deals_by_role")).to_numpy()
    return [f"role{i}" for i in range(int(lengths.max()) if len(lengths) else 0)]


def _ab_settings(manifest: dict) -> dict | None:
    """The A/B test settings of the manifest, or None when the format is not "ab"."""
    config = manifest.get("config") or {}
    if not isinstance(config, dict) or config.get("format") != "ab":
        return None
    ab = config.get("ab")
    return ab if isinstance(ab, dict) else {}


def _sprt(seats: pa.Table, ab: dict) -> dict:
    """The SPRT on per-group differences of mean match score, candidate - baseline, in group
    order (the order the runner tested them)."""
    try:
        cand, base = str(ab["candidate"]), str(ab["baseline"])
        mu0, mu1 = float(ab["mu0"]), float(ab["mu1"])
        alpha, beta = float(ab.get("alpha", 0.05)), float(ab.get("beta", 0.05))
    except (KeyError, TypeError, ValueError) as err:
        return {"error": f"manifest config.ab is incomplete: {err!r}"}
    bots, _, means = stats.group_means(seats)
    names = list(bots)
    if cand not in names or base not in names:
        return {"error": f"candidate {cand!r} or baseline {base!r} did not play"}
    d = means[:, names.index(cand)] - means[:, names.index(base)]
    result = stats.sprt(d[~np.isnan(d)], mu0, mu1, alpha, beta)
    return {"candidate": cand, "baseline": base, **result}


def _forfeits(games: pa.Table) -> dict[str, dict[str, int]]:
    """Forfeits per bot and kind of reason (the `forfeit_reason` "bot: kind: detail":
    crash, timeout, illegal, ...)."""
    forfeit = games.column("forfeit").to_numpy()
    rows = np.nonzero(forfeit >= 0)[0]
    bots = games.column("bots").take(rows).to_pylist()
    reasons = games.column("forfeit_reason").take(rows).to_pylist()
    out: dict[str, Counter] = {}
    for b, p, reason in zip(bots, forfeit[rows], reasons, strict=True):
        kind = reason.removeprefix(f"{b[p]}: ").partition(":")[0].strip() or "unknown"
        out.setdefault(b[p], Counter())[kind] += 1
    return {bot: dict(sorted(kinds.items())) for bot, kinds in sorted(out.items())}


def _forfeit_cell(kinds: dict[str, int]) -> str:
    """A bot's forfeits in the terminal table: "0", or "3 (crash 2, timeout 1)"."""
    if not kinds:
        return "0"
    return f"{sum(kinds.values())} (" + ", ".join(f"{k} {n}" for k, n in kinds.items()) + ")"


def completeness(manifest: dict, games: pa.Table) -> dict:
    """Games stored of planned (the manifest's `planned`; None for an older folder), whether
    the run is finished (all stored, or the A/B test decided), and the duplicate groups of
    which only some games are stored (their comparisons are unbalanced)."""
    planned = manifest.get("planned") or {}
    stored = games.num_rows
    _, per_group = np.unique(games.column("group").to_numpy(), return_counts=True)
    size = planned.get("games_per_group") or (per_group.max() if stored else 0)
    decided = (manifest.get("sprt") or {}).get("verdict") in ("H0", "H1")
    return {"stored": stored, "planned": planned.get("games"),
            "finished": decided or stored == planned.get("games", stored),
            "partial_groups": int(np.sum(per_group < size))}


def format_completeness(c: dict) -> list[str]:
    """The report's first lines: games stored of planned, and warnings."""
    of = f" of {c['planned']} planned" if c["planned"] is not None else ""
    lines = [f"{c['stored']} games stored{of}"]
    if not c["finished"]:
        lines.append("WARNING: incomplete tournament: run `kanjax tournament run` with its "
                     "config again to finish it")
    if c["partial_groups"]:
        lines.append(f"WARNING: {c['partial_groups']} duplicate groups partly stored (not all "
                     "their games): their comparisons are not balanced")
    return lines


def _clean(x: Any) -> Any:
    """JSON-safe: numpy scalars to Python, NaN and infinities to None."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _repeats(games: pa.Table) -> np.ndarray:
    """The ids of the games that repeat an earlier game of the folder: the same duplicate
    group (deal seed and pairing, so the same keys) and the same bot in every seat
    (`tournaments.plan`'s "rotations" seatings play each seating several times)."""
    seen, out = set(), []
    cols = games.select(["game_id", "group", "bots"]).to_pydict()
    for gid, group, bots in sorted(zip(cols["game_id"], cols["group"], cols["bots"],
                                       strict=True)):
        key = (group, tuple(bots))
        if key in seen:
            out.append(gid)
        seen.add(key)
    return np.array(out, np.int64)


def report(dir: str | Path) -> dict:
    """Compute the statistics of a tournament folder, write DIR/report.json and the plots,
    and return the report (JSON-safe)."""
    root = Path(dir)
    seats = _read(root, "seats", SEATS)
    if seats.num_rows == 0:
        raise ValueError(f"{root}: no games stored (no rows under {root / 'seats'})")
    games, sides = _read(root, "games", GAMES), _sides(root)
    repeats = _repeats(games)
    if len(repeats):  # count each game once (a folder run with seatings = "rotations")
        seats = seats.filter(pc.invert(pc.is_in(seats.column("game_id"), pa.array(repeats))))
        games = games.filter(pc.invert(pc.is_in(games.column("game_id"), pa.array(repeats))))
        if sides is not None:
            sides = sides.filter(pc.invert(pc.is_in(sides.column("game_id"), pa.array(repeats))))
    n_players = int(seats.column("player").to_numpy().max()) + 1
    partners = stats.whole_match_partners(sides, n_players) if sides is not None else None
    manifest = _manifest(root)
    roles = _roles(manifest, seats)
    ab = _ab_settings(manifest)
    result = _clean({
        "dir": str(root),
        "completeness": completeness(manifest, games),
        "roles": roles,
        "games": len(np.unique(seats.column("game_id").to_numpy())),
        "groups": len(np.unique(seats.column("group").to_numpy())),
        "repeats_left_out": len(repeats),
        "truncated": int(np.sum(games.column("truncated").to_numpy(zero_copy_only=False))),
        "forfeits": _forfeits(games),
        "bots": stats.bot_summary(seats, roles),
        "pairwise": stats.pairwise(seats),
        "ratings": stats.fit_ratings(seats, partners),
        "sprt": _sprt(seats, ab) if ab is not None else None,
        "plots": ["ratings.png", "scores.png"],
    })
    (root / "report.json").write_text(json.dumps(result, indent=2, allow_nan=False))
    title = _run_title(root, manifest, result)
    _plot_ratings(result["ratings"], root / "ratings.png", title)
    _plot_scores(seats, root / "scores.png", title)
    return result


def _run_title(root: Path, manifest: dict, result: dict) -> str:
    """The plots' title: the run (its folder's name), its game and its size."""
    config = manifest.get("config")
    game = config.get("game") if isinstance(config, dict) else None
    return (f"{root.resolve().name}" + (f" ({game})" if isinstance(game, str) else "")
            + f": {result['games']} games, {result['groups']} duplicate groups")


def _plot_ratings(ratings: dict, path: Path, title: str):
    """Elo rating of each bot with its CI, best on top; where there is no interval, the
    points alone, on an axis of at least +-100 Elo, and the plot says why."""
    from matplotlib.figure import Figure

    order = np.argsort(ratings["elo"])
    elo = np.array(ratings["elo"])[order]
    lo = np.array([np.nan if x is None else x for x in ratings["lo"]], float)[order]
    hi = np.array([np.nan if x is None else x for x in ratings["hi"]], float)[order]
    fig = Figure(figsize=(6, 1 + 0.45 * len(order)), layout="tight")
    ax = fig.add_subplot()
    shown = ~np.isnan(lo)
    ax.errorbar(elo[shown], np.arange(len(order))[shown],
                xerr=[elo[shown] - lo[shown], hi[shown] - elo[shown]], fmt="o", capsize=4)
    ax.plot(elo[~shown], np.arange(len(order))[~shown], "o", color="grey")
    ax.set_yticks(np.arange(len(order)), [ratings["bots"][i] for i in order])
    ax.axvline(0, color="grey", lw=0.8)
    reach = max(100.0, *np.abs(elo), *np.abs(lo[shown]), *np.abs(hi[shown]))
    ax.set_xlim(-1.1 * reach, 1.1 * reach)
    label = f"Elo (mean 0), {ratings['level']:.0%} CI clustered by duplicate group"
    if not shown.all():
        label += f"\nno CI (grey): {stats.no_interval_reason(ratings['groups'])}"
    ax.set_xlabel(label)
    ax.set_title(title, fontsize="medium")
    fig.savefig(path, dpi=100)
    return fig


def _plot_scores(seats: pa.Table, path: Path, title: str):
    """Box plot of the match scores of each bot (the mean a triangle), on an axis that holds
    the middle 98% of all scores: a few outliers (forfeits at the game's worst score) would
    squash the boxes, so the scores beyond it are counted under each bot's name instead."""
    from matplotlib.figure import Figure

    bot = seats.column("bot").to_numpy(zero_copy_only=False).astype(str)
    score = seats.column("score").to_numpy()
    names = sorted(set(bot))
    lo, hi = np.percentile(score, [1, 99])
    pad = max(hi - lo, 1.0) * 0.05
    lo, hi = lo - pad, hi + pad
    labels = []
    for n in names:
        off = int(((score[bot == n] < lo) | (score[bot == n] > hi)).sum())
        labels.append(n + (f"\n({off} off scale)" if off else ""))
    fig = Figure(figsize=(2.5 + 1.2 * len(names), 4), layout="tight")
    ax = fig.add_subplot()
    ax.boxplot([score[bot == n] for n in names], showmeans=True)
    ax.set_xticks(np.arange(1, len(names) + 1), labels)
    ax.set_ylim(lo, hi)
    ax.set_ylabel("match score")
    ax.set_title(title, fontsize="medium")
    fig.savefig(path, dpi=100)
    return fig


def _ci(x: float | None, lo: float | None, hi: float | None, groups: int, digits: int = 2
        ) -> str:
    """An estimate with its interval, or with why it has none (`stats.no_interval_reason`)."""
    if x is None:
        return "n/a"
    if lo is None or hi is None:
        return f"{x:.{digits}f} (no CI: {stats.no_interval_reason(groups)})"
    return f"{x:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def _width(role: str) -> int:
    """The column width of a role's win share in the terminal table."""
    return max(len(role), 4) + 2


def bot_table(result: dict) -> tuple[list[tuple[str, str, str]], list[list[str]]]:
    """The per-bot table of a `report()` result, best rated first: its columns (header,
    terminal alignment and width, the gap before it) and a row of cells a bot."""
    r = result["ratings"]
    elo = {b: (e, lo, hi) for b, e, lo, hi in zip(r["bots"], r["elo"], r["lo"], r["hi"],
                                                  strict=True)}
    columns = [("bot", "<16", ""), ("seats", ">7", ""), ("score/deal [95% CI]", "<26", "  "),
               ("score/match [95% CI]", "<28", ""), ("won", ">6", ""),
               *[(role, f">{_width(role)}", "") for role in result["roles"]],
               ("Elo [95% CI]", "<18", "  "), ("forfeits", "", "")]
    rows = []
    for b in sorted(result["bots"], key=lambda b: -elo[b["bot"]][0]):
        rows.append([b["bot"], str(b["seats"]),
                     _ci(b["score_per_deal"], b["score_per_deal_lo"], b["score_per_deal_hi"],
                         b["groups"]),
                     _ci(b["score"], b["score_lo"], b["score_hi"], b["groups"]),
                     _pct(b["win_share"]),
                     *[_pct(b["win_share_by_role"].get(role)) for role in result["roles"]],
                     _ci(*elo[b["bot"]], r["groups"], digits=0),
                     _forfeit_cell(result["forfeits"].get(b["bot"], {}))])
    return columns, rows


def table_notes(result: dict) -> list[str]:
    """The lines under the per-bot table: what `won` counts, how the ratings were fitted."""
    r = result["ratings"]
    notes = ["(won: share of deals his side won, overall and in each role)"] * bool(
        result["roles"])
    return notes + [f"(ratings: Davidson Bradley-Terry on {r['comparisons']} player pairs, "
                    f"tie nu {r['nu']:.2f}; {r['partner_pairs_left_out']} whole-match partner "
                    "pairs left out)"]


PAIRWISE_TITLE = "pairwise (mean match score difference a - b over shared duplicate groups)"


def pairwise_rows(result: dict) -> list[tuple[str, str, str, int]]:
    """(a, b, the difference with its CI, shared groups) for each pair of bots."""
    return [(p["a"], p["b"], _ci(p["diff"], p["lo"], p["hi"], p["groups"]), p["groups"])
            for p in result["pairwise"]]


def sprt_line(result: dict) -> str | None:
    """The A/B test's verdict (or why there is none); None without an A/B test."""
    s = result.get("sprt")
    if not s:
        return None
    if "error" in s:
        return f"SPRT: {s['error']}"
    llr = "n/a" if s["llr"] is None else f"{s['llr']:.2f}"
    return (f"SPRT {s['candidate']} vs {s['baseline']} (H0 mu={s['mu0']:g}, "
            f"H1 mu={s['mu1']:g}): {s['verdict']}, llr {llr} in "
            f"({s['lower']:.2f}, {s['upper']:.2f}) after {s['n']} groups")


def headline(result: dict) -> str:
    """The report's title line: the folder, its games and groups (and truncated games)."""
    repeats = result.get("repeats_left_out", 0)
    return (f"{result['dir']}: {result['games']} games in {result['groups']} duplicate groups"
            + (f", {result['truncated']} truncated" if result["truncated"] else "")
            + (f" ({repeats} repeats of these games left out)" if repeats else ""))


def format_report(result: dict) -> str:
    """A terminal table of a `report()` result."""
    columns, rows = bot_table(result)
    lines = [headline(result), "",
             "".join(gap + f"{head:{spec}}" for head, spec, gap in columns)]
    lines += ["".join(gap + f"{cell:{spec}}" for (_, spec, gap), cell in
                      zip(columns, row, strict=True)) for row in rows]
    lines += table_notes(result) + ["", PAIRWISE_TITLE]
    lines += [f"  {a} - {b}: {diff}  ({groups} groups)"
              for a, b, diff, groups in pairwise_rows(result)]
    sprt = sprt_line(result)
    if sprt:
        lines += ["", sprt]
    return "\n".join(format_completeness(result["completeness"]) + lines)
