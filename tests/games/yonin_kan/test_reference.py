"""Self-tests of the plain-Python Yonin Kan reference (kan.md §10, §16: S02, S31-S35).

Deals are scripted as tricks: "2:AS 3:6S 0:7S 1:8S" means player 2 plays AS, then player 3 6S,
... (the order is asserted against the reference's current player); "0:JK>D" leads JK naming
diamonds. In trick 1 a token may end in "/S" (declare SKUNK before the card) or "/A" (ALL16);
every other trick-1 contract decision is answered NONE. Hands are the scripted cards plus
explicit or shuffled extra cards. Players P0..P3 start in seats S0..S3; round 0 has trump C
(KAN-11).
"""

from __future__ import annotations

import copy
import random

import pytest

from kanjax.core.cards import deck
from kanjax.games.kan import spec as ks
from kanjax.games.kan.reference_yonin import (
    YoninKanRef,
    contract_outcome,
    score_yonin_deal,
    yonin_deck,
    yonin_trick_legal_actions,
    yonin_trick_winner,
)
from tests.games.yonin_kan.scenarios import A1, A1_EXTRA, A2, A3, CONTRACT_CASES, K4, K_FIRST, M4

DECK = deck("yonin_kan")
C = DECK.card
YONIN_DECK = yonin_deck()
CONTRACTS = [ks.CONTRACT_NONE, ks.CONTRACT_SKUNK, ks.CONTRACT_ALL16]
LEAD_JK = [ks.LEAD_JK + s for s in range(4)]


def cards(text: str) -> list[int]:
    return [C(t) for t in text.split()]


def cfg(**flags) -> ks.KanConfig:
    return ks.KanConfig.for_game("yonin_kan", **flags)


def parse_trick(text: str) -> list[tuple[int, str]]:
    return [(int(p), tok) for p, tok in (w.split(":") for w in text.split())]


def plan_hands(tricks: list[str], extra: dict[int, str] | None = None,
               rng: random.Random | None = None) -> list[list[int]]:
    """The scripted cards (in trick order, so a hand's first three cards are its first three
    plays), then `extra`, then the rest of the deck shuffled in when `rng` is given."""
    hands: list[list[int]] = [[] for _ in range(4)]
    for trick in tricks:
        for p, tok in parse_trick(trick):
            hands[p].append(C(tok.split("/")[0].split(">")[0]))
    for p, text in (extra or {}).items():
        hands[p] += cards(text)
    if rng is not None:
        rest = sorted(YONIN_DECK - {c for h in hands for c in h})
        rng.shuffle(rest)
        for h in hands:
            while len(h) < 10:
                h.append(rest.pop())
    for p, h in enumerate(hands):
        assert len(h) == 10, (p, h)
    return hands


def play_trick(ref: YoninKanRef, trick: str) -> None:
    for p, tok in parse_trick(trick):
        tok, _, contract = tok.partition("/")
        assert ref.current_player() == p, (trick, p, ref.current_player())
        if ref.legal_actions()[0] == ks.CONTRACT_NONE:  # KAN-56 trick-1 decision
            ref.apply({"": ks.CONTRACT_NONE, "S": ks.CONTRACT_SKUNK,
                       "A": ks.CONTRACT_ALL16}[contract])
            assert ref.current_player() == p
        else:
            assert not contract, f"{tok}: no contract decision is offered here"
        if tok.startswith("JK>"):
            action = ks.LEAD_JK + ks.SUITS.index(tok[3])
        else:
            action = C(tok)  # JK (52) is "play JK when following"
        ref.apply(action)


def play_tricks(ref: YoninKanRef, tricks: list[str]) -> None:
    for trick in tricks:
        play_trick(ref, trick)


def random_hands(rng: random.Random, fixed: dict[int, str] | None = None) -> list[list[int]]:
    hands = [cards((fixed or {}).get(p, "")) for p in range(4)]
    rest = sorted(YONIN_DECK - {c for h in hands for c in h})
    rng.shuffle(rest)
    for h in hands:
        while len(h) < 10:
            h.append(rest.pop())
    return hands


def random_action(ref: YoninKanRef, rng: random.Random, p_none: float = 0.0) -> int:
    legal = ref.legal_actions()
    if legal[0] == ks.CONTRACT_NONE and rng.random() < p_none:
        return ks.CONTRACT_NONE
    return rng.choice(legal)


