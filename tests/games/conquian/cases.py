"""Conquian's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`) and
the small flags of `tests/test_every_game.py`. Conquian is one deal (CQ-4): nothing to
shorten."""

GOLDEN = {  # file name -> (flags, seed)
    "conquian_seed10": ({"dealer": 0}, 10),
    "conquian_numerals_seed11": ({"deck": "numerals"}, 11),
}
SMALL_FLAGS = {"dealer": 1}
