"""The CPU backend of `solvers.api.solve`: positions in, exact values (and every legal move's
value) out, from the compiled search (`solvers.cpu.search`), one problem group per thread.

Positions of one deal (its trump and side, other leaders, the positions after each root
move) share one transposition table, as DDS's CalcDDtable shares one across a strain's
leaders; each thread keeps its own table and starts a new generation of it for each group.
The numba functions run without the GIL, so `threads` workers keep every core busy.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from solvers import reference as ref
from solvers.position import Position, Rules

MAX_SEATS = 4  # the table packs a holder in 2 bits and every hand's suit lengths in 64


def unsupported(rules: Rules) -> tuple[str, ...]:
    """Why the CPU backend cannot search positions of `rules` (empty: it can): the rules it
    does not play yet, each named, and the solvers' own limits (`Rules.limits`)."""
    out = list(rules.limits)
    if rules.joker:
        out.append(f"the joker (Rules.joker = {rules.joker[0]!r}...): the cpu backend plays "
                   "plain tricks only so far")
    if any(rules.points):
        out.append("point cards (Rules.points): the cpu backend plays plain tricks only so far")
    if rules.trick_value != 1:
        out.append(f"tricks worth {rules.trick_value} (Rules.trick_value): the cpu backend "
                   "counts tricks (worth 1)")
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
def _codes(rules: Rules) -> np.ndarray:
    """Card id -> code 16 * suit + rank (its place among its suit's ids, low first)."""
    codes = np.full(rules.num_ids, -1, np.int64)
    for s in range(4):
        ids = sorted((c for c in rules.ids if rules.suit[c] == s), key=lambda c: rules.rank[c])
        for r, c in enumerate(ids):
            codes[c] = 16 * s + r
    return codes


def _table_bits(cards: int) -> int:
    """log2 of a thread's table's classes (twice as many entries): 2^12 up to 6 cards a hand,
    twice as many a card more, up to 2^19 (about 50 MB) for whole deals."""
    return min(19, 12 + max(0, cards - 6))


_local = threading.local()


def _table(bits: int):
    """This thread's table, of at least 2^bits classes, its entries retired."""
    from solvers.cpu import table

    have = getattr(_local, "table", None)
    if have is None or have[0].shape[0] < (1 << bits):
        _local.table = table.new_table(bits)
    table.next_generation(_local.table)
    return _local.table


def _solve_group(group: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    """Values and node counts of positions of one rules, trump and deal (`solve_group`)."""
    from solvers.cpu import search

    rules = group[0].rules
    codes = _codes(rules)
    count = len(group)
    hands = np.zeros((count, rules.n, 4), np.int64)
    trick = np.zeros((count, max(rules.n, 1)), np.int64)
    for i, p in enumerate(group):
        for seat, h in enumerate(p.hands):
            for c in h:
                hands[i, seat, codes[c] >> 4] |= 1 << (codes[c] & 15)
        for j, c in enumerate(p.trick):
            trick[i, j] = codes[c]
    side = np.array([[int(s) for s in p.side] for p in group], np.int64)
    trick_len = np.array([len(p.trick) for p in group], np.int64)
    leader = np.array([p.leader for p in group], np.int64)
    taken = np.array([p.taken for p in group], np.int64)
    left = np.array([rules.n_tricks - p.tricks_done for p in group], np.int64)
    values = np.zeros(count, np.int64)
    nodes = np.zeros((count, 2), np.int64)
    cards = max(len(h) for p in group for h in p.hands)
    search.solve_group(hands, rules.n, group[0].trump, side, trick, trick_len, leader, taken,
                       left, _table(_table_bits(cards)), values, nodes)
    return values, nodes


def default_threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def _classes(pos: Position) -> dict[int, int]:
    """Legal moves -> the move whose value each has: itself, or the next live card up its
    suit when that is the mover's too (rank equivalence)."""
    r = pos.rules
    moves = ref.legal_moves(pos)
    hand = set(pos.hands[pos.to_move])
    live = {c for h in pos.hands for c in h} | set(pos.trick)
    out = {}
    for m in moves:
        rep = m
        while True:
            up = [c for c in live if r.suit[c] == r.suit[rep] and r.rank[c] > r.rank[rep]]
            if not up:
                break
            nxt = min(up, key=lambda c: r.rank[c])
            if nxt not in hand or (pos.root_moves is not None and nxt not in moves):
                break
            rep = nxt
        out[m] = rep
    return out


def solve(positions: Sequence[Position], *, all_moves: bool = False,
          threads: int | None = None) -> list[tuple[int, dict[int, int] | None, int, int]]:
    """(value, moves, nodes, trick nodes) of each position: `solvers.api.solve`'s answers.
    A position limited at its root (`root_moves`), and each move's value, are solved from
    the positions after its moves, in its deal's group. `threads`: workers (default: one
    per CPU core)."""
    positions = list(positions)
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    for p in positions:
        check(p.rules)
    # the problems: (position index, move or None, the position to search)
    problems: list[tuple[int, int | None, Position]] = []
    classes: list[dict[int, int] | None] = []
    for i, p in enumerate(positions):
        over = p.tricks_done == p.rules.n_tricks
        split = not over and (all_moves or p.root_moves is not None)
        cls = _classes(p) if split else None
        classes.append(cls)
        if split:
            for rep in sorted(set(cls.values())):
                problems.append((i, rep, ref.play(p, rep)))
        else:
            problems.append((i, None, p))
    groups: dict[tuple, list[int]] = {}
    for k, (i, _, _) in enumerate(problems):
        p = positions[i]
        side = p.side if p.side[0] else tuple(not s for s in p.side)
        groups.setdefault((p.rules, p.trump, side, p.hands, p.trick), []).append(k)
    order = sorted(groups.values(), key=len, reverse=True)
    values = np.zeros(len(problems), np.int64)
    nodes = np.zeros((len(problems), 2), np.int64)

    def work(ks: list[int]) -> None:
        v, nd = _solve_group([problems[k][2] for k in ks])
        values[ks] = v
        nodes[ks] = nd

    workers = max(1, min(threads or default_threads(), len(order)))
    if workers == 1:
        for ks in order:
            work(ks)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(work, order))
    found: dict[tuple[int, int | None], int] = {}
    out_nodes = [[0, 0] for _ in positions]
    for k, (i, m, _) in enumerate(problems):
        found[i, m] = int(values[k])
        out_nodes[i][0] += int(nodes[k, 0])
        out_nodes[i][1] += int(nodes[k, 1])
    out = []
    for i, p in enumerate(positions):
        cls = classes[i]
        if cls is None:
            value, moves = found[i, None], None
        else:
            every = {m: found[i, rep] for m, rep in cls.items()}
            allowed = [v for m, v in every.items()
                       if p.root_moves is None or m in p.root_moves]
            value = max(allowed) if p.side[p.to_move] else min(allowed)
            moves = every if all_moves else None
        out.append((value, moves, out_nodes[i][0], out_nodes[i][1]))
    return out
