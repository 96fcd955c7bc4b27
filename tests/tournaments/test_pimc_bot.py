"""A PIMC bot (solvers.pimc, in the Kan games and in Da Bai Fen) in a tournament: it decides all
its games of a chunk in one batched search per step, and every game is stored, none
forfeited."""

from __future__ import annotations

import pyarrow.dataset as ds
import pytest

from tournaments.config import parse_config
from tournaments.runner import run_tournament

CONFIG = """\
[tournament]
game = "{game}"
deals = 1
chunk_size = 10
output = "{out}"

[flags]
{flags}

[bots.pimc]
kind = "pimc"
samples = 2
budget = 500
max_cards = 3

[bots.heuristic]
kind = "heuristic"
"""


KAN = "n_rounds = 1"
DBF = "max_hands = 1"  # one hand


@pytest.mark.parametrize("game, flags, seatings", [
    ("gonin_kan", KAN, 10), ("yonin_kan", KAN, 2), ("gambari_kan", KAN, 6),
    ("da_bai_fen", DBF, 2)])
def test_pimc_plays_whole_games(tmp_path, game, flags, seatings):
    cfg = parse_config(CONFIG.format(out=tmp_path / "out", game=game, flags=flags))
    result = run_tournament(cfg, local=True, progress=False)
    games = ds.dataset(tmp_path / "out" / "games").to_table().to_pylist()
    assert result.games == len(games) == seatings  # one deal seed under each seating
    assert all(g["forfeit"] == -1 and not g["truncated"] for g in games)
    assert all("pimc" in g["bots"] and "heuristic" in g["bots"] for g in games)
