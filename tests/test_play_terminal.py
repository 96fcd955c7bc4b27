"""`kanjax play GAME --human SEAT`: a person's match at the terminal (`kanjax.play`, drawn by
`kanjax.terminal`) through the CLI with a scripted stdin, its record and replay, stopping
early; and the scenes it draws (`Views.scene`) against the state and `observe` (issue 29).

Every registered game is covered; the games' small flags and the compiled engines are those
of tests/test_every_game.py (one compile each per run)."""

from __future__ import annotations

import dataclasses
import io
import re
from collections import Counter

import jax
import numpy as np
import pytest

import kanjax
from kanjax import play, records, terminal
from kanjax.api import Env, State, jitted, legal_actions
from kanjax.cli import main
from kanjax.scene import Scene
from tests.harness import golden

GAMES = kanjax.games()
SEED = 3
HUMAN = 0


def small_flags(game: str) -> dict:
    return golden.game_cases(game).SMALL_FLAGS


def play_args(game: str, path, *more: str) -> list[str]:
    flags = [a for k, v in small_flags(game).items() for a in ("--set", f"{k}={v}")]
    return ["play", game, "--seed", str(SEED), "--delay", "0", "--out", str(path), *flags,
            *more]


@dataclasses.dataclass
class Script:
    """The match of the heuristic bots, the moves of the person in seat HUMAN (of every seat
    he plays, `Views.seats_played_with`) typed by their number in the list of legal actions, or
    by their card token the first time it names one legal action alone; a move that is the
    only legal one is not typed (issue 44 item 10)."""

    env: Env
    answers: list[str]  # what the person types at each of his decisions
    names: list[str]  # every action of the match
    states: list[State]  # every state of the match
    token_step: int | None  # the step the card token chose
    seats: tuple[int, ...]  # the seats the person plays
    forced: list[int]  # the steps where he had one legal action
    labels: dict[int, str]  # each player's label in the scenes

    def asked(self, state: State) -> bool:
        """Whether the person is asked at `state` (his turn, more than one legal action)."""
        return int(state.current_player) in self.seats and len(
            legal_actions(state)) > 1


def _card_token(env: Env, word: str) -> bool:
    try:
        env.card_deck.card(word)
    except ValueError:
        return False
    return True


@pytest.fixture(scope="module")
def scripts() -> dict[str, Script]:
    return {}


def script_of(game: str, scripts: dict[str, Script]) -> Script:
    if game not in scripts:
        m = records.Match(game, small_flags(game), SEED, None)
        env = m.env
        bot = play._chooser(env, "heuristic")
        answers: list[str] = []
        states, token_step, forced = [m.state], None, []
        seats = env.seats_played_with(m.state, HUMAN)
        while not m.done:
            state = m.state
            action = int(bot(state, m.gkey)[0])
            mover = int(state.current_player)
            if mover in seats and len(legal_actions(state)) == 1:
                forced.append(len(states) - 1)
            elif mover in seats:
                legal = env.scene(state, mover).legal
                name = env.action_name(action, state)
                last = [n.split()[-1] for n in legal]
                word = name.split()[-1]
                if token_step is None and last.count(word) == 1 and _card_token(env, word):
                    token_step = len(states) - 1
                    answers.append(word)
                else:
                    answers.append(str(legal.index(name) + 1))
            m.step(action)
            states.append(m.state)
        labels = {seat.player: seat.label for seat in env.scene(states[0]).seats}
        scripts[game] = Script(env, answers, m.names, states, token_step, seats, forced,
                               labels)
    return scripts[game]


