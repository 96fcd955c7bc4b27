"""Jittable sampling of hidden-hand layouts for the Kan games: Gonin, Yonin and Gambari Kan
(PIMC; rules `rules/kan.md`).

`make_sampler(env, samples, tries)` returns `fn(key, obs) -> (holders, ok)`: `samples`
complete layouts of the cards one player has not seen, consistent with his observation
`obs = env.observe(state, p)` (KAN-46). `holders` int8[samples, 53]: the player holding card
c in layout i, -1 for cards in no hand (played, or not in the deck); `ok` bool[samples]: the
layout meets every constraint (a layout marked ok is never inconsistent; a failed one is
returned as it stood, marked not ok). `fn` is pure: `jit` and `vmap` over (key, obs) work.
`constraints(env, obs)` gives the constraints alone.

What the observation lets a player infer, all of it used: his own hand and the played cards,
hand sizes (KAN-6, KAN-16, KAN-1), voids from each trick's leader and led suit (KAN-24,
KAN-21, KAN-53, KAN-66, KAN-36, KAN-37, KAN-57, KAN-26, KAN-25, KAN-54), the joker's last
tricks (KAN-25), Gonin deal 1's JK and poh with the kankei and the nijū exchange (KAN-17,
KAN-19, KAN-18; Yonin's KAN-50, Gambari's KAN-65 constrain no card), and shown signals
(KAN-38). Likelihoods from choices and play are not used. The full list, and what is left
out, is in docs/samplers.md.

Method (fixed shapes, no branching on traced values): the constraints become `allowed`
bool[n, 53] and hand sizes; each attempt deals the unseen cards one at a time, the most
constrained first, each to an allowed player with probability proportional to his remaining
room (JK / poh of deal 1: uniformly between the kankei). Without constraints this is exactly
uniform over layouts; with them, close to uniform over the consistent layouts. `samples *
tries` attempts run in parallel (vmap) and sample i keeps its first successful try.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core.dealing import ring_positions
from kanjax.core.sampling import first_success, weighted_pick
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import CARD_IDS, JK, SUIT, TRUMP, KanEnv

Array = jax.Array
Sampler = Callable[[Array, Array], tuple[Array, Array]]

NC = ks.NUM_CARDS
VARIANTS = ("gonin", "yonin", "gambari")  # KanConfig.variant (KAN-69)


class Constraints(NamedTuple):
    """What one observation fixes (docs/samplers.md)."""

    known: Array  # int32[53]: the observer for his own cards, -1 elsewhere
    unseen: Array  # bool[53]: in another player's hand (the cards to deal)
    allowed: Array  # bool[n, 53]: who may hold each unseen card
    size: Array  # int32[n]: cards each player holds
    pair: Array  # bool: deal 1, JK and poh both unseen: with different kankei
    poh: Array  # int32: the deal-1 trump ace


def constraints(env: KanEnv, obs: Array) -> Constraints:
    """Decode `obs` (`env.observe(state, me)`) into the sampler's constraints."""
    n = env.num_players
    sl = env.observation_spec().slices()
    o = obs.astype(jnp.int32)
    cards = o[sl["cards"]].reshape(NC, 4)
    mine, by, trick_of, taken = cards[:, 0] > 0, cards[:, 1], cards[:, 2], cards[:, 3]
    played = by >= 0

    def one(name: str) -> Array:
        return o[sl[name]][0]

    variant = env.config.variant
    me, deal, dealer, trump, trick = (one(k) for k in ("me", "deal", "dealer", "trump", "trick"))
    jk_named = one("jk_named")
    seat_of, kankei = o[sl["seat_of"]], o[sl["kankei"]] > 0
    jk1, ace1 = o[sl["deal1_holders"]][0], o[sl["deal1_holders"]][1]
    nijuu, iku, signal = o[sl["nijuu"]], o[sl["iku"]], o[sl["signal"]]
    players = jnp.arange(n)
    active = players != dealer if n == 6 else jnp.ones(n, bool)  # KAN-6
    by_p = (by[None, :] == players[:, None]) & played[None, :]  # bool[n, 53]
    size = jnp.where(active, ks.HAND_SIZE - by_p.sum(1), 0)
    unseen = jnp.asarray(env.deck) & ~played & ~mine

    # Leaders: trick 1 by iku/koi (KAN-21) or the chooser (KAN-36/37); then the taker.
    pos = ring_positions(seat_of, dealer, n)  # ring positions from the dealer's right
    k1 = jnp.argmax(kankei)
    k2 = n - 1 - jnp.argmax(kankei[::-1])
    default = jnp.where((pos[k2] - pos[k1]) % 5 == 3, k1, k2)  # two mukankei on his right
    lead1 = jnp.where((iku[0] == 0) & (iku[1] == 1), k1 + k2 - default, default)
    if variant == "yonin":  # KAN-53: the player of AS (AC when spades are trump)
        lead1 = by[jnp.where(trump == 3, 12, 51)]
    elif variant == "gambari":  # KAN-66: the lone kankei
        lead1 = k1
    lead1 = jnp.where(deal == 1, lead1, jnp.where(deal == 2, jk1, ace1))
    tricks = jnp.arange(ks.NUM_TRICKS)
    in_t = (trick_of[None, :] == tricks[:, None]) & played[None, :]  # bool[10, 53]
    won = jnp.max(jnp.where(in_t, taken[None, :], -1), axis=1)
    leaders = jnp.concatenate([lead1[None], won[:-1]])
    led_card = in_t & (by[None, :] == leaders[:, None])
    led = jnp.max(jnp.where(led_card, jnp.asarray(SUIT)[None, :], -1), axis=1)
    led = jnp.where(led_card[:, JK], jk_named, led)  # KAN-26
    # Voids (KAN-24): a non-JK card off the led suit.
    led_of = jnp.where(played, led[jnp.clip(trick_of, 0, ks.NUM_TRICKS - 1)], -1)
    off = played & (CARD_IDS != JK) & (led_of >= 0) & (jnp.asarray(SUIT) != led_of)
    suits = jnp.arange(4)
    void = jnp.any(by_p[:, None, :] & off[None, None, :]
                   & (led_of[None, None, :] == suits[None, :, None]), axis=2)  # [n, 4]
    void = jnp.concatenate([void, jnp.zeros((n, 1), bool)], axis=1)
    # while Yonin's trump is chosen nobody sees his whole hand (KAN-57): me's hidden cards too
    own_hidden = (variant == "yonin") & (one("phase") == TRUMP)
    allowed = active[:, None] & ((players != me) | own_hidden)[:, None] & unseen[None, :]
    allowed &= ~void[:, jnp.asarray(SUIT)]
    if variant != "yonin":  # KAN-25 (not Yonin, KAN-54): no JK in trick 10; in trick 9
        # not with anyone who played another card
        no_jk = (trick >= ks.NUM_TRICKS - 1) | jnp.any(
            by_p & (trick_of == ks.NUM_TRICKS - 2)[None, :] & (CARD_IDS != JK)[None, :], axis=1)
        allowed = allowed.at[:, JK].set(allowed[:, JK] & ~no_jk)

    # Gonin deal 1 (KAN-17, KAN-18): JK and poh with the kankei, one each.
    d1 = (deal == 1) & (variant == "gonin")
    poh = 13 * jnp.clip(trump, 0, 3) + 12
    is_poh = CARD_IDS == poh
    seen_at = jnp.where(played, by, jnp.where(mine, me, -1))
    jk_at, poh_at = seen_at[JK], seen_at[poh]
    a_jk = allowed[:, JK] & kankei & (players != poh_at)
    a_poh = allowed[:, poh] & kankei & (players != jk_at)
    pair = d1 & unseen[JK] & unseen[poh]
    a_jk, a_poh = (jnp.where(pair, a & ((b.sum() - b) > 0), a) for a, b in
                   ((a_jk, a_poh), (a_poh, a_jk)))  # arc consistency: the other fits too
    allowed = jnp.where(d1, allowed.at[:, JK].set(a_jk), allowed)
    allowed = jnp.where(d1 & is_poh[None, :], a_poh[:, None], allowed)
    partner = k1 + k2 - me
    c = nijuu[1]
    nij = d1 & (nijuu[0] > 0) & kankei[me] & (CARD_IDS == c)
    allowed = jnp.where(nij[None, :], allowed & (players == partner)[:, None], allowed)
    # Signals (KAN-38, Gonin): the shown cards are with the shower.
    shower = jnp.where(deal == 2, ace1, jk1)
    shown = (deal >= 2) & (variant == "gonin") & ((CARD_IDS == signal[1]) | (CARD_IDS == signal[2]))
    allowed = jnp.where(shown[None, :], allowed & (players == shower)[:, None], allowed)
    known = jnp.where(mine, me, -1)
    return Constraints(known=known, unseen=unseen, allowed=allowed, size=size, pair=pair,
                       poh=poh)


