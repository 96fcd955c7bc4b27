"""Differential testing: the JAX engine against the plain-Python reference, step by step.

The JAX engine plays a batch of random matches (one jitted, vmapped step per call); every
step's summary is recorded. Each match is then replayed through the reference, which is fed
the engine's deals (its chance comes from outside), and every legal mask, current player,
reward and state summary is compared.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.bots import uniform_random
from kanjax.envs import kan_spec as ks
from kanjax.envs.kan import summary
from kanjax.reference.gambari_kan import GambariKanRef
from kanjax.reference.gonin_kan import GoninKanRef
from kanjax.reference.yonin_kan import YoninKanRef
from kanjax.rollout import game_key, step_keys

COMPARED = ("current_player", "hand_owner", "seat_of", "dealer", "round", "deal", "trump",
            "kankei", "rk", "rm", "scores", "points", "last_outcome", "last_points")
AVOID_RARE_P = 0.875
RARE = np.isin(np.arange(ks.NUM_ACTIONS),
               [ks.JK, *range(ks.LEAD_JK, ks.LEAD_JK + 4), ks.CONTRACT_SKUNK, ks.CONTRACT_ALL16])
REFERENCES = {"gonin": GoninKanRef, "yonin": YoninKanRef, "gambari": GambariKanRef}
EXTRA_COMPARED = {"gonin": (), "yonin": ("contract", "first3"), "gambari": ("target",)}


@dataclasses.dataclass
class Trajectories:
    """Per step t (0 = after init) and game g: the summary, and the action taken at t."""

    summaries: list[dict[str, np.ndarray]]
    actions: list[np.ndarray]


class EngineRunner:
    """Jitted batched init/step/summary for one config, reused across chunks."""

    def __init__(self, game: str, flags: dict):
        self.env = kanjax.make(game, **flags)
        self.flags = flags
        env = self.env

        def init(gkey):
            s = env.init(gkey)
            return s, summary(s)

        def step(state, gkey, akey):
            pkey, skey = step_keys(env, gkey, state)
            k_act, k_rare = jax.random.split(jax.random.fold_in(akey, state.step_count))
            # Most of the time avoid the JK and Yonin contracts where something else is
            # legal, so that deals run long and the JK reaches the late tricks (KAN-25,
            # KAN-54); uniform play spends it early and declares a contract every deal.
            mask = state.legal_action_mask
            common = mask & ~RARE
            avoid = jnp.any(common) & (jax.random.uniform(k_rare) < AVOID_RARE_P)
            action = uniform_random(k_act, None, jnp.where(avoid, common, mask))
            nxt = env.step(state, action, skey)
            return nxt, action, summary(nxt)

        self.init = jax.jit(jax.vmap(init))
        self.step = jax.jit(jax.vmap(step))

    def play(self, seed: int, batch: int) -> Trajectories:
        key = jax.random.PRNGKey(seed)
        gkeys = jax.vmap(lambda g: game_key(key, g))(jnp.arange(batch))
        akeys = jax.vmap(lambda g: game_key(key, g + 10**6))(jnp.arange(batch))
        state, summ = self.init(gkeys)
        summaries, actions = [jax.tree.map(np.asarray, summ)], []
        for _ in range(self.env.max_steps):
            if bool(jnp.all(state.terminated | state.truncated)):
                break
            state, action, summ = self.step(state, gkeys, akeys)
            actions.append(np.asarray(action))
            summaries.append(jax.tree.map(np.asarray, summ))
        return Trajectories(summaries, actions)


def _game_view(traj: Trajectories, g: int, t: int) -> dict:
    return {k: v[g] for k, v in traj.summaries[t].items()}


def _feed_chance(ref, s: dict, players: int) -> None:
    """Give the reference the deal (and nijū exchange) the engine made; a Yonin trump
    chooser's hand starts with the three cards dealt to him first (KAN-57)."""
    while ref.chance_kind() is not None:
        kind = ref.chance_kind()
        owner = s["hand_owner"].copy()
        c, x = (int(v) for v in s["nijuu"])
        if kind == "deal":
            if int(s["deal"]) == 1 and c >= 0:  # undo the exchange: H had x, P had c
                owner[c], owner[x] = owner[x], owner[c]
            hands = [[int(k) for k in np.flatnonzero(owner == p)] for p in range(players)]
            first3 = [int(k) for k in s["first3"] if k >= 0]
            if first3:
                chooser = hands[owner[first3[0]]]
                chooser[:] = first3 + [k for k in chooser if k not in first3]
            ref.deal(hands)
        elif kind == "nijuu":
            ref.nijuu_exchange(c, x)
        else:
            raise AssertionError(f"unknown chance kind {kind!r}")


