"""The double-dummy solver's Python API: exact values, the value of every move, and goals.

    from solvers import solve, convert
    pos = convert.from_pbn("N:Q7.KQ.8752.96542 ...", trump="NT", leader="E")
    [sol] = solve([pos], all_moves=True)
    sol.value, sol.moves  # tricks for the side on lead; {card name: value}
    sol.move_ids          # the same by action id ({13: ...}), for stepping the game

Positions (and goals: `reaches`, `named_goals`) are solved together by the batched JAX search
(`solvers.search`), grouped by rules, or (`backend="cpu"`, the default on a CPU-only jax for
the rules it supports) by the compiled scalar search (`solvers.cpu`), one deal a thread. Da
Bai Fen's plays of several cards (`Rules.cards_a_play` > 1) go to the cpu backend's
multi-card search (`solvers.cpu.multi`; "auto" and "cpu"), whose moves are play masks
(`solvers.position.play_mask`, named by `Rules.move_name`); the JAX search refuses them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from solvers import search
from solvers.position import Position, Rules


@dataclasses.dataclass(frozen=True)
class Solution:
    """value: the position's value (the side's total, `taken` included); moves: the value
    after each legal move of the player to act, by the move's name (`Rules.move_name`: "AS",
    "JK:C", "3S 8D"; with `all_moves`); move_ids: the same by action id (a play mask where a
    play holds several cards), for code that steps the game; nodes: the search nodes
    visited; trick_nodes: those at a trick's start (DDS's count of nodes)."""

    value: int
    moves: dict[str, int] | None
    move_ids: dict[int, int] | None
    nodes: int
    trick_nodes: int


def _solution(pos: Position, value: int, move_ids: dict[int, int] | None, nodes: int,
              trick_nodes: int) -> Solution:
    """A `Solution`, its moves named by `pos`'s rules."""
    names = None if move_ids is None else {pos.rules.move_name(m): v
                                           for m, v in move_ids.items()}
    return Solution(value, names, move_ids, nodes, trick_nodes)


def _batches(positions: Sequence[Position]) -> dict[Rules, list[int]]:
    groups: dict[Rules, list[int]] = {}
    for i, p in enumerate(positions):
        groups.setdefault(p.rules, []).append(i)
    return groups


MIN_TT_BITS = 6  # the smallest table `solve` gives a lane: 64 entries