def run_play(monkeypatch, capsys, args: list[str], stdin) -> str:
    monkeypatch.setattr("sys.stdin", stdin)
    main(args)
    return capsys.readouterr().out


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_match_at_the_terminal(game, scripts, tmp_path, monkeypatch, capsys):
    script = script_of(game, scripts)
    assert script.token_step is not None, "no decision had a card token to answer with"
    path = tmp_path / "game.json"
    typed = ["pass the salt", "0", *script.answers]  # two bad answers first
    out = run_play(monkeypatch, capsys, play_args(game, path, "--human", str(HUMAN)),
                   io.StringIO("\n".join(typed) + "\n"))
    assert "'pass the salt' is not a legal action here" in out
    assert "0 is not a number from the list" in out
    token = script.token_step  # the card token's action
    assert f"{script.labels[int(script.states[token].current_player)]}: " \
           f"{script.names[token]}" in out
    for step in script.forced:  # played for him, and shown
        who = script.labels[int(script.states[step].current_player)]
        assert f"{who}: {script.names[step]} (the only legal move)" in out
    at = 0  # each deal the match ends before its last drawn as it ended, in order
    for step in range(len(script.names)):
        if (ended := ended_deal(script, step)) is not None:
            scene = script.env.scene(ended, HUMAN)
            for line in (*(g.label for g in scene.table), scene.status):
                at = out.index(line, at)
    record = records.load(path)
    assert record["actions"] == script.names and record["terminated"]
    assert f"{path}: {len(script.names)} actions" in out
    result = records.replay(record)
    assert result.ok and result.steps == len(script.names), result.error


class Interrupt(io.StringIO):
    """A stdin whose reader is interrupted (Ctrl-C) once its lines are read."""

    def readline(self, *args) -> str:
        line = super().readline(*args)
        if not line:
            raise KeyboardInterrupt
        return line


@pytest.mark.parametrize("stop", ["end of input", "KeyboardInterrupt", "quit"])
@pytest.mark.parametrize("game", GAMES)
def test_stopping_early_saves_a_partial_record(game, stop, scripts, tmp_path, monkeypatch,
                                               capsys):
    script = script_of(game, scripts)
    k = min(3, len(script.answers) - 1)  # answers typed before stopping
    typed = "".join(f"{a}\n" for a in script.answers[:k])
    stdin = {"end of input": io.StringIO(typed), "KeyboardInterrupt": Interrupt(typed),
             "quit": io.StringIO(typed + "quit\n")}[stop]
    path = tmp_path / "partial.json"
    out = run_play(monkeypatch, capsys, play_args(game, path, "--human", str(HUMAN)), stdin)
    assert f"stopped ({stop})" in out and "partial record" in out
    record = records.load(path)
    n = len(record["actions"])
    assert not record["terminated"] and record["actions"] == script.names[:n]
    asked = sum(script.asked(s) for s in script.states[:n])
    assert asked == k and script.asked(script.states[n])
    result = records.replay(record)
    assert result.ok and result.steps == n, result.error


@pytest.mark.parametrize("game", GAMES)
def test_hot_seat_hands_the_terminal_over(game, tmp_path, monkeypatch, capsys):
    env = kanjax.make(game, **small_flags(game))
    seats = [str(p) for p in range(env.num_players)]
    args = play_args(game, tmp_path / "g.json", *(a for p in seats for a in ("--human", p)))
    out = run_play(monkeypatch, capsys, args, io.StringIO("1\n" * 12))
    record = records.load(tmp_path / "g.json")
    assert "the others look away" in out  # a short match (toy_trick's) ends before the input
    assert record["terminated"] or "stopped (end of input)" in out
    assert record["actions"] and records.replay(record).ok


def test_random_bots(tmp_path, monkeypatch, capsys):
    path = tmp_path / "g.json"
    out = run_play(monkeypatch, capsys, play_args("conquian", path, "--human", "1", "--bots",
                                                  "random"), io.StringIO("1\n" * 5))
    record = records.load(path)
    assert "stopped (end of input)" in out and records.replay(record).ok


def test_bad_command_lines_say_what_is_wrong(capsys):
    for args, want in ((["--human", "7"], "--human 7: conquian has players 0..1"),
                       (["--bots", "random"], "--bots and --delay are for a match with "
                                              "--human seats"),
                       (["--human", "0", "--delay", "-1"], "--delay -1.0: want seconds")):
        with pytest.raises(SystemExit) as exit_:
            main(["play", "conquian", *args])
        assert exit_.value.code == 2 and want in capsys.readouterr().err


