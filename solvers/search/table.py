"""A lane's transposition table, with partition search (Ginsberg's idea, as in DDS), probed and
stored at trick boundaries.

A bucket of `ways` entries is chosen by a 64-bit hash of each hand's suit lengths, the point
cards, the joker's holder, the leader and the problem's group (and the points taken, for a
goal search); it holds many rank sets of one such class. An entry is one row of uint32
words, read and written whole: the key (2 words); lo | hi << 8 | (best move + 1) << 16,
bounds on seat 0's side's *future* points (valid for every target; the problems of a group
may optimise either side); the ranks its result depends on (4 suit words, two a word); their
holders (n * 4 suit words, two a word). It answers for every position with those lengths and
those holders of those ranks.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from kanjax.core.jaxutil import Array
from solvers.position import Rules
from solvers.search.lane import Config, Lane
from solvers.search.words import closure, fmix, halves, hash_consts, pairs


def entry_bytes(rules: Rules) -> int:
    """The bytes of one table entry."""
    return 4 * (5 + 2 * rules.n)


def new_tables(cfg: Config) -> Array:
    """Every lane's empty table: uint32[lanes, tt_size, entry words]."""
    return jnp.zeros((cfg.lanes, cfg.tt_size, entry_bytes(cfg.rules) // 4), jnp.uint32)


def key(x: Lane) -> tuple[Array, Array]:
    """The table key of a trick-boundary position: (uint32, uint32). Partition search:
    the key holds each hand's suit lengths, not its cards (an entry says which ranks its
    result depends on); the point cards, the joker's holder, the leader (and for a goal
    search the points taken)."""
    lengths = jax.lax.population_count(x.hands).reshape(-1)
    words = -(-lengths.size // 8) + 3
    lengths = jnp.pad(lengths, (0, -lengths.size % 8)).reshape(-1, 8)
    nibbles = jnp.sum(lengths << (4 * jnp.arange(8, dtype=jnp.uint32)), axis=1,
                      dtype=jnp.uint32)
    pts = jnp.where(x.is_goal, (x.play.sp + 1) << 8 | (x.play.op + 1) << 16, 0)
    extra = ((x.jk + 1) | (x.play.leader << 4) | pts).astype(jnp.uint32)
    allw = jnp.concatenate([nibbles, x.points[0::2] | (x.points[1::2] << 16), extra[None]])

    def fold(consts):
        z = fmix(allw ^ jnp.asarray(consts))
        return jax.lax.reduce(z, jnp.uint32(0), jax.lax.bitwise_xor, (0,))
    return (fold(hash_consts(1, words)) ^ (x.gid.astype(jnp.uint32) * jnp.uint32(0x9E3779B1)),
            fold(hash_consts(2, words)))


class Probe(NamedTuple):
    """A lane's bucket as read at a step: `slots` (int32[ways], its rows' indices), `rows`
    (the entries), the position's `key`; per entry: `same` (its key), `match` (it answers
    for this position: its key, its rank holders, at a trick boundary), `lo`/`hi` (its bounds
    on the side's future points) and `best` (its best move, -1 none)."""

    slots: Array
    rows: Array
    key: tuple[Array, Array]
    same: Array
    match: Array
    lo: Array
    hi: Array
    best: Array


def probe(cfg: Config, x: Lane, tt: Array, left: Array) -> Probe:
    """Read the bucket of the position of `x` (off trick boundaries, where nothing is probed
    or stored: bucket 0, which stays in cache); `left`: the points still to take."""
    leading = x.play.leading
    key0, key1 = key(x)
    slots = jnp.where(leading, (key0 & jnp.uint32(cfg.tt_size - cfg.ways)).astype(
        jnp.int32), 0) + jnp.arange(cfg.ways)
    rows = tt[slots]
    e_k0, e_k1, meta = rows[:, 0], rows[:, 1], rows[:, 2]
    # ranks and holders stay packed two suit words a word (so are the hands, to match)
    e_rel, e_pat = rows[:, 3:5], rows[:, 5:].reshape(cfg.ways, cfg.n, 2)
    # entries bound the future points of seat 0's side: the other side's are what is left
    flip = ~x.side[0]
    stored_lo = (meta & 0xFF).astype(jnp.int32)
    stored_hi = ((meta >> 8) & 0xFF).astype(jnp.int32)
    lo = jnp.where(flip, left - stored_hi, stored_lo)
    hi = jnp.where(flip, left - stored_lo, stored_hi)
    best = ((meta >> 16) & 0xFF).astype(jnp.int32) - 1
    same = (e_k0 == key0) & (e_k1 == key1)
    packed = x.hands[:, 0::2] | (x.hands[:, 1::2] << 16)  # [n, 2]
    match = same & jnp.all((packed[None] & e_rel[:, None]) == e_pat, axis=(1, 2)) & leading
    return Probe(slots, rows, (key0, key1), same, match, lo, hi, best)


def answer(pr: Probe, need: Array, left: Array) -> tuple[Array, Array, Array, Array]:
    """What the table says of the node: (yes, no, bound, rel): the side's future points
    surely reach `need` / surely fall short; the matching entries' tightest bound on them
    (lower for a yes, upper, at most `left`, otherwise); the ranks the deciding entry
    depends on (uint32[4])."""
    e_lo = jnp.where(pr.match, pr.lo, 0)
    e_hi = jnp.where(pr.match, pr.hi, 127)
    t_lo, t_hi = jnp.max(e_lo), jnp.min(e_hi)
    yes, no = t_lo >= need, t_hi < need
    entry = jnp.where(yes, jnp.argmax(e_lo), jnp.argmin(e_hi))  # the one that decides
    return (yes, no, jnp.where(yes, t_lo, jnp.minimum(left, t_hi)),
            halves(pr.rows[entry, 3:5][None])[0])


def best_move(pr: Probe) -> Array:
    """The table's hint when an entry matches (-1 otherwise): the best move of the first
    matching entry that has one, else entry 0's (a hint only: the caller checks that it is a
    candidate)."""
    return jnp.where(jnp.any(pr.match), pr.best[jnp.argmax(pr.match & (pr.best >= 0))], -1)


def store(cfg: Config, tt: Array, pr: Probe, x: Lane, on: Array, result: Array,
          bound: Array, rel: Array, left: Array) -> Array:
    """`tt` with, where `on` (a searched trick-boundary node, decided by its children), the
    node's `result` and fail-soft `bound` stored for every position that agrees on the suit
    lengths and on who holds the ranks `rel` and the point cards: in the entry of the same
    class and ranks, else an empty one, else one by turns; with the move that cut it off."""
    rel_s = closure(rel) | x.points
    pat = x.hands & rel_s
    rel_w, pat_w = pairs(rel_s), pairs(pat.reshape(-1))
    exact = pr.same & jnp.all(pr.rows[:, 3:] == jnp.concatenate([rel_w, pat_w]), axis=1)
    empty = (pr.rows[:, 0] == 0) & (pr.rows[:, 1] == 0)
    way = jnp.where(jnp.any(exact), jnp.argmax(exact), jnp.where(
        jnp.any(empty), jnp.argmax(empty), x.nodes & (cfg.ways - 1)))
    old_lo = jnp.where(exact[way], pr.lo[way], 0)
    old_hi = jnp.where(exact[way], pr.hi[way], 127)
    future = jnp.clip(bound - x.play.sp, 0, 127)
    new_lo = jnp.where(result, jnp.maximum(old_lo, future), old_lo)
    new_hi = jnp.where(result, old_hi, jnp.minimum(old_hi, future))
    bm = jnp.where(x.cut >= 0, x.cut, jnp.where(exact[way], pr.best[way], -1))
    flip = ~x.side[0]
    new_lo, new_hi = (jnp.clip(jnp.where(flip, left - new_hi, new_lo), 0, 127),
                      jnp.clip(jnp.where(flip, left - new_lo, new_hi), 0, 127))
    key0, key1 = pr.key
    row = jnp.concatenate([jnp.stack([key0, key1, (new_lo | new_hi << 8 | (bm + 1) << 16)
                                      .astype(jnp.uint32)]),
                           rel_w, pat_w])
    return tt.at[pr.slots[way]].set(jnp.where(on, row, pr.rows[way]))