def play_random(ref: YoninKanRef, rng: random.Random, stop, p_none: float = 0.8) -> None:
    """Random deals and random legal actions until `stop(ref)` or the match ends."""
    while not ref.terminal() and not stop(ref):
        if ref.chance_kind() == "deal":
            ref.deal(random_hands(rng))
        else:
            ref.apply(random_action(ref, rng, p_none))


def finish_deal(ref: YoninKanRef, want_kankei_win: bool) -> YoninKanRef:
    """A copy of `ref` whose current deal was played out randomly with the wanted result."""
    d, r = ref.deal_no, ref.round
    for seed in range(2000):
        trial = copy.deepcopy(ref)
        play_random(trial, random.Random(seed), lambda x: x.chance_kind() is not None)
        if (trial.last_outcome in ks.KANKEI_WINS) == want_kankei_win:
            assert (trial.round, trial.deal_no) == ((r, d + 1) if want_kankei_win else (r + 1, 1))
            return trial
    raise AssertionError("no such deal found")


def start(hands, **flags) -> YoninKanRef:
    ref = YoninKanRef(cfg(**flags))
    assert ref.chance_kind() == "deal" and ref.current_player() == -1
    ref.deal(hands)
    return ref


def name_trump(ref: YoninKanRef, chooser: int, suit: str) -> None:
    assert ref.current_player() == chooser
    assert ref.legal_actions() == [ks.TRUMP + s for s in range(4)]  # KAN-57: any suit
    assert ref.summary()["trump"] == -1
    ref.apply(ks.TRUMP + ks.SUITS.index(suit))
    assert ref.current_player() == chooser  # decision: the chooser leads trick 1


def with_contract(trick: str, player: int, kind: str) -> str:
    return " ".join(w + f"/{kind}" if w.startswith(f"{player}:") else w for w in trick.split())


def deal1(plan=A1, extra=A1_EXTRA, **flags) -> YoninKanRef:
    ref = start(plan_hands(plan, extra, random.Random(1)), **flags)
    s = ref.summary()
    assert s["kankei"] == [True, False, True, False] and s["first3"] == [-1, -1, -1]
    assert ref.current_player() == 2  # KAN-53: the AS holder
    return ref


def after_deal1(contract: str = "", **flags) -> YoninKanRef:
    """Deal 1 = A1: SUKONKU (R = 2), or C_SUKONKU_OK (R = 4) with contract "S"."""
    ref = deal1(**flags)
    plan = [with_contract(A1[0], 2, contract)] + A1[1:] if contract else A1
    play_tricks(ref, plan)
    assert ref.last_outcome == (ks.C_SUKONKU_OK if contract else ks.SUKONKU)
    assert ref.chance_kind() == "deal" and ref.deal_no == 2
    assert ref.seat_of == [0, 1, 2, 3]  # KAN-55: opposite kankei stay
    return ref


def deal2(plan, rng_seed=2, **flags) -> YoninKanRef:
    """After deal 1 (R = 2): deal 2 dealt with `plan`, P0 names trump S and leads."""
    ref = after_deal1(**flags)
    ref.deal(plan_hands(plan, rng=random.Random(rng_seed)))
    name_trump(ref, chooser=0, suit="S")  # KAN-57: the deal-1 JK holder
    return ref


def deal3(plan, **flags) -> YoninKanRef:
    """After deal 1 (R = 2) and deal 2 = K4[:2] with kankei SKUNK (R = 6): deal 3, chooser
    P2 (deal-1 trump-jack holder) names trump S and leads."""
    ref = deal2(K4, **flags)
    play_tricks(ref, [with_contract(K4[0], 0, "S"), K4[1]])
    assert ref.last_outcome == ks.C_SUKONKU_OK and ref.rk == 6 and ref.deal_no == 3
    ref.deal(plan_hands(plan, rng=random.Random(3)))
    name_trump(ref, chooser=2, suit="S")
    return ref


def rot(tricks: list[str], shift: int) -> list[str]:
    """The same tricks with every player p replaced by p + shift (mod 4)."""
    return [" ".join(f"{(int(p) + shift) % 4}:{t}" for p, t in (w.split(":") for w in tr.split()))
            for tr in tricks]


