"""Batched double-dummy search in JAX: many positions solved at once, on any XLA device.

Each lane of the batch runs a depth-first boolean search: "can the side reach its goal?"
(`solvers.position`: a goal is `(side_min, other_max)`; `value >= T` is `(T, total - T)`).
The search is an explicit machine inside `lax.while_loop`. A step enters a node, and when
the node is decided on entry gives its result to the parent and moves on from there (the
parent's next move, or its own result); so a search takes about one step a node plus one a
node decided by its children:

- the position is bitboards: one 13-bit word per seat and suit, in *relative ranks* (bit i of
  a suit = its i-th lowest card still live: held, or in the current trick), plus a word per
  suit marking the point cards, and the joker's holder. When a trick ends its cards are
  squeezed out of every word, so positions that differ only in cards gone are the same
  words. Moves are codes: `16 * suit + relative rank`, `JK_CODE` (the joker, following) or
  `LEAD_CODE + s` (a joker lead naming suit s);
- fixed-depth stacks hold, per depth, the moves still to try (words), the move made and the
  trick bookkeeping it replaced; per trick, the words before the trick's cards were squeezed
  out (so a trick is taken back by one copy);
- an OR node (the side to move) succeeds on its first succeeding child, an AND node fails on
  its first failing child; the goal is tested when a trick ends (points only change then),
  and fails as soon as even winning everything left cannot reach it;
- quick tricks (plain tricks at four seats, `Lane.quick`): the cards the leader can cash
  for sure (above every other live card of their suit, not ruffable, and the rest of the
  suit once they have drawn every other card of it), then with no trumps in play his
  partner's, reached by a low card, end a search early, for either side; so do a side's
  master trumps (above every opponent's), and at a trick's second hand a trick his side
  surely wins (then, with no trumps, the winner's cashable cards);
- rank equivalence: of cards one hand holds that are adjacent in relative rank and worth the
  same points, only the highest is tried (`(h >> 1) & h`, one word operation); and once a
  node has tried a card below every rank its tried moves' results depended on, the other
  such cards of that suit are skipped (the same move for this search, as in DDS);
- move ordering without sorting: the table's best move, at a lead the last move that cut off
  a search at that depth (killer), else per suit a candidate (lead high; win as cheaply as
  possible; play low, or give points, when partner wins) and the argmax over suits and
  joker moves; a plain-tricks lead prefers the suits the opponents hold fewest cards of (as DDS);
- a per-lane transposition table with partition search (Ginsberg's idea, as in DDS), probed
  and stored at trick boundaries: a bucket of `ways` entries is chosen by a 64-bit hash of
  each hand's suit lengths, the point cards, the joker's holder, the leader and the problem's
  group (and the points taken, for a goal search); it holds many rank sets of one such class
  (as DDS's per-class lists), and each of its entries stores bounds on seat 0's side's
  *future* points (valid for every target), the best move, and the ranks its result
  depended on (the rank of each trick's winner that beat a card of its suit, the sure
  tricks' cards; with every rank above them, and the point cards) with who held them. It
  answers for every position with those lengths and those holders: others differ only in
  small cards that never won by rank;
- exact values: a binary search over the target T, on the same table, within a window of
  targets (all by default); a goal that is a threshold (value >= T) is the window [T-1, T];
- a work queue: lanes that finish a problem take the next one (every `refill_every` steps),
  so one slow position does not hold up the batch; the problems of a group (`encode`'s
  `groups`: one deal and trump, other leaders or sides) run one after another in one lane,
  on its table, whose entries bound the future points of seat 0's side so that either side's
  search can use them (DDS's table reuse across leaders); and once the queue is empty and
  few lanes are still busy, `run` moves them, as they are, to a searcher of fewer lanes (a
  step costs about as much for an idle lane as for a busy one);
- threads: `run(threads=k)` deals the problems out to k such searches side by side (on a
  CPU a search keeps about one core busy: its step is many small XLA kernels).

The rules kernel (legal moves, trick winner, points) is the environments' `kanjax.core.trick`
(the running trick and its one update, `add_play`; a card's strength) on the game's rules
data (`solvers.position.Rules`), applied to suit words instead of per-card arrays.

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
