"""The plain-Python reference double-dummy solver for plays of several cards (Da Bai Fen's
trick play, DBF-20..30): slow and obvious, written from the rules alone, the oracle of the
compiled search (`solvers.cpu.multi`).

A move is a play mask (`solvers.position.play_mask`): the cards of one play.

- A lead (DBF-21) is one card, or two or more cards of one effective suit (`Rules.suit`: every
  trump of the trump suit). A multi-lead is valid (DBF-23) iff no card held by another seat
  beats (DBF-8: same effective suit, strictly stronger) any led card. An invalid one is, by
  `Rules.invalid_lead` (DBF-24): "penalty", a move that ends the deal at once, the offending
  side's total 0 and the other side's `Rules.penalty` (100 + the kitty's points, DBF-42,
  whatever was taken before); "mask", an illegal move.
- A follow (DBF-25) is `n` cards, `n` the lead's: `k >= n` cards of the led suit held -> `n`
  of them; `k < n` -> all `k` and any `n - k` others.
- The winner (DBF-26): a play all of whose cards are trumps is worth its strongest card; when
  a plain suit is led, such a play beats every other, and another play is worth its strongest
  card of the led suit (nothing without one); when trumps are led only all-trump plays count.
  The first play of the greatest worth wins (DBF-8: equal -> the earlier).
- The winner's side takes the trick's card points (DBF-28) and `Rules.trick_value`; the last
  trick (every hand empty after it) `Rules.last_bonus` more, times the cards of a play with
  `last_bonus_per_card` (DBF-29, V4).

The value of a position is the side's total at the end (`taken` included), the side
maximising (`Position.side`: for Da Bai Fen the opponents, so the value is P, DBF-30).
`minimax` searches every legal play of every seat, with a table of the values of positions
already met (keyed by everything that decides what is still to come, `taken` included,
since a penalty replaces the totals).
"""

from __future__ import annotations

import itertools

from solvers.position import Position, Rules, multi_card_limits, play_mask

__all__ = ["check", "legal_plays", "minimax", "move_values", "value"]


def check(rules: Rules) -> None:
    """ValueError naming everything of `rules` the multi-card searches do not take."""
    why = multi_card_limits(rules)
    if why:
        raise ValueError(f"{rules.game}: beyond the multi-card searches' limits: "
                         + "; ".join(why))


def _beats(rules: Rules, x: int, y: int) -> bool:
    """DBF-8: card x beats card y."""
    return rules.suit[x] == rules.suit[y] and rules.rank[x] > rules.rank[y]


def _valid(rules: Rules, lead: tuple[int, ...], others: list[int]) -> bool:
    """DBF-23: a lead is valid iff it is one card or no card of `others` beats a led card."""
    return len(lead) == 1 or not any(_beats(rules, o, c) for o in others for c in lead)


