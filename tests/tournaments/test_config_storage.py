"""Tournament configs (checked before any work, errors name file, line and key) and the
chunked Parquet store (atomic chunks, resume without loss or duplication)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from tournaments.config import ConfigError, load_config, parse_config
from tournaments.schema import deals_schema, tables
from tournaments.storage import Store, StoreError, chunk_file

SCHEMAS = tables([("dealer", "int8"), ("outcome", "string")])
GOOD = """\
[tournament]
game = "gonin_kan"
format = "duplicate"
deals = 8
seed = 3
chunk_size = 4
output = "out"

[flags]
n_rounds = 2

[bots.random]
kind = "random"

[bots.heuristic]
kind = "heuristic"
version = "2"
"""


def test_good_config_parses_with_defaults():
    c = parse_config(GOOD)
    assert (c.game, c.format, c.deals, c.seed, c.chunk_size) == ("gonin_kan", "duplicate", 8, 3, 4)
    assert c.flags == {"n_rounds": 2}
    assert [(b.name, b.kind, b.version) for b in c.bots] == [("random", "random", "1"),
                                                             ("heuristic", "heuristic", "2")]
    assert c.config_hash() == parse_config(GOOD.replace('"out"', '"elsewhere"')).config_hash()
    assert c.config_hash() != parse_config(GOOD.replace("seed = 3", "seed = 4")).config_hash()


def test_the_config_hash_leaves_out_what_a_run_may_change():
    """Issue 22 item 1: any chunk size resumes a folder and more deals extend it; what
    decides a game's result (here a bot's version, the bots' order) is in the hash."""
    c = parse_config(GOOD)
    for old, new in (("deals = 8", "deals = 16"), ("chunk_size = 4", "chunk_size = 7")):
        assert parse_config(GOOD.replace(old, new)).config_hash() == c.config_hash()
    assert parse_config(GOOD.replace('"2"', '"3"')).config_hash() != c.config_hash()
    swapped = GOOD.replace("[bots.random]", "[bots.x]").replace("[bots.heuristic]",
                                                                 "[bots.random]")
    assert c.identity()["bot_order"] == ["random", "heuristic"]
    assert parse_config(swapped.replace("[bots.x]", "[bots.heuristic]")).config_hash() \
        != c.config_hash()


def test_more_bots_than_a_duplicate_table_seats_is_a_config_error():
    """Issue 22 item 7: it named no file or line, and came after the output was written."""
    six = GOOD + "".join(f'\n[bots.r{i}]\nkind = "random"\n' for i in range(4))
    with pytest.raises(ConfigError, match=r"t.toml:28: \[bots.r3\]: 6 bots cannot share a "
                                          r"5-player table"):
        parse_config(six, "t.toml")
    assert len(parse_config(six.replace('"duplicate"', '"round_robin"')).bots) == 6


