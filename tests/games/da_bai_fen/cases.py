"""Da Bai Fen's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`) and
the small flags of `tests/test_every_game.py` (short games: a few hands)."""

GOLDEN = {  # file name -> (flags, seed)
    "da_bai_fen_seed8": ({"max_hands": 3}, 8),
    "da_bai_fen_jilin_seed9": ({"jilin": True, "max_hands": 3}, 9),
}
SMALL_FLAGS = {"max_hands": 4}
