"""Differential tests: the JAX Gonin Kan engine vs its plain-Python reference, step by step
(Gonin KAN-1..KAN-46).

2,000 random matches over mixed flags in the default run; 100,000 with `pytest -m slow`.
"""

from tests.games.kan.differential import ADAPTER
from tests.harness.differential import differential_tests

# (game, flags, matches in the default run); n_rounds is kept small to fit the CI budget,
# with one config playing longer matches (the final round, Tome Suppe, is always played).
CONFIGS = [
    ("gonin_kan", {"n_rounds": 2}, 700),
    ("gonin_kan", {"players": 6, "n_rounds": 3, "nijuu_kan_redeal": True}, 600),
    ("gonin_kan", {"n_rounds": 2, "scoring": "zero_sum_5p", "gyaku_juuroku_fail_doubling": False,
                   "shippo_jo": True, "tournament_signals": True, "first_dealer_seat": 3}, 500),
    ("gonin_kan", {"players": 6, "n_rounds": 5, "shippo_jo": True, "first_dealer_seat": 5}, 200),
]


test_KAN_engine_matches_reference, test_KAN_engine_matches_reference_100k = (
    differential_tests(ADAPTER, CONFIGS))
