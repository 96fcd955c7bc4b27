"""Toy trick (`toy_trick`, tests/toy_game/rules.md): the example game of
docs/adding_a_game.md. Its own tests, as every game has them: the engine against its
reference (differential), jit and vmap over a batch, the heuristic bot, and a scripted
scenario per rule, named after its id. The every-game tests (tests/test_every_game.py and the
others parametrized over `kanjax.games()`) cover it too, since tests/conftest.py registers it."""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import checked_step, legal_actions
from kanjax.bots import make_heuristic
from kanjax.conformance import check_env
from tests.harness.differential import run_differential
from tests.toy_game.differential import ADAPTER
from tests.toy_game.reference import ToyRef
from tournaments.config import parse_config
from tournaments.runner import run_tournament

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
GUIDE = ROOT / "docs" / "adding_a_game.md"


def play(env, deal: str, names: list[str]):
    """The states of `deal` (a deal string) after each of the actions `names`, checked, with
    the reference playing along: its legal plays and scores agree at every step."""
    state = env.from_deal(deal)
    owner = np.asarray(env.summary(state)["hand_owner"])
    ref = ToyRef([np.flatnonzero(owner == p).tolist() for p in range(2)], env.config.leader
                 if "leader=" not in deal else int(deal.split("leader=")[1][0]))
    states = [state]
    for name in names:
        assert legal_actions(state) == ref.legal_actions()
        state = checked_step(env, state, name)
        ref.apply(env.action_from_name(name))
        assert np.asarray(state.rewards).tolist() == ref.rewards or not ref.is_over
        states.append(state)
    return states, ref


def test_registered_as_the_guide_says_and_the_engine_never_imports_its_reference():
    assert kanjax.registry()["toy_trick"] == "tests.toy_game.engine:make_toy"
    for module in ("engine.py", "heuristic.py"):
        imports = re.findall(r"^\s*(?:from|import) (\S+)", (HERE / module).read_text(), re.M)
        assert not [m for m in imports if "reference" in m], module


def test_the_guide_says_what_the_toy_game_does():
    """docs/adding_a_game.md: the files it names exist, the toy registers with the line it
    shows, the toy declares the capabilities it says, and the every-game test files it lists
    are parametrized over `kanjax.games()`."""
    from kanjax.capabilities import CAPABILITIES, capabilities

    guide = GUIDE.read_text()
    paths = set(re.findall(r"`((?:tests|kanjax|docs)/[\w/.]+\.(?:py|md))`", guide))
    assert "tests/toy_game/engine.py" in paths and "tests/conftest.py" in paths
    assert not [p for p in paths if not (ROOT / p).is_file()]
    (line,) = [x.strip() for x in (ROOT / "tests/conftest.py").read_text().splitlines()
               if "kanjax.register(" in x]
    assert f"\n{line}\n" in guide
    declared = {c.__name__ for c in CAPABILITIES.values()} & set(re.findall(r"`(\w+)`", guide))
    assert declared == {c.__name__ for c in CAPABILITIES.values()}
    assert "class ToyEnv(Env, Views, TournamentViews, Bots)" in guide
    assert capabilities(kanjax.make("toy_trick")) == ["views", "tournament", "bots"]
    section = guide.split("Once registered")[1].split("## 7.")[0]
    for path in re.findall(r"`(tests/[\w/]+\.py)`", section):
        assert "kanjax.games()" in (ROOT / path).read_text(), path


@pytest.mark.parametrize("leader", [0, 1])
def test_engine_matches_reference(leader):
    """200 random deals a flag value, every step's legal plays, summary and scores."""
    steps = sum(run_differential(ADAPTER, "toy_trick", {"leader": leader}, seed, 100)[0]
                for seed in range(2))
    assert steps == 200 * 6  # every deal is six cards played


def test_jit_and_vmap_over_a_batch():
    """The conformance suite on the flag value the every-game tests do not run (a batch of 4
    equals 4 single games, compiled once), and the heuristic bot against itself in one jitted,
    vmapped loop of 16 games."""
    env = kanjax.make("toy_trick", leader=0)
    assert all(s == 6 for s in check_env(env, batch=4)["steps"])
    bot = make_heuristic(env)

    def turn(state, key):
        obs = env.observe(state, state.current_player)
        return env.step(state, bot(key, obs, state.legal_action_mask)), state.rewards

    @jax.jit
    def match(key):
        state = env.init(key)
        state, _ = jax.lax.scan(lambda s, k: turn(s, k), state, jax.random.split(key, 6))
        return state

    ends = jax.vmap(match)(jax.random.split(jax.random.PRNGKey(0), 16))
    assert np.asarray(ends.terminated).all() and not np.asarray(ends.illegal_action).any()
    rewards = np.asarray(ends.rewards)
    assert (rewards.sum(1) == 0).all() and set(np.abs(rewards).ravel()) <= {1.0, 3.0}


