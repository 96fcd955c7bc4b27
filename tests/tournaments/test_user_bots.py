"""Users' engines as tournament bots (issue 28): a JAX policy (`kind = "jax"`) inside the
chunk's jitted loop (with its parameters from a `.npz` checkpoint, a tiny network plays
every registered game in `test_every_game_tournament`); a policy that plays an illegal move
forfeits; a target that does not import or trace, or a checkpoint that does not load, fails
before any work, naming the file, line and key."""

from __future__ import annotations

import json

import jax
import numpy as np
import pyarrow.dataset as ds
import pytest

import kanjax
from examples.policy_net.net import init_params
from tests.harness.golden import game_cases
from tests.tournaments.user_policies import NET, tiny_net
from tournaments.config import ConfigError, parse_config
from tournaments.policies import load_params, save_params
from tournaments.runner import run_tournament

POLICIES = "tests.tournaments.user_policies"

CONFIG = """\
[tournament]
game = "{game}"
deals = 1
seed = 5
chunk_size = {chunk}
seatings = "distinct"
output = "{out}"

[flags]
{flags}

[bots.{a}]
{a_spec}

[bots.{b}]
{b_spec}
"""


def config(tmp_path, game: str, bots: dict[str, str], chunk: int = 4) -> str:
    """The TOML of a one-deal-seed tournament of `bots` (name -> spec lines) in `game` with
    its small test flags."""
    flags = game_cases(game).SMALL_FLAGS
    (a, a_spec), (b, b_spec) = bots.items()
    return CONFIG.format(game=game, chunk=chunk, out=tmp_path / "out", a=a, a_spec=a_spec,
                         b=b, b_spec=b_spec, flags="\n".join(
                             f"{k} = {json.dumps(v)}" for k, v in flags.items()))


def play(text: str, out) -> list[dict]:
    """The stored games of the tournament `text` played in this process."""
    cfg = parse_config(text)
    result = run_tournament(cfg, local=True, progress=False)
    games = ds.dataset(out / "games").to_table().to_pylist()
    assert result.finished and result.games == len(games)
    return games


def test_an_illegal_jax_move_forfeits_and_loses_nothing(tmp_path):
    bots = {"first": f'kind = "jax"\ntarget = "{POLICIES}:make_first_legal"',
            "illegal": f'kind = "jax"\ntarget = "{POLICIES}:make_illegal"'}
    games = play(config(tmp_path, "gonin_kan", bots), tmp_path / "out")
    env = kanjax.make("gonin_kan", n_rounds=1)
    assert len(games) == 2  # distinct seatings of 2 bots at 5 seats: every game stored
    for g in games:
        assert g["bots"][g["forfeit"]] == "illegal"
        assert g["forfeit_reason"].startswith("illegal: illegal: action ")
        assert g["scores"][g["forfeit"]] == env.worst_score - 1  # below any legal match
    seats = ds.dataset(tmp_path / "out" / "seats").to_table()
    assert seats.num_rows == 2 * env.num_players


@pytest.mark.parametrize("spec,key,message", [
    ('target = "tests.nowhere:make"', "target",
     "cannot import 'tests.nowhere:make': ModuleNotFoundError"),
    (f'target = "{POLICIES}:make_untraceable"', "target",
     r".*:make_untraceable does not trace: TracerBoolConversionError: .*"
     r"\(at .*user_policies.py:40\)$"),
    (f'target = "{POLICIES}:make_float_action"', "target",
     r".*'s policy must return one integer action a game, got float32\[\]"),
    (f'target = "{NET}"\nparams = "no/such.npz"', "params", "cannot load parameters"),
    (f'target = "{NET}"\nparams = "{{net}}"', "target",  # another game's network
     ".* does not trace: TypeError: .*"),
])
def test_a_bad_jax_bot_fails_before_any_work(tmp_path, spec, key, message):
    spec = spec.format(net=tiny_net(tmp_path, "gambari_kan"))
    text = config(tmp_path, "gonin_kan", {"random": 'kind = "random"',
                                          "user": f'kind = "jax"\n{spec}'})
    line = max(i for i, t in enumerate(text.splitlines(), 1) if t.startswith(f"{key} ="))
    with pytest.raises(ConfigError, match=rf"^t.toml:{line}: \[bots.user\] {key}: {message}"):
        parse_config(text, "t.toml")
    assert not (tmp_path / "out").exists()


def test_params_are_jax_only_and_hashed_by_content(tmp_path):
    net = tiny_net(tmp_path, "gonin_kan")
    text = config(tmp_path, "gonin_kan", {"random": 'kind = "random"',
                                          "net": f'kind = "jax"\ntarget = "{NET}"\n'
                                                 f'params = "{net}"'})
    with pytest.raises(ConfigError, match=r"\[bots.random\] params: only jax bots take"):
        parse_config(text.replace('kind = "random"', f'kind = "random"\nparams = "{net}"'))
    copy = tmp_path / "copy.npz"
    copy.write_bytes(open(net, "rb").read())
    assert parse_config(text).config_hash() == parse_config(
        text.replace(net, str(copy))).config_hash()
    save_params(copy, init_params(kanjax.make("gonin_kan", n_rounds=1), jax.random.PRNGKey(2),
                                   (8,)))
    assert parse_config(text).config_hash() != parse_config(
        text.replace(net, str(copy))).config_hash()


def test_params_round_trip(tmp_path):
    params = {"0": {"w": np.arange(6.0).reshape(2, 3), "b": np.zeros(3, np.float32)},
              "steps": np.int32(7)}
    save_params(tmp_path / "p.bin", params)
    back = load_params(tmp_path / "p.bin")
    assert jax.tree.all(jax.tree.map(np.array_equal, back, params))
    assert back["0"]["b"].dtype == np.float32
