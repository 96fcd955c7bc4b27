"""Differential tests: the JAX Gambari Kan engine vs its plain-Python reference, step by step
(Gambari KAN-63..KAN-68).

2,000 random matches over mixed flags in the default run; 100,000 with `pytest -m slow`.
"""

from tests.games.kan.differential import ADAPTER
from tests.harness.differential import differential_tests

# (game, flags, matches in the default run); n_rounds is kept small to fit the CI budget,
# with one config playing longer matches (the final round, Tome Suppe, is always played).
CONFIGS = [
    ("gambari_kan", {"n_rounds": 4}, 1200),
    ("gambari_kan", {"n_rounds": 3, "gambari_scoring": "flat", "gambari_min_target": 7,
                     "first_dealer_seat": 2}, 800),
]


test_KAN_engine_matches_reference, test_KAN_engine_matches_reference_100k = (
    differential_tests(ADAPTER, CONFIGS))
