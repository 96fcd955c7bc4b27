"""Da Bai Fen's cases of the cross-game tests: golden playthroughs (`tests.harness.golden`) and
the small flags of `tests/test_every_game.py` (short games: a few hands); and the three engine
configs that the differential and the engine scenario tests share (each distinct flag set costs
a compile of most of a minute on 2 cores, so the DBF tests use these dicts exactly: `kanjax.make`
caches one env per flag set)."""

# the engine configs of the DBF tests
DEFAULT = {"max_hands": 12}
MIXED = {"max_hands": 12, "step20": True, "kitty_mult_last_trick": True, "tie_at_40": True,
         "expose_kitty": True, "first_starter": 2, "changchun_kitty": True}
MASKED = {"max_hands": 12, "invalid_multilead": "mask", "yuan_zhu": True, "start_level": 9,
          "target_level": 12, "jilin_hook": True, "jilin_dun": True, "jilin_last_trick": True}
JILIN = {**MIXED, "jilin": True, "dun_points_protected": True}

GOLDEN = {  # file name -> (flags, seed)
    "da_bai_fen_seed8": (DEFAULT, 8),
    "da_bai_fen_jilin_seed9": (JILIN, 9),
}
SMALL_FLAGS = DEFAULT
