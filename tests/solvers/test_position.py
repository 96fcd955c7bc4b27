"""The solvers' rules (`solvers.position.Rules`): malformed rules refused where they are built,
and the solvers' limits named by `Rules.limits` and refused by every search
(`Rules.check_limits`), each with a ValueError naming the limit and the value."""

from __future__ import annotations

import dataclasses

import pytest

from solvers.position import MAX_SUIT_CARDS, Position, Rules
from tests.solvers.rules import WHIST, game_rules

GONIN = game_rules("gonin_kan")


def whist_like(**changes) -> Rules:
    return dataclasses.replace(WHIST, **changes)


def test_the_games_rules_are_within_the_limits():
    assert WHIST.total == 13 and WHIST.plain_tricks and not WHIST.joker
    assert not GONIN.plain_tricks and GONIN.total == 16


@pytest.mark.parametrize("game", ["gonin_kan", "gambari_kan"])
def test_KAN_25_joker_plays_as_data(game: str):
    """Never in tricks 1 and 10; its holder plays nothing else in trick 9 (the odori ban)."""
    rules = game_rules(game)
    assert rules.joker == ("never",) + ("any",) * 7 + ("only", "never")
    assert not rules.joker_low_last


@pytest.mark.parametrize(("flag", "first"), [("lead", "follow"), ("any", "never")])
def test_KAN_54_KAN_58_yonin_joker_plays_as_data(flag: str, first: str):
    """Any trick but the first, where no contract is declared (the solver plays none): not
    led, or (flag "any") not played; the lowest card of the led suit in trick 10."""
    rules = game_rules("yonin_kan", yonin_joker_trick1_contract=flag)
    assert rules.joker == (first,) + ("any",) * 9 and rules.joker_low_last


def test_seats():
    with pytest.raises(ValueError, match="16 seats: the solvers take 2..15 seats"):
        whist_like(n=16, n_tricks=3)
    with pytest.raises(ValueError, match="1 seats: the solvers take 2..15"):
        whist_like(n=1)


def test_suits():
    suit = (5,) + WHIST.suit[1:]
    with pytest.raises(ValueError, match="card 0 of suit 5: the solvers take 4 suits, 0..3"):
        whist_like(suit=suit)


def test_cards_a_suit():
    """At most MAX_SUIT_CARDS cards a suit (here 16 spades), of distinct ranks."""
    ids = tuple(range(64))
    suit, rank = tuple(c // 16 for c in ids), tuple(c % 16 for c in ids)
    with pytest.raises(ValueError, match=f"16 cards of suit 0: the solvers take at most "
                                         f"{MAX_SUIT_CARDS} a suit"):
        whist_like(ids=ids, suit=suit, rank=rank, points=(0,) * 64, tokens=()).check_limits()
    with pytest.raises(ValueError, match=r"suit 0 with ranks \[0, 0, 2, 3"):
        whist_like(rank=(0, 0) + WHIST.rank[2:]).check_limits()


def test_jokers():
    """One joker, card JK, the last id (its leads are the next action ids), with its plays
    for every trick; no joker without them."""
    with pytest.raises(ValueError, match=r"jokers \[52\] without joker plays"):
        dataclasses.replace(GONIN, joker=())
    ids = GONIN.ids if 51 in GONIN.ids else GONIN.ids + (51,)  # the ace of spades too
    with pytest.raises(ValueError, match=r"jokers \[51, 52\] .* take one joker, card 52"):
        dataclasses.replace(GONIN, ids=ids, suit=GONIN.suit[:51] + (4, 4))
    with pytest.raises(ValueError, match=r"joker plays \('kan',\): want one of .* for each "
                                         "of the 13 tricks"):
        whist_like(joker=("kan",))
    with pytest.raises(ValueError, match="for each of the 10 tricks"):
        dataclasses.replace(GONIN, joker=GONIN.joker[:9])
    with pytest.raises(ValueError, match=r"jokers \[\] of card ids 0..51: the solvers take one"):
        dataclasses.replace(GONIN, ids=GONIN.ids[:-1], suit=GONIN.suit[:-1],
                            rank=GONIN.rank[:-1], points=GONIN.points[:-1], n_tricks=9,
                            joker=GONIN.joker[:9], tokens=GONIN.tokens[:-1])


def test_cards_a_play():
    """One card a play: Da Bai Fen's multi-card plays (DBF-26) are beyond the solvers: such
    rules are described (a game's positions) but every search refuses them."""
    rules = whist_like(cards_a_play=4)
    assert rules.limits == ("4 cards a play (multi-card plays, DBF-21..27): the solvers play "
                            "1 card a play",)
    with pytest.raises(ValueError, match=r"whist: beyond the solvers' limits: 4 cards a play"):
        rules.check_limits()
    assert not WHIST.limits and not GONIN.limits
    with pytest.raises(ValueError, match="0 cards a play"):
        whist_like(cards_a_play=0)


def test_points_and_values():
    with pytest.raises(ValueError, match="card 12 worth 10 points .*: the solvers take 0 or 1"):
        whist_like(points=tuple(10 if c == 12 else 0 for c in range(52))).check_limits()
    with pytest.raises(ValueError, match="a deal worth 130: the solvers take a value of "
                                         "0..127"):
        whist_like(trick_value=10).check_limits()
    with pytest.raises(ValueError, match="a last-trick bonus of 2: the solvers value every"):
        whist_like(last_bonus=2).check_limits()
    with pytest.raises(ValueError, match="card 3 worth -1 points: want 0 or more"):
        whist_like(points=tuple(-1 if c == 3 else 0 for c in range(52)))


def test_a_position_names_its_trump():
    hands = tuple(tuple(range(13 * s, 13 * s + 13)) for s in range(4))
    Position(WHIST, hands, -1, 0, (True, False, True, False))
    with pytest.raises(ValueError, match=r"trump 4: want -1 \(none\) or a suit 0..3"):
        Position(WHIST, hands, 4, 0, (True, False, True, False))
