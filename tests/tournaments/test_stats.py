"""Tournament statistics and report on synthetic tables (no engine): bootstrap coverage and
group resampling, pairwise offsets, ratings from simulated Bradley-Terry data, SPRT verdicts,
and the report files."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tournaments import stats
from tournaments.coverage import coverage
from tournaments.report import _plot_ratings, _plot_scores, _run_title, format_report, report
from tournaments.schema import tables as tables_for

N = 5  # players per game
LISTS = ("deals_by_role", "won_by_role")  # list columns (kept as lists of lists)


def make_seats(strength: dict[str, float], groups: int, seed: int = 0, luck: float = 3.0,
               noise: str = "normal", seating: list[str] | None = None) -> dict:
    """A duplicate tournament: each group plays N seat rotations of one seating (of two bots
    at least, so that no game repeats another) with shared per-seat luck; a player's score
    is luck + his bot's strength + noise."""
    rng = np.random.default_rng(seed)
    names = list(strength)
    cols: dict[str, list] = {k: [] for k in ("game_id", "group", "rotation", "player", "bot",
                                             "score", "deals", "side", "role",
                                             "deals_by_role", "won_by_role")}
    for g in range(groups):
        seats = seating
        while seats is None or (seating is None and len(set(seats)) == 1):  # 5 repeats
            seats = [names[i] for i in rng.integers(0, len(names), N)]
        seat_luck = rng.normal(0, luck, N)
        for r in range(N):
            for p in range(N):
                bot = seats[(p + r) % N]
                eps = rng.gumbel() if noise == "gumbel" else rng.normal()
                row = (g * N + r, g, r, p, bot, seat_luck[p] + strength[bot] + eps, 6, -1, -1,
                       [2, 4], [1, 2])
                for k, v in zip(cols, row, strict=True):
                    cols[k].append(v)
    return {k: np.array(v) if k not in LISTS else v for k, v in cols.items()}


def ratio_ci(values: np.ndarray, groups: np.ndarray, weights: np.ndarray | None = None):
    """`stats.cluster_ci` of the (weighted) mean of `values`, clustered by `groups`."""
    w = np.ones_like(values) if weights is None else weights
    _, g = np.unique(groups, return_inverse=True)
    num, den = np.bincount(g, w * values)[:, None], np.bincount(g, w)[:, None]
    return tuple(float(x[0]) for x in stats.cluster_ci(num, den))


@pytest.mark.parametrize("n_groups", [3, 40])
def test_clustered_t_interval_covers_the_true_mean(n_groups):
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(n_groups), 5)
    hits = 0
    for _ in range(400):
        values = 2.0 + rng.normal(0, 1, n_groups)[groups] + rng.normal(0, 1, 5 * n_groups)
        _, lo, hi, _ = ratio_ci(values, groups)
        hits += lo <= 2.0 <= hi
    assert 0.91 <= hits / 400 <= 0.985


def test_clustered_interval_is_wider_when_rows_are_correlated():
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(100), 10)
    values = rng.normal(0, 3, 100)[groups] + rng.normal(0, 1, 1000)
    est, lo, hi, g = ratio_ci(values, groups)
    est_rows, lo_rows, hi_rows, g_rows = ratio_ci(values, np.arange(1000))
    assert est == pytest.approx(values.mean()) == pytest.approx(est_rows)
    assert (g, g_rows) == (100, 1000) and lo < est < hi
    assert hi - lo > 2 * (hi_rows - lo_rows)  # sqrt(design effect) = sqrt(1 + 9 * 9 / 10) ~ 3


def test_weighted_mean_is_a_ratio_of_sums():
    est, lo, hi, _ = ratio_ci(np.array([1.0, 3.0]), np.array([0, 1]), np.array([3.0, 1.0]))
    assert est == pytest.approx(1.5)
    assert lo < 1.0 and hi > 3.0  # two groups: t with 1 degree of freedom, wide


def test_issue_44_no_zero_width_interval_from_one_group_or_no_spread():
    # one group: "0.20 [0.20, 0.20]" before; groups that all agree: "1.00 [1.00, 1.00]"
    for values, groups, reason in (
            (np.array([0.1, 0.3, 0.2]), np.zeros(3), "1 group: too few for an interval"),
            (np.array([1.0, 1.0, 1.0, 1.0]), np.arange(4), "no spread between groups")):
        est, lo, hi, g = ratio_ci(values, groups)
        assert np.isnan(lo) and np.isnan(hi)
        assert stats.no_interval_reason(int(g)) == reason
    seats = make_seats({"a": 0.5, "b": 0.0}, groups=1, seed=9)
    r = stats.fit_ratings(seats)
    assert np.isnan(r["lo"]).all() and np.isnan(r["hi"]).all()
    pair = stats.pairwise(seats)[0]
    assert pair["groups"] == 1 and np.isnan(pair["lo"])


