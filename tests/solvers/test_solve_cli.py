"""`kanjax solve` (solvers.cli) and a game's named goals (`Env.trick_goals`, `api.named_goals`)."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest

from kanjax.cli import main
from solvers import api
from solvers import reference as ref
from tests.solvers.rules import game_rules
from tests.solvers.test_search import random_position

# Each seat holds one whole suit: N spades, E hearts, S diamonds, W clubs. Whole deals are
# still slow to solve (BENCHMARKS.md), so the command-line tests use this one.
SUITS = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


def run(capsys, *argv: str) -> dict:
    main(["solve", *argv, "--json"])
    return json.loads(capsys.readouterr().out)


def test_pbn_deal_all_moves(capsys):
    """In NT East leads hearts and wins every trick; with spades trump North ruffs the first
    trick and then wins the rest."""
    out = run(capsys, SUITS, "--game", "whist", "--trump", "NT", "--leader", "E",
              "--all-moves")
    assert out["value"] == 13 and out["side"] == ["E", "W"] and out["to_move"] == "E"
    assert out["moves"] == {r + "H": 13 for r in "AKQJT98765432"}
    out = run(capsys, SUITS, "--game", "whist", "--trump", "S", "--leader", "E")
    assert out["value"] == 0


def test_batch_file_to_parquet(tmp_path, capsys):
    deals = tmp_path / "deals.txt"
    deals.write_text(f"# two deals\n{SUITS}\n{SUITS}\n")
    main(["solve", "--batch", str(deals), "--game", "whist", "--trump", "S", "--leader", "N",
          "--threads", "2"])
    table = pq.read_table(tmp_path / "deals.solved.parquet").to_pydict()
    assert table["value"] == [13, 13] and table["deal"] == [SUITS, SUITS]
    assert "2 deals solved" in capsys.readouterr().out


# the double-dummy table of SUITS: the side holding the trumps takes every trick; at no
# trump the declarer's left-hand opponent leads his own suit and takes them all
SUITS_TABLE = {"NT": {"N": 0, "E": 0, "S": 0, "W": 0},
               "S": {"N": 13, "E": 0, "S": 13, "W": 0},
               "H": {"N": 0, "E": 13, "S": 0, "W": 13},
               "D": {"N": 13, "E": 0, "S": 13, "W": 0},
               "C": {"N": 0, "E": 13, "S": 0, "W": 13}}


def test_dd_table_of_a_pbn_deal(capsys):
    assert run(capsys, SUITS, "--table") == {"game": "whist", "table": SUITS_TABLE}
    main(["solve", SUITS, "--table"])
    text = capsys.readouterr().out.splitlines()
    assert text[0].split() == ["N", "E", "S", "W"] and text[2].split() == ["S", "13", "0",
                                                                           "13", "0"]


def test_dd_tables_of_a_batch(tmp_path, capsys):
    deals = tmp_path / "deals.txt"
    deals.write_text(f"{SUITS}\n")
    main(["solve", "--batch", str(deals), "--table", "--out", str(tmp_path / "t.parquet")])
    table = pq.read_table(tmp_path / "t.parquet").to_pydict()
    assert table["deal"] == [SUITS]
    assert {k: v[0] for k, v in table.items() if k != "deal"} == {
        f"{strain}_{seat}": n for strain, row in SUITS_TABLE.items() for seat, n in row.items()}


def test_dd_table_wants_plain_tricks_at_four_seats():
    """A table is bridge's: plain tricks at four seats (`Rules.plain_tricks`), not Kan's."""
    pos = random_position(game_rules("gonin_kan"), random.Random(0), 15)
    with pytest.raises(ValueError, match="wants a deal of plain tricks at four seats"):
        api.dd_tables([pos])


def test_bad_deal_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", SUITS.replace("AKQJT98765432...", "AKQJT98765431..."),
              "--game", "whist"])
    assert exit_info.value.code == 2
    assert "kanjax solve: error:" in capsys.readouterr().err


def test_bad_thread_count_is_a_clear_error(capsys):
    with pytest.raises(SystemExit):
        main(["solve", SUITS, "--game", "whist", "--threads", "0"])
    assert "threads must be at least 1, not 0" in capsys.readouterr().err


def test_kan31_kan32_contracts_match_the_reference():
    """Sukonku / juuroku and the gyaku forms as goals, against the reference's reaches."""
    rng = random.Random(4)
    rules = game_rules("gonin_kan")
    positions = [random_position(rules, rng, rng.randrange(5, 16)) for _ in range(12)]
    goals = {"sukonku": (True, 9, 0), "gyaku_sukonku": (False, 8, 0),
             "juuroku": (True, 16, 0), "gyaku_juuroku": (False, 16, 0)}
    got = api.named_goals(positions, [goals] * len(positions))
    for pos, answer in zip(positions, got, strict=True):
        other = pos.other_side()
        assert answer == {"sukonku": ref.reaches(pos, 9, 0),
                          "gyaku_sukonku": ref.reaches(other, 8, 0),
                          "juuroku": ref.reaches(pos, 16, 0),
                          "gyaku_juuroku": ref.reaches(other, 16, 0)}
