"""Plain-Python reference rules of Da Bai Fen (da_bai_fen.md, DBF-1..43, V1..V13).

Slow, obvious and independent of the JAX engine: differential tests replay the engine's games
through `DbfRef` and compare every step. Card ids, action ids, phases, outcomes and the config
come from `kanjax.games.da_bai_fen.spec` (data only); every rule is written here.

Use: `DbfRef(config)`; while `needs_deal` is True it waits for `deal(order)`, the shuffled deck
order of the next hand (a permutation of the 54 ids; card k of it is drawn by seat (S+k) mod 4,
the last six are the kitty, DBF-11); then `legal_actions()`, `step(action)`, `facts()` (the
summary the harness compares), `scores()`, `terminal`. `DbfRef.from_position(...)` builds a
trick-play position. Its rules kernels are plain functions (`Ranking`: trumps,
effective suits, strength; `valid_multilead`, `follow_fits`, `trick_winner`, `table_result`).

Where the rules leave the implementer a choice (the state between hands, exposure and claims
(DBF-12/13/18/19/43), who becomes L (DBF-15/16/22), picks and the discard (DBF-17), leads and
multi-lead validity (DBF-21/23/24), Dun follows (V8, V9), the hook (V13, DBF-38/39), V12 and
V5, the game's end (DBF-36/37)), the reference's decisions are listed in
docs/reference-conventions.md.
"""

from __future__ import annotations

import dataclasses
import functools
import operator

from kanjax.core.reference_helpers import hand_owner
from kanjax.games.da_bai_fen.spec import (
    BJ,
    CARD_POINTS,
    CLAIM,
    CLAIMED,
    DECK,
    EXPOSE,
    FIRST_HAND,
    KITTY_SIZE,
    LATER_HAND,
    LEVEL_J,
    LOC_DECK,
    LOC_KITTY,
    LOC_TRICK,
    LOC_WON,
    NO_EXPOSER,
    NO_OUTCOME,
    NORMAL,
    NUM_CARDS,
    NUM_DRAWN,
    NUM_PLAYERS,
    NUM_SUITS,
    OPEN_DEAL,
    PASS,
    PENALTY,
    PHASE_CLAIM,
    PHASE_DEAL,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FINAL_PASS,
    PHASE_OVER,
    PHASE_PLAY,
    PICK,
    PLAY,
    RANK_2,
    RANK_5,
    RANK_J,
    RANK_K,
    RANK_T,
    RJ,
    TIE,
    TOTAL_POINTS,
    DbfConfig,
    action_name,
    card_id,
    level_rank,
    rank_of,
    suit_of,
    team_of,
)

TRUMP = 4  # the effective suit of every trump (DBF-5; §7's eff_suit 4)
PROTECTED_RANKS = (RANK_K, RANK_T, RANK_5)  # V9


# ---- the card order of a hand (DBF-5..8, V6) --------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Ranking:
    """Trumps, effective suits and strengths of a hand with trump rank index `rank` (R - 2)
    and trump suit `suit`."""

    rank: int
    suit: int
    yuan_zhu: bool = False

    @property
    def two_is_trump(self) -> bool:
        """V6: 2s are permanent trumps (with a tier of their own) when R is not 2."""
        return self.yuan_zhu and self.rank != RANK_2

    def is_trump(self, card: int) -> bool:
        """DBF-5: jokers, rank R, suit T (and yuan-zhu 2s)."""
        r = rank_of(card)
        return (card >= BJ or r == self.rank or suit_of(card) == self.suit
                or (self.two_is_trump and r == RANK_2))

    def eff_suit(self, card: int) -> int:
        """DBF-5: TRUMP for a trump, else the printed suit."""
        return self._eff_suits[card]

    @functools.cached_property
    def _eff_suits(self) -> tuple[int, ...]:
        """`eff_suit` of every card id, worked out once per ranking (the tests' oracle asks
        for it millions of times)."""
        return tuple(TRUMP if self.is_trump(c) else suit_of(c) for c in range(NUM_CARDS))

    def strength(self, card: int) -> int:
        """DBF-6, V6: higher is stronger; equal for the off-suit rank-R cards (and the off-suit
        yuan-zhu 2s). Only cards of one effective suit are ever compared."""
        r, s = rank_of(card), suit_of(card)
        if card == RJ:
            return 100
        if card == BJ:
            return 99
        if r == self.rank:
            return 98 if s == self.suit else 97
        if self.two_is_trump and r == RANK_2:
            return 96 if s == self.suit else 95
        return r  # A high (12) ... 2 low (0), rank R skipped by the cases above

    def beats(self, x: int, y: int) -> bool:
        """DBF-8: same effective suit and strictly stronger."""
        return self.eff_suit(x) == self.eff_suit(y) and self.strength(x) > self.strength(y)

    def top(self, cards) -> int:
        """The strongest card of a play (DBF-26)."""
        return max(cards, key=self.strength)

    def quad_key(self, rank: int) -> int:
        """V8: rank R's quad > (yuan zhu) the 2s' quad > A > K > ... > 3 (> 2)."""
        if rank == self.rank:
            return 100
        if self.two_is_trump and rank == RANK_2:
            return 99
        return rank


