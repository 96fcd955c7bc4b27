"""`solvers.annotate`: a record's card plays noted with every legal card's double-dummy value,
the values `kanjax solve --all-moves` (its `solvers.api.solve` call on `convert.from_state`'s
position) gives, position by position, for the mover's side (issue 29)."""

from __future__ import annotations

import json

import pytest

from kanjax import records
from kanjax.cli import main
from kanjax.view import _note_text, page_data
from solvers import api, convert
from solvers.annotate import annotate
from solvers.cli import solve_deal


@pytest.fixture(scope="module")
def whist_record() -> dict:
    return records.play_record("whist", {}, seed=1)


@pytest.fixture(scope="module")
def gambari_record() -> dict:
    return records.play_record("gambari_kan", {"n_rounds": 1}, seed=3)


def solved_alone(record: dict, step: int) -> dict[str, int]:
    """The values of every legal card at `step`, the position solved by itself for the
    mover's side (the solver's side's position, or its other side's)."""
    env, state = records.state_at(record, step)
    pos, _ = convert.from_state(env, state)
    [sol] = api.solve([pos if pos.side[pos.to_move] else pos.other_side()], all_moves=True)
    return {env.action_name(m, state): v for m, v in sol.move_ids.items()}


def check_notes(record: dict, notes: dict[int, dict], unit: str) -> None:
    for step, note in notes.items():
        assert note["values"] == solved_alone(record, step), step
        assert note["played"] == record["actions"][step]
        assert note["best"] == max(note["values"].values())
        assert note["loss"] == note["best"] - note["values"][note["played"]] >= 0
        assert note["unit"] == unit


def test_whist_notes_are_the_solvers_values_position_by_position(whist_record):
    notes = annotate(whist_record, from_trick=12)
    assert sorted(notes) == list(range(44, 52))  # the last two tricks' eight cards
    check_notes(whist_record, notes, "tricks")
    assert any(n["loss"] == 0 for n in notes.values())


def test_whist_first_lead_is_kanjax_solve_all_moves_of_the_deal(whist_record):
    """At the opening lead the position is the deal string's: `kanjax solve --all-moves`
    gives the same values (the leader's side is the side it optimises)."""
    assert annotate(whist_record, from_trick=14) == {}  # past the last trick
    [deal] = whist_record["deals"]
    out = solve_deal(deal["deal"], all_moves=True)
    first = annotate(dict(whist_record, actions=whist_record["actions"][:1]))  # the lead only
    assert first[0]["values"] == {f"play {card}": v for card, v in out["moves"].items()}
    assert first[0]["best"] == out["value"]


def test_kan_notes_from_a_late_trick(gambari_record):
    notes = annotate(gambari_record, from_trick=8)
    assert len(notes) == 3 * 3  # three players, tricks 8..10
    check_notes(gambari_record, notes, "points")
    positions = [convert.from_state(*records.state_at(gambari_record, s))[0] for s in notes]
    assert {p.side[p.to_move] for p in positions} == {True, False}  # kankei and mukankei


def test_a_bad_first_trick_is_refused(whist_record):
    with pytest.raises(ValueError, match="from_trick=0: want a trick number"):
        annotate(whist_record, from_trick=0)


@pytest.mark.parametrize("game", ["konkan", "conquian"])
def test_a_game_without_tricks_is_refused(game):
    record = {"format": records.FORMAT, "game": game, "flags": {}, "seed": 0, "actions": []}
    with pytest.raises(ValueError, match=f"{game}: no card play to annotate"):
        annotate(record)


# A Da Bai Fen hand (seed 5, tests/games/da_bai_fen/cases.py's DEFAULT flags) to the last two
# tricks: nobody exposes (the turned kitty fixes the trump, clubs), then each turn the highest
# legal action (a single-card lead: its pick, then `play`). At step 77 declarer seat 0 leads
# from 6S 7S; seats 1, 2, 3 hold 9H 3D, 3S 4S, 4H 3C; the opponents (seats 1 and 3) have 15
# points and the kitty holds 10 (KD).
DBF_TO_TRICK_11 = (["pass"] * 21 + [
    "pick RJ", "pick 9C", "pick 2C", "pick AD", "pick KD", "pick QD", "pick 6D", "play",
    "pick TD", "pick 8D", "pick JD", "pick BJ", "play", "pick 2H", "pick QC", "pick AC",
    "pick TC", "play", "pick 2S", "pick JC", "pick KC", "pick AH", "play", "pick QH", "pick TH",
    "pick KH", "pick 7H", "play", "pick JH", "pick 8C", "pick 8H", "pick 7C", "play", "pick 5C",
    "pick 6H", "pick 6C", "pick 4D", "play", "pick 9D", "pick 5H", "pick 7D", "pick 4C", "play",
    "pick 3H", "pick 5D", "pick 2D", "pick QS", "play", "pick 8S", "pick AS", "pick JS",
    "pick KS", "play", "pick 9S", "pick TS", "pick 5S"])
