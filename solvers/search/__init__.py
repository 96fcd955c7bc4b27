"""Batched double-dummy search in JAX: many positions solved at once, on any XLA device.

Each lane of the batch runs a depth-first boolean search ("can the side reach its goal?",
`solvers.position`) as an explicit machine inside `lax.while_loop`, over bitboards in relative
ranks, with quick tricks, rank equivalence, move ordering without sorting, a per-lane
transposition table with partition search, exact values by a binary search over the target,
and a work queue that refills finished lanes. The design is docs/solver-design.md; the figures
are in BENCHMARKS.md and docs/benchmarks-history.md.

Use: `searcher(rules, lanes, tt_bits, ways)` returns a shared `Searcher`; `encode` turns
positions and goals into `Problems`; `Searcher.run(problems, budget, threads)` solves them
(`threads` searches side by side), `Searcher.compile` compiles ahead. `solvers.api.solve` is the
usual way in.

The rules kernel (legal moves, trick winner, points) is the environments' `kanjax.core.trick` on
the game's rules data (`solvers.position.Rules`), applied to suit words.

The modules, by concern:

- `words`: move codes and bit-word helpers; `problems`: `Problems`, `encode`, groups, the
  padded device `Batch`;
- `play`: the rules kernel on suit words (legal moves, strength, rank equivalence, a trick's
  cards squeezed out and back); `bounds`: sure tricks; `ordering`: move ordering;
- `lane`: a lane's state (`Lane`, `Play`, `Stack`) and the search's static `Config`;
  `table`: the transposition table; `node`: the node machine, a function a phase of a step;
- `queue`: the work queue, refills and the tail's hand-over; `runner`: `Searcher` (`run`,
  `compile`, threads), the table budget, `searcher()`.
"""

from solvers.search.lane import DECIDED, ENTER, Config, Lane, Play, Stack
from solvers.search.problems import FULL_WINDOW, SCALARS, Batch, Problems, encode, padded
from solvers.search.runner import (
    MIN_TAIL_LANES,
    NEVER,
    NO_BUDGET,
    TAIL_PATIENCE,
    Searcher,
    default_threads,
    searcher,
    table_budget,
)
from solvers.search.table import entry_bytes
from solvers.search.words import CODES, JK_CODE, LEAD_CODE, NUM_CODES

__all__ = [
    "CODES", "DECIDED", "ENTER", "FULL_WINDOW", "JK_CODE", "LEAD_CODE", "MIN_TAIL_LANES",
    "NEVER", "NO_BUDGET", "NUM_CODES", "SCALARS", "TAIL_PATIENCE", "Batch", "Config", "Lane",
    "Play", "Problems", "Searcher", "Stack", "default_threads", "encode", "entry_bytes",
    "padded", "searcher", "table_budget",
]
