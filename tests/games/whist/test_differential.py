"""Differential tests: the JAX whist engine (`kanjax.games.whist.engine`) vs its plain-Python
reference (`kanjax.games.whist.reference`), step by step (`tests.harness.differential`).

Trump and leader are static flags, each config its own env. The default run plays 5 configs
(every strain once, every leader at least once), 2,000 games; `pytest -m slow` plays all 20
configs, 100,000 games.
"""

from kanjax.games.whist.reference import SEATS, STRAINS
from tests.games.whist.differential import ADAPTER
from tests.harness.differential import differential_tests

DEFAULT_CONFIGS = [("NT", "W"), ("S", "N"), ("H", "E"), ("D", "S"), ("C", "W")]
CONFIGS = [("whist", {"trump": t, "leader": s}, 400) for t, s in DEFAULT_CONFIGS]
SLOW_CONFIGS = [("whist", {"trump": t, "leader": s}, 5_000) for t in STRAINS for s in SEATS]

test_whist_engine_matches_reference, test_whist_engine_matches_reference_100k = (
    differential_tests(ADAPTER, CONFIGS, SLOW_CONFIGS))
