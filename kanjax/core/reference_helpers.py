"""Plain-Python reference rules, written straight from the rules files, for differential tests."""


def hand_owner(hands, num_cards: int) -> list[int]:
    """For every card id 0..num_cards-1, the player (index into `hands`) holding it, or -1."""
    owner = [-1] * num_cards
    for p, hand in enumerate(hands):
        for c in hand:
            owner[c] = p
    return owner
