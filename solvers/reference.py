"""The exact CPU reference double-dummy solver: plain Python, written from the rules alone.

It does not use the JAX engine (`kanjax.games`, `kanjax.core.trick`), so the two can check each
other. Positions and goals are `solvers.position`'s; the rules (`legal_moves`, `play`,
`remaining`) are `solvers.trick_play`'s.

- `minimax`: brute force over every line of play; the check for everything else.
- `value`, `move_values`, `reaches`: alpha-beta / goal search with transposition tables at
  trick boundaries and rank equivalence (`Solver`, which keeps its tables between queries).
"""

from __future__ import annotations

from solvers.position import JK, LEAD_JK, Position, Rules
from solvers.trick_play import after, legal, legal_moves, play, power, remaining, tables, winner

_INF = 1 << 30


def minimax(pos: Position) -> int:
    """The value of `pos` by brute force over every line of play: no pruning, no tables."""
    r, t, hands = pos.rules, tables(pos.rules), [sum(1 << c for c in h) for h in pos.hands]

    def best(leader: int, trick: tuple[int, ...], led: int, done: int, taken: int,
             moves: list[int] | None = None) -> int:
        if done == r.n_tricks:
            return taken
        seat = (leader + len(trick)) % r.n
        values = []
        for m in legal(r, t, hands[seat], len(trick), led, done) if moves is None else moves:
            bit = 1 << (JK if m >= LEAD_JK else m)
            hands[seat] ^= bit
            l2, t2, led2, d2, gain = after(r, pos.trump, leader, trick, led, done, m)
            values.append(best(l2, t2, led2, d2, taken + gain * pos.side[l2]))
            hands[seat] ^= bit
        return max(values) if pos.side[seat] else min(values)

    return best(pos.leader, pos.trick, pos.led, pos.tricks_done, pos.taken, legal_moves(pos))


class Solver:
    """Searches for positions of one deal: one ruleset, trump and side. Its transposition
    tables stay valid across queries (they hold bounds on what is still to come), so ask one
    solver many questions about a deal. `nodes` counts the positions searched."""

    def __init__(self, rules: Rules, trump: int, side: tuple[bool, ...]) -> None:
        self.rules, self.trump, self.side = rules, trump, side
        self._tables = tables(rules)
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
        moves = legal(r, self._tables, hand, len(trick), led, done)
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
            w = winner(r, trick, led, self.trump, last)
            top = power(r, trick[w], led, self.trump, last)
            ours = self.side[(seat - len(trick) + w) % r.n] == self.side[seat]

            def key(m: int) -> tuple[bool, int, int]:
                good = ours or power(r, m, led, self.trump, last) > top
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
            l2, t2, led2, d2, gain = after(r, self.trump, leader, trick, led, done, m)
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
            l2, t2, led2, d2, gain = after(r, self.trump, leader, trick, led, done, m)
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