def _leads(rules: Rules, hand: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every lead of the right shape (DBF-21): one card, or 2+ cards of one effective suit."""
    out = [(c,) for c in hand]
    for s in sorted({rules.suit[c] for c in hand}):
        cards = [c for c in hand if rules.suit[c] == s]
        for k in range(2, len(cards) + 1):
            out += list(itertools.combinations(cards, k))
    return out


def _follows(rules: Rules, hand: tuple[int, ...], led: int, n: int) -> list[tuple[int, ...]]:
    """Every follow of `n` cards (DBF-25)."""
    of_led = [c for c in hand if rules.suit[c] == led]
    if len(of_led) >= n:
        return list(itertools.combinations(of_led, n))
    rest = [c for c in hand if rules.suit[c] != led]
    return [tuple(sorted(of_led + list(more)))
            for more in itertools.combinations(rest, n - len(of_led))]


def _worth(rules: Rules, play: tuple[int, ...], led: int, trump: int) -> tuple[int, int]:
    """A play's worth in a trick (DBF-26): all-trump -> (2, its top); else (1, its top card
    of a plain led suit) or (0, 0)."""
    if all(rules.suit[c] == trump for c in play):
        return 2, max(rules.rank[c] for c in play)
    of_led = [rules.rank[c] for c in play if rules.suit[c] == led]
    if led != trump and of_led:
        return 1, max(of_led)
    return 0, 0


def _winner(rules: Rules, plays: tuple[tuple[int, ...], ...], trump: int) -> int:
    """The index of the winning play: the first of the greatest worth (DBF-26, DBF-8)."""
    led = rules.suit[plays[0][0]]
    worths = [_worth(rules, p, led, trump) for p in plays]
    return worths.index(max(worths))


def _moves(rules: Rules, hands, seat: int, plays) -> list[tuple[tuple[int, ...], bool]]:
    """(play, invalid) for every legal play of `seat`; `invalid`: an invalid multi-lead (a
    penalty move)."""
    hand = hands[seat]
    if plays:
        return [(p, False) for p in _follows(rules, hand, rules.suit[plays[0][0]],
                                             len(plays[0]))]
    others = [c for s, h in enumerate(hands) if s != seat for c in h]
    out = []
    for lead in _leads(rules, hand):
        ok = _valid(rules, lead, others)
        if ok or rules.invalid_lead == "penalty":
            out.append((lead, not ok))
    return out


def _check(pos: Position) -> None:
    check(pos.rules)
    if pos.root_moves is not None:
        raise ValueError(f"{pos.rules.game}: root move limits are not taken with plays of "
                         "several cards")


def legal_plays(pos: Position) -> list[int]:
    """The legal plays of `pos.to_move` as play masks, sorted ([] once the deal is over)."""
    _check(pos)
    if not any(pos.hands):
        return []
    return sorted(play_mask(p) for p, _ in _moves(pos.rules, pos.hands, pos.to_move,
                                                   pos.plays))


class _Search:
    """Minimax over every legal play, with a table of the positions met."""

    def __init__(self, pos: Position) -> None:
        self.rules, self.trump, self.side = pos.rules, pos.trump, pos.side
        self.memo: dict[tuple, int] = {}

    def penalty(self, seat: int) -> int:
        """The side's total after `seat` leads an invalid multi-lead (DBF-24)."""
        return 0 if self.side[seat] else self.rules.penalty

    def after(self, hands, leader, plays, taken, other, seat, play) -> tuple:
        """The state after `seat` plays `play`: a completed trick goes to its winner's side."""
        r = self.rules
        hands = tuple(tuple(c for c in h if c not in play) if s == seat else h
                      for s, h in enumerate(hands))
        plays = plays + (play,)
        if len(plays) < r.n:
            return hands, leader, plays, taken, other
        win = (leader + _winner(r, plays, self.trump)) % r.n
        gain = r.trick_value + sum(r.points[c] for p in plays for c in p)
        if not any(hands):  # the last trick (DBF-29, V4)
            gain += r.last_bonus * (len(play) if r.last_bonus_per_card else 1)
        if self.side[win]:
            return hands, win, (), taken + gain, other
        return hands, win, (), taken, other + gain

    def best(self, hands, leader, plays, taken, other) -> int:
        if not any(hands) and not plays:
            return taken
        key = (hands, leader, plays, taken, other)
        if key not in self.memo:
            seat = (leader + len(plays)) % self.rules.n
            values = [self.child(hands, leader, plays, taken, other, seat, p, bad)
                      for p, bad in _moves(self.rules, hands, seat, plays)]
            self.memo[key] = max(values) if self.side[seat] else min(values)
        return self.memo[key]

    def child(self, hands, leader, plays, taken, other, seat, play, invalid) -> int:
        if invalid:
            return self.penalty(seat)
        return self.best(*self.after(hands, leader, plays, taken, other, seat, play))


def _start(pos: Position) -> tuple:
    return (tuple(tuple(sorted(h)) for h in pos.hands), pos.leader,
            tuple(tuple(sorted(p)) for p in pos.plays), pos.taken, pos.taken_other)


def minimax(pos: Position) -> int:
    """The value of `pos`: the side's total at the end, every seat playing perfectly."""
    _check(pos)
    return _Search(pos).best(*_start(pos))


def move_values(pos: Position) -> dict[int, int]:
    """The value after each legal play of `pos` (by play mask); {} once the deal is over."""
    _check(pos)
    search = _Search(pos)
    hands, leader, plays, taken, other = _start(pos)
    if not any(hands):
        return {}
    seat = pos.to_move
    return {play_mask(p): search.child(hands, leader, plays, taken, other, seat, p, bad)
            for p, bad in _moves(pos.rules, hands, seat, plays)}


value = minimax