def test_answers_are_numbers_names_or_card_tokens():
    legal = ("pick AS", "pick 2H", "discard AS", "take", "expose S")
    assert terminal.answer(" 2 ", legal) == "pick 2H"
    assert terminal.answer("TAKE", legal) == "take"
    assert terminal.answer("2h", legal) == "pick 2H"
    assert terminal.answer("discard  AS", legal) == "discard AS"
    assert terminal.answer("s", legal) == "expose S"
    for text, want in (("AS", "could be pick AS or discard AS"), ("6", "1..5"),
                       ("", "no answer"), ("KD", "not a legal action")):
        with pytest.raises(ValueError, match=want):
            terminal.answer(text, legal)


# ---- scenes -----------------------------------------------------------------------------
def _cards_on_table(scene: Scene) -> int:
    """Every card once: in a hand or a table group (its face-down cards too), except the
    groups of a mover's picked cards, which are still in his hand."""
    return sum(s.count for s in scene.seats) + sum(
        len(g.cards) + g.hidden for g in scene.table if not g.label.endswith("picked"))


def check_scene(env: Env, state: State) -> None:
    open_ = env.scene(state)
    done = bool(state.terminated | state.truncated)
    mover = None if done else int(state.current_player)
    legal = tuple(env.action_name(a, state) for a in legal_actions(state))
    assert open_.viewer is None and open_.to_act == mover and open_.game == env.name
    assert open_.legal == (() if done else legal)
    by_player = {s.player: s for s in open_.seats}  # in table order (whist's from S)
    assert sorted(by_player) == list(range(env.num_players))
    assert [s.to_act for s in open_.seats] == [s.player == mover for s in open_.seats]
    if mover is not None:
        assert open_.status.startswith(f"to act: {by_player[mover].label}")
    for seat in open_.seats:
        assert seat.cards is not None and len(seat.cards) == seat.count
    assert _cards_on_table(open_) == env.card_deck.size
    for p in range(env.num_players):
        view = env.scene(state, p)
        assert view.viewer == p and view.to_act == mover
        assert view.legal == (open_.legal if p == mover else ())
        for seat, full in zip(view.seats, open_.seats, strict=True):
            assert seat.count == full.count
            assert seat.cards == (full.cards if seat.player == p else None)
        groups = {g.label: g for g in open_.table}
        for g in view.table:  # the same cards, some face down
            full = groups[g.label]
            assert len(g.cards) + g.hidden == len(full.cards) + full.hidden
            assert not Counter(g.cards) - Counter(full.cards)
        assert _cards_on_table(view) == env.card_deck.size


@pytest.mark.parametrize("game", GAMES)
def test_scenes_show_each_player_what_he_may_see(game, scripts):
    script = script_of(game, scripts)
    for state in script.states[::9] + script.states[-1:]:
        check_scene(script.env, state)


@pytest.mark.slow
def test_konkan_partnership_hides_the_partners_hand():
    env = kanjax.make("konkan", n=4, partnership=True, n_rounds=1)
    state = env.init(jax.random.PRNGKey(0))
    check_scene(env, state)
    assert env.scene(state, 0).seats[2].cards is None


def test_whist_one_person_plays_the_declarers_side(scripts, tmp_path, monkeypatch, capsys):
    """Issue 44 item 10: as bridge's declarer plays the dummy's cards, one person plays the
    declarer's side (given the dummy's seat too), and the terminal says so; a defender plays
    his own seat. With leader N, W declares and E is dummy; with leader W, S and N."""
    script = script_of("whist", scripts)
    env, start = script.env, script.states[0]
    assert [env.seats_played_with(start, p) for p in range(4)] == [(0,), (3, 1), (2,), (3, 1)]
    assert script.forced  # the last trick at least
    path = tmp_path / "g.json"
    out = run_play(monkeypatch, capsys, play_args("whist", path, "--human", "0", "--set",
                                                  "leader=W"), io.StringIO("1\n" * 30))
    assert "you play S (declarer) and N (dummy)" in out and "N> " in out and "S> " in out
    prompts = {m[1] for m in re.finditer(r"^(\w+)> ", out, re.MULTILINE)}
    assert prompts == {"N", "S"}  # a seat's prompt, then the move shown
    record = records.load(path)
    assert record["terminated"] and records.replay(record).ok


