"""The Da Bai Fen hidden-hand sampler (kanjax.games.da_bai_fen.sampler) against the plain-Python
information reference (kanjax.games.da_bai_fen.reference_information), on positions of random play
and on hand-made scenarios named after the rules they exercise (rules/da_bai_fen.md).

The default run uses one engine config (MASKED of the DBF tests, `tests.games.da_bai_fen.cases`:
invalid multi-leads masked, so random play makes many valid multi-card leads and follows; yuan
zhu; Dun) and compiles once per module: the jitted step and observe, and the sampler vmapped
over B observations. Other configs (the rules' defaults with the DBF-24 penalty, the shown
kitty of V1 / V10) are slow.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.bots import uniform_random
from kanjax.games.da_bai_fen import reference_information as di
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.sampler import KITTY, constraints, make_sampler
from tests.games.da_bai_fen.cases import DEFAULT, MASKED  # the DBF tests' shared configs

N = 16  # samples per observation
B = 32  # observations per batched sampler call
KEY = jax.random.PRNGKey(0)
C = ds.DECK.card
SHOWN = {"max_hands": 12, "expose_kitty": True, "jilin_show_kitty": True, "tie_at_40": True}

# Scenario deal (R=6 by levels 6,6; seat 3 exposes 6C: T=C; yuan zhu: the 2s are trumps too).
# Seat 0 (L) has the hearts and AS, seat 1 the spades and JC TC, seat 2 the diamonds, 6S and
# AD KD, seat 3 the jokers, the other 6s and 2s and AC KC QC; the kitty 9C 8C 7C 5C 4C 3C.
HANDS = ["AH KH QH JH TH 9H 8H 7H 5H 4H 3H AS", "KS QS JS TS 9S 8S 7S 5S 4S 3S JC TC",
         "QD JD TD 9D 8D 7D 5D 4D 3D 6S AD KD", "RJ BJ 6C 6H 6D 2C 2S 2H 2D AC KC QC"]
KITTY_CARDS = "9C 8C 7C 5C 4C 3C"


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def true_holders(state) -> np.ndarray:
    """int[54] from `_loc`: a seat 0..3, KITTY, else -1 (played)."""
    loc = np.asarray(state._loc).astype(int)
    return np.where(loc <= ds.LOC_KITTY, loc, -1)


def in_play(obs: np.ndarray, env) -> bool:
    return int(obs[env.observation_spec().slices()["head"]][0]) == ds.PHASE_PLAY


class Tools:
    """One env's compiled functions: step, observe (all players), the sampler with its
    constraints vmapped over B observations, and a policy that leads several cards often."""

    def __init__(self, env) -> None:
        self.env = env
        self.step = jax.jit(env.step)
        self.observe_all = jax.jit(jax.vmap(env.observe, (None, 0)))
        sampler = make_sampler(env, N)

        def both(key, obs):
            return sampler(key, obs), constraints(env, obs)

        self.sampler = sampler
        self.fn = jax.jit(jax.vmap(both))

        def policy(k, m):  # `play` (closing a lead) only half the time it is legal
            k1, k2 = jax.random.split(k)
            m2 = m.at[ds.PLAY].set(m[ds.PLAY] & (jax.random.uniform(k1) < 0.4))
            return uniform_random(k2, None, jnp.where(m2.any(), m2, m))
        self.policy = jax.jit(policy)

    def obs(self, state) -> np.ndarray:
        return np.asarray(self.observe_all(state, jnp.arange(4)))

    def play(self, state, actions):
        for a in actions:
            a = self.env.action_from_name(a)
            assert bool(state.legal_action_mask[a]), ds.action_name(a)
            state = self.step(state, jnp.int32(a), KEY)
        return state

    def random_play(self, state, steps: int, key, every: int) -> list:
        """Every `every`-th state in trick play of `steps` random steps."""
        seen = []
        for i in range(steps):
            if bool(state.terminated):
                break
            if i % every == 0 and int(np.asarray(state._h)[0]) == ds.PHASE_PLAY:
                seen.append(state)
            key, ka, kb = jax.random.split(key, 3)
            state = self.step(state, self.policy(ka, state.legal_action_mask), kb)
        return seen

    def sample(self, obs: np.ndarray, key=KEY):
        outs = []
        for i in range(0, len(obs), B):
            chunk = obs[i: i + B]
            pad = np.concatenate([chunk, np.repeat(chunk[-1:], B - len(chunk), 0)])
            keys = jax.random.split(jax.random.fold_in(key, i), B)
            m = len(chunk)
            outs.append(jax.tree.map(lambda x, m=m: np.asarray(x)[:m],
                                     self.fn(keys, jnp.asarray(pad))))
        (h, ok), con = jax.tree.map(lambda *x: np.concatenate(x), *outs)
        return h, ok, con._asdict()


def run_positions(t: Tools, positions: list) -> dict:
    """Every observer of every position: observations, true layouts, samples."""
    obs, true = [], []
    for st in positions:
        o = t.obs(st)
        for p in range(4):
            obs.append(o[p])
            true.append(true_holders(st))
    obs = np.stack(obs)
    h, ok, con = t.sample(obs)
    return dict(obs=obs, true=np.stack(true), holders=h, ok=ok, con=con)


def to_play(t: Tools, state, exposer: int = -1, suit: str = "C", discard: str = ""):
    """Walk a dealt hand to trick play: `exposer` exposes his R card of `suit` when he can,
    everyone else passes; L discards `discard` (default: the first six legal picks); no
    claims."""
    for _ in range(80):
        phase = int(np.asarray(state._h)[0])
        if phase == ds.PHASE_PLAY:
            return state
        cur = int(state.current_player)
        mask = np.asarray(state.legal_action_mask)
        if phase in (ds.PHASE_DRAW, ds.PHASE_FINAL_PASS):
            a = ds.EXPOSE + ds.SUITS.index(suit)
            a = a if cur == exposer and mask[a] else ds.PASS
        elif phase == ds.PHASE_DISCARD:
            todo = [c for c in cards(discard) if mask[c]] or list(np.flatnonzero(mask[:54]))
            a = todo[0]
        else:
            a = ds.PASS
        state = t.step(state, jnp.int32(a), KEY)
    raise AssertionError("no trick play")


@pytest.fixture(scope="module")
def tm() -> Tools:
    return Tools(kanjax.make("da_bai_fen", **MASKED))


@pytest.fixture(scope="module")
def run_m(tm: Tools) -> dict:
    """MASKED: a match from init (first hand: the kitty turned or an exposure), and an open
    deal (DBF-22) from random hands, both played at random."""
    env = tm.env
    pos = tm.random_play(env.init(jax.random.PRNGKey(1)), 500, jax.random.PRNGKey(2), 7)
    rng = np.random.default_rng(3)
    deck = rng.permutation(54)
    tok = [ds.DECK.token(int(c)) for c in deck]
    deal = ("da_bai_fen kind=open starter=1 levels=5,7 | "
            + " | ".join(" ".join(tok[12 * i: 12 * i + 12]) for i in range(4))
            + " | kitty: " + " ".join(tok[48:]))
    pos += tm.random_play(env.from_deal(deal), 120, jax.random.PRNGKey(4), 4)
    return run_positions(tm, pos)


def head(run, name: str) -> np.ndarray:
    return run["obs"][:, 54 * 6 + 2 + di.OBS_HEAD.index(name)]


def test_DBF_21_DBF_25_positions_cover_the_cases(run_m, tm):
    """Multi-card leads and follows, an open deal, mid-trick positions, L and the others as
    observers, the kitty turned (DBF-14) or an exposure."""
    assert len(run_m["obs"]) >= 150
    assert (head(run_m, "n") >= 2).any() and (head(run_m, "nplays") >= 2).any()
    assert (head(run_m, "kind") == ds.OPEN_DEAL).any()
    assert (head(run_m, "tno") >= 6).any()
    assert (head(run_m, "turned") > 0).any() or (head(run_m, "exposer") >= 0).any()
    multi_done = beaten = known_kitty = 0
    for o in run_m["obs"]:
        v = di.decode(tm.env, o)
        multi_done += any(len(c) >= 2 for t in range(v.tno) for c in di.plays(v, t).values())
        beaten += bool(di.leader_of_beaten(v))  # DBF-23 places a hidden card
        known_kitty += bool(v.kitty_known - v.mine - set(v.played_by))
    assert multi_done > 20 and beaten > 10 and known_kitty > 10


def test_DBF_20_trick_leaders_and_led_suit_are_the_observed_ones(run_m, tm):
    """The reference's leader of the current trick (L, then each trick's winner), its led
    effective suit and lead size agree with the observation's head (tleader, led, n)."""
    for o in run_m["obs"]:
        v = di.decode(tm.env, o)
        hd = {k: int(x) for k, x in zip(di.OBS_HEAD, o[tm.env.observation_spec().slices()["head"]],
                                         strict=True)}
        lead = di.trick_leader(v, v.tno)
        assert lead == hd["tleader"]
        ps = di.plays(v, v.tno)
        if hd["nplays"] > 0:
            assert len(ps[lead]) == hd["n"]
            assert di.eff_suit(v, min(ps[lead])) == hd["led"]