DBF_LEAD = len(DBF_TO_TRICK_11)  # step 77: seat 0's lead to trick 11
DBF_PAIR = ["pick 6S", "pick 7S", "play", "pick 3D", "pick 9H", "pick 4S", "pick 3S",
            "pick 3C", "pick 4H"]  # both spades led, then the follows of two cards
DBF_ONE = ["pick 7S", "play", "pick 3D", "pick 4S", "pick 3C", "pick 4H", "play", "pick 6S",
           "pick 9H", "pick 3S"]  # one spade led: two tricks of one card a play
# the lead's values: the opponents' points P (DBF-30), which the declarer wants few
DBF_LEAD_VALUES = {"6S 7S": 15, "7S": 35, "6S": 35}


def dbf_record(tail: list[str]) -> dict:
    """The Da Bai Fen hand above, trick 11 led as `tail` says (the match goes on after)."""
    return {"format": records.FORMAT, "game": "da_bai_fen", "flags": {"max_hands": 12},
            "seed": 5, "actions": DBF_TO_TRICK_11 + tail}


def multi_values(record: dict, step: int) -> dict[str, int]:
    """Every legal play's value at `step` by the cpu multi-card search, by name."""
    from solvers.cpu import multi

    pos, _ = convert.from_state(*records.state_at(record, step))
    return {pos.rules.move_name(m): v for m, v in multi.Solver(pos).move_values().items()}


def test_DBF_23_26_29_notes_of_plays_of_several_cards(tmp_path, capsys):
    """Issue 44 item 6: a Da Bai Fen play (staged picks closed by `play`, `Env.turn_done`) is
    noted at its first pick, every legal play by its cards' name, `played` the cards the
    picks took. Hand-checked: both spades (a valid multi-lead, no other spade above them,
    DBF-23) take the last trick (seat 3's 4H 3C is not all trumps, DBF-26): P stays 15; one
    spade leaves seat 3 its trump 3C, and the opponents take the last trick and the kitty's
    10 doubled (DBF-29): P = 35. The values are the opponents' (`minimise`: the declarers
    want them few), as `kanjax solve --step 77 --all-moves` and `solvers.cpu.multi` give."""
    record = dbf_record(DBF_PAIR)
    notes = annotate(record, from_trick=11)
    assert sorted(notes) == [DBF_LEAD, DBF_LEAD + 3, DBF_LEAD + 5, DBF_LEAD + 7]
    assert notes[DBF_LEAD] == {"values": DBF_LEAD_VALUES, "best": 15, "played": "6S 7S",
                               "loss": 0, "unit": "points", "solved": True, "minimise": True}
    assert [notes[s]["played"] for s in sorted(notes)[1:]] == ["9H 3D", "3S 4S", "4H 3C"]
    assert [notes[s]["minimise"] for s in sorted(notes)] == [True, False, True, False]
    for step, note in notes.items():
        assert note["values"] == multi_values(record, step)
    path = tmp_path / "dbf.json"
    records.save(record, path)
    main(["solve", str(path), "--step", str(DBF_LEAD), "--all-moves", "--json"])
    assert json.loads(capsys.readouterr().out)["moves"] == DBF_LEAD_VALUES


def test_DBF_a_losing_play_of_one_card():
    """One spade led (a pick, then `play`): 20 points more for the opponents; the tricks after
    hold plays of one card, their values the multi-card search's too."""
    record = dbf_record(DBF_ONE)
    notes = annotate(record, from_trick=11)
    assert notes[DBF_LEAD] | {"values": None} == {
        "values": None, "best": 15, "played": "7S", "loss": 20, "unit": "points",
        "solved": True, "minimise": True}
    assert len(notes) == 8 and all(n["loss"] == 0 for s, n in notes.items() if s != DBF_LEAD)
    assert notes[DBF_LEAD + 4]["values"] == {"4H": 35, "3C": 35} == multi_values(
        record, DBF_LEAD + 4)


