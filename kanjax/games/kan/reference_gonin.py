"""Plain-Python reference rules of Gonin Kan, 5 or 6 players (kan.md §0-9, §12-16).

Slow, obvious and independent of the JAX engine (`kanjax.games.kan.engine`): differential tests
replay the engine's matches through `GoninKanRef` and compare every step. Chance is supplied from
outside: `chance_kind()` says what is needed ("deal" / "nijuu"), `deal()` and `nijuu_exchange()`
supply it.

Conventions (kan.md §15): card id `c = 13*suit + (rank - 2)`, suits C D H S, JK = 52; action ids
as in `kanjax.games.kan.spec`. Players keep their identity; seats move (KAN-7). Team index:
0 = kankei, 1 = mukankei.

Interpretations the rules leave open:
- At a chance node the state already describes the deal about to be dealt: hands empty,
  points 0, deal number advanced, trump -1 for deals 2/3 (KAN-36/37 not yet named).
- After the last round the match simply stops: the final deal's state (unplayed cards, points,
  trump, kankei, round, deal, dealer, and the final round's Rk/Rm) stays as it ended; only the
  match scores include the settlement of the last round (KAN-9, KAN-40).
- While the KAN-18 exchange is pending, the kankei are already known: H and his partner P.
- With `nijuu_kan_redeal` (KAN-70) the thrown-in hands are removed (hand_owner -1 everywhere).
"""

from __future__ import annotations

from kanjax.games.kan.reference_common import (
    KANKEI,
    MUKANKEI,
    KanMatchRef,
    check_hands,
)
from kanjax.games.kan.spec import (
    GYAKU_JUUROKU_FAIL,
    GYAKU_JUUROKU_OK,
    GYAKU_SUKONKU,
    IKU,
    JK,
    JUUROKU,
    JUUROKU_FAIL,
    JUUROKU_OK,
    KANKEI_WINS,
    KOI,
    LEAD_JK,
    NORMAL_LOSS,
    NORMAL_WIN,
    SHIPPO_CALL,
    SHIPPO_NO_CALL,
    SHIPPO_VOID,
    SIGNAL_F1,
    SIGNAL_F4,
    SIGNAL_F5,
    STOP,
    SUKONKU,
    TRUMP,
    KanConfig,
    deck,
)

GONIN_DECK = frozenset(deck("gonin_kan").ids)  # KAN-1: 50 cards, no 2C 2D 2H
ACES = (12, 25, 38, 51)  # AC AD AH AS
SHIPPO_CARDS = ACES + (JK,)  # KAN-71: the four aces and JK

# Phases (one decision kind each).
DEAL, NIJUU, IKU_KOI, SIGNAL_PHASE, TRUMP_PHASE, PLAY, SHIPPO, DECIDE, OVER = range(9)


# ---- pure rule helpers ---------------------------------------------------------------------
def suit_of(card: int) -> int:
    """0..3 for C D H S; 4 for JK (KAN-4: the joker belongs to no suit)."""
    return card // 13


def poh(trump: int) -> int:
    """The ace of trumps (KAN-17)."""
    return 13 * trump + 12


def deal1_trump(round_index: int, n_rounds: int) -> int:
    """KAN-11: C D H C D H ...; the final round (Tome Suppe) is spades."""
    return 3 if round_index == n_rounds - 1 else round_index % 3


