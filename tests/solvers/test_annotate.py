"""`solvers.annotate`: a record's card plays noted with every legal card's double-dummy value,
the values `kanjax solve --all-moves` (its `solvers.api.solve` call on `convert.from_state`'s
position) gives, position by position, for the mover's side (issue 29)."""

from __future__ import annotations

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


@pytest.mark.slow
def test_da_bai_fen_multi_card_play_is_refused_naming_the_game():
    """Da Bai Fen's trick play is beyond the solvers' limits (multi-card plays, 5/10-point
    cards): the searches refuse it, naming the game (slow: Da Bai Fen's match compiles)."""
    record = records.play_record("da_bai_fen", {"max_hands": 1}, seed=1)
    with pytest.raises(ValueError, match="da_bai_fen: beyond the solvers' limits"):
        annotate(record)


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
