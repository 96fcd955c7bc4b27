"""`Views.render_svg` and `kanjax.view.view_html` (issue 29): well-formed SVG at every state of
a short match of each game, all hands open and as one player sees them; hidden hands drawn
as backs; double-dummy notes shown; clear errors for bad players and record files."""

from __future__ import annotations

import re
import sys
import types
import xml.etree.ElementTree as ET

import jax
import pytest

import kanjax
from kanjax import records
from kanjax.cli import DD_BUDGET, main
from kanjax.scene import Group, Scene, Seat
from kanjax.svg import Picture, card_id, draw
from kanjax.view import CARD, page_data, record_scenes, seen_names, view_html
from tests.view.records import deal_ends, mid_trick_step, short_record

SVG = "{http://www.w3.org/2000/svg}svg"


def used_cards(svg: str) -> list[str]:
    """The definitions the drawing's cards use, in order (`kc-back`: a face-down card)."""
    return re.findall(r'<use href="#(kc-[^"]+)"', svg)


@pytest.mark.parametrize("game", kanjax.games())
def test_every_state_is_well_formed_svg(game):
    record = short_record(game)
    m = records.start_match(record)
    ids, bad = m.action_ids(record["actions"])
    assert bad is None
    played = m.run(ids)
    for i in range(len(ids) + 1):
        for player in (None, i % m.env.num_players):
            root = ET.fromstring(m.env.render_svg(played.state(i), player))
            assert root.tag == SVG and float(root.get("height")) >= 720


@pytest.mark.parametrize("game", kanjax.games())
def test_hidden_hands_are_backs_with_counts(game):
    record = short_record(game)
    step = mid_trick_step(record)
    for viewer in range(kanjax.make(game, **record["flags"]).num_players):
        scene = record_scenes(record, viewer)[step]
        svg = draw(scene)
        ET.fromstring(svg)
        shown = {t for s in scene.seats if s.player == viewer for t in s.cards}
        shown |= {t for g in scene.table for t in g.cards}
        faces = {u for u in used_cards(svg) if u != "kc-back"}
        assert faces == {card_id(t) for t in shown}
        hidden = sum(s.count for s in scene.seats if s.cards is None)
        hidden += sum(s.count - len(s.cards) for s in scene.seats if s.cards is not None)
        hidden += sum(1 for g in scene.table if g.hidden)
        assert used_cards(svg).count("kc-back") == hidden
        assert all(s.cards is None for s in scene.seats if s.player != viewer)


def test_open_view_shows_every_hand():
    record = short_record("gonin_kan")
    scene = record_scenes(record)[mid_trick_step(record)]
    svg = draw(scene)
    assert "kc-back" not in used_cards(svg)
    for seat in scene.seats:
        assert f"{seat.label}  {seat.role}" in svg and all(card_id(t) in svg for t in seat.cards)
    assert sum(s.to_act for s in scene.seats) == 1 and "\u25b6 " in svg  # the mover marked


def test_notes_show_values_and_the_loss():
    record = short_record("whist")
    step = mid_trick_step(record)
    scene = record_scenes(record)[step]
    values = {name: 5 - k for k, name in enumerate(scene.legal)}
    played = record["actions"][step]
    note = {"values": values, "best": 5, "played": played, "loss": 5 - values[played],
            "unit": "tricks"}
    svg = draw(scene, note)
    assert f"double dummy: best 5 tricks; played {played}" in svg
    if note["loss"]:
        assert f"(-{note['loss']})" in svg
    page = view_html(record, notes={step: note})
    text = page_data(page)["notes"][str(step)]
    assert f"Played {played}" in text and "double dummy (tricks): best 5" in text
    assert f'<li data-step="{step}"><span class="n">{step}</span>' in page


def test_page_is_self_contained():
    record = short_record("yonin_kan")
    page = view_html(record, player=1, title="a <test> page")
    assert page.startswith("<!DOCTYPE html>") and "a &lt;test&gt; page" in page
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched
    assert page.count('<li data-step="') == len(record["actions"]) + 1
    assert f'max="{len(record["actions"])}"' in page


def test_picture_for_jupyter(tmp_path):
    env = kanjax.make("whist")
    state = env.init(jax.random.PRNGKey(0))
    picture = env.picture(state, player=2)
    assert isinstance(picture, Picture) and picture._repr_svg_() == env.render_svg(state, 2)
    picture.save_svg(tmp_path / "deal.svg")
    assert ET.parse(tmp_path / "deal.svg").getroot().tag == SVG


def test_bad_player_is_named():
    with pytest.raises(ValueError, match=r"whist: player 4: want a player 0\.\.3"):
        view_html(short_record("whist"), player=4)
    with pytest.raises(ValueError, match=r"gonin_kan: player -1: want a player 0\.\.4"):
        record_scenes(short_record("gonin_kan"), -1)