# ---- KAN-1, KAN-49 ---------------------------------------------------------------------------
def test_KAN_1_KAN_49_yonin_deck_S02():
    for five, sizes, low in (("S", (10, 10, 10, 9), "5C 5D 5H 6S"),
                             ("C", (9, 10, 10, 10), "6C 5D 5H 5S")):
        d = deck("yonin_kan", yonin_removed_five=five)
        ids = set(d.ids)
        assert ids == yonin_deck(five) and len(ids) == 40 and ks.JK in ids
        for suit, size, lowest in zip("CDHS", sizes, low.split(), strict=True):
            suit_cards = [c for c in ids if c < 52 and "CDHS"[c // 13] == suit]
            assert len(suit_cards) == size and min(suit_cards) == d.card(lowest)
            assert max(suit_cards) == d.card("A" + suit)
        assert len(set(ks.POINT_CARDS) & ids) == 16
        assert not any(c < 52 and c % 13 < 3 for c in ids)  # no 2, 3, 4
        assert YoninKanRef(cfg(yonin_removed_five=five)).deck == ids


# ---- KAN-50..KAN-53 --------------------------------------------------------------------------
def quick_round_loss(ref: YoninKanRef, jack: str) -> None:
    """A deal 1 (script A2: kankei P2 with AS and the trump jack, P0 with JK) that the kankei
    lose in trick 3 with a failed SKUNK (R = -8): the round ends, no seat change."""
    ref.deal(plan_hands(A2, {0: "JK", 2: jack}, random.Random(9)))
    play_tricks(ref, [with_contract(A2[0], 2, "S")] + A2[1:])
    assert ref.last_outcome == ks.C_SUKONKU_FAIL and ref.deal_no == 1


def test_KAN_53_KAN_56_first_lead_S31():
    ref = YoninKanRef(cfg())
    quick_round_loss(ref, "JC")
    assert ref.round == 1 and ref.trump == 1 and ref.dealer == 1  # trump D (KAN-11)
    ref.deal(random_hands(random.Random(31), {2: "AS"}))
    assert ref.current_player() == 2  # S2 holds AS
    assert ref.legal_actions() == [ks.CONTRACT_NONE, ks.CONTRACT_SKUNK]  # no ALL16 in deal 1
    with pytest.raises(ValueError, match="illegal action 227"):
        ref.apply(ks.CONTRACT_ALL16)
    ref.apply(ks.CONTRACT_SKUNK)
    assert ref.legal_actions() == [C("AS")] and ref.summary()["contract"] == [ks.SKUNK, 2]
    # Final round (Tome Suppe, trump S): the AC holder leads AC.
    ref = start(random_hands(random.Random(32), {3: "AC AS"}), n_rounds=1)
    assert ref.trump == 3 and ref.current_player() == 3
    ref.apply(ks.CONTRACT_NONE)
    assert ref.legal_actions() == [C("AC")]


def test_KAN_50_KAN_51_KAN_57_nijo_kan_S33():
    ref = YoninKanRef(cfg())
    quick_round_loss(ref, "JC")
    quick_round_loss(ref, "JD")
    assert ref.round == 2 and ref.trump == 2 and ref.seat_of == [0, 1, 2, 3]  # trump H
    ref.deal(random_hands(random.Random(33), {1: "JK JH", 3: "AS"}))
    s = ref.summary()
    assert s["kankei"] == [False, True, False, True]  # P1 and the player opposite, P3
    assert ref.jk1 == ref.jack1 == 1
    ref = finish_deal(ref, want_kankei_win=True)
    assert ref.seat_of == [0, 1, 2, 3]  # KAN-55: already opposite
    hands = random_hands(random.Random(34))
    ref.deal(hands)
    assert ref.summary()["first3"] == sorted(hands[1][:3])
    name_trump(ref, chooser=1, suit="C")  # deal 2: P1 (JK holder of deal 1) chooses and leads
    ref = finish_deal(ref, want_kankei_win=True)
    assert ref.deal_no == 3 and ref.summary()["kankei"] == [False, True, False, True]
    ref.deal(random_hands(random.Random(35)))
    name_trump(ref, chooser=1, suit="H")  # deal 3: P1 again (jack holder of deal 1)
    assert ref.legal_actions() == CONTRACTS


def test_KAN_51_nijo_partner_is_opposite_seat():
    for holder, partner in ((0, 2), (3, 1)):
        ref = start(random_hands(random.Random(holder), {holder: "JK JC"}))
        kankei = ref.summary()["kankei"]
        assert [p for p in range(4) if kankei[p]] == sorted((holder, partner))


def test_KAN_57_chooser_roles_and_first3():
    ref = after_deal1()
    s = ref.summary()
    assert s["trump"] == -1 and s["first3"] == [-1, -1, -1] and s["contract"] == [0, -1]
    hands = plan_hands(K4, rng=random.Random(2))
    hands[0] = hands[0][::-1]  # deal order matters: P0's first three cards come last here
    ref.deal(hands)
    s = ref.summary()
    assert s["first3"] == sorted(hands[0][:3]) and s["trump"] == -1
    assert ref.current_player() == 0 and s["legal_actions"] == [ks.TRUMP + i for i in range(4)]
    ref.apply(ks.TRUMP + 2)
    assert ref.summary()["trump"] == 2 and ref.legal_actions() == CONTRACTS
    # Deal 3: the deal-1 trump-jack holder P2 chooses.
    ref = deal3(K4)  # P2's first three cards dealt are his first three plays in K4
    assert ref.summary()["first3"] == sorted(cards("QH QD QC"))


# ---- KAN-54 ----------------------------------------------------------------------------------
def test_KAN_54_trick_10_joker_lowest_S32():
    club = 0
    # (a) 9H JK 6D 5H: JK is the lowest heart, S0 wins.
    assert yonin_trick_winner(list(enumerate(cards("9H JK 6D 5H"))), 2, club, 10) == 0
    assert yonin_trick_winner(list(enumerate(cards("9H JK 6D 5H"))), 2, club, 9) == 1
    # (b) JK led naming D; 7H QS TH: nobody plays a diamond or a trump, JK wins.
    assert yonin_trick_winner(list(enumerate(cards("JK 7H QS TH"))), 1, club, 10) == 0
    # (c) as (b) but S2 plays 5D: 5D beats the JK.
    assert yonin_trick_winner(list(enumerate(cards("JK 7H 5D TH"))), 1, club, 10) == 2
    # A trump beats a led JK; a JK led naming the trump suit is the lowest trump.
    assert yonin_trick_winner(list(enumerate(cards("JK 7H 5C TH"))), 1, club, 10) == 2
    assert yonin_trick_winner(list(enumerate(cards("JK 7H 5C TH"))), 0, club, 10) == 2
    assert yonin_trick_winner(list(enumerate(cards("JK 7H 5D TH"))), 0, club, 10) == 0


def test_KAN_54_joker_kept_to_trick_10_integrated_S32():
    ref = start(plan_hands(A3))
    assert ref.summary()["kankei"] == [False, True, True, False]
    play_tricks(ref, A3[:8])
    assert ref.current_player() == 3
    play_trick(ref, A3[8].split()[0] + " " + A3[8].split()[1])
    assert ref.legal_actions() == [C("5D"), ks.JK]  # KAN-54: no odori ban in trick 9
    ref.apply(C("5D"))
    ref.apply(C("5C"))
    assert ref.current_player() == 0 and ref.points == [4, 12]
    ref.apply(C("9H"))
    assert ref.legal_actions() == [ks.JK]  # his last card: JK is legal in trick 10
    ref.apply(ks.JK)
    play_trick(ref, "2:6D 3:5H")
    assert ref.last_outcome == ks.NORMAL_LOSS and ref.round == 1
    assert ref.scores() == [1, -1, -1, 1]


def test_KAN_54_legal_actions():
    hand = set(cards("JK 5H 9H KH 5C QS TD"))
    assert yonin_trick_legal_actions(hand, 2) == sorted(cards("5H 9H KH")) + [ks.JK]
    assert yonin_trick_legal_actions(hand, 3) == sorted(cards("QS")) + [ks.JK]
    lead = yonin_trick_legal_actions(hand, None)
    assert lead == sorted(hand - {ks.JK}) + LEAD_JK  # never action 52 when leading
    assert yonin_trick_legal_actions(hand, 2, jk_ok=False) == sorted(cards("5H 9H KH"))
    assert yonin_trick_legal_actions({ks.JK}, None) == LEAD_JK
    assert yonin_trick_legal_actions({ks.JK}, 1) == [ks.JK]
    assert yonin_trick_legal_actions(hand, None, forced=C("AS")) == [C("AS")]


# ---- KAN-55 ----------------------------------------------------------------------------------
def test_KAN_55_seat_change_S34():
    ref = start(random_hands(random.Random(34), {2: "JK", 3: "JC"}))
    assert ref.summary()["kankei"] == [False, False, True, True]
    won = finish_deal(ref, want_kankei_win=True)
    s = won.summary()
    assert s["seat_of"] == [3, 1, 2, 0] and won.occupant == [3, 1, 2, 0]  # S3 <-> S0
    assert s["kankei"] == [False, False, True, True]  # P3 (S0) and P2 (S2): opposite
    lost = finish_deal(ref, want_kankei_win=False)
    assert lost.seat_of == [0, 1, 2, 3] and lost.dealer == 1
    # Wrapping pair: kankei P3 (S3) and P0 (S0): right-hand P0 swaps with P1.
    ref = start(random_hands(random.Random(35), {3: "JK", 0: "JC"}))
    won = finish_deal(ref, want_kankei_win=True)
    assert won.seat_of == [1, 0, 2, 3]
    play_random(won, random.Random(36), lambda r: r.round == 1)
    assert won.dealer == 2  # KAN-15: dealer P0 now sits in S1; S2 = P2 deals (P1 skipped)


# ---- KAN-56, KAN-58 --------------------------------------------------------------------------
def test_KAN_56_contract_offered_once_trick_1_only():
    ref = deal1()
    ref.apply(ks.CONTRACT_NONE)
    ref.apply(C("AS"))
    assert ref.current_player() == 3 and ref.legal_actions() == [ks.CONTRACT_NONE,
                                                                 ks.CONTRACT_SKUNK]
    ref.apply(ks.CONTRACT_SKUNK)  # mukankei P3: gyaku sukonku
    assert ref.summary()["contract"] == [ks.SKUNK, 3]
    ref.apply(C("6S"))
    assert ref.current_player() == 0  # no decision: a contract is declared
    assert ref.legal_actions() == sorted(cards("7S TS")) + [ks.JK]
    ref.apply(C("7S"))
    ref.apply(C("8S"))
    # P2 (kankei) took AS: the mukankei contract failed at once, deal 1 +40 (KAN-61).
    assert ref.last_outcome == ks.C_GYAKU_SUKONKU_FAIL and (ref.rk, ref.rm) == (40, -40)
    assert ref.deal_no == 2 and ref.summary()["contract"] == [0, -1]


def test_KAN_56_no_contract_after_trick_1():
    ref = deal1()
    play_tricks(ref, A1[:2])
    assert ref.current_player() == 2 and ref.legal_actions()[0] < ks.JK


def joker_deal2(jk_holder: int, flag: str) -> YoninKanRef:
    """Deal 2, trump S, P0 leads; `jk_holder` holds JK; hearts for everybody."""
    extra = {p: "5H" if p == 0 else "" for p in range(4)}
    extra[jk_holder] += " JK"
    ref = after_deal1(yonin_joker_trick1_contract=flag)
    ref.deal(plan_hands(K4[1:], extra, random.Random(58)))
    name_trump(ref, chooser=0, suit="S")
    return ref


@pytest.mark.parametrize("flag", ["lead", "any"])
def test_KAN_58_joker_lead_needs_contract(flag):
    ref = joker_deal2(0, flag)
    none = copy.deepcopy(ref)
    none.apply(ks.CONTRACT_NONE)
    assert not set(LEAD_JK) & set(none.legal_actions())
    assert ks.JK not in none.legal_actions()  # never action 52 when leading
    for contract in (ks.CONTRACT_SKUNK, ks.CONTRACT_ALL16):
        dec = copy.deepcopy(ref)
        dec.apply(contract)
        assert dec.legal_actions()[-4:] == LEAD_JK
        dec.apply(ks.LEAD_JK + 2)  # JK naming H
        assert dec.current_player() == 1 and max(dec.legal_actions()) < ks.JK  # no decision


@pytest.mark.parametrize("flag", ["lead", "any"])
def test_KAN_58_joker_follow_trick_1(flag):
    ref = joker_deal2(1, flag)
    ref.apply(ks.CONTRACT_NONE)
    ref.apply(C("5H"))
    assert ref.current_player() == 1 and ref.legal_actions() == CONTRACTS
    said_none = copy.deepcopy(ref)
    said_none.apply(ks.CONTRACT_NONE)
    # "lead": following with JK stays legal; "any": only with his own contract.
    assert (ks.JK in said_none.legal_actions()) == (flag == "lead")
    declared = copy.deepcopy(ref)
    declared.apply(ks.CONTRACT_SKUNK)
    assert ks.JK in declared.legal_actions()
    # Someone else declared earlier: no decision for P1; JK only under "lead".
    ref = joker_deal2(1, flag)
    ref.apply(ks.CONTRACT_SKUNK)
    ref.apply(C("5H"))
    assert ref.current_player() == 1 and ref.legal_actions()[0] < ks.JK
    assert (ks.JK in ref.legal_actions()) == (flag == "lead")
    # From trick 2 on JK is free under both flags (KAN-54).


@pytest.mark.parametrize("flag", ["lead", "any"])
def test_KAN_58_deal_1_follower(flag):
    ref = deal1(yonin_joker_trick1_contract=flag)  # P0 holds JK and spades
    play_trick(ref, "2:AS 3:6S")
    ref.apply(ks.CONTRACT_NONE)
    assert ref.current_player() == 0
    assert (ks.JK in ref.legal_actions()) == (flag == "lead")
    assert ref.legal_actions()[0] == C("7S")


# ---- KAN-60, KAN-61 --------------------------------------------------------------------------
def test_KAN_60_KAN_61_sukonku_contract_deal_1_S35():
    ref = after_deal1("S")  # (a) SKUNK declared by P2 with AS
    assert (ref.rk, ref.rm) == (4, -4) and ref.round == 0  # not +2
    # Without the contract the same tricks give the undeclared SUKONKU, +2.
    assert (after_deal1().rk, after_deal1().rm) == (2, -2)
    ref = deal1(A2, {0: "JK", 2: "JC"})  # (b)
    play_tricks(ref, [with_contract(A2[0], 2, "S"), A2[1]])
    assert ref.points == [3, 0] and ref.deal_no == 1
    play_trick(ref, A2[2])
    assert ref.last_outcome == ks.C_SUKONKU_FAIL
    assert ref.scores() == [-8, 8, -8, 8] and ref.round == 1 and ref.dealer == 1


@pytest.mark.parametrize("tricks,declarer,kind,outcome,r,goes_on", CONTRACT_CASES)
def test_KAN_60_KAN_61_contracts_deal_2(tricks, declarer, kind, outcome, r, goes_on):
    ref = deal2(tricks)
    plan = [with_contract(tricks[0], declarer, kind)] + tricks[1:]
    play_tricks(ref, plan[:-1])
    assert ref.deal_no == 2 and ref.rk == 2 and not ref.chance_kind()
    play_trick(ref, plan[-1])
    assert ref.summary()["contract"] == [0, -1]  # the next deal (or round) is pending
    assert ref.last_outcome == outcome
    if goes_on:
        assert (ref.rk, ref.rm) == (r, -r) and ref.deal_no == 3 and ref.round == 0
    else:
        assert ref.scores() == [r, -r, r, -r] and ref.round == 1


def test_KAN_60_gyaku_sukonku_needs_U():
    # Deal 2: mukankei SKUNK needs U(2) = 9; after 2 tricks they hold 8 and play goes on.
    ref = deal2(M4)
    play_tricks(ref, [with_contract(M4[0], 1, "S"), M4[1]])
    assert ref.points == [0, 8] and ref.current_player() == 1 and not ref.chance_kind()
    assert contract_outcome(ks.SKUNK, 1, [0, 8], 2) is None
    assert contract_outcome(ks.SKUNK, 1, [0, 8], 1) == ks.C_GYAKU_SUKONKU_OK
    assert contract_outcome(ks.SKUNK, 0, [8, 0], 2) == ks.C_SUKONKU_OK
    assert contract_outcome(ks.SKUNK, 0, [8, 0], 3) is None
    assert contract_outcome(ks.ALL16, 0, [15, 0], 3) is None
    assert contract_outcome(ks.ALL16, 0, [15, 1], 3) == ks.C_JUUROKU_FAIL


@pytest.mark.parametrize("tricks,declarer,outcome,r", [
    (M4[:3], 1, ks.C_GYAKU_SUKONKU_OK, 2 - 6),
    (M4, 1, ks.C_GYAKU_JUUROKU_OK, 2 - 32),
])
def test_KAN_61_KAN_78_round_override_off(tricks, declarer, outcome, r):
    kind = "S" if outcome == ks.C_GYAKU_SUKONKU_OK else "A"
    ref = deal2(tricks, yonin_contract_round_override=False)
    play_tricks(ref, [with_contract(tricks[0], declarer, kind)] + tricks[1:])
    assert ref.last_outcome == outcome and ref.scores() == [r, -r, r, -r]


def chain(outcomes, **flags):
    config = cfg(**flags)
    rk = rm = 0
    out = []
    for d, o in enumerate(outcomes, start=1):
        rk, rm = score_yonin_deal(rk, rm, o, d, config)
        assert rm == -rk
        out.append(rk)
    return out


def test_KAN_61_table():
    assert chain([ks.C_GYAKU_SUKONKU_OK]) == [-20]
    assert chain([ks.C_GYAKU_SUKONKU_FAIL]) == [40]
    assert chain([ks.C_SUKONKU_FAIL]) == [-8]
    assert chain([ks.C_SUKONKU_OK, ks.C_GYAKU_SUKONKU_OK]) == [4, -6]
    assert chain([ks.C_SUKONKU_OK, ks.C_GYAKU_SUKONKU_OK],
                 yonin_contract_round_override=False) == [4, -2]
    assert chain([ks.NORMAL_WIN, ks.NORMAL_WIN, ks.C_GYAKU_JUUROKU_OK]) == [1, 2, -32]
    assert chain([ks.NORMAL_WIN, ks.C_GYAKU_JUUROKU_FAIL, ks.C_JUUROKU_OK]) == [1, 65, 82]
    assert chain([ks.C_GYAKU_SUKONKU_FAIL, ks.C_JUUROKU_FAIL]) == [40, 8]
    assert chain([ks.NORMAL_WIN, ks.NORMAL_WIN, ks.C_GYAKU_SUKONKU_FAIL]) == [1, 2, 15]
    # Undeclared outcomes keep the Gonin standard table, KAN-43 doubling included (KAN-59).
    assert chain([ks.SUKONKU, ks.GYAKU_JUUROKU_FAIL, ks.NORMAL_WIN]) == [2, 38, 40]
    assert chain([ks.SUKONKU, ks.GYAKU_JUUROKU_FAIL, ks.NORMAL_WIN],
                 gyaku_juuroku_fail_doubling=False) == [2, 35, 37]
    assert chain([ks.GYAKU_SUKONKU]) == [-10]


def test_KAN_61_W3_after_contract_deal_3():
    plan = rot(K4[:3], 2)  # kankei P2 leads and declares SKUNK; T(3) = 9 after trick 3
    ref = deal3(plan)
    play_tricks(ref, [with_contract(plan[0], 2, "S")] + plan[1:2])
    assert ref.points == [8, 0] and ref.current_player() == 2
    play_trick(ref, plan[2])
    assert ref.last_outcome == ks.C_SUKONKU_OK
    assert ref.scores() == [11, -11, 11, -11]  # 6 + 4 + W3
    # A mukankei ALL16 that fails in deal 3 is a kankei win: +64 then W3.
    ref = deal3(rot(K_FIRST, 2))
    play_trick(ref, with_contract(rot(K_FIRST, 2)[0], 3, "A"))
    assert ref.last_outcome == ks.C_GYAKU_JUUROKU_FAIL
    assert ref.scores() == [71, -71, 71, -71]  # 6 + 64 + 1


# ---- KAN-59 (undeclared events in deals 2/3) -------------------------------------------------
def test_KAN_59_undeclared_stop_deal_2():
    ref = deal2(K4)
    play_tricks(ref, K4[:2])
    assert ref.points == [8, 0] and ref.current_player() == 0
    assert ref.legal_actions() == [ks.STOP, ks.JUUROKU]
    stop = copy.deepcopy(ref)
    stop.apply(ks.STOP)
    assert stop.last_outcome == ks.SUKONKU and (stop.rk, stop.rm) == (4, -4)
    assert stop.deal_no == 3
    ref.apply(ks.JUUROKU)
    assert ref.current_player() == 0 and ref.legal_actions()[0] < ks.JK  # no contract now
    play_tricks(ref, K4[2:])
    assert ref.last_outcome == ks.JUUROKU_OK and (ref.rk, ref.rm) == (11, -11)


def test_KAN_59_undeclared_juuroku_fails_deal_2():
    plan = K4[:2] + ["0:5C 1:AC 2:6C 3:7C"]
    ref = deal2(plan)
    play_tricks(ref, K4[:2])
    ref.apply(ks.JUUROKU)
    play_trick(ref, plan[2])
    assert ref.last_outcome == ks.JUUROKU_FAIL
    assert ref.scores() == [-15, 15, -15, 15]  # 2 - 1 - 16


def test_KAN_59_undeclared_gyaku_stop_deal_2():
    ref = deal2(M4)
    play_tricks(ref, M4[:3])
    assert ref.points == [0, 12] and ref.current_player() == 1
    assert ref.legal_actions() == [ks.STOP, ks.JUUROKU]
    ref.apply(ks.STOP)
    assert ref.last_outcome == ks.GYAKU_SUKONKU and ref.scores() == [-3, 3, -3, 3]


# ---- interface and invariants ----------------------------------------------------------------
def test_deal_validation_and_illegal_actions():
    ref = YoninKanRef(cfg())
    hands = random_hands(random.Random(1))
    bad = [list(h) for h in hands]
    bad[0][0] = 42  # 5S: removed by default
    with pytest.raises(ValueError, match="not in the Yonin deck"):
        ref.deal(bad)
    bad = [list(h) for h in hands]
    bad[0][0] = bad[1][0]
    with pytest.raises(ValueError, match="twice"):
        ref.deal(bad)
    with pytest.raises(ValueError, match="must get 10"):
        ref.deal([h[:9] for h in hands])
    with pytest.raises(ValueError, match="need 4 hands"):
        ref.deal(hands[:3])
    with pytest.raises(ValueError, match="chance"):
        ref.apply(ks.CONTRACT_NONE)
    assert ref.current_player() == -1 and ref.legal_actions() == []
    ref.deal(hands)
    with pytest.raises(ValueError, match=r"illegal action 0 .*legal: \[225, 226\]"):
        ref.apply(0)
    with pytest.raises(ValueError, match="no deal"):
        ref.deal(hands)
    with pytest.raises(ValueError, match="not in the Yonin deck"):
        YoninKanRef(cfg(yonin_removed_five="C")).deal(random_hands(random.Random(2)))
    with pytest.raises(ValueError):
        YoninKanRef(ks.KanConfig())


@pytest.mark.parametrize("flags,p_none", [
    ({"n_rounds": 3}, 0.0),
    ({"n_rounds": 3}, 0.95),
    ({"n_rounds": 2, "yonin_removed_five": "C", "yonin_joker_trick1_contract": "any",
      "first_dealer_seat": 2}, 0.9),
    ({"n_rounds": 2, "yonin_contract_round_override": False,
      "gyaku_juuroku_fail_doubling": False, "first_dealer_seat": 3}, 0.97),
])
def test_random_matches_invariants(flags, p_none):
    config = cfg(**flags)
    the_deck = yonin_deck(config.yonin_removed_five)
    outcomes = set()
    for seed in range(75):
        rng = random.Random(seed)
        ref = YoninKanRef(config)
        rounds_seen = 0
        while not ref.terminal():
            if ref.chance_kind() == "deal":
                shuffled = sorted(the_deck)
                rng.shuffle(shuffled)
                ref.deal([shuffled[10 * p:10 * p + 10] for p in range(4)])
                continue
            s = ref.summary()
            assert s["legal_actions"] and s["current_player"] >= 0
            assert sum(s["kankei"]) == 2 and sum(s["points"]) <= 16
            assert s["rm"] == -s["rk"]
            held = [c for c in range(53) if s["hand_owner"][c] >= 0]
            played = 4 * ref.tricks_done + len(ref.trick)
            assert len(held) + played == 40 and set(held) <= the_deck
            if ref.trick:  # followers are the next players to the right
                assert ref.seat_of[ref.to_act] == (ref.seat_of[ref.trick[-1][0]] + 1) % 4
            before = ref.round
            ref.apply(random_action(ref, rng, p_none))
            if ref.round != before or ref.terminal():
                rounds_seen += 1
                assert sum(ref.scores()) == 0  # KAN-62: 2 against 2, zero-sum
            if ref.chance_kind() or ref.terminal():
                outcomes.add(ref.last_outcome)
        s = ref.summary()
        assert s["terminal"] and s["current_player"] == -1 and s["legal_actions"] == []
        assert rounds_seen == config.n_rounds and s["round"] == config.n_rounds - 1
    assert len(outcomes) >= 6
