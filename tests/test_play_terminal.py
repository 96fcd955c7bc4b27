"""`kanjax play GAME --human SEAT`: a person's match at the terminal (`kanjax.play`, drawn by
`kanjax.terminal`) through the CLI with a scripted stdin, its record and replay, stopping
early; and the scenes it draws (`Env.scene`) against the state and `observe` (issue 29).

Every registered game is covered; the games' small flags and the compiled engines are those
of tests/test_every_game.py (one compile each per run)."""

from __future__ import annotations

import dataclasses
import io
from collections import Counter

import jax
import pytest

import kanjax
from kanjax import play, records, terminal
from kanjax.api import Env, State
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
    """The match of the heuristic bots, seat HUMAN's moves typed by their number in the list
    of legal actions, or by their card token the first time it names one legal action
    alone."""

    env: Env
    answers: list[str]  # what the person types at each of his decisions
    names: list[str]  # every action of the match
    states: list[State]  # every state of the match
    token_step: int | None  # the step the card token chose


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
        states, token_step = [m.state], None
        while not m.done:
            state = m.state
            action = int(bot(state, m.gkey)[0])
            if int(state.current_player) == HUMAN:
                legal = env.scene(state, HUMAN).legal
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
        scripts[game] = Script(env, answers, m.names, states, token_step)
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
    assert f"P{HUMAN}: {script.names[script.token_step]}" in out  # the card token's action
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
    human_moves = sum(int(s.current_player) == HUMAN for s in script.states[:n])
    assert human_moves == k and int(script.states[n].current_player) == HUMAN
    result = records.replay(record)
    assert result.ok and result.steps == n, result.error


@pytest.mark.parametrize("game", GAMES)
def test_hot_seat_hands_the_terminal_over(game, tmp_path, monkeypatch, capsys):
    env = kanjax.make(game, **small_flags(game))
    seats = [str(p) for p in range(env.num_players)]
    args = play_args(game, tmp_path / "g.json", *(a for p in seats for a in ("--human", p)))
    out = run_play(monkeypatch, capsys, args, io.StringIO("1\n" * 12))
    assert "the others look away" in out and "stopped (end of input)" in out
    record = records.load(tmp_path / "g.json")
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
    legal = tuple(env.action_name(a, state) for a in env.legal_actions(state))
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
