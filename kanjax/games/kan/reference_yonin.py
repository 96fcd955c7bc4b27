"""Plain-Python reference rules of Yonin Kan (Damari Kan), 4 players (kan.md §10, KAN-47..62).

Slow, obvious and independent of the JAX engine (`kanjax.games.kan.engine`): differential tests
replay the engine's matches through `YoninKanRef` and compare every step. Chance is supplied from
outside: `chance_kind()` says "deal" when a deal must be dealt, `deal()` supplies it, each hand in
deal order (`hands[p][:3]` are the first three cards dealt to player p, KAN-57).

Everything of the Gonin reference (`kanjax.games.kan.reference_gonin`) applies unless KAN-47..62
change it; its pure helpers (deal-1 trump, targets, the KAN-27 trick winner, the KAN-41..44
scoring of undeclared outcomes) are imported, not copied.

Conventions (kan.md §15): card id `c = 13*suit + (rank - 2)`, suits C D H S, JK = 52; action ids
as in `kanjax.games.kan.spec`. Players keep their identity; seats move (KAN-7, KAN-55). Team
index: 0 = kankei, 1 = mukankei. The reference knows the true teams from the deal on, even in
deal 1 where the players do not (KAN-50..52); contracts are classified by the declarer's true
team (KAN-56).

Step order (decisions, normative for this reference):
- Deal 1: trump by KAN-11; kankei = holders of JK and of the trump jack, or the nijō holder and
  the player opposite (KAN-50, KAN-51); the AS holder (AC when spades are trump) leads and may
  only lead that card (KAN-53).
- Trick 1 of every deal: each player in turn, until someone declares, first decides the
  contract (NONE / SKUNK, plus ALL16 in deals 2-3; KAN-56), then plays his card.
- Deals 2-3: the chooser (deal 2: the deal-1 JK holder, deal 3: the deal-1 trump-jack holder,
  the same player under nijō) names any trump, then leads trick 1 (KAN-57).
- End of trick (KAN-30): (b) a declared contract (KAN-60); (c) an undeclared juuroku (KAN-32);
  (d) only with neither, the KAN-31 sukonku condition; (e) after trick 10, KAN-33.
- Seat change KAN-55 after a deal 1 the kankei won; dealer rotation KAN-15 at round end.

Interpretations the rules leave open:
- At a chance node the state already describes the deal about to be dealt: hands empty,
  points 0, no contract, deal number advanced, trump -1 for deals 2/3, first3 [-1, -1, -1]
  (the chooser's first three cards exist only once dealt). The kankei of the round stay set.
- After the last round the match simply stops (as in the Gonin reference): only the match
  scores and last_outcome are meaningful.
- The summary's `contract` is [0, -1] from the end of a deal until a contract is declared in
  the next one; `first3` is [-1, -1, -1] in deal 1 and at every chance node.
- KAN-54 trick 10 with JK followed (not led) and the led suit trump: JK is the lowest trump;
  a real trump was led, so JK never wins then.
"""

from __future__ import annotations

from kanjax.games.kan.reference_common import (
    KANKEI,
    MUKANKEI,
    KanMatchRef,
    check_hands,
    gyaku_target,
    target,
)
from kanjax.games.kan.reference_gonin import deal1_trump, score_deal, suit_of, trick_winner
from kanjax.games.kan.spec import (
    ALL16,
    C_GYAKU_JUUROKU_FAIL,
    C_GYAKU_JUUROKU_OK,
    C_GYAKU_SUKONKU_FAIL,
    C_GYAKU_SUKONKU_OK,
    C_JUUROKU_FAIL,
    C_JUUROKU_OK,
    C_SUKONKU_FAIL,
    C_SUKONKU_OK,
    CONTRACT_ALL16,
    CONTRACT_NONE,
    CONTRACT_SKUNK,
    GYAKU_SUKONKU,
    JK,
    JUUROKU,
    KANKEI_WINS,
    LEAD_JK,
    NO_CONTRACT,
    NUM_TRICKS,
    POINT_CARDS,
    SKUNK,
    STOP,
    SUKONKU,
    TRUMP,
    KanConfig,
    deck,
)

