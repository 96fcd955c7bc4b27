"""Differential tests: the JAX Kan engines vs the plain-Python references, step by step
(Gonin KAN-1..KAN-46, Yonin KAN-47..KAN-62, Gambari KAN-63..KAN-68).

2,000 random matches per game over mixed flags in the default run; 100,000 per game with
`pytest -m slow`.
"""

import pytest

from tests.differential import run_differential

# (game, flags, matches in the default run); n_rounds is kept small where the flag mix is
# rich, and one config per game plays longer matches.
CONFIGS = [
    ("gonin_kan", {"n_rounds": 3}, 700),
    ("gonin_kan", {"players": 6, "n_rounds": 3, "nijuu_kan_redeal": True}, 600),
    ("gonin_kan", {"n_rounds": 2, "scoring": "zero_sum_5p", "gyaku_juuroku_fail_doubling": False,
                   "shippo_jo": True, "tournament_signals": True, "first_dealer_seat": 3}, 500),
    ("gonin_kan", {"players": 6, "shippo_jo": True, "first_dealer_seat": 5}, 200),
    ("yonin_kan", {"n_rounds": 3}, 1000),
    ("yonin_kan", {"n_rounds": 2, "yonin_removed_five": "C", "yonin_joker_trick1_contract": "any",
                   "yonin_contract_round_override": False, "gyaku_juuroku_fail_doubling": False,
                   "first_dealer_seat": 3}, 700),
    ("yonin_kan", {}, 300),
    ("gambari_kan", {"n_rounds": 4}, 1200),
    ("gambari_kan", {"n_rounds": 3, "gambari_scoring": "flat", "gambari_min_target": 7,
                     "first_dealer_seat": 2}, 800),
]
CHUNK = 100
SLOW_PER_GAME = 100_000


@pytest.mark.parametrize("game,flags,matches", CONFIGS, ids=lambda v: str(v))
def test_KAN_engine_matches_reference(game, flags, matches):
    steps = sum(run_differential(game, flags, seed, CHUNK) for seed in range(matches // CHUNK))
    assert steps > matches * 20


@pytest.mark.slow
@pytest.mark.parametrize("game,flags,matches", CONFIGS, ids=lambda v: str(v))
def test_KAN_engine_matches_reference_100k(game, flags, matches):
    # Each game's 100,000 matches are split over its configs in proportion to the default
    # run; seeds are disjoint from the default run's.
    share = matches / sum(m for g, _, m in CONFIGS if g == game)
    for seed in range(1000, 1000 + round(SLOW_PER_GAME * share) // 500):
        run_differential(game, flags, seed, 500)
