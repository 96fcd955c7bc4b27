"""Plain-Python reference rules of Conquian (conquian.md, CQ-1..27, CQ-V1..V2).

Slow, obvious and independent of the JAX engine: differential tests replay the engine's deals
through `CqRef` and compare every step. Card ids, action ids, phases, outcomes, locations and
the config come from `kanjax.games.conquian.spec` (data only); the melds are
`kanjax.games.conquian.reference_meld`; every rule is written here.

Use: `CqRef(config)`, one deal per instance (the engine plays one deal per episode, CQ-4).
While `needs_deal` is True it waits for `deal(order, dealer)`, a permutation of the 40 ids
dealt by `spec.deal_hands` (CQ-5); then N = 1 - dealer turns the top stock card (CQ-10). Then
`legal_actions()`, `step(action)`, `facts()`, `scores()`, `terminal`;
`CqRef.from_position(...)` builds a hand-made position; `pot_settlement` is CQ-22's pot
arithmetic over a series of deal results (the pot itself is the harness's).

The turn's actions (`spec`'s docstring, docs/turns.md): facing E the mover picks hand cards one
by one (unordered) and closes with `take`; a pick is legal only if some legal take contains the
selection with it, so a started take can always finish.

Where the rules leave the implementer a choice (the state before the deal and at the end,
forced takes and refusals (CQ-15, CQ-16/27), PHASE_RESPOND, the empty stock (CQ-20), the won
deal (CQ-18), an empty hand (CQ-19, CQ-26), `from_position`'s checks (CQ-6, CQ-17)), the
reference's decisions are listed in docs/reference-conventions.md.
"""

from __future__ import annotations

from kanjax.games.conquian.reference_meld import fits, partitionable, usable
from kanjax.games.conquian.spec import (
    DECLINE,
    DEMAND,
    DISCARD,
    DRAWN,
    HAND_SIZE,
    IN_PLAY,
    LAYOFF,
    LOC_DEAD,
    LOC_EXPOSED,
    LOC_HAND,
    LOC_MELD,
    LOC_STOCK,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    PASS,
    PHASE_DISCARD,
    PHASE_FACE,
    PHASE_FORCED_DISCARD,
    PHASE_OVER,
    PHASE_RESPOND,
    PICK,
    TAKE,
    WAIVE,
    WON,
    CqConfig,
    action_name,
    deal_hands,
    opponent,
)


