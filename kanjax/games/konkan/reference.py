"""Plain-Python reference rules of Konkan (konkan.md KON-1..38, konkan_engine.md KON-E1..E16).

Slow, obvious and independent of the JAX engine: differential tests replay the engine's rounds
through `KonRef` and compare every step. The vocabulary (card types, action ids, phases,
outcomes, summary keys, config, the deal's layout) is `kanjax.games.konkan.spec`; every rule is
written here, from the rules file, with the rule ids in comments.

Use: `KonRef(config)`; while `needs_deal` is True it waits for `deal(order, dealer)`, one
round's deck order (KON-6, KON-E1); then `legal_actions()`, `apply(action)`, `facts()` (the
summary the harness compares), `scores()`, `terminal`. A game is `n_rounds` rounds in one
instance (KON-5, KON-E5). `KonRef.from_position(...)` builds a hand-made position.

The searches (KON-E9 picks, KON-E11 taking) are plain searches over the melds formable from a
hand: `new_melds` lists every run and set a hand can lay, `moves` every legal finishing action
of a position; the opened player's taking test (`_completable`) is a depth-first search over
the actual table actions of the turn, memoised on the position, stopping at the first sequence
that places the card; the unopened player's (`_opening_exists`) a search over sets of disjoint
melds of the hand plus the card.

Where the rules and docs/rules/konkan_engine.md leave the implementer a choice (the state
while a deal is awaited and at the end, the dealer of `deal`, KON-E10's empty opening, KON-E11
with `take_must_use_card=False` against KON-16, meld slots, jokers-only layoffs, konkan before
hand in KON-E13, partnership rewards, `from_position`), the reference's decisions are listed
in docs/reference-conventions.md.
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

from kanjax.games.konkan.spec import (
    BLOCKED,
    COPIES,
    DECK,
    DECK_SIZE,
    DISCARD,
    DRAW,
    EMPTY,
    HAND,
    IN_PLAY,
    JOKER,
    JOKER_CARD,
    JOKER_HAND_VALUE,
    KONKAN,
    LAYOFF,
    LAYOFF_LOW,
    MAX_HAND,
    MAX_MELDS,
    MAX_RUN,
    MAX_SET,
    NATURAL,
    NO_MELD,
    NUM_ACTIONS,
    NUM_RANKS,
    NUM_SUITS,
    NUM_TYPES,
    OUT,
    PHASE_ACT,
    PHASE_DRAW,
    PHASE_OVER,
    PICK,
    REQUEST,
    RETRACT,
    RETRIEVE,
    RUN,
    RUN_MELD,
    RUN_POSITIONS,
    RUN_STARTS,
    SET,
    SET_MELD,
    SUMMARY_KEYS,
    TAKE,
    KonConfig,
    action_name,
    card_type,
    deal_hands,
    position_rank,
    rank_of,
    rank_value,
    suit_of,
)

MIN_MELD = 3  # KON-7, KON-8
OUT_SCORE = -30  # KON-29
HAND_SCORE = -60  # KON-26, KON-29
UNOPENED_SCORE = 100  # KON-29, KON-30
KONKAN_SCORE = 200  # KON-26
KONKAN_PARTS = {(RUN_MELD, 10): (SET_MELD, 4), (RUN_MELD, 11): (SET_MELD, 3),  # KON-25
                (SET_MELD, 4): (RUN_MELD, 10), (SET_MELD, 3): (RUN_MELD, 11)}

# The type on each run position of each suit, and each position's value (KON-2, KON-3).
POS_TYPE = tuple(tuple(card_type(s, position_rank(q)) for q in range(RUN_POSITIONS))
                 for s in range(NUM_SUITS))
POS_VALUE = tuple(rank_value(position_rank(q)) for q in range(RUN_POSITIONS))
RANK_TYPES = tuple(tuple(card_type(s, r) for s in range(NUM_SUITS)) for r in range(NUM_RANKS))
SUIT_TYPES = tuple(tuple(card_type(s, r) for r in range(NUM_RANKS)) for s in range(NUM_SUITS))
assert all(SUIT_TYPES[s] == tuple(range(NUM_RANKS * s, NUM_RANKS * (s + 1)))
           and RANK_TYPES[r][s] == SUIT_TYPES[s][r] for s in range(NUM_SUITS)
           for r in range(NUM_RANKS))  # the slices of `_suit_cards` and `_rank_cards`

# A table meld is an immutable tuple:
#   run: (RUN_MELD, suit, cells), cells[q] = EMPTY / NATURAL / JOKER_CARD on position q = 0..13
#   set: (SET_MELD, rank, suits, jokers), suits[s] = 1 where it holds the natural of suit s


def cards(spec) -> list[int]:
    """Card types from space-separated tokens ('4S JK 6S') or from an iterable of ints."""
    if isinstance(spec, str):
        return [DECK.card(tok) for tok in spec.split()]
    return [int(t) for t in spec]


def counts(types) -> list[int]:
    """A multiset of types as counts per type (int[53])."""
    c = [0] * NUM_TYPES
    for t in types:
        c[t] += 1
    return c


def card_value(t: int) -> int:
    """KON-3: a card's value in a hand at the end of a round (jokers 15)."""
    return JOKER_HAND_VALUE if t == JOKER else rank_value(rank_of(t))


def run_span(cells) -> tuple[int, int]:
    """The lowest and highest occupied positions of a run."""
    occupied = [q for q in range(RUN_POSITIONS) if cells[q] != EMPTY]
    return occupied[0], occupied[-1]


def meld_value(meld) -> int:
    """KON-3 / KON-E10: a meld's value, a joker worth the card it stands for."""
    if meld[0] == RUN_MELD:
        return sum(POS_VALUE[q] for q in range(RUN_POSITIONS) if meld[2][q] != EMPTY)
    return (sum(meld[2]) + meld[3]) * rank_value(meld[1])


