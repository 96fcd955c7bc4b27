"""Jittable sampling of hidden-hand layouts for Da Bai Fen in trick play (PIMC; rules
`rules/da_bai_fen.md`). The Kan games' sampler is `kanjax.games.kan.sampler`; this one follows its
conventions.

`make_sampler(env, samples, tries, swaps)` returns `fn(key, obs) -> (holders, ok)`: `samples`
complete layouts of the cards one player has not seen, consistent with his observation `obs =
env.observe(state, p)` taken in trick play (phase play). `holders` int8[samples, 54]: the
player 0..3 holding card c in layout i, KITTY (4) for a card in the kitty (L's six discards,
DBF-17: the kitty is dealt like a fifth hand of six, so that a solver can score DBF-29's
kitty bonus), -1 for a played card. `ok` bool[samples]: the layout meets every constraint
(outside trick play every layout is marked not ok). `fn` is pure: `jit` and `vmap` over
(key, obs) work. `constraints(env, obs)` gives the constraints alone.

What the observation lets a player infer, all of it used (the plain-Python statement of the
same is `kanjax.games.da_bai_fen.reference_information`): sizes (DBF-17), the kitty cards he
knows (DBF-14, V1, V10), the exposed card (DBF-12/16/22), voids by effective suit (DBF-5, V6,
DBF-20, DBF-25), Dun tricks (V8: checked on each finished layout) and multi-lead validity
(DBF-23/24, DBF-8). `changchun_kitty` (V11) is refused. The full list: docs/samplers.md.

Method (fixed shapes, no branching on traced values), as `kanjax.games.kan.sampler`'s: the
constraints become `allowed` bool[5, 54] (the kitty as holder 4) and sizes; each attempt deals
the hidden cards one at a time, the most constrained first, each to an allowed holder with
probability proportional to its remaining room (forced where a holder's room can only just be
filled). The sequential deal is biased under constraints, so each deal is then stirred by
`swaps` Metropolis steps (two hidden cards trade holders where both may go), leaving the law
close to uniform over the consistent layouts (the test compares it with the enumerated law).
`samples * tries` attempts run in parallel and sample i keeps its first successful try.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from kanjax.core.sampling import first_success, weighted_pick
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen import trumps as sj
from kanjax.games.da_bai_fen.engine import OBS_HEAD

Array = jax.Array
Sampler = Callable[[Array, Array], tuple[Array, Array]]

NC = ds.NUM_CARDS
KITTY = 4  # the holder code of a kitty card
NH = 5  # holders: players 0..3 and the kitty
NT = ds.HAND_SIZE  # tricks
LENGTH = 3 * ds.HAND_SIZE + ds.KITTY_SIZE  # the most hidden cards (42)
IDS = jnp.arange(NC)
HEAD = {k: i for i, k in enumerate(OBS_HEAD)}
SWAPS = 64  # Metropolis swaps after each sequential deal (make_sampler's default)


class Constraints(NamedTuple):
    """What one observation fixes (docs/samplers.md)."""

    known: Array  # int32[54]: me for his own cards, -1 elsewhere
    unseen: Array  # bool[54]: hidden (in another hand or the kitty): the cards to deal
    allowed: Array  # bool[5, 54]: who (players 0..3, the kitty) may hold each hidden card
    size: Array  # int32[5]: cards each holder holds
    noquad: Array  # bool[12, 4]: Dun trick t, player p held no four-of-a-kind (V8)
    by: Array  # int32[54]: the player of a played card, -1
    trick: Array  # int32[54]: its trick, -1
    playing: Array  # bool: the observation is in trick play


def _is_quad(cards: Array) -> Array:
    """bool[...]: `cards` (bool[..., 54]) is four cards of one printed rank, no joker."""
    prank = jnp.asarray(sj.PRANK)
    per_rank = jnp.sum(cards[..., None] & (prank[:, None] == jnp.arange(13)), axis=-2)
    return (jnp.sum(cards, axis=-1) == 4) & jnp.any(per_rank == 4, axis=-1)


def constraints(env, obs: Array) -> Constraints:
    """Decode `obs` (`env.observe(state, me)`) into the sampler's constraints."""
    cfg = env.config
    sl = env.observation_spec().slices()
    o = obs.astype(jnp.int32)
    cards = o[sl["cards"]].reshape(NC, 6)
    mine, kk, expo = cards[:, 0] > 0, cards[:, 2] > 0, cards[:, 3] > 0
    by, trick = cards[:, 4], cards[:, 5]
    head = o[sl["head"]]
    me = o[sl["me"]][0]
    L, R, T = head[HEAD["leader"]], head[HEAD["R"]], head[HEAD["T"]]
    exposer = head[HEAD["exposer"]]
    playing = head[HEAD["phase"]] == ds.PHASE_PLAY
    tw = o[sl["trick_winners"]]
    trump, eff, strength = sj.tables(R, T, cfg.yuan_zhu)
    played = by >= 0
    unseen = ~played & ~mine
    players = jnp.arange(4)
    holders = jnp.arange(NH)
    by_p = (by[None, :] == players[:, None]) & played[None, :]  # [4, 54]
    size = jnp.concatenate([ds.HAND_SIZE - by_p.sum(1), jnp.array([ds.KITTY_SIZE])])

    # the tricks: leaders (DBF-20), leads, the led effective suit
    tricks = jnp.arange(NT)
    leader = jnp.concatenate([L[None], tw[:-1]])  # [12]
    in_t = (trick[None, :] == tricks[:, None]) & played[None, :]  # [12, 54]
    play = in_t[:, None, :] & by_p[None, :, :]  # [12, 4, 54]
    lead = jnp.sum(jnp.where(players[None, :, None] == leader[:, None, None], play, False),
                   axis=1) > 0  # [12, 54]
    n = lead.sum(1)
    led = jnp.max(jnp.where(lead, eff[None, :], -1), axis=1)  # [12]
    dun = _is_quad(lead) if cfg.jilin_dun else jnp.zeros(NT, bool)
    follower = (players[None, :] != leader[:, None]) & jnp.any(play, axis=2)  # [12, 4]
    of_led = jnp.sum(play & (eff[None, None, :] == led[:, None, None]), axis=2)
    n_trump = jnp.sum(play & trump[None, None, :], axis=2)
    quad_play = _is_quad(play)
    short = follower & ~dun[:, None] & (of_led < n[:, None])  # DBF-25
    dun_short = follower & dun[:, None] & ~quad_play & (n_trump < 4)  # V8
    suits = jnp.arange(5)
    void = jnp.any((short[:, :, None] & (led[:, None, None] == suits))
                   | (dun_short[:, :, None] & (suits == sj.TRUMP)), axis=0)  # [4, 5]
    noquad = follower & dun[:, None] & ~quad_play

    allowed = unseen[None, :] & (holders[:, None] != me)
    allowed &= jnp.concatenate([~void[:, eff], jnp.ones((1, NC), bool)])
    lk = (holders == L) | (holders == KITTY)
    allowed = jnp.where(kk[None, :], allowed & lk[:, None], allowed)
    sees = (me == L) | cfg.jilin_show_kitty
    allowed = allowed.at[KITTY].set(allowed[KITTY] & (kk | ~sees))
    e_ok = (holders == exposer) | ((holders == KITTY) & (exposer == L))
    allowed = jnp.where(expo[None, :], allowed & e_ok[:, None], allowed)
    # DBF-23: cards beating a card of a valid multi-lead: the leader's or the kitty's
    smin = jnp.min(jnp.where(lead, strength[None, :], 99), axis=1)
    multi = (n >= 2) & ~dun
    beat = multi[:, None] & (eff[None, :] == led[:, None]) & (strength[None, :] > smin[:, None])
    ok_b = (holders[None, :] == leader[:, None]) | (holders[None, :] == KITTY)  # [12, 5]
    bad = jnp.any(beat[:, None, :] & ~ok_b[:, :, None], axis=0)  # [5, 54]
    allowed &= ~bad
    known = jnp.where(mine, me, -1)
    return Constraints(known=known, unseen=unseen, allowed=allowed, size=size.astype(jnp.int32),
                       noquad=noquad, by=by, trick=trick, playing=playing)


