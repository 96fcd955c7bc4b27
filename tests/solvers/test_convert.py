"""Positions from PBN deals, deal strings and kanjax states (`solvers.convert`).

The default tests build Kan states by hand (numpy, no engine step: an eager Kan step costs
seconds of compilation); the `slow` ones take the same deals through the engine and follow
whole deals of every variant against the reference solver's rules."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

import kanjax
from kanjax.core import cards
from kanjax.core.cards import CardError
from kanjax.core.pbn import format_pbn, parse_pbn
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import CARD_TOKENS, CONTRACT, IKU_KOI, PLAY, PLAYED, KanState
from solvers.convert import deal_state, from_deal, from_pbn, from_state
from solvers.position import LEAD_JK, NO_TRUMP
from tests.solvers.rules import WHIST, game_rules

EXAMPLE = "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83"
KEY = jax.random.PRNGKey(0)
WHIST_TOKENS = tuple(r + s for s in "SHDC" for r in "23456789TJQKA")


def kan(tokens: str) -> tuple[int, ...]:
    """Kan card tokens -> ids (suits C D H S = 0..3), sorted."""
    return tuple(sorted(CARD_TOKENS.index(t) for t in tokens.split()))


def whist(tokens: str) -> tuple[int, ...]:
    """Whist card tokens -> ids (suits S H D C = 0..3), sorted."""
    return tuple(sorted(WHIST_TOKENS.index(t) for t in tokens.split()))


# ---- whist ---------------------------------------------------------------------------------
def test_from_pbn_example():
    pos = from_pbn(EXAMPLE, "H", "W")
    assert pos.rules == WHIST and pos.trump == 1 and pos.leader == 3
    assert pos.side == (False, True, False, True)  # the leader's partnership: E-W
    assert pos.hands[0] == whist("QS 7S KH QH 8D 7D 5D 2D 9C 6C 5C 4C 2C")
    assert pos.hands == parse_pbn(EXAMPLE)
    assert (pos.trick, pos.led, pos.tricks_done, pos.taken, pos.root_moves) == (
        (), -1, 0, 0, None)
    assert from_pbn(EXAMPLE, "NT", "N").trump == NO_TRUMP
    assert from_pbn(EXAMPLE, "NT", "S").side == (True, False, True, False)
    assert from_pbn(format_pbn(pos.hands, "E"), "H", "W") == pos  # PBN round trip


def test_from_pbn_errors():
    with pytest.raises(ValueError, match="trump='N': want one of NT, S, H, D, C"):
        from_pbn(EXAMPLE, "N", "W")
    with pytest.raises(ValueError, match="leader='X': want one of N, E, S, W"):
        from_pbn(EXAMPLE, "NT", "X")
    with pytest.raises(CardError, match="has 3 hands"):
        from_pbn("N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7", "NT", "W")


def test_whist_deal_strings_and_mid_trick_state():
    pos, players = from_deal(EXAMPLE, trump="S", leader="E")
    assert players == (0, 1, 2, 3) and pos == from_pbn(EXAMPLE, "S", "E")
    env, state = deal_state(EXAMPLE, trump="S", leader="E")
    assert from_deal(env.deal_string(state)) == (pos, players)  # deal string round trip
    # E leads AC, S follows with his only club, W 3C, N 2C: E-W win trick 1; E leads KC
    # and S, now void in clubs, ruffs with 3S: W is to play.
    for card in ("AC", "7C", "3C", "2C", "KC", "3S"):
        state = env.step(state, whist(card)[0])
    pos, _ = from_state(env, state)
    assert (pos.leader, pos.trick, pos.led, pos.tricks_done, pos.to_move) == (
        1, (whist("KC")[0], whist("3S")[0]), 3, 1, 3)
    assert pos.side == (False, True, False, True)  # the opening leader's side: E-W
    assert (pos.taken, pos.taken_other) == (1, 0)
    assert pos.hands[1] == tuple(c for c in parse_pbn(EXAMPLE)[1] if c not in whist("AC KC"))


def test_whist_deal_errors():
    text = "whist trump=H leader=N | " + " | ".join(
        " ".join(WHIST_TOKENS[c] for c in h) for h in parse_pbn(EXAMPLE))
    assert from_deal(text)[0] == from_pbn(EXAMPLE, "H", "N")
    with pytest.raises(ValueError, match="trump='S', but the deal string sets trump=H"):
        from_deal(text, trump="S")
    with pytest.raises(ValueError, match="leader='E', but the deal string sets leader=N"):
        from_deal(text, leader="E")
    with pytest.raises(ValueError, match="unknown game 'skat'"):
        from_deal("skat | AS")
    with pytest.raises(ValueError, match="konkan: no double-dummy positions"):
        from_deal("konkan | AS")


# ---- Kan states by hand --------------------------------------------------------------------
def kan_state(env, hands: dict[int, str], played: dict[str, tuple[int, int]], mask: str,
              cur: int, **slots) -> KanState:
    """A Kan state built by hand: `hands` player -> tokens; `played` card token -> (trick,
    player); the legal card actions `mask` (tokens; 'JK>H' = lead JK naming H); header
    `slots` (the others -1)."""
    loc = np.full(53, -1, np.int8)
    for p, toks in hands.items():
        loc[list(kan(toks))] = p
    for tok, (t, p) in played.items():
        loc[CARD_TOKENS.index(tok)] = PLAYED + 8 * t + p
    h = np.full(env.layout.head_size, -1, np.int8)
    for k, v in slots.items():
        h[env.layout.head[k]] = v
    legal = np.zeros(ks.NUM_ACTIONS, bool)
    for tok in mask.split():
        legal[LEAD_JK + "CDHS".index(tok[-1]) if tok.startswith("JK>") else
              CARD_TOKENS.index(tok)] = True
    no = np.bool_(False)
    return KanState(np.int8(cur), legal, np.zeros(env.num_players, np.float32), no, no, no,
                    np.int32(0), loc, h, np.zeros(env.layout.wide_size, np.int32),
                    np.full(65, -1, np.int8))


# Gonin, 6 players, dealer P0 (seat 0, no cards): ring positions P1..P5 = 0..4. Round 0: trump
# C, JK with P2, AC (poh) with P4: kankei P2 and P4, not adjacent; default leader P4 (P5 and
# P1 on his right are mukankei, KAN-21).
GONIN6_HANDS = {1: "3S 7S 8S 3C 4C 5C 6C 3D 4D 5D", 2: "JK 4S 9S 7C 8C 9C 6D 7D 8D 3H",
                3: "5S TS JS TC JC QC 9D TD JD 4H", 4: "AS KS QS AC KC QD KD AD 5H 6H",
                5: "2S 6S 7H 8H 9H TH JH QH KH AH"}
GONIN6 = " | ".join(["gonin_kan players=6", ""] + [GONIN6_HANDS[p] for p in range(1, 6)])
# Trick 1: P4's AS wins (its only point card: pk = 1); trick 2: P4 leads KS, P5 plays 6S.
GONIN6_PLAY = ("AS", "2S", "3S", "4S", "5S", "KS", "6S")
GONIN6_SLOTS = dict(phase=PLAY, deal=1, dealer=0, trump=0, pk=0, pm=0, nplayed=0, trick=0,
                    leader=4, seat_of=list(range(6)), pos=[5, 0, 1, 2, 3, 4],
                    kankei=[0, 0, 1, 0, 1, 0])


def check_gonin6_mid_trick(env, state) -> None:
    """The Gonin deal after GONIN6_PLAY, checked by hand."""
    pos, players = from_state(env, state)
    assert players == (1, 2, 3, 4, 5)  # the dealer P0 sits out
    assert pos.rules == game_rules("gonin_kan") and pos.trump == 0
    assert pos.side == (False, True, False, True, False)
    assert (pos.leader, pos.trick, pos.led, pos.to_move) == (3, kan("KS") + kan("6S"), 3, 0)
    assert (pos.tricks_done, pos.taken, pos.taken_other, pos.root_moves) == (1, 1, 0, None)
    assert pos.hands == (
        kan("7S 8S 3C 4C 5C 6C 3D 4D 5D"), kan("JK 9S 7C 8C 9C 6D 7D 8D 3H"),
        kan("TS JS TC JC QC 9D TD JD 4H"), kan("QS AC KC QD KD AD 5H 6H"),
        kan("7H 8H 9H TH JH QH KH AH"))


def gonin6_mid_trick_by_hand(env) -> KanState:
    hands = {p: " ".join(t for t in h.split() if t not in GONIN6_PLAY)
             for p, h in GONIN6_HANDS.items()}
    played = {t: (0 if i < 5 else 1, (3 + i) % 5 + 1) for i, t in enumerate(GONIN6_PLAY)}
    return kan_state(env, hands, played, "7S 8S", 1, **{
        **GONIN6_SLOTS, "trick": 1, "nplayed": 2, "led": 3, "pk": 1,
        "winners": [4] + [-1] * 9})


def test_kan_mid_trick_state_by_hand():
    env = kanjax.make("gonin_kan", players=6)
    check_gonin6_mid_trick(env, gonin6_mid_trick_by_hand(env))


def test_kan_state_errors():
    env = kanjax.make("gonin_kan", players=6)
    at_iku = kan_state(env, GONIN6_HANDS, {}, "", 4, **{**GONIN6_SLOTS, "phase": IKU_KOI})
    with pytest.raises(ValueError, match=r"not in trick play \(phase IKU_KOI\)"):
        from_state(env, at_iku)
    state = gonin6_mid_trick_by_hand(env)
    with pytest.raises(ValueError, match="one state, not a batch of shape"):
        from_state(env, jax.tree.map(lambda x: np.stack([x, x]), state))
    with pytest.raises(ValueError, match="no double-dummy positions for 'whist_like'"):
        from_state(type("Env", (), {"name": "whist_like"})(), state)
    with pytest.raises(ValueError, match="trump='X': want one of C, D, H, S"):
        from_deal(GONIN6, trump="X")
    with pytest.raises(ValueError, match="leader='P2': want a player"):
        from_deal(GONIN6, leader="P2")


YONIN = {0: "AS 6S 7S 8S 5C 6C 7C 8C 5D 6D", 1: "9S TS JS 9C TC JC 7D 8D 9D TD",
         2: "QS KS QC KC AC JD QD KD 5H 6H", 3: "JK AD 7H 8H 9H TH JH QH KH AH"}
# dealer P0: ring positions P1, P2, P3, P0 = 0..3; trump C; kankei: JK P3, trump jack JC P1
YONIN_SLOTS = dict(phase=PLAY, deal=1, dealer=0, trump=0, trick=0, nplayed=0, pk=0, pm=0,
                   seat_of=[0, 1, 2, 3], pos=[3, 0, 1, 2], kankei=[0, 1, 0, 1])


def test_yonin_compulsory_lead_is_root_moves():
    # KAN-53: the AS holder P0 must lead AS; the solver's rules would allow any card.
    env = kanjax.make("yonin_kan")
    pos, players = from_state(env, kan_state(env, YONIN, {}, "AS", 0, leader=0, **YONIN_SLOTS))
    assert pos.rules == game_rules("yonin_kan") and players == (1, 2, 3, 0)
    assert pos.leader == 3 and pos.root_moves == kan("AS")
    assert pos.side == (True, False, True, False)
    assert pos.hands == tuple(kan(YONIN[p]) for p in players)
    state = kan_state(env, YONIN, {}, YONIN[0], 0, leader=0, **YONIN_SLOTS)
    assert from_state(env, state)[0].root_moves is None  # the mask is the rules'


def test_kan_joker_lead_names_the_led_suit():
    # Yonin deal 1, trump C; JK with P0 and JC with P1: kankei P0, P1. Trick 1: P0 leads AS,
    # P1 JS, P2 QS, P3 6D: P0 wins 3 points. Trick 2: P0 leads JK naming H; P1, void in
    # hearts, may play any card.
    env = kanjax.make("yonin_kan")
    hands = {0: "6S 7S 8S 5C 6C 7C 8C 5D", 1: "9S TS 9C TC JC 7D 8D 9D TD",
             2: "KS QC KC AC JD QD KD 5H 6H", 3: "AD 7H 8H 9H TH JH QH KH AH"}
    played = {"AS": (0, 0), "JS": (0, 1), "QS": (0, 2), "6D": (0, 3), "JK": (1, 0)}
    slots = {**YONIN_SLOTS, "kankei": [1, 1, 0, 0], "trick": 1, "nplayed": 1, "leader": 0,
             "led": 2, "jk_named": 2, "pk": 3, "winners": [0] + [-1] * 9}
    pos, players = from_state(env, kan_state(env, hands, played, hands[1], 1, **slots))
    assert players == (1, 2, 3, 0) and pos.side == (True, False, False, True)
    assert (pos.leader, pos.trick, pos.led, pos.to_move) == (3, (52,), 2, 0)
    assert (pos.tricks_done, pos.taken, pos.taken_other, pos.root_moves) == (1, 3, 0, None)
    assert pos.hands == tuple(kan(hands[p]) for p in players)
    with pytest.raises(ValueError, match="player 2 to act, but player 1 is next"):
        from_state(env, kan_state(env, hands, played, hands[2], 2, **slots))


def test_kan_trick_choices_and_goals():
    """What the solver weighs before trick 1 (`TrickPlay.trick_choices`): in Gonin deal 1 either
    kankei leading (KAN-21), in deal 2 every trump the chooser may name (KAN-36); none for
    whist. The contracts as goals (`TrickPlay.trick_goals`, KAN-31, KAN-32) at deal 2's T(2) = 8
    (KAN-29), the gyaku forms the mukankei's at U(2) = 9."""
    env = kanjax.make("gonin_kan", players=6)
    assert env.trick_choices(GONIN6) == [{"trump": None, "leader": 2},
                                         {"trump": None, "leader": 4}]
    assert env.trick_choices(GONIN6, leader=4) == [{"trump": None, "leader": 4}]
    deal2 = GONIN6.replace("players=6", "players=6 deal=2 kankei=2,4 joker=2 ace=4")
    assert [o["trump"] for o in env.trick_choices(deal2)] == list("CDHS")
    assert env.trick_choices(deal2, trump="D") == [{"trump": "D", "leader": None}]
    assert env.trick_goals(env.from_deal(deal2)) == {
        "sukonku": (True, 8, 0), "gyaku_sukonku": (False, 9, 0), "juuroku": (True, 16, 0),
        "gyaku_juuroku": (False, 16, 0)}
    whist_env = kanjax.make("whist")
    assert whist_env.trick_choices(EXAMPLE, leader="E") == [{"trump": None, "leader": "E"}]
    assert whist_env.trick_goals(whist_env.from_deal(EXAMPLE)) == {}


