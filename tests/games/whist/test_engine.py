"""The JAX whist engine (kanjax.games.whist.engine) and PBN deal notation (kanjax.core.pbn).

Tricks are scripted as "W:AS N:7S E:4S S:2S" (seat letter: card); the seat is asserted
against the engine's current player and every card goes through `checked_step`, which
rejects illegal plays, so each script also checks the legal masks. The env and its jitted
functions are shared by the whole module (`env.jitted`); trump and leader come from the deal
strings, so one compiled step serves every scenario.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kanjax
from kanjax.api import checked_step, jitted, legal_actions
from kanjax.core.cards import CardError, deck
from kanjax.core.pbn import format_pbn, looks_like_pbn, parse_pbn
from kanjax.games.whist.engine import OBS_SPEC, WhistEnv, summary_numpy

TOK = deck("whist")
SEATS = "NESW"
PBN = "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83"
# N all spades, E all hearts, S all diamonds, W all clubs
ONE_SUIT = " | ".join(" ".join(r + s for r in "AKQJT98765432") for s in "SHDC")


@pytest.fixture(scope="module")
def env() -> WhistEnv:
    return kanjax.make("whist")


@pytest.fixture(scope="module")
def spades_east() -> WhistEnv:
    return kanjax.make("whist", trump="S", leader="E")


@pytest.fixture(scope="module")
def batched(spades_east):
    """Jitted vmapped init and step of the trump=S leader=E env (step reads the trump and the
    leader from the state, so it plays any deal; `env`'s single step is compared with it)."""
    return jax.jit(jax.vmap(spades_east.init)), jax.jit(jax.vmap(spades_east.step))


S = summary_numpy  # the state's summary as numpy arrays


def deal(head: str = "", pbn: str = PBN) -> str:
    """`pbn` as a kanjax deal string with header fields `head`."""
    hands = [TOK.format_hand(TOK.sort_hand(h)) for h in parse_pbn(pbn)]
    return " | ".join([f"whist {head}".strip(), *hands])


def legal(env, state) -> set[str]:
    return {env.action_name(a, state) for a in legal_actions(state)}


def play(env, state, script: str):
    """Play "W:AS N:7S ..." through checked_step, asserting whose turn each card is."""
    for word in script.split():
        seat, tok = word.split(":")
        assert int(state.current_player) == SEATS.index(seat), (word, int(state.current_player))
        state = checked_step(env, state, f"play {tok}")
    return state


def play_lowest(env, state, steps: int):
    """Each mover plays his lowest legal card id, `steps` times; returns states after each."""
    out = []
    for _ in range(steps):
        state = checked_step(env, state, legal_actions(state)[0])
        out.append(state)
    return out


# ---- config -----------------------------------------------------------------------------------
def test_make_defaults_and_flags(env, spades_east, batched):
    assert (env.config.trump, env.config.leader, env.trump, env.leader) == ("NT", "W", -1, 3)
    assert not env.stochastic_step and env.max_steps == 52 and env.num_actions == 52
    s = S(batched[0](jax.random.split(jax.random.PRNGKey(0), 2)))  # init uses the flags
    assert (s["trump"] == 0).all() and (s["first_leader"] == 1).all()
    assert (s["current_player"] == 1).all() and (s["leader"] == 1).all()
    assert "whist" in kanjax.games() and spades_east != env and spades_east == kanjax.make(
        "whist", leader="E", trump="S")


@pytest.mark.parametrize("flags, match", [
    ({"trumps": "S"}, "unknown config key 'trumps' for whist; valid keys: trump, leader"),
    ({"trump": "X"}, r"trump='X': must be one of \('NT', 'S', 'H', 'D', 'C'\)"),
    ({"trump": "s"}, "trump='s'"),
    ({"leader": "Q"}, r"leader='Q': must be one of \('N', 'E', 'S', 'W'\)"),
])
def test_make_rejects_bad_flags(flags, match):
    with pytest.raises(ValueError, match=match):
        kanjax.make("whist", **flags)


def test_init_deals_13_each_uniformly(batched):
    states = batched[0](jax.random.split(jax.random.PRNGKey(1), 4000))
    owner = np.asarray(states._loc)
    assert ((owner >= 0) & (owner < 4)).all()
    counts = np.stack([(owner == p).sum(1) for p in range(4)], 1)
    assert (counts == 13).all()
    freq = np.stack([(owner == p).mean(0) for p in range(4)])  # [player, card]
    assert np.abs(freq - 0.25).max() < 0.035
    mask = np.asarray(states.legal_action_mask)
    np.testing.assert_array_equal(mask, owner == 1)  # E leads any card of his hand


# ---- trick play -------------------------------------------------------------------------------
def test_lead_is_free_and_follow_suit_is_enforced(env):
    st0 = env.from_deal(PBN)
    assert legal(env, st0) == {f"play {t}" for t in
                               "AS KS JS TS 5S AH 5H QD 6D 4D QC 8C 3C".split()}
    st1 = play(env, st0, "W:AS")
    assert legal(env, st1) == {"play QS", "play 7S"}  # N must follow spades
    with pytest.raises(ValueError, match=r"illegal action .*play KH.* legal: play 7S, play QS"):
        checked_step(env, st1, "play KH")


def test_nt_off_suit_high_card_loses_and_winner_leads(env):
    st0 = env.from_deal(PBN)
    st1 = play(env, st0, "W:AS N:7S E:4S S:2S")
    s = S(st1)
    assert s["winners"][0] == 3 and int(st1.current_player) == 3 and s["leader"] == 3
    assert s["tricks"].tolist() == [0, 1] and s["trick"] == 1 and s["n_played"] == 0
    st2 = play(env, st1, "W:QC N:2C E:AC S:7C")  # E's ace wins; E leads trick 3
    st3 = play(env, st2, "E:TC S:JH W:8C")  # S is void in clubs: any card
    s = S(st3)
    assert s["trick_cards"].tolist() == [-1, TOK.card("TC"), TOK.card("JH"), TOK.card("8C")]
    assert s["led"] == 3 and s["leader"] == 1
    st4 = play(env, st3, "N:9C")  # JH outranks TC but is off-suit in NT: E's TC wins
    s = S(st4)
    assert s["winners"][:3].tolist() == [3, 1, 1] and int(st4.current_player) == 1
    assert s["tricks"].tolist() == [0, 3] and (s["trick_cards"] == -1).all()


def test_trump_beats_a_higher_card_of_the_led_suit(env):
    st0 = env.from_deal(deal("trump=H"))
    assert S(st0)["trump"] == 1
    st2 = play(env, st0, "W:AS N:7S E:4S S:2S W:QC N:2C E:AC S:7C")
    st3 = play(env, st2, "E:KC S:2H W:8C N:9C")  # S ruffs the king with the lowest trump
    s = S(st3)
    assert s["winners"][2] == 2 and int(st3.current_player) == 2
    assert s["tricks"].tolist() == [1, 2]


@pytest.mark.parametrize("head, ns, winner", [
    ("trump=NT leader=W", 0, 3),  # nobody else holds a club: W takes all 13
    ("trump=S leader=W", 13, 0),  # N ruffs trick 1, then leads unbeatable spades
    ("trump=H leader=N", 0, 1),  # E ruffs, then leads hearts
])
def test_13_tricks_and_the_side_rewards(env, head, ns, winner):
    st0 = env.from_deal(f"whist {head} | {ONE_SUIT}")
    states = play_lowest(env, st0, 52)
    for state in states[:-1]:
        assert not bool(state.terminated) and not np.asarray(state.rewards).any()
        assert not bool(env.deal_done(state))
    last = states[-1]
    s = S(last)
    assert bool(last.terminated) and bool(env.deal_done(last)) and s["trick"] == 13
    assert s["tricks"].tolist() == [ns, 13 - ns]
    assert (s["winners"] == winner).all()
    assert np.asarray(last.rewards).tolist() == [ns, 13 - ns, ns, 13 - ns]
    assert int(last.current_player) == -1 and np.asarray(last.legal_action_mask).all()
    assert (s["hand_owner"] == -1).all() and sorted(s["played"].tolist()) == list(range(52))


def test_illegal_action_forfeits(env):
    st0 = env.from_deal(PBN)
    st1 = play(env, st0, "W:AS")
    step = jitted(env, "step")
    for state, action in ((st0, TOK.card("2S")), (st1, TOK.card("KH")), (st1, 52)):
        mover = int(state.current_player)
        out = step(state, jnp.int32(action), None)  # as checked_step calls it
        assert bool(out.terminated) and bool(out.illegal_action)
        rewards = np.asarray(out.rewards)
        assert rewards[mover] == -1.0 and np.isclose(rewards.sum(), 0, atol=1e-6)
        np.testing.assert_array_equal(np.asarray(out._loc), np.asarray(state._loc))
        np.testing.assert_array_equal(np.asarray(out._h), np.asarray(state._h))
    with pytest.raises(ValueError, match="illegal action 52 .out of range."):
        checked_step(env, st0, 52)


def test_jit_vmap_batch_equals_single_games(env, batched):
    """vmap(step) over 32 random games equals the jitted single step (of `env`) on 3 of them
    (init's vmap = single is kanjax.conformance's business); then all 13 tricks are paid."""
    batch, singles_checked = 32, 3
    vinit, vstep = batched
    step = jitted(env, "step")
    states = vinit(jax.random.split(jax.random.PRNGKey(5), batch))
    singles = [jax.tree.map(lambda x, g=g: np.asarray(x)[g], states)
               for g in range(singles_checked)]
    rng = np.random.default_rng(6)
    for _ in range(52):
        mask = np.asarray(states.legal_action_mask)
        actions = jnp.asarray([rng.choice(np.flatnonzero(m)) for m in mask], jnp.int32)
        states = vstep(states, actions)
        singles = [step(singles[g], actions[g], None) for g in range(singles_checked)]
        batched = [np.asarray(x) for x in jax.tree.leaves(states)]
        for g, single in enumerate(singles):
            for a, b in zip(batched, jax.tree.leaves(single), strict=True):
                np.testing.assert_array_equal(a[g], np.asarray(b))
    s = S(states)
    assert np.asarray(states.terminated).all() and not np.asarray(states.illegal_action).any()
    assert (s["tricks"].sum(1) == 13).all()
    ns = s["tricks"][:, 0]
    np.testing.assert_array_equal(np.asarray(states.rewards),
                                  np.stack([ns, 13 - ns, ns, 13 - ns], 1))
    np.testing.assert_array_equal((s["winners"] % 2 == 0).sum(1), ns)


# ---- observation ------------------------------------------------------------------------------
def test_observation_layout(env):
    obs = jitted(env, "observe")
    sl = env.observation_spec().slices()
    assert env.observation_spec().shape == (179,) and OBS_SPEC.shape == (179,)
    st = play(env, env.from_deal(deal("trump=D")), "W:AS N:7S E:4S S:2S W:QC")
    hands = parse_pbn(PBN)
    played = {"AS": (3, 0), "7S": (0, 0), "4S": (1, 0), "2S": (2, 0), "QC": (3, 1)}
    for p in range(4):
        o = np.asarray(obs(st, p))
        assert o.dtype == np.int16 and o.shape == (179,)
        cards = o[sl["cards"]].reshape(52, 3)
        mine = set(hands[p]) - {TOK.card(t) for t in played}
        assert set(np.flatnonzero(cards[:, 0])) == mine  # own hand only
        for c in range(52):
            by, trick = played.get(TOK.token(c), (-1, -1))
            assert cards[c, 1:].tolist() == [by, trick]
        head = {f.name: o[sl[f.name]].tolist() for f in OBS_SPEC.fields if f.name != "cards"}
        assert head == {"me": [p], "current_player": [0], "trump": [2], "first_leader": [3],
                        "leader": [3], "trick": [1], "n_played": [1], "led_suit": [3],
                        "tricks": [0, 1], "winners": [3] + [-1] * 12}


def test_final_state_shows_the_whole_deal(env):
    """The game is one deal: its final state is what every player sees of the finished deal,
    every card with who played it and in which trick, each trick's winner, the tricks taken."""
    before = env.from_deal(f"whist trump=NT leader=W | {ONE_SUIT}")
    states = play_lowest(env, before, 52)
    sl = env.observation_spec().slices()
    played = {}  # card -> (player, trick), from the cards played step by step
    for t, after in enumerate(states):
        c = int(np.flatnonzero(np.asarray(after._loc) != np.asarray(before._loc))[0])
        played[c] = (int(before.current_player), t // 4)
        before = after
    for p in range(4):
        o = np.asarray(jitted(env, "observe")(states[-1], p))
        cards = o[sl["cards"]].reshape(52, 3)
        assert (cards[:, 0] == 0).all()
        assert {c: tuple(cards[c, 1:].tolist()) for c in range(52)} == played
        assert o[sl["winners"]].tolist() == [3] * 13 and o[sl["tricks"]].tolist() == [0, 13]
        assert o[sl["current_player"]].tolist() == [-1] and o[sl["trick"]].tolist() == [13]


# ---- names and deals --------------------------------------------------------------------------
def test_action_names_round_trip(env):
    for a in range(52):
        name = env.action_name(a)
        assert name == f"play {TOK.token(a)}" and env.action_from_name(name) == a
    assert env.action_from_name("  play   AS ") == 12  # 13 * S + A
    for bad in ("AS", "play 1S", "play JK", "lead AS"):
        with pytest.raises(ValueError, match="unknown action name"):
            env.action_from_name(bad)
    with pytest.raises(ValueError, match="bad action 52"):
        env.action_name(52)


def test_from_deal_string_pbn_and_flags(env):
    text = deal("trump=S leader=E")
    st = env.from_deal(text)
    assert env.deal_string(st) == text and env.pbn(st) == PBN
    s = S(st)
    assert (s["trump"], s["first_leader"], int(st.current_player)) == (0, 1, 1)
    for p, hand in enumerate(parse_pbn(PBN)):
        assert set(np.flatnonzero(s["hand_owner"] == p)) == set(hand)
    # PBN and a header-less deal string take the env's flags
    spades_n = kanjax.make("whist", trump="S", leader="N")
    for text in (PBN, deal(), "  " + PBN.replace("N:", "E:", 1)):
        s = S(spades_n.from_deal(text))
        assert (s["trump"], s["first_leader"]) == (0, 0)
    rotated = S(env.from_deal("E:" + PBN[2:]))["hand_owner"]  # the first hand is E's
    np.testing.assert_array_equal(rotated, np.where(s["hand_owner"] >= 0,
                                                    (S(env.from_deal(PBN))["hand_owner"] + 1) % 4,
                                                    -1))
    # from_deal's states equal init's in kind (same pytree, dtypes and shapes)
    init = jax.eval_shape(env.init, jax.random.PRNGKey(0))
    for a, b in zip(jax.tree.leaves(init), jax.tree.leaves(st), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape


@pytest.mark.parametrize("text, match", [
    (deal("dealer=0"), "unknown deal field 'dealer'; fields: leader, trump"),
    (deal("trump=X"), "deal field trump='X': want one of NT, S, H, D, C"),
    (deal("leader=south"), "deal field leader='south': want one of N, E, S, W"),
    (deal("trump=S trump=H"), "deal field 'trump' given twice"),
    (deal("trump"), "bad deal header field 'trump' at character 6"),
    (deal().rsplit(" | ", 1)[0], "deal has 3 hands: want 4"),
    (deal().replace(" 2C |", " |", 1), "hand of N has 12 cards: want 13"),
    (deal().replace("QS", "AS", 1), "card AS is dealt twice .hands of N and W."),
    (deal().replace("QS", "QX", 1), "bad card token 'QX'.*at character 8"),
    (deal().replace("whist", "da_bai_fen"), "deal string for 'da_bai_fen': this env plays whist"),
    (deal() + " | kitty: 2S", "no named sections"),
    ("Q:" + PBN[2:], "bad PBN seat letter 'Q' at character 0"),
])
def test_from_deal_errors_name_the_field_or_token(env, text, match):
    with pytest.raises(ValueError, match=match):
        env.from_deal(text)


# ---- PBN --------------------------------------------------------------------------------------
def test_parse_pbn_example():
    hands = parse_pbn(PBN)
    assert [TOK.format_hand(TOK.sort_hand(h)) for h in hands][0] == (
        "QS 7S KH QH 8D 7D 5D 2D 9C 6C 5C 4C 2C")
    assert all(h == tuple(sorted(h)) and len(h) == 13 for h in hands)
    assert sorted(c for h in hands for c in h) == list(range(52))
    assert format_pbn(hands) == PBN
    w_first = format_pbn(hands, "W")
    assert w_first == "W:AKJT5.A5.Q64.Q83 " + PBN[2:].rsplit(" ", 1)[0]
    assert parse_pbn(w_first) == hands
    assert looks_like_pbn(" N:x") and not looks_like_pbn("whist | AS")


@settings(max_examples=60, deadline=None)
@given(st.permutations(range(52)), st.sampled_from(SEATS))
def test_pbn_round_trip(perm, first):
    hands = tuple(tuple(sorted(perm[13 * p: 13 * p + 13])) for p in range(4))
    text = format_pbn(hands, first)
    assert text[0] == first and parse_pbn(text) == hands
    assert format_pbn(parse_pbn(text), first) == text


@pytest.mark.parametrize("text, match", [
    ("", "empty PBN deal"),
    ("X:" + PBN[2:], "bad PBN seat letter 'X' at character 0: want one of N, E, S, W"),
    ("N-" + PBN[2:], "want ':' after the seat letter at character 1"),
    (PBN.rsplit(" ", 1)[0], "PBN deal has 3 hands .at character 52.: want 4"),
    (PBN + " AK.Q.J.T", "PBN deal has 5 hands .at character 70.: want 4"),
    (PBN.replace("Q7.KQ.", "Q7.KQ", 1), "PBN hand 'Q7.KQ8752.96542' of N at character 2 has "
                                         "3 suits: want 4"),
    (PBN.replace("Q7", "Q1", 1), r"bad PBN rank '1' at character 3: want one of "
                                 r"AKQJT98765432 \(the ten is T\)"),
    (PBN.replace("Q7", "q7", 1), "bad PBN rank 'q' at character 2"),
    (PBN.replace("AKJT5", "AKJTQ", 1), r"card QS at character 57 is dealt twice "
                                       r"\(first at character 2\)"),
    (PBN.replace(".96542", ".9654", 1), "PBN hand of N at character 2 has 12 cards: want 13 "
                                        r"\(a full 52-card deal; missing: 2C\)"),
])
def test_pbn_errors_name_the_problem_and_position(text, match):
    with pytest.raises(CardError, match=match):
        parse_pbn(text)


def test_format_pbn_errors():
    hands = parse_pbn(PBN)
    with pytest.raises(CardError, match="bad PBN seat letter 'NE'"):
        format_pbn(hands, "NE")
    with pytest.raises(CardError, match="3 hands"):
        format_pbn(hands[:3])
    with pytest.raises(CardError, match="card AS is dealt twice"):
        format_pbn([hands[0] + (12,), *hands[1:]])
    with pytest.raises(CardError, match="bad card id 52"):
        format_pbn([(52,), (), (), ()])