def test_issue_44_intervals_cover_a_null_from_2_to_8_groups():
    # the report's three intervals, on null tournaments shaped like the quickstart's
    for groups in (2, 3, 5, 8):
        result = coverage(150, groups=groups, seed=groups)
        for key in ("coverage_se", "coverage_score", "coverage_pairwise"):
            assert 0.87 <= result[key] <= 0.995, (groups, key, result[key])


def test_bot_summary_by_hand():
    seats = {"game_id": np.array([0, 0, 1, 1]), "group": np.array([0, 0, 1, 1]),
             "player": np.array([0, 1, 0, 1]), "bot": np.array(["a", "b", "b", "a"]),
             "score": np.array([4.0, -4.0, 2.0, -2.0]), "deals": np.array([2, 2, 6, 6]),
             "deals_by_role": [[1, 1], [1, 1], [3, 3], [3, 3]],
             "won_by_role": [[1, 1], [0, 0], [3, 0], [0, 3]]}
    a, b = stats.bot_summary(seats, ("first", "second"))
    assert (a["bot"], a["seats"], a["groups"], a["deals"]) == ("a", 2, 2, 8)
    assert a["score"] == pytest.approx(1.0) and a["score_per_deal"] == pytest.approx(2 / 8)
    assert a["win_share"] == pytest.approx(5 / 8)
    assert a["win_share_by_role"] == {"first": pytest.approx(1 / 4), "second": 1.0}
    assert b["score_per_deal"] == pytest.approx(-2 / 8)
    assert b["win_share_by_role"]["first"] == 0.75
    assert a["score_lo"] <= a["score"] <= a["score_hi"]
    assert a["groups"] == 2 and a["score_per_deal_lo"] < a["score_per_deal"]



def test_pairwise_recovers_a_known_offset():
    seats = make_seats({"a": 2.0, "b": 0.0, "c": 0.5}, groups=150, seed=3)
    pairs = {(p["a"], p["b"]): p for p in stats.pairwise(seats)}
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    ab = pairs["a", "b"]
    assert ab["lo"] < 2.0 < ab["hi"] and ab["hi"] - ab["lo"] < 1.0
    assert ab["groups"] <= 150
    assert pairs["b", "c"]["hi"] < 0 < pairs["a", "c"]["lo"]


ELO_TRUE = {"w": -150.0, "x": 0.0, "y": 50.0, "z": 250.0}


def test_ratings_recover_bradley_terry_strengths():
    # Gumbel noise on the score makes every pair of players a Bradley-Terry comparison
    strength = {k: v / stats.ELO for k, v in ELO_TRUE.items()}
    r = stats.fit_ratings(make_seats(strength, groups=300, seed=4, luck=0.0, noise="gumbel"))
    assert r["converged"] and r["bots"] == list(ELO_TRUE)
    truth = np.array(list(ELO_TRUE.values()))
    truth -= truth.mean()
    elo = np.array(r["elo"])
    assert elo.sum() == pytest.approx(0, abs=1e-6)
    assert list(np.argsort(elo)) == [0, 1, 2, 3]
    assert np.abs(elo - truth).max() < 40
    assert all(lo < e < hi for e, lo, hi in zip(elo, r["lo"], r["hi"], strict=True))
    cov = np.array(r["cov"])
    assert np.allclose(cov, cov.T) and np.allclose(np.sqrt(np.diag(cov)), r["se"])
    assert r["nu"] < 0.1  # continuous scores: no ties


@pytest.mark.parametrize("k", [2, 10])
def test_ratings_handle_few_and_many_bots_and_a_bot_that_never_loses(k):
    strength = {f"b{i}": float(i) for i in range(k - 1)} | {"best": 1000.0}
    r = stats.fit_ratings(make_seats(strength, groups=40, seed=5, luck=0.0))
    assert r["converged"] and np.isfinite(r["elo"]).all() and np.isfinite(r["se"]).all()
    assert r["elo"][r["bots"].index("best")] == max(r["elo"])