def _compare(ref, s: dict, where: str, variant: str) -> None:
    r = ref.summary()
    keys = COMPARED + EXTRA_COMPARED[variant]
    if bool(s["terminated"]):  # after the match, only the results are defined
        assert ref.terminal(), f"{where}: engine terminal, reference not"
        keys = ("scores", "last_outcome", "last_points")
    else:
        assert not ref.terminal(), f"{where}: reference terminal, engine not"
        legal = np.flatnonzero(s["legal_action_mask"]).tolist()
        assert legal == r["legal_actions"], (
            f"{where}: legal actions differ\n engine {legal}\n ref    {r['legal_actions']}"
        )
    for key in keys:
        a, b = s[key].tolist(), r[key]
        if key == "kankei":
            b = [bool(v) for v in b]
        if key == "first3":
            a = sorted(a)
        assert a == b, f"{where}: {key} differs: engine {a}, reference {b}"


def compare_game(traj: Trajectories, g: int, config: ks.KanConfig) -> int:
    """Replay game g of `traj` through the reference; returns the number of steps compared."""
    ref = REFERENCES[config.variant](config)
    s = _game_view(traj, g, 0)
    _feed_chance(ref, s, config.players)
    _compare(ref, s, f"game {g} after init", config.variant)
    scores = [0] * config.players  # rewards are whole numbers
    for t, actions in enumerate(traj.actions):
        if bool(s["terminated"]):
            return t
        action = int(actions[g])
        ref.apply(action)
        s = _game_view(traj, g, t + 1)
        _feed_chance(ref, s, config.players)
        where = f"game {g} step {t} (action {action})"
        _compare(ref, s, where, config.variant)
        scores = [a + int(b) for a, b in zip(scores, s["rewards"].tolist(), strict=True)]
        assert scores == ref.scores(), f"{where}: match scores: engine {scores}, {ref.scores()}"
    return len(traj.actions)


@functools.cache
def _runner(game: str, flag_items: tuple) -> EngineRunner:
    return EngineRunner(game, dict(flag_items))


def run_differential(game: str, flags: dict, seed: int, batch: int) -> int:
    """Play `batch` random matches of one config through both; returns steps compared."""
    runner = _runner(game, tuple(sorted(flags.items())))
    traj = runner.play(seed, batch)
    return sum(compare_game(traj, g, runner.env.config) for g in range(batch))


CHUNK = 100  # matches per engine batch in the default run
SLOW_MATCHES = 100_000  # per game under `pytest -m slow`


def slow_seeds(matches: int, total: int) -> range:
    """Seeds of 500-match batches for one config of the slow run: the game's 100,000 matches
    split over its configs in proportion to their default counts; disjoint from the default
    run's seeds."""
    return range(1000, 1000 + round(SLOW_MATCHES * matches / total) // 500)


def differential_tests(configs: list[tuple[str, dict, int]]):
    """The default and the slow differential test over `configs` [(game, flags, matches)],
    for a test module to bind to `test_*` names."""
    ids = dict(ids=lambda v: str(v))

    @pytest.mark.parametrize("game,flags,matches", configs, **ids)
    def default(game, flags, matches):
        steps = sum(run_differential(game, flags, seed, CHUNK)
                    for seed in range(matches // CHUNK))
        assert steps > matches * 20

    @pytest.mark.slow
    @pytest.mark.parametrize("game,flags,matches", configs, **ids)
    def slow(game, flags, matches):
        for seed in slow_seeds(matches, sum(m for _, _, m in configs)):
            run_differential(game, flags, seed, 500)

    return default, slow
