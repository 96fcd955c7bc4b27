"""`kanjax.core.layout.Layout`: the strict header packing (issue 46) and its checked mode, and
every game's steps under the checked mode (no header slot out of its dtype's range)."""

from __future__ import annotations

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify

import kanjax
from kanjax.core.layout import Layout, checked_packing
from tests.harness import golden

LAYOUT = Layout([("a", None), ("v", 3)], [("w", None), ("s", 3)], name="test")
STEPS = 6  # random steps of every game in checked mode
G = {"a": -1, "v": jnp.array([0, 127, -128]), "w": 70000, "s": jnp.array([-3, 4, 5])}


class _S:
    def __init__(self, h, w):
        self._h, self._w = h, w


def test_unknown_slot_is_an_error_naming_it_and_the_layout():
    with pytest.raises(ValueError, match=r"'test'.*unknown slot\(s\) \['cur'\]"):
        LAYOUT.pack(G | {"cur": 3})


def test_missing_slot_is_an_error_naming_it():
    g = dict(G)
    del g["w"]
    with pytest.raises(ValueError, match=r"'test'.*lacks slot\(s\) \['w'\]"):
        jax.jit(LAYOUT.pack)(g)  # at trace time


def test_slot_of_the_wrong_shape_is_an_error():
    with pytest.raises(ValueError, match=r"wrong shape: v \(2,\)"):
        LAYOUT.pack(G | {"v": jnp.array([1, 2])})


def test_out_of_range_value_caught_in_checked_mode():
    bad = G | {"v": jnp.array([0, 128, 0])}
    with checked_packing():
        err, _ = jax.jit(checkify.checkify(LAYOUT.pack))(bad)
        ok, _ = jax.jit(checkify.checkify(LAYOUT.pack))(G)
    assert ok.get() is None
    assert "test layout: slot v" in err.get() and "int8 -128..127" in err.get()
    with pytest.raises(checkify.JaxRuntimeError):
        err.throw()
    # off (the default): no check traced, the value wraps as the int8 it is stored in
    assert "check" not in str(jax.make_jaxpr(LAYOUT.pack)(bad))
    assert LAYOUT.pack(bad)[0].tolist()[2] == -128


def test_round_trip_int8_and_int16_shaped_wide():
    h, w = jax.jit(LAYOUT.pack)(G)
    assert h.dtype == jnp.int8 and h.tolist() == [-1, 0, 127, -128]
    assert w.dtype == jnp.int32 and w.tolist() == [70000, -3, 4, 5]
    wide16 = Layout([("a", None), ("b", None), ("c", None)], [("t", 2), ("u", 2)],
                    head_dtype=jnp.int16, wide_shape=(2, 2))
    g = {"a": -300, "b": 32767, "c": -32768, "t": jnp.array([1, 2]), "u": jnp.array([3, -4])}
    h, w = jax.jit(wide16.pack)(g)
    assert h.dtype == jnp.int16 and h.tolist() == [-300, 32767, -32768]
    assert w.shape == (2, 2) and w.tolist() == [[1, 2], [3, -4]]
    back = wide16.unpack(_S(jnp.stack([h, h]), jnp.stack([w, w])))  # batched
    assert {k: np.asarray(v)[1].tolist() for k, v in back.items()} == {
        k: np.asarray(v).tolist() for k, v in g.items()}
    assert wide16.get(_S(h, w), "u").tolist() == [3, -4]
    assert wide16.get(_S(h, w), "b").tolist() == 32767


@pytest.mark.slow  # about 33 s for the seven games (Konkan 13 s), mostly compiling
@pytest.mark.parametrize("game", kanjax.games())
def test_every_game_steps_in_range_in_checked_mode(game):
    """`init` and `STEPS` random steps of every game (one game: checkify does not take the
    batched while loops of `vmap` / `step_batch`, which are `vmap(step)` bit for bit),
    traced once with the checked packing: every header slot written fits its dtype."""
    env = kanjax.make(game, **golden.game_cases(game).SMALL_FLAGS)

    def step(i, s):
        k = jax.random.fold_in(jax.random.PRNGKey(5), i)
        u = jax.random.uniform(k, s.legal_action_mask.shape) * s.legal_action_mask
        return env.step(s, jnp.argmax(u).astype(jnp.int32), k)

    def run(key):  # one step traced and compiled, run STEPS times
        return jax.lax.fori_loop(0, STEPS, step, env.init(key)).step_count

    with checked_packing():
        jaxpr = jax.make_jaxpr(run)(jax.random.PRNGKey(3))
    assert "check" in str(jaxpr)  # the checks are there ...
    err, steps = jax.jit(checkify.checkify(jax.extend.core.jaxpr_as_fun(jaxpr)))(
        jax.random.PRNGKey(3))
    err.throw()  # ... and none fails
    assert int(steps[0]) == STEPS
