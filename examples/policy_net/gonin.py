"""Gonin Kan's observation for the example's network: seen from the observer's seat, and
encoded compactly.

The observation names players by their absolute ids (who played a card, who took a trick,
the dealer, each player's team), so a network would have to learn every rule five times,
once a seat. `relative(env)` rewrites every player id as its distance from the observer
(0: me, 1: the next player, ...) and rolls the per-player fields so that the observer comes
first; the layout and bounds stay those of `env.observation_spec()`.

`features(env)` encodes that view in 858 slots instead of the generic `net.features`' 4,294:
each card of this deal as one of 12 places (in my hand, in the current trick played by
player r, taken by player r, unseen) plus a flag (named in the nijū exchange or the signal I
know); the header fields one-hot over their own ranges (the signal's form, not its cards);
the round's outcomes and the team points one-hot; the accumulators and scores scaled. The
previous deal's cards (1,750 generic slots) are left out: the play of this deal does not
depend on them.

As a tournament bot: `kind = "jax"`, `target = "examples.policy_net.gonin:make_policy"`.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

import kanjax
from examples.policy_net import net

Array = jax.Array
PLAYER_VALUED = ("current_player", "dealer", "leader", "last_winners", "deal1_holders")
BY_PLAYER = ("kankei", "scores")  # one entry a player
ONE_HOT = ("phase", "round", "deal", "dealer", "trump", "trick", "n_played", "leader",
           "led_suit", "jk_named", "declared", "shippo_offered", "round_outcomes", "points",
           "seat_of", "kankei", "deal1_holders", "iku")  # every element one-hot, field bounds
SCALED = ("rk_rm", "scores")  # scaled to [-1, 1] by the field's bound
PLACES = 11  # a card of this deal: in my hand, in the trick by player r, taken by player r
SIGNAL_FORMS = (-1, 5)  # the signal's form (KAN-38): -1 none, F1..F5 (its field's bounds are
# those of the card ids that follow it)


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


def features(env: kanjax.Env) -> net.Features:
    """Observation -> float32[858] features of the relative view (see the module doc)."""
    sl, see = env.obs_slices(), relative(env)
    low, high = env.observation_spec().bounds()
    element = np.concatenate([np.arange(sl[k].start, sl[k].stop) for k in ONE_HOT]
                             + [[sl["signal"].start]])  # the signal's form
    lo = np.append(low[element[:-1]], SIGNAL_FORMS[0])
    hi = np.append(high[element[:-1]], SIGNAL_FORMS[1])
    slot = np.repeat(element, hi - lo + 1)  # the element of each one-hot slot
    code = np.concatenate([np.arange(a, b + 1) for a, b in zip(lo, hi, strict=True)])
    scaled = np.concatenate([np.arange(sl[k].start, sl[k].stop) for k in SCALED])
    scale = 1.0 / high[scaled]
    named = np.r_[sl["nijuu"].start + 1:sl["nijuu"].stop, sl["signal"].start + 1:
                  sl["signal"].stop]  # card ids (-1: none)

    def feats(observation: Array) -> Array:
        x = see(observation).astype(jnp.int32)
        cards = x[sl["cards"]].reshape(-1, 4)
        hand, by, taker = cards[:, 0] > 0, cards[:, 1], cards[:, 3]
        place = jnp.where(hand, 0, jnp.where(taker >= 0, 6 + taker,
                                             jnp.where(by >= 0, 1 + by, -1)))
        mark = jnp.any(jnp.arange(len(cards))[:, None] == x[named], axis=1)
        hot = jnp.concatenate([(place[:, None] == jnp.arange(PLACES)).reshape(-1), mark,
                               x[slot] == code])
        return jnp.concatenate([hot.astype(jnp.float32), x[scaled] * scale])

    return feats


def make_policy(env: kanjax.Env):
    """The greedy policy `(params, key, observation, legal_mask) -> action`."""
    return net.make_policy(env, features(env))


def make_sampling_policy(env: kanjax.Env):
    """The policy drawing its action from the softmax of the legal logits (self-play)."""
    return net.make_sampling_policy(env, features(env))