def test_DBF_25_true_layout_is_consistent(run_m, tm):
    """Tests the reference: the real hands and kitty agree with what each player saw."""
    for o, h in zip(run_m["obs"], run_m["true"], strict=True):
        assert di.consistent(tm.env, o, h)


def test_DBF_23_DBF_25_constraints_contain_the_truth_and_equal_the_reference(run_m, tm):
    con = run_m["con"]
    hs = np.arange(5)
    for i, (o, h) in enumerate(zip(run_m["obs"], run_m["true"], strict=True)):
        v = di.decode(tm.env, o)
        assert list(con["size"][i]) == [int((h == q).sum()) for q in hs] == di.sizes(v)
        ref = di.allowed_holders(v)
        assert set(np.flatnonzero(con["unseen"][i])) == set(ref)
        for c, ok in ref.items():
            assert set(np.flatnonzero(con["allowed"][i][:, c])) == ok, (i, ds.DECK.token(c))
            assert h[c] in ok
        assert not con["allowed"][i][:, ~con["unseen"][i]].any()


def test_DBF_25_samples_marked_ok_are_consistent(run_m, tm):
    ok = run_m["ok"]
    assert ok.mean() > 0.95
    for o, hs, oks in zip(run_m["obs"], run_m["holders"], ok, strict=True):
        for h, k in zip(hs, oks, strict=True):
            if k:
                assert di.consistent(tm.env, o, h)


