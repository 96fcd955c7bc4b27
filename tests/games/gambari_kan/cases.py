"""Gambari Kan's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`)
and the small flags of `tests/test_every_game.py`."""

GOLDEN = {"gambari_kan_seed6": ({"n_rounds": 1}, 6)}  # file name -> (flags, seed)
SMALL_FLAGS = {"n_rounds": 1}
