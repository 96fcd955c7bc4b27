"""Engine tests of Da Bai Fen (`kanjax.games.da_bai_fen.engine`): its per-hand tables (DBF-5..7,
V6), the draw and exposure (DBF-11..15), kitty turning (DBF-14), deal strings, turns of
several actions, and the hidden information of `observe`. The rules end to end are the
differential test's (every step against the reference)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import checked_step, jitted, legal_actions
from kanjax.conformance import check_env
from kanjax.games.da_bai_fen import engine as dbf
from kanjax.games.da_bai_fen import spec as ds
from tests.games.da_bai_fen.cases import DEFAULT, JILIN

C = ds.DECK.card
KEY = jax.random.PRNGKey(0)


def cards(text):
    return [C(t) for t in text.split()]


@pytest.fixture(scope="module")
def env():
    return kanjax.make("da_bai_fen", **DEFAULT)


def order_text(front="", kitty="3D 4D 5D 6D 7D 8D"):
    """A deck order whose draw starts with `front` (by draw index) and ends with `kitty`."""
    head, tail = cards(front), cards(kitty)
    middle = [c for c in range(54) if c not in head and c not in tail]
    order = head + middle[:48 - len(head)] + tail
    return order


def deal_of(order, starter=0, **fields):
    hands = [[order[4 * i + (q - starter) % 4] for i in range(12)] for q in range(4)]
    head = " ".join(["da_bai_fen", f"starter={starter}"]
                    + [f"{k}={v}" for k, v in fields.items()])
    parts = [head] + [ds.DECK.format_hand(h) for h in hands]
    parts.append("kitty: " + ds.DECK.format_hand(order[48:]))
    return " | ".join(parts)


def summary(env, s):
    return {k: np.asarray(v) for k, v in jitted(env, "summary")(s).items()}


def pass_exposures(env, s):
    while int(summary(env, s)["phase"]) in (ds.PHASE_DRAW, ds.PHASE_FINAL_PASS):
        s = checked_step(env, s, ds.PASS, KEY)
    return s


def test_dbf7_trump_order():
    """DBF-5..7 (scenario 1): R=6, T=C: 18 trumps in order; hearts 12 cards without 6H."""
    trump, eff, strength = (np.asarray(x) for x in dbf.tables(jnp.int32(6), jnp.int32(3),
                                                                 False))
    assert trump.sum() == 18
    order = cards("RJ BJ 6C 6S AC KC QC JC TC 9C 8C 7C 5C 4C 3C 2C")
    got = [strength[c] for c in order]
    assert got == sorted(got, reverse=True) and len(set(got)) == len(got)
    assert strength[C("6S")] == strength[C("6H")] == strength[C("6D")]
    hearts = [c for c in range(54) if eff[c] == 1]
    assert sorted(hearts) == sorted(cards("AH KH QH JH TH 9H 8H 7H 5H 4H 3H 2H"))


def test_dbf_v6_yuan_zhu_order():
    """V6 (scenario 21): R=8, T=D with yuan zhu: 21 trumps, 2S beats AD, 2D beats 2S, 2S = 2H."""
    trump, eff, strength = (np.asarray(x) for x in dbf.tables(jnp.int32(8), jnp.int32(2),
                                                                 True))
    assert trump.sum() == 21
    order = cards("RJ BJ 8D 8S 2D 2S AD KD QD JD TD 9D 7D 6D 5D 4D 3D")
    got = [strength[c] for c in order]
    assert got == sorted(got, reverse=True) and len(set(got)) == len(got)
    assert strength[C("2S")] == strength[C("2H")] == strength[C("2C")]
    assert strength[C("8S")] == strength[C("8H")] == strength[C("8C")]


def test_dbf11_draw_order(env):
    """DBF-11 (scenario 2): S=2: cards 0..3 to seats 2, 3, 0, 1; the last six the kitty."""
    order = order_text("3S 4S 7H 8H", "9H KS BJ 2D QC 5S")
    s = env.from_deal(deal_of(order, starter=2))
    assert env.deal_string(s) == deal_of(order, starter=2, kind="first", levels="2,2",
                                         hands=0).replace("starter=2 kind=first",
                                                          "kind=first starter=2")
    place = np.asarray(s._place)
    assert [int(np.flatnonzero(place == k)[0]) for k in range(4)] == cards("3S 4S 7H 8H")


def test_dbf14_kitty_turn_stops_at_trump_rank(env):
    """DBF-14 (scenario 3): nobody exposes; kitty 9H KS BJ 2D QC 5S stops at 2D: T=D, L=S."""
    s = pass_exposures(env, env.from_deal(deal_of(order_text("", "9H KS BJ 2D QC 5S"))))
    f = summary(env, s)
    assert (int(f["turned"]), int(f["trump_suit"]), int(f["leader"])) == (4, 2, 0)
    assert int(f["phase"]) == ds.PHASE_DISCARD and int(f["current_player"]) == 0


def test_dbf14_kitty_turn_highest_rank(env):
    """DBF-14 (scenario 4): no 2 in the kitty: the first of the highest ranks (KS) fixes T."""
    s = pass_exposures(env, env.from_deal(deal_of(order_text("", "9H KS BJ QD KC 3S"),
                                                  starter=1)))
    f = summary(env, s)
    assert (int(f["turned"]), int(f["trump_suit"]), int(f["leader"])) == (6, 0, 1)


def test_dbf15_exposure_race(env):
    """DBF-12/13/15 (scenario 5): S=0; seat 1 draws 2H first and passes, seat 3 exposes 2D:
    T=D, L=3, team 1 declares, nobody exposes afterwards."""
    s = env.from_deal(deal_of(order_text("3S 2H 4S 2D")))
    f = summary(env, s)
    assert (int(f["current_player"]), int(f["drawn"])) == (1, 2)
    assert legal_actions(s) == [ds.EXPOSE + 1, ds.PASS]
    s = checked_step(env, s, ds.PASS, KEY)
    f = summary(env, s)
    assert (int(f["current_player"]), int(f["drawn"])) == (3, 4)
    s = checked_step(env, s, ds.EXPOSE + 2, KEY)
    f = summary(env, s)
    assert (int(f["trump_suit"]), int(f["leader"]), int(f["declaring"])) == (2, 3, 1)
    assert int(f["phase"]) == ds.PHASE_DISCARD and int(f["current_player"]) == 3


def test_discard_is_a_turn_of_six_picks(env):
    """DBF-17: L picks six cards; the sixth closes the turn (turn_done) and they are the kitty."""
    s = pass_exposures(env, env.from_deal(deal_of(order_text("", "9H KS BJ 2D QC 5S"))))
    hand = np.flatnonzero(np.asarray(s._loc) == 0)
    assert len(hand) == 18
    for i, c in enumerate(hand[:6]):
        assert bool(env.turn_done(s)) == (i == 0)
        s = checked_step(env, s, int(c), KEY)
    assert bool(env.turn_done(s))
    assert sorted(np.flatnonzero(np.asarray(s._loc) == ds.LOC_KITTY)) == sorted(hand[:6])


def test_deal_string_round_trip_and_errors(env):
    s = env.init(jax.random.PRNGKey(3))
    text = env.deal_string(s)
    again = env.from_deal(text)
    assert env.deal_string(again) == text
    assert (np.asarray(again._place) == np.asarray(s._place)).all()
    with pytest.raises(ValueError, match="ZZ"):
        env.from_deal(text.replace(text.split("|")[1].split()[0], "ZZ", 1))
    with pytest.raises(ValueError, match="kitty"):
        env.from_deal(text.split("| kitty")[0])
    with pytest.raises(ValueError, match="dealt twice"):
        parts = text.split("|")
        parts[2] = parts[2].replace(parts[2].split()[0], parts[1].split()[0], 1)
        env.from_deal("|".join(parts))


def test_render_and_names(env):
    s = env.init(jax.random.PRNGKey(5))
    text = env.render(s)
    assert text.startswith("da_bai_fen  hand 1") and "legal:" in text
    assert env.action_from_name("pick AS") == C("AS")
    assert env.action_name(ds.CLAIM) == "claim"
    with pytest.raises(ValueError, match="unknown"):
        env.action_from_name("pick ZZ")


def _visible(env, s, p):
    """The cards p cannot see: the other hands (less exposed and shown cards), the undrawn
    cards and the kitty unless p knows it."""
    obs = np.asarray(env.observe(s, p))
    sl = env.observation_spec().slices()["cards"]
    known = obs[sl].reshape(54, 6)
    loc = np.asarray(s._loc)
    hidden = [c for c in range(54) if loc[c] in (0, 1, 2, 3) and loc[c] != p
              and not known[c, 2] and not known[c, 3]]
    return obs, hidden


def test_observe_hides_what_p_may_not_know():
    """Swapping two cards between hands p cannot see (or with the unseen kitty) leaves p's
    observation unchanged, at states all through random games."""
    env = kanjax.make("da_bai_fen", **DEFAULT)
    step = jax.jit(env.step)
    obs = jax.jit(env.observe)
    rng = np.random.default_rng(0)
    s = env.init(jax.random.PRNGKey(11))
    checked = 0
    for t in range(400):
        if bool(s.terminated):
            break
        if t % 7 == 0:
            loc = np.asarray(s._loc)
            for p in range(4):
                o, hidden = _visible(env, s, p)
                others = [c for c in hidden if loc[c] != p]
                if len(others) < 2:
                    continue
                a, b = rng.choice(others, 2, replace=False)
                if loc[a] == loc[b]:
                    continue
                new = loc.copy()
                new[a], new[b] = loc[b], loc[a]
                swapped = s.replace(_loc=jnp.asarray(new, jnp.int8))
                assert (np.asarray(obs(swapped, p)) == o).all(), (t, p)
                checked += 1
        legal = np.flatnonzero(np.asarray(s.legal_action_mask))
        s = step(s, int(rng.choice(legal)), jax.random.PRNGKey(t))
    assert checked > 20
    spec = env.observation_spec()
    lo, hi = spec.bounds()
    o = np.asarray(obs(s, 0))
    assert o.dtype == np.int16 and ((o >= lo) & (o <= hi)).all()


def test_conformance_jilin_preset():
    """The conformance suite with the jilin preset and mixed scoring flags (the default
    rules: test_every_game)."""
    env = kanjax.make("da_bai_fen", **JILIN)
    figures = check_env(env, batch=2)
    assert all(0 < s <= env.max_steps for s in figures["steps"])


def test_dbf22_open_deal_team_levels(env):
    """DBF-22 (scenario 20): an open deal, levels 5 / 9, starter 3: a seat may expose only its
    own team's level; seat 2 exposing 5H becomes L, team 0 declares, R=5, T=H."""
    order = order_text("9H 9S 5S 5H", "5D 5C 9D 9C 3D 4D")
    s = env.from_deal(deal_of(order, starter=3, kind="open", levels="5,9"))
    f = summary(env, s)
    assert (int(f["current_player"]), int(f["drawn"])) == (3, 1)
    assert legal_actions(s) == [ds.EXPOSE + 1, ds.PASS]
    s = checked_step(env, s, ds.PASS, KEY)
    f = summary(env, s)
    assert (int(f["current_player"]), int(f["drawn"])) == (2, 4)
    s = checked_step(env, s, ds.EXPOSE + 1, KEY)
    f = summary(env, s)
    assert (int(f["leader"]), int(f["declaring"]), int(f["trump_level"]),
            int(f["trump_suit"])) == (2, 0, 5, 1)
    assert int(f["phase"]) == ds.PHASE_DISCARD and int(f["current_player"]) == 2


def test_dbf22_open_deal_nobody_can_expose(env):
    """DBF-22: an open deal in which no seat holds its team's level card is annulled at once."""
    order = order_text("", "5S 5H 5D 5C 3D 4D")
    with pytest.raises(ValueError, match="annulled"):
        env.from_deal(deal_of(order, starter=0, kind="open", levels="5,5"))