def test_rating_intervals_are_clustered_by_duplicate_group():
    # 4 games in 2 groups, each game 2 x "a" vs 1 x "b"; then each game played twice in its
    # own group (copies of one deal: no new information) and in a new group (new deals)
    seats = {"game_id": np.repeat(np.arange(4), 3), "group": np.repeat([0, 0, 1, 1], 3),
             "player": np.tile(np.arange(3), 4), "bot": np.array(list("aab" * 4)),
             "score": np.array([3.0, 1, 2, 0, 1, 2, 2, 2, 1, 1, 0, 3])}

    def doubled(new_groups: bool) -> dict:
        extra = {k: v.copy() for k, v in seats.items()}
        extra["game_id"] += 4
        extra["group"] += 2 * new_groups
        return {k: np.concatenate([seats[k], extra[k]]) for k in seats}

    one, same, new = (stats.fit_ratings(x) for x in (seats, doubled(False), doubled(True)))
    for r in (one, same, new):  # t intervals with (groups - 1) degrees of freedom
        t = stats.t_quantile(0.95, r["groups"])
        assert np.allclose(np.array(r["hi"]) - r["elo"], t * np.array(r["se"]))
        assert np.allclose(np.sqrt(np.diag(r["cov"])), r["se"])
    # the model's error takes every copy for new information; the clustered one does not
    assert same["se_model"][0] == pytest.approx(one["se_model"][0] / np.sqrt(2), rel=0.05)
    assert same["se"][0] == pytest.approx(one["se"][0], rel=0.05)
    assert new["se"][0] == pytest.approx(one["se"][0] / np.sqrt(2 * 3) * np.sqrt(2), rel=0.05)
    assert stats.t_quantile(0.95, 2) == pytest.approx(12.706, abs=1e-3)  # 2 groups: wide


@pytest.mark.slow
def test_rating_intervals_cover_a_null_95_percent_of_the_time():
    # BENCHMARKS.md: `python -m tournaments.coverage` with 1000 tournaments a setting
    result = coverage(400, groups=32, seed=1)
    assert 0.92 <= result["coverage_se"] <= 0.98


def test_whole_match_partners_are_left_out_of_the_ratings():
    # game 0: teams {0, 1} and {2, 3, 4} in both deals; game 1: the teams change, then a
    # deal without sides breaks every partnership
    deals = {"game_id": np.array([0, 0, 1, 1, 1]),
             "side": [[0, 0, 1, 1, 1], [1, 1, 0, 0, 0], [0, 0, 1, 1, 1], [1, 0, 0, 1, 1],
                      [-1] * N]}
    partners = stats.whole_match_partners(deals, N)
    assert partners.tolist() == [[0, 0, 1], [0, 2, 3], [0, 2, 4], [0, 3, 4]]
    seats = {"game_id": np.repeat([0, 1], N), "group": np.repeat([0, 1], N),
             "player": np.tile(np.arange(N), 2), "bot": np.array(list("ababb" "ababb")),
             "score": np.array([5.0, 5, -3, -3, -3, 1, 2, 3, 4, 5])}
    full = stats.fit_ratings(seats)
    team = stats.fit_ratings(seats, partners)
    assert full["comparisons"] == 12 and full["partner_pairs_left_out"] == 0
    # game 0 loses (0, 1), (2, 3), (2, 4); (3, 4) are both "b", never compared
    assert team["comparisons"] == 9 and team["partner_pairs_left_out"] == 3


def test_sprt_verdicts_and_incremental_use():
    rng = np.random.default_rng(6)
    better = rng.normal(1.0, 2.0, 300)
    result = stats.sprt(better, mu0=0.0, mu1=1.0)
    assert result["verdict"] == "H1" and result["llr"] >= result["upper"]
    assert result["lower"] == pytest.approx(np.log(0.05 / 0.95))
    state = None
    for chunk in np.array_split(better, 7):
        state = stats.sprt(chunk, 0.0, 1.0, state=state)
    assert state["n"] == 300 and state["llr"] == pytest.approx(result["llr"])
    equal = stats.sprt(rng.normal(0.0, 2.0, 300), mu0=0.0, mu1=1.0)
    assert equal["verdict"] == "H0" and equal["llr"] <= equal["lower"]
    assert stats.sprt(better[:1], 0.0, 1.0)["verdict"] == "continue"


def write_folder(root, seats: dict, manifest: dict) -> None:
    """A tournament folder: one chunk file per table, and the manifest."""
    games = sorted(set(seats["game_id"].tolist()))
    rows = {g: seats["game_id"] == g for g in games}
    n = len(games)
    tables = {
        "seats": pa.table(seats),
        "games": pa.table({
            "game_id": games, "group": [int(seats["group"][rows[g]][0]) for g in games],
            "rotation": [int(seats["rotation"][rows[g]][0]) for g in games], "chunk": [0] * n,
            "seed": games, "config_hash": ["h"] * n, "game": ["gonin_kan"] * n,
            "flags": ["{}"] * n, "bots": [seats["bot"][rows[g]].tolist() for g in games],
            "scores": [seats["score"][rows[g]].tolist() for g in games], "steps": [100] * n,
            "truncated": [False] * n, "forfeit": [1] + [-1] * (n - 1),
            "forfeit_reason": ["base: crash: boom"] + [""] * (n - 1), "actions": [[1, 2]] * n}),
        "deals": pa.table({
            "game_id": games, "deal_index": [0] * n, "side": [[0, 0, 1, 1, 1]] * n,
            "role": [[0, 0, 1, 1, 1]] * n, "won": [[True] * 2 + [False] * 3] * n,
            "counted": [True] * n, "tricks": [3] * n}),
    }
    schemas = tables_for([("tricks", "int8")])
    for name, table in tables.items():
        (root / name).mkdir()
        pq.write_table(table.cast(schemas[name]), root / name / "chunk-000000.parquet")
    (root / "manifest.json").write_text(json.dumps(manifest))


