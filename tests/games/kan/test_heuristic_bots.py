"""The heuristic bots (kanjax.games.kan.heuristic): legal in whole matches, and better than random.

One jitted, vmapped rollout per game (cached at module level) plays B matches in which the
heuristic and the uniform random bot share the table, the heuristic seats rotated across the
batch; both tests read it.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.bots import make_heuristic, uniform_random
from kanjax.games.kan import spec as ks
from kanjax.games.kan.heuristic import signal_scores
from kanjax.rollout import make_rollout

GAMES = ("gonin_kan", "yonin_kan", "gambari_kan")
BATCH = 256
N_ROUNDS = 2


def heuristic_seats(batch: int, n: int) -> np.ndarray:
    """int32[B, n]: 1 where the heuristic plays. Game g seats it at players g, g+1, ... (mod n),
    half the table (odd n: alternately the smaller and the larger half)."""
    g = np.arange(batch)[:, None]
    k = (n + g % 2) // 2
    return (((np.arange(n)[None, :] - g) % n) < k).astype(np.int32)


@functools.cache
def matches(game: str):
    """(seating, final states, match scores) of BATCH matches of `game`."""
    env = kanjax.make(game, n_rounds=N_ROUNDS)
    seating = heuristic_seats(BATCH, env.num_players)
    out = make_rollout(env, (uniform_random, make_heuristic(env)))(
        jax.random.PRNGKey(7), jnp.asarray(seating))
    return seating, out.state, np.asarray(out.returns)


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_plays_only_legal_actions(game):
    """jit(vmap) of whole matches: every match ends normally, never by an illegal action."""
    _, state, _ = matches(game)
    assert np.asarray(state.terminated).all()
    assert not np.asarray(state.illegal_action).any()


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_beats_random(game):
    """Per match: mean score of the heuristic seats minus that of the random seats; its mean
    over the batch is positive with a normal-approximation 95% CI that excludes zero."""
    seating, _, scores = matches(game)
    mine = seating.astype(bool)
    diff = np.array([s[m].mean() - s[~m].mean() for s, m in zip(scores, mine, strict=True)])
    half_width = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    print(f"{game}: heuristic - random = {diff.mean():.2f} +- {half_width:.2f}")
    assert diff.mean() - half_width > 0


def test_KAN_38_signal_is_f1_of_the_two_strongest_suits():
    """KAN-38: the shower shows the best card of each of his two strongest suits (F1)."""
    hand = [13 + 12, 13 + 11, 13 + 3, 39 + 12, 39 + 4, 39 + 5, 2, 5, 28, ks.JK]  # D S C H JK
    mine = np.zeros(ks.NUM_CARDS, bool)
    mine[hand] = True
    action = ks.SIGNAL + int(np.argmax(np.asarray(signal_scores(jnp.asarray(mine)))))
    form, shown = ks.decode_signal(action)
    cards = sorted(hand)
    assert form == ks.F1 and {cards[i] for i in shown} == {25, 51}  # AD, AS