def test_samples_vary_where_free(run_m):
    """Cards with two or more possible holders do not always land with the same one."""
    varied = fixed = 0
    for i in range(len(run_m["obs"])):
        free = run_m["con"]["allowed"][i].sum(0) >= 2
        h = run_m["holders"][i][run_m["ok"][i]]
        if len(h) < 8 or not free.any():
            continue
        spread = (h[:, free] != h[:1, free]).any(0)
        varied += spread.sum()
        fixed += (~spread).sum()
    assert varied > 20 * max(fixed, 1)


def test_unconstrained_layout_is_uniform(tm):
    """Before any card is played (the first lead) an observer who is not L knows only his
    hand and the exposed 6C (seat 3's): each other hidden card is with each other player or
    the kitty in proportion to its free room (12 : 12 : 11 : 6)."""
    st = to_play(tm, tm.env.from_deal(scenario_deal()), exposer=3, discard=KITTY_CARDS)
    o = tm.obs(st)[1]
    fn = jax.jit(make_sampler(tm.env, 4000, 1))
    h, ok = (np.asarray(x) for x in fn(KEY, jnp.asarray(o)))
    assert ok.all()
    free = [c for c in range(54) if c not in cards(HANDS[1]) and c != C("6C")]
    share = np.stack([(h[:, free] == q).mean() for q in (0, 2, 3, KITTY)])
    np.testing.assert_allclose(share, np.array([12, 12, 11, 6]) / 41, atol=0.01)
    # the exposed card (DBF-12) is the exposer's
    assert (h[:, C("6C")] == 3).all()


# ---- hand-made scenarios ---------------------------------------------------------------------
def scenario_deal(kind: str = "kind=later starter=0 declaring=0 levels=6,6") -> str:
    return f"da_bai_fen {kind} | " + " | ".join(HANDS) + f" | kitty: {KITTY_CARDS}"


@pytest.fixture(scope="module")
def scen(tm: Tools) -> dict:
    """The scenario hand: after trick 1 (AS led; KS, 3D, 2S), trick 2 (RJ BJ led; 3H 4H,
    JC TC, 6S 4D) and trick 3's lead (AC KC, 5H 7H)."""
    st = to_play(tm, tm.env.from_deal(scenario_deal()), exposer=3, discard=KITTY_CARDS)
    after1 = tm.play(st, ["pick AS", "play", "pick KS", "pick 3D", "pick 2S"])
    after2 = tm.play(after1, ["pick RJ", "pick BJ", "play", "pick 3H", "pick 4H", "pick JC",
                              "pick TC", "pick 6S", "pick 4D"])
    lead3 = tm.play(after2, ["pick AC", "pick KC", "play", "pick 5H", "pick 7H"])
    return {"after1": after1, "after2": after2, "lead3": lead3}


