"""Differential tests: the JAX Yonin Kan engine vs its plain-Python reference, step by step
(Yonin KAN-47..KAN-62).

2,000 random matches over mixed flags in the default run; 100,000 with `pytest -m slow`.
"""

from tests.games.kan.differential import ADAPTER
from tests.harness.differential import differential_tests

# (game, flags, matches in the default run); n_rounds is kept small to fit the CI budget,
# with one config playing longer matches (the final round, Tome Suppe, is always played).
CONFIGS = [
    ("yonin_kan", {"n_rounds": 3}, 1000),
    ("yonin_kan", {"n_rounds": 2, "yonin_removed_five": "C", "yonin_joker_trick1_contract": "any",
                   "yonin_contract_round_override": False, "gyaku_juuroku_fail_doubling": False,
                   "first_dealer_seat": 3}, 700),
    ("yonin_kan", {"n_rounds": 5}, 300),
]


test_KAN_engine_matches_reference, test_KAN_engine_matches_reference_100k = (
    differential_tests(ADAPTER, CONFIGS))
