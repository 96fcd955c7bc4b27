"""The hidden-hand sampler (kanjax.games.kan.sampler) against the plain-Python information reference
(kanjax.games.kan.reference_information), on real positions of random play and on hand-made
scenarios named after the rules they exercise (rules/kan.md).

Compiles once per module: per env the jitted step and observe, and the sampler vmapped over a
fixed batch of B observations (scenarios fill the batch with copies of one observation).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.bots import uniform_random
from kanjax.games.kan import reference_information as ki
from kanjax.games.kan.engine import CARD_TOKENS, JK, PLAY
from kanjax.games.kan.sampler import constraints, make_sampler
from kanjax.games.kan.spec import CONTRACT_ALL16, CONTRACT_NONE, LEAD_JK

N = 16  # samples per observation
B = 32  # observations per batched sampler call
KEY = jax.random.PRNGKey(0)

# Scenario deal (5 players, round 0: trump C, poh AC), hands by seat = player. Kankei P1 (JK)
# and P3 (AC), not adjacent; P3 is the default leader (P4, P0 to his right), so KOI, KOI has
# P3 lead trick 1 (KAN-21).
HANDS = ["TH JH QH KH AH QS KS AS 3D 4D", "JK 3C 4C 5C 6C 7C 8C 9C TC JC",
         "5D 6D 7D 8D 9D TD JD QD KD AD", "AC KC QC 3H 4H 5H 6H 7H 8H 9H",
         "2S 3S 4S 5S 6S 7S 8S 9S TS JS"]
# Nijū kan (KAN-18): P1 holds JK and AC, partner P3 = next(next(P1)); c = 5H from P3, x = JK.
NIJUU = ["TH JH QH KH AH QS KS AS 3D 4D", "JK AC 3C 4C 5C 6C 7C 8C 9C TC",
         "5D 6D 7D 8D 9D TD JD QD KD AD", "JC KC QC 3H 4H 5H 6H 7H 8H 9H",
         "2S 3S 4S 5S 6S 7S 8S 9S TS JS"]


def card(tok: str) -> int:
    return CARD_TOKENS.index(tok)


def deal_string(hands: list[str], head: str = "") -> str:
    return f"gonin_kan {head} | " + " | ".join(hands)


def true_holders(state) -> np.ndarray:
    """int[53] from `_loc` (kan.py: 0..5 in a hand, -1 absent, >= 8 played)."""
    loc = np.asarray(state._loc).astype(int)
    return np.where((loc >= 0) & (loc < 8), loc, -1)


class Tools:
    """One env's compiled functions. The sampler (with its constraints, for the comparison
    with the reference) is compiled once: vmapped over B observations (`batched`), or, with
    `batched=False`, for one observation at a time (jit only)."""

    def __init__(self, env, batched: bool = True) -> None:
        self.env = env
        self.step = jax.jit(env.step)
        self.observe_all = jax.jit(jax.vmap(env.observe, (None, 0)))
        sampler = make_sampler(env, N)

        def both(key, obs):
            return sampler(key, obs), constraints(env, obs)

        self.is_batched = batched
        self.fn = jax.jit(jax.vmap(both) if batched else both)
        if env.config.variant == "yonin":
            # contracts end deals early, the joker may be kept to trick 10 (KAN-54): both
            # chosen only 1 time in 10 where something else is legal
            ids = jnp.arange(env.num_actions)
            rare = ((ids > CONTRACT_NONE) & (ids <= CONTRACT_ALL16)) | (ids == JK) | (
                (ids >= LEAD_JK) & (ids < LEAD_JK + 4))

            def policy(k, m):
                k1, k2 = jax.random.split(k)
                m2 = m & ~(rare & (jax.random.uniform(k1) > 0.1))
                return uniform_random(k2, None, jnp.where(m2.any(), m2, m))
            self.policy = jax.jit(policy)
        else:
            self.policy = jax.jit(lambda k, m: uniform_random(k, None, m))

    def obs(self, state) -> np.ndarray:
        return np.asarray(self.observe_all(state, jnp.arange(self.env.num_players)))

    def play(self, state, actions):
        for a in actions:
            a = self.env.action_from_name(a, state) if isinstance(a, str) else a
            assert bool(state.legal_action_mask[a]), self.env.action_name(a, state)
            state = self.step(state, jnp.int32(a), KEY)
        return state

    def random_play(self, state, steps: int, key, every: int = 1) -> tuple[object, list]:
        """Random legal play for `steps` steps; returns the final state and every `every`-th
        state seen (before each step) that is not terminal."""
        seen = []
        for i in range(steps):
            if bool(state.terminated):
                break
            if i % every == 0:
                seen.append(state)
            key, ka, ks_ = jax.random.split(key, 3)
            state = self.step(state, self.policy(ka, state.legal_action_mask), ks_)
        return state, seen

    def sample(self, obs: np.ndarray, key=KEY) -> tuple[np.ndarray, np.ndarray, dict]:
        """Samples and constraints for any number of observations."""
        outs = []
        step = B if self.is_batched else 1
        for i in range(0, len(obs), step):
            chunk = obs[i: i + step]
            if self.is_batched:
                pad = np.concatenate([chunk, np.repeat(chunk[-1:], B - len(chunk), 0)])
                keys = jax.random.split(jax.random.fold_in(key, i), B)
                m = len(chunk)
                out = jax.tree.map(lambda x, m=m: np.asarray(x)[:m],
                                   self.fn(keys, jnp.asarray(pad)))
            else:
                out = jax.tree.map(lambda x: np.asarray(x)[None],
                                   self.fn(jax.random.fold_in(key, i), jnp.asarray(chunk[0])))
            outs.append(out)
        (h, ok), con = jax.tree.map(lambda *x: np.concatenate(x), *outs)
        return h, ok, con._asdict()


@pytest.fixture(scope="module")
def t5() -> Tools:
    return Tools(kanjax.make("gonin_kan", n_rounds=8))


@pytest.fixture(scope="module")
def t6() -> Tools:
    return Tools(kanjax.make("gonin_kan", players=6, n_rounds=8), batched=False)


def random_hands(env, rng: np.random.Generator, dealer: int = 0) -> list[str]:
    """A uniform deal (KAN-8) as hands by seat (seats = players; the 6-player dealer none)."""
    cards = rng.permutation([c for c in range(53) if env.deck[c]])
    seats = [p for p in range(env.num_players) if not (env.num_players == 6 and p == dealer)]
    hands = [""] * env.num_players
    for i, p in enumerate(seats):
        hands[p] = " ".join(CARD_TOKENS[c] for c in cards[10 * i: 10 * i + 10])
    return hands


def deal_positions(t: Tools, state, seed: int, every: int = 4) -> list:
    """Every `every`-th state of one deal played at random (to its end)."""
    return t.random_play(state, 56, jax.random.PRNGKey(seed), every)[1]


def mixed_positions(t: Tools, seed: int, head: str, kankei: str, copies: int = 2,
                    every: int = 5) -> list:
    """Deals 1, 2 and 3 from random hands, each played at random to its end."""
    rng = np.random.default_rng(seed)
    env, pos = t.env, []
    dealer = 2 if env.num_players == 6 else 0
    head = f"{head} dealer={dealer}"
    for d, extra in ((1, ""), (2, f"deal=2 {kankei}"), (3, f"deal=3 {kankei}")):
        for k in range(copies):
            st = env.from_deal(deal_string(random_hands(env, rng, dealer), f"{head} {extra}"),
                               key=jax.random.PRNGKey(seed + k))
            pos += deal_positions(t, st, 10 * seed + 3 * d + k, every)
    return pos


@pytest.fixture(scope="module")
def positions5(t5: Tools) -> list:
    """5 players: deals 1-3 from random hands, a nijū kan deal (KAN-18), the same deal under
    nijuu_kan_redeal (KAN-70), a deal 2 after a known signal (KAN-38)."""
    pos = mixed_positions(t5, 1, "round=1", "kankei=1,3 joker=3 ace=1")
    pos += deal_positions(t5, t5.env.from_deal(deal_string(NIJUU, "nijuu=5H,JK")), 5, 3)
    # KAN-70: the redealt deal has no exchange; its play is the default env's (the flag only
    # changes dealing), so the default env's step plays it.
    redeal = kanjax.make("gonin_kan", n_rounds=8, nijuu_kan_redeal=True)
    pos += deal_positions(t5, redeal.from_deal(deal_string(NIJUU), key=jax.random.PRNGKey(6)),
                          7, 5)
    st = t5.env.from_deal(deal_string(HANDS, "deal=2 kankei=1,3 joker=1 ace=3"))
    pos += deal_positions(t5, t5.play(st, ["signal F2 KC 5H"]), 8, 3)
    return pos


@pytest.fixture(scope="module")
def positions6(t6: Tools) -> list:
    return mixed_positions(t6, 2, "players=6 round=2", "kankei=3,5 joker=5 ace=3", 1, 4)


@pytest.fixture(scope="module")
def t4() -> Tools:
    return Tools(kanjax.make("yonin_kan", n_rounds=4))


@pytest.fixture(scope="module")
def t3() -> Tools:
    return Tools(kanjax.make("gambari_kan", n_rounds=4))


def match_positions(t: Tools, seed: int, every: int) -> list:
    """Every `every`-th state of a whole match played at random."""
    state = t.env.init(jax.random.PRNGKey(seed))
    return t.random_play(state, t.env.max_steps, jax.random.PRNGKey(seed + 1), every)[1]


@pytest.fixture(scope="module")
def run5(t5, positions5):
    return run_positions(t5, positions5)


@pytest.fixture(scope="module")
def run6(t6, positions6):
    return run_positions(t6, positions6)


@pytest.fixture(scope="module")
def run4(t4):
    """Yonin: random matches (deal 1 with secret teams, KAN-52; deals 2, contracts) and a deal
    3 from random hands (the jack holder chooses and leads, KAN-57)."""
    rng = np.random.default_rng(4)
    hands = random_hands(t4.env, rng)
    st = t4.env.from_deal("yonin_kan deal=3 kankei=1,3 joker=3 jack=1 won=0,0 | "
                          + " | ".join(hands), key=KEY)
    pos = match_positions(t4, 4, 7) + match_positions(t4, 14, 7) + deal_positions(t4, st, 5, 3)
    return run_positions(t4, pos)


@pytest.fixture(scope="module")
def run3(t3):
    return run_positions(t3, match_positions(t3, 3, 4))


VARIANTS = ["5", "6", "yonin", "gambari"]  # Gonin 5 and 6 players, Yonin, Gambari


def pick(which: str, request) -> tuple[dict, Tools]:
    """The run and tools of one of VARIANTS."""
    name = {"5": "5", "6": "6", "yonin": "4", "gambari": "3"}[which]
    return request.getfixturevalue(f"run{name}"), request.getfixturevalue(f"t{name}")


def run_positions(t: Tools, positions: list) -> dict:
    """Every observer of every position: observations, true layouts, samples."""
    obs, true, where = [], [], []
    for i, st in enumerate(positions):
        o = t.obs(st)
        for p in range(t.env.num_players):
            obs.append(o[p])
            true.append(true_holders(st))
            where.append((i, p))
    obs = np.stack(obs)
    h, ok, con = t.sample(obs)
    return dict(obs=obs, true=np.stack(true), where=where, holders=h, ok=ok, con=con)


@pytest.mark.parametrize("which", VARIANTS)
def test_KAN_46_positions_cover_the_cases(which, request):
    run, t = pick(which, request)
    sl = t.env.observation_spec().slices()
    deals = {int(o[sl["deal"]][0]) for o in run["obs"]}
    tricks = {int(o[sl["trick"]][0]) for o in run["obs"]}
    assert deals == {1, 2, 3} or which == "6" and {1, 2} <= deals or (
        which == "gambari" and deals == {1})
    assert set(range(10)) <= tricks
    if which == "yonin":  # deal 1 with secret teams, a contract, a joker kept to trick 10
        assert any((o[sl["kankei"]] < 0).any() and o[sl["phase"]][0] == PLAY
                   for o in run["obs"])
        assert any(o[sl["contract"]][0] > 0 for o in run["obs"])
        assert any(o[sl["trick"]][0] == 9 and h[JK] >= 0
                   for o, h in zip(run["obs"], run["true"], strict=True))
    if which == "5":
        nij = [o for o in run["obs"] if o[sl["nijuu"]][0] > 0 and o[sl["deal"]][0] == 1]
        assert nij and any(o[sl["nijuu"]][1] >= 0 for o in nij)
        assert any(o[sl["signal"]][1] >= 0 for o in run["obs"])
    assert any(o[sl["n_played"]][0] > 0 for o in run["obs"])  # mid-trick


@pytest.mark.parametrize("which", VARIANTS)
def test_KAN_21_KAN_23_trick_leaders_are_the_observed_leader(which, request):
    """The reference's leader of the current trick (from iku/koi or the chooser, then the
    takers) is the leader the observation shows; the sampler's voids rest on the same."""
    run, t = pick(which, request)
    sl = t.env.observation_spec().slices()
    checked = 0
    for o, w in zip(run["obs"], run["where"], strict=True):
        trick = int(o[sl["trick"]][0])
        if o[sl["phase"]][0] != PLAY:
            continue
        leader = ki.trick_leaders(ki.decode(t.env, o))[trick]
        if leader is None:  # Yonin deal 1 before AS is led (KAN-53): no card to infer from
            assert which == "yonin" and trick == 0 and o[sl["n_played"]][0] == 0, w
            continue
        assert leader == int(o[sl["leader"]][0]), w
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("which", VARIANTS)
def test_KAN_46_true_layout_is_consistent(which, request):
    """Tests the reference: the real hands always agree with what each player saw."""
    run, t = pick(which, request)
    for o, h, w in zip(run["obs"], run["true"], run["where"], strict=True):
        assert ki.consistent(t.env, o, h), w