@pytest.mark.parametrize("game", GAMES)
def test_headers_show_no_internal_values(game, scripts):
    """Issue 44 item 10: no "-1", "?" or Python list in a scene's header (Da Bai Fen's
    "leader -1", "T ?"; Konkan's "totals [0, 0, 0, 0]")."""
    script = script_of(game, scripts)
    for state in script.states[::4]:
        header = script.env.scene(state).header
        assert not re.search(r"(?<![\w+])-1\b|\?|\[", header), header


def ended_deal(script: Script, step: int) -> State | None:
    """`Views.ended_deal` of the match's step `step` where it ends a deal but not the match:
    the deal as it ended; None elsewhere, or where the game keeps no such state."""
    env, before, after = script.env, script.states[step], script.states[step + 1]
    if not bool(jitted(env, "deal_done")(after)) or bool(after.terminated | after.truncated):
        return None
    action = np.int32(env.action_from_name(script.names[step], before))
    return jitted(env, "ended_deal")(before, action)


def test_da_bai_fen_shows_a_finished_trick_whole(scripts):
    """Issue 44 item 10: the trick a move finishes stays on the table, whole and with its
    winner, beside the next trick, until the next one is finished too; a hand's last trick
    too, in the hand as it ended (`Views.ended_deal`: no one to act, the hand's result), which
    the step that finishes it replaces with the next hand, and at the game's end."""
    script = script_of("da_bai_fen", scripts)
    env, finished, hands, last = script.env, 0, 0, 0
    for step, before in enumerate(script.states[:-1]):
        ended = ended_deal(script, step)
        shown = script.states[step + 1] if ended is None else ended
        scene = env.scene(shown)
        old, new = {g.label: g for g in env.scene(before).table}, {g.label: g for g in scene.table}
        current = [label for label in old if re.fullmatch(r"trick \d+", label)]
        taken = [g for label, g in new.items() if label.startswith(f"{current[0]}, taken by")] \
            if current and current[0] not in new else []
        if taken:
            finished += 1
            played = old[current[0]]
            assert taken[0].cards[: len(played.cards)] == played.cards
            assert taken[0].owners[: len(played.owners)] == played.owners
            assert len(set(taken[0].owners)) == 4
        elif current:  # still in progress, or a bad multi-lead's penalty ended the hand (DBF-24)
            assert current[0] in new or any(label.startswith(current[0]) for label in new)
        if ended is not None:
            hands += 1
            last += bool(taken)
            assert scene.to_act is None and not scene.legal
            assert scene.status.startswith("hand over; last hand: "), scene.status
            assert f"hand {hands} (" in scene.header and "phase hand over" in scene.header
    assert finished > last > 0  # tricks within hands, and hands' last ones
    final = env.scene(script.states[-1])
    assert f"hand {hands + 1} (" in final.header and final.status.startswith("game over")


def test_kan_shows_a_deals_last_trick_whole():
    """Issue 44 item 10: the step that finishes a Kan deal's last trick (the tenth, or one
    that ends the deal early) deals the next one; the deal as it ended (`Views.ended_deal`)
    shows that trick whole, with its winner, and no one to act."""
    m = records.Match("yonin_kan", {"n_rounds": 2}, SEED, None)
    env, bot = m.env, play._chooser(m.env, "random")
    while True:
        before, action = m.state, int(bot(m.state, m.gkey)[0])
        m.step(action)
        if bool(jitted(env, "deal_done")(m.state)):
            break
    assert not m.done
    (played,) = [g for g in env.scene(before).table if g.label.startswith("trick ")]
    scene = env.scene(jitted(env, "ended_deal")(before, np.int32(action)))
    (last,) = [g for g in scene.table if g.label.startswith("trick ")]
    assert re.fullmatch(rf"{played.label}, taken by P\d", last.label), last.label
    assert set(zip(played.owners, played.cards, strict=True)) < set(
        zip(last.owners, last.cards, strict=True))
    assert sorted(last.owners) == list(range(env.num_players))
    assert scene.to_act is None and not scene.legal and scene.status == "deal over"
