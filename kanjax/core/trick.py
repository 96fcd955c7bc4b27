"""The trick-taking kernel shared by the trick games and the solvers: legal follow, the
strength of a play, and the running trick (its led suit, best play, winner and points) with
the one update every trick game and the double-dummy search apply to it.

Cards are described by per-card arrays over a game's card ids, passed in (a game whose trump
changes from hand to hand, such as Da Bai Fen, passes that hand's tables): `suit` (the card's
effective suit; any value outside the real suits for a card of no suit), `rank` (strength
within its suit: 0..15 for a plain suit, 0..30 within the trumps) and `top` (a card above
every other, Kan's joker). Every function is pure and jittable; batch with `vmap`.

Strengths (KAN-27, DBF-26): a play's strength is a number; the trick's best play is the first
play of greatest strength (a later play must be strictly stronger to take the lead), so a
running maximum is all a game keeps per trick. Plays of n cards (DBF-21..27): `follow_n_mask`
(who must follow with what), `play_strength` / `beats` / `winning_play` (which play wins),
`lead_valid` (DBF-23, a multi-lead no other hand can beat). A game whose suits and strengths
change from hand to hand (trump levels) computes its tables in its own folder and passes them
in.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from kanjax.core.jaxutil import Array

TOP = 63  # a `top` card
TRUMP_BASE = 32  # a trump: TRUMP_BASE + rank
LED_BASE = 16  # a card of the led suit: LED_BASE + rank; any other card: 0


def follow_mask(hand: Array, suit: Array, led: Array) -> Array:
    """Cards of `hand` (bool[C]) a follower may play: those of the `led` suit if he holds one,
    else any card of `hand` (KAN-24). Jokers with special rules are the game's business: pass
    `hand` without them."""
    of_led = hand & (suit == led)
    return jnp.where(jnp.any(of_led, axis=-1, keepdims=True), of_led, hand)


def follow_n_mask(hand: Array, picked: Array, of_led: Array, n: Array) -> Array:
    """The cards a follower may pick next when he must play `n` cards to a trick of `n` led
    cards, with `picked` (bool[C], a subset of `hand`) already picked (DBF-25): he plays as
    many cards of the led suit (`of_led`, bool[C]) as he can, up to `n`. A card of the led
    suit may always be picked; another only if the slots left after it still hold the led
    cards he must play. No card once `n` are picked. For n = 1 it is `follow_mask`."""
    free = hand & ~picked
    count = jnp.sum(picked, axis=-1, dtype=jnp.int32)
    must = jnp.minimum(jnp.sum(hand & of_led, axis=-1, dtype=jnp.int32), n)  # led cards due
    owed = must - jnp.sum(picked & of_led, axis=-1, dtype=jnp.int32)
    other_ok = n - count - 1 >= owed
    room = count < n
    return free & room[..., None] & (of_led | other_ok[..., None])


def card_strength(suit: Array, rank: Array, led: Array, trump: Array, top: Array,
                  low: Array | bool = False) -> Array:
    """KAN-27 as a number: the card of greatest strength wins the trick. A `top` card TOP; a
    trump TRUMP_BASE + rank; a card of the led suit LED_BASE + rank; any other card 0
    (`trump` < 0: no trump suit). A `low` card (KAN-54's joker in the last trick) is the
    lowest of the led suit: below its every card, above the other suits' cards."""
    rank = rank.astype(jnp.int32)
    strength = jnp.where(suit == trump, TRUMP_BASE + rank,
                         jnp.where(suit == led, LED_BASE + rank, 0))
    if low is not False:
        strength = jnp.where(low, jnp.where(led == trump, TRUMP_BASE - 1, LED_BASE - 1),
                             strength)
    return jnp.where(top, TOP, strength)


def play_strength(cards: Array, suit: Array, rank: Array, led: Array, trump: Array,
                  top: Array) -> Array:
    """The strength of a play of one or more cards (`cards`: bool[C]) to a trick whose led
    suit is `led` (DBF-26; for one card it is `card_strength`):

    - a play all of whose cards are trumps (or `top`) is worth its strongest card: (a) when
      trumps are led only such plays can win; (b) when a plain suit is led, one beats every
      play that is not all-trump;
    - otherwise a play is worth its strongest card of the led plain suit (0 without one, and
      0 whenever trumps are led).

    `cards` may be batched (..., C) against per-card tables of shape (C,) or (..., C)."""
    trumpish = (suit == trump[..., None]) | top
    all_trump = jnp.all(~cards | trumpish, axis=-1) & jnp.any(cards, axis=-1)
    strength = card_strength(suit, rank, led[..., None], trump[..., None], top)
    best_trump = jnp.max(jnp.where(cards & trumpish, strength, 0), axis=-1)
    of_led = cards & (suit == led[..., None]) & ~trumpish
    best_led = jnp.max(jnp.where(of_led, strength, 0), axis=-1)
    return jnp.where(all_trump, best_trump, best_led)


def winning_play(plays: Array, suit: Array, rank: Array, led: Array, trump: Array,
                 top: Array) -> Array:
    """The index of the play that wins a trick of `plays` (bool[P, C], in play order, the
    lead first; plays of one card or of n cards each) whose led suit is `led` (DBF-26, for
    one card KAN-27): the first play of greatest `play_strength` (DBF-8: of two equal plays
    the earlier wins; a later play must be strictly stronger). With all-trump plays (the
    lead's, trumps led; any, a plain suit led) the strongest top trump wins, else the
    strongest card of the led plain suit."""
    strength = play_strength(plays, suit, rank, jnp.broadcast_to(led, plays.shape[:-1]),
                             jnp.broadcast_to(trump, plays.shape[:-1]), top)
    return jnp.argmax(strength, axis=-1)


def beats(play: Array, best: Array, suit: Array, rank: Array, led: Array, trump: Array,
          top: Array) -> Array:
    """Whether `play` (bool[C]), made after `best`, takes the trick from it (DBF-26, DBF-8):
    its `play_strength` is strictly greater (equal plays: the earlier keeps the trick)."""
    led, trump = jnp.asarray(led), jnp.asarray(trump)
    return (play_strength(play, suit, rank, led, trump, top)
            > play_strength(best, suit, rank, led, trump, top))


def highest_by_suit(cards: Array, suit: Array, rank: Array, num_suits: int) -> Array:
    """int32[num_suits]: the greatest `rank` among `cards` (bool[C]) of each (effective) suit,
    -1 where they hold none."""
    of = cards[:, None] & (suit[:, None] == jnp.arange(num_suits))
    return jnp.max(jnp.where(of, rank[:, None].astype(jnp.int32), -1), axis=0)


def lead_valid(cards: Array, others: Array, suit: Array, rank: Array) -> Array:
    """DBF-23: whether a lead of `cards` (bool[C], all of one effective suit) is valid: a lead
    of one card always is; a multi-lead is iff no card of `others` (bool[C]: the other
    players' hands, partner included; not the kitty, not played cards) beats (DBF-8: the same
    effective suit, strictly stronger) any led card. An equal card does not invalidate."""
    led = suit[jnp.argmax(cards)]
    held = jnp.max(jnp.where(others & (suit == led), rank.astype(jnp.int32), -1))
    lowest = jnp.min(jnp.where(cards, rank.astype(jnp.int32), jnp.iinfo(jnp.int32).max))
    return (jnp.sum(cards, dtype=jnp.int32) < 2) | (held <= lowest)


def trick_winner(
    in_trick: Array, suit: Array, rank: Array, led: Array, trump: Array, top: Array
) -> Array:
    """The card id that wins the trick made of the cards in `in_trick` (bool[C]) (KAN-27):
    the `top` card if present, else the highest trump, else the highest card of the led suit."""
    strength = card_strength(suit, rank, led, trump, top)
    return jnp.argmax(jnp.where(in_trick, strength, -1), axis=-1)


class Trick(NamedTuple):
    """The trick in progress (int32 scalars, or arrays of a batch): its led suit (-1 before
    the lead), the strength of its best play so far and who made it, the points in it, and
    the plays made (0 before the lead)."""

    led: Array
    best: Array
    winner: Array
    points: Array
    count: Array


def new_trick(leader: Array | int = 0) -> Trick:
    """A trick before its lead (the winner slot holds `leader` until the lead is made)."""
    z = jnp.int32(0)
    return Trick(led=jnp.int32(-1), best=z, winner=jnp.asarray(leader, jnp.int32), points=z,
                 count=z)


def add_play(trick: Trick, player: Array, suit: Array, strength: Array, points: Array,
             size: int | Array) -> tuple[Trick, Array]:
    """`trick` after `player` plays a play of effective suit `suit` (used when he leads),
    `strength` (`card_strength` / `play_strength` against the led suit: the caller computes it
    with `led_after(trick, suit)`) and `points`, in a trick of `size` plays.

    Returns (the trick, whether this play completed it). A completed trick keeps its led suit,
    best play, winner and points (its count is back to 0), so the caller reads the winner and
    the points from it and starts the next with `new_trick` where it needs a clean one."""
    leading = trick.count == 0
    better = leading | (strength > trick.best)  # equal strength: the earlier play keeps it
    count = trick.count + 1
    complete = count == size
    return Trick(
        led=led_after(trick, suit),
        best=jnp.where(better, strength, trick.best),
        winner=jnp.where(better, player, trick.winner),
        points=jnp.where(leading, 0, trick.points) + points,
        count=jnp.where(complete, 0, count),
    ), complete


def led_after(trick: Trick, suit: Array) -> Array:
    """The trick's led suit once a play of effective suit `suit` is added: `suit` on the lead,
    the trick's own afterwards."""
    return jnp.where(trick.count == 0, suit, trick.led)
