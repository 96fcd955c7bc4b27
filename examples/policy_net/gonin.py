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
    sl, n = env.observation_spec().slices(), env.num_players

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


def _encoding(env: kanjax.Env) -> dict:
    """The constants of `features` and `sparse_features`."""
    sl = env.observation_spec().slices()
    low, high = env.observation_spec().bounds()
    element = np.concatenate([np.arange(sl[k].start, sl[k].stop) for k in ONE_HOT]
                             + [[sl["signal"].start]])  # the signal's form
    lo = np.append(low[element[:-1]], SIGNAL_FORMS[0])
    hi = np.append(high[element[:-1]], SIGNAL_FORMS[1])
    scaled = np.concatenate([np.arange(sl[k].start, sl[k].stop) for k in SCALED])
    n_cards = (sl["cards"].stop - sl["cards"].start) // 4
    return {
        "sl": sl, "element": element, "lo": lo, "hi": hi, "n_cards": n_cards,
        "slot": np.repeat(element, hi - lo + 1),  # the element of each one-hot slot
        "code": np.concatenate([np.arange(a, b + 1) for a, b in zip(lo, hi, strict=True)]),
        # the first one-hot slot of each element, counted from the first feature
        "first": n_cards * (PLACES + 1) + np.concatenate([[0], np.cumsum(hi - lo + 1)[:-1]]),
        "scaled": scaled, "scale": 1.0 / high[scaled],
        "named": np.r_[sl["nijuu"].start + 1:sl["nijuu"].stop, sl["signal"].start + 1:
                       sl["signal"].stop],  # card ids (-1: none)
    }


def _places(sl: dict, x: Array) -> Array:
    """Each card's place (0..PLACES-1; -1: unseen) in the relative view `x`."""
    cards = x[sl["cards"]].reshape(-1, 4)
    hand, by, taker = cards[:, 0] > 0, cards[:, 1], cards[:, 3]
    return jnp.where(hand, 0, jnp.where(taker >= 0, 6 + taker, jnp.where(by >= 0, 1 + by, -1)))


def features(env: kanjax.Env) -> net.Features:
    """Observation -> float32[858] features of the relative view (see the module doc)."""
    c, see = _encoding(env), relative(env)

    def feats(observation: Array) -> Array:
        x = see(observation).astype(jnp.int32)
        place = _places(c["sl"], x)
        mark = jnp.any(jnp.arange(c["n_cards"])[:, None] == x[c["named"]], axis=1)
        hot = jnp.concatenate([(place[:, None] == jnp.arange(PLACES)).reshape(-1), mark,
                               x[c["slot"]] == c["code"]])
        return jnp.concatenate([hot.astype(jnp.float32), x[c["scaled"]] * c["scale"]])

    return feats


def sparse_features(env: kanjax.Env) -> Callable[[Array], net.Sparse]:
    """Observation -> `features` as `net.Sparse`: the indices of its ones (about 67 of 858;
    -1: none) and its last, scaled, values. The network's first layer then adds up the
    weight rows of the ones instead of multiplying the whole vector (the same greedy
    actions, measured; a float sum in another order could turn a near-tie)."""
    c, see = _encoding(env), relative(env)
    named = len(c["named"])
    earlier = np.tril(np.ones((named, named), bool), -1)  # [j, k]: k named before j

    def feats(observation: Array) -> net.Sparse:
        x = see(observation).astype(jnp.int32)
        place = _places(c["sl"], x)
        cards = jnp.where(place >= 0, jnp.arange(c["n_cards"]) * PLACES + place, -1)
        card = x[c["named"]]  # a card named twice is one mark
        twice = jnp.any(earlier & (card[:, None] == card[None, :]), axis=1)
        marks = jnp.where((card >= 0) & ~twice, c["n_cards"] * PLACES + card, -1)
        v = x[c["element"]]
        fields = jnp.where((c["lo"] <= v) & (v <= c["hi"]), c["first"] + v - c["lo"], -1)
        return net.Sparse(jnp.concatenate([cards, marks, fields]).astype(jnp.int32),
                          (x[c["scaled"]] * c["scale"]).astype(jnp.float32))

    return feats


def make_policy(env: kanjax.Env):
    """The greedy policy `(params, key, observation, legal_mask) -> action` (on
    `sparse_features`)."""
    return net.make_policy(env, sparse_features(env))


def make_sampling_policy(env: kanjax.Env):
    """The policy drawing its action from the softmax of the legal logits (self-play)."""
    return net.make_sampling_policy(env, features(env))
