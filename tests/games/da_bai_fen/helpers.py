"""Helpers of the Da Bai Fen reference tests: cards by token, positions, deck orders, scripted
plays, and the enumeration of the whole plays a mask allows."""

from __future__ import annotations

import copy

from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.reference import DbfRef

C = ds.DECK.card


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def suit(letter: str) -> int:
    return ds.SUITS.index(letter)


def position(hands: dict[int, str], R: int = 6, T: str = "C", L: int = 0, **kw) -> DbfRef:
    """A hand in play at a trick's start (scenario default: R=6, T=C, L=0, team 0 declares)."""
    config = kw.pop("config", None) or ds.DbfConfig.from_flags(**kw.pop("flags", {}))
    if "kitty" in kw:
        kw["kitty"] = cards(kw["kitty"])
    return DbfRef.from_position(config, [cards(hands[p]) for p in range(4)], R, suit(T), L,
                                **kw)


def play(ref: DbfRef, seat: int, text: str) -> None:
    """`seat` picks the cards of `text` (any order) and, when leading, plays them."""
    assert ref.current_player == seat, (text, seat, ref.current_player)
    leading = not ref.trick
    for c in cards(text):
        ref.step(ds.PICK + c)
    if leading:
        ref.step(ds.PLAY)


def play_trick(ref: DbfRef, *plays: str) -> None:
    """A whole trick from its leader on: `plays` in play order."""
    first = ref.current_player
    for i, text in enumerate(plays):
        play(ref, (first + i) % 4, text)


def whole_plays(ref: DbfRef) -> set[frozenset[int]]:
    """Every play (lead or follow) the mover can complete through the mask, by search."""
    found: set[frozenset[int]] = set()

    def search(r: DbfRef) -> None:
        legal = r.legal_actions()
        if ds.PLAY in legal:
            found.add(frozenset(r.selection))
        for a in legal:
            if a < ds.PLAY and a - ds.PICK > max(r.selection, default=-1):  # sets, not orders
                nxt = copy.deepcopy(r)
                nxt.step(a)
                if nxt.turn_done:  # a follow closed by its n-th pick
                    found.add(frozenset(r.selection | {a - ds.PICK}))
                else:
                    search(nxt)

    search(ref)
    return found


def combos(text_sets: list[str]) -> set[frozenset[int]]:
    return {frozenset(cards(t)) for t in text_sets}


def deck_order(front: str = "", kitty: str = "", rest: str = "") -> list[int]:
    """A deck order: the cards of `front` drawn first, then those of `rest`, then every other
    card in id order, the six of `kitty` last."""
    head, tail = cards(front) + cards(rest), cards(kitty)
    middle = [c for c in range(ds.NUM_CARDS) if c not in head and c not in tail]
    order = head + middle[:ds.NUM_DRAWN - len(head)] + tail
    assert len(tail) == ds.KITTY_SIZE and sorted(order) == list(range(ds.NUM_CARDS))
    return order


def order_from_hands(hands: dict[int, str], kitty: str, starter: int) -> list[int]:
    """The deck order that deals exactly `hands` (12 cards a seat) from `starter` (DBF-11)."""
    queues = {p: cards(h) for p, h in hands.items()}
    order = [queues[(starter + k) % 4].pop(0) for k in range(ds.NUM_DRAWN)] + cards(kitty)
    assert sorted(order) == list(range(ds.NUM_CARDS))
    return order


def pass_exposures(ref: DbfRef) -> int:
    """Decline every exposure decision until the draw is over; returns how many."""
    n = 0
    while ref.phase in (ds.PHASE_DRAW, ds.PHASE_FINAL_PASS):
        ref.step(ds.PASS)
        n += 1
    return n