def _attempts(con: Constraints, key: Array, attempts: int, length: int) -> tuple[Array, Array]:
    """`attempts` independent sequential deals of the unseen cards, written batched (a leading
    axis A, so that a `vmap` over observations adds one plain batch axis): (holders
    int32[A, 53], ok bool[A])."""
    n = con.size.shape[0]
    players = jnp.arange(n)
    rand = jax.random.bits(key, (attempts, NC + length), jnp.uint32)  # one draw
    count = con.allowed.sum(0)
    cls = jnp.where(count <= 1, 0, 4 * count)  # most constrained first
    cls = jnp.where(con.pair & (CARD_IDS == JK), 5, cls)
    cls = jnp.where(con.pair & (CARD_IDS == con.poh), 6, cls)
    cls = jnp.where(con.unseen, cls, 63)
    tie = (rand[:, :NC] >> 14).astype(jnp.int32)
    sort_key = (cls << 24) | (tie << 6) | jnp.asarray(CARD_IDS)  # [A, 53], distinct
    rank = jnp.sum(sort_key[:, None, :] < sort_key[:, :, None], axis=2)  # place of each card
    # The cards' rows in dealing order (one-hot products: no gathers in the loop).
    place = (rank[:, None, :] == jnp.arange(length)[None, :, None]).astype(jnp.float32)
    feats = jnp.concatenate([
        con.allowed.T, con.unseen[:, None], (con.pair & (CARD_IDS == JK))[:, None],
        (con.pair & (CARD_IDS == con.poh))[:, None]], axis=1).astype(jnp.float32)
    rows = jnp.einsum("alc,cf->laf", place, feats) > 0.5  # bool[L, A, n + 3]
    bits = rand[:, NC:].T
    room0 = con.size - jnp.sum(con.known[None, :] == players[:, None], axis=1)

    def deal(carry, x):
        room, jk_at = carry  # [A, n], [A]
        row, r = x
        allowed, live, is_jk, is_poh = row[:, :n], row[:, n], row[:, n + 1], row[:, n + 2]
        elig = allowed & (room > 0) & ~(is_poh[:, None] & (players == jk_at[:, None]))
        w = jnp.where(elig, jnp.where(is_jk[:, None], 1, room), 0)  # JK: uniform over kankei
        pick, total = weighted_pick(w, r)
        placed = live & (total > 0)
        room = room - (placed[:, None] & (players == pick[:, None]))
        jk_at = jnp.where(placed & is_jk, pick, jk_at)
        return (room, jk_at), jnp.where(placed, pick, jnp.where(live, -2, -1))

    carry0 = (jnp.broadcast_to(room0, (attempts, n)), jnp.full(attempts, -1, jnp.int32))
    (room, _), got = jax.lax.scan(deal, carry0, (rows, bits))  # got: [L, A]
    ok = ~jnp.any(got == -2, axis=0) & jnp.all(room == 0, axis=1)
    dealt = jnp.round(jnp.einsum("la,alc->ac", got.astype(jnp.float32), place))
    holders = jnp.where(con.unseen, jnp.maximum(dealt.astype(jnp.int32), -1), con.known)
    return holders, ok


def make_sampler(env: KanEnv, samples: int, tries: int = 8) -> Sampler:
    """`fn(key, obs) -> (holders int8[samples, 53], ok bool[samples])`: layouts of the hidden
    hands consistent with `obs` (docs/samplers.md). The Kan games only."""
    if getattr(getattr(env, "config", None), "variant", None) not in VARIANTS:
        raise ValueError(f"make_sampler: the Kan games only (gonin_kan, yonin_kan, "
                         f"gambari_kan), not {getattr(env, 'name', type(env).__name__)!r}")
    if samples < 1 or tries < 1:
        raise ValueError(f"make_sampler: samples={samples} and tries={tries} must be >= 1")
    length = int(np.asarray(env.deck).sum())

    def fn(key: Array, obs: Array) -> tuple[Array, Array]:
        con = constraints(env, obs)
        return first_success(*_attempts(con, key, samples * tries, length), tries)

    return fn

