"""Gonin Kan's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`)
and the small flags of `tests/test_every_game.py`."""

GOLDEN = {  # file name -> (flags, seed)
    "gonin_kan_5p_seed3": ({"n_rounds": 2}, 3),
    "gonin_kan_6p_seed4": ({"players": 6, "n_rounds": 1, "shippo_jo": True}, 4),
}
SMALL_FLAGS = {"n_rounds": 1}