@pytest.mark.parametrize("which", VARIANTS)
def test_KAN_46_sampler_constraints_contain_truth_and_match_reference(which, request):
    """The sampler's `allowed` admits the true layout and equals what the reference lists
    (a subset only where deal 1's JK / poh 'one each' pruning applies)."""
    run, t = pick(which, request)
    con = run["con"]
    allowed, unseen, sizes, pair = con["allowed"], con["unseen"], con["size"], con["pair"]
    n = t.env.num_players
    for i, (o, h) in enumerate(zip(run["obs"], run["true"], strict=True)):
        hidden = np.flatnonzero(unseen[i])
        assert all(allowed[i, h[c], c] for c in hidden), run["where"][i]
        info = ki.known_constraints(t.env, o)
        assert [x.size for x in info] == sizes[i].tolist()
        v = ki.decode(t.env, o)
        for c in hidden:
            ref = np.array([p in ki.active_players(v) and (p != v.me or not ki.sees_own_hand(v))
                            and c not in info[p].not_has for p in range(n)])
            owners = [p for p in range(n) if c in info[p].has]
            if owners:
                ref = np.arange(n) == owners[0]
            if pair[i]:
                assert not np.any(allowed[i, :, c] & ~ref), (run["where"][i], c)
            else:
                assert (allowed[i, :, c] == ref).all(), (run["where"][i], CARD_TOKENS[c])


