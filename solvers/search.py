"""Batched double-dummy search in JAX: many positions solved at once, on any XLA device.

Each lane of the batch runs a depth-first boolean search: "can the side reach its goal?"
(`solvers.position`: a goal is `(side_min, other_max)`; `value >= T` is `(T, total - T)`).
The search is an explicit machine inside `lax.while_loop`, one node step per iteration:

- the position is one int8 array `lvl[card]`: the depth at which the card was played in this
  search (`FREE` while held, -1 if gone before the root), so playing or taking back a card is
  one write, and "in a hand", "in the current trick" and "gone" are compares with the depth;
- fixed-depth stacks hold, per depth, the moves still to try (`cand`), the move made and the
  trick bookkeeping it replaced (`snap`);
- an OR node (the side to move) succeeds on its first succeeding child, an AND node fails on
  its first failing child; the goal is tested when a trick ends (points only change then);
- rank equivalence: of cards one hand holds that are adjacent in a suit once the cards of
  completed tricks are removed, and worth the same points, only one is tried;
- move ordering without sorting: each step takes the argmax of a cheap score (lead high; win
  as cheaply as possible; play low, or give points, when partner wins);
- a per-lane transposition table, probed and stored at trick boundaries, keyed by a 64-bit
  Zobrist hash of who holds what and who leads, stores bounds on the side's *future* points
  (so they stay valid for every target); a goal search keys on the points taken too;
- exact values: a binary search over the target T, on the same table;
- a work queue: lanes that finish a problem take the next one (every `refill_every` steps),
  so one slow position does not hold up the batch.

The rules kernel (legal moves, trick winner, points) is the environments': `kanjax.trick`,
`kanjax.envs.kan.gonin_card_moves`, `kanjax.envs.yonin.yonin_joker_ok` / `yonin_trick_strength`.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from kanjax import trick as trick_kernel
from kanjax.api import Array
from kanjax.envs.kan import gonin_card_moves
from kanjax.envs.yonin import yonin_joker_ok, yonin_trick_strength
from solvers.position import JK, LEAD_JK, Position, Rules

FREE = 127  # lvl of a card still in a hand
ENTER, RESUME = 0, 1
# trick bookkeeping saved per depth: leader, led, nplayed, best strength, best seat, trick
# points, side total, other total, tricks done
SNAP = ("leader", "led", "nplayed", "best_s", "best_p", "tpts", "sp", "op", "done")


@dataclasses.dataclass(frozen=True)
class Problems:
    """A batch of encoded search problems (numpy, leading axis = problem)."""

    owner: np.ndarray  # int8[Q, C]: seat that holds or played the card; -1 gone
    lvl: np.ndarray  # int8[Q, C]: FREE held, i = i-th card of the current trick, -1 gone
    trick: np.ndarray  # int8[Q, n]: the current trick's cards in order (-1)
    scalars: np.ndarray  # int8[Q, 8]: leader, led, nplayed, trump, sp, op, done, goal
    side: np.ndarray  # bool[Q, n]
    goal: np.ndarray  # int8[Q, 2]: side_min, other_max (goal problems)
    root_mask: np.ndarray  # bool[Q, M]

    def __len__(self) -> int:
        return len(self.owner)


def encode(positions: list[Position], goals: list[tuple[int, int] | None] | None = None,
           root_moves: list[tuple[int, ...] | None] | None = None) -> Problems:
    """Problems for `positions`: exact value problems, or goal problems where `goals[i]` is
    set; `root_moves[i]` (or the position's own) limits the moves tried at the root."""
    rules = positions[0].rules
    q, c, n, m = len(positions), rules.num_ids, rules.n, rules.num_moves
    owner = np.full((q, c), -1, np.int8)
    lvl = np.full((q, c), -1, np.int8)
    trick = np.full((q, n), -1, np.int8)
    scalars = np.zeros((q, 8), np.int8)
    side = np.zeros((q, n), bool)
    goal = np.zeros((q, 2), np.int8)
    mask = np.ones((q, m), bool)
    for i, pos in enumerate(positions):
        if pos.rules != rules:
            raise ValueError("one batch of problems must share its rules")
        for s, hand in enumerate(pos.hands):
            owner[i, list(hand)] = s
            lvl[i, list(hand)] = FREE
        for k, card in enumerate(pos.trick):
            owner[i, card] = (pos.leader + k) % n
            lvl[i, card] = k
            trick[i, k] = card
        g = goals[i] if goals else None
        scalars[i] = (pos.leader, pos.led, len(pos.trick), pos.trump, pos.taken,
                      pos.taken_other, pos.tricks_done, g is not None)
        side[i] = pos.side
        goal[i] = g if g is not None else (0, 0)
        moves = root_moves[i] if root_moves and root_moves[i] is not None else pos.root_moves
        if moves is not None:
            mask[i] = np.isin(np.arange(m), moves)
    return Problems(owner, lvl, trick, scalars, side, goal, mask)


def _zobrist(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, 2**32, shape, dtype=np.uint32)


class Searcher:
    """The compiled batched search for one game's rules.

    `lanes`: searches run side by side; `tt_bits`: log2 of each lane's table entries;
    `refill_every`: node steps between queue refills. Use `run(problems)`."""

    def __init__(self, rules: Rules, lanes: int = 256, tt_bits: int = 12,
                 refill_every: int = 64) -> None:
        self.rules, self.lanes, self.tt_size, self.refill_every = (
            rules, lanes, 1 << tt_bits, refill_every)
        self.n, self.c, self.m = rules.n, rules.num_ids, rules.num_moves
        self.depth = rules.n * rules.n_tricks + 1
        self.suit = np.array(rules.suit, np.int32)
        self.rank = np.array(rules.rank, np.int32)
        self.points = np.array(rules.points, np.int32)
        self.move_card = np.minimum(np.arange(self.m), JK if rules.joker != "none" else
                                    self.c - 1).astype(np.int32)
        # Zobrist words: per (card, holder seat), per leader, per (taken, taken_other).
        # key of a card: its holder, suit, rank among the held cards of its suit, points
        self.z_card = _zobrist((2, self.n * 5 * 13 * 2), 1)
        self.z_lead = _zobrist((2, self.n), 2)
        self.z_pts = _zobrist((2, 64, 64), 3)
        self._run = jax.jit(self._solve_all)
        self._legal_roots = jax.jit(self._roots_legal)

    # ---- the rules kernel, per lane ------------------------------------------------------------
    def _strength(self, card: Array, suit: Array, led: Array, trump: Array,
                  done: Array) -> Array:
        rank, is_jk = jnp.asarray(self.rank)[card], card == JK
        if self.rules.joker == "yonin":
            return yonin_trick_strength(suit, rank, led, trump, is_jk, done)
        return trick_kernel.card_strength(suit, rank, led, trump, is_jk & (self.c > JK))

    def _legal(self, hand: Array, leading: Array, led: Array, done: Array) -> Array:
        """bool[M]: the moves of a player holding `hand` (bool[C])."""
        if self.rules.joker == "none":
            return jnp.where(leading, hand, trick_kernel.follow_mask(hand, self.suit, led))
        plain, jk_mine = hand.at[JK].set(False), hand[JK]
        if self.rules.joker == "gonin":
            cards, jk_lead = gonin_card_moves(plain, jk_mine, leading, led, done)
        else:  # Yonin, no contract declared (KAN-54, KAN-58)
            follow = trick_kernel.follow_mask(plain, self.suit, led)
            cards = jnp.where(leading, plain, follow)
            jk = jk_mine & yonin_joker_ok(done, leading, jnp.bool_(False),
                                          self.rules.yonin_joker_trick1)
            cards, jk_lead = cards.at[JK].set(jk & ~leading), jk & leading
        return jnp.concatenate([cards, jnp.broadcast_to(jk_lead, (4,))])

    def _equivalent(self, moves: Array, live: Array) -> Array:
        """`moves` less every card whose next live card above it in its suit is also in
        `moves` and worth the same points (rank equivalence; `live`: cards held or in the
        current trick). Cards are 13 per suit in rank order (ids 13 * suit + rank)."""
        bits = jnp.uint32(1) << jnp.arange(13, dtype=jnp.uint32)
        def suit_words(x: Array) -> Array:
            return jnp.sum(jnp.where(x[:52].reshape(4, 13), bits, 0), axis=1, dtype=jnp.uint32)
        live_w, mine_w = suit_words(live), suit_words(moves)
        pts_w = suit_words(jnp.asarray(self.points[:52] > 0))
        shift = jnp.asarray(self.rank[:52] + 1).astype(jnp.uint32)
        above = live_w[self.suit[:52]] >> shift
        nxt = above & (~above + jnp.uint32(1))  # lowest live card above
        same_pts = ((nxt & (pts_w[self.suit[:52]] >> shift)) != 0) == (self.points[:52] > 0)
        dup = ((nxt & (mine_w[self.suit[:52]] >> shift)) != 0) & same_pts
        return moves.at[:52].set(moves[:52] & ~dup)

    def _hash(self, held: Array, owner: Array) -> Array:
        """uint32[2]: the Zobrist key of who holds what at a trick boundary, by rank among
        the held cards of each suit (positions that differ only in cards gone are one
        entry), with each card's points."""
        bits = jnp.uint32(1) << jnp.arange(13, dtype=jnp.uint32)
        words = jnp.sum(jnp.where(held[:52].reshape(4, 13), bits, 0), axis=1, dtype=jnp.uint32)
        below = words[self.suit[:52]] & (bits[self.rank[:52]] - jnp.uint32(1))
        rel = jax.lax.population_count(below).astype(jnp.int32)
        rel = jnp.concatenate([rel, jnp.zeros(self.c - 52, jnp.int32)])
        index = ((jnp.maximum(owner, 0) * 5 + self.suit) * 13 + rel) * 2 + (self.points > 0)
        z = jnp.where(held, jnp.asarray(self.z_card)[:, index], jnp.uint32(0))
        return jax.lax.reduce(z, jnp.uint32(0), jax.lax.bitwise_xor, (1,))

    def _score(self, leading: Array, led: Array, trump: Array,
               done: Array, best_s: Array, partner_wins: Array) -> Array:
        """Move ordering: a cheap score per move (higher first)."""
        card = jnp.asarray(self.move_card)
        suit = jnp.where(jnp.arange(self.m) >= LEAD_JK, jnp.arange(self.m) - LEAD_JK,
                         jnp.asarray(self.suit)[card])
        rank, pts = jnp.asarray(self.rank)[card], jnp.asarray(self.points)[card]
        s = self._strength(card, suit, jnp.where(leading, suit, led), trump, done)
        wins = s > best_s
        follow = jnp.where(partner_wins, 16 * pts - rank,
                           jnp.where(wins, 64 - s, -rank - 16 * pts))
        return jnp.where(leading, rank + 16 * (suit == trump), follow)

    # ---- one lane -------------------------------------------------------------------------------
    def _load(self, p: dict[str, Array], pid: Array) -> dict[str, Array]:
        """A lane's state at the root of problem `pid` (from the batch `p`)."""
        n = self.n
        owner, lvl, trick = p["owner"][pid], p["lvl"][pid], p["trick"][pid]
        leader, led, nplayed, trump, sp, op, done, is_goal = (
            p["scalars"][pid, k].astype(jnp.int32) for k in range(8))
        best_s, best_p, tpts = jnp.int32(0), leader, jnp.int32(0)
        for k in range(n - 1):  # the root's unfinished trick
            card = jnp.maximum(trick[k], 0).astype(jnp.int32)
            suit = jnp.where(k == 0, led, jnp.asarray(self.suit)[card])
            s = self._strength(card, suit, led, trump, done)
            here = k < nplayed
            better = here & ((k == 0) | (s > best_s))
            best_s = jnp.where(better, s, best_s)
            best_p = jnp.where(better, (leader + k) % n, best_p)
            tpts = tpts + jnp.where(here, jnp.asarray(self.points)[card], 0)
        left = (lvl >= 0) & (owner >= 0)  # held or in the current trick
        total = (sp + op + jnp.sum(jnp.where(left, jnp.asarray(self.points), 0))
                 + self.rules.trick_value * (self.rules.n_tricks - done))
        goal = p["goal"][pid].astype(jnp.int32)
        lo, hi = sp, total - op  # value bounds
        t = (lo + hi + 1) // 2
        return dict(
            pid=pid, owner=owner.astype(jnp.int32), lvl=lvl,
            trump=trump, side=p["side"][pid], root_mask=p["root_mask"][pid],
            is_goal=is_goal > 0, root=nplayed, d=nplayed, mode=jnp.int32(ENTER),
            child=jnp.bool_(False), lo=lo, hi=hi, total=total,
            side_min=jnp.where(is_goal > 0, goal[0], t),
            other_max=jnp.where(is_goal > 0, goal[1], total - t),
            leader=leader, led=led, nplayed=nplayed, best_s=best_s, best_p=best_p,
            tpts=tpts, sp=sp, op=op, done=done, nodes=jnp.int32(0),
            finished=jnp.bool_(False), result=jnp.int32(0),
        )

    def _step(self, x: dict[str, Array], stack: dict[str, Array],
              tt: dict[str, Array]) -> tuple[dict, dict, dict]:
        """One node step of one lane (see the module docstring)."""
        n, rules = self.n, self.rules
        d, mode = x["d"], x["mode"]
        leading = x["nplayed"] == 0
        to_move = (x["leader"] + x["nplayed"]) % n
        is_or = x["side"][to_move]
        held = x["lvl"] == FREE
        live = held | (x["lvl"] >= d - x["nplayed"]) & (x["lvl"] < d)
        # -- entering a node: goal tests, table probe, moves
        reached = (x["sp"] >= x["side_min"]) & (x["op"] <= x["other_max"])
        failed = x["op"] > x["other_max"]
        at_end = ~jnp.any(held)
        hz = self._hash(held, x["owner"])
        key0 = (hz[0] ^ jnp.asarray(self.z_lead)[0, x["leader"]]
                ^ (x["pid"].astype(jnp.uint32) * jnp.uint32(0x9E3779B1)))
        key1 = hz[1] ^ jnp.asarray(self.z_lead)[1, x["leader"]]
        pts_z = jnp.asarray(self.z_pts)[:, jnp.minimum(x["sp"], 63), jnp.minimum(x["op"], 63)]
        key0 = key0 ^ jnp.where(x["is_goal"], pts_z[0], 0)
        key1 = key1 ^ jnp.where(x["is_goal"], pts_z[1], 0)
        slot = (key0 & jnp.uint32(self.tt_size - 1)).astype(jnp.int32)
        hit = (tt["k0"][slot] == key0) & (tt["k1"][slot] == key1) & leading
        need = jnp.where(x["is_goal"], 1, x["side_min"] - x["sp"])
        t_lo = jnp.where(hit, tt["lo"][slot].astype(jnp.int32), 0)
        t_hi = jnp.where(hit, tt["hi"][slot].astype(jnp.int32), 127)
        enter_yes = reached | (t_lo >= need)
        enter_no = failed | (at_end & ~reached) | (t_hi < need)
        hand = held & (x["owner"] == to_move)
        moves = self._legal(hand, leading, x["led"], x["done"])
        at_root = d == x["root"]
        moves = jnp.where(at_root, moves & x["root_mask"], self._equivalent(moves, live))
        # -- resuming a node after a child's result
        cand = jnp.where(mode == ENTER, moves, stack["cand"][d])
        child = x["child"]
        resume_cut = child == is_or
        decided = jnp.where(mode == ENTER, enter_yes | enter_no,
                            resume_cut | ~jnp.any(cand))
        result = jnp.where(mode == ENTER, enter_yes, jnp.where(resume_cut, child, ~is_or))
        # -- decided: store bounds (searched trick-boundary nodes), then pop
        store = decided & (mode == RESUME) & leading
        same = (tt["k0"][slot] == key0) & (tt["k1"][slot] == key1)
        old_lo = jnp.where(same, tt["lo"][slot], 0)
        old_hi = jnp.where(same, tt["hi"][slot], 127)
        new_lo = jnp.where(result, jnp.maximum(old_lo, need), old_lo)
        new_hi = jnp.where(result, old_hi, jnp.minimum(old_hi, need - 1))
        tt = dict(
            k0=tt["k0"].at[slot].set(jnp.where(store, key0, tt["k0"][slot])),
            k1=tt["k1"].at[slot].set(jnp.where(store, key1, tt["k1"][slot])),
            lo=tt["lo"].at[slot].set(jnp.where(store, new_lo, tt["lo"][slot]).astype(jnp.int8)),
            hi=tt["hi"].at[slot].set(jnp.where(store, new_hi, tt["hi"][slot]).astype(jnp.int8)),
            bm=tt["bm"].at[slot].set(jnp.where(store & resume_cut, stack["mv"][d],
                                               jnp.where(store & ~same, -1, tt["bm"][slot]))),
        )
        pd = jnp.maximum(d - 1, 0)
        snap = stack["snap"][pd].astype(jnp.int32)
        undo_card = jnp.asarray(self.move_card)[stack["mv"][pd]]
        popped = {k: snap[i] for i, k in enumerate(SNAP)}
        pop_lvl = x["lvl"].at[undo_card].set(FREE)
        # -- not decided: try the best remaining move, then push
        partner_wins = x["side"][x["best_p"]] == is_or
        score = self._score(leading, x["led"], x["trump"], x["done"], x["best_s"],
                            partner_wins & ~leading)
        score = jnp.where(hit & (jnp.arange(self.m) == tt["bm"][slot]), 1000, score)
        move = jnp.argmax(jnp.where(cand, score, -1000)).astype(jnp.int32)
        card = jnp.asarray(self.move_card)[move]
        suit = jnp.where(move >= LEAD_JK, move - LEAD_JK, jnp.asarray(self.suit)[card])
        led = jnp.where(leading, suit, x["led"])
        s = self._strength(card, suit, led, x["trump"], x["done"])
        better = leading | (s > x["best_s"])
        best_s = jnp.where(better, s, x["best_s"])
        best_p = jnp.where(better, to_move, x["best_p"])
        tpts = jnp.where(leading, 0, x["tpts"]) + jnp.asarray(self.points)[card]
        complete = x["nplayed"] == n - 1
        won = x["side"][best_p]
        gain = tpts + rules.trick_value
        push = dict(
            leader=jnp.where(complete, best_p, x["leader"]), led=led,
            nplayed=jnp.where(complete, 0, x["nplayed"] + 1), best_s=best_s, best_p=best_p,
            tpts=tpts, sp=x["sp"] + jnp.where(complete & won, gain, 0),
            op=x["op"] + jnp.where(complete & ~won, gain, 0),
            done=x["done"] + complete)
        go_on = ~decided
        stack = dict(
            cand=stack["cand"].at[d].set(jnp.where(go_on, cand.at[move].set(False),
                                                   stack["cand"][d])),
            mv=stack["mv"].at[d].set(jnp.where(go_on, move, stack["mv"][d]).astype(jnp.int8)),
            snap=stack["snap"].at[d].set(jnp.where(
                go_on, jnp.stack([x[k] for k in SNAP]).astype(jnp.int8), stack["snap"][d])),
        )
        pop = decided & ~at_root
        new = dict(x)
        for k in SNAP:
            new[k] = jnp.where(go_on, push[k], jnp.where(pop, popped[k], x[k]))
        new.update(
            lvl=jnp.where(go_on, x["lvl"].at[card].set(d.astype(jnp.int8)),
                          jnp.where(pop, pop_lvl, x["lvl"])),
            d=jnp.where(go_on, d + 1, jnp.where(pop, d - 1, d)),
            mode=jnp.where(go_on, ENTER, RESUME), child=result,
            nodes=x["nodes"] + ((mode == ENTER) & ~x["finished"]),
        )
        return self._driver(new, decided & at_root, result), stack, tt

    def _driver(self, x: dict[str, Array], search_done: Array, result: Array) -> dict:
        """After a search of the root ends: narrow the value window, or finish the problem."""
        lo = jnp.where(search_done & result, x["side_min"], x["lo"])
        hi = jnp.where(search_done & ~result, x["side_min"] - 1, x["hi"])
        finished = search_done & (x["is_goal"] | (lo == hi)) | x["finished"]
        t = (lo + hi + 1) // 2
        again = search_done & ~finished
        return x | dict(
            lo=lo, hi=hi, finished=finished,
            result=jnp.where(search_done & ~x["finished"],
                             jnp.where(x["is_goal"], result, lo), x["result"]),
            side_min=jnp.where(again, t, x["side_min"]),
            other_max=jnp.where(again, x["total"] - t, x["other_max"]),
            mode=jnp.where(search_done, ENTER, x["mode"]),
        )

    # ---- the batch ------------------------------------------------------------------------------
    def _solve_all(self, p: dict[str, Array], count: Array) -> tuple[Array, Array]:
        """Solve problems 0..count-1 of the (padded) batch `p`."""
        q, b = p["owner"].shape[0], self.lanes
        load = jax.vmap(self._load, in_axes=(None, 0))
        step = jax.vmap(self._step)
        lanes = load(p, jnp.minimum(jnp.arange(b), q - 1))
        lanes["finished"] = lanes["finished"] | (jnp.arange(b) >= count)
        stack = dict(cand=jnp.zeros((b, self.depth, self.m), jnp.bool_),
                     mv=jnp.zeros((b, self.depth), jnp.int8),
                     snap=jnp.zeros((b, self.depth, len(SNAP)), jnp.int8))
        tt = dict(k0=jnp.zeros((b, self.tt_size), jnp.uint32),
                  k1=jnp.zeros((b, self.tt_size), jnp.uint32),
                  lo=jnp.zeros((b, self.tt_size), jnp.int8),
                  hi=jnp.zeros((b, self.tt_size), jnp.int8),
                  bm=jnp.full((b, self.tt_size), -1, jnp.int8))
        out = jnp.full(q + 1, -1, jnp.int32)  # slot q: a sink for idle lanes
        nodes = jnp.zeros(q + 1, jnp.int32)

        def chunk(carry):
            lanes, stack, tt, out, nodes, nxt = carry

            def one(_, c):
                return step(*c)
            lanes, stack, tt = jax.lax.fori_loop(0, self.refill_every, one, (lanes, stack, tt))
            fin = lanes["finished"]
            real = lanes["pid"] < count
            where = jnp.where(fin & real, lanes["pid"], q)
            out = out.at[where].set(jnp.where(fin & real, lanes["result"], -1))
            nodes = nodes.at[where].set(lanes["nodes"])
            rank = jnp.cumsum(fin) - 1
            new_pid = nxt + rank
            fresh = load(p, jnp.minimum(new_pid, q - 1))
            fresh["finished"] = new_pid >= count
            fresh["pid"] = jnp.where(new_pid >= count, q, new_pid)
            lanes = jax.tree.map(
                lambda a, f: jnp.where(fin.reshape((-1,) + (1,) * (a.ndim - 1)), f, a),
                lanes, fresh)
            return lanes, stack, tt, out, nodes, nxt + jnp.sum(fin)

        def busy(carry):
            return ~jnp.all(carry[0]["finished"])

        lanes["pid"] = jnp.where(jnp.arange(b) < count, jnp.arange(b), q)
        carry = (lanes, stack, tt, out, nodes, jnp.minimum(count, b))
        carry = jax.lax.while_loop(busy, chunk, carry)
        return carry[3][:q], carry[4][:q]

    @staticmethod
    def _padded(problems: Problems) -> dict[str, np.ndarray]:
        """The problem arrays padded to a power of two, at least 256 (one compile per size
        class)."""
        q = len(problems)
        size = max(256, 1 << max(q - 1, 0).bit_length())
        return {f.name: np.concatenate([a := getattr(problems, f.name),
                                        np.repeat(a[:1], size - q, axis=0)])
                for f in dataclasses.fields(problems)}

    def run(self, problems: Problems) -> tuple[np.ndarray, np.ndarray]:
        """(result, nodes) per problem: the exact value, or 0/1 for a goal problem."""
        result, nodes = self._run(self._padded(problems), jnp.int32(len(problems)))
        return np.array(result[: len(problems)]), np.array(nodes[: len(problems)])

    def legal_at_roots(self, problems: Problems) -> tuple[np.ndarray, np.ndarray]:
        """bool[Q, M] twice: the legal moves at each problem's root (root limits included),
        and those of them the search tries (one per rank-equivalence class)."""
        legal, tried = self._legal_roots(self._padded(problems))
        return np.asarray(legal)[: len(problems)], np.asarray(tried)[: len(problems)]

    def _roots_legal(self, p: dict[str, Array]) -> tuple[Array, Array]:
        def one(pid: Array) -> tuple[Array, Array]:
            x = self._load(p, pid)
            to_move = (x["leader"] + x["nplayed"]) % self.n
            hand = (x["lvl"] == FREE) & (x["owner"] == to_move)
            legal = self._legal(hand, x["nplayed"] == 0, x["led"], x["done"]) & x["root_mask"]
            return legal, self._equivalent(legal, x["lvl"] >= 0)  # live: held or in trick
        return jax.vmap(one)(jnp.arange(p["owner"].shape[0]))


@functools.cache
def searcher(rules: Rules, lanes: int = 256, tt_bits: int = 12) -> Searcher:
    """A shared `Searcher` per rules and size (compiled once per size class of problems)."""
    return Searcher(rules, lanes, tt_bits)
