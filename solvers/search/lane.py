"""A lane's state: what one search of the batch holds between steps (`Lane`, the node it is at
and its problem; `Stack`, per depth and per trick), and the static facts of a search
(`Config`). Both states are pytrees; a batch of lanes adds a leading axis to every field.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from kanjax.core import trick as trick_kernel
from kanjax.core.jaxutil import Array, tree_where
from solvers.position import Rules
from solvers.search import play
from solvers.search.problems import SCALARS, Batch
from solvers.search.words import slot

ENTER, DECIDED = 0, 1  # a lane's mode at the start of a step (`node.step`)


@dataclasses.dataclass(frozen=True)
class Config:
    """The static facts of a search: the rules, `lanes` searches side by side, `tt_size`
    entries a lane's table in buckets of `ways`, `refill_every` steps between refills."""

    rules: Rules
    lanes: int
    tt_size: int
    ways: int
    refill_every: int

    @property
    def n(self) -> int:
        return self.rules.n

    @property
    def nt(self) -> int:
        return self.rules.n_tricks

    @property
    def depth(self) -> int:
        """Rows of the per-depth stacks: a row a move of the deal, and the last node's."""
        return self.rules.n * self.rules.n_tricks + 1

    @property
    def quick(self) -> bool:
        """Plain tricks at four seats (bridge's card play): sure tricks bound the value, and
        DDS's move ordering."""
        return self.rules.plain_tricks and self.rules.n == 4


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Play:
    """The play's bookkeeping at a node (int32): what a move changes besides the cards, and
    what the stack saves per depth (`snapshot`) so that taking the move back restores it.

    leader: the current trick's leader. trick: the current trick (`kanjax.core.trick.Trick`: its
    led suit, best strength, the seat that made it, the points in it and the plays made;
    after a trick's end the finished trick, count 0). sp, op: the points (plain tricks: tricks) the
    side and the other side have taken. done: the tricks completed.
    """

    leader: Array
    trick: trick_kernel.Trick
    sp: Array
    op: Array
    done: Array

    @property
    def leading(self) -> Array:
        """bool: the player to move leads."""
        return self.trick.count == 0

    def to_move(self, n: int) -> Array:
        return (self.leader + self.trick.count) % n

    def snapshot(self) -> Array:
        """int32[SNAP]: leader, led, plays made, best strength, its seat, trick points, sp, op,
        tricks done."""
        t = self.trick
        return jnp.stack([self.leader, t.led, t.count, t.best, t.winner, t.points, self.sp,
                          self.op, self.done])

    @staticmethod
    def of_snapshot(row: Array) -> Play:
        """`snapshot` undone."""
        leader, led, count, best, winner, points, sp, op, done = (row[i] for i in range(SNAP))
        return Play(leader, trick_kernel.Trick(led=led, best=best, winner=winner, points=points,
                                               count=count), sp, op, done)


SNAP = 9  # the int8 words of a `Play.snapshot`


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Lane:
    """One lane's search (int32 scalars unless said otherwise).

    The problem (fixed while the lane works on it):
      pid: its index in the batch (Q: none, an idle lane). gid: its group (`Problems.group`,
      part of the table key). trump: the trump suit (-1: none). side: bool[n], the seats of
      the side to optimise (they move at OR nodes). root_mask: uint32[5], the moves allowed
      at the root (a move set). is_goal: bool, a goal search (else the value's search over
      targets). target: a threshold goal's T (the result is value >= T), else -1. total: the
      points (tricks) of the whole deal, taken and to come. root: the root's depth (the
      cards of its trick already played).
    The value's search:
      lo, hi: the value's bounds so far. side_min, other_max: the goal searched now.
    The node at depth d:
      hands: uint32[n, 4], each seat's suit words (relative ranks). points: uint32[4], the
      point cards among the live cards. jk: the joker's holder (-1: none, or played).
      play: the play's bookkeeping (`Play`).
    The machine:
      d: the node's depth (a row of the stacks). mode: ENTER or DECIDED at the start of a
      step. child: bool, the result of the node last decided, for its parent. bound: its
      fail-soft bound on the side's final total. rel: uint32[4], the ranks its result
      depends on. cut: the move that cut the node off (-1: none). nodes, trick_nodes: nodes
      entered, those at a trick's start. finished: bool, the problem is done (solved, given
      up, or none). result: the problem's value (goal: 0 or 1; given up: -1).
    """

    pid: Array
    gid: Array
    trump: Array
    side: Array
    root_mask: Array
    is_goal: Array
    target: Array
    total: Array
    root: Array
    lo: Array
    hi: Array
    side_min: Array
    other_max: Array
    hands: Array
    points: Array
    jk: Array
    play: Play
    d: Array
    mode: Array
    child: Array
    bound: Array
    rel: Array
    cut: Array
    nodes: Array
    trick_nodes: Array
    finished: Array
    result: Array

    def replace(self, **changes) -> Lane:
        return dataclasses.replace(self, **changes)

    def need(self) -> Array:
        """What the side still needs from the future points: its target less what it has
        (goal searches: 1, a fail-soft bound of taken + 1 for a yes, taken for a no)."""
        return jnp.where(self.is_goal, 1, self.side_min - self.play.sp)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Stack:
    """A lane's stacks. Per depth (D = `Config.depth` rows), what a node keeps between its
    children: cand uint16[D, 5], the moves still to try (a move set); mv int8[D], the move
    made (rows 0..n-2 start as the root trick's cards); snap int8[D, SNAP], the `Play` the
    move replaced; acc int8[D], the bound over the children tried; racc uint16[D, 4], the
    ranks their results depended on; tried uint16[D, 4], the cards tried; killer int8[D], the
    last move that cut off a search at that depth (-1: none). Per trick done (n_tricks + 1
    frames), the words before its cards were squeezed out (so a trick is taken back by one
    copy): frame_hands uint16[T, n, 4], frame_points uint16[T, 4]."""

    cand: Array
    mv: Array
    snap: Array
    acc: Array
    racc: Array
    tried: Array
    killer: Array
    frame_hands: Array
    frame_points: Array

    def replace(self, **changes) -> Stack:
        return dataclasses.replace(self, **changes)