N_PLAYERS = 4  # KAN-47
ALL_POINTS = len(POINT_CARDS)  # KAN-3: all 16 are in the Yonin deck (KAN-49)
AS, AC = 51, 12  # KAN-53 compulsory first leads


def yonin_deck(removed_five: str = "S") -> frozenset[int]:
    """KAN-1, KAN-49: 2, 3, 4 of every suit and one 5 (flag `yonin_removed_five`) removed."""
    return frozenset(deck("yonin_kan", yonin_removed_five=removed_five).ids)


# Phases (one decision kind each).
DEAL, TRUMP_PHASE, CONTRACT, PLAY, DECIDE, OVER = range(6)

# Contract outcome codes by (kind, declarer team) -> (success, failure) (KAN-56, KAN-60).
CONTRACT_OUTCOMES = {
    (SKUNK, KANKEI): (C_SUKONKU_OK, C_SUKONKU_FAIL),
    (SKUNK, MUKANKEI): (C_GYAKU_SUKONKU_OK, C_GYAKU_SUKONKU_FAIL),
    (ALL16, KANKEI): (C_JUUROKU_OK, C_JUUROKU_FAIL),
    (ALL16, MUKANKEI): (C_GYAKU_JUUROKU_OK, C_GYAKU_JUUROKU_FAIL),
}


# ---- pure rule helpers ---------------------------------------------------------------------
def first_lead_card(trump: int) -> int:
    """KAN-53: AS leads deal 1; AC when spades are trump (the final round)."""
    return AC if trump == 3 else AS


def nijo_partner_seat(seat: int) -> int:
    """KAN-51: the nijō holder's partner sits opposite (seat + 2)."""
    return (seat + 2) % N_PLAYERS


def yonin_trick_legal_actions(hand, led_suit: int | None, jk_ok: bool = True,
                              forced: int | None = None) -> list[int]:
    """Legal trick-play actions for `hand`, sorted (KAN-24, KAN-26, KAN-53, KAN-54, KAN-58).

    `led_suit` is None when the player leads. KAN-54: JK may be led or played at any turn of any
    trick, following or not, and is never compulsory; `jk_ok` = False withdraws it (the KAN-58
    trick-1 duty). A JK lead names a suit (four actions 53..56, KAN-26); a JK follow is action
    52. `forced` is the compulsory deal-1 lead (KAN-53), then the only legal card.
    """
    if forced is not None:
        return [forced]
    has_jk = JK in hand and jk_ok
    plain = [c for c in hand if c != JK]
    if led_suit is None:
        acts = sorted(plain)
        if has_jk:
            acts += [LEAD_JK + s for s in range(4)]
        return acts
    follow = [c for c in plain if suit_of(c) == led_suit]  # KAN-24
    acts = sorted(follow if follow else plain)
    if has_jk:
        acts.append(JK)
    return acts


def yonin_trick_winner(plays: list[tuple[int, int]], led_suit: int, trump: int,
                       trick_no: int) -> int:
    """KAN-27 in tricks 1..9 (JK wins); KAN-54 in trick 10 (JK = lowest card of the led suit).

    `plays` is [(player, card)] in play order, `led_suit` the suit of the lead or the suit named
    with a JK lead; returns the winning player. Trick 10: the highest trump wins if any trump was
    played, else the highest led-suit card; JK ranks below every card of the led suit (below
    every trump if the led suit is trump), so it wins only when led and unopposed.
    """
    if trick_no < NUM_TRICKS:
        return trick_winner(plays, led_suit, trump)

    def strength(card: int) -> tuple[int, int]:
        suit, rank = (led_suit, -1) if card == JK else (suit_of(card), card % 13)
        cls = 2 if suit == trump else (1 if suit == led_suit else 0)
        return (cls, rank)

    return max(plays, key=lambda pc: strength(pc[1]))[0]