def meld_size(meld) -> int:
    if meld[0] == RUN_MELD:
        return sum(1 for x in meld[2] if x != EMPTY)
    return sum(meld[2]) + meld[3]


def meld_jokers(meld) -> int:
    if meld[0] == RUN_MELD:
        return sum(1 for x in meld[2] if x == JOKER_CARD)
    return meld[3]


def meld_types(meld) -> list[int]:
    """The meld's cards as types (jokers as JOKER)."""
    if meld[0] == RUN_MELD:
        s, cells = meld[1], meld[2]
        return [POS_TYPE[s][q] if cells[q] == NATURAL else JOKER
                for q in range(RUN_POSITIONS) if cells[q] != EMPTY]
    r, suits, jokers = meld[1], meld[2], meld[3]
    return [card_type(s, r) for s in range(NUM_SUITS) if suits[s]] + [JOKER] * jokers


def valid_meld(meld) -> bool:
    """KON-7..9, KON-38, KON-E7: a run of 3..13 contiguous positions, not stored on 1..13,
    or a set of 3..4 cards of distinct suits; at least one natural, at most two jokers."""
    if meld_jokers(meld) > COPIES or meld_jokers(meld) == meld_size(meld):
        return False
    if meld[0] == RUN_MELD:
        lo, hi = run_span(meld[2])
        contiguous = all(meld[2][q] != EMPTY for q in range(lo, hi + 1))
        return contiguous and MIN_MELD <= hi - lo + 1 <= MAX_RUN and (lo, hi) != (1, 13)
    return MIN_MELD <= meld_size(meld) <= MAX_SET


def _normal(cells: list[int]) -> tuple[int, ...]:
    """KON-E7 / KON-38: a run of 13 on positions 1..13 is stored on 0..12 (Ace low)."""
    if all(cells[1:14]):
        cells = [cells[13]] + cells[1:13] + [EMPTY]
    return tuple(cells)


def parse_run(spec):
    """A run meld from its cards low to high, jokers in their places ('4S JK 6S', 'QS KS AS',
    'AS 2S 3S'); ValueError if it is no run (KON-7, KON-9)."""
    cs = cards(spec)
    nat = [(i, t) for i, t in enumerate(cs) if t != JOKER]
    if not nat:
        raise ValueError(f"run {spec!r}: no natural card (KON-9)")
    for i, t in nat:  # the run's lowest position, from a natural that is not an Ace
        if rank_of(t) != 0:
            start = rank_of(t) - i
            break
    else:
        start = 0 if nat[0][0] == 0 else RUN_POSITIONS - 1 - nat[0][0]
    suit = suit_of(nat[0][1])
    k = len(cs)
    if not (MIN_MELD <= k <= MAX_RUN and 0 <= start and start + k <= RUN_POSITIONS):
        raise ValueError(f"run {spec!r}: 3..13 cards on positions 0..13 (KON-7)")
    cells = [EMPTY] * RUN_POSITIONS
    for i, t in enumerate(cs):
        q = start + i
        if t != JOKER and (suit_of(t) != suit or position_rank(q) != rank_of(t)):
            raise ValueError(f"run {spec!r}: {DECK.token(t)} does not fit position {q} (KON-7)")
        cells[q] = JOKER_CARD if t == JOKER else NATURAL
    meld = (RUN_MELD, suit, _normal(cells))
    if not valid_meld(meld):
        raise ValueError(f"run {spec!r} is not a valid run (KON-7, KON-9)")
    return meld


def parse_set(spec):
    """A set meld from its cards ('8H 8S JK'); ValueError if it is no set (KON-8, KON-9)."""
    cs = cards(spec)
    nat = [t for t in cs if t != JOKER]
    if not nat or len({rank_of(t) for t in nat}) != 1 or len({suit_of(t) for t in nat}) != len(
            nat):
        raise ValueError(f"set {spec!r}: naturals of one rank and distinct suits (KON-8)")
    suits = tuple(int(any(suit_of(t) == s for t in nat)) for s in range(NUM_SUITS))
    meld = (SET_MELD, rank_of(nat[0]), suits, len(cs) - len(nat))
    if not valid_meld(meld):
        raise ValueError(f"set {spec!r} is not a valid set (KON-8, KON-9)")
    return meld


# ---- finishing actions (KON-E6..E9) ------------------------------------------------------------
class Move(NamedTuple):
    """One finishing action with the selection it lays."""

    action: int
    sel: tuple[int, ...]  # the selection, sorted types (jokers last)
    kind: str  # "meld", "layoff" or "retrieve"
    slot: int  # the table meld it changes; -1 for a new meld
    meld: tuple  # the new or changed meld
    back: int  # jokers returned to the hand (retrievals)
    value: int  # a new meld's value (KON-E10)
    length: int  # a new meld's number of cards


def _run_fills(hand, suit: int, positions, jk: int):
    """Every way to fill `positions` of suit `suit` from `hand`: naturals where held, jokers on
    the others and, as alternatives, on held positions; yields (natural positions, jokers)."""
    avail = [q for q in positions if hand[POS_TYPE[suit][q]]]
    missing = len(positions) - len(avail)
    for extra in range(jk - missing + 1):
        for as_joker in itertools.combinations(avail, extra):
            yield [q for q in avail if q not in as_joker], missing + extra


def _sel(nat_types, jokers: int) -> tuple[int, ...]:
    return tuple(sorted(nat_types)) + (JOKER,) * jokers


def _suit_cards(hand, s: int) -> tuple[int, ...]:
    """The counts of suit s's types in a hand (`SUIT_TYPES`), then its jokers: all that runs
    of the suit (new ones, layoffs onto them) read of it."""
    return (*hand[NUM_RANKS * s:NUM_RANKS * (s + 1)], hand[JOKER])


