"""The rummy kernel (`kanjax.games.conquian.meld`) against the plain-Python meld functions
(`kanjax.games.conquian.reference_meld`) on random card sets: `cover` (does some set between the
required cards and all the cards split into melds, and which optional cards lie in one) and
`partitionable` (CQ-3, CQ-6)."""

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kanjax.games.conquian import meld
from kanjax.games.conquian import reference_meld as ref

cover = jax.jit(meld.cover)
partitionable = jax.jit(meld.partitionable)
BATCH = 64


@st.composite
def near_melds(draw) -> tuple[list[int], list[int]]:
    """Up to 11 cards of a few ranks and neighbouring ranks (so that melds, switching and
    groups next to runs are common), split into required and optional cards."""
    ranks = draw(st.lists(st.integers(0, 9), min_size=1, max_size=4))
    near = sorted({10 * s + min(max(r + d, 0), 9) for r in ranks for d in (-1, 0, 1)
                   for s in range(4)})
    cards = draw(st.lists(st.sampled_from(near), min_size=0, max_size=11, unique=True))
    k = draw(st.integers(0, len(cards)))
    return cards[:k], cards[k:]


def batch_words(pairs) -> tuple[jax.Array, jax.Array]:
    return (jnp.asarray(np.stack([meld.words_of(r) for r, _ in pairs])),
            jnp.asarray(np.stack([meld.words_of(o) for _, o in pairs])))


@settings(max_examples=40, deadline=None)
@given(st.lists(near_melds(), min_size=BATCH, max_size=BATCH))
def test_cover_equals_reference(pairs):
    req, opt = batch_words(pairs)
    ok, usable = (np.asarray(x) for x in cover(req, opt))
    whole = np.asarray(partitionable(req | opt))
    for i, (r, o) in enumerate(pairs):
        assert meld.covers_exactly(meld.words_of(r + o))
        assert bool(ok[i]) == ref.cover(r, o), (r, o)
        assert set(meld.ids_of(usable[i])) == set(ref.usable(r, o)), (r, o)
        assert bool(whole[i]) == ref.partitionable(r + o), (r, o)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.lists(st.integers(0, 39), max_size=11, unique=True), min_size=BATCH,
                max_size=BATCH))
def test_partitionable_equals_reference_on_any_sets(sets):
    got = np.asarray(partitionable(jnp.asarray(np.stack([meld.words_of(c) for c in sets]))))
    assert got.tolist() == [ref.partitionable(c) for c in sets]


def test_words_round_trip_under_vmap():
    cards = jnp.asarray(np.random.default_rng(0).random((5, 40)) < 0.3)
    assert np.array_equal(np.asarray(jax.vmap(meld.cards)(jax.vmap(meld.words)(cards))),
                          np.asarray(cards))