def allowed_of(tm: Tools, state, me: int):
    """(reference allowed holders, sampler constraints, samples, ok) for observer `me`."""
    o = tm.obs(state)[me]
    h, ok, con = tm.sample(np.repeat(o[None], 2, 0))
    ref = di.allowed_holders(di.decode(tm.env, o))
    for c, hs in ref.items():
        assert set(np.flatnonzero(con["allowed"][0][:, c])) == hs
    for hh, k in zip(h[0], ok[0], strict=True):
        assert k and di.consistent(tm.env, o, hh)
    return ref, h[0]


def test_DBF_21_25_single_card_show_out(tm, scen):
    """AS led; seat 2 played 3D and seat 3 2S: both hold no spade. Seen by L (seat 0, who
    knows the kitty), every hidden spade is seat 1's."""
    ref, h = allowed_of(tm, scen["after1"], 0)
    for tok in "QS JS TS 9S 8S 7S 5S 4S 3S".split():
        assert ref[C(tok)] == {1}
        assert (h[:, C(tok)] == 1).all()
    info = di.known_constraints(tm.env, tm.obs(scen["after1"])[1])
    assert 0 in info[2].voids and 0 in info[3].voids and not info[1].voids


def test_DBF_5_trumps_by_rank_and_joker(tm, scen):
    """R=6, T=C, yuan zhu: 6S and the jokers are trumps, not spades (DBF-5, V6). Seat 2, void
    in spades, may still hold 6S; seat 3's 2S showed him out of spades (a trump); seen by
    seat 1, the jokers may be with anyone but him (nobody is void in trumps yet)."""
    ref, _ = allowed_of(tm, scen["after1"], 1)
    assert 2 in ref[C("6S")] and 3 in ref[C("6S")]
    assert ref[C("RJ")] == ref[C("BJ")] == {0, 2, 3, KITTY}
    assert {2, 3} <= ref[C("2H")]  # 2H: a trump, no spade void applies


def test_DBF_25_multi_card_short_follow(tm, scen):
    """RJ BJ led: seat 2 followed 6S 4D (one trump of two) and seat 0 3H 4H (none): both hold
    no trump now; seat 1 (JC TC) may hold more. Seen by seat 1: every hidden trump is seat 3's
    or in the kitty."""
    ref, h = allowed_of(tm, scen["after2"], 1)
    hidden_trumps = [C(t) for t in "6C 6H 6D 2C 2H 2D AC KC QC 9C 8C 7C 5C 4C 3C".split()]
    for c in hidden_trumps:
        assert ref[c] <= {3, KITTY}, ds.DECK.token(c)
    assert ref[C("QH")] == {0, 2, 3, KITTY}  # a plain heart: nobody is void in hearts
    info = di.known_constraints(tm.env, tm.obs(scen["after2"])[1])
    assert 4 in info[2].voids and 4 in info[0].voids and 4 not in info[1].voids


def test_DBF_23_valid_multi_lead_places_the_stronger_cards(tm, scen):
    """Seat 3 led AC KC and the hand goes on: no other player held a trump beating KC. Seen
    by seat 2, seat 1 (who followed RJ BJ with two trumps, so is not void) may hold none of
    the hidden 6H 6D 2C 2H 2D (stronger than KC; seat 0 is void in trumps), but may hold QC
    (weaker)."""
    ref, _ = allowed_of(tm, scen["lead3"], 2)
    for tok in "6H 6D 2C 2H 2D".split():
        assert ref[C(tok)] == {3, KITTY}, tok
    assert ref[C("QC")] == {1, 3, KITTY}


def test_DBF_17_the_kitty_is_known_to_L_only(tm, scen):
    """L (seat 0) discarded 9C..3C: in every sample they are the kitty; seat 1 does not know
    the kitty: it gets six of his hidden cards, which vary."""
    _, h = allowed_of(tm, scen["after1"], 0)
    assert (h[:, cards(KITTY_CARDS)] == KITTY).all()
    assert ((h == KITTY).sum(1) == 6).all()
    _, h1 = allowed_of(tm, scen["after1"], 1)
    assert ((h1 == KITTY).sum(1) == 6).all()
    assert len({tuple(np.flatnonzero(x == KITTY)) for x in h1}) > 8