def _rank_cards(hand, r: int) -> tuple[int, ...]:
    """The counts of rank r's types in a hand (`RANK_TYPES`), then its jokers: all that sets of
    the rank read of it."""
    return (*hand[r:JOKER:NUM_RANKS], hand[JOKER])


def _hand_of(types, cards: tuple[int, ...]) -> list[int]:
    """A hand holding only `cards` (`_suit_cards` or `_rank_cards` of `types`)."""
    hand = [0] * NUM_TYPES
    for t, k in zip((*types, JOKER), cards, strict=True):
        hand[t] = k
    return hand


def new_runs(hand, lengths=None):
    """Every `run p` a hand can lay (KON-E6): Moves (slot -1)."""
    lengths = None if lengths is None else frozenset(lengths)
    for s in range(NUM_SUITS):
        yield from _suit_runs(s, _suit_cards(hand, s), lengths)


@functools.lru_cache(maxsize=4096)
def _suit_runs(s: int, cards: tuple[int, ...], lengths: frozenset | None) -> tuple[Move, ...]:
    """The runs of suit s from a hand's cards of the suit and jokers (remembered: a hand's
    other suits are unchanged by most moves)."""
    hand = _hand_of(SUIT_TYPES[s], cards)
    jk = hand[JOKER]
    types = POS_TYPE[s]
    if sum(hand[t] > 0 for t in types[:NUM_RANKS]) + jk < MIN_MELD:
        return ()
    found = []
    for p in range(RUN_STARTS):
        missing = 0
        value = 0
        for q in range(p, RUN_POSITIONS):
            k = q - p + 1
            if k > MAX_RUN or (k == MAX_RUN and p != 0):  # KON-38: 13 cards only with p = 0
                break
            value += POS_VALUE[q]
            if not hand[types[q]]:
                missing += 1
                if missing > jk:
                    break
            if k < MIN_MELD or (lengths is not None and k not in lengths):
                continue
            for nat, jokers in _run_fills(hand, s, range(p, q + 1), jk=jk):
                if not nat:
                    continue  # KON-9: at least one natural
                cells = [EMPTY] * RUN_POSITIONS
                for x in range(p, q + 1):
                    cells[x] = JOKER_CARD
                for x in nat:
                    cells[x] = NATURAL
                found.append(Move(RUN + p, _sel([types[x] for x in nat], jokers), "meld", -1,
                                  (RUN_MELD, s, tuple(cells)), 0, value, k))
    return tuple(found)


def new_sets(hand, sizes=None):
    """Every `set` a hand can lay (KON-E6): Moves (slot -1)."""
    sizes = None if sizes is None else frozenset(sizes)
    for r in range(NUM_RANKS):
        yield from _rank_sets(r, _rank_cards(hand, r), sizes)


@functools.lru_cache(maxsize=4096)
def _rank_sets(r: int, cards: tuple[int, ...], sizes: frozenset | None) -> tuple[Move, ...]:
    """The sets of rank r from a hand's cards of the rank and jokers (remembered)."""
    types = RANK_TYPES[r]
    hand = _hand_of(types, cards)
    jk = hand[JOKER]
    avail = [s for s in range(NUM_SUITS) if hand[types[s]]]
    if len(avail) + jk < MIN_MELD:
        return ()
    found = []
    for size in range(1, len(avail) + 1):
        for suits in itertools.combinations(avail, size):
            for j in range(min(jk, MAX_SET - size) + 1):
                total = size + j
                if total < MIN_MELD or (sizes is not None and total not in sizes):
                    continue
                mask = tuple(int(s in suits) for s in range(NUM_SUITS))
                found.append(Move(SET, _sel([types[s] for s in suits], j), "meld", -1,
                                  (SET_MELD, r, mask, j), 0, total * rank_value(r), total))
    return tuple(found)


def new_melds(hand, parts=None):
    """Every new meld a hand can lay; `parts`: the (kind, length) pairs allowed (a konkan
    requester, KON-E9), None for any."""
    if parts is None:
        yield from new_runs(hand)
        yield from new_sets(hand)
        return
    run_lengths = {k for kind, k in parts if kind == RUN_MELD}
    set_sizes = {k for kind, k in parts if kind == SET_MELD}
    if run_lengths:
        yield from new_runs(hand, run_lengths)
    if set_sizes:
        yield from new_sets(hand, set_sizes)


def layoffs(hand, meld, m: int) -> tuple[Move, ...]:
    """Every `layoff m` and `layoff m low` onto table meld `meld` in slot m (KON-17, KON-E7)."""
    cards = _rank_cards(hand, meld[1]) if meld[0] == SET_MELD else _suit_cards(hand, meld[1])
    return _layoffs(cards, meld, m)


@functools.lru_cache(maxsize=4096)
def _layoffs(cards: tuple[int, ...], meld, m: int) -> tuple[Move, ...]:
    """`layoffs` from a hand's cards of the meld's rank or suit and jokers (remembered)."""
    found = []
    if meld[0] == SET_MELD:
        _, r, suits, jokers = meld
        hand = _hand_of(RANK_TYPES[r], cards)
        jk = hand[JOKER]
        room = MAX_SET - sum(suits) - jokers
        avail = [s for s in range(NUM_SUITS) if not suits[s] and hand[card_type(s, r)]]
        for size in range(len(avail) + 1):
            for add in itertools.combinations(avail, size):
                for j in range(min(jk, room - size) + 1):
                    if size + j == 0 or size + j > room:
                        continue
                    mask = tuple(int(suits[s] or s in add) for s in range(NUM_SUITS))
                    found.append(Move(LAYOFF + m, _sel([card_type(s, r) for s in add], j),
                                      "layoff", m, (SET_MELD, r, mask, jokers + j), 0, 0, 0))
        return tuple(found)
    _, s, cells = meld
    hand = _hand_of(SUIT_TYPES[s], cards)
    jk = hand[JOKER]
    lo, hi = run_span(cells)
    length = hi - lo + 1
    for base, step in ((LAYOFF, 1), (LAYOFF_LOW, -1)):
        end = hi if step == 1 else lo
        for k in range(1, MAX_RUN - length + 1):
            q = end + step * k
            if not 0 <= q < RUN_POSITIONS:
                break
            positions = range(end + step, q + step, step)
            for nat, jokers in _run_fills(hand, s, positions, jk=jk):
                new = list(cells)
                for x in positions:
                    new[x] = JOKER_CARD
                for x in nat:
                    new[x] = NATURAL
                found.append(Move(base + m, _sel([POS_TYPE[s][x] for x in nat], jokers),
                                  "layoff", m, (RUN_MELD, s, _normal(new)), 0, 0, 0))
    return tuple(found)


