"""`kanjax solve` (solvers.cli) and a game's named goals (`TrickPlay.trick_goals`,
`api.named_goals`)."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest

from kanjax.cli import main
from solvers import api, cli
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
    assert run(capsys, SUITS, "--table") == {"game": "whist", "table": SUITS_TABLE, "par": {
        "dealer": "N", "vulnerable": "None", "score": 1510, "contracts": ["7SN=", "7SS="]}}
    main(["solve", SUITS, "--table"])
    text = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["strain", "N", "E", "S", "W"] in text and ["S", "13", "0", "13", "0"] in text


def test_dd_tables_of_a_batch(tmp_path, capsys):
    deals = tmp_path / "deals.txt"
    deals.write_text(f"{SUITS}\n")
    main(["solve", "--batch", str(deals), "--table", "--out", str(tmp_path / "t.parquet")])
    table = pq.read_table(tmp_path / "t.parquet").to_pydict()
    assert table["deal"] == [SUITS]
    assert {k: v[0] for k, v in table.items() if k != "deal"} == {
        f"{strain}_{seat}": n for strain, row in SUITS_TABLE.items() for seat, n in row.items()
    } | {"dealer": "N", "vulnerable": "None", "par_score": 1510, "par_contracts": "7SN= 7SS="}


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


# ---- issue 44: what DDS users expect ---------------------------------------------------------
EXAMPLE = "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83"
# two boards: tags, comments, an auction section, a `#` value, a board dealt from East
PBN_FILE = f"""% PBN 2.1
[Event "issue 44"]
[Board "7"]
[Dealer "E"]
[Vulnerable "NS"]
[Deal "{SUITS}"]
[Auction "E"]
Pass 7S ; a comment
{{ a comment
   over lines }}

[Event "#"]
[Board "8"]
[Dealer "W"]
[Vulnerable "EW"]
[Deal "E:...AKQJT98765432 AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432."]
"""
# an ending: three cards a hand after ten tricks; in spades N-S take all three
ENDING = "N:AKQ... JT9... 876... 543..."


def error_of(capsys, *argv: str) -> str:
    """The message of a `kanjax` run that must fail with exit code 2 (one line)."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_api_moves_are_keyed_by_card_names():
    """`Solution.moves` by `Rules.move_name` ("AH"), `move_ids` by action id (issue 44)."""
    from solvers.convert import from_pbn

    pos = from_pbn(SUITS, "NT", "E")
    [sol] = api.solve([pos], all_moves=True)
    assert sol.moves == {r + "H": 13 for r in "AKQJT98765432"}
    assert sol.move_ids == {13 + r: 13 for r in range(13)}


def test_pbn_file_boards_solved_and_tabled_with_par(tmp_path, capsys):
    """A .pbn file (tags, several boards): each board solved, or its table and par from its
    Dealer and Vulnerable tags."""
    path = tmp_path / "boards.pbn"
    path.write_text(PBN_FILE)
    out = run(capsys, str(path), "--trump", "S", "--leader", "E")
    assert [b["board"] for b in out["boards"]] == ["7", "8"]
    assert [b["value"] for b in out["boards"]] == [0, 0]  # N-S ruff the lead, take the rest
    out = run(capsys, str(path), "--table")["boards"]
    assert out[0]["table"] == out[1]["table"] == SUITS_TABLE
    assert out[0]["par"] == {"dealer": "E", "vulnerable": "NS", "score": 2210,
                             "contracts": ["7SN=", "7SS="]}
    assert out[1]["par"]["score"] == 1510  # N-S not vulnerable
    main(["solve", str(path), "--table"])
    text = capsys.readouterr().out
    assert "board 7" in text and "par +2210 for N-S (dealer E, vulnerable NS): 7SN= 7SS=" \
        in text


def test_par_of_a_deal_string_with_dealer_and_vulnerability(capsys):
    out = run(capsys, SUITS, "--table", "--dealer", "W", "--vul", "All")
    assert out["par"] == {"dealer": "W", "vulnerable": "All", "score": 2210,
                          "contracts": ["7SN=", "7SS="]}
    assert "--dealer and --vul are for the par score" in error_of(
        capsys, "solve", SUITS, "--dealer", "N")


def test_pbn_ending_solved_and_tabled(capsys):
    """A PBN ending (fewer than 13 cards a hand) is a position after its tricks."""
    out = run(capsys, ENDING, "--trump", "NT", "--leader", "E", "--all-moves")
    assert (out["value"], out["side"], out["trick"]) == (0, ["E", "W"], 11)
    assert out["moves"] == {"JS": 0, "TS": 0, "9S": 0}
    out = run(capsys, ENDING, "--table")
    assert out["table"]["S"] == {"N": 3, "E": 0, "S": 3, "W": 0} and "par" not in out
    err = error_of(capsys, "solve", "N:AKQ... JT9... 876... 54...")
    assert "an ending wants as many cards" in err


