"""Sure tricks (plain tricks: tricks are the value, so they bound it), on the suit words of every
seat (`hands`: uint32[n, 4]): the leader's quick tricks, the tricks his side surely takes at
a trick's second hand, and a side's master trumps. Each comes with the cards it rests on
(uint32[4]), the ranks its result depends on.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kanjax.core.jaxutil import Array
from solvers.search.words import SUITS, above, top, trumps, words_of


def quick_tricks(hands: Array, leader: Array, trump: Array, side: Array) -> tuple[Array, Array]:
    """(count, cards): the tricks the leader cashes for sure, with his cards above every
    other live card of their suit (uint32[4]); in a side suit of a trump game only as
    many rounds as every other player who still holds a trump once he has cashed his
    trumps can follow."""
    others = jnp.arange(hands.shape[0]) != leader
    lengths = jax.lax.population_count(hands).astype(jnp.int32)
    cards, wins = winners(hands, lengths, leader)
    t = jnp.maximum(trump, 0)
    ruffers = others & (trump >= 0) & (lengths[:, t] > wins[t])
    safe = jnp.min(jnp.where(ruffers[:, None], lengths, 13), axis=0)
    count = jnp.sum(jnp.where((trump < 0) | (SUITS == trump), wins,
                              jnp.minimum(wins, safe)))
    # then, with no trumps in play: a low card to the partner's winners (the one other
    # player of the leader's side), and his winners (if his discards on the leader's
    # winners can spare them)
    mates = (side == side[leader]) & others
    partner = jnp.argmax(mates)
    his, his_wins = winners(hands, lengths, partner)
    entry = jnp.any((his != 0) & (hands[leader] != 0))
    discards = jnp.sum(jnp.maximum(wins - lengths[partner], 0))
    # his cards that are neither winners nor needed to follow the leader's winners
    spare = jnp.sum(lengths[partner] - his_wins - jnp.minimum(lengths[partner], wins))
    no_trumps = ~jnp.any(trumps(hands, trump) != 0)
    cross = entry & (discards <= spare) & no_trumps & (jnp.sum(mates) == 1)
    return (count + jnp.where(cross, jnp.sum(his_wins), 0),
            cards | jnp.where(cross, his, jnp.uint32(0)))


def winners(hands: Array, lengths: Array, seat: Array) -> tuple[Array, Array]:
    """(cards, count): `seat`'s cards above every other live card of their suit
    (uint32[4]), and per suit the tricks they take led from the top: those cards, or his
    whole suit once they have drawn every other card of it (length tricks; the table key
    holds the lengths, so only the top cards' ranks matter)."""
    others = jnp.arange(hands.shape[0]) != seat
    cards = above(hands[seat], words_of(hands, others))
    tops = jax.lax.population_count(cards).astype(jnp.int32)
    longest = jnp.max(jnp.where(others[:, None], lengths, 0), axis=0)
    return cards, jnp.where((tops > 0) & (tops >= longest), lengths[seat], tops)


def second_hand(hands: Array, second: Array, led_card: Array, trump: Array,
                side: Array) -> tuple[Array, Array]:
    """(count, cards): the tricks the side of the second hand to play (`second`) takes
    for sure from the current trick on (plain tricks, the leader's `led_card` on the table), and
    the cards they rest on (uint32[4]); as DDS's QuickTricksSecondHand. With the third
    hand an opponent and the fourth a partner, the trick is theirs if the third hand
    cannot ruff it and they can: ruff it, or beat the led card and every card the third
    hand holds in its suit (the card's rank matters). With no trumps in play, the hand
    that wins it with that card then cashes its other cards above every other hand's."""
    n = hands.shape[0]
    third, fourth = (second + 1) % n, (second + 2) % n
    led = led_card >> 4
    suit = hands[:, led]  # each seat's cards of the led suit
    trump_words = trumps(hands, trump)
    can_ruff = (led != trump) & (suit == 0) & (trump_words != 0)  # per seat
    ruff = can_ruff[second] | can_ruff[fourth]
    high = top(suit[second] | suit[fourth])
    by_rank = ~ruff & (high > jnp.maximum(led_card & 15, top(suit[third])))
    partners = (side[third] != side[second]) & (side[fourth] == side[second])
    wins = partners & ~can_ruff[third] & (ruff | by_rank)
    high_bit = jnp.uint32(1) << jnp.maximum(high, 0).astype(jnp.uint32)
    card = jnp.where((SUITS == led) & by_rank, high_bit, jnp.uint32(0))
    winner = jnp.where((suit[second] & high_bit) != 0, second, fourth)
    more = above(hands[winner] & ~card, words_of(hands, jnp.arange(n) != winner))
    no_trumps = ~jnp.any(trump_words != 0)
    more = jnp.where(by_rank & no_trumps, more, jnp.uint32(0))
    count = 1 + jnp.sum(jax.lax.population_count(more)).astype(jnp.int32)
    return jnp.where(wins, count, 0), jnp.where(wins, card | more, jnp.uint32(0))


def top_trumps(hands: Array, trump: Array, side: Array) -> tuple[Array, Array, Array]:
    """(seat, count, cards): the holder of the highest trump, and the tricks his side's
    master trumps (above every opponent's) take for sure, whoever leads (those cards,
    uint32[4]). Every card is played by the deal's end, and a master wins the trick it is
    played on unless a partner's master is played on it too; the side plays its other
    trumps first, so its masters take min(masters, longest trump holding) tricks. Count
    0 without trumps."""
    trump_words = trumps(hands, trump)
    seat = jnp.argmax(trump_words)  # the highest trump's holder has the greatest word
    ours = side == side[seat]
    masters = jnp.where(ours[:, None] & (SUITS == trump),
                        above(hands, words_of(hands, ~ours)), jnp.uint32(0))
    held = jax.lax.population_count(jnp.where(ours, trump_words, jnp.uint32(0)))
    count = jnp.minimum(jnp.sum(jax.lax.population_count(masters)),
                        jnp.max(held)).astype(jnp.int32)
    return seat, count, words_of(masters, ours)