@pytest.mark.parametrize("which", VARIANTS)
def test_KAN_46_samples_ok_and_consistent(which, request):
    run, t = pick(which, request)
    h, ok = run["holders"], run["ok"]
    assert h.shape == (len(run["obs"]), N, 53) and h.dtype == np.int8
    assert ok.mean() > 0.99
    for o, hs, oks, w in zip(run["obs"], h, ok, run["where"], strict=True):
        for i in range(N):
            if oks[i]:
                assert ki.consistent(t.env, o, hs[i]), (w, i)
        me = ki.decode(t.env, o).me
        mine = np.flatnonzero(o[: 4 * 53].reshape(53, 4)[:, 0] > 0)
        assert (hs[:, mine] == me).all()  # his own hand is fixed


@pytest.mark.parametrize("which", VARIANTS)
def test_KAN_46_samples_vary_where_free(which, request):
    run, t = pick(which, request)
    varied, free = 0, 0
    for o, hs, oks in zip(run["obs"], run["holders"], run["ok"], strict=True):
        info = ki.known_constraints(t.env, o)
        others = [p for p, x in enumerate(info) if x.size > 0 and p != ki.decode(t.env, o).me]
        if len(others) >= 2 and sum(info[p].size for p in others) >= 8:
            free += 1
            good = hs[oks]
            varied += len(good) > 1 and bool((good != good[0]).any())
    # a few late positions are forced by voids (every hidden card has one possible holder)
    assert free > 20 and varied >= 0.95 * free


