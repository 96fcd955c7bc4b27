"""What the Kan family tells the layers above the engine (the views of `kanjax.api.Env`).

`KanViews` is mixed into each variant's env (`gonin.py`, `yonin.py`, `gambari.py`): the state
summary, the text view of `kanjax show`, deal strings, the deal tally of `kanjax simulate`,
and trick play as plain data for the double-dummy solvers (`solvers.convert`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, jitted
from kanjax.core import scenes
from kanjax.core.cards import Deal
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import (
    BID,
    CONTRACT,
    IKU_KOI,
    PHASE_NAMES,
    PLAY,
    PLAYED,
    SIGNAL,
    TRUMP,
    KanState,
    summary,
)
from kanjax.scene import Group, Scene, Seat, check_viewer

KAN_SUITS = "CDHS"  # Kan suit ids 0..3 (kan.md §15), as `trump=` of `trick_start` names them
DEAL_FLAGS = ("players", "yonin_removed_five")  # header fields that are variant flags


_summary_jitted = jax.jit(summary)


def _numpy_summary(state: KanState) -> dict[str, np.ndarray]:
    """`summary` as numpy arrays (one compiled call per state shape, not op by op)."""
    return {k: np.asarray(v) for k, v in _summary_jitted(state).items()}


def _hands_by_seat(s: dict, n: int) -> list[list[int]]:
    occupant = np.argsort(s["seat_of"])
    owner = s["hand_owner"]
    return [[int(c) for c in np.flatnonzero(owner == occupant[seat])] for seat in range(n)]


def _current_trick(s: dict, n: int, trick: int | None = None) -> list[tuple[int, int]]:
    """(player, card) of the trick in progress (or of the finished `trick`), in seat order
    from the current trick's leader (the trick in progress: its play order)."""
    played = s["played"]
    t = int(s["trick"]) if trick is None else trick
    cards = np.flatnonzero((played >= 0) & (played // 8 == t))
    seat = s["seat_of"]
    return sorted(((int(played[c] % 8), int(c)) for c in cards),
                  key=lambda pc: (seat[pc[0]] - seat[int(s["leader"])]) % n)


def _header(env, s: dict) -> str:
    """Round, deal, dealer, trump and Rk / Rm of a summary."""
    trump, rounds = int(s["trump"]), env.config.n_rounds
    return (f"{env.name}  round {min(int(s['round']) + 1, rounds)}/{rounds}  "
            f"deal {int(s['deal'])}  dealer P{int(s['dealer'])}  "
            f"trump {KAN_SUITS[trump] if trump >= 0 else '?'}  "
            f"Rk {int(s['rk']):+d}  Rm {int(s['rm']):+d}")


def _points(points: np.ndarray) -> str:
    """The point cards taken by each team (-1: hidden from the viewer, KAN-28)."""
    return "points " + " / ".join(f"{team} {int(v) if v >= 0 else '?'}"
                                  for team, v in zip(("kankei", "mukankei"), points, strict=True))


def _scores(s: dict) -> str:
    return "scores: " + "  ".join(f"P{p} {int(v):+d}" for p, v in enumerate(s["scores"]))


def _deal_lines(s: dict) -> list[str]:
    """The Gambari target (KAN-65) and the Yonin contract (KAN-56), where there is one."""
    lines = []
    if int(s["target"]) >= 0:
        lines.append(f"kankei target {int(s['target'])}" if s["kankei"].any()
                     else f"bidding at target {int(s['target'])}")
    kind, declarer = (int(x) for x in s["contract"])
    if kind:
        lines.append(f"contract {('SKUNK', 'ALL16')[kind - 1]} declared by P{declarer}")
    return lines


def _last_deal(s: dict) -> str:
    return f"last deal: {ks.OUTCOME_NAMES[int(s['last_outcome'])]}"


def _roles(s: dict, n: int, kankei: np.ndarray) -> list[str]:
    """Each player's role: kankei, mukankei (once teams are known), the 6-player dealer who
    sits out (KAN-16), "kankei?" where the viewer does not know (`kankei` -1, KAN-52)."""
    teams = s["kankei"].any()
    dealer_out = n == 6
    return ["kankei" if kankei[p] == 1 else
            "dealer" if dealer_out and p == int(s["dealer"]) else
            "kankei?" if kankei[p] < 0 else
            "mukankei" if teams else "" for p in range(n)]


def header_slots(env, state: KanState) -> dict[str, np.ndarray]:
    """The header slots of an unbatched state, in numpy (`Layout.unpack` without JAX)."""
    h = np.asarray(state._h).astype(np.int32)
    return {k: h[i] for k, i in env.layout.head.items()}


class KanViews:
    """The `Env` views of a Kan variant (mixed into `KanEnv`'s subclasses)."""

    card_actions = ks.IKU  # actions 0..56 play a card (53..56: a JK lead)
    bench_baseline = ("oh_hell(players=5,num_tricks_fixed=10)", "deals")  # Gonin Kan's peer

    def summary(self, state: KanState) -> dict[str, Array]:
        return summary(state)

    # ---- text -------------------------------------------------------------------------------
    def render(self, state: KanState) -> str:
        """The header (round, deal, dealer, trump, Rk / Rm, points), the scores, each seat's
        hand by suit with its role, the trick in progress, whose turn and the legal actions,
        and how the last deal ended."""
        s = _numpy_summary(state)
        n = self.num_players
        roles = _roles(s, n, s["kankei"].astype(np.int32))
        lines = [_header(self, s) + "  " + _points(s["points"]), _scores(s), *_deal_lines(s)]
        hands = _hands_by_seat(s, n)
        for seat, p in enumerate(np.argsort(s["seat_of"])):
            lines.append(f"seat {seat}  P{p}  {roles[p]:<8}  "
                         f"{self.card_deck.format_by_suit(hands[seat])}")
        trick = _current_trick(s, n)
        if trick:
            lines.append(f"trick {int(s['trick']) + 1}: " + ", ".join(
                f"P{p} {self.card_deck.token(c)}" for p, c in trick))
        lines.append(self.status_line(state, lambda p: f"P{p}", limit=12))
        if int(s["last_outcome"]) >= 0:
            lines.append(_last_deal(s))
        return "\n".join(lines)

    def scene(self, state: KanState, player: int | None = None) -> Scene:
        """The header, the seats in table order (hands by suit, role, match score), the trick
        in progress with its owners (between tricks: the one just taken), the points and
        scores, whose turn. For `player`, what `observe` gives him (KAN-46): his own hand only
        (Yonin's trump choice: the three cards he has seen, KAN-57), the teams and points as
        far as he knows them (KAN-52, KAN-28), and the legal actions only when he is to act."""
        s = _numpy_summary(state)
        n = self.num_players
        viewer = check_viewer(player, n)
        deck = self.card_deck
        kankei, points = s["kankei"].astype(np.int32), s["points"]
        seen = None
        if viewer is not None:
            obs = np.asarray(jitted(self, "observe")(state, viewer))
            fields = self.observation_spec().slices()
            seen = np.flatnonzero(obs[fields["cards"]].reshape(-1, 4)[:, 0] == 1)
            kankei, points = obs[fields["kankei"]], obs[fields["points"]]
        roles = _roles(s, n, kankei)
        to_act = scenes.to_act(state)
        owner = s["hand_owner"]
        seats = []
        for p in np.argsort(s["seat_of"]):
            p = int(p)
            held = deck.sort_hand(np.flatnonzero(owner == p))
            shown = held if viewer in (None, p) else None
            if viewer == p:
                shown = deck.sort_hand(seen)
            seats.append(Seat(
                player=p, label=scenes.label(p), role=roles[p].strip(),
                cards=None if shown is None else tuple(deck.token(c) for c in shown),
                count=len(held), notes=(f"score {int(s['scores'][p]):+d}",),
                to_act=p == to_act))
        t, label = int(s["trick"]), f"trick {int(s['trick']) + 1}"
        trick, shown = _current_trick(s, n), t
        if not trick and 0 < t <= ks.NUM_TRICKS:  # between tricks: the one just taken
            trick, shown = _current_trick(s, n, t - 1), t - 1
            label = f"trick {t}, taken by P{int(header_slots(self, state)['winners'][t - 1])}"
        table = (Group(label, tuple(deck.token(c) for _, c in trick),
                       tuple(p for p, _ in trick)),) if trick else ()
        played = s["played"] >= 0
        earlier = int((played & (s["played"] // 8 < shown)).sum())
        unplayed = int(((owner < 0) & ~played)[list(deck.ids)].sum())
        table += scenes.face_down(("earlier tricks", earlier), ("not in play", unplayed))
        last = [_last_deal(s)] if int(s["last_outcome"]) >= 0 else []
        return Scene(
            game=self.name, header=_header(self, s), seats=tuple(seats), table=table,
            scores=(_points(points), _scores(s), *_deal_lines(s), *last), to_act=to_act,
            legal=scenes.legal_names(self, state, viewer),
            status=scenes.status(state, "match over"), viewer=viewer)

    # ---- deal strings -----------------------------------------------------------------------
    def deal_string(self, state: KanState) -> str:
        """The hands as they are now, by seat, with round, dealer and seats (and the deal
        number from deal 2 on)."""
        s = _numpy_summary(state)
        n = self.num_players
        head = [self.name]
        if n == 6:
            head.append("players=6")
        head += [
            f"round={int(s['round'])}",
            f"dealer={int(s['dealer'])}",
            "seats=" + ",".join(str(int(p)) for p in np.argsort(s["seat_of"])),
        ]
        if int(s["deal"]) > 1:
            head.append(f"deal={int(s['deal'])}")
        deck = self.card_deck
        hands = [deck.format_hand(deck.sort_hand(h)) for h in _hands_by_seat(s, n)]
        return " | ".join([" ".join(head)] + hands)

    def deal_flags(self, deal: Deal) -> dict[str, Any]:
        """`players=5|6` (Gonin) and `yonin_removed_five=S|C` (Yonin) of the header."""
        fields = dict(deal.fields)
        flags = {k: fields[k] for k in DEAL_FLAGS
                 if k in fields and k in ks.VARIANT_FLAGS[self.config.variant]}
        if "players" in flags:
            if flags["players"] not in ("5", "6"):
                del flags["players"]  # from_deal names the bad field
            else:
                flags["players"] = int(flags["players"])
        return flags

    # ---- kanjax simulate ------------------------------------------------------------------
    def deal_tally(self, before: KanState, after: KanState) -> Array:
        """int32[outcomes, 3]: one count at (outcome, deal number) when this step ended a
        deal."""
        s0, s1 = summary(before), summary(after)
        ended = s1["deal_done"] & (after.step_count != before.step_count)
        onehot = (jnp.arange(ks.NUM_OUTCOMES)[:, None] == s1["last_outcome"]) & (
            jnp.arange(1, 4)[None, :] == s0["deal"])
        return (onehot & ended).astype(jnp.int32)

    def tally_report(self, tally: np.ndarray, returns: np.ndarray, deals: int) -> dict:
        """How deals end: the kankei's deal win rate (all, and by deal 1 / 2 / 3), the count of
        each outcome by deal number, and the mean absolute match score."""
        decided = tally.sum(0) - tally[ks.SHIPPO_VOID]  # per deal number; void deals excluded
        kankei_wins = tally[list(ks.KANKEI_WINS)].sum(0)
        return {
            "deals": int(tally.sum()),
            "kankei_deal_win_rate": round(float(kankei_wins.sum() / max(decided.sum(), 1)), 4),
            "kankei_win_rate_by_deal": [
                round(float(kankei_wins[d] / max(decided[d], 1)), 4) for d in range(3)
            ],
            "outcomes": {name: tally[i].tolist() for i, name in enumerate(ks.OUTCOME_NAMES)
                         if tally[i].any()},
            "mean_abs_match_score": round(float(np.abs(returns).mean()), 3),
        }

    def tally_lines(self, report: dict) -> list[str]:
        lines = [
            f"  deals: {report['deals']}; kankei win {report['kankei_deal_win_rate']:.1%} "
            "(deal 1/2/3: " + " / ".join(f"{x:.1%}" for x in report["kankei_win_rate_by_deal"])
            + ")",
            "  how deals end (deal 1 / 2 / 3):",
        ]
        for name, per_deal in report["outcomes"].items():
            lines.append(f"    {name:<20} " + " / ".join(f"{n:>7}" for n in per_deal))
        return lines

    # ---- trick play for the double-dummy solvers ---------------------------------------------
    def trick_rules(self, state: Any = None) -> dict[str, Any]:
        """KAN-3 point cards (every A K Q J is 1, a trick nothing more), the active players,
        and when the joker may be played: Gonin and Gambari never in tricks 1 and 10, only it
        in trick 9 once held (KAN-25); Yonin in any trick (KAN-54) but trick 1, where no
        contract is declared (the solver plays none): not led, or not at all (KAN-58's flag
        `yonin_joker_trick1_contract`), the lowest card of the led suit in trick 10 (KAN-54)."""
        yonin = self.config.variant == "yonin"
        ids = self.card_deck.ids
        n_tricks = len(ids) // self.active
        if yonin:
            first = "follow" if self.config.yonin_joker_trick1_contract == "lead" else "never"
            joker = (first,) + ("any",) * (n_tricks - 1)
        else:
            joker = ("never",) + ("any",) * (n_tricks - 3) + ("only", "never")
        return dict(
            game=self.name, n=self.active, n_tricks=n_tricks, ids=ids,
            suit=tuple(c // 13 for c in range(52)) + (4,),
            rank=tuple(c % 13 for c in range(52)) + (0,),
            points=tuple(int(c < ks.JK and c % 13 >= 9) for c in range(ks.NUM_CARDS)),
            trick_value=0, joker=joker, joker_low_last=yonin,
            tokens=tuple(t or f"#{c}" for c, t in enumerate(self.card_deck.tokens)),
            suit_names=KAN_SUITS)

    def trick_position(self, state: KanState) -> dict[str, Any]:
        """Seats: the ring positions of the active players in play order (seat k = the
        player with `pos == k`; the sitting-out 6-player dealer is left out); side: the kankei,
        taken / taken_other: pk / pm (KAN-3); the current trick's led suit is the suit a JK
        lead named (KAN-26)."""
        g = header_slots(self, state)
        phase = int(g["phase"])
        if phase != PLAY or bool(np.asarray(state.terminated | state.truncated)):
            what = "the match is over" if phase == PLAY else f"phase {PHASE_NAMES[phase]}"
            raise ValueError(f"{self.name}: the state is not in trick play ({what}); a "
                             "double-dummy position needs phase PLAY")
        loc = np.asarray(state._loc).astype(np.int32)
        k = self.active
        players = tuple(int(np.flatnonzero(g["pos"] == i)[0]) for i in range(k))
        seat = {p: i for i, p in enumerate(players)}
        t, nplayed = int(g["trick"]), int(g["nplayed"])
        leader = seat[int(g["leader"])]
        trick = []
        for i in range(nplayed):
            played = np.flatnonzero(loc == PLAYED + 8 * t + players[(leader + i) % k])
            if len(played) != 1:
                raise ValueError(f"{self.name}: bad state: {len(played)} cards of player "
                                 f"{players[(leader + i) % k]} in the current trick")
            trick.append(int(played[0]))
        moves = np.flatnonzero(np.asarray(state.legal_action_mask)[: ks.LEAD_JK + 4])
        return dict(
            players=players, hands=tuple(tuple(int(c) for c in np.flatnonzero(loc == p))
                                         for p in players),
            trump=int(g["trump"]), leader=leader,
            side=tuple(bool(g["kankei"][p] > 0) for p in players), trick=tuple(trick),
            led=int(g["led"]) if nplayed else -1, tricks_done=t, taken=int(g["pk"]),
            taken_other=int(g["pm"]), moves=tuple(int(a) for a in moves))

    def trick_start(self, deal: str, key: Array | None = None, trump: Any = None,
                    leader: Any = None) -> KanState:
        """`from_deal(deal, key)` (`key`: the chance the deal may still need, e.g. a nijū
        exchange, KAN-18), then the decisions before trick 1:

        - Gonin deal 1 (at IKU/KOI, KAN-21): `leader=` one of the two kankei (default: the
          default leader); trump is the round's (KAN-11);
        - Gonin deals 2/3 (at the signal, KAN-38): the signal shows nothing (F5, or the first
          legal one); `trump=` (C / D / H / S or 0..3) is required; the chooser leads;
        - Yonin deal 1 (at the first contract decision): no contract (the solver plays none);
          the AS (AC) holder leads (KAN-53); Yonin deals 2/3 (at the trump choice, KAN-57):
          `trump=` is required, the chooser leads, no contract;
        - Gambari (at the bidding, KAN-65): `leader=` (the player who bids KAN at once, the
          lone kankei) is required; trump is the round's.
        A `trump=` or `leader=` the rules fix otherwise raises ValueError."""
        if trump is not None:
            if trump in tuple(KAN_SUITS):
                trump = KAN_SUITS.index(trump)
            elif trump not in (0, 1, 2, 3) or isinstance(trump, bool):
                raise ValueError(f"trump={trump!r}: want one of C, D, H, S (or 0..3)")
        if leader is not None and (not isinstance(leader, int | np.integer) or isinstance(
                leader, bool) or leader < 0):
            raise ValueError(f"leader={leader!r}: want a player (0, 1, ...)")
        state = self.from_deal(deal, key)
        return self._to_trick_play(state, trump, leader, jax.random.PRNGKey(0))

    def trick_choices(self, deal: str, trump: Any = None, leader: Any = None) -> list[dict]:
        """The trump of Gonin / Yonin deals 2/3 when `trump` is not given (KAN-36, KAN-37,
        KAN-57: every suit), the leading kankei of Gonin deal 1 when `leader` is not (KAN-21:
        both kankei)."""
        state = self.from_deal(deal)
        g = {k: np.asarray(v) for k, v in self.layout.unpack(state).items()}
        phase = int(g["phase"])
        if self.config.variant != "gambari" and phase in (SIGNAL, TRUMP) and trump is None:
            return [{"trump": s, "leader": leader} for s in KAN_SUITS]
        if self.config.variant != "gambari" and phase == IKU_KOI and leader is None:
            return [{"trump": trump, "leader": int(p)} for p in np.flatnonzero(g["kankei"] > 0)]
        return [{"trump": trump, "leader": leader}]

    def trick_goals(self, state: KanState) -> dict[str, tuple[bool, int, int]]:
        """The contracts (KAN-31, KAN-32): sukonku, the kankei reaching T(d) (KAN-29; Gambari:
        the bid target, KAN-65) while the mukankei have nothing; juuroku, all 16; the gyaku
        forms the same for the mukankei (U(d) = 17 - T(d)). `trick_position`'s side is the
        kankei."""
        g = {k: np.asarray(v) for k, v in self.layout.unpack(state).items()}
        t = int(g["target"]) if int(g["target"]) >= 0 else ks.KANKEI_TARGET[int(g["deal"])]
        return {"sukonku": (True, t, 0), "gyaku_sukonku": (False, 17 - t, 0),
                "juuroku": (True, 16, 0), "gyaku_juuroku": (False, 16, 0)}

    def _to_trick_play(self, state: KanState, trump: int | None, leader: int | None,
                       key: Array) -> KanState:
        """Take the decisions before trick 1 (see `trick_start`); `trump` a suit index."""
        if leader is not None and leader >= self.num_players:
            raise ValueError(f"leader={leader}: want a player 0..{self.num_players - 1}")

        def slot(name: str) -> int:
            return int(header_slots(self, state)[name])

        def act(action: int) -> None:
            nonlocal state
            if not bool(np.asarray(state.legal_action_mask)[action]):
                raise ValueError(f"{self.name}: {self.action_name(action)} is not legal here "
                                 f"(player {int(state.current_player)}, phase "
                                 f"{PHASE_NAMES[slot('phase')]})")
            state = self.step(state, action, key)

        trump_free = False
        for _ in range(3 * self.num_players * 10):
            phase, cur = slot("phase"), int(state.current_player)
            if phase == PLAY:
                break
            if phase == IKU_KOI:  # KAN-21: both IKU -> the default leader leads
                kankei = np.flatnonzero(header_slots(self, state)["kankei"] > 0)
                if leader is not None and leader not in kankei:
                    raise ValueError(f"leader={leader}: in deal 1 one of the kankei "
                                     f"{', '.join(map(str, kankei))} leads (KAN-21)")
                # the default leader chooses first, then the other kankei; KOI then IKU makes
                # the other kankei lead
                first = slot("iku0") < 0
                default = cur if first else int(next(p for p in kankei if p != cur))
                act(ks.KOI if first and leader not in (None, default) else ks.IKU)
            elif phase == SIGNAL:  # KAN-38: shows nothing if it may (F5)
                legal = np.flatnonzero(np.asarray(state.legal_action_mask))
                act(ks.SIGNAL_F5 if ks.SIGNAL_F5 in legal else int(legal[0]))
            elif phase == TRUMP:
                if trump is None:
                    raise ValueError(f"{self.name} deal {slot('deal')}: player {cur} chooses "
                                     "trump before trick 1 (KAN-39, KAN-57): give "
                                     "trump=C|D|H|S")
                if leader is not None and leader != cur:
                    raise ValueError(f"leader={leader}: the trump chooser, player {cur}, "
                                     "leads trick 1 (KAN-39, KAN-57)")
                trump_free = True
                act(ks.TRUMP + trump)
            elif phase == CONTRACT:  # KAN-56: the solver plays no contracts
                act(ks.CONTRACT_NONE)
            elif phase == BID:  # KAN-65: `leader` bids KAN, the others before him pass
                if leader is None:
                    raise ValueError(f"{self.name}: the bidding decides the lone kankei, who "
                                     "leads trick 1 (KAN-65): give the leader, a player "
                                     "(kanjax solve --leader P; trick_start's leader=P)")
                act(ks.KAN_BID if cur == leader else ks.PASS_BID)
            else:
                raise ValueError(f"{self.name}: the deal string's state is in phase "
                                 f"{PHASE_NAMES[phase]}, not before trick play")
        else:
            raise ValueError(f"{self.name}: no trick play after {3 * self.num_players * 10} "
                             "decisions")
        if trump is not None and not trump_free and trump != slot("trump"):
            raise ValueError(f"trump={KAN_SUITS[trump]}: the rules fix this deal's trump to "
                             f"{KAN_SUITS[slot('trump')]} (KAN-11)")
        if leader is not None and leader != slot("leader"):
            raise ValueError(f"leader={leader}: player {slot('leader')} leads trick 1 here "
                             "(Yonin deal 1: the AS holder, AC when spades are trump, KAN-53)")
        return state
