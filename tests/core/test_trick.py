"""The shared trick kernel (`kanjax.core.trick`): play strengths of one and several cards (KAN-27,
DBF-26) and the running trick update, under jit and vmap."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core import trick

# A toy deck for the multi-card rules: 4 suits x 8 ranks; suit 3 is trump this hand.
SUIT = np.repeat(np.arange(4), 8)
RANK = np.tile(np.arange(8), 4)
NO_TOP = np.zeros(32, bool)
TRUMP = jnp.int32(3)


def cards(*ids: int) -> np.ndarray:
    return np.isin(np.arange(32), ids)


def strength(play: np.ndarray, led: int) -> int:
    return int(trick.play_strength(play, SUIT, RANK, jnp.int32(led), TRUMP, NO_TOP))


def winner(plays: list[np.ndarray], led: int) -> int:
    """Who wins a trick of `plays` in order, through `add_play` (jitted)."""
    @jax.jit
    def run(stacked):
        t = trick.new_trick()
        for p in range(len(plays)):
            s = trick.play_strength(stacked[p], SUIT, RANK, trick.led_after(t, jnp.int32(led)),
                                    TRUMP, NO_TOP)
            t, done = trick.add_play(t, jnp.int32(p), jnp.int32(led), s, jnp.int32(0),
                                     len(plays))
        return t.winner, done

    w, done = run(jnp.asarray(np.stack(plays)))
    assert bool(done)
    return int(w)


def test_one_card_play_is_card_strength():
    for c in range(32):
        for led in range(4):
            want = trick.card_strength(SUIT[c], RANK[c], led, TRUMP, False)
            assert strength(cards(c), led) == int(want)


def test_DBF_26a_trump_led_only_all_trump_plays_compete():
    lead = cards(24 + 2, 24 + 3)  # a pair of trumps
    mixed = cards(24 + 7, 5)  # the top trump with a plain card: not all-trump
    higher = cards(24 + 4, 24 + 0)  # all-trump, top 4 > 3
    assert winner([lead, mixed], led=3) == 0
    assert winner([lead, mixed, higher], led=3) == 2


def test_DBF_26b_plain_led_all_trump_beats_led_suit_and_ties_go_to_the_earlier():
    lead = cards(2, 3)  # suit 0 pair
    follow_high = cards(6, 7)  # suit 0, higher
    ruff = cards(24 + 0, 24 + 1)  # all trumps: beats any suit-0 play
    ruff_equal = cards(24 + 1, 24 + 0)
    part_ruff = cards(24 + 7, 8)  # one trump and one other card: neither all-trump nor led
    assert winner([lead, follow_high], led=0) == 1
    assert winner([lead, follow_high, ruff], led=0) == 2
    assert winner([lead, ruff, ruff_equal], led=0) == 1  # equal top: the earlier play
    assert winner([lead, part_ruff], led=0) == 0
    assert strength(part_ruff, 0) == 0


def test_KAN_27_top_card_wins_and_points_accumulate_under_vmap():
    top = np.arange(32) == 31
    plays = jnp.asarray(np.stack([cards(1), cards(31), cards(24)]))

    def run(order):
        t = trick.new_trick()
        for i in range(3):
            play = plays[order[i]]
            s = trick.play_strength(play, SUIT, RANK, trick.led_after(t, jnp.int32(0)), TRUMP,
                                    top)
            t, _ = trick.add_play(t, order[i], jnp.int32(0), s, jnp.int32(i + 1), 3)
        return t

    orders = jnp.asarray([[0, 1, 2], [0, 2, 1], [2, 0, 1]])
    t = jax.jit(jax.vmap(run))(orders)
    assert np.asarray(t.winner).tolist() == [1, 1, 1]  # the top card, wherever it comes
    assert np.asarray(t.points).tolist() == [6, 6, 6]
    assert np.asarray(t.count).tolist() == [0, 0, 0]  # complete: back to 0