_ranking = functools.cache(Ranking)  # one Ranking (and its tables) per rank, suit, flag


def is_quad(cards) -> bool:
    """Four cards of one printed rank, one per suit (no joker): V8's four-of-a-kind."""
    ranks = {rank_of(c) for c in cards}
    return len(cards) == 4 and len(ranks) == 1 and -1 not in ranks


def quads_in(hand) -> list[frozenset[int]]:
    """The four-of-a-kinds a hand holds."""
    quads = [frozenset(card_id(s, r) for s in range(NUM_SUITS)) for r in range(13)]
    return [q for q in quads if q <= set(hand)]


def points_of(cards) -> int:
    """DBF-2."""
    return sum(CARD_POINTS[c] for c in cards)


# ---- leads, follows, the trick (DBF-21..27, V8) -----------------------------------------------
def valid_multilead(lead, others, ranking: Ranking) -> bool:
    """DBF-23: no card held by the other three players beats any led card."""
    return not any(ranking.beats(x, y) for x in others for y in lead)


def same_eff_suit(cards, ranking: Ranking) -> bool:
    return len({ranking.eff_suit(c) for c in cards}) == 1


def follow_fits(selection, hand, lead, ranking: Ranking, dun: bool) -> bool:
    """DBF-25 / V8: is `selection` (cards of `hand`) part of some legal follow to `lead`?

    DBF-25 with k cards of the led effective suit: a legal follow holds min(k, n) of them and
    n - min(k, n) others, so a selection fits iff it has at most n cards and at most
    n - min(k, n) cards outside the suit (the rest can always be filled from the hand).
    V8: a follower with a four-of-a-kind plays one; else he follows as to 4 trumps."""
    n = len(lead)
    if dun:
        quads = quads_in(hand)
        if quads:
            return any(set(selection) <= q for q in quads)
        led = TRUMP
    else:
        led = ranking.eff_suit(next(iter(lead)))
    k = sum(1 for c in hand if ranking.eff_suit(c) == led)
    outside = sum(1 for c in selection if ranking.eff_suit(c) != led)
    return len(selection) <= n and outside <= n - min(k, n)


def trick_winner(plays: list[frozenset[int]], ranking: Ranking, dun: bool) -> tuple[int, int]:
    """DBF-26 / V8: (index of the winning play, the rank index of the card it won by, DBF-38).

    Ties of equal strength go to the earlier play (DBF-8)."""
    if dun:  # V8: only quads compete; the highest wins (distinct ranks: no ties)
        quads = [i for i, p in enumerate(plays) if is_quad(p)]
        best = max(quads, key=lambda i: ranking.quad_key(rank_of(min(plays[i]))))
        return best, rank_of(min(plays[best]))
    all_trump = [i for i, p in enumerate(plays) if all(ranking.is_trump(c) for c in p)]
    if all_trump:  # (a) trump led: the lead is one; (b) a follower trumped
        best = max(all_trump, key=lambda i: (ranking.strength(ranking.top(plays[i])), -i))
        return best, rank_of(ranking.top(plays[best]))
    led = ranking.eff_suit(min(plays[0]))  # (b) no trumping: the strongest led-suit card

    def led_top(i: int) -> int:
        return max((ranking.strength(c) for c in plays[i] if ranking.eff_suit(c) == led),
                   default=-1)

    best = max(range(len(plays)), key=lambda i: (led_top(i), -i))
    return best, rank_of(max((c for c in plays[best] if ranking.eff_suit(c) == led),
                             key=ranking.strength))


