"""Differential tests: JAX Gonin Kan vs the plain-Python reference, step by step (KAN-1..KAN-46).

2,000 random matches over mixed flags in the default run; 100,000 with `pytest -m slow`.
"""

import pytest

from tests.differential import run_differential

# (flags, matches in the default run); n_rounds is kept small where the flag mix is rich,
# and one config plays full 10-round matches.
CONFIGS = [
    ({"n_rounds": 3}, 700),
    ({"players": 6, "n_rounds": 3, "nijuu_kan_redeal": True}, 600),
    ({"n_rounds": 2, "scoring": "zero_sum_5p", "gyaku_juuroku_fail_doubling": False,
      "shippo_jo": True, "tournament_signals": True, "first_dealer_seat": 3}, 500),
    ({"players": 6, "shippo_jo": True, "first_dealer_seat": 5}, 200),
]
CHUNK = 100


@pytest.mark.parametrize("flags,matches", CONFIGS, ids=lambda v: str(v))
def test_KAN_engine_matches_reference(flags, matches):
    steps = sum(
        run_differential("gonin_kan", flags, seed, CHUNK) for seed in range(matches // CHUNK)
    )
    assert steps > matches * 20


@pytest.mark.slow
@pytest.mark.parametrize("flags,matches", CONFIGS, ids=lambda v: str(v))
def test_KAN_engine_matches_reference_100k(flags, matches):
    # 25,000 matches per config, 100,000 in all; seeds disjoint from the default run.
    for seed in range(1000, 1000 + 25_000 // 500):
        run_differential("gonin_kan", flags, seed, 500)
