"""Records, replay, `kanjax show`, `kanjax simulate` and the bench row, end to end."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kanjax import api, records
from kanjax.bench import bench_batch, simulate
from kanjax.cli import main

FLAGS = {"n_rounds": 1}


@pytest.fixture(scope="module")
def record():
    return records.play_record("gonin_kan", FLAGS, seed=7)


def test_record_replays_step_by_step(record, tmp_path):
    assert record["terminated"] and len(record["actions"]) > 20
    assert record["deals"][0]["step"] == 0
    path = tmp_path / "game.json"
    records.save(record, path)
    result = records.replay(records.load(path))
    assert result.ok and result.steps == len(record["actions"]), result.error


def test_replay_reports_the_first_step_that_disagrees(record):
    bad = json.loads(json.dumps(record))
    k = 5
    bad["actions"][k] = "STOP"
    result = records.replay(bad)
    assert not result.ok and result.steps == k and f"step {k}" in result.error
    bad = json.loads(json.dumps(record))
    bad["scores"] = [s + 1 for s in bad["scores"]]
    assert "final scores" in records.replay(bad).error
    bad = json.loads(json.dumps(record))
    bad["seed"] += 1
    result = records.replay(bad)
    assert not result.ok and "deal differs" in result.error


def test_cli_replay_and_show(record, tmp_path, capsys):
    path = tmp_path / "game.json"
    records.save(record, path)
    main(["replay", str(path)])
    assert "OK" in capsys.readouterr().out
    main(["show", str(path), "--step", "3"])
    out = capsys.readouterr().out
    assert "round 1/1" in out and "to act: P" in out
    main(["show", record["deals"][0]["deal"]])
    assert "seat 4" in capsys.readouterr().out
    main(["show", str(path), "--step", str(len(record["actions"]))])
    out = capsys.readouterr().out  # the end of the match: no "round 2/1", no 5-player dealer
    assert "round 1/1" in out and "match over" in out and "dealer  " not in out


def test_cli_reports_bad_input_without_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["show", "gonin_kan dealer=0 | AS XS"])
    assert exit_.value.code == 2
    assert "'XS'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "gonin_kan", "--set", "playerz=6"])
    assert "playerz" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit):
        main(["replay", str(bad)])
    assert "not a JSON game record" in capsys.readouterr().err


def test_simulate_tallies_every_deal():
    r = simulate("gonin_kan", games=8, batch=4, seed=1, **FLAGS)
    assert r["games"] == 8 and r["truncated"] == 0
    assert r["deals"] == sum(sum(v) for v in r["outcomes"].values()) >= 8
    assert 0.0 <= r["kankei_deal_win_rate"] <= 1.0


def test_bench_row_counts_deals():
    row = bench_batch(__import__("kanjax").make("gonin_kan"), batch=2, steps=64, min_seconds=0.05)
    assert row["deals"] >= 1 and row["deals_per_cpu_second"] > 0 and row["compile_seconds"] > 0


def test_whist_record_replay_show_and_simulate(tmp_path, capsys):
    record = records.play_record("whist", {"trump": "S"}, seed=3)
    assert len(record["actions"]) == 52 and sum(record["scores"][:2]) == 13
    assert record["deals"] == [{"step": 0, "deal": record["deals"][0]["deal"]}]
    assert record["deals"][0]["deal"].startswith("whist trump=S leader=W | ")
    assert records.replay(record).ok
    path = tmp_path / "whist.json"
    records.save(record, path)
    main(["show", str(path), "--step", "5"])
    out = capsys.readouterr().out
    assert "trump S" in out and "trick 2: " in out and "to act: " in out
    main(["show", "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83"])
    out = capsys.readouterr().out
    assert "N  S:Q7  H:KQ  D:8752  C:96542" in out and "to act: W" in out
    r = simulate("whist", games=8, batch=4, seed=1, trump="H")
    assert r["games"] == r["deals"] == 8 and r["truncated"] == 0
    assert sum(r["mean_returns"][:2]) == pytest.approx(13)


def test_KAN_16_show_names_the_six_player_dealer(tmp_path, capsys):
    record = records.play_record("gonin_kan", {"players": 6, "n_rounds": 1}, seed=2)
    path = tmp_path / "game.json"
    records.save(record, path)
    main(["show", str(path), "--step", "2"])
    out = capsys.readouterr().out
    dealer = int(out.split("dealer P")[1].split()[0])
    assert [line for line in out.splitlines() if "dealer  " in line] == [
        line for line in out.splitlines() if line.startswith("seat ") and f"P{dealer} " in line]


def test_play_replay_show_are_one_scan_not_a_call_a_step(record, monkeypatch):
    """Issue 22 item 11: a match is played, replayed and shown through the jitted scan of
    `rollout.make_trajectory` (a call per hand-relative name at most), never a jitted step
    per action."""
    calls = []
    scan = records.make_trajectory
    monkeypatch.setattr(records, "make_trajectory", lambda *a: calls.append(a) or scan(*a))
    for module in (api, records):
        monkeypatch.setattr(module, "jitted", lambda env, name: pytest.fail(f"jitted {name}"))
    assert records.play_record("gonin_kan", FLAGS, seed=7) == record and len(calls) == 1
    assert records.replay(record).ok
    env, state = records.state_at(record, 40)
    assert int(state.step_count) == 40 and env.render(state)
    assert len(calls) < 2 + 2 * len(record["deals"])


def test_cli_keeps_compiled_programs_in_the_user_cache(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    code = ("import jax; from kanjax.cli import use_compilation_cache; "
            "use_compilation_cache(); print(jax.config.jax_compilation_cache_dir)")
    out = subprocess.run([sys.executable, "-c", code], env=env | {"XDG_CACHE_HOME": str(tmp_path)},
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(tmp_path / "kanjax" / "jax")


def test_show_step_out_of_range(record, tmp_path, capsys):
    path = tmp_path / "game.json"
    records.save(record, path)
    with pytest.raises(SystemExit) as exit_:
        main(["show", str(path), "--step", str(len(record["actions"]) + 1)])
    assert exit_.value.code == 2 and f"the record has {len(record['actions'])} actions" in (
        capsys.readouterr().err)


def test_a_match_runs_in_parts_until_it_ends_not_to_its_bound(record, monkeypatch):
    """Issue 44 item 8: a match is scanned in parts of `records.CHUNK` steps until it is
    over, not to its bound (`max_steps`: Konkan's 128,000 steps for a match of about a
    thousand made `play`/`replay` of one match take 11.7 s); the parts join into the
    states of one scan."""
    m = records.start_match(record)
    ids, _ = m.action_ids(record["actions"])
    whole = m.run(ids)
    monkeypatch.setattr(records, "CHUNK", 40)
    parts = m.run(ids[:50])  # the rest by the policy, which the record's seed replays
    n = len(ids)
    assert len(parts.traj.actions) == 40 * -(-n // 40) < m.env.max_steps
    assert parts.names(n) == record["actions"] and parts.steps == n
    for i in (0, 39, 40, 41, n):
        assert int(parts.state(i).step_count) == i
        assert parts.env.deal_string(parts.state(i)) == whole.env.deal_string(whole.state(i))
    assert parts.deals(n) == whole.deals(n) == record["deals"]


def test_compiling_notice_only_when_a_program_is_compiled_afresh(tmp_path, monkeypatch,
                                                                 capsys):
    """Issue 44 item 6: `play`/`replay`/`show`/`view` say they compile exactly when a match
    program is not in the cache (`kanjax.exported`), not after 4 s of any work."""
    from kanjax import exported
    from kanjax.cli import compiling_notice

    monkeypatch.setattr(exported, "_folder", tmp_path)
    for fresh in (True, False):  # a new process's program: traced, then read back
        program = exported.cached_jit(lambda x: x + 1, "test:add-one")
        with compiling_notice():
            assert int(program(np.int32(1))) == 2
        err = capsys.readouterr().err
        assert ("compiling it the first time" in err) == fresh, err
