"""The PIMC bot (solvers.pimc) in Da Bai Fen (kanjax.games.da_bai_fen.layouts) on late
trick-play states of engine play: given the true layout as every sample, its positions are the
engine's (`convert.from_state`) and each play's score is the exact value (the reference
search's P, for the mover's team); and its actions are legal through whole hands, multi-card
leads and follows included, pick by pick. The rules' default config (DBF-24's penalty) with
short matches (the DBF tests' DEFAULT)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
import kanjax.capabilities
from kanjax.bots import make_heuristic
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.sampler import KITTY
from solvers import pimc
from solvers import reference_dbf as rd
from solvers.convert import from_state
from solvers.pimc import Pimc
from solvers.position import play_cards
from tests.games.da_bai_fen.cases import DEFAULT

MAX_CARDS = 4


class Tools:
    def __init__(self) -> None:
        self.env = env = kanjax.make("da_bai_fen", **DEFAULT)
        self.bot = Pimc(env, samples=4, max_cards=MAX_CARDS)
        self.step = jax.jit(env.step)
        self.observe = jax.jit(env.observe)
        self.summary = jax.jit(env.summary)
        heuristic = make_heuristic(env)

        def policy(k, o, m):  # the heuristic (valid multi-leads of masters), some noise
            k1, k2 = jax.random.split(k)
            r = jax.random.randint(k2, (), 0, 1 << 20)
            rand = jnp.argmax(jnp.cumsum(m) > r % jnp.maximum(jnp.sum(m), 1))
            return jnp.where(jax.random.uniform(k1) < 0.15, rand, heuristic(k, o, m))
        self.policy = jax.jit(policy)

    def late_states(self, seed: int, steps: int) -> list:
        """States of `steps` noisy heuristic steps where the mover, holding at most
        MAX_CARDS cards, starts a play."""
        s, key, out = self.env.init(jax.random.PRNGKey(seed)), jax.random.PRNGKey(seed + 100), []
        for _ in range(steps):
            if bool(s.terminated):
                break
            cur = int(s.current_player)
            loc = np.asarray(s._loc)
            if (int(np.asarray(s._h)[0]) == ds.PHASE_PLAY and not np.asarray(s._picked).any()
                    and (loc == cur).sum() <= MAX_CARDS):
                out.append(s)
            key, k1, k2 = jax.random.split(key, 3)
            s = self.step(s, self.policy(k1, self.observe(s, cur), s.legal_action_mask), k2)
        return out


@pytest.fixture(scope="module")
def t() -> Tools:
    return Tools()


def true_holders(state) -> np.ndarray:
    loc = np.asarray(state._loc).astype(int)
    return np.where(loc <= ds.LOC_KITTY, loc, -1)


def test_DBF_26_DBF_30_true_layout_scores_are_exact_values(t):
    """With the true layout as every sample: the bot's position is `from_state`'s (the rules
    with the kitty's points from the layout's kitty cards) and each play's score is its
    exact value for the mover's team (P for the opponents, -P for the declarers)."""
    states = t.late_states(0, 700) + t.late_states(1, 700)
    assert len(states) >= 30
    multi = mid = 0
    for s in states:
        cur = int(s.current_player)
        obs = np.asarray(t.observe(s, cur))
        true = true_holders(s)
        assert (true == KITTY).sum() == ds.KITTY_SIZE
        pos, _ = from_state(t.env, s)
        v = t.env.layout_view(obs)
        assert t.bot.position(v, true)[0] == pos
        holders = np.repeat(true[None, None], 3, axis=1)
        [scores] = t.bot.scores([v], holders, np.ones((1, 3), bool))
        sign = 1 if cur % 2 == 1 - int(t.summary(s)["declaring"]) else -1
        want = {m: sign * v for m, v in rd.move_values(pos).items()}
        assert scores == pytest.approx(want)
        multi += any(len(play_cards(m)) > 1 for m in want)
        mid += len(pos.trick) > 0
    assert multi > 5 and mid > 5


def test_DBF_21_DBF_25_actions_are_legal_through_whole_hands(t):
    """The bot plays every seat of two matches' first hands (PIMC from 6 cards):
    every action it returns is legal, and among its searched decisions are picks inside
    multi-card leads and follows and `play`s closing multi-card leads."""
    env, bot = t.env, Pimc(t.env, samples=4, max_cards=6)
    inside = closes = asked = 0
    for seed in (3, 4):
        s, key = env.init(jax.random.PRNGKey(seed)), jax.random.PRNGKey(seed + 10)
        hands = int(t.summary(s)["hands_played"])
        while not bool(s.terminated) and int(t.summary(s)["hands_played"]) < hands + 4:
            cur = int(s.current_player)
            obs, mask = t.observe(s, cur), s.legal_action_mask
            key, k1, k2 = jax.random.split(key, 3)
            a = int(bot.decide(k1[None], obs[None], mask[None], jnp.ones(1, bool))[0])
            assert bool(mask[a]), (seed, env.action_name(a))
            v = env.layout_view(np.asarray(obs))
            if env.searched(v, np.asarray(mask), bot.max_cards):
                asked += 1
                inside += bool(v["sel"].any()) and a < ds.NUM_CARDS
                closes += a == ds.PLAY and v["sel"].sum() > 1
            s = t.step(s, jnp.int32(a), k2)
    assert asked > 40 and inside > 3 and closes >= 1


def test_factory_and_supports():
    env = kanjax.make("da_bai_fen", **DEFAULT)
    assert pimc.supports(env) and "information sets" in kanjax.capabilities.capabilities(env)
    bot = pimc.make_bot(env, samples=2, max_cards=3)
    assert isinstance(bot, Pimc) and bot.max_cards == 3 and Pimc(env).max_cards == 6
    dun = kanjax.make("da_bai_fen", max_hands=12, jilin_dun=True)
    assert "jilin_dun" in pimc.unsupported(dun)
    with pytest.raises(ValueError, match="jilin_dun"):
        Pimc(dun)
