"""The shared conformance suite (kanjax.conformance) on variants beyond each game's small flags
(those run in tests/test_every_game.py, for every registered game)."""

import pytest

import kanjax
from kanjax.conformance import check_env

CASES = [
    ("gonin_kan", {"players": 6, "n_rounds": 1, "shippo_jo": True}),
    ("yonin_kan", {"n_rounds": 2}),
    ("gambari_kan", {"n_rounds": 2, "gambari_min_target": 6}),
    ("whist", {"trump": "H", "leader": "N"}),
]


@pytest.mark.parametrize("game,flags", CASES, ids=lambda v: str(v))
def test_conformance(game, flags):
    env = kanjax.make(game, **flags)
    figures = check_env(env, batch=3)
    assert all(0 < s <= env.max_steps for s in figures["steps"])


def test_make_rejects_unknown_game_and_flag():
    with pytest.raises(ValueError, match="unknown game 'gonin'"):
        kanjax.make("gonin")
    with pytest.raises(ValueError, match="unknown config key 'player'"):
        kanjax.make("gonin_kan", player=6)
    with pytest.raises(ValueError, match="zero_sum_5p"):
        kanjax.make("gonin_kan", players=6, scoring="zero_sum_5p")
    with pytest.raises(ValueError, match="unknown config key 'shippo_jo' for yonin_kan"):
        kanjax.make("yonin_kan", shippo_jo=True)
    with pytest.raises(ValueError, match="gambari_min_target=0"):
        kanjax.make("gambari_kan", gambari_min_target=0)
    with pytest.raises(ValueError, match="unknown config key 'players' for whist"):
        kanjax.make("whist", players=4)
