"""The CPU backend of `solvers.api.solve`: positions in, exact values (and every legal move's
value) out, from the compiled search (`solvers.cpu.search`), one problem group per thread.

Positions of one deal (its trump and side, other leaders, the positions after each root
move) share one transposition table, as DDS's CalcDDtable shares one across a strain's
leaders; each group takes a table of its own (kept for later calls) and starts a new
generation of it.
The numba functions run without the GIL, so `threads` workers keep every core busy.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np

from solvers import trick_play
from solvers.position import JK, LEAD_JK, Position, Rules

Goal = tuple[int, int]  # (side_min, other_max): `solvers.position`
MAX_SEATS = 6  # the table packs a holder in 3 bits and hands' suit lengths in 96 bits


def unsupported(rules: Rules) -> tuple[str, ...]:
    """Why the CPU backend cannot search positions of `rules` (empty: it can): the solvers'
    own limits (`Rules.limits`) and more than MAX_SEATS seats."""
    out = list(rules.limits)
    if rules.n > MAX_SEATS:
        out.append(f"{rules.n} seats (Rules.n): the cpu backend takes 2..{MAX_SEATS}")
    return tuple(out)


def supports(rules: Rules) -> bool:
    return not unsupported(rules)


def check(rules: Rules) -> None:
    """ValueError naming every rule of `rules` the CPU backend does not support."""
    why = unsupported(rules)
    if why:
        raise ValueError(f"{rules.game}: the cpu backend cannot solve these rules: "
                         + "; ".join(why))


@functools.cache
def _codes(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(card id -> code 16 * suit + rank, its place among its suit's ids, low first; the
    joker JK_CODE), and the search's rules data (`search.config`)."""
    from solvers.cpu import search

    codes = np.full(rules.num_ids, -1, np.int64)
    for s in range(4):
        ids = sorted((c for c in rules.ids if rules.suit[c] == s), key=lambda c: rules.rank[c])
        for r, c in enumerate(ids):
            codes[c] = 16 * s + r
    if rules.joker:
        codes[JK] = search.JK_CODE
    return codes, search.config(rules, codes)


def _table_bits(cards: int) -> int:
    """log2 of a table's classes (twice as many entries): 2^12 up to 6 cards a hand, four
    times as many a card more, up to 2^19 (96 MB: 64 bytes a class and an entry; a full
    table starts afresh; a whole five-seat Kan deal stores 0.2-0.5 million entries,
    BENCHMARKS.md)."""
    return min(19, 12 + 2 * max(0, cards - 6))


_tables: list[tuple[np.ndarray, ...]] = []  # tables no thread is using, kept across calls
_tables_lock = threading.Lock()


@contextlib.contextmanager
def _table(bits: int) -> Iterator[tuple[np.ndarray, ...]]:
    """A table of at least 2^bits classes, its entries retired, for this thread's use."""
    from solvers.cpu import table

    with _tables_lock:
        tt = _tables.pop() if _tables else None
    if tt is None or tt[0].shape[0] < (1 << bits):
        tt = table.new_table(bits)
    table.next_generation(tt)
    try:
        yield tt
    finally:
        with _tables_lock:
            _tables.append(tt)


def _encode(p: Position, codes: np.ndarray, hands: np.ndarray, trick: np.ndarray) -> int:
    """Writes `p`'s hands (suit words, int64[n, 4]) and current trick (move codes) into
    `hands` and `trick`; returns the joker's holder (-1: none)."""
    from solvers.cpu import search

    jk = -1
    for seat, h in enumerate(p.hands):
        for c in h:
            if codes[c] >= search.JK_CODE:
                jk = seat
            else:
                hands[seat, codes[c] >> 4] |= 1 << (codes[c] & 15)
    for j, c in enumerate(p.trick):
        trick[j] = codes[c] if codes[c] < search.JK_CODE else (
            search.JK_CODE + (1 + p.led if j == 0 else 0))
    return jk


