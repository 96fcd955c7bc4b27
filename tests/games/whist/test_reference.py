"""Self-tests of the plain-Python whist reference (bridge card play), on hand-checkable deals.

Tricks are scripted as "W:2C N:AC E:3C S:4C": seat W plays 2C, then N plays AC, ... (the order
is asserted against the reference's current player). Partial scenarios place the scripted
cards and fill the rest of the hands at random, keeping the voids a scenario needs.
"""

from __future__ import annotations

import random

import pytest

from kanjax.core.cards import deck
from kanjax.games.whist.reference import (
    EW,
    NO_TRUMP,
    NS,
    SEATS,
    WHIST_DECK,
    WhistRef,
    legal_plays,
    next_player,
    side_of,
    trick_winner,
)

DECK = deck("whist")
C = DECK.card
N, E, S, W = range(4)


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def suit_cards(suit: str) -> list[int]:
    return cards(" ".join(r + suit for r in "23456789TJQKA"))


def parse_trick(text: str) -> list[tuple[int, int]]:
    return [(SEATS.index(seat), C(tok)) for seat, tok in (w.split(":") for w in text.split())]


def play_trick(ref: WhistRef, trick: str) -> None:
    for seat, card in parse_trick(trick):
        assert ref.current_player == seat, (trick, SEATS[seat], ref.current_player)
        ref.apply(card)


def deal(fixed: dict[int, str], voids: dict[int, str] | None = None,
         seed: int = 0) -> list[list[int]]:
    """Hands with the `fixed` cards placed (seat -> tokens) and the rest dealt at random, no
    seat getting a card of a suit it must be void in (seat -> suit letters)."""
    rng = random.Random(seed)
    voids = voids or {}
    hands = [cards(fixed.get(p, "")) for p in range(4)]
    for p in range(4):
        assert all(DECK.token(c)[1] not in voids.get(p, "") for c in hands[p]), p
    rest = sorted(WHIST_DECK - {c for h in hands for c in h})
    rng.shuffle(rest)

    def seats_for(c: int) -> list[int]:
        return [p for p in range(4) if DECK.token(c)[1] not in voids.get(p, "")]

    rest.sort(key=lambda c: len(seats_for(c)))  # the most constrained cards first
    for c in rest:
        room = [p for p in seats_for(c) if len(hands[p]) < 13]
        assert room, f"cannot place {DECK.token(c)} with voids {voids}"
        hands[rng.choice(room)].append(c)
    assert sorted(c for h in hands for c in h) == list(range(52))
    return hands


# One suit each: N spades, E hearts, S diamonds, W clubs; nobody can ever follow.
ONE_SUIT_EACH = [suit_cards("S"), suit_cards("H"), suit_cards("D"), suit_cards("C")]


# ---- helpers -----------------------------------------------------------------------------------
def test_card_ids_follow_the_whist_deck():
    assert C("2S") == 0 and C("AS") == 12 and C("2H") == 13 and C("AC") == 51
    assert [next_player(p) for p in range(4)] == [E, S, W, N]
    assert [side_of(p) for p in range(4)] == [NS, EW, NS, EW]


def test_trick_winner_helper():
    # NT: the highest card of the led suit, off-suit aces lose.
    assert trick_winner(parse_trick("W:2C N:AS E:3C S:AD"), NO_TRUMP) == E
    # A trump beats the led suit; the highest trump beats a lower one.
    assert trick_winner(parse_trick("W:AC N:2H E:KC S:QC"), 1) == N
    assert trick_winner(parse_trick("W:AD N:2S E:3S S:4D"), 0) == E
    # Led suit = trump: just the highest of it.
    assert trick_winner(parse_trick("N:5H E:2H S:KH W:3C"), 1) == S


def test_legal_plays_helper():
    hand = cards("2S 9S AH 3C")
    assert legal_plays(hand, None) == sorted(hand)
    assert legal_plays(hand, 0) == cards("2S 9S")
    assert legal_plays(hand, 2) == sorted(hand)  # void in diamonds: anything


