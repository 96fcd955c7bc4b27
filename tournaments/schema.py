"""The Parquet tables of a tournament's output folder (one file per chunk and table).

The `games` and `seats` tables are the same for every game; a game's roles are data (the
manifest's `roles`: the env's `role_names`, which the per-role lists index). The `deals`
table is four common columns and the game's own (`TournamentViews.deal_columns`, listed in
the manifest's `deal_columns`).

`games`: one row per game (match).
    game_id int64        unique in the tournament: group * rotations + rotation
    group int64          duplicate group: the games that share one deal seed
    rotation int32       which seat rotation of the group's seating this game is
    chunk int32          the work unit that played it (its first game id)
    seed int64           the deal seed (the same for every game of a group)
    config_hash string   hash of the tournament config (game, flags, bots, format, engine
                         version)
    game string          its `kanjax.make` name
    flags string         the variant flags as JSON
    bots list<string>    the bot playing each player (index = player id)
    scores list<double>  each player's match score (index = player id); a forfeited game
                         stops at the forfeit, the step that forfeits pays nobody, the
                         offender scores the config's `forfeit_score` (default: the game's
                         worst, `TournamentViews.worst_score`, - 1) and the others keep their scores
    steps int32          actions taken
    truncated bool       the match hit the env's step bound
    forfeit int8         the player who forfeited (crash, timeout, illegal move), else -1
    forfeit_reason string  why, as "bot: kind: detail" with kind crash, timeout or illegal
                         ("python_bot: timeout: no move within 1 s"), else ""
    actions list<int16>  every action id in order (replay: `kanjax replay`); a forfeited
                         game's last is the refused move (-1: none was chosen)

`seats`: one row per game and player.
    game_id int64, group int64, rotation int32
    player int8          player id (seat at the start of the match)
    bot string
    score double         the player's match score
    deals int32          deals played that count (the env's `counted`: not Kan's void deals)
    side int8            his side, when the same in every deal of the match, else -1
    role int8            his role (index of `roles`), when the same in every counted deal,
                         else -1
    deals_by_role list<int32>  counted deals he played in each role (index = role)
    won_by_role list<int32>    of those, the deals his side won

`deals`: one row per deal played.
    game_id int64, deal_index int32 (0.. in the match)
    side list<int8>      each player's side in the deal (index = player id; -1 none)
    role list<int8>      each player's role (index of `roles`; -1 none)
    won list<bool>       whether each player's side won the deal
    counted bool         the deal counts in the per-deal statistics
    ...                  the game's `deal_columns` (e.g. a deal's dealer, trump, points or
                         tricks taken and outcome; see the game's `deal_row`)

`manifest.json` (not Parquet): the config, the engine version, `roles`, `deal_columns`,
versions of kanjax / jax / the bots, start and end times, host.
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