# ---- scenarios -----------------------------------------------------------------------------
def scenario(t: Tools, obs: np.ndarray, key=KEY) -> tuple[np.ndarray, np.ndarray]:
    """B * N samples for one observation."""
    h, ok, _ = t.sample(np.repeat(obs[None], B, 0), key)
    return h.reshape(B * N, 53), ok.reshape(-1)


@pytest.fixture(scope="module")
def trick1(t5: Tools):
    """KOI, KOI (P3 leads, KAN-21); trick 1: P3 3H, P4 2S (no heart), P0 TH, P1 3C (no heart;
    JK illegal in trick 1, KAN-25), P2 5D (no heart); P1 wins with the trump 3C."""
    st = t5.env.from_deal(deal_string(HANDS))
    st = t5.play(st, ["KOI", "KOI"])
    before = st
    st = t5.play(st, [card(x) for x in ("3H", "2S", "TH", "3C", "5D")])
    return before, st


def test_KAN_24_showed_out_of_hearts_gets_no_heart(t5, trick1):
    _, st = trick1
    o = t5.obs(st)[0]  # P0, a mukankei, holds TH.. AH; 4H..9H are hidden
    h, ok = scenario(t5, o)
    assert ok.all()
    hearts = [card(f"{r}H") for r in "456789"]
    assert (h[:, hearts] == 3).all()  # P1, P2, P4 showed out: every hidden heart is P3's
    assert ki.voids_of(ki.decode(t5.env, o)) == {1: {2}, 2: {2}, 4: {2}}
    # P3 holds 9 cards: the 6 hearts and one of JK / AC (KAN-17)
    assert ((h[:, [JK, card("AC")]] == 3).sum(1) == 1).all()


