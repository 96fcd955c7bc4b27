"""The example's network as a `python` bot, asked one move of one game at a time (`kanjax
bench tournament` sets it against the same network as a `jax` bot, inside the batch): the
greedy policy of `gonin.py` on the weights `gonin_net.npz`, jitted for one observation.

    [bots.net_host]
    kind = "python"
    target = "examples.policy_net.host_bot:NetBot"
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np

import kanjax
from examples.policy_net import gonin
from examples.policy_net.train_gonin import FLAGS
from tournaments.policies import load_params

WEIGHTS = Path(__file__).with_name("gonin_net.npz")


class NetBot:
    def __init__(self) -> None:
        self.env = kanjax.make("gonin_kan", **FLAGS)
        self.params = jax.device_put(load_params(WEIGHTS))
        self.policy = jax.jit(gonin.make_policy(self.env))
        self.key = jax.random.PRNGKey(0)  # the greedy policy ignores it
        spec = self.env.observation_spec()  # compiled here, not in the first move's time
        self.act(np.zeros(spec.shape, spec.dtype), [0])

    def act(self, observation: np.ndarray, legal_actions: list[int]) -> int:
        mask = np.zeros(self.env.num_actions, bool)
        mask[legal_actions] = True
        return int(self.policy(self.params, self.key, observation, mask))