def test_record_at_a_step(tmp_path, capsys):
    """`kanjax solve RECORD.json --step N`: the record's state after N actions."""
    from kanjax import records

    record = records.play_record("whist", {}, seed=3)
    path = tmp_path / "game.json"
    records.save(record, path)
    out = run(capsys, str(path), "--step", "44", "--all-moves")
    assert out["step"] == 44 and out["trick"] == 12 and out["game"] == "whist"
    assert record["actions"][44].removeprefix("play ") in out["moves"]
    assert "deal is over" in error_of(capsys, "solve", str(path), "--step", "52")
    assert cli._first_card_play(record)[0] == 0  # no --step: the first card play
    assert "--step N is a record's step" in error_of(capsys, "solve", SUITS, "--step", "3")


def test_text_output_is_tables_not_python_reprs(capsys):
    main(["solve", SUITS, "--trump", "NT", "--leader", "E", "--all-moves"])
    text = capsys.readouterr().out
    assert "['" not in text and "{'" not in text
    assert "13 tricks for E W" in text and "AH" in text


def test_batch_rows_hold_side_trump_leader_choices_and_never_overwrite(tmp_path,
                                                                        monkeypatch):
    """A row a deal with its side, trump, leader and the open choices weighed (here two
    trumps left open, as a game's `trick_choices` may); each run its own file."""
    from kanjax.games.whist.engine import WhistEnv

    monkeypatch.setattr(WhistEnv, "trick_choices", lambda self, deal, trump, leader: [
        {"trump": "S", "leader": leader}, {"trump": "NT", "leader": leader}])
    deals = tmp_path / "deals.txt"
    deals.write_text(f"{SUITS}\n")
    main(["solve", "--batch", str(deals), "--leader", "E"])
    monkeypatch.undo()
    rows = pq.read_table(tmp_path / "deals.solved.parquet").to_pylist()
    assert rows[0]["side"] == ["E", "W"] and rows[0]["leader"] == "E"
    assert rows[0]["trump"] == "NT" and rows[0]["best_trump"] == "NT"
    assert json.loads(rows[0]["choices"]) == {"S": 0, "NT": 13}
    main(["solve", "--batch", str(deals), "--table"])
    main(["solve", "--batch", str(deals), "--trump", "S", "--leader", "N"])
    assert pq.read_table(tmp_path / "deals.solved.parquet").to_pylist() == rows
    assert pq.read_table(tmp_path / "deals.solved-2.parquet").column("value").to_pylist() == [
        13]
    tables = pq.read_table(tmp_path / "deals.tables.parquet").to_pylist()
    assert tables[0]["S_N"] == 13 and tables[0]["par_score"] == 1510  # none vulnerable


def test_batch_of_a_pbn_file(tmp_path):
    path = tmp_path / "boards.pbn"
    path.write_text(PBN_FILE)
    main(["solve", "--batch", str(path), "--table"])
    rows = pq.read_table(tmp_path / "boards.tables.parquet").to_pylist()
    assert [(r["board"], r["dealer"], r["vulnerable"], r["par_score"]) for r in rows] == [
        ("7", "E", "NS", 2210), ("8", "W", "EW", 1510)]


def test_da_bai_fen_deal_string_says_what_is_not_supported(capsys):
    deal = ("da_bai_fen kind=first starter=0 levels=2,2 hands=0 | 8S JS 7D RJ 6D 2C QS 9D 7H "
            "8D 4H 4C | 5H 3D 6S BJ QH 8H 5C AD 3S KS TS KD | QD 3H TD KC 8C JD JH 9H 4D 6H "
            "AH 9S | 2H 5S TH 2S 6C 7C KH AS 4S JC AC 3C | kitty: 5D 2D QC 9C TC 7S")
    err = error_of(capsys, "solve", deal)
    assert "before the draw" in err and "kitty (DBF-17)" in err and "--step N" in err


def test_gambari_advice_names_the_leader_flag(capsys):
    deal = ("gambari_kan round=0 dealer=0 seats=0,1,2 | JK QS JS JH 9H QD 9D 8D KC TC | "
            "KS 7S TH 8H AD TD AC QC JC 8C | AS TS 9S 8S AH KH QH KD JD 9C")
    assert "kanjax solve --leader P" in error_of(capsys, "solve", deal)


def test_pbn_file_errors_name_the_line_or_board(tmp_path, capsys):
    path = tmp_path / "bad.pbn"
    path.write_text(f'[Board "1"]\n[Deal "{SUITS}"\n')
    assert "line 2: a malformed PBN tag" in error_of(capsys, "solve", str(path))
    path.write_text(PBN_FILE.replace('[Vulnerable "EW"]', '[Vulnerable "Nope"]'))
    assert "deal 2: vulnerability 'Nope'" in error_of(capsys, "solve", str(path), "--table")
    path.write_text('[Board "1"]\n')
    assert "line 1: a PBN game without a Deal tag" in error_of(capsys, "solve", str(path))