def retrievals(hand, meld, m: int):
    """Every `retrieve m` (KON-19, KON-20, KON-E8)."""
    if meld[0] == RUN_MELD:
        _, s, cells = meld
        for q in range(RUN_POSITIONS):
            if cells[q] == JOKER_CARD and hand[POS_TYPE[s][q]]:
                new = list(cells)
                new[q] = NATURAL
                yield Move(RETRIEVE + m, (POS_TYPE[s][q],), "retrieve", m,
                           (RUN_MELD, s, tuple(new)), 1, 0, 0)
        return
    _, r, suits, jokers = meld
    missing = [card_type(s, r) for s in range(NUM_SUITS) if not suits[s]]
    if jokers and all(hand[t] for t in missing):
        yield Move(RETRIEVE + m, tuple(missing), "retrieve", m, (SET_MELD, r, (1,) * NUM_SUITS, 0),
                   jokers, 0, 0)


def moves(hand, table, extras: bool = True, parts=None) -> list[Move]:
    """Every legal finishing action of a mover holding `hand` (KON-E6..E9): new melds (`parts`
    restricts them for a requester), and with `extras` layoffs and retrievals; each leaves at
    least one card in the hand, returned jokers counted (KON-13)."""
    size = sum(hand)
    found = [mv for mv in new_melds(hand, parts) if size - len(mv.sel) >= 1]
    if extras:
        for m, meld in enumerate(table):
            found += [mv for mv in layoffs(hand, meld, m) if size - len(mv.sel) >= 1]
            found += [mv for mv in retrievals(hand, meld, m) if size - len(mv.sel) + mv.back >= 1]
    return found


def apply_move(hand, table, mv: Move) -> tuple[list[int], list]:
    """The hand and table after a finishing action."""
    hand = list(hand)
    for t in mv.sel:
        hand[t] -= 1
    hand[JOKER] += mv.back
    table = list(table)
    if mv.slot < 0:
        table.append(mv.meld)
    else:
        table[mv.slot] = mv.meld
    return hand, table


def _items(sel) -> list[tuple[int, int]]:
    """A selection tuple as (type, count) pairs."""
    return [(t, sel.count(t)) for t in sorted(set(sel))]


def _sel_tuple(sel) -> tuple[int, ...]:
    """A selection's counts as the sorted tuple of its types (the form of `Move.sel`)."""
    return tuple(t for t, k in enumerate(sel) if k for _ in range(k))


def _contains(sel, needed: dict[int, int]) -> bool:
    return all(sel.count(t) >= c for t, c in needed.items())


# ---- taking the discard (KON-E11, KON-16, KON-33) ---------------------------------------------
def _opening_exists(hand, c: int, cfg: KonConfig) -> bool:
    """Unopened (KON-E11): some set of disjoint melds from `hand` (= H + c) meets KON-E10,
    leaves at least one card and, with `take_must_use_card`, contains a card of type c;
    without the flag it either contains one or leaves a card of another type (the decision
    on KON-18 in docs/reference-conventions.md). A plain search: the melds holding the lowest card
    left, or that card left over, memoised on the cards left (counted over the types of the
    hand's melds: the other cards are always left over)."""
    melds: dict[tuple, int] = {}  # (selection, is a run) -> its best value
    for mv in new_melds(hand):
        key = (mv.sel, mv.meld[0] == RUN_MELD)
        melds[key] = max(melds.get(key, 0), mv.value)
    kinds = sorted({t for sel, _ in melds for t in sel})  # the types of the melds, JOKER last
    index = {t: i for i, t in enumerate(kinds)}
    listed = [([(index[t], k) for t, k in _items(sel)], value, is_run)
              for (sel, is_run), value in melds.items()]
    holding: list[list] = [[] for _ in kinds]  # the melds holding each type
    for meld in listed:
        for i, _ in meld[0]:
            holding[i].append(meld)
    memo: dict[tuple, list[int]] = {}
    LEFT, RUN_FLAG, LEFT_OTHER = 1, 2, 4  # noqa: N806 (flags of `best`)
    idle = [t for t in range(NUM_TYPES) if hand[t] and t not in index]  # in no meld
    idle_flags = (LEFT if idle else 0) | (LEFT_OTHER if any(t != c for t in idle) else 0)
    naturals = [i for i, t in enumerate(kinds) if t != JOKER]
    joker = index.get(JOKER)

    def best(rest: tuple) -> list[int]:
        """The best value of disjoint melds from `rest` (counts per `kinds`), per flags:
        leaves a card, has a run, leaves a card of a type other than c (-1: impossible)."""
        if rest in memo:
            return memo[rest]
        low = next((i for i in naturals if rest[i]), -1)
        res = [-1] * 8
        if low < 0:
            jokers_left = joker is not None and rest[joker] > 0
            res[(LEFT if jokers_left else 0) | (LEFT_OTHER if jokers_left and c != JOKER
                                                else 0)] = 0
        else:
            skipped = list(rest)
            skipped[low] -= 1
            left = LEFT | (LEFT_OTHER if kinds[low] != c else 0)
            for f, v in enumerate(best(tuple(skipped))):
                if v >= 0:
                    res[f | left] = max(res[f | left], v)
            for need, value, is_run in holding[low]:  # the melds holding the lowest card
                if any(rest[i] < k for i, k in need):
                    continue
                after = list(rest)
                for i, k in need:
                    after[i] -= k
                for f, v in enumerate(best(tuple(after))):
                    if v >= 0:
                        g = f | (RUN_FLAG if is_run else 0)
                        res[g] = max(res[g], v + value)
        memo[rest] = res
        return res

    start = [hand[t] for t in kinds]
    for need, value, is_run in listed:  # the first meld: with c, or any
        with_c = c in index and index[c] in dict(need)
        if cfg.take_must_use_card and not with_c:
            continue
        after = list(start)
        for i, k in need:
            after[i] -= k
        for f, v in enumerate(best(tuple(after))):
            f |= idle_flags
            if v < 0 or v + value < cfg.opening_min:
                continue
            if cfg.opening_requires_run and not (is_run or f & RUN_FLAG):
                continue
            if f & LEFT and with_c or not cfg.take_must_use_card and f & LEFT_OTHER:
                return True
    return False