def test_KAN_17_mukankei_sees_JK_and_poh_split_between_kankei(t5, trick1):
    before, _ = trick1
    h, ok = scenario(t5, t5.obs(before)[0])
    assert ok.all()
    jk, ace = h[:, JK], h[:, card("AC")]
    assert set(jk.tolist()) == {1, 3} and (np.sort(np.stack([jk, ace], 1), 1) == [1, 3]).all()
    assert 0.35 < (jk == 1).mean() < 0.65  # either way round, about evenly


def test_KAN_17_kankei_knows_partner_holds_the_other(t5, trick1):
    before, _ = trick1
    h, ok = scenario(t5, t5.obs(before)[1])  # P1 holds JK
    assert ok.all() and (h[:, card("AC")] == 3).all() and (h[:, JK] == 1).all()
    h, ok = scenario(t5, t5.obs(before)[3])  # P3 holds AC
    assert ok.all() and (h[:, JK] == 1).all()


def test_KAN_18_nijuu_partner_knows_H_holds_c(t5):
    st = t5.env.from_deal(deal_string(NIJUU, "nijuu=5H,JK"))
    o = t5.obs(st)
    h, ok = scenario(t5, o[3])  # P: gave 5H to H = P1, got JK
    assert ok.all() and (h[:, card("5H")] == 1).all() and (h[:, card("AC")] == 1).all()
    h, ok = scenario(t5, o[0])  # a mukankei: 5H could be anywhere but his own hand
    assert ok.all() and set(h[:, card("5H")].tolist()) == {1, 2, 3, 4}
    assert set(h[:, JK].tolist()) == {1, 3}


