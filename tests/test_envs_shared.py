"""The game-neutral pieces of the engines: dealing (kanjax.core.dealing), header slots
(kanjax.core.layout) and deal-string headers (kanjax.core.deal_fields), for the decks of the
games that use them now (Kan, whist) and next (Da Bai Fen: 54 cards and a kitty; Konkan: 106
cards and a stock)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kanjax.core import dealing, jaxutil
from kanjax.core.deal_fields import read_deal
from kanjax.core.layout import Layout, slots
from kanjax.games.whist.engine import DECK as WHIST_DECK


@pytest.mark.parametrize("num_cards, absent, sizes", [
    (54, (), (12, 12, 12, 12)),  # Da Bai Fen: a kitty of 6
    (106, (), (15, 14, 14, 14, 14)),  # Konkan, 5 players: a stock of 35
    (53, (0, 13, 26), (10,) * 5),  # a Kan-like deck with holes, no rest
])
def test_shuffle_deals_hands_of_the_sizes_and_a_rest(num_cards, absent, sizes):
    deck = np.ones(num_cards, bool)
    deck[list(absent)] = False
    size = int(deck.sum())
    fn = jax.jit(lambda k: dealing.shuffle(k, deck, sizes))
    for seed in range(3):
        deal = fn(jax.random.PRNGKey(seed))
        rank, hand = np.asarray(deal.rank), np.asarray(deal.hand)
        assert (rank[~deck] == -1).all() and (hand[~deck] == -1).all()
        assert sorted(rank[deck]) == list(range(size))  # a permutation of the places
        starts = np.cumsum((0,) + sizes)
        for q, n in enumerate(sizes):
            assert (hand == q).sum() == n
            assert set(rank[hand == q]) == set(range(starts[q], starts[q] + n))
        rest = deck & (hand < 0)
        assert set(rank[rest]) == set(range(starts[-1], size))


def test_shuffle_of_a_whole_deck_is_random_ranks_in_blocks():
    """Whist (and every Kan deck) deal places 13q..13q+12 to hand q, as they always did."""
    key = jax.random.PRNGKey(4)
    deal = dealing.shuffle(key, np.ones(52, bool), (13,) * 4)
    ranks, spare = jaxutil.random_ranks(key, 52)
    np.testing.assert_array_equal(deal.rank, ranks)
    np.testing.assert_array_equal(deal.hand, np.asarray(ranks) // 13)
    np.testing.assert_array_equal(deal.spare, spare)


def test_owners_give_hand_q_to_the_player_at_position_q():
    hand = jnp.array([0, 1, 2, -1, 2, 0])
    pos = jnp.array([2, 0, 1, 3])  # player 3 at position 3: no such hand (a sitting-out dealer)
    assert dealing.owners(hand, pos).tolist() == [1, 2, 0, -1, 0, 1]


def test_ring_positions_start_after_the_dealer():
    seat_of = jnp.array([2, 0, 1, 4, 3])  # player p sits in seat seat_of[p]
    pos = dealing.ring_positions(seat_of, jnp.int32(0), 5)  # dealer P0 in seat 2
    assert pos.tolist() == [4, 2, 3, 1, 0]  # seat 3 (P4) first, then seat 4 (P3), ...
    assert [int(dealing.player_at(pos, k)) for k in range(5)] == [4, 3, 1, 2, 0]


@pytest.mark.parametrize("num_cards", [20, 53, 64, 106])
def test_kth_card_and_card_at(num_cards):
    rng = np.random.default_rng(num_cards)
    kth = jax.jit(dealing.kth_card)
    for _ in range(4):
        hand = rng.random(num_cards) < 0.4
        ids = np.flatnonzero(hand)
        ks = np.arange(-1, len(ids))
        got = np.asarray(kth(jnp.asarray(hand), jnp.asarray(ks, jnp.int32)))
        assert got.tolist() == [-1] + ids.tolist()
    rank = jnp.asarray(rng.permutation(num_cards))
    for place in (0, num_cards - 1, num_cards):
        want = int(np.flatnonzero(np.asarray(rank) == place)[0]) if place < num_cards else -1
        assert int(dealing.card_at(rank, jnp.int32(place))) == want


def test_spread_fills_the_absent_cards():
    present = np.array([False, True, True, False, False, True])
    out = dealing.spread(jnp.array([7, 8, 9]), present, fill=-5)
    assert out.tolist() == [-5, 7, 8, -5, -5, 9]


def test_layout_slots_pack_and_unpack():
    assert slots([("a", None), ("v", 3), ("b", None)]) == {"a": 0, "v": slice(1, 4), "b": 4}
    layout = Layout(head=[("a", None), ("v", 3), ("b", None)], wide=[("w", None), ("s", 2)])
    assert (layout.head_size, layout.wide_size) == (5, 3)
    g = {"a": -1, "v": jnp.array([0, 127, -128]), "b": 5, "w": 70000, "s": jnp.array([-3, 4])}
    h, w = jax.jit(layout.pack)(g)
    assert h.dtype == jnp.int8 and h.tolist() == [-1, 0, 127, -128, 5]
    assert w.dtype == jnp.int32 and w.tolist() == [70000, -3, 4]

    class S:
        _h, _w = h, w

    back = layout.unpack(S)
    assert {k: np.asarray(v).tolist() for k, v in back.items()} == {
        "a": -1, "v": [0, 127, -128], "b": 5, "w": 70000, "s": [-3, 4]}
    assert Layout(head=[("a", None)]).pack({"a": 3})[1] is None  # no wide part


def test_read_deal_checks_game_fields_and_sections():
    hands = "AS | KS | QS | JS"
    d, f = read_deal(f"whist trump=H | {hands}", "whist", WHIST_DECK, ("trump", "leader"))
    assert f == {"trump": "H"} and len(d.hands) == 4
    assert f.choice("leader", ("N", "E", "S", "W"), "W") == "W"
    with pytest.raises(ValueError, match="deal field trump='X': want one of NT, S"):
        read_deal(f"whist trump=X | {hands}", "whist", WHIST_DECK, ("trump",))[1].choice(
            "trump", ("NT", "S"), "NT")
    with pytest.raises(ValueError, match="deal string for 'whist': this env plays gonin_kan"):
        read_deal(f"whist | {hands}", "gonin_kan", WHIST_DECK, ())
    with pytest.raises(ValueError, match="unknown deal field 'foo'; fields: leader, trump"):
        read_deal(f"whist foo=1 | {hands}", "whist", WHIST_DECK, ("trump", "leader"))
    with pytest.raises(ValueError, match="deal field 'trump' given twice"):
        read_deal(f"whist trump=H trump=S | {hands}", "whist", WHIST_DECK, ("trump",))
    with pytest.raises(ValueError, match="whist deals have no named sections: 'kitty'"):
        read_deal(f"whist | {hands} | kitty: 2C", "whist", WHIST_DECK, ())
    with pytest.raises(ValueError, match="unknown deal section 'stock'; sections: kitty"):
        read_deal(f"whist | {hands} | stock: 2C", "whist", WHIST_DECK, (), sections=("kitty",))
    with pytest.raises(ValueError, match="deal section 'kitty' given twice"):
        read_deal(f"whist | {hands} | kitty: 2C | kitty: 3C", "whist", WHIST_DECK, (),
                  sections=("kitty",))
    d, _ = read_deal(f"whist | {hands} | kitty: 2C 3C", "whist", WHIST_DECK, (),
                     sections=("kitty",))
    assert len(d.section("kitty")) == 2
    with pytest.raises(ValueError, match="want integers"):
        read_deal(f"whist n=x | {hands}", "whist", WHIST_DECK, ("n",))[1].ints("n")