def _completable(hand, table, c: int, must_use: bool) -> bool:
    """Opened (KON-E11): some sequence of legal table actions of the turn ends with a card of
    type c placed by a new meld or a layoff; without `must_use`, one holding a new meld or a
    layoff after which the hand keeps a card of a type other than c or c was so placed (the
    decision on KON-18). Depth-first over the finishing actions, memoised on the position
    (the hand, the table's melds as a multiset, the two flags), stopping when found."""
    seen: set[tuple] = set()

    def done(h, placed: bool, c_placed: bool) -> bool:
        if must_use or c_placed:
            return c_placed  # a card is left (KON-E9), and c's type may go (KON-34)
        return placed and any(h[t] for t in range(NUM_TYPES) if t != c)

    def search(h, tb, placed: bool, c_placed: bool) -> bool:
        key = (tuple(h), tuple(sorted(tb)), placed, c_placed)
        if key in seen:
            return False
        seen.add(key)
        following = []
        for mv in moves(h, tb):
            h2, tb2 = apply_move(h, tb, mv)
            laid = mv.kind != "retrieve"
            flags = (placed or laid, c_placed or (laid and c in mv.sel))
            if done(h2, *flags):
                return True
            following.append((h2, tb2, *flags))
        return any(search(*state) for state in following)

    return search(list(hand), list(table), False, False)


# ---- the game ----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def table_facts(table: tuple, owners: tuple) -> dict[str, list]:
    """The summary's table fields (`spec.SUMMARY_KEYS`: one entry per meld slot) of the
    melds `table` laid by `owners`; remembered, the table changing seldom (callers only read
    them)."""
    owner = [-1] * MAX_MELDS
    kind = [NO_MELD] * MAX_MELDS
    suit = [-1] * MAX_MELDS
    rank = [-1] * MAX_MELDS
    cells = [[EMPTY] * RUN_POSITIONS for _ in range(MAX_MELDS)]
    jokers = [0] * MAX_MELDS
    for m, meld in enumerate(table):
        owner[m], kind[m], jokers[m] = owners[m], meld[0], meld_jokers(meld)
        if meld[0] == RUN_MELD:
            suit[m], cells[m] = meld[1], list(meld[2])
        else:
            rank[m] = meld[1]
            cells[m][:NUM_SUITS] = list(meld[2])
    return {"meld_owner": owner, "meld_kind": kind, "meld_suit": suit, "meld_rank": rank,
            "meld_cards": cells, "meld_jokers": jokers}


class _Turn:
    """What the mover did this turn (KON-E9..E14); reset by a retract (KON-E14)."""

    def __init__(self, opened_at_start: bool, hand, table, owners, opened):
        self.opened_at_start = opened_at_start
        self.snapshot = (list(hand), list(table), list(owners), list(opened))
        self.reset()

    def reset(self) -> None:
        self.melds: list[tuple[int, int, int]] = []  # (kind, length, value) of the turn's melds
        self.actions = 0  # table actions not undone
        self.layoffs = 0
        self.retrievals = 0
        self.placed_by_meld: set[int] = set()  # types placed by a new meld (KON-32)
        self.placed_by_layoff: set[int] = set()


