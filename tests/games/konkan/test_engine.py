"""The Konkan engine beyond the scenarios: the kernel against brute force (the opening search,
the masks of PHASE_ACT, taking as an opened player), what a player observes, deal strings and
bad input. Random play (the engine's invariants on every step, against the reference) is
`test_differential.py`; `step_batch` against `vmap(step)` is `tests/test_step_batch.py`."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import checked_step, jitted
from kanjax.core.cards import CardError
from kanjax.games.konkan import meld as mk
from kanjax.games.konkan import spec as ks
from tests.games.konkan.helpers import (
    finals,
    make,
    mask_oracle,
    opened_take_oracle,
    opening_oracle,
    position,
    summary,
)

ENV = make()
DECK = np.repeat(np.arange(ks.NUM_TYPES), ks.COPIES)


# ---- the kernel against brute force -------------------------------------------------------------
def random_hands(rng, count: int) -> list[tuple[np.ndarray, int]]:
    """15-card hands with the taken card: half uniform, half from few suits and high ranks
    (runs, sets and jokers together)."""
    out = []
    while len(out) < count:
        if len(out) % 2:
            suits = rng.choice(4, rng.integers(1, 3), replace=False)
            pool = np.array([t for t in range(52) if t // 13 in suits or t % 13 in (0, 9, 10, 11,
                                                                                    12)] * 2
                            + [52, 52])
        else:
            pool = DECK
        cards = rng.choice(pool, 15, replace=False)
        cnt = np.bincount(cards, minlength=53)
        if cnt.max() <= 2:
            out.append((cnt, int(cards[-1])))
    return out


@pytest.mark.parametrize("need_run, need_c", [(True, True), (True, False), (False, True)])
def test_KON_E11_opening_search_is_exact(need_run, need_c):
    """`kanjax.games.konkan.meld.opening_batch` against `helpers.opening_oracle` (a memoised search
    over every packing) on 15-card hands, the thresholds 0..71; the cheap bound never drops a
    possible opening."""
    rng = np.random.default_rng(11 + 2 * need_run + need_c)
    hands = random_hands(rng, 120)
    T = rng.choice([51, 71, 30, 0], len(hands))
    run = jax.jit(mk.opening_batch, static_argnums=(4, 5, 6))
    got = np.asarray(run(jnp.asarray(np.stack([h for h, _ in hands])),
                         jnp.asarray([c for _, c in hands]), jnp.asarray(T),
                         jnp.ones(len(hands), bool), need_run, need_c, 64))
    want = np.array([opening_oracle(h, c, int(t), need_run, need_c)
                     for (h, c), t in zip(hands, T, strict=True)])
    assert 0.1 < want.mean() < 0.9 and (got == want).all(), np.flatnonzero(got != want)
    bound = jax.jit(jax.vmap(mk.opening_bound, in_axes=(0, 0, 0, None, None)),
                    static_argnums=(3, 4))
    maybe = np.asarray(bound(jnp.asarray(np.stack([h for h, _ in hands])),
                             jnp.asarray([c for _, c in hands]), jnp.asarray(T), need_run,
                             need_c))
    assert (maybe | ~want).all()  # the filter never drops a possible opening


def random_table(rng, melds: int):
    """Random legal table melds (runs of 3..7, sets of 3..4, a few jokers) and the cards left."""
    left = np.full(53, 2)
    out = []
    while len(out) < melds:
        jk = int(rng.random() < 0.3 and left[52] > 0)
        if rng.random() < 0.6:
            s, k = int(rng.integers(4)), int(rng.integers(3, 8))
            p = int(rng.integers(0, 15 - k))
            pos = list(range(p, p + k))
            jpos = set(rng.choice(pos, jk, replace=False).tolist())
            need = [ks.card_type(s, mk.POS_RANK[q]) for q in pos if q not in jpos]
            if any(left[t] < need.count(t) for t in need) or not need:
                continue
            out.append((ks.RUN_MELD, s, sum(1 << q for q in pos if q not in jpos),
                        sum(1 << q for q in jpos)))
        else:
            r, size = int(rng.integers(13)), int(rng.integers(3, 5))
            suits = rng.choice(4, size - jk, replace=False).tolist()
            need = [ks.card_type(u, r) for u in suits]
            if any(left[t] < 1 for t in need):
                continue
            out.append((ks.SET_MELD, r, sum(1 << u for u in suits), jk))
        for t in need:
            left[t] -= 1
        left[52] -= jk
    return out, left


def draw_hand(rng, left, k):
    pool = np.repeat(np.arange(53), left)
    return np.bincount(rng.choice(pool, k, replace=False), minlength=53)


def table_arrays(melds):
    arr = np.full((4, ks.MAX_MELDS), -1, np.int32)
    arr[2:] = 0
    for m, (kind, key, nat, jok) in enumerate(melds):
        arr[:, m] = kind, key, nat, jok
    return arr


def test_KON_E6_E9_act_masks_match_brute_force():
    """Picks and finishing actions of random hands, tables and selections (empty, part of a
    legal meld or layoff, or random), opened or not, and a requester's parts, against
    `helpers.mask_oracle` (written from KON-E6..E9)."""
    rng = np.random.default_rng(7)
    cases = []
    while len(cases) < 120:
        melds, left = random_table(rng, int(rng.integers(0, 6)))
        hand = draw_hand(rng, left, int(rng.integers(2, 16)))
        req = rng.random() < 0.15
        rules = dict(can_meld=True, can_table=bool(rng.random() < 0.7) and not req,
                     run_lengths=(10, 11) if req else range(3, 14),
                     set_sizes=(3, 4))
        fs = finals(hand, melds, **rules)
        u = rng.random()
        if u < 0.3 or not fs:
            sel = np.zeros(53, int)
        elif u < 0.8:
            f = fs[rng.integers(len(fs))][1]
            part = rng.choice(len(f), rng.integers(1, len(f) + 1), replace=False)
            sel = np.bincount(np.array(f)[part], minlength=53)
        else:
            sel = np.minimum(hand, rng.integers(0, 2, 53) * (rng.random(53) < 0.15))
        cases.append((hand, sel, melds, rules))
    act = jax.jit(jax.vmap(mk.act_masks, in_axes=(0, 0, 0, 0, 0, 0, None, 0, 0, 0)))
    tabs = np.stack([table_arrays(m) for _, _, m, _ in cases])
    bits = lambda ks_: sum(1 << k for k in ks_)  # noqa: E731
    out = act(jnp.asarray(np.stack([c[0] for c in cases])),
              jnp.asarray(np.stack([c[1] for c in cases])), *(jnp.asarray(tabs[:, i])
                                                              for i in range(4)),
              jnp.bool_(True), jnp.asarray([bits(c[3]["run_lengths"]) for c in cases]),
              jnp.asarray([bits(c[3]["set_sizes"]) for c in cases]),
              jnp.asarray([c[3]["can_table"] for c in cases]))
    out = {k: np.asarray(v) for k, v in out.items()}
    names = ks.action_names()
    for i, (hand, sel, melds, rules) in enumerate(cases):
        row = np.concatenate([out["pick"][i], out["run"][i], [out["set"][i]], out["layoff"][i],
                              out["layoff_low"][i], out["retrieve"][i]])
        got = {names[a] for a in np.flatnonzero(row)}
        assert got == mask_oracle(hand, sel, melds, **rules), (i, hand, sel, melds, rules)


@pytest.mark.parametrize("must_use", [True, False])
def test_KON_E11_opened_take_matches_a_search_of_table_actions(must_use):
    """`kanjax.games.konkan.meld.opened_take`'s few checks against a search over every sequence of
    legal table actions of the turn (retrievals first or not; `helpers.opened_take_oracle`)."""
    rng = np.random.default_rng(3 + must_use)
    cases = []
    while len(cases) < 80:
        melds, left = random_table(rng, int(rng.integers(1, 6)))
        hand = draw_hand(rng, left, int(rng.integers(1, 6)))
        left = left - hand
        pool = np.repeat(np.arange(53), np.maximum(left, 0))
        if len(pool):
            cases.append((hand, int(rng.choice(pool)), melds))
    take = jax.jit(jax.vmap(lambda h, c, a: mk.opened_take(h, c, a[0], a[1], a[2], a[3],
                                                           must_use)))
    got = np.asarray(take(jnp.asarray(np.stack([c[0] for c in cases])),
                          jnp.asarray([c[1] for c in cases]),
                          jnp.asarray(np.stack([table_arrays(c[2]) for c in cases]))))
    want = np.array([opened_take_oracle(h, c, m, must_use) for h, c, m in cases])
    assert 0.1 < want.mean() < 0.95 and (got == want).all(), np.flatnonzero(got != want)


# ---- what a player sees ---------------------------------------------------------------------
def swapped_with_the_stock(env, seat: int):
    """Two positions that differ only by cards swapped between `seat`'s hand and the stock,
    and the jitted `observe`."""
    others = ["8H 8C", "TD"]
    hands = [["AS KH", *others] for _ in range(2)]
    for h, cards in zip(hands, ("QS QD 4C", "QS 3C 4H"), strict=True):
        h.insert(seat, cards)
    common = dict(melds=[(1, "5S 6S 7S")], pile="2C 9D", mover=0)
    a = position(env, hands=hands[0], stock="3C 4H JS", **common)
    b = position(env, hands=hands[1], stock="QD 4C JS", **common)
    return a, b, jax.jit(env.observe)


def test_observe_hides_other_hands_and_the_stock():
    """Swapping cards between another player's hand (the partner's too) and the stock changes
    nothing seat 0 sees; the owner of the hand sees the change."""
    a, b, see = swapped_with_the_stock(ENV, 1)
    assert np.array_equal(see(a, 0), see(b, 0)) and np.array_equal(see(a, 2), see(b, 2))
    assert not np.array_equal(see(a, 1), see(b, 1))
    sl = ENV.observation_spec().slices()
    obs = np.asarray(see(a, 0))
    assert obs[sl["hand_sizes"]].tolist() == [2, 3, 2, 1] and obs[sl["stock"]].tolist() == [3]
    assert obs[sl["pile_top"]].tolist() == [ks.DECK.card("9D")] and obs[sl["pile"]].sum() == 2
    assert obs[sl["meld_cards"]].sum() == 3 and obs[sl["opened"]].tolist() == [0, 1, 0, 0]
    s = position(ENV, hands=["AS 2S 3S KH", "", "", ""], selection="AS")
    assert np.asarray(see(s, 0))[sl["selection"]].sum() == 1
    assert np.asarray(see(s, 1))[sl["selection"]].sum() == 0


def test_observe_hides_the_partners_hand_in_pairs():
    """In partnership play (KON-31) the partner's hand is as hidden as an opponent's: swapping
    cards between seat 2's hand and the stock changes nothing seat 0 sees."""
    a, b, see = swapped_with_the_stock(make(partnership=True), 2)
    assert np.array_equal(see(a, 0), see(b, 0)) and np.array_equal(see(a, 1), see(b, 1))
    assert not np.array_equal(see(a, 2), see(b, 2))