def test_report_writes_json_plots_and_a_table(tmp_path):
    seats = make_seats({"cand": 1.0, "base": 0.0}, groups=60, seed=7,
                       seating=["cand", "base", "base", "cand", "base"])
    ab = {"candidate": "cand", "baseline": "base", "mu0": 0.0, "mu1": 0.5}
    write_folder(tmp_path, seats, {"config": {"format": "ab", "ab": ab},
                                   "roles": ["first", "second"]})
    result = report(tmp_path)
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved == result and (saved["games"], saved["groups"]) == (300, 60)
    assert saved["roles"] == ["first", "second"]
    assert saved["bots"][0]["win_share_by_role"] == {"first": 0.5, "second": 0.5}
    assert saved["sprt"]["verdict"] == "H1" and saved["forfeits"] == {"base": {"crash": 1}}
    for png in ("ratings.png", "scores.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = format_report(result)
    assert "cand" in text and "base" in text and "SPRT" in text and "H1" in text
    assert "first" in text and "second" in text  # win shares by role, under their names


def test_plots_name_the_run_and_keep_outliers_off_the_score_axis(tmp_path):
    seats = make_seats({"a": 0.0, "b": 0.5}, groups=40, seed=8)
    seats["score"][:3] = -478.0  # forfeits at the game's worst
    run = tmp_path / "my_run"
    run.mkdir()
    write_folder(run, seats, {"config": {"game": "gonin_kan"}})
    result = report(run)
    title = _run_title(run, {"config": {"game": "gonin_kan"}}, result)
    assert title == "my_run (gonin_kan): 200 games, 40 duplicate groups"
    table = pa.table({k: seats[k] for k in ("bot", "score")})
    scores = _plot_scores(table, tmp_path / "s.png", title).axes[0]
    ratings = _plot_ratings(result["ratings"], tmp_path / "r.png", title).axes[0]
    assert scores.get_title() == ratings.get_title() == title
    lo, hi = scores.get_ylim()
    assert -20 < lo < hi < 20  # the boxes, not the outliers, set the scale
    labels = [t.get_text() for t in scores.get_xticklabels()]
    assert labels[0].startswith("a\n(") and labels[0].endswith(" off scale)")


def test_report_without_manifest_has_no_sprt(tmp_path):
    write_folder(tmp_path, make_seats({"a": 0.0, "b": 0.0, "c": 1.0}, groups=10), {})
    (tmp_path / "manifest.json").write_text("not json")
    result = report(tmp_path)
    assert result["sprt"] is None
    assert result["roles"] == ["role0", "role1"]  # no manifest: the roles go by number
    assert all(b in format_report(result) for b in "abc")


def test_issue_44_a_one_group_report_says_why_it_has_no_intervals(tmp_path):
    write_folder(tmp_path, make_seats({"a": 0.5, "b": 0.0}, groups=1, seed=10),
                 {"config": {"game": "gonin_kan"}})
    result = report(tmp_path)
    text = format_report(result)
    assert "no CI: 1 group: too few for an interval" in text
    assert not any(f"[{x}, {x}]" in text for x in ("0.00", "0.20", "0", "1.00"))
    axis = _plot_ratings(result["ratings"], tmp_path / "r.png", "t").axes[0]
    assert "too few for an interval" in axis.get_xlabel()
    assert axis.get_xlim()[1] >= 100  # not a +-0.04 axis of dots


def test_issue_44_a_report_counts_a_repeated_game_once(tmp_path):
    seats = make_seats({"a": 0.5, "b": 0.0}, groups=4, seed=11, seating=list("ababa"))
    again = {k: (list(v) if k in LISTS else v.copy()) for k, v in seats.items()}
    again["game_id"] = again["game_id"] + 20  # each game of each group played twice
    both = {k: (seats[k] + again[k] if k in LISTS else np.concatenate([seats[k], again[k]]))
            for k in seats}
    write_folder(tmp_path, both, {})
    result = report(tmp_path)
    assert (result["games"], result["repeats_left_out"]) == (20, 20)
    assert sum(b["seats"] for b in result["bots"]) == 100
    assert "(20 repeats of these games left out)" in format_report(result)