def trick_legal_actions(hand, trick_no: int, led_suit: int | None) -> list[int]:
    """Legal trick-play actions for `hand` in trick `trick_no` (1..10), sorted.

    `led_suit` is None when the player leads. KAN-24 (follow suit), KAN-25 (JK never in tricks 1
    and 10; forced in trick 9), KAN-26 (a JK lead names a suit: four actions 53..56).
    """
    has_jk = JK in hand
    if has_jk and trick_no == 9:  # KAN-25 odori ban: JK is the only legal card
        return [LEAD_JK + s for s in range(4)] if led_suit is None else [JK]
    jk_ok = has_jk and 2 <= trick_no <= 9  # KAN-25 (trick 9 handled above)
    plain = [c for c in hand if c != JK]
    if led_suit is None:
        acts = sorted(plain)
        if jk_ok:
            acts += [LEAD_JK + s for s in range(4)]  # KAN-26
        return acts
    follow = [c for c in plain if suit_of(c) == led_suit]  # KAN-24
    acts = sorted(follow if follow else plain)
    if jk_ok:
        acts.append(JK)  # KAN-25: JK at any turn in tricks 2..9, following or not
    return acts


def trick_winner(plays: list[tuple[int, int]], led_suit: int, trump: int) -> int:
    """KAN-27: JK; else the highest trump; else the highest card of the led suit.

    `plays` is [(player, card)] in play order; returns the winning player.
    """
    for player, card in plays:
        if card == JK:
            return player
    trumps = [(card, player) for player, card in plays if suit_of(card) == trump]
    if trumps:
        return max(trumps)[1]  # strength within a suit = card id order (§15)
    return max((card, player) for player, card in plays if suit_of(card) == led_suit)[1]


# KAN-41 / KAN-42: event -> (kankei, mukankei). GS1, GS23, GJOK are "set", the rest "add".
STANDARD_TABLE = {
    "W": (1, -1), "L": (-1, 1), "B": (1, -1), "GS1": (-10, 10), "GS23": (-3, 3),
    "JOK": (8, -8), "JF": (-16, 16), "GJOK": (-16, 16), "GJF": (32, -32), "W3": (1, -1),
}
ZERO_SUM_TABLE = {
    "W": (3, -2), "L": (-3, 2), "B": (3, -2), "GS1": (-12, 8), "GS23": (-6, 4),
    "JOK": (15, -10), "JF": (-30, 20), "GJOK": (-15, 10), "GJF": (30, -20), "W3": (3, -2),
}


def score_deal(rk: int, rm: int, outcome: int, deal_no: int, config: KanConfig) -> tuple[int, int]:
    """KAN-44: the round accumulators (Rk, Rm) after a deal with `outcome` (KAN-40..KAN-43)."""
    zero_sum = config.scoring == "zero_sum_5p"
    table = ZERO_SUM_TABLE if zero_sum else STANDARD_TABLE

    def add(event):
        nonlocal rk, rm
        rk, rm = rk + table[event][0], rm + table[event][1]

    def set_(event):
        nonlocal rk, rm
        rk, rm = table[event]

    if outcome == NORMAL_WIN:
        add("W")
    elif outcome == NORMAL_LOSS:
        add("L")
    elif outcome == SUKONKU:
        add("W")
        add("B")
    elif outcome == GYAKU_SUKONKU:
        set_("GS1" if deal_no == 1 else "GS23")
    elif outcome == JUUROKU_OK:
        add("W")
        add("JOK")
    elif outcome == JUUROKU_FAIL:
        add("L")
        add("JF")  # KAN-41 DECISION: JF comes with the lost deal (-17 in all)
    elif outcome == GYAKU_JUUROKU_OK:
        set_("GJOK")
    elif outcome == GYAKU_JUUROKU_FAIL:
        add("W")
        if config.gyaku_juuroku_fail_doubling or zero_sum:  # KAN-43 (zero-sum always doubles)
            rk, rm = 2 * rk, 2 * rm
        add("GJF")
    else:
        raise ValueError(f"outcome {outcome} is not scored")
    if deal_no == 3 and outcome in KANKEI_WINS:
        add("W3")  # KAN-41 W3 / KAN-43: after any doubling, not doubled
    return rk, rm


