"""The Parquet tables of a tournament's output folder (one file per chunk and table).

`games`: one row per game (match).
    game_id int64        unique in the tournament: group * rotations + rotation
    group int64          duplicate group: the games that share one deal seed
    rotation int32       which seat rotation of the group's seating this game is
    chunk int32          the work unit that played it
    seed int64           the deal seed (the same for every game of a group)
    config_hash string   hash of the tournament config (game, flags, bots, format)
    game string          e.g. "gonin_kan"
    flags string         the variant flags as JSON
    bots list<string>    the bot playing each player (index = player id)
    scores list<double>  each player's match score (index = player id)
    steps int32          actions taken
    truncated bool       the match hit the env's step bound
    forfeit int8         the player who forfeited (crash, timeout, illegal move), else -1
    forfeit_reason string  why ("python_bot: timeout: no move within 1 s"), else ""
    actions list<int16>  every action id in order (replay: `kanjax replay`)

`seats`: one row per game and player.
    game_id int64, group int64, rotation int32
    player int8          player id (seat at the start of the match)
    bot string
    score double         the player's match score
    deals int32          deals played
    deals_kankei int32   deals in which he was kankei
    deals_won_kankei int32, deals_won_mukankei int32   deals his team won, by role

`deals`: one row per deal played.
    game_id int64, deal_index int32 (0.. in the match), round int32, deal int8 (1..3)
    dealer int8, trump int8, kankei list<int8> (the kankei players; in 6-player Gonin Kan
    the sitting-out dealer too, KAN-17), points_kankei int8,
    points_mukankei int8, outcome string (kan_spec.OUTCOME_NAMES)

`manifest.json` (not Parquet): the config, versions of kanjax / jax / the bots, start and end
times, host.
"""

from __future__ import annotations

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
    ("deals", pa.int32()), ("deals_kankei", pa.int32()), ("deals_won_kankei", pa.int32()),
    ("deals_won_mukankei", pa.int32()),
])
DEALS = pa.schema([
    ("game_id", pa.int64()), ("deal_index", pa.int32()), ("round", pa.int32()),
    ("deal", pa.int8()), ("dealer", pa.int8()), ("trump", pa.int8()),
    ("kankei", pa.list_(pa.int8())), ("points_kankei", pa.int8()),
    ("points_mukankei", pa.int8()), ("outcome", pa.string()),
])
TABLES = {"games": GAMES, "seats": SEATS, "deals": DEALS}