def test_DBF_a_budget_marks_a_play_over_it_not_solved():
    """`budget` nodes a position in all (the lead's search takes 13): the lead over it is not
    solved, its play still named; the forced follows are solved."""
    record = dbf_record(DBF_PAIR)
    tight = annotate(record, from_trick=11, budget=5)
    assert tight[DBF_LEAD] == {"values": {}, "best": None, "played": "6S 7S", "loss": None,
                               "unit": "points", "solved": False, "minimise": True}
    exact = annotate(record, from_trick=11)
    assert all(tight[s] == exact[s] for s in exact if s != DBF_LEAD)
    assert annotate(record, from_trick=11, budget=10**6) == exact


def test_kanjax_view_dd_notes_the_pages_steps_with_annotate(whist_record, tmp_path,
                                                            capsys):
    """`kanjax view RECORD --dd --from-trick 12`: the page's notes are `annotate`'s, at the
    same steps (the last two tricks' card plays)."""
    path, page = tmp_path / "game.json", tmp_path / "game.html"
    records.save(whist_record, path)
    main(["view", str(path), "-o", str(page), "--dd", "--from-trick", "12"])
    notes = annotate(whist_record, from_trick=12)
    assert page_data(page.read_text())["notes"] == {str(s): _note_text(n)
                                                    for s, n in notes.items()}
    assert "double dummy: 8 card plays annotated\n" in capsys.readouterr().out


def test_a_budget_marks_the_positions_over_it_not_solved(gambari_record):
    """Issue 44 item 6: `budget` search nodes a position (its cards' searches share it); a
    position over it is `solved` False with no values, the others are exact; `progress`
    counts the positions solved."""
    exact = annotate(gambari_record, from_trick=6)
    calls = []
    tight = annotate(gambari_record, from_trick=6, budget=60,
                     progress=lambda done, total: calls.append((done, total)))
    assert sorted(tight) == sorted(exact)
    over = [s for s, note in tight.items() if not note["solved"]]
    assert over and len(over) < len(tight)
    for s, note in tight.items():
        if note["solved"]:
            assert note == exact[s]
        else:
            assert note["values"] == {} and note["loss"] is None
            assert note["played"] == exact[s]["played"]
    assert annotate(gambari_record, from_trick=6, budget=10**9) == exact
    n = len(exact)
    assert calls[0] == (0, n) and calls[-1] == (n, n)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_a_bad_budget_is_refused(whist_record):
    with pytest.raises(ValueError, match="budget=0: want a number of search nodes"):
        annotate(whist_record, budget=0)
    with pytest.raises(ValueError, match="a search budget needs the cpu backend"):
        annotate(whist_record, from_trick=13, backend="jax", budget=10)


def test_a_budget_takes_the_cpu_search_under_auto(whist_record, monkeypatch):
    """The search a budget limits is the cpu backend's: "auto" picks it even where it
    would pick the jax search (a GPU), which has no budget."""
    asked = []
    backend_of = api.backend_of
    monkeypatch.setattr(api, "backend_of", lambda positions, backend="auto": asked.append(
        backend) or backend_of(positions, backend))
    assert len(annotate(whist_record, from_trick=13, budget=10**6)) == 4
    assert asked == ["cpu"]


def test_kanjax_view_dd_shows_progress_and_what_its_budget_left(gambari_record, tmp_path,
                                                               capsys):
    """Issue 44 item 6: `view --dd` shows the positions solved (a progress bar on stderr)
    and says how many positions its budget left unsolved, which its list marks `?`."""
    path, page = tmp_path / "game.json", tmp_path / "game.html"
    records.save(gambari_record, path)
    main(["view", str(path), "-o", str(page), "--dd", "--from-trick", "6", "--dd-budget",
          "60"])
    out, err = capsys.readouterr()
    n = len(annotate(gambari_record, from_trick=6))
    assert f"{n}/{n} positions" in err
    over = len([s for s, note in annotate(gambari_record, from_trick=6, budget=60).items()
                if not note["solved"]])
    assert f"{n} card plays annotated, {over} not solved within 60 nodes" in out
    assert page.read_text().count('class="dd unknown"') == over > 0
