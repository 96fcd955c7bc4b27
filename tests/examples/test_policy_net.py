"""The worked example (examples/policy_net, issue 28 item 4): the network's generic features,
Gonin Kan's observation seen from the observer's seat and its compact features, the returns
its self-play weighs moves by, its saved weights as a `jax` bot in the evaluation configs;
and (slow) a toy training run, saved, loaded and played in a tournament."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pyarrow.dataset as ds
import pytest

import kanjax
from examples.policy_net import gonin, net, train_gonin
from kanjax.rollout import game_key, make_trajectory
from tournaments.config import load_config, parse_config
from tournaments.policies import load_params
from tournaments.runner import run_tournament

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "policy_net"


def test_features_one_hot_elements_of_few_values_and_scale_the_others():
    env = kanjax.make("gonin_kan", n_rounds=1)
    spec = env.observation_spec()
    low, high = spec.bounds()
    feats = net.features(env)
    values = high - low + 1
    few = values <= net.ONE_HOT_MAX
    hot = int(values[few].sum())  # the one-hot slots come first
    at_low, at_high = (np.asarray(feats(jnp.asarray(x, spec.dtype))) for x in (low, high))
    assert at_low.size == hot + (~few).sum()
    assert at_low[:hot].sum() == at_high[:hot].sum() == few.sum()  # one slot an element
    assert at_low[0] == at_high[hot - 1] == 1.0  # the first value, the last value
    assert np.all(at_low[hot:] == 0.0) and np.all(at_high[hot:] == 1.0)


def test_gonin_players_are_counted_from_the_observer():
    env = kanjax.make("gonin_kan", n_rounds=1)
    spec, sl = env.observation_spec(), env.observation_spec().slices()
    low, high = spec.bounds()
    obs = low.copy()
    obs[sl["me"]], obs[sl["dealer"]], obs[sl["current_player"]] = 2, 2, 1
    obs[sl["cards"].start + 1] = 1  # card 0 played by player 1
    obs[sl["kankei"]] = [1, 0, 0, 1, 0]
    obs[sl["seat_of"]] = [4, 0, 1, 2, 3]
    seen = np.asarray(gonin.relative(env)(jnp.asarray(obs, spec.dtype)))
    assert seen[sl["me"]] == 0 and seen[sl["dealer"]] == 0 and seen[sl["current_player"]] == 4
    assert seen[sl["cards"].start + 1] == 4  # the player before me
    assert seen[sl["kankei"]].tolist() == [0, 1, 0, 1, 0]  # me first
    assert seen[sl["seat_of"]].tolist() == [0, 1, 2, 3, 4]
    assert np.all((low <= seen) & (seen <= high))


def test_gonin_features_place_each_card_relative_to_the_observer():
    env = kanjax.make("gonin_kan", n_rounds=1)
    spec, sl = env.observation_spec(), env.observation_spec().slices()
    low, high = spec.bounds()
    obs = np.where(low < 0, -1, low)
    obs[sl["me"]], obs[sl["rk_rm"]], obs[sl["scores"]] = 2, 0, 0
    cards = obs[sl["cards"]].reshape(-1, 4)
    cards[:, 0] = 0
    cards[0, 0] = 1  # card 0 in my hand
    cards[1, 1] = 1  # card 1 in the current trick, played by the player before me
    cards[2, 1], cards[2, 3] = 3, 2  # card 2 played by the next player, taken by me
    obs[sl["cards"]] = cards.reshape(-1)
    obs[sl["signal"].start + 1] = 5  # card 5 shown in the signal
    x = np.asarray(gonin.features(env)(jnp.asarray(obs, spec.dtype)))
    places = x[:53 * gonin.PLACES].reshape(53, gonin.PLACES)
    assert x.shape == (858,) and set(np.unique(x)) <= {0.0, 1.0}
    assert np.flatnonzero(places[0]).tolist() == [0]  # in my hand
    assert np.flatnonzero(places[1]).tolist() == [1 + 4]  # in the trick, by player 4
    assert np.flatnonzero(places[2]).tolist() == [6 + 0]  # taken by me
    assert places[3:].sum() == 0  # unseen
    marks = x[53 * gonin.PLACES:53 * (gonin.PLACES + 1)]
    assert np.flatnonzero(marks).tolist() == [5]
    header = x[53 * (gonin.PLACES + 1):]
    elements = sum(sl[k].stop - sl[k].start for k in gonin.ONE_HOT) + 1  # + the signal form
    assert header.sum() == elements  # one slot an element, the scaled ones at 0


def dense(sparse: net.Sparse, size: int) -> np.ndarray:
    """The features that `net.Sparse` features stand for."""
    x = np.zeros(size, np.float32)
    hot = np.asarray(sparse.hot)
    assert len(set(hot[hot >= 0])) == (hot >= 0).sum()  # no index twice
    x[hot[hot >= 0]] = 1.0
    x[size - len(sparse.dense):] = np.asarray(sparse.dense)
    return x


def test_gonin_sparse_features_are_the_features_and_the_network_plays_the_same_moves():
    env = kanjax.make("gonin_kan", n_rounds=1)
    play = make_trajectory(env)  # 8 random matches
    states = jax.tree.map(lambda *x: jnp.concatenate(x), *(
        play(game_key(jax.random.PRNGKey(7), g), jnp.zeros(env.max_steps, jnp.int32), 0).states
        for g in range(8)))
    on = np.flatnonzero(~np.asarray(states.terminated | states.truncated))
    obs = jax.vmap(env.observe)(states, jnp.maximum(states.current_player, 0))[on]
    masks = states.legal_action_mask[on]
    sl = env.observation_spec().slices()
    twice = obs[0].at[sl["nijuu"].start + 1].set(5).at[sl["signal"].start + 1].set(5)
    obs = jnp.concatenate([obs, twice[None]])  # card 5 named in the exchange and the signal
    masks = jnp.concatenate([masks, masks[:1]])
    feats, sparse = gonin.features(env), gonin.sparse_features(env)
    want = np.asarray(jax.vmap(feats)(obs))
    got = jax.vmap(sparse)(obs)
    assert len(obs) > 300
    for i in range(len(obs)):
        assert np.array_equal(dense(jax.tree.map(lambda x, i=i: x[i], got), 858), want[i])
    params = load_params(EXAMPLE / "gonin_net.npz")
    policies = [jax.vmap(p, in_axes=(None, None, 0, 0)) for p in (
        net.make_policy(env, feats), gonin.make_policy(env))]
    key = jax.random.PRNGKey(0)
    first, second = (np.asarray(p(params, key, obs, masks)) for p in policies)
    assert np.array_equal(first, second)


def test_a_move_is_weighed_by_its_movers_rewards_from_then_on():
    rewards = np.zeros((3, 1, 2), np.float32)
    rewards[1, 0] = [1.0, -1.0]  # the step after move 1 pays player 0
    rewards[2, 0] = [-3.0, 3.0]
    data = {"rewards": jnp.asarray(rewards), "mover": jnp.asarray([[0], [1], [0]])}
    assert np.asarray(train_gonin.returns_to_go(data))[:, 0].tolist() == [-2.0, 2.0, -3.0]


@pytest.mark.parametrize("config", ["gonin_eval.toml", "gonin_eval_pimc.toml"])
def test_the_saved_network_is_a_jax_bot_of_the_evaluation_configs(config, monkeypatch):
    monkeypatch.chdir(EXAMPLE.parents[1])  # the params path is relative to the repository
    cfg = load_config(EXAMPLE / config)  # loads and traces the policy on its weights
    assert [b.kind for b in cfg.bots][0] == "jax"


@pytest.mark.slow
def test_a_toy_training_run_saves_weights_a_tournament_plays(tmp_path):
    weights = tmp_path / "toy.npz"
    result = train_gonin.train(str(weights), games=8, steps=20, iterations=1,
                               selfplay_games=8, hidden=(8,), eval_games=10, log=lambda _: None)
    assert weights.exists() and result["history"][0]["phase"] == "imitation"
    text = (EXAMPLE / "gonin_eval.toml").read_text().replace(
        "examples/policy_net/gonin_net.npz", str(weights)).replace(
        "deals = 200", "deals = 1").replace("results/gonin_net", str(tmp_path / "out"))
    assert run_tournament(parse_config(text), local=True, progress=False).finished
    games = ds.dataset(tmp_path / "out" / "games").to_table().to_pylist()
    assert len(games) == 20 and all(g["forfeit"] == -1 for g in games)