def _attempts(con: Constraints, key: Array, attempts: int, jilin_dun: bool,
              swaps: int) -> tuple[Array, Array]:
    """`attempts` independent sequential deals of the hidden cards, batched (a leading axis
    A): (holders int32[A, 54], ok bool[A])."""
    hs = jnp.arange(NH)
    rand = jax.random.bits(key, (attempts, NC + LENGTH), jnp.uint32)
    count = con.allowed.sum(0)
    cls = jnp.where(count <= 1, 0, count)
    cls = jnp.where(con.unseen, cls, 63)  # most constrained first, then the seen cards
    tie = (rand[:, :NC] >> 14).astype(jnp.int32)
    sort_key = (cls << 24) | (tie << 6) | IDS  # [A, 54], distinct
    rank = jnp.sum(sort_key[:, None, :] < sort_key[:, :, None], axis=2)  # place of each card
    place = (rank[:, None, :] == jnp.arange(LENGTH)[None, :, None]).astype(jnp.float32)
    feats = jnp.concatenate([con.allowed.T, con.unseen[:, None]], axis=1).astype(jnp.float32)
    rows = jnp.einsum("alc,cf->laf", place, feats) > 0.5  # bool[L, A, 6]
    bits = rand[:, NC:].T
    room0 = con.size - jnp.concatenate(
        [jnp.sum(con.known[None, :] == hs[:4, None], axis=1), jnp.zeros(1, jnp.int32)])

    # how many of the cards from each place on may go to each holder (itself included)
    ahead = jnp.cumsum((rows[:, :, :NH] & rows[:, :, NH:])[::-1].astype(jnp.int32), axis=0)[::-1]

    def deal(room, x):
        row, r, left = x
        allowed, live = row[:, :NH], row[:, NH]
        elig = allowed & (room > 0)
        # a holder whose room only the cards left can fill must get this one (forced)
        forced = elig & (left <= room)
        elig = jnp.where(jnp.any(forced, axis=1, keepdims=True), forced, elig)
        pick, total = weighted_pick(jnp.where(elig, room, 0), r)
        placed = live & (total > 0)
        room = room - (placed[:, None] & (hs == pick[:, None]))
        return room, jnp.where(placed, pick, jnp.where(live, -2, -1))

    room, got = jax.lax.scan(deal, jnp.broadcast_to(room0, (attempts, NH)), (rows, bits, ahead))
    ok = ~jnp.any(got == -2, axis=0) & jnp.all(room == 0, axis=1) & con.playing
    dealt = jnp.round(jnp.einsum("la,alc->ac", got.astype(jnp.float32), place))
    holders = jnp.where(con.unseen, jnp.maximum(dealt.astype(jnp.int32), -1), con.known)
    # Metropolis swaps towards the uniform law over layouts meeting `allowed`: two random
    # hidden cards trade holders where both may (symmetric proposal, uniform target)
    order = jnp.argsort(~con.unseen)  # stable: the hidden card ids first
    nh = jnp.maximum(con.unseen.sum(), 1).astype(jnp.uint32)
    cols = jnp.arange(NC)

    def swap(h, b):
        i = order[(b[0] % nh).astype(jnp.int32)]  # [A]
        j = order[(b[1] % nh).astype(jnp.int32)]
        hi = jnp.take_along_axis(h, i[:, None], 1)[:, 0]
        hj = jnp.take_along_axis(h, j[:, None], 1)[:, 0]
        good = ((hi >= 0) & (hj >= 0) & con.allowed[jnp.maximum(hj, 0), i]
                & con.allowed[jnp.maximum(hi, 0), j])
        new = jnp.where(cols == i[:, None], hj[:, None],
                        jnp.where(cols == j[:, None], hi[:, None], h))
        return jnp.where(good[:, None], new, h), None

    sb = jax.random.bits(jax.random.fold_in(key, 1), (swaps, 2, attempts), jnp.uint32)
    holders, _ = jax.lax.scan(swap, holders, sb)
    if jilin_dun:  # V8: no four-of-a-kind where a Dun follow showed none (his hand then:
        # now + played since), counted by rank: [A, 4, 13] + [12, 4, 13]
        rank1 = (jnp.asarray(sj.PRANK)[:, None] == jnp.arange(13)).astype(jnp.int32)
        players = jnp.arange(4)
        now = (holders[:, None, :] == players[None, :, None]).astype(jnp.int32) @ rank1
        since = ((con.by[None, None, :] == players[None, :, None])
                 & (con.trick[None, None, :] >= jnp.arange(NT)[:, None, None])
                 & (con.by >= 0)).astype(jnp.int32) @ rank1
        quad = jnp.any(now[:, None] + since[None] == 4, axis=-1)  # [A, 12, 4]
        ok &= ~jnp.any(con.noquad[None] & quad, axis=(1, 2))
    return holders, ok


def make_sampler(env, samples: int, tries: int = 8, swaps: int = SWAPS) -> Sampler:
    """`fn(key, obs) -> (holders int8[samples, 54], ok bool[samples])`: layouts of the hidden
    hands and the kitty consistent with `obs` (docs/samplers.md), each dealt then
    stirred by `swaps` Metropolis swaps. Da Bai Fen only."""
    if getattr(env, "name", None) != "da_bai_fen":
        raise ValueError(f"make_sampler: Da Bai Fen only, not {getattr(env, 'name', env)!r}")
    if env.config.changchun_kitty:
        raise ValueError("make_sampler: changchun_kitty (DBF-V11) is not supported: the "
                         "observation does not say whether L took the kitty")
    if samples < 1 or tries < 1 or swaps < 0:
        raise ValueError(f"make_sampler: samples={samples} and tries={tries} must be >= 1, "
                         f"swaps={swaps} >= 0")

    def fn(key: Array, obs: Array) -> tuple[Array, Array]:
        con = constraints(env, obs)
        return first_success(*_attempts(con, key, samples * tries, env.config.jilin_dun,
                                        swaps), tries)

    return fn