def _searcher(positions: Sequence[Position], lanes: int, tt_bits: int | None,
              threads: int, groups: int | None = None) -> search.Searcher:
    share = -(-(groups or len(positions)) // threads)  # the problem groups of one thread
    lanes = min(lanes, 1 << max(share - 1, 0).bit_length())  # no idle lanes
    cards = max(len(h) for p in positions for h in p.hands)
    rules = positions[0].rules
    if tt_bits is None:  # 2^12 entries a lane up to 9 cards a hand, twice as many a card more,
        # as far as every lane's table fits in the memory they may take
        entries = search.table_budget() // (threads * lanes * search.entry_bytes(rules))
        tt_bits = max(MIN_TT_BITS, min(16, 12 + max(0, cards - 9), entries.bit_length() - 1))
    # wide buckets pay from 11 cards a hand (BENCHMARKS.md)
    return search.searcher(rules, lanes, tt_bits, 16 if cards > 10 else 4)


def _threads(threads: int | None, count: int) -> int:
    """The searches to run side by side on `count` problems (`threads`: None = one per CPU
    core on a CPU, else one)."""
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    return max(1, min(threads or search.default_threads(), count))


def _same_deal(positions: Sequence[Position]) -> list[tuple]:
    """A group label per position: positions of one deal and trump (other leaders, or the
    other side) share their searches' tables (`search.encode`); none with a root limit."""
    return [None if p.root_moves is not None else (
        p.hands, p.trick, p.trump, p.side if p.side[0] else tuple(not s for s in p.side))
        for p in positions]


def _prepared(positions: list[Position], goals=None, root_moves=None, lanes: int = 256,
              tt_bits: int | None = None, windows=None, threads: int | None = None,
              groups=None) -> tuple[search.Searcher, search.Problems, int]:
    """(searcher, problems, threads) for a run on `positions` (one rules)."""
    problems = search.encode(positions, goals, root_moves, windows, groups)
    count = len(set(problems.group.tolist()))
    threads = _threads(threads, count)
    return _searcher(positions, lanes, tt_bits, threads, count), problems, threads


def _run(*args, **kwargs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s, problems, threads = _prepared(*args, **kwargs)
    return s.run(problems, threads=threads)


def warm_up(positions: Sequence[Position], *, lanes: int = 256, tt_bits: int | None = None,
            threads: int | None = None) -> None:
    """Compile what `solve(positions)` (values only) runs, solving nothing (for timings)."""
    positions = list(positions)
    s, problems, threads = _prepared(positions, lanes=lanes, tt_bits=tt_bits, threads=threads,
                                     groups=_same_deal(positions))
    s.compile(problems, threads)


def _root_classes(positions: Sequence[Position]) -> list[dict[int, int]]:
    """Each position's legal moves -> the move the search tries for it: itself, or the next
    tried card above it in its suit (rank equivalence, `search.play.equivalent`)."""
    out: list[dict[int, int]] = [{} for _ in positions]
    for rules, idx in _batches(positions).items():
        legal, tried = search.searcher(rules).legal_at_roots(
            search.encode([positions[i] for i in idx]))
        for i, moves, kept in zip(idx, legal, tried, strict=True):
            kept_ids = np.flatnonzero(kept).tolist()
            out[i] = {m: m if kept[m] else min(k for k in kept_ids if k > m
                                               and rules.suit[k] == rules.suit[m])
                      for m in np.flatnonzero(moves).tolist()}
    return out


def root_moves(positions: Sequence[Position]) -> list[list[int]]:
    """The legal moves at each position (the shared rules kernel; root limits included)."""
    return [sorted(classes) for classes in _root_classes(positions)]


BACKENDS = ("auto", "cpu", "jax")


def backend_of(positions: Sequence[Position], backend: str = "auto") -> str:
    """The backend that solves `positions`: "cpu" (the compiled scalar search, `solvers.cpu`)
    or "jax" (the batched search). "auto": cpu on a CPU-only jax when it supports every
    position's rules, else jax; "cpu" refuses rules it does not support (ValueError naming
    them)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r}: want one of {', '.join(BACKENDS)}")
    if backend != "jax" and any(_multi(p.rules) for p in positions):
        return "cpu"  # plays of several cards: `solvers.cpu.multi` (which checks the rules)
    from solvers.cpu import backend as cpu

    if backend == "cpu":
        for rules in {p.rules for p in positions}:
            cpu.check(rules)
        return "cpu"
    if backend == "jax":
        return "jax"
    import jax

    on_cpu = jax.default_backend() == "cpu"
    return "cpu" if on_cpu and all(cpu.supports(r) for r in {p.rules for p in positions}) \
        else "jax"


def _multi(rules: Rules) -> bool:
    """Rules of plays of several cards (Da Bai Fen's trick play): the cpu backend solves them
    with its multi-card search (`solvers.cpu.multi`), moves as play masks
    (`solvers.position.play_mask`); the batched JAX search refuses them."""
    return rules.cards_a_play > 1


def _solve_cpu(positions: list[Position], all_moves: bool, windows, threads: int | None
               ) -> list[Solution]:
    from solvers.cpu import backend as cpu
    from solvers.cpu import multi

    if any(_multi(p.rules) for p in positions):
        if not all(_multi(p.rules) for p in positions):
            raise ValueError("positions of plays of several cards (Da Bai Fen) and of one "
                             "card in one call: solve them apart")
        answers = multi.solve_many(positions, all_moves=all_moves, threads=threads)
    else:
        answers = cpu.solve(positions, all_moves=all_moves, threads=threads)
    out = []
    for k, (value, moves, nodes, trick_nodes) in enumerate(answers):
        window = windows[k] if windows else None
        if window is not None and value > window[1]:  # the exact value, as a window's
            value = window[1]
        out.append(_solution(positions[k], value, moves, nodes, trick_nodes))
    return out


def solve(positions: Sequence[Position], *, all_moves: bool = False,
          windows: Sequence[tuple[int, int] | None] | None = None, lanes: int = 256,
          tt_bits: int | None = None, threads: int | None = None,
          backend: str = "auto") -> list[Solution]:
    """Exact double-dummy values of `positions` (and of every legal move with `all_moves`).
    `windows[i] = (lo, hi)` saves searches when the value is known to lie within it, or
    checks that it does: the value comes back if lo <= value <= hi, else hi if above, at
    most lo if below (so `(v - 1, v + 1)` gives v exactly when the value is v).
    `lanes`: searches side by side; `tt_bits`: log2 of each lane's table entries (default:
    by the hand size, 2^12 up to 9 cards a hand and twice as many for each card more, up to
    2^16, about 3 MB a lane, for whole bridge deals; fewer where the tables of every lane of
    every thread would take more than `search.table_budget()`); `threads`: searches run
    side by side, each with its own lanes, on a share of the positions (default: one per CPU
    core on a CPU, else one). Positions of one deal and trump (other leaders or sides) are
    solved one after another on one table, which they share (as DDS does across leaders).
    `backend`: "auto", "cpu" or "jax" (`backend_of`); the cpu backend takes `threads` (one
    deal a thread; default one per core) and ignores `lanes` and `tt_bits`."""
    positions = list(positions)
    if positions and backend_of(positions, backend) == "cpu":
        return _solve_cpu(positions, all_moves, windows, threads)
    out: list[Solution | None] = [None] * len(positions)
    for _, idx in _batches(positions).items():
        group = [positions[i] for i in idx]
        values, nodes, trick_nodes = _run(group, lanes=lanes, tt_bits=tt_bits, windows=[
            windows[i] for i in idx] if windows else None, threads=threads,
            groups=_same_deal(group))
        moves: list[dict[int, int] | None] = [None] * len(group)
        if all_moves:
            reps = _root_classes(group)
            todo = [(k, r) for k, rep in enumerate(reps) for r in sorted(set(rep.values()))]
            child_vals, child_nodes, child_trick = _run([group[k] for k, _ in todo], None,
                                                        [(r,) for _, r in todo], lanes, tt_bits,
                                                        threads=threads)
            found = {t: int(v) for t, v in zip(todo, child_vals, strict=True)}
            for (k, _), n, t in zip(todo, child_nodes, child_trick, strict=True):
                nodes[k] += n
                trick_nodes[k] += t
            moves = [{m: found[k, r] for m, r in rep.items()} for k, rep in enumerate(reps)]
        for k, i in enumerate(idx):
            out[i] = _solution(group[k], int(values[k]), moves[k], int(nodes[k]),
                               int(trick_nodes[k]))
    return out  # type: ignore[return-value]


def reaches(positions: Sequence[Position], goals: Sequence[tuple[int, int]], *,
            lanes: int = 256, tt_bits: int | None = None, threads: int | None = None,
            backend: str = "auto") -> list[bool]:
    """Whether each position's side can force its goal `(side_min, other_max)`: a trick end
    with its total >= side_min while the other side's is <= other_max (`solvers.position`).
    `lanes`, `tt_bits`, `threads`, `backend`: as `solve`'s."""
    positions = list(positions)
    if any(_multi(p.rules) for p in positions):
        raise ValueError(f"{positions[0].rules.game}: goals are not searched with plays of "
                         "several cards (a penalty ends the deal with other totals): ask "
                         "`solve` for the value")
    if positions and backend_of(positions, backend) == "cpu":
        from solvers.cpu import backend as cpu

        return cpu.reaches(positions, goals, threads=threads)
    out = [False] * len(positions)
    for _, idx in _batches(positions).items():
        res, *_ = _run([positions[i] for i in idx], [goals[i] for i in idx], None, lanes,
                      tt_bits, threads=threads)
        for k, i in enumerate(idx):
            out[i] = bool(res[k])
    return out


def named_goals(positions: Sequence[Position],
                goals: Sequence[dict[str, tuple[bool, int, int]]], *,
                threads: int | None = None, backend: str = "auto") -> list[dict[str, bool]]:
    """For each position, which of its game's named goals (`TrickPlay.trick_goals`: name -> (for the
    position's side or the other, side_min, other_max), such as contracts) that side can
    force (`reaches`; `threads`, `backend` as its)."""
    asks, targets = [], []
    for pos, named in zip(positions, goals, strict=True):
        for mine, side_min, other_max in named.values():
            asks.append(pos if mine else pos.other_side())
            targets.append((side_min, other_max))
    answers = iter(reaches(asks, targets, threads=threads, backend=backend))
    return [{name: next(answers) for name in named} for named in goals]


def table_positions(deals: Sequence[Position]) -> list[Position]:
    """The 20 positions of each deal's double-dummy table (`dd_tables`): every strain (no
    trump, then the suits 0..3), every leader (seats 0..3), the leader's side."""
    out = []
    for i, deal in enumerate(deals):
        if not (deal.rules.plain_tricks and deal.rules.n == 4) or deal.trick:
            raise ValueError(f"deal {i}: a double-dummy table wants a deal of plain tricks at "
                             f"four seats (bridge's card play) at a trick's start, not a "
                             f"{deal.rules.game} position with trick {deal.trick}")
        out += [Position(deal.rules, deal.hands, trump, leader,
                         tuple((s - leader) % 2 == 0 for s in range(4)),
                         tricks_done=deal.tricks_done)
                for trump in range(-1, 4) for leader in range(4)]
    return out


def dd_tables(deals: Sequence[Position], *, lanes: int = 256, tt_bits: int | None = None,
              threads: int | None = None,
              backend: str = "auto") -> list[dict[str, dict[str, int]]]:
    """The double-dummy table of each deal of plain tricks at four seats (bridge's; DDS's
    CalcDDtable): for every strain and every player as declarer, the tricks his side takes
    from now on, his left-hand opponent leading; strains and seats by the rules' names
    (`Rules.trump_name`, `seat_names`): `table["NT"]["S"]`, South declaring no trump. A
    deal's hands are read at a trick's start; its trump, leader and side are ignored. The
    20 searches of a strain's four leaders share their tables. `lanes`, `tt_bits`,
    `threads`, `backend`: as `solve`'s."""
    values = iter(sol.value for sol in solve(table_positions(deals), lanes=lanes,
                                             tt_bits=tt_bits, threads=threads,
                                             backend=backend))
    out = []
    for deal in deals:
        left = deal.rules.n_tricks - deal.tricks_done
        table = {}
        seats = deal.rules.seat_names or tuple(map(str, range(4)))
        for trump in range(-1, 4):
            by_leader = [next(values) for _ in range(4)]  # tricks of the leader's side
            table[deal.rules.trump_name(trump)] = {
                seat: left - by_leader[(k + 1) % 4] for k, seat in enumerate(seats)}
        out.append(table)
    return out