def test_DBF_14_turned_kitty_cards_are_with_L_or_in_the_kitty(tm):
    """First hand (R = 9), nobody exposes: turning the kitty stops at its first card 9C
    (rank R: T = C), which is public. L (seat 0) takes the kitty; seen by the others 9C is
    L's or back in the kitty, while the unturned 8C may be anywhere but with the observer."""
    st = to_play(tm, tm.env.from_deal(scenario_deal("kind=first starter=0")),
                 discard="AH KH QH JH TH 8H")
    o = tm.obs(st)
    assert int(o[1][54 * 6 + 2 + di.OBS_HEAD.index("turned")]) == 1
    for me in (1, 2, 3):
        ref, h = allowed_of(tm, st, me)
        assert ref[C("9C")] == {0, KITTY}
        assert set(np.unique(h[:, C("9C")])) <= {0, KITTY}
        assert ref[C("8C")] == {0, 1, 2, 3, KITTY} - {me}


def test_jit_single_and_jit_vmap_agree(tm, run_m):
    """The sampler jitted on one observation gives the batched one's samples, key by key."""
    one = jax.jit(tm.sampler)
    keys = jax.random.split(jax.random.fold_in(KEY, 0), B)
    h, ok = tm.fn(keys, jnp.asarray(run_m["obs"][:B]))[0]
    for i in range(0, B, 5):
        h1, ok1 = one(keys[i], jnp.asarray(run_m["obs"][i]))
        np.testing.assert_array_equal(np.asarray(h1), np.asarray(h)[i])
        np.testing.assert_array_equal(np.asarray(ok1), np.asarray(ok)[i])


def test_outside_trick_play_nothing_is_ok(tm):
    st = tm.env.from_deal(scenario_deal())
    h, ok = jax.jit(tm.sampler)(KEY, jnp.asarray(tm.obs(st)[0]))
    assert not np.asarray(ok).any()


def test_other_games_and_changchun_are_refused():
    with pytest.raises(ValueError, match="Da Bai Fen only"):
        make_sampler(kanjax.make("whist"), 4)
    env = kanjax.make("da_bai_fen", changchun_kitty=True)
    with pytest.raises(ValueError, match="changchun_kitty"):
        make_sampler(env, 4)
    with pytest.raises(ValueError, match="changchun_kitty"):
        di.check_env(env)


@pytest.mark.slow
@pytest.mark.parametrize("flags", [DEFAULT, SHOWN], ids=["default", "shown_kitty"])
def test_other_configs(flags):
    """The rules' defaults (DBF-24 penalty: only valid multi-leads go on) and the shown kitty
    (V1, V10): truth consistent, constraints equal to the reference and containing the truth,
    ok samples consistent."""
    t = Tools(kanjax.make("da_bai_fen", **flags))
    pos = []
    for seed in range(3):
        pos += t.random_play(t.env.init(jax.random.PRNGKey(seed)), 400,
                             jax.random.PRNGKey(10 + seed), 5)
    run = run_positions(t, pos)
    assert len(run["obs"]) >= 100
    for i, (o, h) in enumerate(zip(run["obs"], run["true"], strict=True)):
        assert di.consistent(t.env, o, h)
        ref = di.allowed_holders(di.decode(t.env, o))
        for c, ok in ref.items():
            assert set(np.flatnonzero(run["con"]["allowed"][i][:, c])) == ok
            assert h[c] in ok
        for hh, k in zip(run["holders"][i], run["ok"][i], strict=True):
            if k:
                assert di.consistent(t.env, o, hh)
    assert run["ok"].mean() > 0.9


# Dun deal (V8; R=6, T=C, yuan zhu): seat 0 (L) leads 7S 7H 7D 7C; seat 1 (no quad, one trump
# 9C) follows 9C 9S QS JS; seat 2 (no quad, one trump 3C) 3C AS KS 3H; seat 3 must play one of
# his quads: 2S 2H 2D 2C (beats the 7s).
DUN_HANDS = ["7S 7H 7D 7C AH KH QH JH TH 8H 5H 4H", "9C 9S QS JS TS 8S 5S 4S 3S AD KD QD",
             "9H 9D 3C AS KS 3H JD TD 8D 5D 4D 3D", "RJ BJ 6S 6H 6D 6C 2S 2H 2D 2C 5C 4C"]
