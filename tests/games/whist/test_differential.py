"""Differential tests: the JAX whist engine (`kanjax.envs.whist`) vs its plain-Python
reference (`kanjax.reference.whist`), step by step.

The engine plays a batch of random games (jitted, vmapped `init` and `step`, a uniformly random
legal card each step); every step's `summary` is recorded. Each game is then replayed through
`WhistRef` from the engine's deal (the hands read from the initial state's `hand_owner`), and
at every step the legal mask, current player, rewards and every summary field are compared.

Trump and leader are static flags, so each config is its own env whose `init` compiles on its
own (~1 s of CPU each). The state carries its trump and opening leader (`from_deal` may set
them apart from the env's flags), so the default run steps every config with ONE compiled
`step` (the default env's): 5 configs (every strain once, every leader at least once), 2,000
games. `pytest -m slow` plays all 20 configs, each with its own env's `step`, 100,000 games.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.bots import uniform_random
from kanjax.cards import deck
from kanjax.envs.whist import summary
from kanjax.reference.whist import SEATS, STRAINS, WhistRef

DECK = deck("whist")
NUM_STEPS = 52  # a game is always 13 tricks of 4 cards
# Summary fields compared as they are (the reference's summary uses the engine's names).
FIELDS = ("current_player", "terminated", "rewards", "hand_owner", "played", "trick_cards",
          "trump", "first_leader", "leader", "trick", "n_played", "led", "tricks", "winners")
DEFAULT_CONFIGS = [("NT", "W"), ("S", "N"), ("H", "E"), ("D", "S"), ("C", "W")]
DEFAULT_GAMES = 400  # per default config: 2,000 in all
ALL_CONFIGS = [(t, s) for t in STRAINS for s in SEATS]
SLOW_GAMES = 5_000  # per config: 100,000 in all
SLOW_BATCH = 1_000


class Engine:
    """Jitted, vmapped engine calls: `summary`, the policy and the shared `step` compiled once
    for every config, a config's own `init` and `step` on first use."""

    def __init__(self):
        self.summary = jax.jit(jax.vmap(summary))
        self.shared_step = jax.jit(jax.vmap(kanjax.make("whist").step))
        self.policy = jax.jit(jax.vmap(
            lambda key, t, mask: uniform_random(jax.random.fold_in(key, t), None, mask)))
        self._envs: dict[tuple[str, str], tuple] = {}

    def env(self, trump: str, leader: str):
        if (trump, leader) not in self._envs:
            env = kanjax.make("whist", trump=trump, leader=leader)
            self._envs[trump, leader] = (env, jax.jit(jax.vmap(env.init)),
                                         jax.jit(jax.vmap(env.step)))
        return self._envs[trump, leader]

    def play(self, trump: str, leader: str, seed: int, batch: int,
             shared_step: bool = True) -> tuple[dict, np.ndarray]:
        """`batch` random games of one config: the summaries stacked over steps
        (field -> array[NUM_STEPS + 1, batch, ...]; index 0 after `init`) and the actions
        (int[NUM_STEPS, batch]). `shared_step`: step with the default env's `step`, not the
        config's own."""
        _, init, own_step = self.env(trump, leader)
        step = self.shared_step if shared_step else own_step
        key = jax.random.fold_in(jax.random.PRNGKey(seed), ALL_CONFIGS.index((trump, leader)))
        deal_keys = jax.random.split(jax.random.fold_in(key, 0), batch)
        play_keys = jax.random.split(jax.random.fold_in(key, 1), batch)
        state = init(deal_keys)
        summaries, actions = [self.summary(state)], []
        for _ in range(NUM_STEPS):
            action = self.policy(play_keys, state.step_count, state.legal_action_mask)
            state = step(state, action)
            actions.append(action)
            summaries.append(self.summary(state))
        assert bool(jnp.all(state.terminated)), "a whist game lasts 52 steps"
        stacked = {k: np.stack([np.asarray(s[k]) for s in summaries]) for k in summaries[0]}
        return stacked, np.stack([np.asarray(a) for a in actions])


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def deal_string(hands: list[list[int]], trump: str, leader: str) -> str:
    return " | ".join([f"whist trump={trump} leader={leader}",
                       *(DECK.format_hand(DECK.sort_hand(h)) for h in hands)])


def context(g: int, ref: WhistRef, trump: str, leader: str, moves: list[int]) -> str:
    """Where a disagreement happened: the game, its deal and the cards played so far."""
    played = " ".join(DECK.token(a) for a in moves) or "the deal"
    return f"\n  game {g}: {deal_string(ref.deal, trump, leader)}\n  after {played}"


def compare_game(summ: dict, actions: np.ndarray, g: int, trump: str, leader: str) -> None:
    """Replay game `g` through the reference; compare every step."""
    view = {k: v[:, g].tolist() for k, v in summ.items()}
    owner = view["hand_owner"][0]
    ref = WhistRef([[c for c in range(52) if owner[c] == p] for p in range(4)],
                   trump=trump, leader=leader)
    moves = actions[:, g].tolist()
    total = [0.0] * 4
    for t in range(NUM_STEPS + 1):
        r = ref.summary()
        e = {k: v[t] for k, v in view.items()}
        if e["terminated"]:
            legal, want = all(e["legal_action_mask"]), True  # the Env contract's terminal mask
        else:
            legal = [c for c, ok in enumerate(e["legal_action_mask"]) if ok]
            want = r["legal_actions"]
        assert legal == want, (f"legal cards differ: engine {legal}, reference {want}"
                               f"{context(g, ref, trump, leader, moves[:t])}")
        for key in FIELDS:
            assert e[key] == r[key], (f"{key} differs: engine {e[key]}, reference {r[key]}"
                                      f"{context(g, ref, trump, leader, moves[:t])}")
        total = [a + b for a, b in zip(total, e["rewards"], strict=True)]
        if t < NUM_STEPS:
            ref.apply(moves[t])
    assert ref.is_over and total == ref.rewards and sum(ref.tricks) == 13


def run_config(engine: Engine, trump: str, leader: str, seed: int, batch: int,
               shared_step: bool = True) -> None:
    summ, actions = engine.play(trump, leader, seed, batch, shared_step)
    for g in range(batch):
        compare_game(summ, actions, g, trump, leader)


@pytest.mark.parametrize("trump,leader", DEFAULT_CONFIGS)
def test_whist_engine_matches_reference(engine, trump, leader):
    run_config(engine, trump, leader, seed=0, batch=DEFAULT_GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("trump,leader", ALL_CONFIGS)
def test_whist_engine_matches_reference_100k(engine, trump, leader):
    for seed in range(1, 1 + SLOW_GAMES // SLOW_BATCH):  # disjoint from the default run
        run_config(engine, trump, leader, seed=seed, batch=SLOW_BATCH, shared_step=False)
