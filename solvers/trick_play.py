"""The trick-play rules of a double-dummy `Position` in plain Python: the legal moves, the
position after a move and what is left to win. The game's rules come as data
(`solvers.position.Rules`): follow suit if able; the joker, where the deck has one, played when
`Rules.joker` allows it in the trick and beating every card (the led suit's lowest in the last
trick under `joker_low_last`); else the highest trump, else the highest card of the led suit
wins. The CPU backend's root handling, the conversions and the plain-Python reference solver
(`solvers.reference`, the tests' oracle) read them; the compiled searches have their own move
generators, checked against these."""

from __future__ import annotations

import dataclasses
import functools

from solvers.position import JK, LEAD_JK, Position, Rules


@dataclasses.dataclass(frozen=True)
class Tables:
    """Bit masks over card ids: each suit's cards, the cards above each card in its suit."""

    suit_mask: tuple[int, ...]
    above: tuple[int, ...]
    jk: int  # JK's bit; 0 without a joker


@functools.cache
def tables(rules: Rules) -> Tables:
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
    return Tables(tuple(suit_mask), above, jk)


def card_ids(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def legal(rules: Rules, t: Tables, hand: int, trick_len: int, led: int, done: int
           ) -> list[int]:
    """Legal moves from the hand `hand` (a bit mask) in trick `done + 1`; `t` is
    `tables(rules)`."""
    plain = hand & ~t.jk
    if trick_len:
        plain = plain & t.suit_mask[led] or plain
    moves = card_ids(plain)
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


def power(rules: Rules, card: int, led: int, trump: int, last: bool) -> tuple[int, int]:
    """How strong `card` is in a trick: the highest wins. The joker, else trumps, else the
    led suit; other cards never win. Under `joker_low_last` the joker is the led suit's
    lowest card in the last trick."""
    if card == JK:
        return (1, -1) if last and rules.joker_low_last else (3, 0)
    s = rules.suit[card]
    return (2, rules.rank[card]) if s == trump else (1, rules.rank[card]) if s == led else (0, 0)


def winner(rules: Rules, trick: tuple[int, ...], led: int, trump: int, last: bool) -> int:
    """Index in `trick` of the card that wins it."""
    powers = [power(rules, c, led, trump, last) for c in trick]
    return powers.index(max(powers))


def after(rules: Rules, trump: int, leader: int, trick: tuple[int, ...], led: int, done: int,
           move: int) -> tuple[int, tuple[int, ...], int, int, int]:
    """(leader, trick, led, done, gain) after `move`; a completed trick is cleared, its winner
    leads and `gain` is its value (0 while it is open)."""
    card = JK if move >= LEAD_JK else move
    if not trick:
        led = move - LEAD_JK if move >= LEAD_JK else rules.suit[card]  # KAN-24, KAN-26
    trick += (card,)
    if len(trick) < rules.n:
        return leader, trick, led, done, 0
    win = (leader + winner(rules, trick, led, trump, done == rules.n_tricks - 1)) % rules.n
    return win, (), -1, done + 1, rules.trick_value + sum(rules.points[c] for c in trick)


def legal_moves(pos: Position) -> list[int]:
    """The legal moves of `pos.to_move` (within `pos.root_moves` if set); [] once the deal is
    over. ValueError if there are none before that (a joker alone in a hand whose last trick
    bars it)."""
    if pos.tricks_done == pos.rules.n_tricks:
        return []
    hand = sum(1 << c for c in pos.hands[pos.to_move])
    moves = legal(pos.rules, tables(pos.rules), hand, len(pos.trick), pos.led, pos.tricks_done)
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
    leader, trick, led, done, gain = after(pos.rules, pos.trump, pos.leader, pos.trick,
                                            pos.led, pos.tricks_done, move)
    won = pos.side[leader]  # gain is 0 while the trick is open
    return dataclasses.replace(pos, hands=hands, leader=leader, trick=trick, led=led,
                               tricks_done=done, taken=pos.taken + gain * won,
                               taken_other=pos.taken_other + gain * (not won), root_moves=None)


def remaining(pos: Position) -> int:
    """What the tricks still to complete are worth (the current one included)."""
    r = pos.rules
    cards = [c for h in pos.hands for c in h] + list(pos.trick)
    return (r.n_tricks - pos.tricks_done) * r.trick_value + sum(r.points[c] for c in cards)