def test_view_cli(tmp_path, capsys):
    path = tmp_path / "game.json"
    records.save(short_record("whist"), path)
    out = tmp_path / "game.html"
    main(["view", str(path), "-o", str(out), "--player", "2"])
    assert f"{out}: " in capsys.readouterr().out and "<svg" in out.read_text()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for argv, message in (
            ([str(bad)], "not a JSON game record"),
            ([str(tmp_path / "none.json")], "cannot read the record"),
            ([str(path), "--player", "7"], "player 7: want a player 0..3"),
            ([str(path), "--from-trick", "3"], "are --dd's settings: add --dd"),
            ([str(path), "--dd-budget", "9"], "are --dd's settings: add --dd"),
            ([str(path), "--dd", "--dd-budget", "0"], "want a positive integer, got '0'"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(["view", *argv, "-o", str(out)])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and message in err and "None" not in err, err


def test_rummy_table_rows_labels_and_stock():
    """Game-neutral: melds and piles in labelled rows, the stock face down with its count,
    a table too full for the oval scaled down to fit it."""
    hand = ("AS", "2S", "3S", "JK", "TH", "QC", "QC")
    melds = tuple(Group(f"P{i % 3}: run", ("3S", "4S", "5S", "6S")[: 3 + i % 2])
                  for i in range(30))
    scene = Scene(game="rummy", header="rummy  round 1/5", table=(
        *melds, Group("discard pile", ("7D",)), Group("stock", (), None, 40)), seats=(
        Seat(0, "P0", cards=hand, count=7, notes=("opened",), to_act=True),
        Seat(1, "P1", count=9), Seat(2, "P2", count=12)), to_act=0, viewer=0,
        legal=("draw stock", "take 7D"))
    svg = draw(scene)
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "discard pile" in texts and "stock" in texts and "40" in texts
    assert texts.count("P1: run") == 10 and "legal: draw stock, take 7D" in texts
    assert used_cards(svg).count("kc-back") == 9 + 12 + 1
    assert used_cards(svg).count(card_id("QC")) == 2  # a multiset hand
    scale = re.search(r'scale\(([0-9.]+)\)', svg)
    assert scale and float(scale.group(1)) < 1


def test_view_cli_dd_calls_annotate(tmp_path, capsys, monkeypatch):
    """`--dd [--from-trick K]` shows what `solvers.annotate.annotate` returns (a stand-in
    here: the real one is the solvers' own test)."""
    record = short_record("whist")
    path = tmp_path / "game.json"
    records.save(record, path)
    calls = []

    def annotate(rec: dict, **kwargs) -> dict[int, dict]:
        calls.append(kwargs)
        played = rec["actions"][4]
        return {4: {"values": {played: 3}, "best": 4, "played": played, "loss": 1,
                    "unit": "tricks"}}

    monkeypatch.setitem(sys.modules, "solvers.annotate", types.SimpleNamespace(
        annotate=annotate))
    out = tmp_path / "dd.html"
    main(["view", str(path), "-o", str(out), "--dd", "--from-trick", "2"])
    assert [(c["from_trick"], c["budget"]) for c in calls] == [(2, DD_BUDGET)]
    assert f"Played {record['actions'][4]}: loses 1" in page_data(out.read_text())["notes"]["4"]
    main(["view", str(path), "-o", str(out), "--dd", "--dd-budget", "5000"])
    assert (calls[-1]["from_trick"], calls[-1]["budget"]) == (1, 5000)


def test_dd_list_marks_best_losing_and_unsolved_plays():
    """Issue 44 item 10: the list marks each annotated play best (a tick), losing (a cross
    and its loss) or not solved (`?`), where it marked every one with `*`."""
    record = short_record("whist")
    names = record["actions"]
    notes = {4: {"values": {names[4]: 3}, "best": 3, "played": names[4], "loss": 0,
                 "unit": "tricks"},
             5: {"values": {names[5]: 1}, "best": 3, "played": names[5], "loss": 2,
                 "unit": "tricks"},
             6: {"values": {}, "best": None, "played": names[6], "loss": None,
                 "unit": "tricks", "solved": False}}
    page = view_html(record, notes=notes)
    items = dict(re.findall(r'<li data-step="(\d+)">(.*?)</li>', page))
    assert 'class="dd best"' in items["4"] and "\u2713" in items["4"]
    assert 'class="dd lose"' in items["5"] and "\u2717 -2" in items["5"]
    assert 'class="dd unknown"' in items["6"] and "not solved" in page_data(page)["notes"]["6"]
    assert not any("dd" in items[str(s)] for s in (3, 7)) and " *" not in page


def test_player_view_notes_only_the_players_own_decisions():
    """A note names every legal card of the mover: a player's page keeps only his own."""
    record = short_record("whist")
    scenes = record_scenes(record, 0)
    notes = {s: {"values": {record["actions"][s]: 1}, "best": 1, "loss": 0,
                 "played": record["actions"][s], "unit": "tricks"} for s in range(8)}
    kept = page_data(view_html(record, player=0, notes=notes))["notes"]
    assert sorted(map(int, kept)) == [s for s in range(8) if scenes[s].to_act == 0] != []


@pytest.mark.parametrize("game", kanjax.games())
def test_page_size_grows_little_a_step(game):
    """Issue 44 item 8: each distinct part of a drawing is kept once, the data gzipped: a
    page's bytes grow by a few hundred a step (the frames whole took 1-7 KB a step: a
    Konkan match's page was 22.5 MB)."""
    record = short_record(game)
    steps = len(record["actions"]) + 1
    assert len(view_html(record)) < 20_000 + 500 * steps
    data = page_data(view_html(record))
    assert len(data["frames"]) == steps and max(max(f) for f in data["frames"]) < len(
        data["parts"])


@pytest.mark.parametrize("game", ["konkan", "gonin_kan"])
def test_seen_names_hide_the_cards_a_player_has_not_seen(game):
    """Issue 44 item 4: another player's action as the viewer learns it (a card he sees
    before or after it, or the last of a deal, shown; any other `??`); his own whole."""
    record = short_record(game)
    env = kanjax.make(game, **record["flags"])
    names = record["actions"]
    scenes = record_scenes(record, 0)
    ended = deal_ends(record)
    seen = seen_names(env, names, scenes, ended)
    assert seen_names(env, names, record_scenes(record), ended) == names
    assert any(ended)
    for s, (name, shown, before, after) in enumerate(zip(names, seen, scenes[:-1],
                                                         scenes[1:], strict=True)):
        if before.to_act == 0:
            assert shown == name
            continue
        visible = {t for sc in (before, after) for t in
                   [*(c for s in sc.seats for c in s.cards or ()),
                    *(c for g in sc.table for c in g.cards)]}
        public = env.public_name(name).split()
        assert len(shown.split()) == len(public)
        for word, got in zip(public, shown.split(), strict=True):
            hidden = CARD.fullmatch(word) and word not in visible and not ended[s]
            assert got == ("??" if hidden else word), (s, name, shown)
    if game == "konkan":
        assert any("??" in name for name in seen)  # the cards others pick into a meld


def test_KAN_38_others_see_a_signals_outward_form():
    env = kanjax.make("gonin_kan")
    assert env.public_name("signal F2 9S 3D") == env.public_name("signal F3 9S 9S") == (
        "signal shown twice")
    assert env.public_name("signal F1 6H 9H") == "signal two together"
    assert env.public_name("play AS") == "play AS"


def test_view_dd_of_a_game_without_tricks_says_so_in_one_line(tmp_path, capsys):
    path = tmp_path / "konkan.json"
    records.save(short_record("konkan"), path)
    with pytest.raises(SystemExit) as exit_:
        main(["view", str(path), "--dd", "-o", str(tmp_path / "konkan.html")])
    assert exit_.value.code == 2 and capsys.readouterr().err == (
        "kanjax view: error: konkan: no card play to annotate (not a trick-taking game)\n")


def test_view_dd_of_da_bai_fen_marks_its_plays(tmp_path, capsys):
    """Issue 44 item 6: `view --dd` of a Da Bai Fen record (it refused: plays of several
    cards) notes each play at its first pick with every legal play's value (the opponents'
    points: fewest best) and marks it in the list; a budget too small marks it `?`."""
    from tests.solvers.test_annotate import DBF_LEAD, DBF_ONE, dbf_record

    path, page = tmp_path / "dbf.json", tmp_path / "dbf.html"
    records.save(dbf_record(DBF_ONE), path)
    main(["view", str(path), "--dd", "--from-trick", "11", "-o", str(page)])
    assert "double dummy: 8 card plays annotated\n" in capsys.readouterr().out
    text = page.read_text()
    items = dict(re.findall(r'<li data-step="(\d+)">(.*?)</li>', text))
    assert 'class="dd lose"' in items[str(DBF_LEAD)] and "\u2717 -20" in items[str(DBF_LEAD)]
    assert 'class="dd best"' in items[str(DBF_LEAD + 2)]
    assert "dd" not in items[str(DBF_LEAD + 1)]  # the lead's `play`: no decision of its own
    assert page_data(text)["notes"][str(DBF_LEAD)] == (
        "double dummy (points of the other side: fewest best): best 15; 6S 7S 15, 7S 35, "
        "6S 35. Played 7S: loses 20")
    main(["view", str(path), "--dd", "--from-trick", "11", "--dd-budget", "5", "-o",
          str(page)])
    items = dict(re.findall(r'<li data-step="(\d+)">(.*?)</li>', page.read_text()))
    assert 'class="dd unknown"' in items[str(DBF_LEAD)]
    assert "annotated, 4 not solved within 5 nodes" in capsys.readouterr().out
    assert page.read_text().count('class="dd unknown"') == 4  # trick 11's