def contract_outcome(kind: int, team: int, points: list[int], deal_no: int) -> int | None:
    """KAN-60: the outcome of a declared contract after a trick, or None while it is open.

    Fails as soon as the opponents of the declaring team hold a point card; succeeds when the
    declaring team has its target (SKUNK: kankei T(d), mukankei U(d); ALL16: 16) with the
    opponents at 0. Targets as Gonin (KAN-48).
    """
    ok, fail = CONTRACT_OUTCOMES[(kind, team)]
    if points[1 - team] > 0:
        return fail
    if kind == ALL16:
        goal = ALL_POINTS
    else:
        goal = target(deal_no) if team == KANKEI else gyaku_target(deal_no)
    return ok if points[team] >= goal else None


# KAN-61: outcome -> (kankei, mukankei, "set" when yonin_contract_round_override). The gyaku
# sukonku rows depend on the deal: deal 1 / deals 2-3.
CONTRACT_TABLE = {
    C_SUKONKU_OK: (4, -4, False),
    C_SUKONKU_FAIL: (-8, 8, False),
    C_JUUROKU_OK: (16, -16, False),
    C_JUUROKU_FAIL: (-32, 32, False),
    C_GYAKU_JUUROKU_OK: (-32, 32, True),
    C_GYAKU_JUUROKU_FAIL: (64, -64, False),  # no KAN-43 doubling
}
GYAKU_SUKONKU_TABLE = {  # deal 1, deals 2-3
    C_GYAKU_SUKONKU_OK: ((-20, 20, True), (-6, 6, True)),
    C_GYAKU_SUKONKU_FAIL: ((40, -40, False), (12, -12, False)),
}


def score_yonin_deal(rk: int, rm: int, outcome: int, deal_no: int,
                     config: KanConfig) -> tuple[int, int]:
    """KAN-62: (Rk, Rm) after a deal. Undeclared outcomes: Gonin standard (KAN-41..44, with the
    KAN-43 doubling flag). Contracts: KAN-61, replacing W/L and every bonus of the deal, "set"
    rows only with `yonin_contract_round_override`; then W3 if the kankei won deal 3."""
    if outcome in GYAKU_SUKONKU_TABLE:
        k, m, is_set = GYAKU_SUKONKU_TABLE[outcome][0 if deal_no == 1 else 1]
    elif outcome in CONTRACT_TABLE:
        k, m, is_set = CONTRACT_TABLE[outcome]
    else:
        return score_deal(rk, rm, outcome, deal_no, config)  # includes W3
    if is_set and config.yonin_contract_round_override:
        rk, rm = k, m
    else:
        rk, rm = rk + k, rm + m
    if deal_no == 3 and outcome in KANKEI_WINS:
        rk, rm = rk + 1, rm - 1  # KAN-41 W3, also after a contract win
    return rk, rm


