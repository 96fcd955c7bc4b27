"""A whist tournament end to end (issue 23): duplicate, 4 seats, the random bot against the
whist heuristic, run with `kanjax tournament run --local --report`. Whist's views give the
neutral tables their sides, roles and winners; the heuristic wins the duplicate match."""

from __future__ import annotations

import contextlib
import io
import json

import pyarrow.dataset as ds
import pytest

from kanjax import records
from kanjax.cli import main

CONFIG = """\
[tournament]
game = "whist"
format = "duplicate"
deals = 16
seed = 1
chunk_size = 32
output = "{out}"

[bots.random]
kind = "random"

[bots.heuristic]
kind = "heuristic"
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("whist")
    out = root / "out"
    config = root / "whist.toml"
    config.write_text(CONFIG.format(out=out))
    return out, config


@pytest.fixture(scope="module")
def printed(run):
    out, config = run
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        main(["tournament", "run", str(config), "--local", "--report"])
    return text.getvalue()


def table(out, name):
    return ds.dataset(out / name).to_table().to_pylist()


def test_whist_duplicate_tournament_runs_and_reports(run, printed):
    out, _ = run
    assert "32 games stored" in printed and ": done" in printed  # 16 deals x 2 seatings
    assert "defence" in printed and "declarer" in printed  # win shares under whist's roles
    report = json.loads((out / "report.json").read_text())
    assert (report["games"], report["groups"], report["roles"]) == (32, 16,
                                                                     ["defence", "declarer"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["roles"] == ["defence", "declarer"] and manifest["engine_version"]
    assert [c[0] for c in manifest["deal_columns"]] == ["leader", "trump", "tricks_ns",
                                                         "tricks_ew"]


def test_whist_rows_have_sides_roles_and_tricks(run, printed):
    out, _ = run
    deals = table(out, "deals")
    assert len(deals) == 32 and {(d["leader"], d["trump"]) for d in deals} == {("W", "NT")}
    for d in deals:
        assert d["tricks_ns"] + d["tricks_ew"] == 13 and d["counted"]
        assert d["side"] == [0, 1, 0, 1]  # N-S, E-W
        assert d["role"] == [1, 0, 1, 0]  # W leads: E-W defend, N-S declare
        assert d["won"] == [d["tricks_ns"] >= 7, d["tricks_ew"] >= 7] * 2
    seats = table(out, "seats")
    assert all(s["side"] == s["player"] % 2 and s["role"] == 1 - s["player"] % 2
               and s["deals"] == 1 and sum(s["deals_by_role"]) == 1 for s in seats)
    games = {g["game_id"]: g for g in table(out, "games")}
    tricks = {d["game_id"]: (d["tricks_ns"], d["tricks_ew"]) for d in deals}
    for g in games.values():  # each player is paid his side's tricks
        ns, ew = tricks[g["game_id"]]
        assert g["scores"] == [ns, ew, ns, ew]


def test_whist_heuristic_beats_random_in_a_duplicate_match(run, printed):
    out, _ = run
    report = json.loads((out / "report.json").read_text())
    bots = {b["bot"]: b for b in report["bots"]}
    assert bots["heuristic"]["score"] > 7 > bots["random"]["score"]  # tricks of 13
    assert bots["heuristic"]["win_share"] > 0.7
    assert all(bots["heuristic"]["win_share_by_role"][r] > bots["random"][
        "win_share_by_role"][r] for r in ("defence", "declarer"))
    (pair,) = report["pairwise"]
    assert (pair["a"], pair["b"]) == ("heuristic", "random") and pair["lo"] > 0


def test_a_duplicate_group_plays_one_deal(run, printed):
    out, _ = run
    group = [g for g in table(out, "games") if g["group"] == 3]
    assert sorted(g["rotation"] for g in group) == [0, 1]  # N-S / E-W, then swapped
    hands = {records.record_of_actions("whist", {}, 1, g["seed"], g["actions"], g["scores"])[
        "deals"][0]["deal"] for g in group}
    assert len(hands) == 1  # both seatings of a deal seed got the same hands