def new_stacks(cfg: Config, trick: Array) -> Stack:
    """The stacks of `cfg.lanes` lanes starting on problems whose current tricks are `trick`
    (int8[lanes, n - 1])."""
    b, d, n = cfg.lanes, cfg.depth, cfg.n
    return Stack(cand=jnp.zeros((b, d, 5), jnp.uint16),
                 mv=jnp.zeros((b, d), jnp.int8).at[:, :n - 1].set(trick),
                 snap=jnp.zeros((b, d, SNAP), jnp.int8),
                 acc=jnp.zeros((b, d), jnp.int8),
                 racc=jnp.zeros((b, d, 4), jnp.uint16),
                 tried=jnp.zeros((b, d, 4), jnp.uint16),
                 killer=jnp.full((b, d), -1, jnp.int8),
                 frame_hands=jnp.zeros((b, cfg.nt + 1, n, 4), jnp.uint16),
                 frame_points=jnp.zeros((b, cfg.nt + 1, 4), jnp.uint16))


def load(cfg: Config, p: Batch, pid: Array) -> Lane:
    """A lane at the root of problem `pid` of the batch `p`, its first target chosen."""
    n = cfg.n
    sc = {k: p.scalars[pid, i].astype(jnp.int32) for i, k in enumerate(SCALARS)}
    leader, led, nplayed, trump, done = (sc[k] for k in ("leader", "led", "nplayed",
                                                         "trump", "done"))
    pts = p.points[pid].astype(jnp.uint32)
    codes = p.trick[pid].astype(jnp.int32)
    trick = trick_kernel.new_trick(leader)
    for k in range(n - 1):  # the root's unfinished trick, its led suit as given
        code = codes[k]
        s = play.strength(cfg.rules, code, trick_kernel.led_after(trick, led), trump, done)
        word, bit = slot(code)
        gain = jnp.where(word < 4, (pts[word & 3] >> bit) & 1, 0).astype(jnp.int32)
        after, _ = trick_kernel.add_play(trick, (leader + k) % n, led, s, gain, n)
        trick = tree_where(k < nplayed, after, trick)
    sp, op, total = sc["sp"], sc["op"], sc["total"]
    goal, window = p.goal[pid].astype(jnp.int32), p.window[pid].astype(jnp.int32)
    # a goal that limits the other side no more than the side's own total does is a
    # threshold, value >= T: a value problem in the window [T - 1, T] (its table bounds
    # hold for every target, not only for these points taken)
    threshold = (sc["is_goal"] > 0) & (goal[0] + goal[1] >= total)
    is_goal = (sc["is_goal"] > 0) & ~threshold
    lo = jnp.maximum(sp, jnp.where(threshold, goal[0] - 1, window[0]))  # value bounds
    hi = jnp.minimum(total - op, jnp.where(threshold, goal[0], window[1]))
    t = (lo + hi + 1) // 2
    return Lane(
        pid=pid, gid=p.group[pid], trump=trump, side=p.side[pid], root_mask=p.root[pid],
        is_goal=is_goal, target=jnp.where(threshold, goal[0], -1), total=total, root=nplayed,
        lo=lo, hi=hi, side_min=jnp.where(is_goal, goal[0], t),
        other_max=jnp.where(is_goal, goal[1], total - t),
        hands=p.hands[pid].astype(jnp.uint32), points=pts, jk=sc["jk"],
        play=Play(leader=leader, trick=trick, sp=sp, op=op, done=done),
        d=nplayed, mode=jnp.int32(ENTER), child=jnp.bool_(False), bound=jnp.int32(0),
        rel=jnp.zeros(4, jnp.uint32), cut=jnp.int32(-1), nodes=jnp.int32(0),
        trick_nodes=jnp.int32(0), finished=jnp.bool_(False), result=jnp.int32(0),
    )