class KonRef:
    """A game of Konkan (n_rounds rounds), one action per `apply` (`spec`'s action ids)."""

    def __init__(self, config: KonConfig | None = None):
        self.cfg = config if config is not None else KonConfig()
        n = self.n = self.cfg.n
        self.needs_deal = True
        self.round = 0
        self.dealer = self.cfg.dealer
        self.deck: list[int] = []  # the current round's order
        self.hands = [[0] * NUM_TYPES for _ in range(n)]
        self.selection = [0] * NUM_TYPES
        self.table: list[tuple] = []
        self.owners: list[int] = []
        self.stock: list[int] = []  # top first
        self.pile: list[int] = []  # bottom first, top last
        self.opened = [False] * n
        self.requested = [False] * n
        self.phase = PHASE_DRAW
        self.mover = -1
        self.taken = -1
        self.turns = 0
        self.round_scores = [0] * n
        self.totals = [0] * n
        self.outcome = IN_PLAY
        self.winners = [False] * n
        self.rewards = [0.0] * n  # the sum of every reward so far
        self.turn: _Turn | None = None
        self._legal: list[int] | None = None
        self._moves: list[Move] | None = None

    # ---- set-up ------------------------------------------------------------------------------
    def deal(self, order, dealer: int | None = None) -> None:
        """Deal the next round from a deck order (KON-6, KON-E1): 106 types, each twice."""
        if not self.needs_deal:
            raise ValueError("no deal is awaited: the round is in play or the game is over")
        order = [int(t) for t in order]
        if len(order) != DECK_SIZE:
            raise ValueError(f"a deck order has {DECK_SIZE} cards, not {len(order)}")
        bad = [t for t in order if not 0 <= t < NUM_TYPES]
        if bad:
            raise ValueError(f"deck order: {bad[0]} is not a card type 0..{NUM_TYPES - 1}")
        for t, k in enumerate(counts(order)):
            if k != COPIES:
                raise ValueError(f"deck order: {DECK.token(t)} (type {t}) appears {k} times, "
                                 f"not {COPIES}")
        if self.round == 0:  # KON-5: the first dealer from the config or the caller
            expected = self.cfg.dealer if self.cfg.dealer >= 0 else dealer
            if expected is None:
                raise ValueError("config.dealer is -1: deal(order, dealer) needs the dealer")
        else:
            expected = (self.dealer + 1) % self.n  # KON-5, KON-E5
        if dealer is not None and dealer != expected:
            raise ValueError(f"dealer {dealer}: this round's dealer is {expected} (KON-5)")
        if not 0 <= expected < self.n:
            raise ValueError(f"dealer {expected}: a seat 0..{self.n - 1}")
        hands, stock = deal_hands(order, self.n, expected)
        self.round += 1
        self.dealer = expected
        self.deck = order
        self.needs_deal = False
        self.hands = [counts(h) for h in hands]
        self.stock = list(stock)
        self._fresh_round()
        self._begin_act((expected + 1) % self.n)  # KON-11, KON-E1: no draw, no request

    def _fresh_round(self) -> None:
        n = self.n
        self.selection = [0] * NUM_TYPES
        self.table, self.owners, self.pile = [], [], []
        self.opened, self.requested = [False] * n, [False] * n
        self.turns, self.taken = 0, -1

    @classmethod
    def from_position(cls, config: KonConfig | None = None, *, hands, melds=(), pile=(),
                      stock=(), mover: int | None = None, phase: int = PHASE_DRAW,
                      opened=None, requested=None, taken: int | str = -1, round: int = 1,
                      dealer: int = 0, totals=None, turns: int = 0) -> KonRef:
        """Any position for scenario tests. `hands`: one card spec per seat (`cards`);
        `melds`: (owner, "run" | "set", cards) triples, a run's cards low to high with jokers
        in place (`parse_run`, `parse_set`); `pile` bottom to top; `stock` top first;
        `opened` defaults to the owners of table melds; `mover` to the dealer's right;
        `phase` PHASE_DRAW (a turn's start) or PHASE_ACT (after the draw or take: `taken` is
        the type or token taken). Cards not given are out of play."""
        ref = cls(config)
        n = ref.n
        if len(hands) != n:
            raise ValueError(f"{len(hands)} hands for {n} seats")
        if phase not in (PHASE_DRAW, PHASE_ACT):
            raise ValueError(f"phase {phase}: a position starts in PHASE_DRAW or PHASE_ACT")
        if not 1 <= round <= ref.cfg.n_rounds or not 0 <= dealer < n:
            raise ValueError(f"round {round} / dealer {dealer} out of range")
        ref.needs_deal = False
        ref.round, ref.dealer = round, dealer
        ref.hands = [counts(cards(h)) for h in hands]
        parsed = []
        for owner, kind, spec in melds:
            if kind not in ("run", "set") or not 0 <= owner < n:
                raise ValueError(f"meld ({owner}, {kind!r}): kind 'run' or 'set', owner a seat")
            parsed.append((owner, parse_run(spec) if kind == "run" else parse_set(spec)))
        if len(parsed) > MAX_MELDS:
            raise ValueError(f"at most {MAX_MELDS} table melds")
        ref.table = [m for _, m in parsed]
        ref.owners = [o for o, _ in parsed]
        ref.pile = cards(pile)
        ref.stock = cards(stock)
        every = [t for h in ref.hands for t in range(NUM_TYPES) for _ in range(h[t])]
        every += [t for m in ref.table for t in meld_types(m)] + ref.pile + ref.stock
        for t, k in enumerate(counts(every)):
            if k > COPIES:
                raise ValueError(f"position: {k} cards {DECK.token(t)}, at most {COPIES}")
        if any(sum(h) > MAX_HAND for h in ref.hands):
            raise ValueError(f"position: a hand holds at most {MAX_HAND} cards")
        ref.opened = ([bool(x) for x in opened] if opened is not None
                      else [p in ref.owners for p in range(n)])
        if any(p in ref.owners and not ref.opened[p] for p in range(n)):
            raise ValueError("position: a seat with melds on the table has opened")
        ref.requested = [bool(x) for x in requested] if requested is not None else [False] * n
        ref.totals = [int(x) for x in totals] if totals is not None else [0] * n
        ref.turns = turns
        mover = (dealer + 1) % n if mover is None else mover
        if phase == PHASE_ACT:
            t = cards(taken)[0] if isinstance(taken, str) else taken
            if t >= 0 and not ref.hands[mover][t]:
                raise ValueError("position: the taken card is in the mover's hand")
            ref._begin_act(mover, t)
        else:
            if taken not in (-1, None):
                raise ValueError("position: `taken` only in PHASE_ACT")
            ref._start_turn(mover)
        return ref

    # ---- queries -----------------------------------------------------------------------------
    @property
    def terminal(self) -> bool:
        return self.phase == PHASE_OVER

    @property
    def current_player(self) -> int:
        """The seat to act; -1 while a deal is awaited and after the game."""
        return -1 if self.needs_deal or self.terminal else self.mover

    @property
    def scores(self) -> list[float]:
        """The sum of every reward so far, per player (`spec`'s docstring)."""
        return list(self.rewards)

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the current player; [] while waiting and after the end."""
        if self.needs_deal or self.terminal:
            return []
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        p = self.mover
        if self.phase == PHASE_DRAW:  # KON-E2
            acts = []
            if self.stock:
                acts.append(DRAW)
            if self.pile and (self.requested[p] or self._take_ok(p)):
                acts.append(TAKE)
            if (self.round == self.cfg.n_rounds and not self.opened[p] and not self.requested[p]
                    and (self.stock or self.pile)):
                acts.append(REQUEST)  # KON-27, KON-36
            return sorted(acts)
        sel = self.selection
        exact = _sel_tuple(sel)
        needed = {t: sel[t] for t in set(exact)}
        acts = set()
        picks = set()
        for mv in self._current_moves():  # KON-E9: picks of completable selections
            if mv.sel == exact:
                acts.add(mv.action)
            elif not exact:
                picks.update(mv.sel)
            elif len(mv.sel) > len(exact) and _contains(mv.sel, needed):
                picks.update(t for t in mv.sel if mv.sel.count(t) > sel[t])
        acts.update(PICK + t for t in picks)
        if not exact:
            discards = [DISCARD + t for t in self._discards()]
            acts.update(discards)
            if not discards and self.turn.actions:
                acts.add(RETRACT)  # KON-E14
        return sorted(acts)

    def _mode(self) -> tuple[bool, set | None]:
        """KON-E9: (layoffs and retrievals allowed, the requester's allowed parts or None)."""
        p, turn = self.mover, self.turn
        if self.requested[p]:
            if not turn.melds:
                parts = set(KONKAN_PARTS)
            elif len(turn.melds) == 1:
                parts = {KONKAN_PARTS[turn.melds[0][:2]]}
            else:
                parts = set()
            return False, parts
        return turn.opened_at_start or self._opening_met(), None

    def _current_moves(self) -> list[Move]:
        if self._moves is None:
            extras, parts = self._mode()
            if parts is not None and not parts:
                self._moves = []
            else:
                self._moves = moves(self.hands[self.mover], self.table, extras, parts)
        return self._moves

    def _opening_met(self) -> bool:
        """KON-E10 for the turn's melds: one or more, worth opening_min, a run if required."""
        melds = self.turn.melds
        return (bool(melds) and sum(v for _, _, v in melds) >= self.cfg.opening_min
                and (not self.cfg.opening_requires_run or any(k == RUN_MELD for k, _, _ in melds)))

    def _is_konkan(self) -> bool:
        """KON-E13 / KON-25: exactly a run of 10 and a set of 4, or a run of 11 and a set of 3,
        by a player not opened at the turn's start, without layoffs or retrievals."""
        turn = self.turn
        if turn.opened_at_start or turn.layoffs or turn.retrievals or len(turn.melds) != 2:
            return False
        a, b = (m[:2] for m in turn.melds)
        return KONKAN_PARTS.get(a) == b

    def _take_ok(self, p: int) -> bool:
        """KON-E11 (KON-16, KON-33) for a player who is not a requester."""
        c = self.pile[-1]
        hand = list(self.hands[p])
        hand[c] += 1
        if not self.opened[p]:
            return _opening_exists(hand, c, self.cfg)
        return _completable(hand, self.table, c, self.cfg.take_must_use_card)

    def _discards(self) -> list[int]:
        """KON-E12: the types the mover may discard (the selection is empty)."""
        p, turn, taken = self.mover, self.turn, self.taken
        hand = self.hands[p]
        empties = sum(hand) == 1
        if not turn.opened_at_start and turn.melds:  # KON-14
            if not (self._opening_met() or (empties and self._is_konkan())):
                return []
        requester = self.requested[p]
        if taken >= 0 and not requester:  # KON-16, KON-32
            if self.cfg.take_must_use_card:
                used = taken in turn.placed_by_meld or (
                    turn.opened_at_start and taken in turn.placed_by_layoff)
            else:
                used = bool(turn.melds) or turn.layoffs > 0
            if not used:
                return []
        if requester and turn.melds and not (empties and len(turn.melds) == 2):  # KON-27
            return []
        placed = turn.placed_by_meld | turn.placed_by_layoff
        return [t for t in range(NUM_TYPES)  # KON-18, KON-34: not the taken card's type
                if hand[t] and (t != taken or taken in placed)]

    def hand_value(self, p: int) -> int:
        """KON-3: the value of seat p's hand (jokers 15)."""
        return sum(k * card_value(t) for t, k in enumerate(self.hands[p]))

    def facts(self) -> dict:
        """The state summary (`spec.SUMMARY_KEYS`) plus terminal, legal_actions, scores and
        current_player, as plain Python values (the table's lists shared between calls,
        `table_facts`: read them only)."""
        if self.round == 0:
            raise RuntimeError("no deal yet: call deal(order, dealer) first")
        table = table_facts(tuple(self.table), tuple(self.owners))
        f = {
            "phase": self.phase,
            "round": self.round,
            "dealer": self.dealer,
            "hands": [list(h) for h in self.hands],
            "selection": list(self.selection),
            "opened": list(self.opened),
            "requested": list(self.requested),
            "melds": len(self.table),
            **table,
            "stock": len(self.stock),
            "pile": counts(self.pile),
            "pile_top": self.pile[-1] if self.pile else -1,
            "taken": self.taken,
            "turns": self.turns,
            "round_scores": list(self.round_scores),
            "totals": list(self.totals),
            "outcome": self.outcome,
            "winners": list(self.winners),
            "terminal": self.terminal,
            "legal_actions": self.legal_actions(),
            "scores": self.scores,
            "current_player": self.current_player,
        }
        assert set(SUMMARY_KEYS) <= set(f)
        return f

    # ---- play --------------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Carry out one legal action of the current player; ValueError if it is illegal."""
        if self.needs_deal:
            raise ValueError("no deal yet: call deal(order, dealer) first")
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {self._name(action)} for seat "
                             f"{self.current_player}; legal: "
                             f"{', '.join(self._name(a) for a in legal) or 'none'}")
        p = self.mover
        self._legal = None
        if action == REQUEST:  # KON-27, KON-E3: the draw or take follows
            self.requested[p] = True
        elif action == DRAW:  # KON-12
            self.hands[p][self.stock.pop(0)] += 1
            self._begin_act(p)
        elif action == TAKE:  # KON-12, KON-16
            c = self.pile.pop()
            self.hands[p][c] += 1
            self._begin_act(p, c)
        elif action < RUN:  # pick
            self.selection[action - PICK] += 1
        elif action < DISCARD:  # a finishing action
            self._finish(p, action)
        elif action < DRAW:
            self._discard(p, action - DISCARD)
        else:  # RETRACT (KON-E14)
            hand, table, owners, opened = self.turn.snapshot
            self.hands[p], self.table, self.owners = list(hand), list(table), list(owners)
            self.opened = list(opened)
            self.turn.reset()
            self._moves = None

    step = apply

    def _finish(self, p: int, action: int) -> None:
        exact = _sel_tuple(self.selection)
        mv = next(mv for mv in self._current_moves() if mv.action == action and mv.sel == exact)
        self.hands[p], self.table = apply_move(self.hands[p], self.table, mv)
        if mv.slot < 0:
            self.owners.append(p)
        self.selection = [0] * NUM_TYPES
        self._moves = None
        turn = self.turn
        turn.actions += 1
        if mv.kind == "meld":  # KON-14, KON-15
            self.opened[p] = True
            turn.melds.append((mv.meld[0], mv.length, mv.value))
            turn.placed_by_meld.update(mv.sel)
        elif mv.kind == "layoff":  # KON-17
            turn.layoffs += 1
            turn.placed_by_layoff.update(mv.sel)
        else:  # KON-19, KON-20
            turn.retrievals += 1

    def _discard(self, p: int, t: int) -> None:
        self.hands[p][t] -= 1
        self.pile.append(t)
        self.taken = -1
        if not sum(self.hands[p]):  # KON-22, KON-E4
            turn = self.turn
            if self._is_konkan():
                outcome = KONKAN
            elif not turn.opened_at_start and not turn.layoffs and not turn.retrievals:
                outcome = HAND  # KON-24
            else:
                outcome = OUT
            self._end_round(outcome, p)
            return
        self.turns += 1
        if self.turns >= self.cfg.max_turns_per_round:  # KON-23, KON-E4
            self._end_round(BLOCKED, -1)
            return
        self._start_turn((p + 1) % self.n)

    def _begin_act(self, p: int, taken: int = -1) -> None:
        """PHASE_ACT after the draw or take (or at the round's first turn): the retract point."""
        self.phase, self.mover, self.taken = PHASE_ACT, p, taken
        self.selection = [0] * NUM_TYPES
        self.turn = _Turn(self.opened[p], self.hands[p], self.table, self.owners, self.opened)
        self._legal = self._moves = None

    def _start_turn(self, p: int) -> None:
        """KON-E2: PHASE_DRAW for seat p; no legal action ends the round blocked at once."""
        self.phase, self.mover, self.taken = PHASE_DRAW, p, -1
        self.selection = [0] * NUM_TYPES
        self.turn = None
        self._legal = self._moves = None
        if not self.legal_actions():
            self._end_round(BLOCKED, -1)  # KON-23, KON-36

    # ---- scoring (KON-26, KON-29..31, KON-37, KON-E15) -----------------------------------------
    def _partner(self, p: int) -> int:
        return (p + 2) % 4 if self.cfg.partnership else -1

    def _penalty(self, p: int) -> int:
        """KON-29/30: +100 with nothing on the table, else the hand's value."""
        return self.hand_value(p) if self.opened[p] else UNOPENED_SCORE

    def round_result(self, outcome: int, finisher: int) -> list[int]:
        """The round's scores of the current position ended by `outcome` (finisher -1 when
        blocked)."""
        scores = []
        double = 2 if outcome == HAND else 1
        for p in range(self.n):
            if outcome == BLOCKED:  # KON-30
                scores.append(self._penalty(p))
            elif outcome == KONKAN:  # KON-26, KON-37; KON-31: the partner scores 0
                scores.append(HAND_SCORE if p == finisher
                              else 0 if p == self._partner(finisher) else KONKAN_SCORE)
            elif p == finisher:  # KON-29
                scores.append(OUT_SCORE * double)
            elif p == self._partner(finisher):  # KON-31: never doubled
                scores.append(self._penalty(p))
            else:
                scores.append(self._penalty(p) * double)
        return scores

    def _end_round(self, outcome: int, finisher: int) -> None:
        scores = self.round_result(outcome, finisher)
        self.round_scores = scores
        self.totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        self.outcome = outcome
        self.selection = [0] * NUM_TYPES
        self.taken = -1
        self._legal = self._moves = None
        if self.cfg.reward == "points":
            self.rewards = [r - s for r, s in zip(self.rewards, scores, strict=True)]
        if self.round < self.cfg.n_rounds:  # KON-E5: the next round waits for its deal
            self.needs_deal = True
            self.phase = PHASE_DRAW
            self.mover = -1
            return
        self.phase, self.mover = PHASE_OVER, -1
        side = self.cfg.team
        if outcome == KONKAN:  # KON-28, KON-37: the maker's side wins whatever the totals
            self.winners = [side(p) == side(finisher) for p in range(self.n)]
        else:  # KON-31: the lowest total (team total in partnership play)
            sides = {}
            for p in range(self.n):
                sides[side(p)] = sides.get(side(p), 0) + self.totals[p]
            low = min(sides.values())
            self.winners = [sides[side(p)] == low for p in range(self.n)]
        if self.cfg.reward == "win":
            self.rewards = [r + float(w) for r, w in zip(self.rewards, self.winners, strict=True)]

    def _name(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return f"#{action}"
        return f"{action_name(action)!r} ({action})"
