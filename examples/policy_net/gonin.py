"""Gonin Kan's observation seen from the observer's seat, for the example's network.

The observation names players by their absolute ids (who played a card, who took a trick,
the dealer, each player's team), so a network would have to learn every rule five times,
once a seat. `relative(env)` rewrites every player id as its distance from the observer
(0: me, 1: the next player, ...) and rolls the per-player fields so that the observer comes
first; the layout and bounds stay those of `env.observation_spec()`, so `net.features`
encodes the result as it is.

As a tournament bot: `kind = "jax"`, `target = "examples.policy_net.gonin:make_policy"`.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

import kanjax
from examples.policy_net import net

Array = jax.Array
PLAYER_VALUED = ("current_player", "dealer", "leader", "last_winners", "deal1_holders")
BY_PLAYER = ("kankei", "scores")  # one entry a player


def relative(env: kanjax.Env) -> Callable[[Array], Array]:
    """Observation -> the same observation with players counted from the observer."""
    sl, n = env.obs_slices(), env.num_players

    def view(obs: Array) -> Array:
        me = obs[sl["me"]][0].astype(jnp.int32)

        def rel(x: Array) -> Array:
            x = x.astype(jnp.int32)
            return jnp.where(x >= 0, (x - me) % n, x)

        cards = obs[sl["cards"]].reshape(-1, 4).astype(jnp.int32)  # hand, by, trick, taker
        last = obs[sl["last_cards"]].reshape(-1, 3).astype(jnp.int32)  # by, trick, taker
        seat_of = jnp.roll(obs[sl["seat_of"]].astype(jnp.int32), -me)
        parts = {
            "cards": cards.at[:, 1].set(rel(cards[:, 1])).at[:, 3].set(rel(cards[:, 3])),
            "last_cards": last.at[:, 0].set(rel(last[:, 0])).at[:, 2].set(rel(last[:, 2])),
            "seat_of": (seat_of - seat_of[0]) % n,  # seats counted from mine
            "me": jnp.zeros(1, jnp.int32),
            **{k: rel(obs[sl[k]]) for k in PLAYER_VALUED},
            **{k: jnp.roll(obs[sl[k]], -me) for k in BY_PLAYER},
        }
        return jnp.concatenate([parts[k].reshape(-1).astype(obs.dtype) if k in parts
                                else obs[s] for k, s in sl.items()])

    return view


def make_policy(env: kanjax.Env):
    """The greedy policy `(params, key, observation, legal_mask) -> action`."""
    return net.make_policy(env, relative(env))


def make_sampling_policy(env: kanjax.Env):
    """The policy drawing its action from the softmax of the legal logits (self-play)."""
    return net.make_sampling_policy(env, relative(env))
