"""Whist's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`) and
the small flags of `tests/test_every_game.py`."""

GOLDEN = {"whist_seed7": ({"trump": "H", "leader": "N"}, 7)}  # file name -> (flags, seed)
SMALL_FLAGS = {"trump": "H", "leader": "N"}
