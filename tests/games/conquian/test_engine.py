"""The Conquian engine beyond the scenarios: batched stepping, deal strings, bad input, what a
player observes."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import kanjax
from kanjax.api import checked_step
from kanjax.core.cards import CardError
from kanjax.games.conquian import spec as cq
from tests.games.conquian.helpers import make, position
from tests.test_step_batch import trajectories

ENV = make()


def test_step_batch_is_vmap_step():
    """The layoff checks made only in the lanes that reach a discard and the next deal of a
    series dealt only where a deal was drawn (`step_batch`) give `vmap(step)`'s states bit for
    bit, also when more lanes need them than one trip takes."""
    env = make(dealer=0)
    final, diff, dealt = trajectories(env, 150)
    assert diff.sum() == 0, f"step_batch differs from vmap(step) first at step {diff.nonzero()}"
    assert dealt.sum() > 0 and np.asarray(final.terminated).any()


DEAL = ("conquian dealer=1 deck=spanish | AS 2S 3S 4S 5S 6S 7S JS QS KS | AH 2H 3H 4H 5H 6H "
        "7H JH QH KH | stock: AD 2D 3D 4D 5D 6D 7D JD QD KD AC 2C 3C 4C 5C 6C 7C JC QC KC")


def test_cq5_cq10_deal_string_round_trip():
    s = ENV.from_deal(DEAL)
    assert ENV.deal_string(s) == DEAL
    f = {k: np.asarray(v) for k, v in ENV.summary(s).items()}
    assert int(f["current_player"]) == 0 and int(f["dealer"]) == 1  # N = 1 - D acts first
    assert ENV.card_deck.token(int(f["exposed"])) == "AD" and f["fresh"]
    assert int(f["stock_left"]) == 19
    dealt = jax.jit(ENV.init)(jax.random.PRNGKey(3))
    again = ENV.from_deal(ENV.deal_string(dealt))
    for a, b in zip(jax.tree.leaves(dealt), jax.tree.leaves(again), strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("deal, message", [
    (DEAL.replace("KS", "9S"), "bad card token '9S'"),
    (DEAL.replace("| stock:", "| kitty:"), "unknown deal section 'kitty'"),
    (DEAL.replace(" KC", ""), "stock section of 20 cards"),
    (DEAL.replace("AH", "AS"), "AS is dealt twice"),
    (DEAL.replace("dealer=1", "dealer=2"), "dealer=.2.*0..1"),
    (DEAL.replace("deck=spanish", "deck=numerals"), "this env plays the spanish pack"),
    (DEAL.replace(" KS |", " |"), "hand 1 has 9 cards"),
])
def test_bad_deal_strings_name_the_fault(deal, message):
    with pytest.raises((ValueError, CardError), match=message):
        ENV.from_deal(deal)


def test_bad_flags_and_illegal_actions_name_the_fault():
    with pytest.raises(ValueError, match="unknown config key 'decks' for conquian"):
        kanjax.make("conquian", decks="numerals")
    with pytest.raises(ValueError, match="deck='french'"):
        kanjax.make("conquian", deck="french")
    with pytest.raises(ValueError, match="dealer=2"):
        kanjax.make("conquian", dealer=2)
    with pytest.raises(ValueError, match="carry_pot=1: must be true or false"):
        kanjax.make("conquian", carry_pot=1)
    s = ENV.from_deal(DEAL)
    with pytest.raises(ValueError, match=r"illegal action 40 \(take\).*legal: pass"):
        checked_step(ENV, s, "take", jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="unknown Conquian action 'pick 9S'"):
        checked_step(ENV, s, "pick 9S", jax.random.PRNGKey(0))


def test_observe_hides_the_opponents_hand_and_the_stock():
    """Swapping cards between the opponent's hand and the stock changes nothing seat 0 sees;
    seat 1 sees the change."""
    common = dict(melds=("AS 2S 3S", "KH KD KC"), exposed="5C", mover=0)
    a = position(ENV, hands=("7D JD 4S 5S 6H AH 2C", "QS JS 7S 2H 3H 4H 5H"),
                 stock="6C 7C JC QC", **common)
    b = position(ENV, hands=("7D JD 4S 5S 6H AH 2C", "6C 7C JC QC 3H 4H 5H"),
                 stock="QS JS 7S 2H", **common)
    see = jax.jit(ENV.observe)
    assert np.array_equal(see(a, 0), see(b, 0))
    assert not np.array_equal(see(a, 1), see(b, 1))
    obs = np.asarray(see(a, 0))
    sl = ENV.observation_spec().slices()
    assert obs[sl["their_hand"]].tolist() == [7] and obs[sl["stock_left"]].tolist() == [4]
    assert obs[sl["exposed"]].sum() == 1 and obs[sl["their_meld"]].sum() == 3


def test_cq24_the_selection_is_seen_by_its_picker_only():
    s = position(ENV, hands=("5S 5D KD", "AH"), exposed="5H", mover=0)
    s = checked_step(ENV, s, "pick 5S", jax.random.PRNGKey(0))
    sl = ENV.observation_spec().slices()
    assert np.asarray(ENV.observe(s, 0))[sl["selection"]].sum() == 1
    assert np.asarray(ENV.observe(s, 1))[sl["selection"]].sum() == 0
    assert not bool(ENV.turn_done(s)) and int(s.current_player) == 0


def test_cq4_dealer_from_the_key_or_the_flag():
    dealers = {int(ENV.summary(ENV.init(jax.random.PRNGKey(k)))["dealer"]) for k in range(16)}
    assert dealers == {0, 1}
    fixed = make(dealer=0)
    assert {int(fixed.summary(fixed.init(jax.random.PRNGKey(k)))["dealer"])
            for k in range(4)} == {0}
    assert ENV.max_steps == 10 * cq.MAX_DEAL_STEPS and ENV.max_deals == 10
    assert make(carry_pot=False).max_steps == cq.MAX_DEAL_STEPS