# ---- the state machine -----------------------------------------------------------------------
class YoninKanRef(KanMatchRef):
    """One Yonin Kan match (KAN-9, KAN-47), driven by `apply` and externally supplied deals."""

    CHANCE = {DEAL: "deal"}
    OVER, PLAY, DECIDE = OVER, PLAY, DECIDE

    def __init__(self, config: KanConfig):
        if config.variant != "yonin" or config.players != N_PLAYERS:
            raise ValueError(f"YoninKanRef plays 4-player Yonin Kan, not {config}")
        self.cfg = config
        self.n = N_PLAYERS
        self.deck = yonin_deck(config.yonin_removed_five)  # KAN-1, KAN-49
        self._start_match()
        self._start_round()

    # ---- setup helpers ----
    def _start_round(self) -> None:
        self.deal_no = 1
        self.rk = self.rm = 0  # KAN-40
        self.trump = deal1_trump(self.round, self.cfg.n_rounds)  # KAN-11
        self.kankei: set[int] = set()
        self.jk1 = self.jack1 = -1  # deal-1 JK / trump-jack holders (KAN-57 choosers)
        self._clear_deal()
        self.phase = DEAL

    def _clear_deal(self) -> None:
        self.hands: list[set[int]] = [set() for _ in range(self.n)]
        self.first3 = [-1, -1, -1]  # KAN-57: the chooser's first three cards (deals 2, 3)
        self.points = [0, 0]  # [kankei, mukankei] point cards captured (KAN-28)
        self.tricks_done = 0
        self.trick: list[tuple[int, int]] = []  # (player, card) in play order
        self.led_suit: int | None = None
        self.leader = -1
        self.to_act = -1
        self.contract = NO_CONTRACT  # KAN-56: at most one per deal
        self.declarer = -1
        self.declared_now = False  # the player to act declared the contract at this turn
        self.juuroku: int | None = None  # team committed to all 16, undeclared (KAN-32)
        self.pending: int | None = None  # team meeting the sukonku condition (KAN-31)

    def _next_player(self, player: int) -> int:
        """KAN-5: play passes to the right, seat + 1 (all four seats active, KAN-47)."""
        return self.occupant[(self.seat_of[player] + 1) % self.n]

    def _team(self, player: int) -> int:
        return KANKEI if player in self.kankei else MUKANKEI

    def _holder(self, card: int) -> int:
        for p, hand in enumerate(self.hands):
            if card in hand:
                return p
        raise AssertionError(f"card {card} not in any hand")

    # ---- chance ----
    def deal(self, hands: list[list[int]]) -> None:
        """KAN-8, KAN-47: 10 cards to each player, by player id, each hand in deal order."""
        if self.phase != DEAL:
            raise ValueError("deal(): no deal is pending")
        check_hands(hands, self.n, self.deck, "Yonin")  # of the configured removed five
        self._clear_deal()
        self.hands = [set(int(c) for c in h) for h in hands]
        if self.deal_no == 1:
            self._deal1_teams()
            self._start_trick(self._holder(first_lead_card(self.trump)))  # KAN-53
        else:
            # KAN-57: deal 2 the deal-1 JK holder chooses, deal 3 the deal-1 jack holder; he
            # sees only his first three cards before naming trump.
            chooser = self.jk1 if self.deal_no == 2 else self.jack1
            self.first3 = sorted(int(c) for c in hands[chooser][:3])
            self.phase = TRUMP_PHASE
            self.to_act = chooser

    def _deal1_teams(self) -> None:
        """KAN-50 kankei (JK and trump-jack holders), KAN-51 nijō kan (holder + opposite)."""
        h_jk = self._holder(JK)
        h_jack = self._holder(13 * self.trump + 9)
        self.jk1, self.jack1 = h_jk, h_jack  # KAN-57 chooser roles (equal under nijō)
        if h_jk == h_jack:
            partner = self.occupant[nijo_partner_seat(self.seat_of[h_jk])]
            self.kankei = {h_jk, partner}
        else:
            self.kankei = {h_jk, h_jack}

    # ---- queries ----
    def _jk_ok(self) -> bool:
        """KAN-54 / KAN-58: may the player to act play JK to this trick?"""
        if self.tricks_done > 0:
            return True  # KAN-54: any trick, any turn
        if self.cfg.yonin_joker_trick1_contract == "any":
            return self.declared_now  # every JK in trick 1 needs his own contract
        return self.declared_now or bool(self.trick)  # "lead": only a JK lead needs one

    def legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == PLAY:
            lead = not self.trick
            forced = None
            if lead and self.deal_no == 1 and self.tricks_done == 0:
                forced = first_lead_card(self.trump)  # KAN-53
            return yonin_trick_legal_actions(self.hands[self.to_act],
                                             None if lead else self.led_suit,
                                             self._jk_ok(), forced)
        if ph == CONTRACT:  # KAN-56: ALL16 only in deals 2 and 3
            acts = [CONTRACT_NONE, CONTRACT_SKUNK]
            return acts + [CONTRACT_ALL16] if self.deal_no > 1 else acts
        if ph == TRUMP_PHASE:  # KAN-57: any suit
            return [TRUMP + s for s in range(4)]
        if ph == DECIDE:  # KAN-31 deals 2-3
            return [STOP, JUUROKU]
        return []

    def _summary_extra(self) -> dict:
        return {"contract": [self.contract, self.declarer], "first3": list(self.first3)}

    # ---- actions ----
    def _apply(self, action: int) -> None:
        ph = self.phase
        if ph == PLAY:
            self._play(action)
        elif ph == CONTRACT:
            if action != CONTRACT_NONE:  # KAN-56: the first declaration is the deal's contract
                self.contract = SKUNK if action == CONTRACT_SKUNK else ALL16
                self.declarer = self.to_act
                self.declared_now = True
            self.phase = PLAY  # then the same player plays his trick-1 card
        elif ph == TRUMP_PHASE:
            self.trump = action - TRUMP  # KAN-57, then the chooser leads trick 1
            self._start_trick(self.to_act)
        elif ph == DECIDE:
            if action == STOP:  # KAN-31: the deal ends
                self._end_deal(SUKONKU if self.pending == KANKEI else GYAKU_SUKONKU)
            else:  # JUUROKU / GYAKU_JUUROKU: committed to all 16 (KAN-32)
                self.juuroku = self.pending
                self.pending = None
                self._start_trick(self.leader)

    def _turn(self, player: int) -> None:
        """A player's turn in a trick: in trick 1, a contract decision first while none has
        been declared in this deal (KAN-56)."""
        self.to_act = player
        self.declared_now = False
        need_contract = self.tricks_done == 0 and self.contract == NO_CONTRACT
        self.phase = CONTRACT if need_contract else PLAY

    def _start_trick(self, leader: int) -> None:
        self.leader = leader
        self.trick = []
        self.led_suit = None
        self._turn(leader)

    def _play(self, action: int) -> None:
        """KAN-23, KAN-24, KAN-26, KAN-54: one card into the current trick."""
        p = self.to_act
        self._place_card(action)
        if len(self.trick) < self.n:
            self._turn(self._next_player(p))
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        """KAN-27 / KAN-54 winner, KAN-28 capture, then the KAN-30 end-of-trick checks."""
        winner = yonin_trick_winner(self.trick, self.led_suit, self.trump, self.tricks_done + 1)
        self._take_trick(winner)
        self.declared_now = False
        if self.contract == NO_CONTRACT:  # (c)-(e) as Gonin (KAN-59)
            self._undeclared_checks()
            return
        # (b) KAN-60: a contract is always resolved by trick 10
        outcome = contract_outcome(self.contract, self._team(self.declarer), self.points,
                                   self.deal_no)
        if outcome is not None:
            self._end_deal(outcome)
            return
        assert self.tricks_done < NUM_TRICKS
        self._start_trick(self.leader)

    def _seat_change(self) -> None:
        """KAN-55: adjacent kankei -> the right-hand one b swaps with the occupant of b + 1."""
        a, b = sorted(self.kankei)
        sa, sb = self.seat_of[a], self.seat_of[b]
        if sb == (sa + 1) % self.n:
            right = sb
        elif sa == (sb + 1) % self.n:
            right = sa
        else:
            return  # opposite (always so under nijō kan, KAN-51): no change
        other = (right + 1) % self.n
        pa, pb = self.occupant[right], self.occupant[other]
        self.occupant[right], self.occupant[other] = pb, pa
        self.seat_of[pa], self.seat_of[pb] = other, right

    def _end_deal(self, outcome: int) -> None:
        """KAN-61/62 scoring, KAN-14 round end, KAN-40 settlement, KAN-55, KAN-15."""
        self.last_points = list(self.points)
        self.last_outcome = outcome
        self.rk, self.rm = score_yonin_deal(self.rk, self.rm, outcome, self.deal_no, self.cfg)
        if outcome in KANKEI_WINS and self.deal_no < 3:  # KAN-14: same dealer deals again
            if self.deal_no == 1:
                self._seat_change()  # KAN-52: the kankei are now public; KAN-55
            self.deal_no += 1
            self.trump = -1  # named by the chooser after the deal (KAN-57)
            self._clear_deal()
            self.phase = DEAL
            return
        # Round end (KAN-14): every kankei adds Rk, every mukankei Rm (KAN-40, KAN-62).
        for p in range(self.n):
            self._scores[p] += self.rk if p in self.kankei else self.rm
        if self.round + 1 == self.cfg.n_rounds:  # KAN-9: the match stops here
            self.phase = OVER
            self.to_act = -1
            return
        self.round += 1
        # KAN-15: the occupant of the seat right of the previous dealer's current seat.
        self.dealer = self.occupant[(self.seat_of[self.dealer] + 1) % self.n]
        self._start_round()