class CqRef:
    """One deal of Conquian, one action per `step` (`spec`'s action ids)."""

    def __init__(self, config: CqConfig | None = None):
        self.cfg = config if config is not None else CqConfig()
        self.needs_deal = True
        self.dealer = self.cfg.dealer
        self.hands: list[set[int]] = [set(), set()]
        self.melds: list[set[int]] = [set(), set()]  # M of each seat (CQ-6)
        self.stock: list[int] = []  # face down, top first
        self.dead: set[int] = set()  # turned down after a decline (CQ-12)
        self.exposed = -1  # E (CQ-9), -1 if none
        self.fresh = False  # E was turned by the mover this turn (CQ-11), else offered (CQ-12)
        self.forced = False  # the mover was sent a DEMAND and must take (CQ-15)
        self.refusal = -1  # in PHASE_RESPOND: the refused action, PASS or DECLINE
        self.selection: set[int] = set()  # the picked hand cards of a take (CQ-13)
        self.phase = PHASE_FACE
        self.to_act = -1
        self.outcome = IN_PLAY
        self.winner = -1
        self._legal: list[int] | None = None

    # ---- set-up ------------------------------------------------------------------------------
    def deal(self, order, dealer: int | None = None) -> None:
        """Deal a deck order (CQ-5, `spec.deal_hands`); N = 1 - dealer turns the top stock
        card, fresh for him (CQ-10)."""
        if not self.needs_deal:
            raise ValueError("the deal has already been dealt (one deal per CqRef, CQ-4)")
        order = [int(c) for c in order]
        if sorted(order) != list(range(NUM_CARDS)):
            raise ValueError(f"a deck order is a permutation of the {NUM_CARDS} card ids")
        if dealer is None:
            dealer = self.cfg.dealer
        if dealer not in (0, 1) or self.cfg.dealer not in (-1, dealer):
            raise ValueError(f"dealer {dealer}: a seat, the config's ({self.cfg.dealer}) if set")
        n_hand, d_hand, stock = deal_hands(order)
        self.dealer = dealer
        self.hands[opponent(dealer)], self.hands[dealer] = set(n_hand), set(d_hand)
        self.stock = stock
        self.needs_deal = False
        self._turn_up(opponent(dealer))

    @classmethod
    def from_position(cls, config: CqConfig | None, dealer: int, hands, melds, stock, exposed: int,
                      fresh: bool, mover: int, phase: int = PHASE_FACE) -> CqRef:
        """Any position for scenario tests: `hands`/`melds` per seat as card lists, `stock` top
        first, `exposed` E (-1 for none, as in PHASE_DISCARD and PHASE_FORCED_DISCARD),
        `mover` the seat to act. Cards not given are dead (out of play)."""
        ref = cls(config)
        if phase not in (PHASE_FACE, PHASE_DISCARD, PHASE_FORCED_DISCARD):
            raise ValueError(f"phase {phase}: a position starts in face, discard or "
                             "forced_discard")
        if (exposed >= 0) != (phase == PHASE_FACE):
            raise ValueError("E is exposed exactly in PHASE_FACE")
        given = [c for group in (*hands, *melds, stock) for c in group]
        given += [exposed] if exposed >= 0 else []
        if len(set(given)) != len(given) or not all(0 <= c < NUM_CARDS for c in given):
            raise ValueError("a position lists every card at most once")
        if any(len(h) > HAND_SIZE for h in hands) or not all(partitionable(m) for m in melds):
            raise ValueError("hands hold at most 10 cards; every meld is partitionable (CQ-6)")
        ref.needs_deal = False
        ref.dealer = dealer
        ref.hands = [set(h) for h in hands]
        ref.melds = [set(m) for m in melds]
        ref.stock = [int(c) for c in stock]
        ref.dead = set(range(NUM_CARDS)) - set(given)
        ref.exposed, ref.fresh = exposed, bool(fresh) and exposed >= 0
        ref.phase, ref.to_act = phase, mover
        return ref

    # ---- queries -----------------------------------------------------------------------------
    @property
    def terminal(self) -> bool:
        return self.phase == PHASE_OVER

    @property
    def current_player(self) -> int:
        """The seat to act; -1 while the deal is awaited and after the end."""
        return -1 if self.needs_deal or self.terminal else self.to_act

    @property
    def scores(self) -> list[int]:
        """The deal's result (CQ-21): 0 0 until the end, then +1 / -1, a drawn deal 0 0."""
        if self.outcome != WON:
            return [0] * NUM_PLAYERS
        return [1 if p == self.winner else -1 for p in range(NUM_PLAYERS)]

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the current player; [] before the deal and at the end."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        if self.needs_deal or self.terminal:
            return []
        p, ph = self.to_act, self.phase
        hand = self.hands[p]
        if ph == PHASE_RESPOND:
            return [DEMAND, WAIVE]  # CQ-15, CQ-24
        if ph == PHASE_FORCED_DISCARD:
            return sorted(DISCARD + c for c in hand)  # CQ-16/27
        if ph == PHASE_DISCARD:
            acts = [DISCARD + c for c in hand]  # CQ-13
            opp = opponent(p)
            if self.hands[opp]:  # CQ-16: the opponent must be able to discard
                acts += [LAYOFF + c for c in hand if fits(self.melds[opp], c)]  # CQ-26 too
            return sorted(acts)
        # PHASE_FACE: picks and take (CQ-13, CQ-23), pass (CQ-11) or decline (CQ-12)
        base = self.melds[p] | self.selection | {self.exposed}
        acts = [PICK + c for c in usable(base, hand - self.selection)]
        if partitionable(base):
            acts.append(TAKE)
        if not self.selection and not self.forced:
            acts.append(PASS if self.fresh else DECLINE)
        return sorted(acts)

    def location(self) -> list[int]:
        """The LOC_* code of every card (picked cards stay in the hand)."""
        loc = [LOC_DEAD] * NUM_CARDS
        for c in self.stock:
            loc[c] = LOC_STOCK
        for p in range(NUM_PLAYERS):
            for c in self.hands[p]:
                loc[c] = LOC_HAND + p
            for c in self.melds[p]:
                loc[c] = LOC_MELD + p
        if self.exposed >= 0:
            loc[self.exposed] = LOC_EXPOSED
        return loc

    def facts(self) -> dict:
        """The state summary that differential tests compare with the engine's."""
        if self.needs_deal:
            raise RuntimeError("no deal yet: call deal(order, dealer) first")
        return {
            "phase": self.phase,
            "current_player": self.current_player,
            "dealer": self.dealer,
            "exposed": self.exposed,
            "fresh": self.fresh,
            "forced": self.forced,
            "refusal": self.refusal,
            "location": self.location(),
            "selection": sorted(self.selection),
            "stock_left": len(self.stock),
            "outcome": self.outcome,
            "winner": self.winner,
            "scores": self.scores,
            "terminal": self.terminal,
            "legal_actions": self.legal_actions(),
        }

    # ---- play --------------------------------------------------------------------------------
    def step(self, action: int) -> None:
        if self.needs_deal:
            raise ValueError("no deal yet: call deal(order, dealer) first")
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {self._name(action)} for seat {self.current_player}"
                             f"; legal: {', '.join(self._name(a) for a in legal) or 'none'}")
        self._legal = None
        p = self.to_act
        if action < TAKE:
            self.selection.add(action - PICK)
        elif action == TAKE:
            self._take(p)
        elif action in (PASS, DECLINE):
            if fits(self.melds[p], self.exposed):  # CQ-15: the opponent decides first
                self.refusal, self.phase, self.to_act = action, PHASE_RESPOND, opponent(p)
            else:
                self._refuse(p, action)
        elif action == DEMAND:  # CQ-15: the refuser must take E
            refuser = opponent(p)
            self.refusal, self.forced = -1, True
            self.phase, self.to_act = PHASE_FACE, refuser
        elif action == WAIVE:  # the refusal goes ahead
            refused, self.refusal = self.refusal, -1
            self._refuse(opponent(p), refused)
        elif action < LAYOFF:  # discard: also the forced discard (CQ-13, CQ-16, CQ-27)
            self.hands[p].remove(action - DISCARD)
            self._offer(action - DISCARD, opponent(p))
        else:  # CQ-16: the card joins the opponent's meld; he must discard at once
            card = action - LAYOFF
            self.hands[p].remove(card)
            self.melds[opponent(p)].add(card)
            self.phase, self.to_act = PHASE_FORCED_DISCARD, opponent(p)

    def _take(self, p: int) -> None:
        """CQ-13: E and the selection join M; an empty hand wins at once (CQ-18)."""
        self.melds[p] |= self.selection | {self.exposed}
        self.hands[p] -= self.selection
        self.selection = set()
        self.exposed, self.fresh, self.forced = -1, False, False
        if not self.hands[p]:
            self.phase, self.outcome, self.winner = PHASE_OVER, WON, p
        else:
            self.phase = PHASE_DISCARD

    def _refuse(self, p: int, refused: int) -> None:
        """A pass (CQ-11) or decline (CQ-12) of seat p that goes ahead."""
        if refused == PASS:
            self._offer(self.exposed, opponent(p))
            return
        self.dead.add(self.exposed)
        self.exposed, self.fresh = -1, False
        if not self.stock:  # CQ-20: he would have to turn from the empty stock
            self.phase, self.outcome = PHASE_OVER, DRAWN
            return
        self._turn_up(p)

    def _turn_up(self, p: int) -> None:
        """Seat p turns the top stock card: E fresh for him (CQ-10, CQ-12)."""
        self.exposed, self.fresh = self.stock.pop(0), True
        self.phase, self.to_act = PHASE_FACE, p

    def _offer(self, card: int, p: int) -> None:
        """`card` lies face up, offered to seat p (CQ-11, CQ-13, CQ-16)."""
        self.exposed, self.fresh = card, False
        self.phase, self.to_act = PHASE_FACE, p

    def _name(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return f"#{action}"
        return f"{action_name(action, self.cfg.deck)!r} ({action})"


def whole_takes(ref: CqRef) -> list[frozenset[int]]:
    """Every hand-card set H with which the mover facing E may TAKE (CQ-13), by the brute force
    of the rule (M ∪ {E} ∪ H partitionable), for tests and whole-turn bots."""
    p = ref.to_act
    hand = sorted(ref.hands[p])
    base = ref.melds[p] | {ref.exposed}
    takes = []
    for bits in range(1 << len(hand)):
        h = frozenset(c for i, c in enumerate(hand) if bits >> i & 1)
        if partitionable(base | h):
            takes.append(h)
    return takes


def pot_settlement(deal_scores, carry_pot: bool = True) -> list[list[int]]:
    """CQ-22 (harness-level): the net result of each deal of a series, given each deal's own
    result (CQ-21). With `carry_pot` each drawn deal adds one stake per player to the pot, and
    the winner of the next decided deal takes it: +(1 + k) / -(1 + k) after k draws."""
    net, pot = [], 0
    for s in deal_scores:
        s = [int(x) for x in s]
        if not carry_pot:
            net.append(s)
        elif s == [0] * NUM_PLAYERS:
            pot += 1
            net.append(s)
        else:
            net.append([x * (1 + pot) for x in s])
            pot = 0
    return net