# ---- scoring (DBF-31, DBF-34, V12) ------------------------------------------------------------
def table_result(p: int, step20: bool) -> tuple[int, int, bool]:
    """DBF-31 / DBF-34: (declarers' gain, opponents' gain, declarers stay) for opponents'
    points P."""
    if step20:
        if p == 0:
            return 3, 0, True
        if p <= 15:
            return 2, 0, True
        if p <= 35:
            return 1, 0, True
        return 0, (p - 40) // 20, False
    if p == 0:
        return 2, 0, True
    if p <= 35:
        return 1, 0, True
    if p <= 75:
        return 0, 0, False
    if p <= 95:
        return 0, 1, False
    return 0, 2, False


def last_trick_gain(trick_points: int) -> int:
    """V12: the opponents' gain by their trick points when they win the last trick."""
    if trick_points < 40:
        return 0
    return 1 if trick_points < 80 else 2


# ---- the game ---------------------------------------------------------------------------------
class DbfRef:
    """One game of Da Bai Fen, driven by `step` and by `deal` (chance from outside)."""

    def __init__(self, config: DbfConfig | None = None):
        self.cfg = config or DbfConfig()
        self.levels = [self.cfg.start_level] * 2  # DBF-3, by team
        self.hands_played = 0
        self.winner = -1  # the winning team at the end; -1 while running or on a draw
        self.outcome = NO_OUTCOME  # of the last ended hand
        self.P = -1  # the last scored hand's opponents' points (DBF-30)
        self.hook = False  # whether the last scored hand was hooked (V13)
        self.kitty_bonus = [0, 0]  # the last hand's DBF-29 bonus, by team
        self.last_points = [0, 0]  # the last ended hand's trick points, by team
        self.last_protected = 0  # ... its V9 protected points
        self.last_kitty: list[int] = []  # ... and its kitty
        self.turn_done = True
        self._legal: list[int] | None = None  # legal_actions(), until the next deal or step
        self._new_hand(FIRST_HAND, self.cfg.first_starter, -1)  # DBF-15, DBF-43

    # ---- hand setup -----------------------------------------------------------------------
    def _new_hand(self, kind: int, starter: int, declaring: int) -> None:
        """The next hand's header (DBF-15/16/22, DBF-33) and an empty table; a deal is awaited."""
        self.kind, self.starter, self.declaring = kind, starter, declaring
        if kind == FIRST_HAND:
            self.trump_level = self.cfg.start_level
        elif kind == LATER_HAND:
            self.trump_level = self.levels[declaring]
        else:  # an open deal: R comes with the exposure (DBF-22)
            self.trump_level = -1
        self.leader = starter if kind == LATER_HAND else -1
        self.trump_suit = -1
        self.exposer = self.exposed = -1
        self.order: list[int] = []
        self.drawn = self.final_index = self.claim_index = self.turned = 0
        self.hands: list[set[int]] = [set() for _ in range(NUM_PLAYERS)]
        self.kitty: list[int] = []
        self.selection: set[int] = set()
        self.trick: list[tuple[int, frozenset[int]]] = []  # (seat, cards) in play order
        self.trick_leader = -1
        self.dun = False  # whether the current trick is a Dun (V8)
        self.winners: list[int] = []
        self.won: list[set[int]] = [set(), set()]  # cards of the tricks each team won
        self.points = [0, 0]  # trick points taken, by team (DBF-28)
        self.protected = 0  # V9 points counted for nobody
        self.phase = PHASE_DEAL
        self.to_act = -1

    @property
    def needs_deal(self) -> bool:
        return self.phase == PHASE_DEAL

    def deal(self, order) -> None:
        """DBF-11: the shuffled deck order of the awaited hand; the draw starts."""
        if not self.needs_deal:
            raise ValueError("deal(): no deal is awaited")
        order = [operator.index(c) for c in order]
        if sorted(order) != list(range(NUM_CARDS)):
            raise ValueError(f"deal(): the order must be a permutation of the {NUM_CARDS} card "
                             f"ids, got {order}")
        self.order = order
        self.kitty = order[NUM_DRAWN:]  # kept in that order, face down
        self._continue_draw()
        self._legal = None

    # ---- the draw and exposures (DBF-11..16, DBF-22, DBF-43) -------------------------------
    def ranking(self) -> Ranking:
        """The card order of the current hand (once R and T are fixed)."""
        return _ranking(level_rank(self.trump_level), self.trump_suit, self.cfg.yuan_zhu)

    def _exposable_suits(self, seat: int) -> list[int]:
        """The suits of the cards `seat` may expose now: rank R, in an open deal rank of its
        own team's level (DBF-22); none once somebody exposed (DBF-12)."""
        if self.exposer >= 0:
            return []
        level = self.levels[team_of(seat)] if self.kind == OPEN_DEAL else self.trump_level
        r = level_rank(level)
        return [s for s in range(NUM_SUITS) if card_id(s, r) in self.hands[seat]]

    def _continue_draw(self) -> None:
        """DBF-11/13: draw until a seat that may expose has drawn; then the final pass."""
        while self.drawn < NUM_DRAWN:
            seat = (self.starter + self.drawn) % NUM_PLAYERS
            self.hands[seat].add(self.order[self.drawn])
            self.drawn += 1
            if self._exposable_suits(seat):
                self.phase, self.to_act = PHASE_DRAW, seat
                return
        while self.final_index < NUM_PLAYERS:
            seat = (self.starter + self.final_index) % NUM_PLAYERS
            self.final_index += 1
            if self._exposable_suits(seat):
                self.phase, self.to_act = PHASE_FINAL_PASS, seat
                return
        self._after_draw()

    def _expose(self, seat: int, suit: int) -> None:
        """DBF-12: the first exposure fixes T (and L in a first hand or an open deal)."""
        level = self.levels[team_of(seat)] if self.kind == OPEN_DEAL else self.trump_level
        self.exposer, self.exposed = seat, card_id(suit, level_rank(level))
        self.trump_suit = suit
        if self.kind == OPEN_DEAL:  # DBF-22: R is the exposer's team's level
            self.trump_level = level
        if self.kind != LATER_HAND:  # DBF-15, DBF-22: the exposer leads, his team declares
            self.leader, self.declaring = seat, team_of(seat)

    def _after_draw(self) -> None:
        """DBF-22 (no exposer: annulled), DBF-14 (kitty turning), then the kitty pickup."""
        if self.exposer < 0:
            if self.kind == OPEN_DEAL:
                self._end_hand(NO_EXPOSER, OPEN_DEAL, (self.starter + 1) % NUM_PLAYERS, -1)
                return
            self._turn_kitty()
            if self.kind == FIRST_HAND:  # DBF-15: L = S, his team declares
                self.leader, self.declaring = self.starter, team_of(self.starter)
        self._pickup()

    def _turn_kitty(self) -> None:
        """DBF-14: the first rank-R card stops the turning; else the highest non-joker rank
        (the earlier of equal ranks) names T."""
        r = level_rank(self.trump_level)
        for i, c in enumerate(self.kitty):
            if rank_of(c) == r:
                self.turned, self.trump_suit = i + 1, suit_of(c)
                return
        self.turned = KITTY_SIZE
        best = max(range(KITTY_SIZE), key=lambda i: (rank_of(self.kitty[i]), -i))
        self.trump_suit = suit_of(self.kitty[best])

    def _pickup(self) -> None:
        """DBF-17: L takes the six (V11: only with a plain card of suit T among them)."""
        if self.cfg.changchun_kitty and not any(self._changchun_card(c) for c in self.kitty):
            self._start_claims()
            return
        self.hands[self.leader] |= set(self.kitty)
        self.kitty = []
        self.phase, self.to_act = PHASE_DISCARD, self.leader

    def _changchun_card(self, card: int) -> bool:
        """V11: of suit T, not a joker, not rank R, not a yuan-zhu 2."""
        r = rank_of(card)
        return (suit_of(card) == self.trump_suit and r != level_rank(self.trump_level)
                and not (self.cfg.yuan_zhu and r == RANK_2))

    # ---- claims (DBF-18/19) ------------------------------------------------------------------
    def _start_claims(self) -> None:
        self.claim_index = 0
        self._next_claim()

    def _next_claim(self) -> None:
        """Seats L..L+3 in turn; only a seat without trumps decides (DBF-43)."""
        ranking = self.ranking()
        while self.claim_index < NUM_PLAYERS:
            seat = (self.leader + self.claim_index) % NUM_PLAYERS
            self.claim_index += 1
            if not any(ranking.is_trump(c) for c in self.hands[seat]):
                self.phase, self.to_act = PHASE_CLAIM, seat
                return
        self._start_trick(self.leader)  # DBF-20

    # ---- play (DBF-20..28) -------------------------------------------------------------------
    def _start_trick(self, leader: int) -> None:
        self.phase, self.to_act, self.trick_leader = PHASE_PLAY, leader, leader
        self.trick, self.selection, self.dun = [], set(), False

    def _others(self, seat: int) -> set[int]:
        return set().union(*(self.hands[p] for p in range(NUM_PLAYERS) if p != seat))

    def _is_dun(self, cards) -> bool:
        """V8, DBF-40."""
        return self.cfg.jilin_dun and is_quad(cards)

    def _whole_lead(self, cards) -> bool:
        """DBF-21/23/24, V8: may `cards` be led as they are?"""
        if len(cards) == 1 or self._is_dun(cards):
            return True
        ranking = self.ranking()
        if not same_eff_suit(cards, ranking):
            return False
        return (self.cfg.invalid_multilead == "penalty"
                or valid_multilead(cards, self._others(self.to_act), ranking))

    def _lead_fits(self, cards) -> bool:
        """Is `cards` part of some legal lead from the leader's hand?"""
        hand = self.hands[self.to_act]
        if self.cfg.jilin_dun and any(set(cards) <= q for q in quads_in(hand)):
            return True
        return self._whole_lead(cards)  # a multi-lead's validity only shrinks with more cards

    def _play_legal(self) -> list[int]:
        hand, sel = self.hands[self.to_act], self.selection
        if not self.trick:  # leading
            picks = [PICK + c for c in sorted(hand - sel) if self._lead_fits(sel | {c})]
            return picks + ([PLAY] if sel and self._whole_lead(sel) else [])
        lead = self.trick[0][1]
        ranking = self.ranking()
        return [PICK + c for c in sorted(hand - sel)
                if follow_fits(sel | {c}, hand, lead, ranking, self.dun)]

    def _close_play(self) -> None:
        """The selection becomes the mover's play; an invalid multi-lead ends the hand (DBF-24);
        the fourth play ends the trick."""
        seat, cards = self.to_act, frozenset(self.selection)
        leading = not self.trick
        invalid = (leading and len(cards) > 1 and not self._is_dun(cards)
                   and not valid_multilead(cards, self._others(seat), self.ranking()))
        self.hands[seat] -= cards
        self.trick.append((seat, cards))
        self.selection = set()
        if leading:
            self.dun = self._is_dun(cards)
        if invalid:
            self._score_penalty(team_of(seat))
        elif len(self.trick) < NUM_PLAYERS:
            self.to_act = (seat + 1) % NUM_PLAYERS
        else:
            self._finish_trick()

    def _finish_trick(self) -> None:
        """DBF-26/28, V9; the winner leads next (DBF-20) or the hand is scored."""
        ranking = self.ranking()
        plays = [cards for _, cards in self.trick]
        best, won_by = trick_winner(plays, ranking, self.dun)
        winner = self.trick[best][0]
        team = team_of(winner)
        protected = 0
        if self.dun and self.cfg.dun_points_protected and team != self.declaring:
            protected = sum(points_of(p) for p in plays
                            if is_quad(p) and rank_of(min(p)) in PROTECTED_RANKS)
        self.points[team] += sum(points_of(p) for p in plays) - protected
        self.protected += protected
        self.won[team] |= set().union(*plays)
        self.winners.append(winner)
        if any(self.hands):
            self._start_trick(winner)
        else:
            self._score_hand(team, won_by, len(plays[0]))

    # ---- the hand's end (DBF-24, DBF-29..37, V4, V5, V12, V13) ---------------------------------
    def _score_penalty(self, offenders: int) -> None:
        """DBF-24: scored as if the offending team had won no trick."""
        kitty_points = points_of(self.kitty)
        self.kitty_bonus = [0, 0]
        self.hook = False
        self.P = TOTAL_POINTS + kitty_points if offenders == self.declaring else 0
        self._apply_table(PENALTY)

    def _score_hand(self, last_team: int, won_by: int, n_last: int) -> None:
        """DBF-29/30 P, then the hook (V13), V12's last trick, or the table."""
        decl, opp = self.declaring, 1 - self.declaring
        mult = n_last if self.cfg.kitty_mult_last_trick else 2  # DBF-29, V4
        self.kitty_bonus = [0, 0]
        self.kitty_bonus[last_team] = points_of(self.kitty) * mult
        self.P = self.points[opp] + self.kitty_bonus[opp]
        opp_last = last_team == opp
        self.hook = (self.cfg.jilin_hook and self.trump_level == LEVEL_J and opp_last
                     and won_by == RANK_J)
        if self.hook:  # V13, DBF-39, DBF-44 (no V5 tie): declarers to the lowest, declaring again
            self.levels[decl] = 3 if self.cfg.yuan_zhu else 2
            if self.cfg.jilin_last_trick:
                self.levels[opp] += last_trick_gain(self.points[opp])
            self._end_hand(NORMAL, LATER_HAND, (self.leader + 2) % NUM_PLAYERS, decl)
        elif self.cfg.jilin_last_trick and opp_last:  # V12: trick points only
            self.levels[opp] += last_trick_gain(self.points[opp])
            self._end_hand(NORMAL, LATER_HAND, (self.leader + 1) % NUM_PLAYERS, opp)
        else:
            self._apply_table(NORMAL)

    def _apply_table(self, outcome: int) -> None:
        """DBF-31/34 (V5: P = 40 is a tie), next declarers and starter (DBF-32/33)."""
        decl, L = self.declaring, self.leader
        if self.cfg.tie_at_40 and self.P == 40:
            self._end_hand(TIE, OPEN_DEAL, (L + 1) % NUM_PLAYERS, -1)
            return
        decl_gain, opp_gain, stay = table_result(self.P, self.cfg.step20)
        self.levels[decl] += decl_gain
        self.levels[1 - decl] += opp_gain
        if stay:
            self._end_hand(outcome, LATER_HAND, (L + 2) % NUM_PLAYERS, decl)
        else:
            self._end_hand(outcome, LATER_HAND, (L + 1) % NUM_PLAYERS, 1 - decl)

    def _end_hand(self, outcome: int, kind: int, starter: int, declaring: int) -> None:
        """DBF-36/37: the game ends, or the next hand is set up."""
        self.outcome = outcome
        self.last_points, self.last_protected = list(self.points), self.protected
        self.last_kitty = sorted(self.kitty)
        if outcome in (CLAIMED, NO_EXPOSER):
            self.P, self.hook, self.kitty_bonus = -1, False, [0, 0]
        self.hands_played += 1
        passed = [t for t in (0, 1) if self.levels[t] > self.cfg.target_level]
        if passed:
            self._game_over(passed[0])  # at most one team rises in a hand (DBF-36)
        elif self.hands_played >= self.cfg.max_hands:
            a, b = self.levels
            self._game_over(0 if a > b else 1 if b > a else -1)  # DBF-37
        else:
            self._new_hand(kind, starter, declaring)

    def _game_over(self, winner: int) -> None:
        self.winner, self.phase, self.to_act = winner, PHASE_OVER, -1

    # ---- queries -----------------------------------------------------------------------------
    @property
    def terminal(self) -> bool:
        return self.phase == PHASE_OVER

    @property
    def current_player(self) -> int:
        """The seat to act; -1 while a deal is awaited and after the end."""
        return self.to_act

    @property
    def scores(self) -> list[int]:
        """Match rewards so far: 0 until the end, then +1 / -1 by team, 0 on a draw."""
        if not self.terminal or self.winner < 0:
            return [0] * NUM_PLAYERS
        return [1 if team_of(p) == self.winner else -1 for p in range(NUM_PLAYERS)]

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the current player; [] while a deal is awaited or after
        the end. Kept until the next `deal` or `step` (the harness asks twice a step)."""
        if self._legal is None:
            self._legal = self._legal_now()
        return self._legal

    def _legal_now(self) -> list[int]:
        ph = self.phase
        if ph in (PHASE_DRAW, PHASE_FINAL_PASS):
            return [EXPOSE + s for s in self._exposable_suits(self.to_act)] + [PASS]
        if ph == PHASE_DISCARD:
            return [PICK + c for c in sorted(self.hands[self.to_act] - self.selection)]
        if ph == PHASE_CLAIM:
            return [PASS, CLAIM]
        if ph == PHASE_PLAY:
            return self._play_legal()
        return []

    def location(self) -> list[int]:
        """Per card: the seat holding it, or LOC_KITTY / LOC_TRICK / LOC_WON + team / LOC_DECK."""
        loc = [LOC_DECK if c == -1 else c for c in hand_owner(self.hands, NUM_CARDS)]
        for c in self.kitty:
            loc[c] = LOC_KITTY
        for _, cards in self.trick:
            for c in cards:
                loc[c] = LOC_TRICK
        for team in (0, 1):
            for c in self.won[team]:
                loc[c] = LOC_WON + team
        return loc

    def facts(self) -> dict:
        """What a differential test compares, as plain ints, bools and lists (-1: not known
        yet, or none):

        phase (PHASE_*), current_player, legal_actions (sorted ids), terminal, scores (match
        rewards so far), turn_done; hand_no (1-based, the awaited hand's while a deal is
        awaited), hands_played (ended deals, annulled ones included), hand_kind (FIRST_HAND /
        LATER_HAND / OPEN_DEAL), levels (by team), declaring (team), trump_level (R as a
        level), trump_suit (T), starter (S), leader (L), exposer, exposed (card), drawn (cards
        drawn, 0..48), turned (kitty cards turned by DBF-14), location (per card: seat 0..3,
        LOC_KITTY, LOC_TRICK, LOC_WON + team, LOC_DECK), selection (the mover's picks), trick
        ([seat, sorted cards] per play of the current trick), trick_leader, dun (the current
        trick is a Dun), trick_winners (this hand's, in order), points (trick points by team),
        protected (V9); of the last ended hand: outcome (NORMAL / PENALTY / CLAIMED /
        NO_EXPOSER / TIE, NO_OUTCOME before the first), P (-1 when annulled), hook,
        kitty_bonus (by team), last_points, last_protected, last_kitty; winner (the winning
        team at the end, -1 on a draw or while the game runs).
        """
        return {
            "phase": self.phase,
            "current_player": self.current_player,
            "legal_actions": self.legal_actions(),
            "terminal": self.terminal,
            "scores": self.scores,
            "turn_done": self.turn_done,
            "hand_no": self.hands_played + (0 if self.terminal else 1),
            "hands_played": self.hands_played,
            "hand_kind": self.kind,
            "levels": list(self.levels),
            "declaring": self.declaring,
            "trump_level": self.trump_level,
            "trump_suit": self.trump_suit,
            "starter": self.starter,
            "leader": self.leader,
            "exposer": self.exposer,
            "exposed": self.exposed,
            "drawn": self.drawn,
            "turned": self.turned,
            "location": self.location(),
            "selection": sorted(self.selection),
            "trick": [[seat, sorted(cards)] for seat, cards in self.trick],
            "trick_leader": self.trick_leader,
            "dun": self.dun,
            "trick_winners": list(self.winners),
            "points": list(self.points),
            "protected": self.protected,
            "kitty": sorted(self.kitty),
            "outcome": self.outcome,
            "P": self.P,
            "hook": self.hook,
            "kitty_bonus": list(self.kitty_bonus),
            "last_points": list(self.last_points),
            "last_protected": self.last_protected,
            "last_kitty": list(self.last_kitty),
            "winner": self.winner,
        }

    # ---- actions -----------------------------------------------------------------------------
    def step(self, action: int) -> None:
        """Play `action` for the current player; ValueError naming it and the legal ones if it
        is not legal now."""
        action = operator.index(action)
        legal = self.legal_actions()
        if action not in legal:
            try:
                name = action_name(action)
            except ValueError:
                name = "not an action id"
            why = ("a deal is awaited" if self.needs_deal else "the game is over"
                   if self.terminal else f"legal: {', '.join(action_name(a) for a in legal)}")
            raise ValueError(f"illegal action {action} ({name}) for seat {self.to_act}; {why}")
        ph, seat = self.phase, self.to_act
        self.turn_done = True
        if ph in (PHASE_DRAW, PHASE_FINAL_PASS):
            if action != PASS:
                self._expose(seat, action - EXPOSE)
            self._continue_draw()
        elif ph == PHASE_DISCARD:
            self.selection.add(action - PICK)
            self.turn_done = len(self.selection) == KITTY_SIZE
            if self.turn_done:  # DBF-17: the six discards are the kitty
                self.kitty = sorted(self.selection)
                self.hands[seat] -= self.selection
                self.selection = set()
                self._start_claims()
        elif ph == PHASE_CLAIM:
            if action == CLAIM:  # DBF-18: the next deal is open, starter L+2
                self._end_hand(CLAIMED, OPEN_DEAL, (self.leader + 2) % NUM_PLAYERS, -1)
            else:
                self._next_claim()
        elif action == PLAY:
            self._close_play()
        else:
            self.selection.add(action - PICK)
            # DBF-25: a follow closes at its n-th card
            self.turn_done = bool(self.trick) and len(self.selection) == len(self.trick[0][1])
            if self.turn_done:
                self._close_play()
        self._legal = None

    apply = step  # the name the differential harness (tests/harness/differential.py) calls

    # ---- positions for tests and analysis ---------------------------------------------------
    @classmethod
    def from_position(cls, config: DbfConfig, hands, trump_level: int, trump_suit: int,
                      leader: int, *, to_lead: int | None = None, declaring: int | None = None,
                      levels=None, kitty=(), points=(0, 0), kind: int = LATER_HAND,
                      starter: int | None = None, hands_played: int = 0) -> DbfRef:
        """A hand in play at the start of a trick (after the discard and the claims): `hands`
        by seat (equal sizes), L = `leader`, `to_lead` leading this trick (default L),
        declaring team (default L's), `levels` by team (default R for both; the declarers'
        must be R), the `kitty`, trick points taken so far. Unlisted cards are LOC_DECK."""
        declaring = team_of(leader) if declaring is None else declaring
        levels = [trump_level] * 2 if levels is None else list(levels)
        hands = [{operator.index(c) for c in h} for h in hands]
        cards = [c for h in hands for c in h] + list(kitty)
        if len(set(cards)) != len(cards) or not set(cards) <= set(DECK.ids):
            raise ValueError("from_position(): the cards must be distinct card ids")
        if len({len(h) for h in hands}) != 1 or len(hands) != NUM_PLAYERS or not hands[0]:
            raise ValueError("from_position(): four non-empty hands of equal size")
        if levels[declaring] != trump_level:
            raise ValueError("from_position(): R must be the declaring team's level")
        ref = cls(config)
        ref.levels, ref.hands_played = levels, hands_played
        ref._new_hand(kind, leader if starter is None else starter, declaring)
        ref.trump_level, ref.trump_suit, ref.leader = trump_level, trump_suit, leader
        ref.hands, ref.kitty, ref.points = hands, sorted(kitty), list(points)
        ref.drawn, ref.final_index, ref.claim_index = NUM_DRAWN, NUM_PLAYERS, NUM_PLAYERS
        ref._start_trick(leader if to_lead is None else to_lead)
        ref._legal = None
        return ref
