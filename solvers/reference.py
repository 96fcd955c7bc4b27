"""The exact CPU reference double-dummy solver: plain Python, written from the rules alone.

It does not use the JAX engine (`kanjax.games`, `kanjax.core.trick`), so the two can check each
other. Positions and goals are `solvers.position`'s, the rules data the game gives: follow
suit if able; the joker, where the deck has one, played when `Rules.joker` allows it in the
trick and beating every card (the led suit's lowest in the last trick under
`joker_low_last`); else the highest trump, else the highest card of the led suit wins.

- `legal_moves`, `play`: the rules.
- `minimax`: brute force over every line of play; the check for everything else.
- `value`, `move_values`, `reaches`: alpha-beta / goal search with transposition tables at
  trick boundaries and rank equivalence (`Solver`, which keeps its tables between queries).
"""

from __future__ import annotations

import dataclasses
import functools

from solvers.position import JK, LEAD_JK, Position, Rules

_INF = 1 << 30


@dataclasses.dataclass(frozen=True)
class _Tables:
    """Bit masks over card ids: each suit's cards, the cards above each card in its suit."""

    suit_mask: tuple[int, ...]
    above: tuple[int, ...]
    jk: int  # JK's bit; 0 without a joker


@functools.cache
def _tables(rules: Rules) -> _Tables:
    rules.check_limits()  # every search reads these tables first
    suit_mask = [0] * 4
    for c in rules.ids:
        if rules.suit[c] < 4:
            suit_mask[rules.suit[c]] |= 1 << c
    for s, mask in enumerate(suit_mask):
        ranks = [rules.rank[c] for c in range(rules.num_ids) if mask >> c & 1]
        if ranks != sorted(set(ranks)):  # rank equivalence reads the next card up as a bit
            raise ValueError(f"{rules.game}: suit {s} ranks must rise with the card id")
    above = tuple(suit_mask[rules.suit[c]] & -(2 << c) if rules.suit[c] < 4 else 0
                  for c in range(rules.num_ids))
    jk = 1 << JK if rules.joker else 0
    return _Tables(tuple(suit_mask), above, jk)