# ---- through the engine (slow: eager Kan steps compile for seconds) ------------------------
@pytest.mark.slow
def test_kan_deal_strings_through_the_engine():
    env, state = deal_state(GONIN6)  # IKU, IKU: the default leader P4 leads
    for tok in GONIN6_PLAY:
        state = env.step(state, CARD_TOKENS.index(tok), KEY)
    check_gonin6_mid_trick(env, state)
    pos, players = from_deal(GONIN6, leader=2)  # KOI by P4, IKU by P2 (KAN-21)
    assert players[pos.leader] == 2 and pos.to_move == pos.leader == 1
    with pytest.raises(ValueError, match=r"leader=1: in deal 1 one of the kankei 2, 4 leads"):
        from_deal(GONIN6, leader=1)
    with pytest.raises(ValueError, match="the rules fix this deal's trump to C"):
        from_deal(GONIN6, trump="H")
    deal2 = GONIN6.replace("players=6", "players=6 deal=2 kankei=2,4 joker=2 ace=4")
    with pytest.raises(ValueError, match="player 2 chooses trump before trick 1.*trump=C"):
        from_deal(deal2)
    pos, players = from_deal(deal2, trump="D")  # the chooser (deal 2: the JK holder) leads
    assert pos.trump == 1 and players[pos.leader] == 2
    yonin = "yonin_kan | " + " | ".join(YONIN[p] for p in range(4))
    pos, players = from_deal(yonin)  # contract NONE; P0 must lead AS (KAN-53)
    assert players[pos.leader] == 0 and pos.root_moves == kan("AS")
    with pytest.raises(ValueError, match="leader=1: player 0 leads trick 1 here"):
        from_deal(yonin, leader=1)
    gambari = " | ".join(["gambari_kan", "7S 8S 9S TS 8C 9C TC 8D 9D TD",
                          "JS QS KS JC QC KC JD QD KD JK", "AS AC AD 8H 9H TH JH QH KH AH"])
    with pytest.raises(ValueError, match="give leader=<player>"):
        from_deal(gambari)
    pos, players = from_deal(gambari, leader=2)  # P1 passes, P2 bids KAN
    assert players[pos.leader] == 2 and pos.side == tuple(p == 2 for p in players)


