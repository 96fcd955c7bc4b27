"""The node machine: one step of one lane's depth-first search (vmapped over the lanes).

A step first settles the node at depth d (phase A): just entered (`ENTER`: goal tests, table
probe, sure tricks) or decided by its children (`DECIDED`: its bounds stored); a decided node
gives its result back to its parent (`pop`). Then (phase B) at the node it is at now: the
child's result in (`child_in`), and unless that decides the node, its next move tried
(`next_move`, `push`). So a node decided on entry takes one step, not two. After a search of
the root ends, `drive` narrows the value's window or finishes the problem.

An OR node (the side to move) succeeds on its first succeeding child, an AND node fails on
its first failing child; results are fail-soft (a yes comes with a lower bound on the side's
final total, a no with an upper bound) and carry the ranks they depend on (partition
search, `table`).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from kanjax.core import trick as trick_kernel
from kanjax.core.jaxutil import Array, tree_where
from solvers.search import bounds, ordering, play, table
from solvers.search.lane import DECIDED, ENTER, Config, Lane, Play, Stack
from solvers.search.words import SUITS, closure, slot, words_of


class Entered(NamedTuple):
    """Phase A on entry: whether the node is decided (`yes`, `no`), its fail-soft `bound`
    and the ranks `rel` (uint32[4]) that result depends on; else the `moves` to try."""

    yes: Array
    no: Array
    bound: Array
    rel: Array
    moves: Array


class Back(NamedTuple):
    """What `pop` read of the parent's rows: the move taken back, its `Play` snapshot, and
    the frame of its trick (`push` writes them back unchanged where it writes nothing, so
    XLA updates the stacks in place)."""

    undo: Array
    snap: Array
    frame_hands: Array
    frame_points: Array


class Resumed(NamedTuple):
    """Phase B, the child's result taken in: the node's moves still to try (`cand`), the
    ranks its tried children depended on (`racc`), its cards tried; whether the child cut
    it off, whether it is decided (`done`), and then its result, its `acc`umulated bound,
    its bound and ranks."""

    cand: Array
    racc: Array
    tried: Array
    cut: Array
    done: Array
    result: Array
    acc: Array
    bound: Array
    rel: Array


def step(cfg: Config, x: Lane, stack: Stack, tt: Array) -> tuple[Lane, Stack, Array]:
    """One step of one lane (see the module docstring)."""
    entering = x.mode == ENTER
    leading = x.play.leading
    at_root = x.d == x.root
    left = x.total - x.play.sp - x.play.op
    pr = table.probe(cfg, x, tt, left)
    node = enter(cfg, x, stack, pr, left)
    # this node's result: decided on entry, or by its children (phase B of a step before)
    decided = ~entering | node.yes | node.no
    result = jnp.where(entering, node.yes, x.child)
    bound = jnp.where(entering, node.bound, x.bound)
    rel = jnp.where(entering, node.rel, x.rel)
    tt = table.store(cfg, tt, pr, x, ~entering & leading, result, bound, rel, left)
    pop = decided & ~at_root
    y, back = pop_node(cfg, x, stack, pop, result, bound, rel)
    y = y.replace(nodes=x.nodes + (entering & ~x.finished),
                  trick_nodes=x.trick_nodes + (entering & leading & ~x.finished))
    r = child_in(cfg, y, stack, node.moves, pop)
    move = next_move(cfg, y, stack, r.cand, pr, pop)
    y, stack = push(cfg, y, stack, r, move, (pop | entering & ~decided) & ~r.done, back)
    return drive(y, decided & at_root, result, bound), stack, tt


def enter(cfg: Config, x: Lane, stack: Stack, pr: table.Probe, left: Array) -> Entered:
    """Phase A on entry. Decided by the first that decides of: the goal met or out of reach
    (no rank matters), the table (its entry's ranks), sure tricks (their cards); `left`:
    the points still to take."""
    pl = x.play
    to_move = pl.to_move(cfg.n)
    h = x.hands[to_move]
    reached = (pl.sp >= x.side_min) & (pl.op <= x.other_max)
    failed = (pl.op > x.other_max) | (pl.sp + left < x.side_min)
    need = x.need()
    t_yes, t_no, t_bound, t_rel = table.answer(pr, need, left)
    legal = play.legal(cfg.rules, h, x.jk == to_move, pl.leading, pl.trick.led, pl.done)
    at_root = x.d == x.root
    trivial = reached | failed
    by_table = (t_yes | t_no) & ~trivial
    q_yes = q_no = jnp.bool_(False)
    sure, lost, q_rel = jnp.int32(0), left, jnp.zeros(4, jnp.uint32)
    if cfg.quick:
        q_yes, q_no, sure, lost, q_rel = sure_tricks(cfg, x, stack, legal, left)
    yes = reached | t_yes | q_yes & ~failed
    no = failed | t_no | q_no
    bound = pl.sp + jnp.where(trivial, jnp.where(reached, 0, left),
                              jnp.where(by_table, t_bound, jnp.where(q_yes, sure, lost)))
    bound = jnp.where(x.is_goal, pl.sp + jnp.where(yes, need, need - 1), bound)
    rel = jnp.where(trivial, jnp.uint32(0), jnp.where(by_table, t_rel, q_rel))
    moves = jnp.where(at_root, legal & x.root_mask, play.equivalent(legal, h, x.points))
    return Entered(yes, no, bound, rel, moves)


def sure_tricks(cfg: Config, x: Lane, stack: Stack, legal: Array,
                left: Array) -> tuple[Array, Array, Array, Array, Array]:
    """(yes, no, sure, lost, rel): whether sure tricks decide the node, bounds on the
    side's future points, and the cards they rest on (uint32[4]). At a trick's start and
    at its second hand (not at a root limited to some of its moves): the sure tricks of the
    side of the player to move; at a trick's start, a side's master trumps (a yes from them
    only for value problems: the goal may need the other side still low when it is
    reached)."""
    pl, hands, side = x.play, x.hands, x.side
    to_move = pl.to_move(cfg.n)
    free = ~((x.d == x.root) & jnp.any((legal & ~x.root_mask) != 0))
    static, second = pl.leading & free, (pl.trick.count == 1) & free
    qt, q_cards = bounds.quick_tricks(hands, pl.leader, x.trump, side)
    led_card = stack.mv[jnp.maximum(x.d - 1, 0)].astype(jnp.int32)
    q2, q2_cards = bounds.second_hand(hands, to_move, led_card, x.trump, side)
    qt = jnp.where(static, qt, jnp.where(second, q2, 0))
    q_cards = jnp.where(static, q_cards, q2_cards)
    ours = side[to_move]
    holder, tops, t_cards = bounds.top_trumps(hands, x.trump, side)
    tops = jnp.where(static, tops, 0)
    mine = side[holder]
    yes = (ours & (pl.sp + qt >= x.side_min)
           | mine & ~x.is_goal & (pl.sp + tops >= x.side_min))
    no = ~ours & (pl.op + qt > x.other_max) | ~mine & (pl.sp + left - tops < x.side_min)
    # decided by the sure tricks, else by the top trumps: their count, their cards
    by_qt = jnp.where(ours, pl.sp + qt >= x.side_min, pl.op + qt > x.other_max)
    sure = jnp.where(by_qt, qt, tops)
    rel = jnp.where(static | second, jnp.where(by_qt, q_cards, t_cards), jnp.uint32(0))
    return yes, no, sure, left - sure, rel


def pop_node(cfg: Config, x: Lane, stack: Stack, pop: Array, result: Array, bound: Array,
             rel: Array) -> tuple[Lane, Back]:
    """Where `pop`: back to the parent with the node's `result`, `bound` and ranks `rel`
    (across a trick's end, in the ranks before it, with the trick's winner if it won by
    rank, and every rank above those). The node's result goes to `child` either way."""
    n, d = cfg.n, x.d
    pd = jnp.maximum(d - 1, 0)
    snap = stack.snap[pd].astype(jnp.int32)
    popped = Play.of_snapshot(snap)
    undo = stack.mv[pd].astype(jnp.int32)
    undo_word, undo_bit = slot(undo)
    mover = popped.to_move(n)
    closed = popped.trick.count == n - 1  # the move undone ended a trick
    frame_h = stack.frame_hands[popped.done]
    frame_p = stack.frame_points[popped.done]
    hands = jnp.where(closed, frame_h.astype(jnp.uint32), x.hands)
    hands = hands.at[mover, undo_word & 3].set(
        hands[mover, undo_word & 3] | jnp.where(undo_word < 4, 1 << undo_bit, 0))
    points = jnp.where(closed, frame_p.astype(jnp.uint32), x.points)
    jk = jnp.where(undo_word == 4, mover, x.jk)
    last = jax.lax.dynamic_slice(stack.mv, (jnp.maximum(pd - (n - 1), 0),), (n,))
    last = last.astype(jnp.int32)
    leader = x.play.leader
    across = closure(play.unsqueeze(rel, last) | play.by_rank(
        last, (leader - popped.leader) % n, frame_h[leader].astype(jnp.uint32)))
    y = x.replace(play=tree_where(pop, popped, x.play),
                  hands=jnp.where(pop, hands, x.hands), points=jnp.where(pop, points, x.points),
                  jk=jnp.where(pop, jk, x.jk), d=jnp.where(pop, d - 1, d), child=result,
                  bound=bound, rel=jnp.where(closed & pop, across, rel))
    return y, Back(undo, snap, frame_h, frame_p)


def child_in(cfg: Config, y: Lane, stack: Stack, moves: Array, resumed: Array) -> Resumed:
    """Phase B at the node now at depth e: the child's result in if it came back
    (`resumed`), else the node's `moves` (from phase A)."""
    e = y.d
    is_or = y.side[y.play.to_move(cfg.n)]
    # the ranks the result depends on: a cut-off child's, or those of every child tried
    # (`racc`, per depth)
    racc = jnp.where(resumed, stack.racc[e].astype(jnp.uint32) | y.rel, jnp.uint32(0))
    cand = jnp.where(resumed, stack.cand[e].astype(jnp.uint32), moves)
    # once a card below every rank that mattered so far (in its suit) has been tried,
    # the other such cards of the suit are the same move (as in DDS's move generator)
    tried = jnp.where(resumed, stack.tried[e].astype(jnp.uint32), jnp.uint32(0))
    relevant = racc | y.points
    below = jnp.where(relevant == 0, jnp.uint32(0xFFFF),  # the ranks under the lowest
                      (relevant & (~relevant + jnp.uint32(1))) - jnp.uint32(1))
    cand = cand.at[:4].set(jnp.where((tried & below) != 0, cand[:4] & ~below, cand[:4]))
    cut = resumed & (y.child == is_or)
    done = resumed & (cut | ~jnp.any(cand != 0))
    result = jnp.where(cut, y.child, ~is_or)
    # the bound: an OR node that fails has the max of its children's upper bounds, an AND
    # node that succeeds the min of their lower bounds (`acc`, per depth)
    acc = jnp.where(is_or, -128, 127)
    acc = jnp.where(resumed, jnp.where(is_or, jnp.maximum(stack.acc[e], y.bound),
                                       jnp.minimum(stack.acc[e], y.bound)), acc)
    need = y.need()
    bound = jnp.where(y.is_goal, y.play.sp + jnp.where(result, need, need - 1),
                      jnp.where(cut, y.bound, acc))
    rel = jnp.where(cut, y.rel, racc)
    return Resumed(cand, racc, tried, cut, done, result, acc, bound, rel)


def next_move(cfg: Config, y: Lane, stack: Stack, cand: Array, pr: table.Probe,
              resumed: Array) -> Array:
    """The move to try next of `cand`: first the table's best move (on entry; tried first,
    it is not a candidate later), at a lead the killer (the last move that cut off a search
    at this depth) if it is a candidate, else move ordering's choice."""
    n, pl, hands = cfg.n, y.play, y.hands
    to_move = pl.to_move(n)
    is_or = y.side[to_move]
    partner_wins = (y.side[pl.trick.winner] == is_or) & ~pl.leading
    mates = y.side == is_or
    plain = (*ordering.plain_leads(hands, to_move, y.trump),
             *ordering.plain_follow(hands, to_move, pl.trick, y.trump, y.side, cand)
             ) if cfg.quick else None
    move = ordering.choose(cfg.rules, cand, pl.trick, y.trump, pl.done, partner_wins,
                           y.points, words_of(hands, mates & (jnp.arange(n) != to_move)),
                           words_of(hands, ~mates), plain)
    hint = table.best_move(pr)
    hint_word, hint_bit = slot(jnp.maximum(hint, 0))
    use_hint = ~resumed & (hint >= 0) & (((cand[hint_word] >> hint_bit) & 1) != 0)
    killer = stack.killer[y.d].astype(jnp.int32)
    k_word, k_bit = slot(jnp.maximum(killer, 0))
    use_killer = pl.leading & (killer >= 0) & (((cand[k_word] >> k_bit) & 1) != 0)
    return jnp.where(use_hint, hint, jnp.where(use_killer, killer, move))


def push(cfg: Config, y: Lane, stack: Stack, r: Resumed, move: Array, go_on: Array,
         back: Back) -> tuple[Lane, Stack]:
    """Where `go_on`: `move` made (the trick kernel's update; a completed trick scored and
    its cards squeezed out of the words), its node entered next step; else the node's
    result (`r`, if decided) kept for its parent. The node's rows are written either way."""
    n, e, pl, hands, points = cfg.n, y.d, y.play, y.hands, y.points
    to_move = pl.to_move(n)
    word, bit = slot(move)
    card = word < 4
    suit = play.suit_of(move)
    s = play.strength(cfg.rules, move, trick_kernel.led_after(pl.trick, suit), y.trump,
                      pl.done)
    gain = jnp.where(card, (points[word & 3] >> bit) & 1, 0).astype(jnp.int32)
    trick, complete = trick_kernel.add_play(pl.trick, to_move, suit, s, gain, n)
    won = y.side[trick.winner]
    value = trick.points + cfg.rules.trick_value
    pushed = Play(leader=jnp.where(complete, trick.winner, pl.leader), trick=trick,
                  sp=pl.sp + jnp.where(complete & won, value, 0),
                  op=pl.op + jnp.where(complete & ~won, value, 0), done=pl.done + complete)
    played = hands.at[to_move, word & 3].set(hands[to_move, word & 3]
                                             & ~jnp.where(card, 1 << bit, 0))
    codes = jnp.concatenate([jax.lax.dynamic_slice(
        stack.mv, (jnp.maximum(e - (n - 1), 0),), (n - 1,)).astype(jnp.int32), move[None]])
    squeezed = play.squeeze(jnp.concatenate([played, points[None]]), codes)
    # Rows at depth e (and the frame of trick `done`) are dead unless we go on, so they are
    # written unconditionally. `never` (e < 0 is) ties each write to this step's reads of
    # the same array, so XLA updates it in place instead of copying it every step.
    never = e < 0
    cut_move = back.undo  # resumed: e is d - 1, whose move led to the child
    cand = r.cand
    stack = Stack(
        cand=stack.cand.at[e].set(
            cand.at[word].set(cand[word] & ~(jnp.uint32(1) << bit)).astype(jnp.uint16)),
        mv=stack.mv.at[e].set(jnp.where(never, back.undo + codes[0], move).astype(jnp.int8)),
        snap=stack.snap.at[e].set(jnp.where(never, back.snap, pl.snapshot()).astype(jnp.int8)),
        acc=stack.acc.at[e].set(r.acc.astype(jnp.int8)),
        racc=stack.racc.at[e].set(r.racc.astype(jnp.uint16)),
        tried=stack.tried.at[e].set(jnp.where(
            (SUITS == (word & 3)) & card, r.tried | (jnp.uint32(1) << bit), r.tried).astype(
                jnp.uint16)),
        killer=stack.killer.at[e].set(jnp.where(
            r.cut, cut_move, stack.killer[e]).astype(jnp.int8)),
        frame_hands=stack.frame_hands.at[pl.done].set(
            jnp.where(never, back.frame_hands, played).astype(jnp.uint16)),
        frame_points=stack.frame_points.at[pl.done].set(
            jnp.where(never, back.frame_points, points).astype(jnp.uint16)),
    )
    y = y.replace(
        play=tree_where(go_on, pushed, pl),
        hands=jnp.where(go_on, jnp.where(complete, squeezed[:n], played), hands),
        points=jnp.where(go_on & complete, squeezed[n], points),
        jk=jnp.where(go_on & ~card, -1, y.jk),
        d=jnp.where(go_on, e + 1, e),
        mode=jnp.where(go_on, ENTER, jnp.where(r.done, DECIDED, y.mode)),
        child=jnp.where(r.done, r.result, y.child),
        bound=jnp.where(r.done, r.bound, y.bound),
        rel=jnp.where(r.done, r.rel, y.rel),
        cut=jnp.where(r.cut, cut_move, -1),
    )
    return y, stack


def drive(x: Lane, search_done: Array, result: Array, bound: Array) -> Lane:
    """After a search of the root ends (`search_done`, with its `result` and `bound`):
    narrow the value's window (to the search's bound), or finish the problem."""
    lo = jnp.where(search_done & result, jnp.maximum(x.lo, bound), x.lo)
    hi = jnp.where(search_done & ~result, jnp.minimum(x.hi, bound), x.hi)
    finished = search_done & (x.is_goal | (lo >= hi)) | x.finished
    t = (lo + hi + 1) // 2
    again = search_done & ~finished
    return x.replace(
        lo=lo, hi=hi, finished=finished,
        result=jnp.where(search_done & ~x.finished,
                         jnp.where(x.is_goal, result, jnp.where(
                             x.target >= 0, hi >= x.target, hi)), x.result),
        side_min=jnp.where(again, t, x.side_min),
        other_max=jnp.where(again, x.total - t, x.other_max),
        mode=jnp.where(search_done, ENTER, x.mode),
    )