TOURNAMENT = """\
[tournament]
game = "toy_trick"
deals = 2
seed = 1
chunk_size = 2
output = "{out}"

[bots.heuristic]
kind = "heuristic"

[bots.random]
kind = "random"
"""


def test_a_tiny_tournament_on_a_local_ray(tmp_path):
    """The registration reaches the Ray workers (they make the env by its name): a local Ray
    of one actor plays the heuristic bot against the random one (the every-game tournament
    tests play in-process, `--local`)."""
    import pyarrow.dataset as ds

    cfg = parse_config(TOURNAMENT.format(out=tmp_path / "out"))
    result = run_tournament(cfg, actors=1, progress=False)
    games = ds.dataset(tmp_path / "out" / "games").to_table().to_pylist()
    assert result.games == len(games) == 4 and all(g["forfeit"] == -1 for g in games)
    assert all(sum(g["scores"]) == 0 for g in games)


def test_heuristic_bot_leads_high_and_wins_cheaply():
    env = kanjax.make("toy_trick")
    bot = jax.jit(make_heuristic(env))
    state = env.from_deal("toy_trick | QS KS QH | AS KH AH")

    def chosen(s):
        obs = env.observe(s, s.current_player)
        return env.action_name(int(bot(jax.random.PRNGKey(0), obs, s.legal_action_mask)))

    assert chosen(state) == "play KS"  # leading: the highest card
    state = checked_step(env, state, "play QH")
    assert chosen(state) == "play KH"  # following: the cheapest card that beats QH


def test_TOY_1_three_cards_each_all_six_dealt():
    env = kanjax.make("toy_trick")
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(1), 64))
    owner = np.asarray(jax.vmap(env.summary)(states)["hand_owner"])
    assert ((owner == 0).sum(1) == 3).all() and ((owner == 1).sum(1) == 3).all()
    assert len({tuple(o) for o in owner}) > 10  # the deal is random
    with pytest.raises(ValueError, match="hand of P0 has 2 cards: want 3"):
        env.from_deal("toy_trick | QS KS | AS QH KH AH")
    with pytest.raises(ValueError, match="card QS is dealt twice"):
        env.from_deal("toy_trick | QS KS AS | QS KH AH")


def test_TOY_2_the_leader_flag_leads_then_each_tricks_winner():
    deal = "toy_trick | QS KS QH | AS KH AH"
    assert int(kanjax.make("toy_trick").from_deal(deal).current_player) == 0
    env = kanjax.make("toy_trick", leader=1)
    states, ref = play(env, deal, ["play KH", "play QH", "play AS", "play KS"])
    assert [int(s.current_player) for s in states] == [1, 0, 1, 0, 1]  # P1 won both
    with pytest.raises(ValueError, match="leader=2: must be 0 or 1"):
        kanjax.make("toy_trick", leader=2)


def test_TOY_3_follow_suit_and_only_a_higher_card_of_the_led_suit_wins():
    env = kanjax.make("toy_trick")
    states, ref = play(env, "toy_trick | QS KS QH | AS KH AH", ["play KS"])
    assert legal_actions(states[-1]) == [env.action_from_name("play AS")]  # must follow
    with pytest.raises(ValueError, match="illegal action 5 \\(play AH\\)"):
        checked_step(env, states[-1], "play AH")
    states, ref = play(env, "toy_trick | QS KS AS | QH KH AH", ["play QS", "play AH"])
    assert ref.won == [1, 0] and np.asarray(env.summary(states[-1])["won"]).tolist() == [1, 0]


def test_TOY_4_each_is_paid_his_tricks_less_the_others():
    env = kanjax.make("toy_trick")
    names = ["play QS", "play KS", "play KH", "play AH", "play QH", "play AS"]
    states, ref = play(env, "toy_trick | QS AH QH | AS KS KH", names)
    paid = [np.asarray(s.rewards).tolist() for s in states]
    assert paid[:-1] == [[0.0, 0.0]] * 6 and paid[-1] == [1.0, -1.0] == ref.rewards
    assert bool(states[-1].terminated) and ref.won == [2, 1]
    assert jnp.sum(jnp.stack([s.rewards for s in states]), 0).tolist() == [1.0, -1.0]
