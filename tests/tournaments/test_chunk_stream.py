"""The all-JAX chunk loop streams a batch's games through a few lanes (`ChunkPlayer`'s
`_whole_games`, `rollout.stream_games`): a lane whose game ends starts the next one. The
tables and per-game outputs are those of the whole-batch loop it replaced, bit for bit (each
game keeps its game key and seating), for a full chunk and a padded one (its padding is not
played), random and heuristic bots mixed."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.harness.golden import game_cases
from tournaments.config import parse_config
from tournaments.plan import chunked, plan_games
from tournaments.play import ChunkPlayer

CONFIG = """\
[tournament]
game = "{game}"
format = "duplicate"
deals = {deals}
seed = 11
chunk_size = 12
output = "unused"

[flags]
{flags}

[bots.random]
kind = "random"

[bots.heuristic]
kind = "heuristic"
"""
LANES = 4  # 12 games a chunk through 4 lanes: each lane plays about 3
DEALS = {"gonin_kan": 2, "konkan": 3}  # 20 and 18 games: a full chunk, then a padded one


def whole_batch(player: ChunkPlayer, params, gkeys, seating, _count):
    """The loop the stream replaced: every game of the batch at once until the slowest ends."""
    def body(carry):
        action, skey, _, _ = player._propose_batch(params, carry, gkeys, seating)
        return player._advance_batch(carry, action, skey)

    carry = jax.lax.while_loop(
        lambda c: ~jnp.all(c["state"].terminated | c["state"].truncated), body,
        jax.vmap(player._start_game)(gkeys))
    return jax.vmap(player._outputs)(carry)


# Konkan's pair of loops is the costliest compile of the default run: the slow tier checks it
@pytest.fixture(scope="module",
                params=["gonin_kan", pytest.param("konkan", marks=pytest.mark.slow)])
def played(request):
    """(the streamed player, the whole-batch one, the chunks, each chunk's (stream, whole)
    outputs and tables)."""
    game = request.param
    flags = "\n".join(f"{k} = {json.dumps(v)}" for k, v in game_cases(game).SMALL_FLAGS.items())
    cfg = parse_config(CONFIG.format(game=game, deals=DEALS[game], flags=flags))
    stream, whole = ChunkPlayer(cfg, lanes=LANES), ChunkPlayer(cfg, lanes=cfg.chunk_size)
    whole._run = jax.jit(lambda *a: whole_batch(whole, *a))
    chunks = list(enumerate(chunked(plan_games(cfg, stream.env.num_players), cfg.chunk_size)))
    results = [tuple((p._play_games(c)[0], p.play([(i, c)])[0]) for p in (stream, whole))
               for i, c in chunks]
    return stream, whole, chunks, results


def test_the_streamed_chunk_gives_the_whole_batch_loops_tables_and_outputs(played):
    stream, _, chunks, results = played
    assert [len(c) for _, c in chunks] == [12, len(chunks[1][1])] and len(chunks[1][1]) < 12
    for (_, games), ((got, got_tables), (want, want_tables)) in zip(chunks, results,
                                                                    strict=True):
        n = len(games)
        assert got_tables[0] == want_tables[0]
        for name, table in want_tables[1].items():
            assert got_tables[1][name].equals(table), name
        for key in ("returns", "steps", "truncated", "forfeit", "actions", "ndeals"):
            np.testing.assert_array_equal(got[key][:n], want[key][:n], key)
        for key, rows in want["rows"].items():
            np.testing.assert_array_equal(got["rows"][key][:n], rows[:n], key)
        assert (got["steps"][n:] == 0).all()  # the padding is not played
        if stream.env.name == "konkan":  # its lanes refill at different steps
            assert len(set(got["steps"][:n].tolist())) > 1


def test_a_chunk_of_more_games_than_lanes_reuses_its_lanes(played):
    """The loop's carry holds `LANES` lanes of a game's actions (12 games' outputs, above,
    came through them)."""
    stream, _, chunks, _ = played
    games = chunks[0][1]
    gkeys = jnp.zeros((len(games), 2), jnp.uint32)
    seating = jnp.asarray([g.bots for g in games], jnp.int32)
    jaxpr = jax.make_jaxpr(stream._whole_games)(stream._params, gkeys, seating, 12).jaxpr
    loops = [e for e in jaxpr.eqns if e.primitive.name == "while"]
    shapes = {v.aval.shape for e in loops for v in e.outvars}
    steps = stream.env.max_steps
    assert (LANES, steps) in shapes and (12, steps) in shapes  # the lanes, the outputs