def _ids(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _legal(rules: Rules, t: _Tables, hand: int, trick_len: int, led: int, done: int
           ) -> list[int]:
    """Legal moves from the hand `hand` (a bit mask) in trick `done + 1`; `t` is
    `_tables(rules)`."""
    plain = hand & ~t.jk
    if trick_len:
        plain = plain & t.suit_mask[led] or plain
    moves = _ids(plain)
    if hand & t.jk:
        rule = rules.joker[done]
        jk_moves = [JK] if trick_len else [LEAD_JK + s for s in range(4)]  # led naming a suit
        if rule == "only":
            return jk_moves
        if rule == "any" or (rule == "follow" and trick_len):
            moves += jk_moves
    if not moves:
        raise ValueError(f"{rules.game}: the joker alone in trick {done + 1}, where it may "
                         "not be played: unreachable")
    return moves


def _power(rules: Rules, card: int, led: int, trump: int, last: bool) -> tuple[int, int]:
    """How strong `card` is in a trick: the highest wins. The joker, else trumps, else the
    led suit; other cards never win. Under `joker_low_last` the joker is the led suit's
    lowest card in the last trick."""
    if card == JK:
        return (1, -1) if last and rules.joker_low_last else (3, 0)
    s = rules.suit[card]
    return (2, rules.rank[card]) if s == trump else (1, rules.rank[card]) if s == led else (0, 0)


def _winner(rules: Rules, trick: tuple[int, ...], led: int, trump: int, last: bool) -> int:
    """Index in `trick` of the card that wins it."""
    powers = [_power(rules, c, led, trump, last) for c in trick]
    return powers.index(max(powers))


def _after(rules: Rules, trump: int, leader: int, trick: tuple[int, ...], led: int, done: int,
           move: int) -> tuple[int, tuple[int, ...], int, int, int]:
    """(leader, trick, led, done, gain) after `move`; a completed trick is cleared, its winner
    leads and `gain` is its value (0 while it is open)."""
    card = JK if move >= LEAD_JK else move
    if not trick:
        led = move - LEAD_JK if move >= LEAD_JK else rules.suit[card]  # KAN-24, KAN-26
    trick += (card,)
    if len(trick) < rules.n:
        return leader, trick, led, done, 0
    win = (leader + _winner(rules, trick, led, trump, done == rules.n_tricks - 1)) % rules.n
    return win, (), -1, done + 1, rules.trick_value + sum(rules.points[c] for c in trick)


def legal_moves(pos: Position) -> list[int]:
    """The legal moves of `pos.to_move` (within `pos.root_moves` if set); [] once the deal is
    over. ValueError if there are none before that (JK alone in Gonin's trick 10)."""
    if pos.tricks_done == pos.rules.n_tricks:
        return []
    hand = sum(1 << c for c in pos.hands[pos.to_move])
    moves = _legal(pos.rules, _tables(pos.rules), hand, len(pos.trick), pos.led, pos.tricks_done)
    if pos.root_moves is not None:
        moves = [m for m in moves if m in pos.root_moves]
        if not moves:
            raise ValueError(f"{pos.rules.game}: no legal move among {pos.root_moves}")
    return moves


def play(pos: Position, move: int) -> Position:
    """The position after `move` (KAN-23); a completed trick goes to its winner's side."""
    if move not in legal_moves(pos):
        raise ValueError(f"{pos.rules.game}: illegal move {move} for seat {pos.to_move}")
    seat, card = pos.to_move, JK if move >= LEAD_JK else move
    hands = tuple(tuple(c for c in h if c != card) if s == seat else h
                  for s, h in enumerate(pos.hands))
    leader, trick, led, done, gain = _after(pos.rules, pos.trump, pos.leader, pos.trick,
                                            pos.led, pos.tricks_done, move)
    won = pos.side[leader]  # gain is 0 while the trick is open
    return dataclasses.replace(pos, hands=hands, leader=leader, trick=trick, led=led,
                               tricks_done=done, taken=pos.taken + gain * won,
                               taken_other=pos.taken_other + gain * (not won), root_moves=None)


def minimax(pos: Position) -> int:
    """The value of `pos` by brute force over every line of play: no pruning, no tables."""
    r, t, hands = pos.rules, _tables(pos.rules), [sum(1 << c for c in h) for h in pos.hands]

    def best(leader: int, trick: tuple[int, ...], led: int, done: int, taken: int,
             moves: list[int] | None = None) -> int:
        if done == r.n_tricks:
            return taken
        seat = (leader + len(trick)) % r.n
        values = []
        for m in _legal(r, t, hands[seat], len(trick), led, done) if moves is None else moves:
            bit = 1 << (JK if m >= LEAD_JK else m)
            hands[seat] ^= bit
            l2, t2, led2, d2, gain = _after(r, pos.trump, leader, trick, led, done, m)
            values.append(best(l2, t2, led2, d2, taken + gain * pos.side[l2]))
            hands[seat] ^= bit
        return max(values) if pos.side[seat] else min(values)

    return best(pos.leader, pos.trick, pos.led, pos.tricks_done, pos.taken, legal_moves(pos))


def remaining(pos: Position) -> int:
    """What the tricks still to complete are worth (the current one included)."""
    r = pos.rules
    cards = [c for h in pos.hands for c in h] + list(pos.trick)
    return (r.n_tricks - pos.tricks_done) * r.trick_value + sum(r.points[c] for c in cards)


class Solver:
    """Searches for positions of one deal: one ruleset, trump and side. Its transposition
    tables stay valid across queries (they hold bounds on what is still to come), so ask one
    solver many questions about a deal. `nodes` counts the positions searched."""

    def __init__(self, rules: Rules, trump: int, side: tuple[bool, ...]) -> None:
        self.rules, self.trump, self.side = rules, trump, side
        self._tables = _tables(rules)
        self.nodes = 0
        self._hands: list[int] = []
        self._bounds: dict[tuple[int, ...], tuple[int, int]] = {}  # future value: lo, hi
        self._goals: dict[tuple[int, ...], bool] = {}

    def value(self, pos: Position) -> int:
        """The double-dummy value of `pos`: the side's total at the end, the side maximising."""
        self._check(pos)
        if pos.root_moves is not None and legal_moves(pos):
            values = [self.value(play(pos, m)) for m in legal_moves(pos)]
            return max(values) if pos.side[pos.to_move] else min(values)
        rem = self._load(pos)
        lo, hi = pos.taken, pos.taken + rem
        guess = (lo + hi) // 2
        while lo < hi:  # MTD(f): null-window searches; the tables keep the work between them
            beta = max(guess, lo + 1)
            guess = self._alphabeta(pos.leader, pos.trick, pos.led, pos.tricks_done, pos.taken,
                                    rem, beta - 1, beta)
            if guess < beta:
                hi = guess
            else:
                lo = guess
        return lo

    def move_values(self, pos: Position) -> dict[int, int]:
        """The value after each legal move of `pos`."""
        return {m: self.value(play(pos, m)) for m in legal_moves(pos)}

    def reaches(self, pos: Position, side_min: int, other_max: int) -> bool:
        """Whether the side can force the goal `(side_min, other_max)` (`solvers.position`)."""
        self._check(pos)
        if pos.taken_other > other_max:
            return False
        if pos.taken >= side_min:
            return True
        if pos.root_moves is not None and legal_moves(pos):
            results = (self.reaches(play(pos, m), side_min, other_max)
                       for m in legal_moves(pos))
            return any(results) if pos.side[pos.to_move] else all(results)
        rem = self._load(pos)
        return self._reach(pos.leader, pos.trick, pos.led, pos.tricks_done,
                           side_min - pos.taken, other_max - pos.taken_other, rem)

    def _check(self, pos: Position) -> None:
        if (pos.rules, pos.trump, pos.side) != (self.rules, self.trump, self.side):
            raise ValueError("position of another deal: rules, trump or side differ")

    def _load(self, pos: Position) -> int:
        """Takes up `pos`'s hands; returns what its unfinished tricks are worth."""
        self._hands = [sum(1 << c for c in h) for h in pos.hands]
        return remaining(pos)

    def _moves(self, seat: int, trick: tuple[int, ...], led: int, done: int) -> list[int]:
        """Legal moves, one per class of equivalent cards, likely best first."""
        r, hands, hand = self.rules, self._hands, self._hands[seat]
        moves = _legal(r, self._tables, hand, len(trick), led, done)
        if len(moves) < 2:
            return moves
        live = sum(1 << c for c in trick)
        for h in hands:
            live |= h
        above = self._tables.above
        out = []
        for m in moves:
            if m < JK:  # equivalent to the next card up of this suit still in play?
                nxt = live & above[m]
                low = nxt & -nxt
                if hand & low and r.points[m] == r.points[low.bit_length() - 1]:
                    continue
            out.append(m)
        if not trick:  # lead high cards first
            out.sort(key=lambda m: 13 if m >= JK else r.rank[m], reverse=True)
        else:  # first the cards that leave the trick to our side, low ones first
            last = done == r.n_tricks - 1
            w = _winner(r, trick, led, self.trump, last)
            top = _power(r, trick[w], led, self.trump, last)
            ours = self.side[(seat - len(trick) + w) % r.n] == self.side[seat]

            def key(m: int) -> tuple[bool, int, int]:
                good = ours or _power(r, m, led, self.trump, last) > top
                p = r.points[m if m <= JK else JK]
                return not good, -p if good else p, 13 if m >= JK else r.rank[m]

            out.sort(key=key)
        return out

    def _alphabeta(self, leader: int, trick: tuple[int, ...], led: int, done: int, taken: int,
                   rem: int, alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta: the exact value if it lies in (alpha, beta), else a bound
        beyond the window. `rem` is what the unfinished tricks are worth."""
        self.nodes += 1
        if rem == 0 or taken >= beta:
            return taken
        if taken + rem <= alpha:
            return taken + rem
        key = None
        if not trick:  # the hands fix the trick number too
            key = (*self._hands, leader)
            lo, hi = self._bounds.get(key, (0, rem))
            lo, hi = lo + taken, hi + taken
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            alpha, beta = max(alpha, lo), min(beta, hi)
        r, hands = self.rules, self._hands
        seat = (leader + len(trick)) % r.n
        maximise = self.side[seat]
        a, b = alpha, beta
        best = -_INF if maximise else _INF
        for m in self._moves(seat, trick, led, done):
            bit = 1 << (JK if m >= LEAD_JK else m)
            hands[seat] ^= bit
            l2, t2, led2, d2, gain = _after(r, self.trump, leader, trick, led, done, m)
            v = self._alphabeta(l2, t2, led2, d2, taken + gain * self.side[l2], rem - gain,
                                a, b)
            hands[seat] ^= bit
            if maximise:
                best = max(best, v)
                a = max(a, best)
            else:
                best = min(best, v)
                b = min(b, best)
            if a >= b:
                break
        if key is not None:
            if best <= alpha:
                hi = best
            elif best >= beta:
                lo = best
            else:
                lo = hi = best
            self._bounds[key] = (lo - taken, hi - taken)
        return best

    def _reach(self, leader: int, trick: tuple[int, ...], led: int, done: int, need: int,
               slack: int, rem: int) -> bool:
        """Whether the side can take `need` more before the others take more than `slack`."""
        self.nodes += 1
        if need <= 0:
            return True
        if need > rem:
            return False
        slack = min(slack, rem - need)  # the others can take no more before we succeed
        key = None
        if not trick:
            key = (*self._hands, leader, need, slack)
            known = self._goals.get(key)
            if known is not None:
                return known
        r, hands = self.rules, self._hands
        seat = (leader + len(trick)) % r.n
        want = self.side[seat]
        result = not want
        for m in self._moves(seat, trick, led, done):
            bit = 1 << (JK if m >= LEAD_JK else m)
            hands[seat] ^= bit
            l2, t2, led2, d2, gain = _after(r, self.trump, leader, trick, led, done, m)
            if gain and self.side[l2]:
                ok = self._reach(l2, t2, led2, d2, need - gain, slack, rem - gain)
            else:
                ok = gain <= slack and self._reach(l2, t2, led2, d2, need, slack - gain,
                                                   rem - gain)
            hands[seat] ^= bit
            if ok == want:
                result = want
                break
        if key is not None:
            self._goals[key] = result
        return result


def value(pos: Position) -> int:
    """The double-dummy value of `pos` (alpha-beta; see `Solver`)."""
    return Solver(pos.rules, pos.trump, pos.side).value(pos)


def move_values(pos: Position) -> dict[int, int]:
    """The value after each legal move of `pos`, equivalent cards included."""
    return Solver(pos.rules, pos.trump, pos.side).move_values(pos)


def reaches(pos: Position, side_min: int, other_max: int) -> bool:
    """Whether the side can force the goal `(side_min, other_max)` (`solvers.position`)."""
    return Solver(pos.rules, pos.trump, pos.side).reaches(pos, side_min, other_max)
