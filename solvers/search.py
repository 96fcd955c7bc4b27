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
- quick tricks (whist): the cards the leader can cash for sure (above every other live card
  of their suit, not ruffable, and the rest of the suit once they have drawn every other
  card of it), then with no trumps in play his partner's, reached by a low card, end a
  search early, for either side; so do a side's master trumps (above every opponent's),
  and at a trick's second hand a trick his side surely wins (then, with no trumps, the
  winner's cashable cards);
- rank equivalence: of cards one hand holds that are adjacent in relative rank and worth the
  same points, only the highest is tried (`(h >> 1) & h`, one word operation); and once a
  node has tried a card below every rank its tried moves' results depended on, the other
  such cards of that suit are skipped (the same move for this search, as in DDS);
- move ordering without sorting: the table's best move, at a lead the last move that cut off
  a search at that depth (killer), else per suit a candidate (lead high; win as cheaply as
  possible; play low, or give points, when partner wins) and the argmax over suits and
  joker moves; a whist lead prefers the suits the opponents hold fewest cards of (as DDS);
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
  CPU a search keeps about one core busy: its step is some 250 small XLA kernels).

The rules kernel (legal moves, trick winner, points) is the environments': `kanjax.trick`,
`kanjax.envs.kan.gonin_joker_moves`, `kanjax.envs.yonin.yonin_joker_ok` /
`yonin_trick_strength`, applied to suit words instead of per-card arrays.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import threading
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np

from kanjax import jaxutil
from kanjax import trick as trick_kernel
from kanjax.api import Array
from kanjax.envs.kan import gonin_joker_moves
from kanjax.envs.yonin import yonin_joker_ok, yonin_trick_strength
from solvers.position import JK, LEAD_JK, Position, Rules

JK_CODE, LEAD_CODE, NUM_CODES = 64, 68, 72  # move codes besides 16 * suit + relative rank
CODES = [*range(JK_CODE + 1), *range(LEAD_CODE, NUM_CODES)]  # every move code
ENTER, DECIDED = 0, 1  # a lane's mode at the start of a step (`Searcher._step`)
NO_BUDGET = 2**31 - 1  # node budget per problem: none
NEVER = 2**31 - 1  # a search's patience with an emptying batch: it never hands its tail on
TAIL_PATIENCE = 64  # refills a run waits, with the queue empty and at most a quarter of
# its lanes busy, before it moves the busy lanes to a searcher of fewer lanes
MIN_TAIL_LANES = 4  # the fewest lanes of such a searcher (a step's fixed cost dominates)
FULL_WINDOW = (0, 127)  # a value problem's default window: every target
SUITS = np.arange(4)
# trick bookkeeping saved per depth: leader, led, nplayed, best strength, best seat, trick
# points, side total, other total, tricks done
SNAP = ("leader", "led", "nplayed", "best_s", "best_p", "tpts", "sp", "op", "done")
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


def _word_bit(code: int) -> tuple[int, int]:
    """(word, bit) of a move code in a move set (4 suit words, then the joker word: bit 0 the
    joker following, bit 1 + s a joker lead naming s)."""
    if code >= JK_CODE:
        return 4, 0 if code == JK_CODE else code - LEAD_CODE + 1
    return code >> 4, code & 15


def _slot(code: Array) -> tuple[Array, Array]:
    """`_word_bit`, traced."""
    word = jnp.where(code >= JK_CODE, 4, code >> 4)
    bit = jnp.where(code >= LEAD_CODE, code - LEAD_CODE + 1, jnp.where(code >= JK_CODE, 0,
                                                                       code & 15))
    return word, bit.astype(jnp.uint32)


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
    group = _group_ids(positions, goals, root_moves, groups)
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
        if rules.joker != "none":
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
            word, bit = _word_bit(k)
            root[i, word] |= 1 << bit
    return Problems(hands, points, trick, scalars, side, goal, window, root, group, move_of)


