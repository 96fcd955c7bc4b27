"""Plain-Python rummy melds of Conquian (conquian.md CQ-2, CQ-3, CQ-6, CQ-13, CQ-16): the oracle
that the differential tests compare with the JAX meld kernel `kanjax/games/conquian/meld.py`.

Cards are `kanjax.games.conquian.spec` ids `10*s + r`. In both packs (CQ-2, CQ-V1) the rank order is
the id order within a suit, so 7 and J of the Spanish pack (r = 6, 7) are adjacent like 7 and 8
of the numerals pack, and no pack wraps (K/T = 9 and A = 0 are not adjacent): nothing here
depends on the pack.

Every function takes iterables of ints and answers a bool or a frozenset. The searches are
plain recursions, memoised on frozensets (`functools.lru_cache`, bounded: the keys pair a meld
with the hand cards still unused, so a long differential run meets millions of them).
"""

from __future__ import annotations

import functools
import itertools

from kanjax.games.conquian.spec import NUM_RANKS, NUM_SUITS, card_id, rank_of, suit_of

MIN_COMBINATION = 3  # CQ-3: a group or sequence has at least three cards
MAX_GROUP = NUM_SUITS  # CQ-3: at most four cards of one rank
MAX_SEQUENCE = NUM_RANKS  # CQ-3: no cap below ten (a whole suit, the ten-card bust of CQ-19)
# Memo entries per table: unbounded, 2,000 random deals fill about 2.4 million (2.7 GB of
# memory); with this bound the process stays near 500 MB and runs as fast (0.27 ms a step).
MEMO_SIZE = 1 << 17


def _cards(cards) -> list[int]:
    return [int(c) for c in cards]


def is_group(cards) -> bool:
    """CQ-3: three or four different cards of one rank."""
    cs = _cards(cards)
    return (MIN_COMBINATION <= len(cs) <= MAX_GROUP and len(set(cs)) == len(cs)
            and len({rank_of(c) for c in cs}) == 1)


def is_sequence(cards) -> bool:
    """CQ-2/3: three or more cards of one suit, consecutive in the pack's order, no wrap."""
    cs = sorted(_cards(cards))
    return (MIN_COMBINATION <= len(cs) <= MAX_SEQUENCE
            and len({suit_of(c) for c in cs}) == 1
            and all(b == a + 1 for a, b in itertools.pairwise(cs)))


def is_combination(cards) -> bool:
    """CQ-3: a group or a sequence."""
    cs = _cards(cards)
    return is_group(cs) or is_sequence(cs)


def _combinations_with(card: int, available: frozenset[int]):
    """Every combination (CQ-3) inside `available` that contains `card` (which is in it)."""
    r, s = rank_of(card), suit_of(card)
    same_rank = [card_id(t, r) for t in range(NUM_SUITS)
                 if t != s and card_id(t, r) in available]
    for k in (MIN_COMBINATION - 1, MAX_GROUP - 1):  # the other two or three cards of a group
        for others in itertools.combinations(same_rank, k):
            yield frozenset((card, *others))
    lo = hi = rank_of(card)  # the longest run of the suit through `card` inside `available`
    while lo > 0 and card_id(s, lo - 1) in available:
        lo -= 1
    while hi < NUM_RANKS - 1 and card_id(s, hi + 1) in available:
        hi += 1
    for a in range(lo, r + 1):
        for b in range(max(r, a + MIN_COMBINATION - 1), hi + 1):
            yield frozenset(card_id(s, x) for x in range(a, b + 1))


@functools.lru_cache(maxsize=MEMO_SIZE)
def _cover(required: frozenset[int], optional: frozenset[int]) -> bool:
    if not required:
        return True  # S = required = {} (the empty set is partitioned by no combination)
    low = min(required)  # it lies in exactly one combination of the partition: try each
    available = required | optional
    return any(_cover(required - combo, optional - combo)
               for combo in _combinations_with(low, available))


def cover(required, optional) -> bool:
    """True if some S with required ⊆ S ⊆ required ∪ optional is partitionable (CQ-6): e.g.
    a TAKE (CQ-13) exists with required = M ∪ {E} ∪ selection and optional = the rest of the
    hand."""
    req = frozenset(_cards(required))
    return _cover(req, frozenset(_cards(optional)) - req)


def partitionable(cards) -> bool:
    """CQ-6: the set is an exact union of disjoint combinations (CQ-3); the empty set is
    (an empty meld)."""
    return _cover(frozenset(_cards(cards)), frozenset())


@functools.lru_cache(maxsize=MEMO_SIZE)
def _usable(required: frozenset[int], optional: frozenset[int]) -> frozenset[int]:
    return frozenset(o for o in optional if _cover(required | {o}, optional - {o}))


def usable(required, optional) -> frozenset[int]:
    """The cards of `optional` that lie in some S as in `cover`: the hand cards that may be
    picked next into a TAKE (CQ-13, docs/turns.md completability)."""
    req = frozenset(_cards(required))
    return _usable(req, frozenset(_cards(optional)) - req)


def fits(meld, card: int) -> bool:
    """True if meld ∪ {card} is partitionable: E fits a meld alone (CQ-15), a card may be
    laid off onto it (CQ-16)."""
    return partitionable(frozenset(_cards(meld)) | {int(card)})
