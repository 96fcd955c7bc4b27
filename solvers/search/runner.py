"""The runner: `Searcher` compiles the search for one game's rules and runs it on `Problems`,
in threads (on a CPU a search keeps about one core busy: its step is many small XLA
kernels), moving a long tail of busy lanes to a searcher of fewer lanes (a step costs about
as much for an idle lane as for a busy one); the default table budget and threads.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core.jaxutil import Array
from solvers.position import Rules
from solvers.search import play, queue
from solvers.search.lane import Config, load
from solvers.search.problems import Batch, Problems, padded
from solvers.search.words import CODES, word_bit

NO_BUDGET = 2**31 - 1  # node budget per problem: none
NEVER = 2**31 - 1  # a search's patience with an emptying batch: it never hands its tail on
TAIL_PATIENCE = 64  # refills a run waits, with the queue empty and at most a quarter of
# its lanes busy, before it moves the busy lanes to a searcher of fewer lanes
MIN_TAIL_LANES = 4  # the fewest lanes of such a searcher (a step's fixed cost dominates)


class Searcher:
    """The compiled batched search for one game's rules.

    `lanes`: searches run side by side; `tt_bits`: log2 of each lane's table entries;
    `ways`: entries a bucket (a power of two: more keep more rank sets of one class of suit
    lengths, for deep searches, at a dearer probe); `refill_every`: steps between queue
    refills; `tail_patience`: refills `run` waits, once every problem has started and at
    most a quarter of the lanes are busy, before it moves them on to fewer lanes (NEVER:
    not at all). Use `run(problems)`."""

    def __init__(self, rules: Rules, lanes: int = 256, tt_bits: int = 12, ways: int = 4,
                 refill_every: int = 64, tail_patience: int = TAIL_PATIENCE) -> None:
        rules.check_limits()
        self.cfg = Config(rules, lanes, 1 << tt_bits, ways, refill_every)
        self.rules, self.lanes, self.tt_size, self.ways, self.refill_every = (
            rules, lanes, 1 << tt_bits, ways, refill_every)
        self.tail_patience = tail_patience
        self._start_jit = jax.jit(functools.partial(queue.start, self.cfg))
        self._resume_jit = jax.jit(functools.partial(queue.resume, self.cfg), donate_argnums=4)
        self._compiled: dict[tuple[str, int], jax.stages.Compiled] = {}
        self._tails: dict[int, Searcher] = {}
        self._lock = threading.Lock()
        self._legal_roots = jax.jit(self._roots_legal)

    def solve_all(self, p: Batch | Mapping[str, Array], count: Array,
                  budget: Array = NO_BUDGET) -> tuple[Array, Array, Array]:
        """Solve problems 0..count-1 of the (padded) batch `p` (jittable; a mapping of
        `Problems`' arrays: a group a problem): (result, nodes, trick nodes) per problem. A
        problem still open after `budget` nodes (checked every `refill_every` steps) is given
        up: result -1. Trick nodes are the nodes at a trick's start (what DDS counts as
        nodes). On these lanes to the end (`run` moves a long tail to fewer)."""
        p = Batch.of(p)
        carry = queue.resume(self.cfg, p, count, budget, jnp.int32(NEVER),
                             queue.start(self.cfg, p, count))
        return queue.results(carry, p.size)

    def _executable(self, batch: Batch, part: str) -> jax.stages.Compiled:
        """The search's `part` ("start": `queue.start`, "resume": `queue.resume`) compiled for
        the size class of `batch` (once; threads share it)."""
        key = part, batch.size
        with self._lock:
            if key not in self._compiled:
                count = jnp.int32(0)
                if part == "start":
                    lowered = self._start_jit.lower(batch, count)
                else:
                    carry = jax.eval_shape(self._start_jit, batch, count)
                    lowered = self._resume_jit.lower(batch, count, count, count, carry)
                self._compiled[key] = lowered.compile()
            return self._compiled[key]

    def _tail(self, busy: int) -> Searcher:
        """The searcher a tail of `busy` lanes moves to: the fewest lanes, a power of two, at
        least MIN_TAIL_LANES (shared by the runs and threads of this searcher)."""
        lanes = max(MIN_TAIL_LANES, 1 << max(busy - 1, 0).bit_length())
        with self._lock:
            if lanes not in self._tails:
                self._tails[lanes] = Searcher(self.rules, lanes, self.tt_size.bit_length() - 1,
                                              self.ways, self.refill_every, self.tail_patience)
            return self._tails[lanes]

    def compile(self, problems: Problems, threads: int = 1) -> None:
        """Compile what `run(problems, threads=threads)` runs, solving nothing (a long tail's
        searchers of fewer lanes compile when it comes)."""
        for idx in shares(problems.group, threads):
            batch = padded(problems.take(idx))
            self._executable(batch, "start")
            self._executable(batch, "resume")

    def _search(self, batch: Batch, count: int, limit: Array) -> tuple[np.ndarray, ...]:
        """(result, nodes, trick nodes) of problems 0..count-1 of `batch`. Once every problem
        has started and at most a quarter of the lanes have been busy for `tail_patience`
        refills, the busy lanes (their searches, stacks and tables as they are) go on in a
        searcher of fewer lanes, whose steps cost less: the same search, sooner."""
        searcher, n = self, jnp.int32(count)
        carry = self._executable(batch, "start")(batch, n)
        while True:
            patience = NEVER if searcher.lanes <= MIN_TAIL_LANES else searcher.tail_patience
            carry = searcher._executable(batch, "resume")(batch, n, limit,
                                                          jnp.int32(patience), carry)
            finished = np.asarray(carry.lanes.finished)
            if finished.all():
                return tuple(np.array(a[:count]) for a in queue.results(carry, batch.size))
            busy = np.flatnonzero(~finished)
            searcher = searcher._tail(len(busy))
            keep = np.concatenate([busy, np.full(searcher.lanes - len(busy),
                                                 np.flatnonzero(finished)[0])])
            take = functools.partial(jnp.take, indices=jnp.asarray(keep), axis=0)
            carry = carry._replace(lanes=jax.tree.map(take, carry.lanes),
                                   stack=jax.tree.map(take, carry.stack), tt=take(carry.tt),
                                   waited=jnp.int32(0))

    def run(self, problems: Problems, budget: int | None = None,
            threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(result, nodes, trick nodes) per problem: the exact value, or 0/1 for a goal
        problem; -1 for a problem given up after `budget` nodes (default: no limit). With a
        window (lo, hi), a value problem searches only targets in (lo, hi]: its result is the
        value if lo <= value <= hi, hi if the value is above, at most lo if below.
        `threads`: the problems are dealt out (a group at a time, `Problems.group`) to that
        many searches side by side, each in its own thread with its own lanes and tables (on
        a CPU each keeps about one core busy: `default_threads`)."""
        limit = jnp.int32(NO_BUDGET if budget is None else budget)

        def one(idx: np.ndarray) -> tuple[np.ndarray, ...]:
            return self._search(padded(problems.take(idx)), len(idx), limit)
        parts = shares(problems.group, threads)
        if len(parts) == 1:
            results = [one(parts[0])]
        else:
            with ThreadPoolExecutor(len(parts)) as pool:
                results = list(pool.map(one, parts))
        order = np.argsort(np.concatenate(parts))
        return tuple(np.concatenate(cols)[order] for cols in zip(*results, strict=True))

    def legal_at_roots(self, problems: Problems) -> tuple[np.ndarray, np.ndarray]:
        """bool[Q, M] twice (M: the game's action ids): the legal moves at each problem's
        root (root limits included), and those of them the search tries (one per
        rank-equivalence class)."""
        q, m = len(problems), self.rules.num_moves
        legal, tried = (np.asarray(w)[:q] for w in self._legal_roots(padded(problems)))

        def actions(words: np.ndarray) -> np.ndarray:
            out = np.zeros((q, m), bool)
            for code in CODES:
                word, bit = word_bit(code)
                on = ((words[:, word] >> bit) & 1).astype(bool) & (problems.move_of[:, code]
                                                                    >= 0)
                out[on, problems.move_of[on, code]] = True
            return out
        return actions(legal), actions(tried)

    def _roots_legal(self, p: Batch) -> tuple[Array, Array]:
        def one(pid: Array) -> tuple[Array, Array]:
            x = load(self.cfg, p, pid)
            to_move = x.play.to_move(self.rules.n)
            h = x.hands[to_move]
            legal = play.legal(self.rules, h, x.jk == to_move, x.play.leading,
                               x.play.trick.led, x.play.done) & x.root_mask
            return legal, play.equivalent(legal, h, x.points)
        return jax.vmap(one)(jnp.arange(p.size))