def _group_ids(positions: list[Position], goals, root_moves,
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


def _hash_consts(seed: int, size: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, 2**32, size, dtype=np.uint32)


def _fmix(x: Array) -> Array:
    """MurmurHash3's 32-bit finaliser (a bijection that mixes every bit)."""
    x = (x ^ (x >> 16)) * jnp.uint32(0x85EBCA6B)
    x = (x ^ (x >> 13)) * jnp.uint32(0xC2B2AE35)
    return x ^ (x >> 16)


def _top(w: Array) -> Array:
    """Index of the highest set bit (-1 for 0)."""
    return 31 - jax.lax.clz(w).astype(jnp.int32)


def _top_bit(words: Array) -> Array:
    """The highest set bit of each word, as a word (bit 0 for 0)."""
    return jnp.uint32(1) << jnp.maximum(_top(words), 0).astype(jnp.uint32)


def _stronger(cards: Array, base: Array, strength: Array) -> Array:
    """The cards of the suit words `cards` (a card's strength: its suit's `base` plus its
    relative rank; base 0: it cannot win) stronger than `strength`."""
    thr = jnp.clip(strength - base + 1, 0, 16).astype(jnp.uint32)
    return jnp.where(base > 0, (cards >> thr) << thr, jnp.uint32(0))


def _closure(words: Array) -> Array:
    """Each suit word with every rank above its lowest set bit set too (up to bit 15)."""
    low = words & (~words + jnp.uint32(1))
    return jnp.where(words != 0, ~(low - jnp.uint32(1)) & jnp.uint32(0xFFFF), jnp.uint32(0))


def _above(words: Array, rest: Array) -> Array:
    """The cards of `words` above every card of `rest` in their suit (word by word)."""
    shift = jnp.clip(_top(rest) + 1, 0, 31).astype(jnp.uint32)
    return words >> shift << shift


def _halves(words: Array) -> Array:
    """The 16-bit halves of `words` (uint32[k, m]), low first: uint32[k, 2m]."""
    return jnp.stack([words & 0xFFFF, words >> 16], axis=-1).reshape(words.shape[0], -1)


def _pairs(halves: Array) -> Array:
    """`_halves` undone on a flat uint32[2m]: uint32[m]."""
    return halves[0::2] | (halves[1::2] << 16)


def _trumps(hands: Array, trump: Array) -> Array:
    """Each seat's trump word (uint32[n]; 0 with no trump suit)."""
    return jnp.where(trump >= 0, hands[:, jnp.maximum(trump, 0)], jnp.uint32(0))


def _words_of(hands: Array, seats: Array) -> Array:
    """The suit words (uint32[4]) of the seats `seats` (bool[n]) together."""
    return jax.lax.reduce(jnp.where(seats[:, None], hands, jnp.uint32(0)), jnp.uint32(0),
                          jax.lax.bitwise_or, (0,))


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
        self.rules, self.lanes, self.tt_size, self.ways, self.refill_every = (
            rules, lanes, 1 << tt_bits, ways, refill_every)
        self.tail_patience = tail_patience
        self.n, self.nt = rules.n, rules.n_tricks
        self.depth = rules.n * rules.n_tricks + 1
        # whist: tricks are the value, so sure tricks bound it
        self.quick = rules.joker == "none" and rules.trick_value == 1 and not any(rules.points)
        words = -(-4 * rules.n // 8) + 3
        self.h0, self.h1 = _hash_consts(1, words), _hash_consts(2, words)
        self._start_jit = jax.jit(self._start)
        self._resume_jit = jax.jit(self._resume, donate_argnums=4)
        self._compiled: dict[tuple[str, int], jax.stages.Compiled] = {}
        self._tails: dict[int, Searcher] = {}
        self._lock = threading.Lock()
        self._legal_roots = jax.jit(self._roots_legal)

    # ---- the rules kernel on suit words, per lane -------------------------------------------
    def _strength(self, code: Array, led: Array, trump: Array, done: Array) -> Array:
        is_jk = code >= JK_CODE
        suit = jnp.where(code >= LEAD_CODE, code - LEAD_CODE, jnp.where(is_jk, 4, code >> 4))
        rank = jnp.where(is_jk, 0, code & 15)
        if self.rules.joker == "yonin":
            return yonin_trick_strength(suit, rank, led, trump, is_jk, done)
        return trick_kernel.card_strength(suit, rank, led, trump, is_jk)

    def _legal(self, h: Array, jk_mine: Array, leading: Array, led: Array,
               done: Array) -> Array:
        """uint32[5]: the move set of a player holding the suit words `h` (and the joker if
        `jk_mine`): follow suit (KAN-24), and the game's joker rules."""
        zero = jnp.uint32(0)
        of_led = jnp.where(SUITS == led, h, zero)
        cards = jnp.where(leading | ~jnp.any(of_led != 0), h, of_led)
        if self.rules.joker == "none":
            return jnp.concatenate([cards, zero[None]])
        if self.rules.joker == "gonin":
            jk_follow, jk_lead, odori = gonin_joker_moves(jk_mine, leading, done)
            cards = jnp.where(odori, zero, cards)
        else:  # Yonin, no contract declared (KAN-54, KAN-58)
            jk = jk_mine & yonin_joker_ok(done, leading, jnp.bool_(False),
                                          self.rules.yonin_joker_trick1)
            jk_follow, jk_lead = jk & ~leading, jk & leading
        word = jnp.where(jk_follow, 1, 0) | jnp.where(jk_lead, 0b11110, 0)
        return jnp.concatenate([cards, word.astype(jnp.uint32)[None]])

    @staticmethod
    def _equivalent(moves: Array, h: Array, pts: Array) -> Array:
        """`moves` less every card whose next live card up its suit is also the mover's and
        worth the same points (rank equivalence: in relative ranks, the next bit)."""
        words = moves[:4]
        dup = words & (h >> 1) & ~(pts ^ (pts >> 1))
        return moves.at[:4].set(words & ~dup)

    def _removals(self, codes: Array) -> tuple[Array, Array, Array]:
        """(suit, bit, real) of the cards `codes` (a completed trick) as they are taken out
        one after another: `bit[k]` is card k's rank once cards 0..k-1 are out."""
        suit, bit, real = codes >> 4, codes & 15, codes < JK_CODE
        for k in range(self.n - 1):
            later = jnp.arange(self.n) > k
            bit = jnp.where(later & (suit == suit[k]) & (bit > bit[k]) & real[k], bit - 1, bit)
        return suit, bit.astype(jnp.uint32), real

    def _squeeze(self, words: Array, codes: Array) -> Array:
        """`words` (uint32[k, 4], relative ranks) with the cards `codes` (a completed trick)
        taken out: the ranks above each one move down a bit."""
        suit, bit, real = self._removals(codes)
        for k in range(self.n):
            low = (jnp.uint32(1) << bit[k]) - jnp.uint32(1)
            squeezed = (words & low) | ((words >> 1) & ~low)
            words = jnp.where((SUITS == suit[k]) & real[k], squeezed, words)
        return words

    def _unsqueeze(self, words: Array, codes: Array) -> Array:
        """`_squeeze` undone on rank sets (uint32[4]): the ranks of the trick `codes` are put
        back, empty."""
        suit, bit, real = self._removals(codes)
        for k in reversed(range(self.n)):
            low = (jnp.uint32(1) << bit[k]) - jnp.uint32(1)
            spread = (words & low) | ((words & ~low) << 1)
            words = jnp.where((SUITS == suit[k]) & real[k], spread, words)
        return words

    def _by_rank(self, codes: Array, winner: Array, hand: Array) -> Array:
        """uint32[4]: what of the trick's ranks mattered. If its winning card `codes[winner]`
        beat another card of its suit: that rank and the run of ranks right below it that its
        player still held (`hand`, his suit words after the trick; rank equivalence tried the
        run's highest card for all of them, which only holds while he holds the run: DDS's
        winning sequence). Else nothing."""
        code = codes[winner]
        real = codes < JK_CODE
        rival = jnp.any(real & (codes >> 4 == code >> 4) & (jnp.arange(self.n) != winner))
        rank = (code & 15).astype(jnp.uint32)
        below = (jnp.uint32(1) << rank) - jnp.uint32(1)
        low = (_top(~hand[(code >> 4) & 3] & below) + 1).astype(jnp.uint32)
        run = (jnp.uint32(2) << rank) - (jnp.uint32(1) << low)
        return jnp.where((SUITS == code >> 4) & (code < JK_CODE) & rival, run, jnp.uint32(0))

    def _quick_tricks(self, hands: Array, leader: Array, trump: Array,
                      side: Array) -> tuple[Array, Array]:
        """(count, cards): the tricks the leader cashes for sure, with his cards above every
        other live card of their suit (uint32[4]); in a side suit of a trump game only as
        many rounds as every other player who still holds a trump once he has cashed his
        trumps can follow."""
        others = jnp.arange(self.n) != leader
        lengths = jax.lax.population_count(hands).astype(jnp.int32)
        cards, wins = self._winners(hands, lengths, leader)
        t = jnp.maximum(trump, 0)
        ruffers = others & (trump >= 0) & (lengths[:, t] > wins[t])
        safe = jnp.min(jnp.where(ruffers[:, None], lengths, 13), axis=0)
        count = jnp.sum(jnp.where((trump < 0) | (SUITS == trump), wins,
                                  jnp.minimum(wins, safe)))
        # then, with no trumps in play: a low card to the partner's winners (the one other
        # player of the leader's side), and his winners (if his discards on the leader's
        # winners can spare them)
        mates = (side == side[leader]) & others
        partner = jnp.argmax(mates)
        his, his_wins = self._winners(hands, lengths, partner)
        entry = jnp.any((his != 0) & (hands[leader] != 0))
        discards = jnp.sum(jnp.maximum(wins - lengths[partner], 0))
        # his cards that are neither winners nor needed to follow the leader's winners
        spare = jnp.sum(lengths[partner] - his_wins - jnp.minimum(lengths[partner], wins))
        no_trumps = ~jnp.any(_trumps(hands, trump) != 0)
        cross = entry & (discards <= spare) & no_trumps & (jnp.sum(mates) == 1)
        return (count + jnp.where(cross, jnp.sum(his_wins), 0),
                cards | jnp.where(cross, his, jnp.uint32(0)))

    def _winners(self, hands: Array, lengths: Array, seat: Array) -> tuple[Array, Array]:
        """(cards, count): `seat`'s cards above every other live card of their suit
        (uint32[4]), and per suit the tricks they take led from the top: those cards, or his
        whole suit once they have drawn every other card of it (length tricks; the table key
        holds the lengths, so only the top cards' ranks matter)."""
        others = jnp.arange(self.n) != seat
        cards = _above(hands[seat], _words_of(hands, others))
        tops = jax.lax.population_count(cards).astype(jnp.int32)
        longest = jnp.max(jnp.where(others[:, None], lengths, 0), axis=0)
        return cards, jnp.where((tops > 0) & (tops >= longest), lengths[seat], tops)

    def _second_hand(self, hands: Array, second: Array, led_card: Array, trump: Array,
                     side: Array) -> tuple[Array, Array]:
        """(count, cards): the tricks the side of the second hand to play (`second`) takes
        for sure from the current trick on (whist, the leader's `led_card` on the table), and
        the cards they rest on (uint32[4]); as DDS's QuickTricksSecondHand. With the third
        hand an opponent and the fourth a partner, the trick is theirs if the third hand
        cannot ruff it and they can: ruff it, or beat the led card and every card the third
        hand holds in its suit (the card's rank matters). With no trumps in play, the hand
        that wins it with that card then cashes its other cards above every other hand's."""
        n = self.n
        third, fourth = (second + 1) % n, (second + 2) % n
        led = led_card >> 4
        suit = hands[:, led]  # each seat's cards of the led suit
        trumps = _trumps(hands, trump)
        can_ruff = (led != trump) & (suit == 0) & (trumps != 0)  # per seat
        ruff = can_ruff[second] | can_ruff[fourth]
        top = _top(suit[second] | suit[fourth])
        by_rank = ~ruff & (top > jnp.maximum(led_card & 15, _top(suit[third])))
        partners = (side[third] != side[second]) & (side[fourth] == side[second])
        wins = partners & ~can_ruff[third] & (ruff | by_rank)
        top_bit = jnp.uint32(1) << jnp.maximum(top, 0).astype(jnp.uint32)
        card = jnp.where((SUITS == led) & by_rank, top_bit, jnp.uint32(0))
        winner = jnp.where((suit[second] & top_bit) != 0, second, fourth)
        more = _above(hands[winner] & ~card, _words_of(hands, jnp.arange(n) != winner))
        no_trumps = ~jnp.any(trumps != 0)
        more = jnp.where(by_rank & no_trumps, more, jnp.uint32(0))
        count = 1 + jnp.sum(jax.lax.population_count(more)).astype(jnp.int32)
        return jnp.where(wins, count, 0), jnp.where(wins, card | more, jnp.uint32(0))

    def _top_trumps(self, hands: Array, trump: Array,
                    side: Array) -> tuple[Array, Array, Array]:
        """(seat, count, cards): the holder of the highest trump, and the tricks his side's
        master trumps (above every opponent's) take for sure, whoever leads (those cards,
        uint32[4]). Every card is played by the deal's end, and a master wins the trick it is
        played on unless a partner's master is played on it too; the side plays its other
        trumps first, so its masters take min(masters, longest trump holding) tricks. Count
        0 without trumps."""
        trumps = _trumps(hands, trump)
        seat = jnp.argmax(trumps)  # the highest trump's holder has the greatest word
        ours = side == side[seat]
        masters = jnp.where(ours[:, None] & (SUITS == trump),
                            _above(hands, _words_of(hands, ~ours)), jnp.uint32(0))
        held = jax.lax.population_count(jnp.where(ours, trumps, jnp.uint32(0)))
        count = jnp.minimum(jnp.sum(jax.lax.population_count(masters)),
                            jnp.max(held)).astype(jnp.int32)
        return seat, count, _words_of(masters, ours)

    def _key(self, x: dict[str, Array]) -> tuple[Array, Array]:
        """The table key of a trick-boundary position: (uint32, uint32). Partition search:
        the key holds each hand's suit lengths, not its cards (an entry says which ranks its
        result depends on); the point cards, the joker's holder, the leader (and for a goal
        search the points taken)."""
        lengths = jax.lax.population_count(x["H"]).reshape(-1)
        lengths = jnp.pad(lengths, (0, -lengths.size % 8)).reshape(-1, 8)
        nibbles = jnp.sum(lengths << (4 * jnp.arange(8, dtype=jnp.uint32)), axis=1,
                          dtype=jnp.uint32)
        pts = jnp.where(x["is_goal"], (x["sp"] + 1) << 8 | (x["op"] + 1) << 16, 0)
        extra = ((x["jk"] + 1) | (x["leader"] << 4) | pts).astype(jnp.uint32)
        allw = jnp.concatenate([nibbles, x["P"][0::2] | (x["P"][1::2] << 16), extra[None]])
        def fold(consts):
            z = _fmix(allw ^ jnp.asarray(consts))
            return jax.lax.reduce(z, jnp.uint32(0), jax.lax.bitwise_xor, (0,))
        return (fold(self.h0) ^ (x["gid"].astype(jnp.uint32) * jnp.uint32(0x9E3779B1)),
                fold(self.h1))

    @staticmethod
    def _whist_leads(hands: Array, me: Array, trump: Array) -> tuple[Array, Array]:
        """(score, high) per suit of a whist lead by `me`: how good the suit is, and whether
        to lead his highest candidate rather than his lowest (as DDS's
        lead weights): above all, a suit the opponents hold few cards of (few replies to
        search; a void counts 4); then a suit his side holds the top card of (led from the
        top if it is his; more so when the left-hand opponent holds the second), a finesse
        through the left-hand opponent, the second and third cards on his side, an
        opponent's bare top card; a ruff for partner, none for the opponents."""
        seat = (me + jnp.arange(4)) % 4
        h = hands[seat]  # me, left-hand opponent, partner, right-hand opponent
        lens = jax.lax.population_count(h).astype(jnp.int32)
        live = h[0] | h[1] | h[2] | h[3]

        def holder(words: Array) -> tuple[Array, Array]:
            """Per suit, who (0..3 as above) holds the top card of `words` (-1: none), and
            `words` without it."""
            bit = _top_bit(words)
            return jnp.where(words != 0, jnp.argmax((h & bit) != 0, axis=0), -1), words & ~bit

        h1, rest = holder(live)
        h2, rest = holder(rest)
        h3, _ = holder(rest)
        trumps = _trumps(h, trump) != 0
        side_suit = (SUITS != trump) & (trump >= 0)
        opp_ruff = side_suit & ((lens[1] == 0) & trumps[1] | (lens[3] == 0) & trumps[3])
        pd_ruff = side_suit & (lens[2] == 0) & trumps[2] & ~opp_ruff
        replies = jnp.where(lens[1] == 0, 4, lens[1]) + jnp.where(lens[3] == 0, 4, lens[3])
        ours = (h1 == 0) | (h1 == 2)
        win = 60 + 20 * ((h2 == 1) & (lens[1] > 1)) - 5 * ((h2 == 3) & (lens[3] > 1))
        lose = (20 - 10 * (((h1 == 3) | (h2 == 3)) & (lens[3] != 1))
                + 30 * ((h1 == 1) & (h2 == 2) & (lens[2] > 1))
                + 35 * ((h2 == 2) & (h3 == 2))
                + 25 * (((h2 == 0) & (h3 == 2) | (h2 == 2) & (h3 == 0)) & (lens[2] > 1))
                + 25 * ((h1 == 1) & (lens[1] == 1) | (h1 == 3) & (lens[3] == 1)))
        score = (jnp.where(ours, win, lose) - 32 * replies - 40 * opp_ruff + 40 * pd_ruff
                 + 20 * ((SUITS == trump) & ours))
        return score, (h1 == 0) | ~ours & (h2 == 0) & (h3 == 0)

    @staticmethod
    def _whist_follow(hands: Array, me: Array, nplayed: Array, best_s: Array,
                      best_p: Array, led: Array, trump: Array, side: Array,
                      cand: Array) -> tuple[Array, Array]:
        """(score, rank) per suit of a whist follow by `me` (the trick's card `nplayed` + 1),
        as DDS's weights for the later hands: the players still to play this trick threaten
        their best card (highest of the led suit, else highest trump). When his side wins
        the trick whatever he plays: low, discarding rather than ruffing; else the lowest
        card that wins the trick for sure; else the lowest card that beats the current
        best (forcing a higher card); else low. A discard prefers long suits, not from a
        guarded second card or a bare top card."""
        offs = jnp.arange(1, 4)
        later = offs <= 3 - nplayed
        seats = (me + offs) % 4
        led_w = hands[seats, led]
        trump_w = _trumps(hands, trump)[seats]
        led_base = jnp.where(led == trump, 32, 16)
        threat = jnp.where(led_w != 0, led_base + _top(led_w),
                           jnp.where(trump_w != 0, 32 + _top(trump_w), 0))
        threat = jnp.where(later, threat, -1)
        opp_after = jnp.maximum(threat[0], threat[2])
        mine = side[me]
        secured = (side[best_p] == mine) & (best_s > opp_after) | (
            threat[1] > jnp.maximum(best_s, opp_after))
        c = cand[:4]
        base = jnp.where(SUITS == trump, 32, jnp.where(SUITS == led, 16, 0))
        sure = _stronger(c, base, jnp.maximum(best_s, opp_after))
        cover = _stronger(c, base, best_s)
        lo_sure, has_sure = jaxutil.trailing_zeros(sure), sure != 0
        lo_cover = jaxutil.trailing_zeros(cover)
        has_cover = (cover != 0) & (side[best_p] != mine)
        lo = jaxutil.trailing_zeros(c)
        h = hands[me]
        lens = jax.lax.population_count(h).astype(jnp.int32)
        live = hands[0] | hands[1] | hands[2] | hands[3]
        top = _top_bit(live)
        second = _top_bit(live & ~top)
        guard = ((lens == 2) & ((h & second) != 0) & ((h & top) == 0)) * 6 + (
            (lens == 1) & ((h & top) != 0)) * 8
        discard = (SUITS != led) & (SUITS != trump)
        low = jnp.where(discard, 3 * lens - guard, 0) - lo
        ruff = (SUITS == trump) & (led != trump)
        score = jnp.where(secured, jnp.where(ruff, -40, 20) + low, jnp.where(
            has_sure, 60 - lo_sure, jnp.where(has_cover, 15 - lo_cover, low)))
        rank = jnp.where(~secured & has_sure, lo_sure,
                         jnp.where(~secured & has_cover, lo_cover, lo))
        return score, rank

    def _choose(self, cand: Array, leading: Array, led: Array, trump: Array, done: Array,
                best_s: Array, partner_wins: Array, pts: Array, friends: Array,
                foes: Array, whist: tuple[Array, ...] | None = None) -> Array:
        """Move ordering: the code of the best-scored move of `cand` (higher first).
        `friends`, `foes`: the suit words of the mover's partners and opponents together;
        `whist`: `_whist_leads`'s and `_whist_follow`'s scores, in place of the generic ones."""
        c = cand[:4]
        hi, lo = _top(c), jaxutil.trailing_zeros(c)
        if whist is None:
            # leading: cash a sure winner; else low towards a partner's winner; else low.
            # Following: low, or a point card, when partner wins; else win as cheaply as
            # possible; else low, keeping the point cards
            sure = hi > jnp.maximum(_top(friends), _top(foes))
            to_partner = _top(friends) > jnp.maximum(_top(foes), hi)
            lead_score = jnp.where(sure, 100 + hi, jnp.where(to_partner, 50 - lo, -lo))
            base = jnp.where(SUITS == trump, 32, jnp.where(SUITS == led, 16, 0))
            lo_pts = jaxutil.trailing_zeros(c & pts)
            lo_plain = jaxutil.trailing_zeros(c & ~pts)
            has_pts, has_plain = (c & pts) != 0, (c & ~pts) != 0
            win = _stronger(c, base, best_s)
            lo_win = jaxutil.trailing_zeros(win)
            follow_rank = jnp.where(
                partner_wins, jnp.where(has_pts, lo_pts, lo),
                jnp.where(win != 0, lo_win, jnp.where(has_plain, lo_plain, lo)))
            follow_score = jnp.where(
                partner_wins, jnp.where(has_pts, 16 - lo_pts, -lo),
                jnp.where(win != 0, 64 - base - lo_win,
                          jnp.where(has_plain, -lo_plain, -lo - 16)))
        else:
            lead_score, sure, follow_score, follow_rank = whist
        rank = jnp.where(leading, jnp.where(sure, hi, lo), follow_rank)
        score = jnp.where(leading, lead_score, follow_score)
        score = jnp.where(c != 0, score, -1000)
        jw = cand[4]
        jk_s = self._strength(jnp.int32(JK_CODE), led, trump, done)
        jk_follow = jnp.where(partner_wins | (jk_s <= best_s), 0, 64 - jk_s)
        jk_lead = 16 * (SUITS == trump)
        scores = jnp.concatenate([
            score, jnp.where((jw & 1) != 0, jk_follow, -1000)[None],
            jnp.where(((jw >> (1 + SUITS).astype(jnp.uint32)) & 1) != 0, jk_lead, -1000)])
        codes = jnp.concatenate([16 * SUITS + rank, jnp.array([JK_CODE]), LEAD_CODE + SUITS])
        return codes[jnp.argmax(scores)]

    # ---- one lane -------------------------------------------------------------------------------
    def _load(self, p: dict[str, Array], pid: Array) -> dict[str, Array]:
        """A lane's state at the root of problem `pid` (from the batch `p`)."""
        n = self.n
        sc = {k: p["scalars"][pid, i].astype(jnp.int32) for i, k in enumerate(SCALARS)}
        leader, led, nplayed, trump, done = (sc[k] for k in ("leader", "led", "nplayed",
                                                             "trump", "done"))
        pts = p["points"][pid].astype(jnp.uint32)
        trick = p["trick"][pid].astype(jnp.int32)
        best_s, best_p, tpts = jnp.int32(0), leader, jnp.int32(0)
        for k in range(n - 1):  # the root's unfinished trick
            code = trick[k]
            s = self._strength(code, led, trump, done)
            here = k < nplayed
            better = here & ((k == 0) | (s > best_s))
            best_s = jnp.where(better, s, best_s)
            best_p = jnp.where(better, (leader + k) % n, best_p)
            word, bit = _slot(code)
            tpts = tpts + jnp.where(here & (word < 4), (pts[word & 3] >> bit) & 1, 0).astype(
                jnp.int32)
        sp, op, total = sc["sp"], sc["op"], sc["total"]
        goal, window = (p[k][pid].astype(jnp.int32) for k in ("goal", "window"))
        # a goal that limits the other side no more than the side's own total does is a
        # threshold, value >= T: a value problem in the window [T - 1, T] (its table bounds
        # hold for every target, not only for these points taken)
        threshold = (sc["is_goal"] > 0) & (goal[0] + goal[1] >= total)
        is_goal = (sc["is_goal"] > 0) & ~threshold
        lo = jnp.maximum(sp, jnp.where(threshold, goal[0] - 1, window[0]))  # value bounds
        hi = jnp.minimum(total - op, jnp.where(threshold, goal[0], window[1]))
        t = (lo + hi + 1) // 2
        return dict(
            pid=pid, gid=p["group"][pid], H=p["hands"][pid].astype(jnp.uint32), P=pts,
            jk=sc["jk"],
            trump=trump, side=p["side"][pid], root_mask=p["root"][pid],
            is_goal=is_goal, target=jnp.where(threshold, goal[0], -1), root=nplayed,
            d=nplayed, mode=jnp.int32(ENTER),
            child=jnp.bool_(False), bound=jnp.int32(0), rel=jnp.zeros(4, jnp.uint32),
            cut=jnp.int32(-1),
            lo=lo, hi=hi, total=total,
            side_min=jnp.where(is_goal, goal[0], t),
            other_max=jnp.where(is_goal, goal[1], total - t),
            leader=leader, led=led, nplayed=nplayed, best_s=best_s, best_p=best_p,
            tpts=tpts, sp=sp, op=op, done=done, nodes=jnp.int32(0), trick_nodes=jnp.int32(0),
            finished=jnp.bool_(False), result=jnp.int32(0),
        )

    @staticmethod
    def _need(x: dict[str, Array]) -> Array:
        """What the side still needs from the future points: its target less what it has
        (goal searches: 1, a fail-soft bound of taken + 1 for a yes, taken for a no)."""
        return jnp.where(x["is_goal"], 1, x["side_min"] - x["sp"])

    def _step(self, x: dict[str, Array], stack: dict[str, Array],
              tt: Array) -> tuple[dict, dict, Array]:
        """One step of one lane (see the module docstring): phase A at the node at depth d,
        just entered (`ENTER`: goal tests, table probe, sure tricks) or decided by its
        children (`DECIDED`: its bounds stored); if it is decided, back to its parent. Then
        phase B at the node it is at now: take the child's result in, and unless that
        decides the node, try its next move (push). So a node decided on entry takes one step,
        not two."""
        n, rules = self.n, self.rules
        d, mode = x["d"], x["mode"]
        entering = mode == ENTER
        leading = x["nplayed"] == 0
        to_move = (x["leader"] + x["nplayed"]) % n
        H, P = x["H"], x["P"]
        h = H[to_move]
        # == phase A. Entering: goal tests, table probe, moves
        reached = (x["sp"] >= x["side_min"]) & (x["op"] <= x["other_max"])
        left = x["total"] - x["sp"] - x["op"]
        failed = (x["op"] > x["other_max"]) | (x["sp"] + left < x["side_min"])
        key0, key1 = self._key(x)
        # the bucket (off trick boundaries, where nothing is probed or stored: bucket 0,
        # which stays in cache)
        ways = jnp.where(leading, (key0 & jnp.uint32(self.tt_size - self.ways)).astype(
            jnp.int32), 0) + jnp.arange(self.ways)
        rows = tt[ways]  # the bucket's entries (`solve_all` gives their layout)
        e_k0, e_k1, meta = rows[:, 0], rows[:, 1], rows[:, 2]
        # ranks and holders stay packed two suit words a word (so are the hands, to match)
        e_rel, e_pat = rows[:, 3:5], rows[:, 5:].reshape(self.ways, n, 2)
        # entries bound the future points of seat 0's side (the problems of a group may
        # optimise either side): the other side's are what is left
        flip = ~x["side"][0]
        stored_lo = (meta & 0xFF).astype(jnp.int32)
        stored_hi = ((meta >> 8) & 0xFF).astype(jnp.int32)
        e_lo_all = jnp.where(flip, left - stored_hi, stored_lo)
        e_hi_all = jnp.where(flip, left - stored_lo, stored_hi)
        e_bm = ((meta >> 16) & 0xFF).astype(jnp.int32) - 1
        same = (e_k0 == key0) & (e_k1 == key1)
        packed = H[:, 0::2] | (H[:, 1::2] << 16)  # [n, 2]
        match = same & jnp.all((packed[None] & e_rel[:, None]) == e_pat, axis=(1, 2)) & leading
        hit = jnp.any(match)
        need = self._need(x)
        e_lo = jnp.where(match, e_lo_all, 0)
        e_hi = jnp.where(match, e_hi_all, 127)
        t_lo, t_hi = jnp.max(e_lo), jnp.min(e_hi)
        legal = self._legal(h, x["jk"] == to_move, leading, x["led"], x["done"])
        at_root = d == x["root"]
        # Decided on entry by the first that decides of: the goal met or out of reach (no
        # rank matters), the table (its entries' ranks), sure tricks (their cards). Fail-soft:
        # a yes comes with a lower bound on the side's final total, a no with an upper bound
        # (goal searches: just need / need - 1); `sure`, `lost`: bounds on future points.
        trivial = reached | failed
        t_yes, t_no = t_lo >= need, t_hi < need
        by_table = (t_yes | t_no) & ~trivial
        q_yes = q_no = jnp.bool_(False)
        sure, lost, q_rel = jnp.int32(0), left, jnp.zeros(4, jnp.uint32)
        if self.quick:
            # sure tricks, at a trick's start and at its second hand (not at a root limited
            # to some of its moves): of the side of the player to move
            free = ~(at_root & jnp.any((legal & ~x["root_mask"]) != 0))
            static, second = leading & free, (x["nplayed"] == 1) & free
            qt, q_cards = self._quick_tricks(H, x["leader"], x["trump"], x["side"])
            led_card = stack["mv"][jnp.maximum(d - 1, 0)].astype(jnp.int32)
            q2, q2_cards = self._second_hand(H, to_move, led_card, x["trump"], x["side"])
            qt = jnp.where(static, qt, jnp.where(second, q2, 0))
            q_cards = jnp.where(static, q_cards, q2_cards)
            ours = x["side"][to_move]
            # later tricks: a side's master trumps; a yes from them only for value problems
            # (the goal may need the other side still low when it is reached)
            holder, tops, t_cards = self._top_trumps(H, x["trump"], x["side"])
            tops = jnp.where(static, tops, 0)
            mine = x["side"][holder]
            q_yes = (ours & (x["sp"] + qt >= x["side_min"])
                     | mine & ~x["is_goal"] & (x["sp"] + tops >= x["side_min"]))
            q_no = ~ours & (x["op"] + qt > x["other_max"]) | ~mine & (
                x["sp"] + left - tops < x["side_min"])
            # decided by the sure tricks, else by the top trumps: their count, their cards
            by_qt = jnp.where(ours, x["sp"] + qt >= x["side_min"], x["op"] + qt > x["other_max"])
            sure = jnp.where(by_qt, qt, tops)
            lost = left - sure
            q_rel = jnp.where(static | second, jnp.where(by_qt, q_cards, t_cards),
                              jnp.uint32(0))
        enter_yes = reached | t_yes | q_yes & ~failed
        enter_no = failed | t_no | q_no
        enter_bound = x["sp"] + jnp.where(
            trivial, jnp.where(reached, 0, left), jnp.where(
                by_table, jnp.where(t_yes, t_lo, jnp.minimum(left, t_hi)),
                jnp.where(q_yes, sure, lost)))
        enter_bound = jnp.where(x["is_goal"], x["sp"] + jnp.where(enter_yes, need, need - 1),
                                enter_bound)
        # the ranks the result depends on
        entry = jnp.where(t_yes, jnp.argmax(e_lo), jnp.argmin(e_hi))  # the one that decides
        enter_rel = jnp.where(trivial, jnp.uint32(0), jnp.where(by_table, _halves(
            e_rel[entry][None])[0], q_rel))
        moves = jnp.where(at_root, legal & x["root_mask"], self._equivalent(legal, h, P))
        # this node's result: decided on entry, or by its children (phase B of a step before)
        decided = ~entering | enter_yes | enter_no
        result = jnp.where(entering, enter_yes, x["child"])
        bound = jnp.where(entering, enter_bound, x["bound"])
        rel = jnp.where(entering, enter_rel, x["rel"])
        # -- decided by its children: store bounds (searched trick-boundary nodes) for every
        # position that agrees on the suit lengths and on who holds the ranks `rel` and the
        # point cards
        store = ~entering & leading
        rel_s = _closure(rel) | P
        pat = H & rel_s
        rel_w, pat_w = _pairs(rel_s), _pairs(pat.reshape(-1))
        exact = same & jnp.all(rows[:, 3:] == jnp.concatenate([rel_w, pat_w]), axis=1)
        empty = (e_k0 == 0) & (e_k1 == 0)
        way = jnp.where(jnp.any(exact), jnp.argmax(exact), jnp.where(
            jnp.any(empty), jnp.argmax(empty), x["nodes"] & (self.ways - 1)))
        slot = ways[way]
        old_lo = jnp.where(exact[way], e_lo_all[way], 0)
        old_hi = jnp.where(exact[way], e_hi_all[way], 127)
        future = jnp.clip(bound - x["sp"], 0, 127)
        new_lo = jnp.where(result, jnp.maximum(old_lo, future), old_lo)
        new_hi = jnp.where(result, old_hi, jnp.minimum(old_hi, future))
        bm = jnp.where(x["cut"] >= 0, x["cut"], jnp.where(exact[way], e_bm[way], -1))
        new_lo, new_hi = (jnp.clip(jnp.where(flip, left - new_hi, new_lo), 0, 127),
                          jnp.clip(jnp.where(flip, left - new_lo, new_hi), 0, 127))
        row = jnp.concatenate([jnp.stack([key0, key1, (new_lo | new_hi << 8 | (bm + 1) << 16)
                                          .astype(jnp.uint32)]),
                               rel_w, pat_w])
        tt = tt.at[slot].set(jnp.where(store, row, rows[way]))
        # -- decided: back to the parent
        pd = jnp.maximum(d - 1, 0)
        snap = stack["snap"][pd].astype(jnp.int32)
        popped = {k: snap[i] for i, k in enumerate(SNAP)}
        undo = stack["mv"][pd].astype(jnp.int32)
        undo_word, undo_bit = _slot(undo)
        mover = (popped["leader"] + popped["nplayed"]) % n
        closed = popped["nplayed"] == n - 1  # the move undone ended a trick
        frame_H, frame_P = stack["fH"][popped["done"]], stack["fP"][popped["done"]]
        pop_H = jnp.where(closed, frame_H.astype(jnp.uint32), H)
        pop_H = pop_H.at[mover, undo_word & 3].set(
            pop_H[mover, undo_word & 3] | jnp.where(undo_word < 4, 1 << undo_bit, 0))
        pop_P = jnp.where(closed, frame_P.astype(jnp.uint32), P)
        pop_jk = jnp.where(undo_word == 4, mover, x["jk"])
        # the ranks passed up: across a trick's end, back in the ranks before it, with the
        # trick's winner if it won by rank, and every rank above those
        last = jax.lax.dynamic_slice(stack["mv"], (jnp.maximum(pd - (n - 1), 0),), (n,))
        last = last.astype(jnp.int32)
        across = _closure(self._unsqueeze(rel, last) | self._by_rank(
            last, (x["leader"] - popped["leader"]) % n,
            frame_H[x["leader"]].astype(jnp.uint32)))
        pop = decided & ~at_root
        y = dict(x)
        for k in SNAP:
            y[k] = jnp.where(pop, popped[k], x[k])
        y.update(H=jnp.where(pop, pop_H, H), P=jnp.where(pop, pop_P, P),
                 jk=jnp.where(pop, pop_jk, x["jk"]), d=jnp.where(pop, d - 1, d),
                 child=result, bound=bound, rel=jnp.where(closed & pop, across, rel),
                 nodes=x["nodes"] + (entering & ~x["finished"]),
                 trick_nodes=x["trick_nodes"] + (entering & leading & ~x["finished"]))
        search_done, root_result, root_bound = decided & at_root, result, bound
        # == phase B, at the node now at depth e: the child's result in (if it came back),
        # else the node's first move
        e, resumed = y["d"], pop
        leading = y["nplayed"] == 0
        to_move = (y["leader"] + y["nplayed"]) % n
        is_or = y["side"][to_move]
        H, P = y["H"], y["P"]
        # the ranks the result depends on: a cut-off child's, or those of every child tried
        # (`racc`, per depth)
        racc = jnp.where(resumed, stack["racc"][e].astype(jnp.uint32) | y["rel"],
                         jnp.uint32(0))
        cand = jnp.where(resumed, stack["cand"][e].astype(jnp.uint32), moves)
        # once a card below every rank that mattered so far (in its suit) has been tried,
        # the other such cards of the suit are the same move (as in DDS's move generator)
        tried = jnp.where(resumed, stack["tried"][e].astype(jnp.uint32), jnp.uint32(0))
        relevant = racc | P
        below = jnp.where(relevant == 0, jnp.uint32(0xFFFF),  # the ranks under the lowest
                          (relevant & (~relevant + jnp.uint32(1))) - jnp.uint32(1))
        cand = cand.at[:4].set(jnp.where((tried & below) != 0, cand[:4] & ~below, cand[:4]))
        child = y["child"]
        cut = resumed & (child == is_or)
        done_b = resumed & (cut | ~jnp.any(cand != 0))
        result = jnp.where(cut, child, ~is_or)
        # the bound: an OR node that fails has the max of its children's upper bounds, an AND
        # node that succeeds the min of their lower bounds (`acc`, per depth)
        acc = jnp.where(is_or, -128, 127)
        acc = jnp.where(resumed, jnp.where(is_or, jnp.maximum(stack["acc"][e], y["bound"]),
                                           jnp.minimum(stack["acc"][e], y["bound"])), acc)
        need = self._need(y)
        bound = jnp.where(y["is_goal"], y["sp"] + jnp.where(result, need, need - 1),
                          jnp.where(cut, y["bound"], acc))
        rel = jnp.where(cut, y["rel"], racc)
        # -- not decided: try the best remaining move, then push
        partner_wins = (y["side"][y["best_p"]] == is_or) & ~leading
        mates = y["side"] == is_or
        move = self._choose(cand, leading, y["led"], y["trump"], y["done"], y["best_s"],
                            partner_wins, P, _words_of(H, mates & (jnp.arange(n) != to_move)),
                            _words_of(H, ~mates),
                            (*self._whist_leads(H, to_move, y["trump"]),
                             *self._whist_follow(H, to_move, y["nplayed"], y["best_s"],
                                                 y["best_p"], y["led"], y["trump"], y["side"],
                                                 cand)) if self.quick else None)
        # first the table's best move (on entry; tried first, it is not a candidate later)
        hint = e_bm[jnp.argmax(match & (e_bm >= 0))]
        hint_word, hint_bit = _slot(jnp.maximum(hint, 0))
        use_hint = ~resumed & hit & (hint >= 0) & (((cand[hint_word] >> hint_bit) & 1) != 0)
        # killer move: the last move that cut off a search at this depth, if it is a candidate
        killer = stack["killer"][e].astype(jnp.int32)
        k_word, k_bit = _slot(jnp.maximum(killer, 0))
        use_killer = leading & (killer >= 0) & (((cand[k_word] >> k_bit) & 1) != 0)
        move = jnp.where(use_hint, hint, jnp.where(use_killer, killer, move))
        word, bit = _slot(move)
        card = word < 4
        suit = jnp.where(card, move >> 4, jnp.where(move >= LEAD_CODE, move - LEAD_CODE, 4))
        led = jnp.where(leading, suit, y["led"])
        s = self._strength(move, led, y["trump"], y["done"])
        better = leading | (s > y["best_s"])
        best_s = jnp.where(better, s, y["best_s"])
        best_p = jnp.where(better, to_move, y["best_p"])
        tpts = jnp.where(leading, 0, y["tpts"]) + jnp.where(
            card, (P[word & 3] >> bit) & 1, 0).astype(jnp.int32)
        complete = y["nplayed"] == n - 1
        won = y["side"][best_p]
        gain = tpts + rules.trick_value
        push = dict(
            leader=jnp.where(complete, best_p, y["leader"]), led=led,
            nplayed=jnp.where(complete, 0, y["nplayed"] + 1), best_s=best_s, best_p=best_p,
            tpts=tpts, sp=y["sp"] + jnp.where(complete & won, gain, 0),
            op=y["op"] + jnp.where(complete & ~won, gain, 0),
            done=y["done"] + complete)
        played_H = H.at[to_move, word & 3].set(H[to_move, word & 3]
                                               & ~jnp.where(card, 1 << bit, 0))
        codes = jnp.concatenate([jax.lax.dynamic_slice(
            stack["mv"], (jnp.maximum(e - (n - 1), 0),), (n - 1,)).astype(jnp.int32),
            move[None]])
        squeezed = self._squeeze(jnp.concatenate([played_H, P[None]]), codes)
        go_on = (resumed | entering & ~decided) & ~done_b
        # Rows at depth e (and the frame of trick `done`) are dead unless we go on, so they are
        # written unconditionally. `never` (e < 0 is) ties each write to this step's reads of
        # the same array, so XLA updates it in place instead of copying it every step.
        never = e < 0
        cut_move = undo  # resumed: e is d - 1, whose move led to the child
        stack = dict(
            cand=stack["cand"].at[e].set(
                cand.at[word].set(cand[word] & ~(jnp.uint32(1) << bit)).astype(jnp.uint16)),
            mv=stack["mv"].at[e].set(jnp.where(never, undo + codes[0], move).astype(jnp.int8)),
            snap=stack["snap"].at[e].set(jnp.where(never, snap, jnp.stack(
                [y[k] for k in SNAP])).astype(jnp.int8)),
            acc=stack["acc"].at[e].set(acc.astype(jnp.int8)),
            racc=stack["racc"].at[e].set(racc.astype(jnp.uint16)),
            tried=stack["tried"].at[e].set(jnp.where(
                (SUITS == (word & 3)) & card, tried | (jnp.uint32(1) << bit), tried).astype(
                    jnp.uint16)),
            killer=stack["killer"].at[e].set(jnp.where(
                cut, cut_move, stack["killer"][e]).astype(jnp.int8)),
            fH=stack["fH"].at[y["done"]].set(jnp.where(never, frame_H, played_H).astype(
                jnp.uint16)),
            fP=stack["fP"].at[y["done"]].set(jnp.where(never, frame_P, P).astype(jnp.uint16)),
        )
        new = dict(y)
        for k in SNAP:
            new[k] = jnp.where(go_on, push[k], y[k])
        new.update(
            H=jnp.where(go_on, jnp.where(complete, squeezed[:n], played_H), H),
            P=jnp.where(go_on & complete, squeezed[n], P),
            jk=jnp.where(go_on & ~card, -1, y["jk"]),
            d=jnp.where(go_on, e + 1, e),
            mode=jnp.where(go_on, ENTER, jnp.where(done_b, DECIDED, y["mode"])),
            child=jnp.where(done_b, result, child),
            bound=jnp.where(done_b, bound, y["bound"]),
            rel=jnp.where(done_b, rel, y["rel"]),
            cut=jnp.where(cut, cut_move, -1),
        )
        return self._driver(new, search_done, root_result, root_bound), stack, tt

    def _driver(self, x: dict[str, Array], search_done: Array, result: Array,
                bound: Array) -> dict:
        """After a search of the root ends: narrow the value window (to the search's bound),
        or finish the problem."""
        lo = jnp.where(search_done & result, jnp.maximum(x["lo"], bound), x["lo"])
        hi = jnp.where(search_done & ~result, jnp.minimum(x["hi"], bound), x["hi"])
        finished = search_done & (x["is_goal"] | (lo >= hi)) | x["finished"]
        t = (lo + hi + 1) // 2
        again = search_done & ~finished
        return x | dict(
            lo=lo, hi=hi, finished=finished,
            result=jnp.where(search_done & ~x["finished"],
                             jnp.where(x["is_goal"], result, jnp.where(
                                 x["target"] >= 0, hi >= x["target"], hi)), x["result"]),
            side_min=jnp.where(again, t, x["side_min"]),
            other_max=jnp.where(again, x["total"] - t, x["other_max"]),
            mode=jnp.where(search_done, ENTER, x["mode"]),
        )

    # ---- the batch ------------------------------------------------------------------------------
    def solve_all(self, p: dict[str, Array], count: Array,
                   budget: Array = NO_BUDGET) -> tuple[Array, Array, Array]:
        """Solve problems 0..count-1 of the (padded) batch `p`: (result, nodes, trick nodes)
        per problem. A problem still open after `budget` nodes (checked every `refill_every`
        steps) is given up: result -1. Trick nodes are the nodes at a trick's start (what DDS
        counts as nodes). On these lanes to the end (`run` moves a long tail to fewer)."""
        carry = self._resume(p, count, budget, jnp.int32(NEVER), self._start(p, count))
        return self._results(carry, p["hands"].shape[0])

    @staticmethod
    def _results(carry: tuple, q: int) -> tuple[Array, Array, Array]:
        """(result, nodes, trick nodes) per problem from a search's state."""
        return carry[3][:q], carry[4][0, :q], carry[4][1, :q]

    @staticmethod
    def _with_groups(p: dict[str, Array]) -> dict[str, Array]:
        """The batch `p` with the groups (`_padded`; by default a problem each)."""
        q = p["hands"].shape[0]
        return {"group": jnp.arange(q, dtype=jnp.int32), "gidx": jnp.arange(q, dtype=jnp.int32),
                "start": jnp.arange(q + 1, dtype=jnp.int32),
                "end": jnp.minimum(jnp.arange(q + 1, dtype=jnp.int32) + 1, q)} | p

    def _start(self, p: dict[str, Array], count: Array) -> tuple:
        """A search's state with every lane on its first problem: (lanes, stacks, tables,
        results, nodes, queue, refills spent waiting on a tail)."""
        q, b, n = p["hands"].shape[0], self.lanes, self.n
        p = self._with_groups(p)
        load = jax.vmap(self._load, in_axes=(None, 0))
        # per group the range of its problems no lane has started: [front, back) (index q: a
        # sink)
        first = p["start"][jnp.minimum(jnp.arange(b), q)]
        first = jnp.where(first < count, first, q)
        front = p["start"].at[jnp.where(first < q, jnp.arange(b), q)].add(1)
        lanes = load(p, jnp.minimum(first, q - 1))
        lanes["finished"] = lanes["finished"] | (first >= count)
        mv = jnp.zeros((b, self.depth), jnp.int8)
        stack = dict(cand=jnp.zeros((b, self.depth, 5), jnp.uint16),
                     mv=mv.at[:, :n - 1].set(p["trick"][jnp.minimum(first, q - 1)]),
                     snap=jnp.zeros((b, self.depth, len(SNAP)), jnp.int8),
                     acc=jnp.zeros((b, self.depth), jnp.int8),
                     racc=jnp.zeros((b, self.depth, 4), jnp.uint16),
                     tried=jnp.zeros((b, self.depth, 4), jnp.uint16),
                     killer=jnp.full((b, self.depth), -1, jnp.int8),
                     fH=jnp.zeros((b, self.nt + 1, n, 4), jnp.uint16),
                     fP=jnp.zeros((b, self.nt + 1, 4), jnp.uint16))
        # a lane's table: one row of words an entry, read and written whole: the key (2
        # words); lo | hi << 8 | (best move + 1) << 16; the ranks its result depends on (4
        # suit words, two a word); their holders (n * 4 suit words, two a word)
        tt = jnp.zeros((b, self.tt_size, entry_bytes(self.rules) // 4), jnp.uint32)
        out = jnp.full(q + 1, -1, jnp.int32)  # slot q: a sink for idle lanes
        nodes = jnp.zeros((2, q + 1), jnp.int32)
        lanes["pid"] = first
        return lanes, stack, tt, out, nodes, (front, p["end"], jnp.int32(b)), jnp.int32(0)

    def _resume(self, p: dict[str, Array], count: Array, budget: Array, patience: Array,
                carry: tuple) -> tuple:
        """Search on from the state `carry` (`_start`'s) until every problem is done, or
        every problem has started and at most a quarter of the lanes have been busy for
        `patience` refills (`run` then goes on with fewer lanes)."""
        q, b, n = p["hands"].shape[0], self.lanes, self.n
        p = self._with_groups(p)
        load = jax.vmap(self._load, in_axes=(None, 0))
        step = jax.vmap(self._step)

        def chunk(carry):
            lanes, stack, tt, out, nodes, (front, back, nxt), waited = carry

            def one(_, c):
                return step(*c)
            lanes, stack, tt = jax.lax.fori_loop(0, self.refill_every, one, (lanes, stack, tt))
            over = ~lanes["finished"] & (lanes["nodes"] >= budget)
            lanes["result"] = jnp.where(over, -1, lanes["result"])
            fin = lanes["finished"] | over
            real = lanes["pid"] < count
            where = jnp.where(fin & real, lanes["pid"], q)
            out = out.at[where].set(jnp.where(fin & real, lanes["result"], -1))
            nodes = nodes.at[:, where].set(jnp.stack([lanes["nodes"], lanes["trick_nodes"]]))
            new_pid, front, back, nxt = self._next_problems(p, count, fin & real,
                                                            fin & ~real, lanes["pid"],
                                                            front, back, nxt)
            fresh = load(p, jnp.minimum(new_pid, q - 1))
            fresh["finished"] = new_pid >= count
            fresh["pid"] = jnp.where(new_pid >= count, q, new_pid)
            lanes = jax.tree.map(
                lambda a, f: jnp.where(fin.reshape((-1,) + (1,) * (a.ndim - 1)), f, a),
                lanes, fresh)
            stack["mv"] = stack["mv"].at[:, :n - 1].set(jnp.where(
                fin[:, None], p["trick"][jnp.minimum(new_pid, q - 1)], stack["mv"][:, :n - 1]))
            stack["killer"] = jnp.where(fin[:, None], jnp.int8(-1), stack["killer"])
            tail = (4 * jnp.sum(~lanes["finished"]) <= b) & ~jnp.any(
                self._unstarted(p, count, front, back))
            waited = jnp.where(tail, waited + 1, 0)
            return lanes, stack, tt, out, nodes, (front, back, nxt), waited

        def busy(carry):
            return ~jnp.all(carry[0]["finished"]) & (carry[6] < patience)

        return jax.lax.while_loop(busy, chunk, carry)

    @staticmethod
    def _unstarted(p: dict[str, Array], count: Array, front: Array, back: Array) -> Array:
        """bool[q]: the problems no lane has started (the queue, per group [front, back))."""
        i, gi = jnp.arange(p["hands"].shape[0]), p["gidx"]
        return (i >= front[gi]) & (i < back[gi]) & (i < count)

    @staticmethod
    def _next_problems(p: dict[str, Array], count: Array, done: Array, idle: Array,
                       pid: Array, front: Array, back: Array,
                       nxt: Array) -> tuple[Array, Array, Array, Array]:
        """The work queue: the next problem of each lane that finished one (`done`) or had
        none (`idle`), >= count for none; and the queue's new state. A lane takes, in this
        order: the next unstarted problem of its group (on its own table); the first
        problem of the next group not started (`nxt`); else, once every group has started,
        the last unstarted problem of any group (work stealing: the group's own lane takes
        its problems from the front, idle lanes from the back)."""
        q, lanes = p["hands"].shape[0], jnp.arange(pid.shape[0])
        g = jnp.where(done, p["gidx"][jnp.minimum(pid, q - 1)], q)
        # 1. its own group's next, ranked among the lanes of that group asking at once
        rank = jnp.sum(done[None, :] & (g[None, :] == g[:, None])
                       & (lanes[None, :] < lanes[:, None]), axis=1)
        own = front[g] + rank
        by_own = done & (own < back[g]) & (own < count)
        front = front.at[jnp.where(by_own, g, q)].add(1)
        # 2. a new group
        want = (done | idle) & ~by_own
        new_g = jnp.minimum(nxt + jnp.cumsum(want) - 1, q)
        head = p["start"][new_g]
        by_new = want & (head < count)
        front = front.at[jnp.where(by_new, new_g, q)].set(jnp.where(by_new, head + 1, front[q]))
        # 3. steal: thief r takes the (r + 1)-th unstarted problem from the end
        thief = want & ~by_new
        gi = p["gidx"]
        unstarted = Searcher._unstarted(p, count, front, back)
        suffix = jnp.cumsum(unstarted[::-1])[::-1]  # unstarted problems at or after i
        r = jnp.cumsum(thief) - 1
        stolen = jnp.searchsorted(-suffix, -(r + 1), side="right") - 1
        by_theft = thief & (r < suffix[0])
        stolen = jnp.where(by_theft, stolen, q)
        back = back.at[jnp.where(by_theft, gi[jnp.minimum(stolen, q - 1)], q)].min(stolen)
        new_pid = jnp.where(by_own, own, jnp.where(by_new, head, jnp.where(by_theft, stolen,
                                                                            count)))
        return new_pid, front, back, nxt + jnp.sum(want)

    @staticmethod
    def _padded(problems: Problems) -> dict[str, np.ndarray]:
        """The problem arrays (for the device) padded to a power of two, at least 256 (one
        compile per size class), and the groups for the queue (`solve_all`; a group's
        problems must come one after another): each problem's group index (`gidx`), each
        group's first problem and one past its last (`start`, `end`; then the size: none)."""
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
        return out

    def _executable(self, padded: dict[str, np.ndarray], part: str) -> jax.stages.Compiled:
        """The search's `part` ("start": `_start`, "resume": `_resume`) compiled for the size
        class of `padded` (once; threads share it)."""
        key = part, len(padded["hands"])
        with self._lock:
            if key not in self._compiled:
                count = jnp.int32(0)
                if part == "start":
                    lowered = self._start_jit.lower(padded, count)
                else:
                    carry = jax.eval_shape(self._start, padded, count)
                    lowered = self._resume_jit.lower(padded, count, count, count, carry)
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
        for idx in _shares(problems.group, threads):
            padded = self._padded(problems.take(idx))
            self._executable(padded, "start")
            self._executable(padded, "resume")

    def _search(self, padded: dict[str, np.ndarray], count: int,
                limit: Array) -> tuple[np.ndarray, ...]:
        """(result, nodes, trick nodes) of problems 0..count-1 of `padded`. Once every problem
        has started and at most a quarter of the lanes have been busy for `tail_patience`
        refills, the busy lanes (their searches, stacks and tables as they are) go on in a
        searcher of fewer lanes, whose steps cost less: the same search, sooner."""
        searcher, n = self, jnp.int32(count)
        carry = self._executable(padded, "start")(padded, n)
        while True:
            patience = NEVER if searcher.lanes <= MIN_TAIL_LANES else searcher.tail_patience
            carry = searcher._executable(padded, "resume")(padded, n, limit,
                                                           jnp.int32(patience), carry)
            finished = np.asarray(carry[0]["finished"])
            if finished.all():
                return tuple(np.array(a[:count]) for a in self._results(
                    carry, len(padded["hands"])))
            busy = np.flatnonzero(~finished)
            searcher = searcher._tail(len(busy))
            keep = np.concatenate([busy, np.full(searcher.lanes - len(busy),
                                                 np.flatnonzero(finished)[0])])
            take = functools.partial(jnp.take, indices=jnp.asarray(keep), axis=0)
            carry = (*jax.tree.map(take, carry[:3]), *carry[3:6], jnp.int32(0))

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
            return self._search(self._padded(problems.take(idx)), len(idx), limit)
        shares = _shares(problems.group, threads)
        if len(shares) == 1:
            results = [one(shares[0])]
        else:
            with ThreadPoolExecutor(len(shares)) as pool:
                results = list(pool.map(one, shares))
        order = np.argsort(np.concatenate(shares))
        return tuple(np.concatenate(cols)[order] for cols in zip(*results, strict=True))

    def legal_at_roots(self, problems: Problems) -> tuple[np.ndarray, np.ndarray]:
        """bool[Q, M] twice (M: the game's action ids): the legal moves at each problem's
        root (root limits included), and those of them the search tries (one per
        rank-equivalence class)."""
        q, m = len(problems), self.rules.num_moves
        legal, tried = (np.asarray(w)[:q] for w in self._legal_roots(self._padded(problems)))
        def actions(words: np.ndarray) -> np.ndarray:
            out = np.zeros((q, m), bool)
            for code in CODES:
                word, bit = _word_bit(code)
                on = ((words[:, word] >> bit) & 1).astype(bool) & (problems.move_of[:, code]
                                                                    >= 0)
                out[on, problems.move_of[on, code]] = True
            return out
        return actions(legal), actions(tried)

    def _roots_legal(self, p: dict[str, Array]) -> tuple[Array, Array]:
        def one(pid: Array) -> tuple[Array, Array]:
            x = self._load(p, pid)
            to_move = (x["leader"] + x["nplayed"]) % self.n
            h = x["H"][to_move]
            legal = self._legal(h, x["jk"] == to_move, x["nplayed"] == 0, x["led"],
                                x["done"]) & x["root_mask"]
            return legal, self._equivalent(legal, h, x["P"])
        return jax.vmap(one)(jnp.arange(p["hands"].shape[0]))


def _shares(group: np.ndarray, threads: int) -> list[np.ndarray]:
    """The problems of each of (at most) `threads` searches: the groups dealt out in turn,
    each group's problems together and in their order."""
    order = np.argsort(group, kind="stable")
    if not len(order):
        return [order]
    starts = np.concatenate([[True], group[order][1:] != group[order][:-1]])
    which = np.cumsum(starts) - 1  # each problem's group, counted in order
    parts = max(1, min(threads, int(which[-1]) + 1))
    return [order[which % parts == k] for k in range(parts)]


def entry_bytes(rules: Rules) -> int:
    """The bytes of one table entry (`Searcher.solve_all`'s row)."""
    return 4 * (5 + 2 * rules.n)


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
