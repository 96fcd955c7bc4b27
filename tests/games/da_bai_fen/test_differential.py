"""Differential tests: the JAX Da Bai Fen engine (`kanjax.games.da_bai_fen.engine`) vs its
plain-Python reference (`kanjax.games.da_bai_fen.reference`), step by step
(`tests.harness.differential`): every legal mask, the mover, phase, roles, R and T, exposures, kitty
turning, card locations, the selection, the trick, trick winners, points, outcomes, P, levels and
match scores.

The default run plays 2,000 games over four configs: the default rules, the jilin preset with
a mix of the scoring flags, and the masked leads with the Jilin rules alone, each a game of up
to 12 hands (levels climb to the game's end; 350 games), and the bulk of the games as
two-hand games of the default rules (most rules fire within a hand; 1,650 short games cost
what 300 long ones do). `pytest -m slow` adds two more configs and plays 100,000.
Each config asserts that the rare branches fired: multi-leads of 2, 3 and 4 cards, invalid
multi-leads (penalty), claims, open deals, and where `jilin_dun` is on, Duns.
"""

import pytest

from kanjax.games.da_bai_fen import spec as ds
from tests.games.da_bai_fen.cases import DEFAULT, JILIN, MASKED, MIXED
from tests.games.da_bai_fen.differential import ADAPTER
from tests.harness import differential as hd

SHORT = {"max_hands": 2}
CONFIGS = [
    ("da_bai_fen", DEFAULT, 100),
    ("da_bai_fen", JILIN, 150),
    ("da_bai_fen", MASKED, 100),
    ("da_bai_fen", SHORT, 800),
]
SLOW_CONFIGS = CONFIGS + [("da_bai_fen", MIXED, 50),
                          ("da_bai_fen", {"jilin": True, "max_hands": 12,
                                          "dun_points_protected": True}, 50)]
CHUNK = 50


def branches(traj: hd.Trajectories) -> dict[str, int]:
    """How often the rare branches fired in a batch of matches: leads closed by `play` by
    their size (valid or not), hands ended by the penalty or a claim, open deals dealt, Duns
    led."""
    n = {"lead2": 0, "lead3": 0, "lead4": 0, "penalty": 0, "claim": 0, "open": 0, "dun": 0}
    for before, action, after in zip(traj.summaries[:-1], traj.actions, traj.summaries[1:],
                                     strict=True):
        live = ~before["terminated"]
        lead = live & (action == ds.PLAY)
        size = before["selection"].sum(-1)
        for k in (2, 3, 4):
            n[f"lead{k}"] += int((lead & (size == k)).sum())
        ended = live & after["deal_done"].astype(bool)
        n["penalty"] += int((ended & (after["outcome"] == ds.PENALTY)).sum())
        n["claim"] += int((ended & (after["outcome"] == ds.CLAIMED)).sum())
        n["open"] += int((ended & ~after["terminated"]
                          & (after["hand_kind"] == ds.OPEN_DEAL)).sum())
        n["dun"] += int((lead & (after["dun"] == 1)).sum())
    return n


def run(flags: dict, seeds, chunk: int) -> tuple[int, dict[str, int]]:
    return hd.run_counted(ADAPTER, "da_bai_fen", flags, seeds, chunk, branches)


@pytest.mark.parametrize("game,flags,matches", CONFIGS, ids=lambda v: str(v))
def test_dbf_engine_matches_reference(game, flags, matches):
    steps, fired = run(flags, range(matches // CHUNK), CHUNK)
    assert steps > matches * 20
    want = ["lead2", "lead3", "lead4", "claim", "open"]
    want += ["penalty"] if flags.get("invalid_multilead", "penalty") == "penalty" else []
    want += ["dun"] if flags.get("jilin") or flags.get("jilin_dun") else []
    never = [k for k in want if fired[k] == 0]
    assert not never, f"rare branches never reached: {never} ({fired})"


@pytest.mark.slow
@pytest.mark.parametrize("game,flags,matches", SLOW_CONFIGS, ids=lambda v: str(v))
def test_dbf_engine_matches_reference_100k(game, flags, matches):
    per_config = hd.SLOW_MATCHES // len(SLOW_CONFIGS)
    run(flags, range(1000, 1000 + per_config // hd.SLOW_CHUNK), hd.SLOW_CHUNK)

