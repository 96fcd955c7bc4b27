"""Yonin Kan's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`)
and the small flags of `tests/test_every_game.py`."""

GOLDEN = {"yonin_kan_seed5": ({"n_rounds": 1}, 5)}  # file name -> (flags, seed)
SMALL_FLAGS = {"n_rounds": 1}