def shares(group: np.ndarray, threads: int) -> list[np.ndarray]:
    """The problems of each of (at most) `threads` searches: the groups dealt out in turn,
    each group's problems together and in their order."""
    order = np.argsort(group, kind="stable")
    if not len(order):
        return [order]
    starts = np.concatenate([[True], group[order][1:] != group[order][:-1]])
    which = np.cumsum(starts) - 1  # each problem's group, counted in order
    parts = max(1, min(threads, int(which[-1]) + 1))
    return [order[which % parts == k] for k in range(parts)]


def table_budget() -> int:
    """The bytes every lane's table may take together, by default (`api.solve` sizes tables
    by it): `KANJAX_SOLVER_TABLE_MB` if set, else a quarter of the device's memory where JAX
    reports it (GPU, TPU), else 4 GiB."""
    if os.environ.get("KANJAX_SOLVER_TABLE_MB"):
        text = os.environ["KANJAX_SOLVER_TABLE_MB"]
        try:
            return int(float(text) * 2**20)
        except ValueError:
            raise ValueError(f"KANJAX_SOLVER_TABLE_MB={text!r}: want a number of megabytes") \
                from None
    stats = jax.devices()[0].memory_stats() or {}
    return stats["bytes_limit"] // 4 if "bytes_limit" in stats else 4 * 2**30


def default_threads() -> int:
    """Searches to run side by side by default: `KANJAX_SOLVER_THREADS` if set, else one per
    CPU core the process may use when the search runs on the CPU (each run keeps about one
    core busy), else one."""
    if os.environ.get("KANJAX_SOLVER_THREADS"):
        return max(1, int(os.environ["KANJAX_SOLVER_THREADS"]))
    if jax.default_backend() != "cpu":
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


@functools.cache
def searcher(rules: Rules, lanes: int = 256, tt_bits: int = 12, ways: int = 4) -> Searcher:
    """A shared `Searcher` per rules and size (compiled once per size class of problems)."""
    return Searcher(rules, lanes, tt_bits, ways)
