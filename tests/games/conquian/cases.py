"""Conquian's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`) and
the small flags of `tests/test_every_game.py` (the same flags, so that the every-game tests
compile one engine). An episode is a series of deals settling one stake (CQ-22): nothing to
shorten."""

GOLDEN = {"conquian_seed10": ({"dealer": 0}, 10)}  # file name -> (flags, seed)
SMALL_FLAGS = {"dealer": 0}