@pytest.mark.parametrize("old,new,message", [
    ('game = "gonin_kan"', 'game = "gonin"', r"t.toml:2: \[tournament\] game: unknown game"),
    ("n_rounds = 2", "players = 7", r"t.toml:10: \[flags\] players: players=7"),
    ("n_rounds = 2", "shipo_jo = true", r"t.toml:10: \[flags\] shipo_jo: unknown config key"),
    ('kind = "random"', 'kind = "randm"', r"t.toml:13: \[bots.random\] kind: unknown bot kind"),
    ("deals = 8", "deals = -1", r"t.toml:4: \[tournament\] deals: must be a positive integer"),
    ("chunk_size = 4", "chunk_size = 0", r"t.toml:6: \[tournament\] chunk_size: must be a pos"),
    ("seed = 3", "sed = 3", r"t.toml:5: \[tournament\] sed: unknown key"),
    ('format = "duplicate"', 'format = "swiss"', r"t.toml:3: \[tournament\] format: unknown"),
    ('format = "duplicate"', 'format = "ab"', r"\[ab\] candidate: must name one of the bots"),
    ('version = "2"', 'version = "2"\ndepth = 3', r"t.toml:18: \[bots.heuristic\] depth: unkno"),
])
def test_bad_configs_name_the_line_and_key(old, new, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(GOOD.replace(old, new), "t.toml")


def test_bot_kinds_and_ab_section():
    with pytest.raises(ConfigError, match="needs target"):
        parse_config(GOOD.replace('kind = "heuristic"', 'kind = "python"'))
    ab = GOOD.replace('"duplicate"', '"ab"') + (
        '\n[ab]\ncandidate = "heuristic"\nbaseline = "random"\nmu1 = 0.5\n')
    c = parse_config(ab)
    assert c.ab == {"candidate": "heuristic", "baseline": "random", "mu0": 0.0, "mu1": 0.5,
                    "alpha": 0.05, "beta": 0.05}
    with pytest.raises(ConfigError, match=r"\[ab\] mu1: mu1 must be greater"):
        parse_config(ab.replace("mu1 = 0.5", "mu1 = -1"))
    with pytest.raises(ConfigError, match="at least two bots"):
        parse_config(GOOD.split("[bots.heuristic]")[0])
    with pytest.raises(ConfigError, match="not valid TOML"):
        parse_config("[tournament\n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config("/nonexistent/t.toml")


def test_pimc_bot_settings():
    pimc = GOOD.replace('kind = "heuristic"', 'kind = "pimc"\nsamples = 8\nbudget = 900')
    bot = parse_config(pimc).bots[1]
    assert (bot.kind, bot.samples, bot.budget, bot.max_cards) == ("pimc", 8, 900, 6)
    with pytest.raises(ConfigError, match=r"t.toml:17: \[bots.heuristic\] samples: must be a pos"):
        parse_config(pimc.replace("samples = 8", "samples = 0"), "t.toml")
    with pytest.raises(ConfigError, match=r"\[bots.random\] budget: only pimc bots take"):
        parse_config(GOOD.replace('kind = "random"', 'kind = "random"\nbudget = 3'))
    assert parse_config(pimc.replace('"gonin_kan"', '"yonin_kan"')).bots[1].kind == "pimc"
    with pytest.raises(ConfigError, match="pimc bots play da_bai_fen, gambari_kan, gonin_kan, "
                                          "yonin_kan only, not 'whist'"):
        parse_config(pimc.replace('"gonin_kan"', '"whist"').replace("n_rounds = 2", ""))


def _tables(chunk: int, games: int = 2) -> dict[str, pa.Table]:
    ids = [chunk * 10 + g for g in range(games)]
    rows = {
        "games": [{"game_id": i, "group": i, "rotation": 0, "chunk": chunk, "seed": 1,
                   "config_hash": "h", "game": "gonin_kan", "flags": "{}",
                   "bots": ["a"] * 5, "scores": [0.0] * 5, "steps": 10, "truncated": False,
                   "forfeit": -1, "actions": [1, 2]} for i in ids],
        "seats": [{"game_id": i, "group": i, "rotation": 0, "player": p, "bot": "a",
                   "score": 0.0, "deals": 1, "side": p % 2, "role": 1, "deals_by_role": [0, 1],
                   "won_by_role": [0, 1]} for i in ids for p in range(5)],
        "deals": [{"game_id": i, "deal_index": 0, "side": [0, 1, 0, 1, 0], "role": [1] * 5,
                   "won": [True] * 5, "counted": True, "dealer": 0, "outcome": "WIN"}
                  for i in ids],
    }
    return {k: pa.Table.from_pylist(v, schema=SCHEMAS[k]) for k, v in rows.items()}


def test_store_keys_chunks_by_their_games_and_resumes(tmp_path):
    out, manifest = tmp_path / "out", {"identity": {"seed": 1, "bots": {"a": {"v": "1"}}}}
    store = Store(out, "h1", SCHEMAS)
    assert store.check(manifest) == set() and not out.exists()  # check writes nothing
    store.prepare(manifest)
    store.write_chunk(0, _tables(0))
    store.write_chunk(30, _tables(3))
    assert store.stored_games() == {0, 1, 30, 31}
    # an interrupted write leaves hidden temp files, or tables without their games file:
    # not stored games; the next run drops them
    (out / "seats" / ".chunk-000000050.parquet.tmp").write_bytes(b"partial")
    pq.write_table(_tables(5)["seats"], out / "seats" / chunk_file(50))
    assert store.stored_games() == {0, 1, 30, 31}
    assert Store(out, "h1", SCHEMAS).check(manifest) == {0, 1, 30, 31}
    Store(out, "h1", SCHEMAS).prepare(manifest)
    assert ds.dataset(out / "seats").to_table().num_rows == 20
    assert sorted(p.name for p in (out / "seats").iterdir()) == [chunk_file(0), chunk_file(30)]


def test_store_refuses_another_tournament_naming_what_differs(tmp_path):
    manifest = {"identity": {"seed": 1, "bots": {"a": {"version": "1"}}}}
    other = {"identity": {"seed": 2, "bots": {"a": {"version": "2"}}}}
    Store(tmp_path / "out", "h1", SCHEMAS).prepare(manifest)
    # a folder left by a run that stored no game never blocks another tournament
    assert Store(tmp_path / "out", "h2", SCHEMAS).check(other) == set()
    store = Store(tmp_path / "out", "h2", SCHEMAS)
    store.prepare(other)
    store.write_chunk(0, _tables(0))
    with pytest.raises(StoreError, match=r"holds 2 games of another tournament .*"
                                         r"bots.a.version: '2' -> '1'; seed: 2 -> 1"):
        Store(tmp_path / "out", "h1", SCHEMAS).check(manifest)


def test_the_config_hash_includes_the_engine_version(monkeypatch):
    import kanjax

    cfg = parse_config(GOOD)
    env_type = type(kanjax.make(cfg.game, **cfg.flags))
    before = cfg.config_hash()
    monkeypatch.setattr(env_type, "version", env_type.version + "-next")
    assert cfg.engine_version() == env_type.version
    assert cfg.config_hash() != before  # a resumed run never mixes two engine versions


def test_bot_kinds_say_which_games_they_play(monkeypatch):
    import kanjax

    whist = GOOD.replace('"gonin_kan"', '"whist"').replace("n_rounds = 2", "")
    assert [b.kind for b in parse_config(whist).bots] == ["random", "heuristic"]
    import tournaments.config

    assert tournaments.config.has_heuristic(kanjax.make("whist"))  # a game without `Bots`:
    monkeypatch.setattr(tournaments.config, "has_heuristic", lambda env: env.name != "whist")
    with pytest.raises(ConfigError, match=r"\[bots.heuristic\] kind: whist has no heuristic"):
        parse_config(whist)


def test_deals_schema_is_the_common_columns_and_the_games_own():
    schema = deals_schema([("tricks", "int8"), ("who", "list<int8>")])
    assert schema.names == ["game_id", "deal_index", "side", "role", "won", "counted",
                            "tricks", "who"]
    with pytest.raises(ValueError, match="unknown type 'float'"):
        deals_schema([("x", "float")])
    with pytest.raises(ValueError, match="'side': a common column"):
        deals_schema([("side", "int8")])
