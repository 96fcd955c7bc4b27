"""A few random matches of every game through the engine and its reference, step by step:
the fast tier's differential smoke (`pytest -m fast`; the default run's differential tests
play thousands, with the rare branches counted)."""

import pytest

from tests.games.conquian.differential import ADAPTER as CONQUIAN
from tests.games.da_bai_fen.differential import ADAPTER as DA_BAI_FEN
from tests.games.kan.differential import ADAPTER as KAN
from tests.games.konkan.differential import ADAPTER as KONKAN
from tests.games.whist.differential import ADAPTER as WHIST
from tests.harness.differential import run_differential

pytestmark = pytest.mark.fast_only

GAMES = [  # (adapter, game, flags, matches)
    (KAN, "gonin_kan", {"n_rounds": 1}, 8),
    (KAN, "yonin_kan", {}, 8),
    (KAN, "gambari_kan", {}, 8),
    (WHIST, "whist", {}, 8),
    (DA_BAI_FEN, "da_bai_fen", {}, 4),
    (KONKAN, "konkan", {}, 2),
    (CONQUIAN, "conquian", {}, 8),
]


@pytest.mark.parametrize("adapter, game, flags, matches", GAMES, ids=[g[1] for g in GAMES])
def test_a_few_matches_agree_with_the_reference(adapter, game, flags, matches):
    steps, _ = run_differential(adapter, game, flags, seed=0, batch=matches)
    assert steps > matches * 10