# ---- the game ----------------------------------------------------------------------------------
def test_configured_leader_leads_trick_1_and_play_goes_clockwise():
    for leader in SEATS:
        ref = WhistRef(deal({}), leader=leader)
        first = SEATS.index(leader)
        assert ref.leader == first and ref.current_player == first
        order = []
        for _ in range(4):
            order.append(ref.current_player)
            ref.apply(ref.legal_actions()[0])
        assert order == [(first + i) % 4 for i in range(4)]


def test_default_config_is_no_trump_west_leads():
    ref = WhistRef(deal({}))
    assert ref.trump == NO_TRUMP and ref.leader == W and ref.current_player == W


def test_leader_may_lead_any_card():
    hands = deal({})
    ref = WhistRef(hands, leader="N")
    assert ref.legal_actions() == sorted(hands[N])


def test_follow_suit_if_able():
    hands = deal({W: "2C", N: "KC"})
    ref = WhistRef(hands, trump="S")
    ref.apply(C("2C"))
    assert ref.trick == [C("2C")]
    clubs = [c for c in hands[N] if c // 13 == 3]
    assert ref.legal_actions() == sorted(clubs)
    with pytest.raises(ValueError, match="illegal action"):
        ref.apply(next(c for c in hands[N] if c // 13 != 3))  # a revoke


def test_void_in_led_suit_may_play_anything():
    hands = deal({W: "2C"}, voids={N: "C"})
    ref = WhistRef(hands, trump="H")
    ref.apply(C("2C"))
    assert ref.legal_actions() == sorted(hands[N])


def test_trump_beats_led_suit():
    hands = deal({W: "AC", N: "2H", E: "KC", S: "QC"}, voids={N: "C"})
    ref = WhistRef(hands, trump="H")
    play_trick(ref, "W:AC N:2H E:KC S:QC")
    assert ref.tricks == [1, 0] and ref.tricks_done == 1
    assert ref.leader == N and ref.current_player == N and ref.trick == []


def test_higher_trump_overtrumps():
    hands = deal({W: "AD", N: "2S", E: "3S", S: "4D"}, voids={N: "D", E: "D"})
    ref = WhistRef(hands, trump="S")
    play_trick(ref, "W:AD N:2S E:3S S:4D")
    assert ref.tricks == [0, 1] and ref.current_player == E


def test_no_trump_off_suit_card_loses():
    hands = deal({W: "2C", N: "AS", E: "3C", S: "4C"}, voids={N: "C"})
    ref = WhistRef(hands, trump="NT")
    play_trick(ref, "W:2C N:AS E:3C S:4C")
    assert ref.tricks == [1, 0] and ref.current_player == S  # 4C, not AS


def test_off_suit_discard_loses_with_trump_too():
    # Trump hearts, nobody trumps: a discarded ace of another suit does not win.
    hands = deal({W: "5D", N: "AS", E: "9D", S: "3D"}, voids={N: "DH"})
    ref = WhistRef(hands, trump="H")
    play_trick(ref, "W:5D N:AS E:9D S:3D")
    assert ref.tricks == [0, 1] and ref.current_player == E


def test_winner_leads_next_trick():
    hands = deal({W: "2D", N: "KD", E: "AD", S: "5D"})
    ref = WhistRef(hands, trump="C")
    play_trick(ref, "W:2D N:KD E:AD S:5D")
    assert ref.current_player == E and ref.leader == E and ref.last_winner == E
    assert ref.legal_actions() == sorted(set(hands[E]) - {C("AD")})  # E leads anything


def test_13_tricks_one_suit_each_no_trump():
    # W leads clubs; nobody else has one, so W's club wins every trick.
    ref = WhistRef(ONE_SUIT_EACH, trump="NT", leader="W")
    for t in range(13):
        assert ref.current_player == W and not ref.is_over
        assert ref.rewards == [0, 0, 0, 0]
        for _ in range(4):
            ref.apply(ref.legal_actions()[0])
        assert ref.tricks == [0, t + 1]
    assert ref.is_over and ref.current_player == -1 and ref.legal_actions() == []
    assert ref.tricks == [0, 13] and ref.rewards == [0, 13, 0, 13]


def test_13_tricks_one_suit_each_spades_trump():
    # W leads a club, N ruffs and then leads spades (trumps) to the end: NS take all 13.
    ref = WhistRef(ONE_SUIT_EACH, trump="S", leader="W")
    play_trick(ref, "W:2C N:2S E:2H S:2D")
    assert ref.current_player == N
    while not ref.is_over:
        assert ref.current_player == N
        for _ in range(4):
            ref.apply(ref.legal_actions()[-1])
    assert ref.tricks == [13, 0] and ref.rewards == [13, 0, 13, 0]


def test_13_tricks_one_suit_each_hearts_trump_east_leads():
    # E leads hearts (trumps) 13 times: EW take all 13.
    ref = WhistRef(ONE_SUIT_EACH, trump="H", leader="E")
    while not ref.is_over:
        assert ref.current_player == E
        for _ in range(4):
            ref.apply(ref.legal_actions()[0])
    assert ref.rewards == [0, 13, 0, 13]


def test_rewards_split_between_partnerships():
    # N: AS..8S (7 top spades) + 6 clubs; E/S/W hold the rest. NT, N leads spades from the top:
    # 7 spade winners for NS, then N has only small clubs left.
    hands = deal({N: "AS KS QS JS TS 9S 8S 2C 3C 4C 5C 6C 7C"}, seed=3)
    ref = WhistRef(hands, trump="NT", leader="N")
    for _ in range(7):
        assert ref.current_player == N
        ref.apply(max(c for c in ref.legal_actions() if c // 13 == 0))
        for _ in range(3):
            ref.apply(ref.legal_actions()[0])
    assert ref.tricks == [7, 0]
    rng = random.Random(0)
    while not ref.is_over:
        ref.apply(rng.choice(ref.legal_actions()))
    ns, ew = ref.tricks
    assert ns + ew == 13 and ns >= 7
    assert ref.rewards == [ns, ew, ns, ew]


def test_random_games_keep_the_invariants():
    rng = random.Random(7)
    for g in range(200):
        hands = deal({}, seed=g)
        ref = WhistRef(hands, trump=rng.choice(["NT", "S", "H", "D", "C"]),
                       leader=rng.choice(SEATS))
        steps = 0
        while not ref.is_over:
            legal = ref.legal_actions()
            p = ref.current_player
            assert legal and set(legal) <= set(hands[p])
            if ref.trick:
                led = ref.trick[0] // 13
                gone = {c for _, _, c in ref.history}
                has = [c for c in hands[p] if c // 13 == led and c not in gone]
                assert legal == (sorted(has) if has else sorted(ref.hands[p]))
            ref.apply(rng.choice(legal))
            steps += 1
            assert sum(ref.tricks) == ref.tricks_done == steps // 4
        assert steps == 52 and sorted(c for _, _, c in ref.history) == list(range(52))
        assert [t for t, _, _ in ref.history] == [i // 4 for i in range(52)]
        assert ref.hand_owner() == [-1] * 52 and ref.deal == [sorted(h) for h in hands]
        ns, ew = ref.tricks
        assert ns + ew == 13 and ref.rewards == [ns, ew, ns, ew]


def test_summary_is_plain_lists():
    hands = deal({})
    ref = WhistRef(hands, trump="D", leader="S")
    s = ref.summary()
    assert s["current_player"] == S and s["leader"] == S and s["first_leader"] == S
    assert s["trump"] == 2 and s["led"] == -1 and s["n_played"] == 0 and s["trick"] == 0
    assert s["tricks"] == [0, 0] and s["trick_cards"] == [-1] * 4 and s["terminated"] is False
    assert s["winners"] == [-1] * 13 and s["played"] == [-1] * 52 and s["rewards"] == [0] * 4
    assert s["legal_actions"] == sorted(hands[S])
    assert s["hand_owner"] == [next(p for p in range(4) if c in hands[p]) for c in range(52)]
    lead = sorted(hands[S])[0]
    ref.apply(lead)
    s = ref.summary()
    assert s["trick_cards"] == [-1, -1, lead, -1] and s["current_player"] == W
    assert s["hand_owner"][lead] == -1 and s["played"][lead] == 4 * 0 + S
    assert s["n_played"] == 1 and s["led"] == lead // 13


def test_summary_after_tricks_and_at_the_end():
    ref = WhistRef(ONE_SUIT_EACH, trump="S", leader="W")
    play_trick(ref, "W:2C N:2S E:2H S:2D")
    s = ref.summary()
    assert s["trick"] == 1 and s["winners"][:2] == [N, -1] and s["leader"] == N
    assert s["trick_cards"] == [-1] * 4 and s["n_played"] == 0 and s["led"] == -1
    assert [s["played"][C(t)] for t in ("2S", "2H", "2D", "2C")] == [0, 1, 2, 3]
    play_trick(ref, "N:3S E:3H S:3D W:3C")
    assert ref.summary()["played"][C("3C")] == 4 * 1 + W
    while not ref.is_over:
        ref.apply(ref.legal_actions()[0])
    s = ref.summary()
    assert s["terminated"] is True and s["current_player"] == -1 and s["legal_actions"] == []
    assert s["trick"] == 13 and s["winners"] == [N] * 13 and s["tricks"] == [13, 0]
    assert s["rewards"] == [13, 0, 13, 0] and s["hand_owner"] == [-1] * 52
    assert sorted(s["played"]) == list(range(52))


# ---- errors ------------------------------------------------------------------------------------
def test_illegal_action_names_the_action_and_the_legal_ones():
    ref = WhistRef(ONE_SUIT_EACH, leader="W")
    with pytest.raises(ValueError, match=r"illegal action 0 \(2S\) for seat W; legal: \[39, 40"):
        ref.apply(C("2S"))  # not in W's hand
    ref.apply(C("5C"))
    msg = r"illegal action 44 \(7C\) for seat N; legal: \[0, 1, .*\] \(2S 3S "
    with pytest.raises(ValueError, match=msg):
        ref.apply(C("7C"))
    assert ref.trick == [C("5C")] and ref.current_player == N  # nothing changed


def test_revoke_is_rejected_and_state_is_kept():
    hands = deal({W: "2C", N: "KC AH"})
    ref = WhistRef(hands)
    ref.apply(C("2C"))
    before = ref.summary()
    with pytest.raises(ValueError, match=r"illegal action 25 \(AH\) for seat N; legal: \["):
        ref.apply(C("AH"))
    assert ref.summary() == before


def test_no_action_after_the_game_is_over():
    ref = WhistRef(ONE_SUIT_EACH)
    while not ref.is_over:
        ref.apply(ref.legal_actions()[0])
    with pytest.raises(ValueError, match="illegal action 0: the game is over"):
        ref.apply(0)


def test_out_of_range_action_is_rejected():
    ref = WhistRef(ONE_SUIT_EACH)
    with pytest.raises(ValueError, match=r"illegal action 52 \(not a card id\) for seat W"):
        ref.apply(52)
    with pytest.raises(TypeError):
        ref.apply(1.5)


@pytest.mark.parametrize("kwargs,match", [
    ({"trump": "X"}, "trump must be one of S, H, D, C, NT"),
    ({"trump": "nt"}, "trump must be one of"),
    ({"leader": "Q"}, "leader must be one of N, E, S, W"),
    ({"leader": 0}, "leader must be one of"),
])
def test_bad_config_is_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        WhistRef(ONE_SUIT_EACH, **kwargs)


def test_bad_hands_are_rejected():
    with pytest.raises(ValueError, match="need 4 hands"):
        WhistRef(ONE_SUIT_EACH[:3])
    short = [list(h) for h in ONE_SUIT_EACH]
    short[2] = short[2][:12]
    with pytest.raises(ValueError, match="seat S must get 13 cards, got 12"):
        WhistRef(short)
    dup = [list(h) for h in ONE_SUIT_EACH]
    dup[1][0] = dup[0][0]
    with pytest.raises(ValueError, match="card 0 dealt twice"):
        WhistRef(dup)
    bad = [list(h) for h in ONE_SUIT_EACH]
    bad[3][0] = 52
    with pytest.raises(ValueError, match="card 52 .seat W. is not a whist card"):
        WhistRef(bad)
