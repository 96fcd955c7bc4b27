"""The work queue: lanes that finish a problem take the next one (every `refill_every`
steps), so one slow position does not hold up the batch. The problems of a group run one
after another in one lane, on its table (DDS's table reuse across leaders); once every group
has started, idle lanes steal the last problems not started. A search runs `start`, then
`resume` until every problem is done, or until only a tail of a few busy lanes is left (the
runner then moves them to a searcher of fewer lanes, `runner.Searcher._search`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from kanjax.core.jaxutil import Array
from solvers.search.lane import Config, Lane, Stack, load, new_stacks
from solvers.search.node import step
from solvers.search.problems import Batch
from solvers.search.table import new_tables


class Carry(NamedTuple):
    """A search's state between refills: the lanes, their stacks and tables (uint32[lanes,
    tt_size, words]); per problem (and a sink, slot Q, for idle lanes) its result (int32[Q +
    1], -1 until done) and its nodes and trick nodes (int32[2, Q + 1]); the queue: per group
    the range [front, back) of its problems no lane has started (int32[Q + 1] each) and the
    next group not started (`nxt`); and the refills spent waiting on a tail."""

    lanes: Lane
    stack: Stack
    tt: Array
    out: Array
    nodes: Array
    front: Array
    back: Array
    nxt: Array
    waited: Array


def start(cfg: Config, p: Batch, count: Array) -> Carry:
    """A search's state with every lane on its first problem (problems 0..count-1 of `p`)."""
    q, b = p.size, cfg.lanes
    first = p.start[jnp.minimum(jnp.arange(b), q)]
    first = jnp.where(first < count, first, q)
    front = p.start.at[jnp.where(first < q, jnp.arange(b), q)].add(1)
    lanes = jax.vmap(functools.partial(load, cfg), in_axes=(None, 0))(
        p, jnp.minimum(first, q - 1))
    lanes = lanes.replace(finished=lanes.finished | (first >= count), pid=first)
    stack = new_stacks(cfg, p.trick[jnp.minimum(first, q - 1)])
    out = jnp.full(q + 1, -1, jnp.int32)
    nodes = jnp.zeros((2, q + 1), jnp.int32)
    return Carry(lanes, stack, new_tables(cfg), out, nodes, front, p.end, jnp.int32(b),
                 jnp.int32(0))


def resume(cfg: Config, p: Batch, count: Array, budget: Array, patience: Array,
           carry: Carry) -> Carry:
    """Search on from `carry` until every problem is done, or every problem has started and
    at most a quarter of the lanes have been busy for `patience` refills. A problem still
    open after `budget` nodes (checked at refills) is given up: result -1."""
    q, b = p.size, cfg.lanes
    fresh_lanes = jax.vmap(functools.partial(load, cfg), in_axes=(None, 0))
    steps = jax.vmap(functools.partial(step, cfg))

    def chunk(c: Carry) -> Carry:
        def one(_, s):
            return steps(*s)
        lanes, stack, tt = jax.lax.fori_loop(0, cfg.refill_every, one, (c.lanes, c.stack, c.tt))
        over = ~lanes.finished & (lanes.nodes >= budget)
        lanes = lanes.replace(result=jnp.where(over, -1, lanes.result))
        fin = lanes.finished | over
        real = lanes.pid < count
        where = jnp.where(fin & real, lanes.pid, q)
        out = c.out.at[where].set(jnp.where(fin & real, lanes.result, -1))
        nodes = c.nodes.at[:, where].set(jnp.stack([lanes.nodes, lanes.trick_nodes]))
        new_pid, front, back, nxt = next_problems(p, count, fin & real, fin & ~real,
                                                  lanes.pid, c.front, c.back, c.nxt)
        fresh = fresh_lanes(p, jnp.minimum(new_pid, q - 1))
        fresh = fresh.replace(finished=new_pid >= count,
                              pid=jnp.where(new_pid >= count, q, new_pid))
        lanes = jax.tree.map(
            lambda a, f: jnp.where(fin.reshape((-1,) + (1,) * (a.ndim - 1)), f, a),
            lanes, fresh)
        stack = stack.replace(
            mv=stack.mv.at[:, :cfg.n - 1].set(jnp.where(
                fin[:, None], p.trick[jnp.minimum(new_pid, q - 1)], stack.mv[:, :cfg.n - 1])),
            killer=jnp.where(fin[:, None], jnp.int8(-1), stack.killer))
        tail = (4 * jnp.sum(~lanes.finished) <= b) & ~jnp.any(
            unstarted(p, count, front, back))
        return Carry(lanes, stack, tt, out, nodes, front, back, nxt,
                     jnp.where(tail, c.waited + 1, 0))

    def busy(c: Carry) -> Array:
        return ~jnp.all(c.lanes.finished) & (c.waited < patience)

    return jax.lax.while_loop(busy, chunk, carry)


def results(carry: Carry, q: int) -> tuple[Array, Array, Array]:
    """(result, nodes, trick nodes) of problems 0..q-1 from a search's state."""
    return carry.out[:q], carry.nodes[0, :q], carry.nodes[1, :q]


def unstarted(p: Batch, count: Array, front: Array, back: Array) -> Array:
    """bool[Q]: the problems no lane has started (the queue, per group [front, back))."""
    i, gi = jnp.arange(p.size), p.gidx
    return (i >= front[gi]) & (i < back[gi]) & (i < count)


def next_problems(p: Batch, count: Array, done: Array, idle: Array, pid: Array,
                  front: Array, back: Array, nxt: Array) -> tuple[Array, Array, Array, Array]:
    """The next problem of each lane that finished one (`done`) or had none (`idle`),
    >= count for none; and the queue's new state. A lane takes, in this order: the next
    unstarted problem of its group (on its own table); the first problem of the next group
    not started (`nxt`); else, once every group has started, the last unstarted problem of
    any group (work stealing: the group's own lane takes its problems from the front, idle
    lanes from the back)."""
    q, lanes = p.size, jnp.arange(pid.shape[0])
    g = jnp.where(done, p.gidx[jnp.minimum(pid, q - 1)], q)
    # 1. its own group's next, ranked among the lanes of that group asking at once
    rank = jnp.sum(done[None, :] & (g[None, :] == g[:, None])
                   & (lanes[None, :] < lanes[:, None]), axis=1)
    own = front[g] + rank
    by_own = done & (own < back[g]) & (own < count)
    front = front.at[jnp.where(by_own, g, q)].add(1)
    # 2. a new group
    want = (done | idle) & ~by_own
    new_g = jnp.minimum(nxt + jnp.cumsum(want) - 1, q)
    head = p.start[new_g]
    by_new = want & (head < count)
    front = front.at[jnp.where(by_new, new_g, q)].set(jnp.where(by_new, head + 1, front[q]))
    # 3. steal: thief r takes the (r + 1)-th unstarted problem from the end
    thief = want & ~by_new
    gi = p.gidx
    suffix = jnp.cumsum(unstarted(p, count, front, back)[::-1])[::-1]  # unstarted at or after i
    r = jnp.cumsum(thief) - 1
    stolen = jnp.searchsorted(-suffix, -(r + 1), side="right") - 1
    by_theft = thief & (r < suffix[0])
    stolen = jnp.where(by_theft, stolen, q)
    back = back.at[jnp.where(by_theft, gi[jnp.minimum(stolen, q - 1)], q)].min(stolen)
    new_pid = jnp.where(by_own, own, jnp.where(by_new, head, jnp.where(by_theft, stolen,
                                                                        count)))
    return new_pid, front, back, nxt + jnp.sum(want)
