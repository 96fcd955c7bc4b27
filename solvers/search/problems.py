"""Search problems: positions encoded as suit words (`encode`, host side, numpy), their groups
(problems that share a lane's table), and the padded batch a search reads on the device.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Hashable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core.jaxutil import Array
from solvers.position import JK, LEAD_JK, Position
from solvers.search.words import CODES, JK_CODE, LEAD_CODE, NUM_CODES, SUITS, word_bit

FULL_WINDOW = (0, 127)  # a value problem's default window: every target
# scalars per problem
SCALARS = ("leader", "led", "nplayed", "trump", "sp", "op", "done", "is_goal", "jk", "total")


@dataclasses.dataclass(frozen=True)
class Problems:
    """A batch of encoded search problems (numpy, leading axis = problem)."""

    hands: np.ndarray  # uint16[Q, n, 4]: each seat's suit words (relative ranks)
    points: np.ndarray  # uint16[Q, 4]: the point cards among the live cards
    trick: np.ndarray  # int8[Q, n - 1]: codes of the current trick's cards, in order
    scalars: np.ndarray  # int8[Q, len(SCALARS)]
    side: np.ndarray  # bool[Q, n]
    goal: np.ndarray  # int8[Q, 2]: side_min, other_max (goal problems)
    window: np.ndarray  # int8[Q, 2]: lo, hi: the value is resolved only within [lo, hi]
    root: np.ndarray  # uint32[Q, 5]: the moves allowed at the root (suit words, joker word)
    group: np.ndarray  # int32[Q]: problems of one group share a lane's table, one after another
    move_of: np.ndarray  # int16[Q, NUM_CODES]: the action id of each move code (-1); host only

    def __len__(self) -> int:
        return len(self.hands)

    def take(self, idx: np.ndarray) -> Problems:
        """The problems `idx`, in that order."""
        return Problems(**{f.name: getattr(self, f.name)[idx] for f in dataclasses.fields(self)})


def encode(positions: list[Position], goals: list[tuple[int, int] | None] | None = None,
           root_moves: list[tuple[int, ...] | None] | None = None,
           windows: list[tuple[int, int] | None] | None = None,
           groups: list[Hashable | None] | None = None) -> Problems:
    """Problems for `positions`: exact value problems, or goal problems where `goals[i]` is
    set; `root_moves[i]` (or the position's own) limits the moves tried at the root;
    `windows[i]` limits the targets a value problem searches (`Searcher.run`). Problems
    with equal `groups[i]` (not None) are solved one after another in one lane, on its
    table: say so for positions of one deal and trump (other leaders or sides), whose
    searches meet the same positions (DDS's table reuse across leaders). A group's problems
    must be value problems with no root limit, the same trump, and sides that agree (the
    same seats, or all the others)."""
    rules = positions[0].rules
    rules.check_limits()
    q, n = len(positions), rules.n
    hands = np.zeros((q, n, 4), np.uint16)
    points = np.zeros((q, 4), np.uint16)
    trick = np.zeros((q, max(n - 1, 1)), np.int8)
    scalars = np.zeros((q, len(SCALARS)), np.int8)
    side = np.zeros((q, n), bool)
    goal = np.zeros((q, 2), np.int8)
    window = np.tile(np.array(FULL_WINDOW, np.int8), (q, 1))
    root = np.zeros((q, 5), np.uint32)
    move_of = np.full((q, NUM_CODES), -1, np.int16)
    group = group_ids(positions, goals, root_moves, groups)
    for i, pos in enumerate(positions):
        if pos.rules != rules:
            raise ValueError("one batch of problems must share its rules")
        live = [c for h in pos.hands for c in h] + list(pos.trick)
        code = {JK: JK_CODE}
        for s in range(4):
            for k, c in enumerate(sorted((c for c in live if c != JK and rules.suit[c] == s),
                                         key=rules.rank.__getitem__)):
                code[c] = 16 * s + k
                move_of[i, 16 * s + k] = c
                points[i, s] |= (rules.points[c] > 0) << k
        if rules.joker:
            move_of[i, JK_CODE] = JK
            move_of[i, LEAD_CODE:LEAD_CODE + 4] = LEAD_JK + SUITS
        jk = -1
        for s, hand in enumerate(pos.hands):
            for c in hand:
                if c == JK:
                    jk = s
                else:
                    hands[i, s, code[c] >> 4] |= 1 << (code[c] & 15)
        trick[i, :len(pos.trick)] = [code[c] for c in pos.trick]
        g = goals[i] if goals else None
        total = (pos.taken + pos.taken_other + sum(rules.points[c] for c in live)
                 + rules.trick_value * (rules.n_tricks - pos.tricks_done))
        scalars[i] = (pos.leader, pos.led, len(pos.trick), pos.trump, pos.taken,
                      pos.taken_other, pos.tricks_done, g is not None, jk, total)
        side[i] = pos.side
        goal[i] = g if g is not None else (0, 0)
        if windows and windows[i] is not None:
            window[i] = windows[i]
        moves = root_moves[i] if root_moves and root_moves[i] is not None else pos.root_moves
        allowed = [k for k in CODES
                   if move_of[i, k] >= 0 and (moves is None or move_of[i, k] in moves)]
        for k in allowed:
            word, bit = word_bit(k)
            root[i, word] |= 1 << bit
    return Problems(hands, points, trick, scalars, side, goal, window, root, group, move_of)


def group_ids(positions: list[Position], goals, root_moves,
              groups: list[Hashable | None] | None) -> np.ndarray:
    """int32[Q]: a group id per problem (`encode`'s `groups`; a problem with none has one of
    its own), checked: a group's problems may share table entries."""
    ids: dict[Hashable, int] = {}
    first: dict[int, int] = {}  # group id -> its first problem
    fresh = itertools.count()
    out = np.zeros(len(positions), np.int32)
    for i, pos in enumerate(positions):
        label = groups[i] if groups else None
        if label is None:
            out[i] = next(fresh)
            continue
        if label not in ids:
            ids[label] = next(fresh)
        out[i] = ids[label]
        if (goals and goals[i] is not None) or pos.root_moves is not None or (
                root_moves and root_moves[i] is not None):
            raise ValueError(f"problem {i}: only value problems with no root limit can "
                             f"share a table (group {label!r})")
        j = first.setdefault(int(out[i]), i)
        other = positions[j]
        if pos.trump != other.trump or pos.side not in (
                other.side, tuple(not s for s in other.side)):
            raise ValueError(f"problems {j} and {i} of group {label!r}: a group's problems "
                             "need the same trump and sides that agree")
    return out


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Batch:
    """The problems a search reads (leading axis: problem, Q of them, padded), with the work
    queue's view of their groups (a group's problems come one after another).

    hands, points, trick, scalars, side, goal, window, root, group: as in `Problems`.
    gidx: int32[Q], each problem's group index (0, 1, ... in order; Q for padding).
    start, end: int32[Q + 1], each group's first problem and one past its last (Q: none).
    """

    hands: Array
    points: Array
    trick: Array
    scalars: Array
    side: Array
    goal: Array
    window: Array
    root: Array
    group: Array
    gidx: Array
    start: Array
    end: Array

    @property
    def size(self) -> int:
        """Q, the batch's (padded) number of problems."""
        return self.hands.shape[0]

    @staticmethod
    def of(p: Batch | Mapping[str, Array]) -> Batch:
        """`p` as a batch; a mapping of `Problems`' arrays without groups (as
        `solvers.pimc` builds) gets a group of its own per problem."""
        if isinstance(p, Batch):
            return p
        q = p["hands"].shape[0]
        return Batch(**{"group": jnp.arange(q, dtype=jnp.int32),
                        "gidx": jnp.arange(q, dtype=jnp.int32),
                        "start": jnp.arange(q + 1, dtype=jnp.int32),
                        "end": jnp.minimum(jnp.arange(q + 1, dtype=jnp.int32) + 1, q)} | dict(p))


def padded(problems: Problems) -> Batch:
    """The problems (numpy, for the device) padded to a power of two, at least 256 (one
    compile per size class), with the groups for the queue (`Batch`; a group's problems must
    come one after another)."""
    q = len(problems)
    size = max(256, 1 << max(q - 1, 0).bit_length())
    out = {f.name: np.concatenate([a := getattr(problems, f.name),
                                   np.repeat(a[:1], size - q, axis=0)])
           for f in dataclasses.fields(problems) if f.name != "move_of"}
    first = np.concatenate([[True], problems.group[1:] != problems.group[:-1]])[:q]
    starts = np.flatnonzero(first)
    out["gidx"] = np.full(size, size, np.int32)
    out["gidx"][:q] = np.cumsum(first) - 1
    out["start"], out["end"] = np.full((2, size + 1), size, np.int32)
    out["start"][:len(starts)] = starts
    out["end"][:len(starts)] = np.concatenate([starts[1:], [q]])
    return Batch(**out)
