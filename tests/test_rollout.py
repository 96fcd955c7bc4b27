"""Batched whole-match rollouts: every match ends, returns are the match scores, seating works."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.bots import make_heuristic, uniform_random
from kanjax.core.jaxutil import tree_where
from kanjax.games.kan.engine import summary
from kanjax.rollout import game_key, play_batch, propose, propose_batch, rollout, step_keys


def first_legal(key, observation, legal_mask):
    return jnp.argmax(legal_mask).astype(jnp.int32)


def test_rollout_plays_whole_matches_with_seated_policies():
    env = kanjax.make("gonin_kan", n_rounds=1)
    seating = jnp.array([[0, 1, 0, 1, 0], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]], jnp.int32)
    out = rollout(env, jax.random.PRNGKey(0), 3, (uniform_random, first_legal), seating)
    assert np.asarray(out.state.terminated).all()
    assert not np.asarray(out.state.illegal_action).any()
    scores = np.asarray(jax.vmap(summary)(out.state)["scores"])
    np.testing.assert_allclose(np.asarray(out.returns), scores)  # rewards sum to match scores
    steps = np.asarray(out.steps)
    assert (steps > 10).all() and (steps <= env.max_steps).all()

    # Game 1 seats `first_legal` everywhere: replaying it by hand gives the same match.
    gkey = game_key(jax.random.PRNGKey(0), 1)
    state, step = env.init(gkey), jax.jit(env.step)
    skey = jax.jit(lambda s: step_keys(env, gkey, s)[1])
    while not bool(state.terminated):
        state = step(state, jnp.argmax(state.legal_action_mask), skey(state))
    assert int(state.step_count) == steps[1]
    np.testing.assert_allclose(np.asarray(summary(state)["scores"]), scores[1])


def test_propose_batch_runs_each_policy_where_it_moves_with_proposes_actions():
    env = kanjax.make("gonin_kan", n_rounds=1)
    policies = (uniform_random, first_legal, make_heuristic(env))
    batch, key = 10, jax.random.PRNGKey(3)  # blocks of 3 games: the last one clamped
    gkeys = jax.vmap(lambda g: game_key(key, g))(jnp.arange(batch))
    seating = jax.random.randint(jax.random.PRNGKey(4), (batch, env.num_players), 0, 3)
    states = jax.vmap(env.init)(gkeys)
    step = jax.jit(lambda s: play_batch(env, policies, s, gkeys, seating)[0])
    for _ in range(25):
        states = step(states)
    over = jnp.arange(batch) % 4 == 0  # games 0, 4, 8 finished
    states = jax.vmap(tree_where)(over, rollout(env, key, batch, policies, seating).state,
                                  states)
    got = jax.jit(lambda s: propose_batch(env, policies, s, gkeys, seating))(states)
    want = jax.jit(jax.vmap(lambda s, k, st: propose(env, policies, s, k, st)))(
        states, gkeys, seating)
    live = ~np.asarray(over)
    assert live.sum() == 7 and len(set(np.asarray(states.current_player)[live])) > 1
    np.testing.assert_array_equal(np.asarray(got[0])[live], np.asarray(want[0])[live])
    assert (np.asarray(got[0])[~live] == 0).all()
    for a, b in zip(got[1:], want[1:], strict=True):  # step keys, observations, policy keys
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def random_with_a_mark(key, observation, legal_mask):
    """`uniform_random`, passed through a count of leading zeros that never changes it (an
    operation no engine uses): a mark to count in the compiled program."""
    action = uniform_random(key, observation, legal_mask)
    return action + (jax.lax.clz(action) > 40).astype(jnp.int32)


def test_issue_45_a_batched_step_computes_the_policy_once():
    """XLA (CPU) inlined a policy's elementwise work into each of the step's uses of the
    action in a loop of steps (29 copies in Gonin Kan: random play 3x slower);
    `propose_batch` computes it once."""
    env = kanjax.make("gonin_kan")
    gkeys = jax.vmap(lambda g: game_key(jax.random.PRNGKey(0), g))(jnp.arange(4))
    seating = jnp.zeros((4, env.num_players), jnp.int32)

    def steps(states):
        def body(s, _):
            return play_batch(env, (random_with_a_mark,), s, gkeys, seating)[0], None
        return jax.lax.scan(body, states, None, length=4)[0]

    compiled = jax.jit(steps).lower(jax.vmap(env.init)(gkeys)).compile().as_text()
    assert compiled.count(" count-leading-zeros(") == 1


@pytest.mark.parametrize("games, lanes", [(11, 4), (70, 64)])  # 70 on 64: a tail on 16
def test_issue_45_a_stream_plays_the_rollouts_games_move_for_move(games, lanes):
    """`make_stream` (auto reset: `lanes` lanes, a finished match's lane starts the next one;
    the last matches on `lanes // TAIL` lanes) plays exactly the games of `make_rollout`,
    results by game index."""
    from kanjax.rollout import make_rollout, make_stream

    env = kanjax.make("gonin_kan", n_rounds=1)
    key = jax.random.PRNGKey(5)
    seating = jax.random.randint(jax.random.PRNGKey(6), (games, env.num_players), 0, 2)
    policies = (uniform_random, first_legal)

    def deals(before, after):
        return (env.deal_done(after) & (after.step_count != before.step_count)).astype(jnp.int32)

    want = make_rollout(env, policies, deals)(key, seating, 3)
    got = make_stream(env, policies, deals, lanes=lanes)(key, seating, 3)
    np.testing.assert_array_equal(np.asarray(got.returns), np.asarray(want.returns))
    np.testing.assert_array_equal(np.asarray(got.steps), np.asarray(want.steps))
    np.testing.assert_array_equal(np.asarray(got.truncated), np.asarray(want.state.truncated))
    assert int(got.stats) == int(want.stats) > games
    assert len(set(np.asarray(got.steps).tolist())) > 1  # matches of different lengths


@pytest.mark.parametrize("games, lanes, count", [(10, 3, 10), (10, 3, 7), (100, 64, 90)])
def test_stream_games_reuses_lanes_and_writes_each_game_at_its_index(games, lanes, count):
    """`stream_games` with a counter for a game: game g lasts 1 + g % 5 + g // 10 steps; each lane
    starts the next game when its game ends (lanes reused), games past `count` are not
    played, the tail (100 games on 64 lanes) ends on 64 // TAIL lanes, `acc` sums the active
    lanes."""
    from kanjax.rollout import TAIL, stream_games

    def start(g):
        return {"game": g, "t": jnp.int32(0), "lane": jnp.int32(-1), "width": jnp.int32(0)}

    def step(carry, active, acc):
        t = carry["t"] + 1
        lane = jnp.arange(t.shape[0], dtype=jnp.int32)
        return ({**carry, "t": t, "lane": lane, "width": jnp.full_like(lane, t.shape[0])},
                t == 1 + carry["game"] % 5 + carry["game"] // 10,
                acc + jnp.sum(active, dtype=jnp.int32))

    out, acc = jax.jit(lambda n: stream_games(start, step, lambda c: c, games, lanes,
                                              jnp.int32(0), count=n))(count)
    g = np.arange(games)
    played = g < count
    np.testing.assert_array_equal(np.asarray(out["game"])[played], g[played])
    length = 1 + g % 5 + g // 10
    np.testing.assert_array_equal(np.asarray(out["t"]), np.where(played, length, 0))
    assert int(acc) == int(np.sum(length[played]))
    used = np.asarray(out["lane"])[played]
    assert (used >= 0).all() and (used < lanes).all()
    assert np.bincount(used).max() >= 2  # a lane played several games
    widths = set(np.asarray(out["width"])[played].tolist())
    assert widths == ({lanes, lanes // TAIL} if games > lanes >= 64 else {lanes})  # the tail