def test_KAN_38_chooser_keeps_signalled_cards_with_shower(t5):
    st = t5.env.from_deal(deal_string(HANDS, "deal=2 kankei=1,3 joker=1 ace=3"))
    st = t5.play(st, ["signal F1 KC 5H"])  # deal 2: P3 (ace holder) shows, P1 chooses
    o = t5.obs(st)
    h, ok = scenario(t5, o[1])
    assert ok.all() and (h[:, [card("KC"), card("5H")]] == 3).all()
    h, ok = scenario(t5, o[0])  # opponents see only the form
    assert ok.all() and len(set(h[:, card("KC")].tolist())) == 4


def test_KAN_25_no_joker_in_trick_10(t5, run5):
    sl = t5.env.observation_spec().slices()
    seen = 0
    for o, hs in zip(run5["obs"], run5["holders"], strict=True):
        if o[sl["trick"]][0] == 9:
            seen += 1
            assert (hs[:, JK] == -1).all()
    assert seen


def test_KAN_25_odori_ban_no_joker_after_another_card_in_trick_9(t5):
    """Random hands; everyone plays his lowest legal non-JK card (so the JK holder keeps it)
    until the JK holder's turn in trick 9, where the odori ban forces JK: those who played
    before him in trick 9 do not hold JK, in any sample of any observer."""
    st = t5.env.from_deal(deal_string(random_hands(t5.env, np.random.default_rng(3))),
                          key=KEY)
    st = t5.play(st, ["KOI", "KOI"])
    sl = t5.env.observation_spec().slices()
    holder = int(np.asarray(st._loc)[JK])
    while True:
        o = t5.obs(st)
        if o[0][sl["trick"]][0] == 8 and int(st.current_player) == holder:
            break
        mask = np.asarray(st.legal_action_mask)
        st = t5.play(st, [int(np.flatnonzero(mask[:JK])[0])])
    assert np.flatnonzero(np.asarray(st.legal_action_mask)).tolist() in ([JK], [53, 54, 55, 56])
    cards = o[0][sl["cards"]].reshape(53, 4)
    before = {int(cards[c, 1]) for c in range(52) if cards[c, 2] == 8}
    assert before and holder not in before
    for p in range(5):
        if p != holder:
            h, ok = scenario(t5, o[p])
            assert ok.all() and not set(h[:, JK].tolist()) & before