DUN_KITTY = "AC KC QC JC TC 8C"


def test_DBF_V8_dun_follow_without_a_quad(tm):
    """After the Dun, seats 1 and 2 (fewer than four trumps, no quad played) hold no trump;
    seat 1 held no four-of-a-kind: seen by L, the hidden 9H and 9D (with his 9S 9C a quad of
    9s) are never both his in a sample marked ok, and a layout giving them to him is
    inconsistent by the reference."""
    env = tm.env
    deal = ("da_bai_fen kind=later starter=0 declaring=0 levels=6,6 | " + " | ".join(DUN_HANDS)
            + f" | kitty: {DUN_KITTY}")
    st = to_play(tm, env.from_deal(deal), exposer=3, discard=DUN_KITTY)
    st = tm.play(st, ["pick 7S", "pick 7H", "pick 7D", "pick 7C", "play",
                      "pick 9C", "pick 9S", "pick QS", "pick JS",
                      "pick 3C", "pick AS", "pick KS", "pick 3H",
                      "pick 2S", "pick 2H", "pick 2D", "pick 2C"])
    o = tm.obs(st)[0]
    v = di.decode(env, o)
    assert sorted(di.no_quad_at(v)) == [(1, 0), (2, 0)]
    voids = di.voids_of(v)
    assert di.TRUMP_SUIT in voids[1] and di.TRUMP_SUIT in voids[2] and 3 not in voids
    ref, h = allowed_of(tm, st, 0)
    assert ref[C("9H")] == ref[C("9D")] == {1, 2, 3}
    both = (h[:, C("9H")] == 1) & (h[:, C("9D")] == 1)
    assert not both.any()
    true = true_holders(st)
    assert di.consistent(env, o, true)
    swap = true.copy()
    a, b = C("TS"), C("8S")  # two of seat 1's hidden cards, to seat 2 for 9H 9D
    swap[[a, b]], swap[[C("9H"), C("9D")]] = 2, 1
    assert not di.consistent(env, o, swap)
    # the sampler finds such layouts and rejects them (not ok) when it is forced to try them
    fn = jax.jit(make_sampler(env, 256, 1))
    hh, ok = (np.asarray(x) for x in fn(KEY, jnp.asarray(o)))
    bad = (hh[:, C("9H")] == 1) & (hh[:, C("9D")] == 1)
    assert bad.any() and not ok[bad].any()
    for i in range(64):  # marked ok exactly where the reference finds the layout consistent
        assert bool(ok[i]) == di.consistent(env, o, hh[i])


def exact_marginals(env, o) -> tuple[np.ndarray, int]:
    """float[5, 54]: the share of the consistent layouts (by the reference, every assignment
    enumerated) giving card c to holder q; and their number. Late positions only."""
    v = di.decode(env, o)
    hidden = sorted(di.hidden_cards(v))
    room = [s - (len(v.mine) if q == v.me else 0) for q, s in enumerate(di.sizes(v))]
    slots = [q for q in range(5) for _ in range(room[q])]
    seen, count = np.zeros((5, 54)), 0
    for perm in set(itertools.permutations(slots)):
        h = np.full(54, -1)
        h[list(v.mine)] = v.me
        h[hidden] = perm
        if di.consistent(env, o, h):
            count += 1
            seen[h[hidden], hidden] += 1
    return seen / max(count, 1), count


def test_last_trick_layouts_are_close_to_uniform(tm, run_m):
    """In the last trick (few hidden cards: every layout enumerated by the reference) the
    sampler's per-card marginals are those of the uniform law over consistent layouts, within
    sampling noise and the sequential dealing's small bias."""
    fn = jax.jit(make_sampler(tm.env, 2000, 4))
    checked = 0
    for o in run_m["obs"]:
        v = di.decode(tm.env, o)
        if v.tno != 11 or v.me == v.leader or len(di.hidden_cards(v)) > 9:
            continue
        exact, count = exact_marginals(tm.env, o)
        if count < 3:
            continue
        h, ok = (np.asarray(x) for x in fn(jax.random.fold_in(KEY, checked), jnp.asarray(o)))
        assert ok.all()
        hidden = sorted(di.hidden_cards(v))
        got = np.stack([(h[:, hidden] == q).mean(0) for q in range(5)])
        np.testing.assert_allclose(got, exact[:, hidden], atol=0.03)
        checked += 1
        if checked == 3:
            break
    assert checked >= 1
