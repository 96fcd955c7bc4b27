"""Bridge PBN deal notation (the `Deal` tag of PBN 2.1, as DDS reads it) for the bridge deck.

    N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83

A seat letter (`N E S W`), a colon, then four hands clockwise from that seat, separated by
spaces. A hand is `spades.hearts.diamonds.clubs`, each suit its ranks from `AKQJT98765432`
(an empty suit is a void; the ten is `T`). Cards are bridge ids, `13 * suit + rank` with
suits S H D C = 0..3 and ranks 2..A = 0..12; seats N E S W = 0..3.
These are DDS's orders too (hands N E S W, suits S H D C).

`parse_pbn(format_pbn(hands)) == hands` for hands given as sorted tuples; malformed text
raises `CardError` naming what is wrong and its character position.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kanjax.cards import RANK_CHARS, SUIT_CHARS, CardError

SEATS = "NESW"
PBN_RANKS = "AKQJT98765432"  # high to low, as PBN writes a suit
HAND_SIZE = 13


def looks_like_pbn(text: str) -> bool:
    """Whether `text` starts like a PBN deal (a letter, then ':'), not a kanjax deal string."""
    body = text.lstrip()
    return len(body) >= 2 and body[0].isalpha() and body[1] == ":"


def _token(card: int) -> str:
    return RANK_CHARS[card % 13] + SUIT_CHARS[card // 13]


def parse_pbn(text: str) -> tuple[tuple[int, ...], ...]:
    """A full PBN deal -> the four hands in seat order N, E, S, W, each a sorted tuple of
    bridge card ids. Leading and trailing white space is ignored (positions count it)."""
    start = len(text) - len(text.lstrip())
    body = text.strip()
    if not body:
        raise CardError("empty PBN deal: want a seat letter, ':' and four hands")
    if body[0] not in SEATS:
        raise CardError(f"bad PBN seat letter {body[0]!r} at character {start}: "
                        f"want one of {', '.join(SEATS)}")
    if body[1:2] != ":":
        raise CardError(f"PBN deal: want ':' after the seat letter at character {start + 1}")
    first = SEATS.index(body[0])
    words, at = [], start + 2
    for word in body[2:].split():
        at = text.index(word, at)
        words.append((at, word))
        at += len(word)
    if len(words) != 4:
        where = words[4][0] if len(words) > 4 else start + len(body)
        raise CardError(f"PBN deal has {len(words)} hands (at character {where}): want 4, "
                        "separated by spaces")
    hands: list[tuple[int, ...]] = [()] * 4
    seen: dict[int, int] = {}  # card -> character position
    for i, (pos, word) in enumerate(words):
        seat = (first + i) % 4
        suits = word.split(".")
        if len(suits) != 4:
            raise CardError(f"PBN hand {word!r} of {SEATS[seat]} at character {pos} has "
                            f"{len(suits)} suits: want 4 (spades.hearts.diamonds.clubs)")
        cards, at = [], pos
        for suit, ranks in enumerate(suits):
            for j, ch in enumerate(ranks):
                if ch not in PBN_RANKS:
                    hint = " (the ten is T)" if ch in "10" else ""
                    raise CardError(f"bad PBN rank {ch!r} at character {at + j}: want one of "
                                    f"{PBN_RANKS}{hint}")
                card = 13 * suit + RANK_CHARS.index(ch)
                if card in seen:
                    raise CardError(f"card {_token(card)} at character {at + j} is dealt twice "
                                    f"(first at character {seen[card]})")
                seen[card] = at + j
                cards.append(card)
            at += len(ranks) + 1
        hands[seat] = tuple(sorted(cards))
    for i, (pos, _) in enumerate(words):
        seat = (first + i) % 4
        if len(hands[seat]) != HAND_SIZE:
            missing = " ".join(_token(c) for c in range(52) if c not in seen)
            raise CardError(
                f"PBN hand of {SEATS[seat]} at character {pos} has {len(hands[seat])} cards: "
                f"want {HAND_SIZE} (a full 52-card deal"
                + (f"; missing: {missing})" if missing else ")"))
    return tuple(hands)


def format_pbn(hands: Sequence[Iterable[int]], first: str = "N") -> str:
    """The four hands (seat order N, E, S, W; bridge card ids) as a PBN deal starting at seat
    `first`; ranks high to low within each suit. Any distinct cards are written (a partial
    deal too); `parse_pbn` reads back full deals only."""
    if len(first) != 1 or first not in SEATS:
        raise CardError(f"bad PBN seat letter {first!r}: want one of {', '.join(SEATS)}")
    hands = [list(h) for h in hands]
    if len(hands) != 4:
        raise CardError(f"{len(hands)} hands: a PBN deal has 4 (N, E, S, W)")
    seen: set[int] = set()
    for seat, hand in enumerate(hands):
        for c in hand:
            if not hasattr(c, "__index__"):
                raise CardError(f"bad card {c!r} in the hand of {SEATS[seat]}: want an id")
            c = int(c)
            if not 0 <= c < 52:
                raise CardError(f"bad card id {c} in the hand of {SEATS[seat]}: want 0..51")
            if c in seen:
                raise CardError(f"card {_token(c)} is dealt twice")
            seen.add(c)
    start = SEATS.index(first)
    out = []
    for i in range(4):
        cards = {int(c) for c in hands[(start + i) % 4]}
        out.append(".".join(
            "".join(r for r in PBN_RANKS if 13 * s + RANK_CHARS.index(r) in cards)
            for s in range(4)))
    return f"{first}:" + " ".join(out)
