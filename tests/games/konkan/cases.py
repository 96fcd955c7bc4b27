"""Konkan's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`) and
the small flags of `tests/test_every_game.py` (three players, two short rounds: random play
rarely goes out, so a round ends at its turn bound or when the stock runs out)."""

SMALL_FLAGS = {"n": 3, "n_rounds": 2, "max_turns_per_round": 20, "dealer": 0}
GOLDEN = {"konkan_seed12": ({"n": 3, "n_rounds": 1, "max_turns_per_round": 10, "dealer": 0},
                            12)}  # file name -> (flags, seed)