def test_unconstrained_holders_follow_room_proportions(t5):
    """Deal 2, trick 1 after a lead and a follow in suit, seen by P0 (not the shower, not the
    chooser): no constraint, so each hidden card's holder has law room / 38 (9, 9, 10, 10)."""
    hands = [" ".join(CARD_TOKENS[c] for c in
                      [c for c in range(53) if t5.env.deck[c]][s::5]) for s in range(5)]
    st = t5.env.from_deal(deal_string(hands, "deal=2 kankei=1,3 joker=1 ace=3"))
    st = t5.play(st, ["signal F5", "trump D"])  # P1 chooses and leads
    lead = min(c for c in range(52) if st.legal_action_mask[c])
    st = t5.play(st, [lead])
    follow = min(c for c in range(52) if st.legal_action_mask[c] and c // 13 == lead // 13)
    st = t5.play(st, [follow])
    o = t5.obs(st)[0]
    hs = np.concatenate([scenario(t5, o, jax.random.PRNGKey(k))[0] for k in range(4)])
    hidden = [c for c in range(53) if t5.env.deck[c] and (hs[:, c] > 0).all()]
    assert len(hidden) == 38
    room = np.array([9, 9, 10, 10]) / 38
    freq = np.stack([(hs[:, hidden] == p).mean(0) for p in (1, 2, 3, 4)], 1)  # [38, 4]
    assert np.abs(freq - room).max() < 0.07
    assert np.abs(freq.mean(0) - room).max() < 0.01


def test_jit_single_observation_and_vmap(t5, t6, run5, run6):
    """5 players: jit(vmap) over B different observations; 6 players: jit on one."""
    assert t5.is_batched and not t6.is_batched
    o = jnp.asarray(run6["obs"][0])
    (h, ok), _ = t6.fn(KEY, o)
    assert h.shape == (N, 53) and h.dtype == jnp.int8 and ok.shape == (N,)
    (h2, _), _ = t6.fn(KEY, o)
    assert (np.asarray(h) == np.asarray(h2)).all()  # a function of (key, obs)
    obs = jnp.asarray(run5["obs"][:B])
    (hb, okb), _ = t5.fn(jax.random.split(jax.random.fold_in(KEY, 0), B), obs)  # as run5
    assert hb.shape == (B, N, 53) and okb.shape == (B, N)
    assert (np.asarray(hb) == run5["holders"][:B]).all()  # batch i == observation i alone


def test_rejects_other_games():
    for name in ("whist", "da_bai_fen"):
        with pytest.raises(ValueError, match=name):
            make_sampler(kanjax.make(name), 4)


def test_KAN_54_yonin_joker_may_be_held_in_trick_10(t4, run4):
    """Yonin's joker is never compulsory (KAN-54): unplayed in trick 10, it lies in a hand."""
    sl = t4.env.observation_spec().slices()
    seen = 0
    for o, hs, oks in zip(run4["obs"], run4["holders"], run4["ok"], strict=True):
        cards = o[sl["cards"]].reshape(53, 4)
        if o[sl["trick"]][0] == 9 and cards[JK, 1] < 0 and cards[JK, 0] == 0:
            seen += 1
            assert (hs[oks, JK] >= 0).all()
    assert seen


def test_KAN_53_KAN_66_first_trick_leader_shows_voids(t3, t4, run3, run4):
    """Trick 1's leader (Yonin deal 1: the player of AS, KAN-53; Gambari: the lone kankei,
    KAN-66) is known from the observation, so a follower off the led suit is void in it."""
    for t, run in ((t4, run4), (t3, run3)):
        found = 0
        for o, hs, oks in zip(run["obs"], run["holders"], run["ok"], strict=True):
            v = ki.decode(t.env, o)
            if v.deal != 1 or v.trick < 1:
                continue
            for p, suits in ki.voids_of(v).items():
                if p == v.me or not {c for c, tt in v.trick_of.items() if tt == 0
                                     and v.played_by[c] == p}:
                    continue
                lead = ki.trick_leaders(v)[0]
                first = next(c for c, tt in v.trick_of.items()
                             if tt == 0 and v.played_by[c] == lead)
                led = ki.suit_of(first) if first != JK else v.jk_named
                if led in suits:
                    found += 1
                    cards = [c for c in range(52) if c // 13 == led]
                    assert not (hs[oks][:, cards] == p).any()
        assert found, t.env.name
