"""`env.step_batch` is `jax.vmap(env.step)`, bit for bit (the matches of deals deal only in
the lanes that need a new deal, `MatchEnv.step_batch`; other games use the default)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import Env
from kanjax.bots import uniform_random
from kanjax.rollout import choose, game_key
from tests.games.da_bai_fen.cases import DEFAULT, JILIN, MASKED, MIXED

SAME = 12  # lanes 0..SAME-1 play the same game: they end their deals in the same steps
BATCH = 24  # step_batch deals max(8, 24 // 16) = 8 lanes at a time: SAME lanes need 2 trips


def trajectories(env: Env, steps: int, batch: int = BATCH):
    """A jitted scan of `steps` random steps from `batch` fresh games stepped with
    `vmap(env.step)`; per step: the number of lanes and fields where `step_batch` differs,
    and how many lanes ended a deal."""
    key = jax.random.PRNGKey(7)
    lanes = jnp.where(jnp.arange(batch) < SAME, 0, jnp.arange(batch))
    gkeys = jax.vmap(lambda g: game_key(key, g))(lanes)
    seating = jnp.zeros((batch, env.num_players), jnp.int32)

    def body(states, _):
        actions, skeys = jax.vmap(lambda s, k, st: choose(env, (uniform_random,), s, k, st))(
            states, gkeys, seating)
        ref = jax.vmap(env.step)(states, actions, skeys)
        got = env.step_batch(states, actions, skeys)
        diff = sum(jnp.sum(jnp.any((a != b).reshape(batch, -1), axis=1))
                   for a, b in zip(jax.tree.leaves(ref), jax.tree.leaves(got), strict=True))
        moved = ~(states.terminated | states.truncated)
        dealt = jnp.sum(env.deal_done(ref) & moved & ~ref.terminated)
        return ref, (diff, dealt)

    run = jax.jit(lambda: jax.lax.scan(body, jax.vmap(env.init)(gkeys), None, length=steps))
    final, (diff, dealt) = run()
    return final, np.asarray(diff), np.asarray(dealt)


@pytest.mark.parametrize("game, flags, steps", [
    ("gonin_kan", {"n_rounds": 4}, 400),
    ("gonin_kan", {"players": 6, "n_rounds": 2, "shippo_jo": True}, 300),
    ("yonin_kan", {"n_rounds": 3}, 300),
    ("gambari_kan", {"n_rounds": 4}, 150),
    ("da_bai_fen", DEFAULT, 300),
])
def test_match_step_batch_is_vmap_step(game, flags, steps):
    """KAN-8 / DBF-11 deal from the step key: the same deals, states and masks in every lane,
    also when more lanes end a deal than one trip deals (the SAME lanes)."""
    env = kanjax.make(game, **flags)
    final, diff, dealt = trajectories(env, steps)
    assert diff.sum() == 0, f"step_batch differs from vmap(step) first at step {diff.nonzero()}"
    assert dealt.sum() > BATCH  # deals ended in the trajectories ...
    assert (dealt > 8).any()  # ... and some steps needed more than one trip
    assert np.asarray(final.terminated).any()  # matches ended; their lanes stay put


def test_konkan_step_batch_is_vmap_step():
    """Konkan (`KonkanEnv.step_batch`): a turn start's take mask, the exact opening search of
    the lanes that need it in one list, the rounds' ends and the next deals only in their
    lanes; rounds of 4 turns, so that many end within the steps, the SAME lanes together
    (more lanes than one trip of 8). Random play against the reference, with the engine's
    invariants: tests/games/konkan/test_differential.py."""
    env = kanjax.make("konkan", partnership=True, n_rounds=3, max_turns_per_round=4)
    final, diff, dealt = trajectories(env, 50, batch=16)
    assert diff.sum() == 0, f"step_batch differs from vmap(step) first at step {diff.nonzero()}"
    assert dealt.sum() > 16 and (dealt > 8).any() and np.asarray(final.terminated).any()


def test_whist_step_batch_is_vmap_step():
    env = kanjax.make("whist")
    assert type(env).step_batch is Env.step_batch
    _, diff, _ = trajectories(env, 60, batch=16)
    assert diff.sum() == 0


@pytest.mark.slow
@pytest.mark.parametrize("flags", [MIXED, MASKED, JILIN, {**DEFAULT, "invalid_multilead": "mask"}],
                         ids=["mixed", "masked", "jilin", "mask_only"])
def test_issue_45_dbf_common_step_is_the_whole_step_in_every_variant(flags):
    """`DbfEnv.step_batch` takes the common steps in one routine (`_common_step`) and the
    rest whole: bit for bit `vmap(step)` in the variants whose rules it reads (the pickup of
    V11, "mask" multi-leads, Dun, the hook). The default run covers DEFAULT here and these
    variants against the reference (tests/games/da_bai_fen/test_differential.py)."""
    env = kanjax.make("da_bai_fen", **flags)
    _, diff, dealt = trajectories(env, 300)
    assert diff.sum() == 0, f"step_batch differs from vmap(step) first at step {diff.nonzero()}"
    assert dealt.sum() > BATCH


def test_issue_45_dbf_23_25_26_common_step_covers_multi_card_plays():
    """The common step (`DbfEnv._common_step`) takes valid multi-card leads (DBF-23) and every
    pick of a multi-card follow (DBF-25, DBF-26) in random play, so that the whole step
    serves few lanes; `test_match_step_batch_is_vmap_step` checks its results."""
    env = kanjax.make("da_bai_fen", **DEFAULT)
    head = env.layout.head
    key = jax.random.PRNGKey(3)
    gkeys = jax.vmap(lambda g: game_key(key, g))(jnp.arange(64))
    seating = jnp.zeros((64, 4), jnp.int32)

    def body(states, _):
        actions, skeys = jax.vmap(lambda s, k, st: choose(env, (uniform_random,), s, k, st))(
            states, gkeys, seating)
        _, common = jax.vmap(env._common_step)(states, actions)
        nxt = jax.vmap(env.step)(states, actions, skeys)
        h = states._h.astype(jnp.int32)
        play = (h[:, head["phase"]] == 5) & ~states.terminated
        lead = (play & (actions == 54) & (jnp.sum(states._picked, axis=1) >= 2)
                & ~env.deal_done(nxt))  # valid (an invalid one ends the hand, DBF-24)
        follow = play & (h[:, head["nplays"]] > 0) & (h[:, head["n"]] >= 2) & (actions < 54)
        counts = jnp.stack([jnp.sum(lead & common), jnp.sum(follow & common),
                            jnp.sum(follow & ~common), jnp.sum(~common & ~states.terminated)])
        return nxt, counts

    run = jax.jit(lambda: jax.lax.scan(body, jax.vmap(env.init)(gkeys), None, length=300))
    led, followed, follow_whole, whole = np.asarray(run()[1]).sum(0)
    assert led > 0 and followed > 0 and follow_whole <= followed // 4  # (the last trick)
    assert whole < 0.01 * 64 * 300  # claims, the last trick, the match's end