def deal_text(game: str, rng: np.random.Generator, fields: str = "", **deck_flags) -> str:
    deck = cards.deck(game, **deck_flags)
    n = {"gonin_kan": 6 if "players=6" in fields else 5, "yonin_kan": 4, "gambari_kan": 3}[game]
    ids, hands = list(rng.permutation(deck.ids)), []
    for seat in range(n):
        hands.append("" if n == 6 and seat == 0 else deck.format_hand(ids[:10]))
        ids = ids if n == 6 and seat == 0 else ids[10:]
    return " | ".join([f"{game} {fields}".strip()] + hands)


@pytest.mark.slow
@pytest.mark.parametrize("game, fields, kw", [
    ("gonin_kan", "", {}),
    ("gonin_kan", "players=6", {"leader": None}),
    ("gonin_kan", "deal=3 kankei=0,2 joker=0 ace=2", {"trump": "S"}),
    ("yonin_kan", "", {}),
    ("yonin_kan", "yonin_removed_five=C deal=2 kankei=1,3 joker=1 jack=3",
     {"trump": "H", "yonin_joker_trick1_contract": "any"}),
    ("gambari_kan", "", {"leader": 1}),
])
def test_from_state_follows_the_reference_rules(game, fields, kw):
    """A whole random deal through the engine: at every card, the position's legal moves are
    the engine's and the next position is the reference solver's `play` of the move."""
    reference = pytest.importorskip("solvers.reference")
    rng = np.random.default_rng(5)
    five = {"yonin_removed_five": "C"} if "five=C" in fields else {}
    env, state = deal_state(deal_text(game, rng, fields, **five), key=KEY, **kw)
    for _ in range(50):
        pos, players = from_state(env, state)
        mask = np.flatnonzero(np.asarray(state.legal_action_mask)[: ks.NUM_ACTIONS])
        assert sorted(reference.legal_moves(pos)) == mask.tolist()
        move = int(rng.choice(mask))
        after = reference.play(pos, move)
        state = env.step(state, move, KEY)
        while int(np.asarray(env.layout.unpack(state)["phase"])) == CONTRACT and not bool(
                np.asarray(env.deal_done(state))):
            state = env.step(state, ks.CONTRACT_NONE, KEY)  # trick 1 of Yonin: no contract
        g = env.layout.unpack(state)
        if int(np.asarray(g["phase"])) != PLAY or bool(np.asarray(env.deal_done(state))):
            break
        pos, _ = from_state(env, state)
        assert pos == dataclasses.replace(after, root_moves=pos.root_moves)

