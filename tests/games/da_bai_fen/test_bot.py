"""The Da Bai Fen heuristic bot (`kanjax.games.da_bai_fen.heuristic`): only legal actions over many
random states under jit + vmap (the Jilin rules with invalid multi-leads masked, so that its
multi-leads are checked valid against the hidden hands), and its choices
in scripted positions built from deal strings."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kanjax
from kanjax.api import jitted
from kanjax.bots import has_heuristic, make_heuristic, uniform_random
from kanjax.core.jaxutil import tree_where
from kanjax.games.da_bai_fen import spec as ds
from tests.games.da_bai_fen.cases import DEFAULT, MASKED

C = ds.DECK.card
STEPS = 240
BATCH = 8


def cards(text):
    return [C(t) for t in text.split()]


def phase(env, s):
    return int(jitted(env, "summary")(s)["phase"])


@functools.cache
def checker(env):
    """A jitted (keys) -> (the bot was asked, its answer was illegal, the phase), each
    [BATCH, STEPS]: BATCH lanes of games (a new one where one ends) in which each step is the
    bot's move or, half the time, a random one (so the bot sees states its own play would not
    reach)."""
    bot = make_heuristic(env)

    def one(key):
        def body(s, k):
            k1, k2, k3 = jax.random.split(k, 3)
            live = ~(s.terminated | s.truncated)
            obs = env.observe(s, jnp.maximum(s.current_player, 0))
            a = bot(k1, obs, s.legal_action_mask)
            bad = live & ~s.legal_action_mask[a]
            phase = env.summary(s)["phase"].astype(jnp.int32)
            r = uniform_random(k2, obs, s.legal_action_mask)
            take = jnp.where(jax.random.bernoulli(k3), a, r)
            nxt = env.step(s, take, k3)
            nxt = tree_where(nxt.terminated | nxt.truncated, env.init(k3), nxt)  # a new game
            return nxt, (live, bad, jnp.where(live, phase, -1))

        s0 = env.init(key)
        _, out = jax.lax.scan(body, s0, jax.random.split(jax.random.fold_in(key, 1), STEPS))
        return out

    return jax.jit(jax.vmap(one))


def test_bot_plays_only_legal_actions():
    """Under the Jilin rules with invalid multi-leads masked (MASKED), so that the mask also
    checks that every multi-lead the bot makes is valid against the hidden hands (DBF-23)."""
    env = kanjax.make("da_bai_fen", **MASKED)
    assert has_heuristic(env)
    keys = jax.random.split(jax.random.PRNGKey(1), BATCH)
    live, bad, phase = (np.asarray(x) for x in checker(env)(keys))
    assert live.all()
    assert not bad.any(), np.argwhere(bad)[:5]
    seen = set(np.unique(phase[live]).tolist())
    assert {ds.PHASE_DRAW, ds.PHASE_DISCARD, ds.PHASE_PLAY} <= seen


# ---- scripted positions ------------------------------------------------------------------
# No seat holds a 2 (the first hand's trump rank), so nobody exposes; the kitty's 2S is turned
# first: R = 2, T = S (DBF-14), and seat 0 (the starter) takes the kitty and discards.
HANDS = (
    "AH 9H AD KD QD RJ 4S 5S 3C 4C 5C 6C",
    "TH 5H 4H 3D 4D 5D BJ 6S 7S 7C 8C 9C",
    "QH JH 8H 6D 7D 8D 8S 9S TS TC JC QC",
    "KH 7H 6H 9D TD JD JS QS KS AS KC AC",
)
KITTY = "2S 2H 2D 2C 3S 3H"
DISCARD = "3H 9H 3C 4C 6C QD"  # what the bot discards (test_discard_keeps_trumps_and_points)


@pytest.fixture(scope="module")
def env():
    return kanjax.make("da_bai_fen", **DEFAULT)


@pytest.fixture(scope="module")
def run(env):
    """(bot move of a state, the state after a scripted list of action names)."""
    bot = jax.jit(make_heuristic(env))
    step = jax.jit(env.step)
    key = jax.random.PRNGKey(0)

    def move(s):
        obs = env.observe(s, s.current_player)
        a = int(bot(key, obs, s.legal_action_mask))
        assert s.legal_action_mask[a]
        return a

    def script(s, *plays):
        """Each play: the cards one seat picks (and `play` for a lead, added here)."""
        for text in plays:
            leading = phase(env, s) == ds.PHASE_PLAY and int(
                jitted(env, "summary")(s)["plays"]) == 0
            for c in cards(text):
                s = step(s, ds.PICK + c, key)
            if leading:
                s = step(s, ds.PLAY, key)
            assert not bool(s.illegal_action), text
        return s

    def bot_turn(s):
        """The bot plays one whole turn: (the cards it picked, the next state)."""
        seat, picked = int(s.current_player), []
        while True:
            a = move(s)
            s = step(s, a, key)
            if a < ds.PLAY:
                picked.append(a)
            if bool(env.turn_done(s)) or int(s.current_player) != seat:
                return sorted(picked), s

    return move, script, bot_turn


@pytest.fixture(scope="module")
def start(env):
    deal = " | ".join(["da_bai_fen"] + list(HANDS) + ["kitty: " + KITTY])
    return env.from_deal(deal)


def test_discard_keeps_trumps_and_points(env, run, start):
    """DBF-17: the six discards are low plain cards; no trump, no point card, no ace."""
    _, _, bot_turn = run
    assert int(start.current_player) == 0
    assert phase(env, start) == ds.PHASE_DISCARD
    picked, s = bot_turn(start)
    assert picked == sorted(cards(DISCARD))
    assert phase(env, s) == ds.PHASE_PLAY


@pytest.fixture(scope="module")
def play0(run, start):
    """The first lead: seat 0 to lead after the discard."""
    _, script, _ = run
    return script(start, DISCARD)


def test_leads_its_master_cards_together(env, run, play0):
    """DBF-21/23: AD KD are masters (QD is in the kitty seat 0 made): a valid multi-lead."""
    _, _, bot_turn = run
    picked, s = bot_turn(play0)
    assert picked == sorted(cards("AD KD"))
    assert phase(env, s) == ds.PHASE_PLAY  # no penalty: the multi-lead is valid
    assert int(s.current_player) == 1


def test_follows_a_multi_lead_with_its_lowest_cards(run, play0):
    _, script, bot_turn = run
    picked, _ = bot_turn(script(play0, "AD KD"))
    assert picked == sorted(cards("3D 4D"))  # not the 5D (DBF-25: two diamonds)


def test_throws_a_low_non_point_card_when_it_cannot_win(run, play0):
    _, script, bot_turn = run
    assert bot_turn(script(play0, "AH"))[0] == cards("4H")  # not TH, 5H
    assert bot_turn(script(play0, "AH", "4H", "8H"))[0] == cards("6H")  # last: not KH


def test_wins_a_point_trick_with_the_cheapest_winner(run, play0):
    """5C led, 9C holds it for the opponents: seat 2 wins with JC (TC's points would be at
    risk with seat 3 still to play); seat 3, last, overtakes with KC (its 10 points are
    safe)."""
    _, script, bot_turn = run
    s = script(play0, "AH", "4H", "8H", "6H")  # seat 0 wins, leads again
    assert bot_turn(script(s, "5C", "9C"))[0] == cards("JC")
    assert bot_turn(script(s, "5C", "9C", "JC"))[0] == cards("KC")


def test_feeds_points_to_a_partner_who_surely_wins(run, play0):
    """RJ led: nothing beats it, so seat 2 gives its partner TS (10 points)."""
    _, script, bot_turn = run
    assert bot_turn(script(play0, "RJ", "6S"))[0] == cards("TS")
    assert bot_turn(script(play0, "RJ", "6S", "TS"))[0] == cards("JS")  # not KS: RJ wins


def test_exposes_a_strong_suit_and_passes_a_weak_one(env, run):
    """DBF-12/13: seat 0 draws 2S then AS: exposes spades (2.5 trump counts, AS 1.5, for 2
    cards: at least 2 and a third of its cards plus one); seat 1's lone 2H stays down."""
    move, _, _ = run
    hands = (
        "2S AS KS QS JS TS 3D 4D 5D 6D 7D 8D",
        "2H 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
        "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "9D TD JD QD KD AD 3S 4S 5S 6S 7S 8S",
    )
    deal = " | ".join(["da_bai_fen"] + list(hands) + ["kitty: 2D 2C 9S AC BJ RJ"])
    s = env.from_deal(deal)
    step = jax.jit(env.step)
    key = jax.random.PRNGKey(0)
    moves = []
    while phase(env, s) in (ds.PHASE_DRAW, ds.PHASE_FINAL_PASS):
        seat, drawn = int(s.current_player), int(jitted(env, "summary")(s)["drawn"])
        a = move(s)
        moves.append((seat, drawn, ds.action_name(a)))
        s = step(s, a, key)
    assert moves[-1][0] == 0 and moves[-1][2] == "expose S"
    assert all(a == "pass" for seat, _, a in moves[:-1])
    assert moves == [(0, 1, "pass"), (1, 2, "pass"), (0, 5, "expose S")]  # 2S AS: enough