# ---- the state machine -----------------------------------------------------------------------
class GoninKanRef(KanMatchRef):
    """One Gonin Kan match (KAN-9), driven by `apply` and by externally supplied chance."""

    CHANCE = {DEAL: "deal", NIJUU: "nijuu"}
    OVER, PLAY, DECIDE = OVER, PLAY, DECIDE

    def __init__(self, config: KanConfig):
        if config.variant != "gonin" or config.players not in (5, 6):
            raise ValueError(f"GoninKanRef plays 5/6-player Gonin Kan, not {config}")
        self.cfg = config
        self.n = config.players
        self._start_match()
        self._start_round()

    # ---- setup helpers ----
    def _start_round(self) -> None:
        self.deal_no = 1
        self.rk = self.rm = 0  # KAN-40
        self.trump = deal1_trump(self.round, self.cfg.n_rounds)  # KAN-11
        self.kankei: set[int] = set()
        self.jk1 = self.ace1 = -1  # KAN-19 deal-1 joker / ace holders
        self.nijuu = [-1, -1]
        self._clear_deal()
        self.phase = DEAL

    def _clear_deal(self) -> None:
        self.hands: list[set[int]] = [set() for _ in range(self.n)]
        self.points = [0, 0]  # [kankei, mukankei] point cards captured (KAN-28)
        self.tricks_done = 0
        self.trick: list[tuple[int, int]] = []  # (player, card) in play order
        self.led_suit: int | None = None
        self.leader = -1
        self.to_act = -1
        self.juuroku: int | None = None  # team committed to all 16 (KAN-32)
        self.pending: int | None = None  # team meeting the sukonku condition (KAN-31)
        self.shippo_offered = False
        self.shippo_by: dict[int, int] = {}  # card of SHIPPO_CARDS -> player who played it
        self.iku_order: list[int] = []
        self.iku_choices: list[int] = []
        self.nijuu_pair: tuple[int, int] | None = None

    # ---- seats (KAN-5, KAN-6) ----
    def _next_seat(self, seat: int) -> int:
        """KAN-6 next(s): the next active seat to the right (+1); 6p skips the dealer's seat."""
        s = (seat + 1) % self.n
        if self.n == 6 and s == self.seat_of[self.dealer]:
            s = (s + 1) % self.n
        return s

    def _next_player(self, player: int) -> int:
        return self.occupant[self._next_seat(self.seat_of[player])]

    def _team(self, player: int) -> int:
        return KANKEI if player in self.kankei else MUKANKEI

    def _holder(self, card: int) -> int:
        for p, hand in enumerate(self.hands):
            if card in hand:
                return p
        raise AssertionError(f"card {card} not in any hand")

    # ---- chance ----
    def deal(self, hands: list[list[int]]) -> None:
        """KAN-8: every active player gets 10 cards; the 6-player dealer none (KAN-6)."""
        if self.phase != DEAL:
            raise ValueError("deal(): no deal is pending")
        check_hands(hands, self.n, GONIN_DECK, "Gonin",
                    self.dealer if self.n == 6 else None)
        self._clear_deal()
        self.hands = [set(int(c) for c in h) for h in hands]
        if self.deal_no == 1:
            self.nijuu = [-1, -1]
            self._kan()
        else:
            # KAN-36 / KAN-37: deal 2 the ace holder signals, the joker holder chooses;
            # deal 3 the other way round.
            self.phase = SIGNAL_PHASE
            self.to_act = self.ace1 if self.deal_no == 2 else self.jk1

    def _kan(self) -> None:
        """KAN-17 (kankei), KAN-70 (redeal) / KAN-18 (nijū kan)."""
        holder_jk, holder_poh = self._holder(JK), self._holder(poh(self.trump))
        if holder_jk == holder_poh:
            if self.cfg.nijuu_kan_redeal:  # KAN-70: throw in, same dealer redeals deal 1
                self._clear_deal()
                self.kankei = set()
                self.phase = DEAL
                return
            partner = self._next_player(self._next_player(holder_jk))  # KAN-18
            self.kankei = {holder_jk, partner}
            self.nijuu_pair = (holder_jk, partner)
            self.phase = NIJUU
            return
        self.kankei = {holder_jk, holder_poh}
        self.jk1, self.ace1 = holder_jk, holder_poh  # KAN-19
        self._seat_change_and_iku()

    def nijuu_exchange(self, c: int, x: int) -> None:
        """KAN-18: H loses x (JK or poh) and gains c; P loses c and gains x."""
        if self.phase != NIJUU:
            raise ValueError("nijuu_exchange(): no nijū kan exchange is pending")
        h, p = self.nijuu_pair
        if x not in (JK, poh(self.trump)):
            raise ValueError(f"nijuu_exchange(): x={x} must be JK or the trump ace")
        if c not in self.hands[p]:
            raise ValueError(f"nijuu_exchange(): c={c} is not in the partner's hand")
        self.hands[h].remove(x)
        self.hands[h].add(c)
        self.hands[p].remove(c)
        self.hands[p].add(x)
        self.nijuu = [c, x]
        self.jk1, self.ace1 = (p, h) if x == JK else (h, p)  # KAN-19
        self.nijuu_pair = None
        self._seat_change_and_iku()

    def _seat_change_and_iku(self) -> None:
        """KAN-20 seat change, then KAN-21 iku/koi (default leader first)."""
        k1, k2 = sorted(self.kankei)
        s1, s2 = self.seat_of[k1], self.seat_of[k2]
        right = None  # the right-hand kankei's seat b, with b = next(a)
        if self._next_seat(s1) == s2:
            right = s2
        elif self._next_seat(s2) == s1:
            right = s1
        if right is not None:  # KAN-20: b <-> the mukankei in next(b); exactly one swap
            other = self._next_seat(right)
            pa, pb = self.occupant[right], self.occupant[other]
            self.occupant[right], self.occupant[other] = pb, pa
            self.seat_of[pa], self.seat_of[pb] = other, right
        # KAN-21 default leader: the kankei with two mukankei on his right.
        default = [
            k for k in (k1, k2)
            if self._next_player(k) not in self.kankei
            and self._next_player(self._next_player(k)) not in self.kankei
        ]
        assert len(default) == 1, "KAN-20 leaves exactly one default leader"
        other_k = k2 if default[0] == k1 else k1
        self.iku_order = [default[0], other_k]
        self.iku_choices = []
        self.phase = IKU_KOI
        self.to_act = default[0]

    # ---- queries ----
    def legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == PLAY:
            return trick_legal_actions(self.hands[self.to_act], self.tricks_done + 1,
                                       self.led_suit)
        if ph == IKU_KOI:
            return [IKU, KOI]
        if ph == SIGNAL_PHASE:  # KAN-38 (156 forms), KAN-73 (tournament: F1-F3 only)
            return list(range(SIGNAL_F1, SIGNAL_F4 if self.cfg.tournament_signals
                              else SIGNAL_F5 + 1))
        if ph == TRUMP_PHASE:  # KAN-39: any suit
            return [TRUMP + s for s in range(4)]
        if ph == DECIDE:  # KAN-31 deals 2-3
            return [STOP, JUUROKU]
        if ph == SHIPPO:  # KAN-71
            return [SHIPPO_CALL, SHIPPO_NO_CALL]
        return []

    def _summary_extra(self) -> dict:
        return {"nijuu": list(self.nijuu)}

    # ---- actions ----
    def _apply(self, action: int) -> None:
        ph = self.phase
        if ph == PLAY:
            self._play(action)
        elif ph == IKU_KOI:
            self._iku_koi(action)
        elif ph == SIGNAL_PHASE:
            # KAN-38: the signal binds nobody and changes no state; the chooser names trump.
            self.phase = TRUMP_PHASE
            self.to_act = self.jk1 if self.deal_no == 2 else self.ace1
        elif ph == TRUMP_PHASE:
            self.trump = action - TRUMP  # KAN-39, then the chooser leads trick 1
            self._start_trick(self.to_act)
        elif ph == DECIDE:
            if action == STOP:  # KAN-31: the deal ends
                self._end_deal(SUKONKU if self.pending == KANKEI else GYAKU_SUKONKU)
            else:  # JUUROKU / GYAKU_JUUROKU: committed to all 16 (KAN-32)
                self.juuroku = self.pending
                self.pending = None
                self._start_trick(self.leader)
        elif ph == SHIPPO:
            if action == SHIPPO_CALL:  # KAN-71: void deal, same dealer redeals it
                self._end_deal(SHIPPO_VOID)
            else:
                self._undeclared_checks()

    def _iku_koi(self, action: int) -> None:
        """KAN-21: exactly one IKU leads; otherwise the default leader leads."""
        self.iku_choices.append(action)
        if len(self.iku_choices) == 1:
            self.to_act = self.iku_order[1]
            return
        default, other = self.iku_order
        first, second = self.iku_choices
        leader = other if (first == KOI and second == IKU) else default
        self._start_trick(leader)

    def _play(self, action: int) -> None:
        """KAN-23..KAN-26: one card into the current trick."""
        p = self.to_act
        card = self._place_card(action)
        if card in SHIPPO_CARDS:
            self.shippo_by[card] = p
        if len(self.trick) < 5:
            self.to_act = self._next_player(p)
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        """KAN-27 winner, KAN-28 capture, then the KAN-30 end-of-trick checks."""
        winner = trick_winner(self.trick, self.led_suit, self.trump)
        self._take_trick(winner)
        # (a) Shippo-Jo, KAN-71: offered once, when all four aces and JK have been played by
        # members of one team; the decider is the first player of the other team in play order
        # starting with the trick winner.
        if (self.cfg.shippo_jo and not self.shippo_offered
                and len(self.shippo_by) == len(SHIPPO_CARDS)):
            teams = {self._team(p) for p in self.shippo_by.values()}
            if len(teams) == 1:
                self.shippo_offered = True
                calling = 1 - teams.pop()
                decider = winner
                while self._team(decider) != calling:
                    decider = self._next_player(decider)
                self.phase = SHIPPO
                self.to_act = decider
                return
        self._undeclared_checks()

    def _end_deal(self, outcome: int) -> None:
        """KAN-44 scoring, KAN-14 round end, KAN-40 settlement, KAN-15 next dealer."""
        self.last_points = list(self.points)
        self.last_outcome = outcome
        if outcome == SHIPPO_VOID:  # KAN-71: nothing scored; same deal number redealt
            self._clear_deal()
            if self.deal_no == 1:  # KAN-17..21 redone from the new cards; seats stay
                self.kankei = set()
                self.jk1 = self.ace1 = -1
            else:
                self.trump = -1  # KAN-39 trump is chosen again
            self.phase = DEAL
            return
        self.rk, self.rm = score_deal(self.rk, self.rm, outcome, self.deal_no, self.cfg)
        if outcome in KANKEI_WINS and self.deal_no < 3:  # KAN-14: same dealer deals again
            self.deal_no += 1
            self.trump = -1
            self._clear_deal()
            self.phase = DEAL
            return
        # Round end (KAN-14): every kankei, and the 6-player dealer, adds Rk; mukankei Rm.
        for p in range(self.n):
            dealer_kankei = self.n == 6 and p == self.dealer  # KAN-17, KAN-40
            self._scores[p] += self.rk if (p in self.kankei or dealer_kankei) else self.rm
        if self.round + 1 == self.cfg.n_rounds:  # KAN-9: the match stops here
            self.phase = OVER
            self.to_act = -1
            return
        self.round += 1
        # KAN-15: the occupant of the seat right of the previous dealer's current seat.
        self.dealer = self.occupant[(self.seat_of[self.dealer] + 1) % self.n]
        self._start_round()