def legal_moves(pos: Position) -> list[int]:
    """The legal moves (action ids) of `pos.to_move` by the compiled search's move generator
    (`search.legal`; no root limit): for checks against the engines' legal masks."""
    from solvers.cpu import search

    rules = pos.rules
    check(rules)
    codes, cfg = _codes(rules)
    hands = np.zeros((rules.n, 4), np.int64)
    mv = np.zeros(search.MAX_DEPTH, np.int64)
    jk = _encode(pos, codes, hands, mv)
    cand = np.zeros(5, np.int64)
    search.legal(hands, jk, rules.n, pos.to_move, mv, len(pos.trick), len(pos.trick),
                 pos.tricks_done, cfg, cand)
    of_code = {int(code): c for c, code in enumerate(codes) if code >= 0}
    out = [of_code[16 * s + r] for s in range(4) for r in range(16) if cand[s] >> r & 1]
    return out + [JK if b == 0 else LEAD_JK + b - 1 for b in range(5) if cand[4] >> b & 1]


def _solve_group(group: list[tuple[Position, Goal | None]], budget: int,
                 tt: tuple[np.ndarray, ...] | None = None, limit: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Values (goals: 1 reached, 0 not; -1 given up after `budget` nodes) and node counts of
    problems of one rules, trump and deal (`search.solve_group`): (position, None) asks its
    value, (position, (side_min, other_max)) its goal. `tt`: a table to search on as it is
    (default: a fresh one); `limit`: the budget as an int64[1] another thread may set to 0
    to stop the search."""
    from solvers.cpu import search

    rules = group[0][0].rules
    codes, cfg = _codes(rules)
    count = len(group)
    hands = np.zeros((count, rules.n, 4), np.int64)
    jk = np.full(count, -1, np.int64)
    trick = np.zeros((count, max(rules.n, 1)), np.int64)
    values = np.zeros(count, np.int64)
    other_max = np.full(count, search.NO_LIMIT, np.int64)
    for i, (p, goal) in enumerate(group):
        jk[i] = _encode(p, codes, hands[i], trick[i])
        if goal is not None:
            values[i], other_max[i] = goal
    side = np.array([[int(s) for s in p.side] for p, _ in group], np.int64)
    trick_len = np.array([len(p.trick) for p, _ in group], np.int64)
    leader = np.array([p.leader for p, _ in group], np.int64)
    taken = np.array([p.taken for p, _ in group], np.int64)
    other = np.array([p.taken_other for p, _ in group], np.int64)
    left = np.array([trick_play.remaining(p) for p, _ in group], np.int64)
    done = np.array([p.tricks_done for p, _ in group], np.int64)
    nodes = np.zeros((count, 2), np.int64)
    cards = max(len(h) for p, _ in group for h in p.hands)
    limit = np.array([budget], np.int64) if limit is None else limit
    with contextlib.nullcontext(tt) if tt is not None else _table(_table_bits(cards)) as t:
        search.solve_group(hands, jk, rules.n, group[0][0].trump, side, trick, trick_len,
                           leader, taken, other, left, done, other_max, cfg, t, limit, values,
                           nodes)
    return values, nodes


def _value_side_by_side(p: Position, budget: int, workers: int
                        ) -> tuple[np.ndarray, np.ndarray]:
    """A lone value problem on `workers` threads: (its value, -1 if given up; its nodes).
    Null-window searches of several targets run at once ("the side reaches t", goals with no
    limit on the other side: the value search's table entries), each thread on a table of
    its own kept across its searches. A free thread takes the open target nearest the guess
    (MTD(f)'s first target, then just past the last result); a result that makes a running
    search moot stops it. The searches at and just past the value, nearly all of a whole
    deal's work, so run side by side."""
    from solvers.cpu import search

    lo, hi = p.taken, p.taken + trick_play.remaining(p)
    guess = (lo + hi + 1) // 2
    goal_max = search.NO_LIMIT - 1  # a goal's `other_max` that never binds
    nodes = np.zeros((1, 2), np.int64)
    bits = _table_bits(max(len(h) for h in p.hands))
    running: dict = {}  # future -> (target, limit, table)
    given_up = False
    with contextlib.ExitStack() as stack:
        free = [stack.enter_context(_table(bits)) for _ in range(workers)]
        pool = stack.enter_context(ThreadPoolExecutor(workers))
        while lo < hi and not given_up:
            busy = {t for t, _, _ in running.values()}
            for t in sorted(range(lo + 1, hi + 1), key=lambda t: (abs(t - guess), -t)):
                if len(running) == workers:
                    break
                if t not in busy:
                    limit = np.array([budget], np.int64)
                    tt = free.pop()
                    running[pool.submit(_solve_group, [(p, (t, goal_max))], budget, tt,
                                        limit)] = (t, limit, tt)
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                t, limit, tt = running.pop(f)
                free.append(tt)
                v, nd = f.result()
                nodes += nd
                if v[0] < 0:  # stopped (moot), or past the budget
                    given_up = given_up or limit[0] > 0
                elif v[0]:
                    lo, guess = max(lo, t), max(lo, t) + 1
                else:
                    hi, guess = min(hi, t - 1), min(hi, t - 1)
            for t, limit, _ in running.values():
                if t <= lo or t > hi or given_up:
                    limit[0] = 0
        for _, limit, _ in running.values():
            limit[0] = 0
        for f in running:
            nodes += f.result()[1]
    return np.array([-1 if given_up else lo]), nodes


def default_threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def move_classes(pos: Position) -> dict[int, int]:
    """Legal moves -> the move whose value each has: itself, or the next live card up its
    suit when that is the mover's too and worth the same points (rank equivalence); a joker
    move is its own."""
    r = pos.rules
    moves = trick_play.legal_moves(pos)
    hand = set(pos.hands[pos.to_move])
    live = {c for h in pos.hands for c in h} | set(pos.trick)
    out = {}
    for m in moves:
        rep = m
        while m < r.num_ids and r.suit[m] < 4:
            up = [c for c in live if r.suit[c] == r.suit[rep] and r.rank[c] > r.rank[rep]]
            if not up:
                break
            nxt = min(up, key=lambda c: r.rank[c])
            if (nxt not in hand or r.points[nxt] != r.points[rep]
                    or (pos.root_moves is not None and nxt not in moves)):
                break
            rep = nxt
        out[m] = rep
    return out



def _run(problems: list[tuple[Position, Goal | None]], labels: list[tuple],
         threads: int | None, budget: int) -> tuple[np.ndarray, np.ndarray]:
    """Values (goals: 1, 0 or -1) and node counts of `problems`, those of one label (a deal
    and trump) one after another on one table, a group a thread."""
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    groups: dict[tuple, list[int]] = {}
    for k, label in enumerate(labels):
        groups.setdefault(label, []).append(k)
    order = sorted(groups.values(), key=len, reverse=True)
    values = np.zeros(len(problems), np.int64)
    nodes = np.zeros((len(problems), 2), np.int64)

    def work(ks: list[int]) -> None:
        v, nd = _solve_group([problems[k] for k in ks], budget)
        values[ks] = v
        nodes[ks] = nd

    if len(problems) == 1 and problems[0][1] is None and (threads or default_threads()) > 1:
        values[:], nodes[:] = _value_side_by_side(problems[0][0], budget,
                                                  threads or default_threads())
        return values, nodes
    workers = max(1, min(threads or default_threads(), len(order)))
    if workers == 1:
        for ks in order:
            work(ks)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(work, order))
    return values, nodes


def _best(values: list[int], maximise: bool) -> int:
    """A node's result from its children's: the best for its player; a goal given up (-1)
    in some child leaves it open (-1) unless another child decides it."""
    if -1 not in values:
        return max(values) if maximise else min(values)
    return int(maximise) if int(maximise) in values else -1


def _answers(positions: list[Position], goals: Sequence[Goal] | None, all_moves: bool,
             threads: int | None, budget: int | None = None
             ) -> list[tuple[int, dict[int, int] | None, int, int]]:
    """(value, moves, nodes, trick nodes) of each position, its goal's answer (1 or 0; -1:
    given up after `budget` nodes) with `goals`. A position limited at its root
    (`root_moves`), and each move's value, are solved from the positions after its moves, in
    its deal's group."""
    for p in positions:
        check(p.rules)
    # the problems: (position index, move or None, (the position to search, its goal))
    problems: list[tuple[int, int | None, tuple[Position, Goal | None]]] = []
    classes: list[dict[int, int] | None] = []
    known: dict[int, int] = {}  # goals decided at the root (`ref.Solver.reaches`)
    for i, p in enumerate(positions):
        goal = goals[i] if goals is not None else None
        if goal is not None and (p.taken_other > goal[1] or p.taken >= goal[0]):
            known[i] = int(p.taken_other <= goal[1])
            classes.append(None)
            continue
        over = p.tricks_done == p.rules.n_tricks
        split = not over and (all_moves or p.root_moves is not None)
        cls = move_classes(p) if split else None
        classes.append(cls)
        if split:
            for rep in sorted(set(cls.values())):
                problems.append((i, rep, (trick_play.play(p, rep), goal)))
        else:
            problems.append((i, None, (p, goal)))
    labels = []
    for i, _, _ in problems:
        p = positions[i]
        side = p.side if p.side[0] else tuple(not s for s in p.side)
        labels.append((p.rules, p.trump, side, p.hands, p.trick))
    values, nodes = _run([q for _, _, q in problems], labels, threads,
                         _node_budget(budget))
    found: dict[tuple[int, int | None], int] = {}
    out_nodes = [[0, 0] for _ in positions]
    for k, (i, m, _) in enumerate(problems):
        found[i, m] = int(values[k])
        out_nodes[i][0] += int(nodes[k, 0])
        out_nodes[i][1] += int(nodes[k, 1])
    out = []
    for i, p in enumerate(positions):
        cls = classes[i]
        if i in known:
            value, moves = known[i], None
        elif cls is None:
            value, moves = found[i, None], None
        else:
            every = {m: found[i, rep] for m, rep in cls.items()}
            value = _best([v for m, v in every.items()
                           if p.root_moves is None or m in p.root_moves], p.side[p.to_move])
            moves = every if all_moves else None
        out.append((value, moves, out_nodes[i][0], out_nodes[i][1]))
    return out


def _node_budget(budget: int | None) -> int:
    """A search's node budget: `budget`, or none (the most an int64 counts)."""
    return np.iinfo(np.int64).max if budget is None else budget


def solve(positions: Sequence[Position], *, all_moves: bool = False,
          threads: int | None = None, budget: int | None = None
          ) -> list[tuple[int, dict[int, int] | None, int, int]]:
    """(value, moves, nodes, trick nodes) of each position: `solvers.api.solve`'s answers.
    `threads`: workers (default: one per CPU core); `budget`: the most nodes a search (a
    value, each move's value) may visit, -1 where it would visit more (None: no limit)."""
    return _answers(list(positions), None, all_moves, threads, budget)


def reaches(positions: Sequence[Position], goals: Sequence[Goal], *,
            threads: int | None = None) -> list[bool]:
    """Whether each position's side can force its goal `(side_min, other_max)`
    (`solvers.api.reaches`)."""
    return [bool(v) for v in goal_results(positions, goals, threads=threads)]


def goal_results(positions: Sequence[Position], goals: Sequence[Goal], *,
                 budget: int | None = None, threads: int | None = None) -> list[int]:
    """Each position's goal: 1 if its side can force it, 0 if not, -1 if a search it needed
    ran past `budget` nodes (None: no limit), as PIMC asks."""
    return [v for v, *_ in _answers(list(positions), list(goals), False, threads, budget)]