def test_KON_E16_summary_keys_and_shapes():
    s = jitted(ENV, "init")(jax.random.PRNGKey(2))
    f = summary(ENV, s)
    for k in ks.SUMMARY_KEYS + ("current_player", "legal_action_mask", "rewards", "terminated",
                                "deck"):
        assert k in f, k
    n = ENV.n
    shapes = {"hands": (n, 53), "selection": (53,), "opened": (n,), "requested": (n,),
              "meld_owner": (35,), "meld_cards": (35, 14), "pile": (53,), "round_scores": (n,),
              "totals": (n,), "winners": (n,), "deck": (106,)}
    for k, shape in shapes.items():
        assert f[k].shape == shape, k
    assert int(f["phase"]) == ks.PHASE_ACT and int(f["taken"]) == -1 and int(f["turns"]) == 0
    assert int(f["outcome"]) == ks.IN_PLAY and int(f["round"]) == 1 and int(f["melds"]) == 0


# ---- deal strings and bad input -----------------------------------------------------------
def test_KON_6_deal_string_round_trip():
    s = jitted(ENV, "init")(jax.random.PRNGKey(4))
    text = ENV.deal_string(s)
    assert text.startswith("konkan n=4 dealer=") and "| stock: " in text
    again = ENV.from_deal(text)
    for a, b in zip(jax.tree.leaves(s), jax.tree.leaves(again), strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    assert ENV.deal_string(again) == text
    assert kanjax.deal_env(text.replace("n=4", "n=3")).n == 3


def bad_deals():
    s = jitted(ENV, "init")(jax.random.PRNGKey(4))
    text = ENV.deal_string(s)
    first = text.split(" | ")[1].split()[0]
    hand2 = text.split(" | ")[2].split()
    return [
        (text.replace(first, "1S", 1), "bad card token '1S'"),
        (text.replace("| stock:", "| kitty:"), "unknown deal section 'kitty'"),
        (text.rsplit(" ", 1)[0], "stock section of 49 cards"),
        (text.replace(" | ".join(text.split(" | ")[2:3]), " ".join([hand2[0]] * 2 + hand2[2:])),
         "card .* is dealt 3 times|more than 2 in one hand"),
        (text.replace("dealer=", "dealer=9", 1), "dealer="),
        (text.replace("n=4", "n=5"), "this env plays n=4"),
        (text.replace(" " + hand2[-1] + " |", " |", 1), "has 13 cards: want 14"),
    ]


@pytest.mark.parametrize("case", range(7))
def test_bad_deal_strings_name_the_fault(case):
    deal, message = bad_deals()[case]
    with pytest.raises((ValueError, CardError), match=message):
        ENV.from_deal(deal)


def test_bad_flags_and_illegal_actions_name_the_fault():
    with pytest.raises(ValueError, match="unknown config key 'players' for konkan"):
        kanjax.make("konkan", players=4)
    with pytest.raises(ValueError, match="n=6: Konkan is for 2..5 players"):
        kanjax.make("konkan", n=6)
    with pytest.raises(ValueError, match="partnership=True needs n=4"):
        kanjax.make("konkan", n=3, partnership=True)
    with pytest.raises(ValueError, match="reward='gold'"):
        kanjax.make("konkan", reward="gold")
    with pytest.raises(ValueError, match="opening_min=51.0: must be an integer"):
        kanjax.make("konkan", opening_min=51.0)
    s = jitted(ENV, "init")(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match=r"illegal action 224 \(draw\).*legal: "):
        checked_step(ENV, s, "draw", jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="unknown Konkan action 'pick 1S'"):
        checked_step(ENV, s, "pick 1S", jax.random.PRNGKey(0))
    assert ENV.max_steps == 5 * 400 * 64 and ENV.max_deals == 5
    assert ENV.deal_flags(kanjax.core.cards.deal_header("konkan n=3 dealer=1")) == {"n": 3}
