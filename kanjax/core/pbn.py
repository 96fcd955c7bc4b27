"""Bridge PBN deal notation (the `Deal` tag of PBN 2.1, as DDS reads it) for the bridge deck.

    N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83

A seat letter (`N E S W`), a colon, then four hands clockwise from that seat, separated by
spaces. A hand is `spades.hearts.diamonds.clubs`, each suit its ranks from `AKQJT98765432`
(an empty suit is a void; the ten is `T`). Cards are bridge ids, `13 * suit + rank` with
suits S H D C = 0..3 and ranks 2..A = 0..12; seats N E S W = 0..3.
These are DDS's orders too (hands N E S W, suits S H D C).

An ending (a deal after some tricks, DDS's positions too) gives each hand the same number
of cards, fewer than 13: `parse_pbn(text, ending=True)` reads one.

A PBN file (`read_pbn_games`) holds games (boards): tag pairs `[Name "value"]`, one game's
tags apart from the next by an empty line, its `Deal` among them, with `Board`, `Dealer` and
`Vulnerable` (the par score's) where given; `;` and `{...}` comments, `%` lines and the
sections after a game's tags (auction, play) are skipped; a value `#` repeats the previous
game's.

`parse_pbn(format_pbn(hands)) == hands` for hands given as sorted tuples; malformed text
raises `CardError` naming what is wrong and its character position (a file's: its line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kanjax.core.cards import RANK_CHARS, SUIT_CHARS, CardError

SEATS = "NESW"
PBN_RANKS = "AKQJT98765432"  # high to low, as PBN writes a suit
HAND_SIZE = 13


def looks_like_pbn(text: str) -> bool:
    """Whether `text` starts like a PBN deal (a letter, then ':'), not a kanjax deal string."""
    body = text.lstrip()
    return len(body) >= 2 and body[0].isalpha() and body[1] == ":"


def _token(card: int) -> str:
    return RANK_CHARS[card % 13] + SUIT_CHARS[card // 13]


def parse_pbn(text: str, ending: bool = False) -> tuple[tuple[int, ...], ...]:
    """A full PBN deal (with `ending`, or an ending: as many cards, 1..13, in each hand) ->
    the four hands in seat order N, E, S, W, each a sorted tuple of bridge card ids. Leading
    and trailing white space is ignored (positions count it)."""
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
    if ending:
        _check_ending(hands, words, first)
        return tuple(hands)
    for i, (pos, _) in enumerate(words):
        seat = (first + i) % 4
        if len(hands[seat]) != HAND_SIZE:
            missing = " ".join(_token(c) for c in range(52) if c not in seen)
            raise CardError(
                f"PBN hand of {SEATS[seat]} at character {pos} has {len(hands[seat])} cards: "
                f"want {HAND_SIZE} (a full 52-card deal"
                + (f"; missing: {missing})" if missing else ")"))
    return tuple(hands)


def _check_ending(hands: list[tuple[int, ...]], words: list[tuple[int, str]],
                  first: int) -> None:
    """CardError unless every hand holds as many cards, 1..13 (an ending at a trick's start)."""
    size = len(hands[first])
    for i, (pos, _) in enumerate(words):
        seat = (first + i) % 4
        if len(hands[seat]) != size or not size:
            raise CardError(f"PBN hand of {SEATS[seat]} at character {pos} has "
                            f"{len(hands[seat])} cards, {SEATS[first]}'s {size}: an ending "
                            "wants as many cards, at least one, in each hand")


def is_ending(text: str) -> bool:
    """Whether a PBN deal (one `parse_pbn` reads with `ending`) holds fewer than 13 cards a
    hand; CardError for a malformed one."""
    return len(parse_pbn(text, ending=True)[0]) < HAND_SIZE


TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')


def _lines(text: str) -> Iterable[tuple[int, str | None]]:
    """(line number from 1, text) of a PBN file, comments (`;` to the line's end, `{...}`
    over lines) and escape lines (`%`) cut out; the text is None for an empty line outside
    comments (the end of a game)."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() and not inside:
            yield number, None
            continue
        out = []
        k = 0
        while k < len(line):
            if inside:
                end = line.find("}", k)
                if end < 0:
                    break
                inside, k = False, end + 1
            elif line.startswith("%", k) and not "".join(out).strip():
                break
            elif line[k] == "{":
                inside, k = True, k + 1
            elif line[k] == ";":
                break
            elif line[k] == '"':  # a tag value: comments inside it are text
                end = line.find('"', k + 1)
                while end > 0 and line[end - 1] == "\\":
                    end = line.find('"', end + 1)
                end = len(line) if end < 0 else end + 1
                out.append(line[k:end])
                k = end
            else:
                out.append(line[k])
                k += 1
        yield number, "".join(out)


def read_pbn_games(text: str) -> list[tuple[int, dict[str, str]]]:
    """The games of a PBN file with a `Deal` tag: (the line of its first tag, its tags by
    name), in file order. A value `#` is the previous game's value of that tag. CardError
    naming the line where a game has no deal, or the file none."""
    games: list[tuple[int, dict[str, str]]] = []
    tags: dict[str, str] = {}
    start, previous = 0, {}

    def close() -> None:
        nonlocal tags, previous
        if tags:
            if "Deal" not in tags:
                raise CardError(f"line {start}: a PBN game without a Deal tag")
            games.append((start, tags))
            previous, tags = tags, {}

    for number, line in _lines(text):
        if line is None:
            close()
            continue
        found = list(TAG.finditer(line))
        if found:
            if not tags:
                start = number
            for m in found:
                value = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
                tags[m.group(1)] = previous.get(m.group(1), "") if value == "#" else value
        elif line.lstrip().startswith("["):
            raise CardError(f"line {number}: a malformed PBN tag {line.strip()!r}: want "
                            '[Name "value"]')
        # else: a section's line (auction, play, ...), skipped
    close()
    if not games:
        raise CardError("no PBN game with a Deal tag in the file")
    return games


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
