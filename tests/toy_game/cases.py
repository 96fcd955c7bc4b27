"""Toy trick's cases of the cross-game tests (`tests.harness.golden.game_cases` finds this
module beside the engine): golden playthroughs, kept in this folder, and the small flags of
the every-game tests."""

from pathlib import Path

GOLDEN = {"toy_trick_seed2": ({"leader": 1}, 2)}  # file name -> (flags, seed)
GOLDEN_DIR = Path(__file__).parent / "golden"
SMALL_FLAGS = {"leader": 1}
