"""The Parquet tables of a tournament's output folder (one file per chunk and table).

`GAMES` (one row per game: seed, bots, scores, forfeit, the actions), `SEATS` (one row per game
and player: score, side, role, deals played and won by role) and the `deals` table (one row per
deal: `DEAL_COMMON`'s columns, then the game's own `TournamentViews.deal_columns`, built by
`deals_schema(columns)`); `tables(deal_columns)` gives all three for a game. The `games` and
`seats` tables are the same for every game; a game's roles are data (the manifest's `roles`).
Every column, and `manifest.json`, is described in docs/results-schema.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

GAMES = pa.schema([
    ("game_id", pa.int64()), ("group", pa.int64()), ("rotation", pa.int32()),
    ("chunk", pa.int32()), ("seed", pa.int64()), ("config_hash", pa.string()),
    ("game", pa.string()), ("flags", pa.string()), ("bots", pa.list_(pa.string())),
    ("scores", pa.list_(pa.float64())), ("steps", pa.int32()), ("truncated", pa.bool_()),
    ("forfeit", pa.int8()), ("forfeit_reason", pa.string()),
    ("actions", pa.list_(pa.int16())),
])
SEATS = pa.schema([
    ("game_id", pa.int64()), ("group", pa.int64()), ("rotation", pa.int32()),
    ("player", pa.int8()), ("bot", pa.string()), ("score", pa.float64()),
    ("deals", pa.int32()), ("side", pa.int8()), ("role", pa.int8()),
    ("deals_by_role", pa.list_(pa.int32())), ("won_by_role", pa.list_(pa.int32())),
])
DEAL_COMMON = pa.schema([
    ("game_id", pa.int64()), ("deal_index", pa.int32()), ("side", pa.list_(pa.int8())),
    ("role", pa.list_(pa.int8())), ("won", pa.list_(pa.bool_())), ("counted", pa.bool_()),
])
COLUMN_TYPES = {  # the types a game's `deal_columns` may use (`kanjax.api.Env`)
    "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
    "bool": pa.bool_(), "string": pa.string(), "list<int8>": pa.list_(pa.int8()),
}


def deals_schema(columns: Sequence[Sequence[str]]) -> pa.Schema:
    """The `deals` table of a game whose `deal_columns` are `columns` ((name, type) pairs)."""
    fields = list(DEAL_COMMON)
    for name, kind in columns:
        if kind not in COLUMN_TYPES:
            raise ValueError(f"deal column {name!r}: unknown type {kind!r}; types: "
                             f"{', '.join(COLUMN_TYPES)}")
        if name in DEAL_COMMON.names:
            raise ValueError(f"deal column {name!r}: a common column of the deals table")
        fields.append(pa.field(name, COLUMN_TYPES[kind]))
    return pa.schema(fields)


def tables(deal_columns: Sequence[Sequence[str]]) -> dict[str, pa.Schema]:
    """The schema of each table, for a game with these `deal_columns`."""
    return {"games": GAMES, "seats": SEATS, "deals": deals_schema(deal_columns)}
