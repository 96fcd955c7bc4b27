"""A results folder's stored games as JSON game records (`kanjax tournament game`, the HTML
report's game views): a `games` row replayed through the engine (`kanjax.records`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds

from kanjax import records


def _games(root: Path) -> ds.Dataset:
    if not (root / "games").is_dir():
        raise ValueError(f"{root}: not a tournament results folder (no games/ in it)")
    return ds.dataset(root / "games", format="parquet")


def game_ids(dir: str | Path) -> list[int]:
    """The ids of the games stored in a results folder, in order."""
    return sorted(_games(Path(dir)).to_table(columns=["game_id"]).column(0).to_pylist())


def game_rows(dir: str | Path, ids: Sequence[int]) -> list[dict]:
    """The `games` rows of the games `ids` (in that order); ValueError naming an id that is
    not stored."""
    table = _games(Path(dir)).to_table(filter=pc.field("game_id").isin(list(ids)))
    rows = {row["game_id"]: row for row in table.to_pylist()}
    missing = [i for i in ids if i not in rows]
    if missing:
        raise ValueError(f"{dir}: no stored game with id {missing[0]}")
    return [rows[i] for i in ids]


def run_seed(dir: str | Path) -> int:
    """The tournament's seed (its manifest's config), which every game's chance derives from."""
    path = Path(dir) / "manifest.json"
    try:
        return int(json.loads(path.read_text())["config"]["seed"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: no readable config seed ({err!r})") from None


def game_record(row: dict, seed: int) -> dict:
    """The record of a stored game (its `games` row, the run's `seed`), which `kanjax replay`
    checks; a forfeited game's stops before the refused move (`records.record_of_actions`)."""
    p = row["forfeit"]
    forfeit = ({"player": p, "bot": row["bots"][p], "reason": row["forfeit_reason"]}
               if p >= 0 else None)
    return records.record_of_actions(row["game"], json.loads(row["flags"]), seed, row["seed"],
                                     row["actions"], row["scores"], forfeit)
