"""Whist: the card play of bridge, as a jittable JAX environment (`kanjax.make("whist")`).

For checking the double-dummy solver against DDS. The rules are docs/rules/whist.md (no rule
ids): one deal of 13 cards to each of N E S W = 0..3, N-S and E-W partners, follow suit,
highest trump else highest card of the led suit wins, each player paid his side's tricks at
the last step.

Flags: `trump` in NT S H D C (default NT), `leader` in N E S W (default W: the opening lead
when South declares). Cards are whist ids, `13 * suit + rank`, suits S H D C = 0..3, ranks
2..A = 0..12 (DDS's orders too); action a plays card a. Legal play and trick strength come
from `kanjax.core.trick`, the kernel the solvers use. No chance after the deal: `step` needs no key.

State (`WhistState`), besides the common fields:
- `_loc` int8[52], card c: p (0..3) in player p's hand; PLAYED + 4t + p played by p in
  trick t (0..12).
- `_h` int8[23], the header: TRUMP (-1 NT, else the suit), FIRST (opening leader), LEADER (of
  the current trick), TRICK (tricks completed, 0..13), NPLAYED (cards in the current trick),
  LED (its led suit, -1 before the lead), BEST_S / BEST_P (its best card strength so far and
  who played it), NS / EW (tricks taken), WINNERS (13: winner of each trick, -1).

Observation `observe(state, p)` -> int16[179] (`OBS_SPEC`, `observation_spec().slices()`): per card
[in p's hand, played by, in trick] (0:156), then me, current_player, trump, first_leader,
leader, trick, n_played, led_suit, the tricks of N-S and E-W, the winner of each trick
(166:179). Laid out in docs/rules/whist.md, section Information: played cards are public.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import (
    Array,
    Env,
    ObservationSpec,
    ObsField,
    State,
    check_flag_keys,
    check_flag_types,
    common_summary,
    legal_actions,
    register_state,
)
from kanjax.capabilities import Benchmarked, Bots, PbnDeals, TournamentViews, TrickPlay, Views
from kanjax.core import cards as cards_mod
from kanjax.core import dealing
from kanjax.core import trick as trick_kernel
from kanjax.core.deal_fields import read_deal
from kanjax.core.layout import Layout
from kanjax.core.pbn import SEATS, format_pbn, looks_like_pbn, parse_pbn
from kanjax.core.scenes import face_down
from kanjax.scene import Group, Scene, Seat, check_viewer

NUM_CARDS = 52
NUM_TRICKS = 13
PLAYED = 4  # `_loc` code: PLAYED + 4 * trick + player for a played card
TRUMPS = ("NT", "S", "H", "D", "C")  # flag values; suit index = position - 1 (NT: -1)
CARD_IDS = np.arange(NUM_CARDS)
SUIT = CARD_IDS // 13
RANK = CARD_IDS % 13

DECK = cards_mod.Deck("whist", tuple(
    cards_mod.suited_tokens("SHDC", cards_mod.RANK_CHARS)))
CARD_TOKENS = tuple(DECK.token(c) for c in range(NUM_CARDS))
ACTION_NAMES = tuple(f"play {t}" for t in CARD_TOKENS)
ACTION_IDS = {name: a for a, name in enumerate(ACTION_NAMES)}

HEAD_SCALARS = ("trump", "first", "leader", "trick", "nplayed", "led", "best_s", "best_p",
                "ns", "ew")
LAYOUT = Layout(head=[(k, None) for k in HEAD_SCALARS] + [("winners", NUM_TRICKS)])
# header slots of `_h`
TRUMP, FIRST, LEADER, TRICK, NPLAYED, LED, BEST_S, BEST_P, NS, EW = (
    LAYOUT.head[k] for k in HEAD_SCALARS)
WINNERS = LAYOUT.head["winners"]

OBS_SPEC = ObservationSpec((
    ObsField("cards", 3 * NUM_CARDS, -1, NUM_TRICKS - 1, "52 x 3, card-major, for card ids "
             "0..51: [in my hand 1 / 0, played by (player, -1), in trick (0..12, -1)]"),
    ObsField("me", 1, 0, 3, "the observer"),
    ObsField("current_player", 1, -1, 3, "the player to act, -1 at the end"),
    ObsField("trump", 1, -1, 3, "the trump suit S H D C = 0..3, -1 NT"),
    ObsField("first_leader", 1, 0, 3, "the opening leader"),
    ObsField("leader", 1, 0, 3, "the leader of the current trick"),
    ObsField("trick", 1, 0, NUM_TRICKS, "tricks completed (the current trick's index)"),
    ObsField("n_played", 1, 0, 3, "cards in the current trick"),
    ObsField("led_suit", 1, -1, 3, "the led suit of the current trick, -1 before the lead"),
    ObsField("tricks", 2, 0, NUM_TRICKS, "tricks taken by N-S, E-W"),
    ObsField("winners", NUM_TRICKS, -1, 3, "the winner of each completed trick, -1"),
))
DEAL_FIELDS = ("leader", "trump")


@dataclasses.dataclass(frozen=True)
class WhistConfig:
    """Static, hashable config: the trump suit and the opening leader."""

    trump: str = "NT"
    leader: str = "W"

    def __post_init__(self) -> None:
        check_flag_types(self)
        for flag, allowed in (("trump", TRUMPS), ("leader", tuple(SEATS))):
            if getattr(self, flag) not in allowed:
                raise ValueError(f"{flag}={getattr(self, flag)!r}: must be one of {allowed}")

    @classmethod
    def for_game(cls, game: str, **flags) -> WhistConfig:
        check_flag_keys(game, flags, (f.name for f in dataclasses.fields(cls)))
        return cls(**flags)


@register_state
@dataclasses.dataclass(frozen=True)
class WhistState(State):
    """A whist deal in play: `_loc` card locations, `_h` header (see the module docstring)."""

    _loc: Array
    _h: Array


def summary(state: WhistState) -> dict[str, Array]:
    """The comparable facts of a state (jittable, batched or not) for tests and logs."""
    loc, h = state._loc.astype(jnp.int32), state._h.astype(jnp.int32)
    i8 = jnp.int8
    played = jnp.where(loc >= PLAYED, loc - PLAYED, -1)
    trick = h[..., TRICK]
    # the card each player put in the current trick (-1)
    slot = 4 * trick[..., None, None] + jnp.arange(4)[:, None]
    trick_cards = jnp.max(jnp.where(played[..., None, :] == slot, CARD_IDS, -1), axis=-1)
    return {
        **common_summary(state),
        "hand_owner": jnp.where(loc < PLAYED, loc, -1).astype(i8),
        "played": played.astype(i8),  # 4 * trick + player
        "trick_cards": trick_cards.astype(i8),
        "trump": h[..., TRUMP].astype(i8),
        "first_leader": h[..., FIRST].astype(i8),
        "leader": h[..., LEADER].astype(i8),
        "trick": trick.astype(i8),
        "n_played": h[..., NPLAYED].astype(i8),
        "led": h[..., LED].astype(i8),
        "tricks": h[..., NS:EW + 1].astype(i8),  # N-S, E-W
        "winners": h[..., WINNERS].astype(i8),
    }


_summary_jitted = jax.jit(summary)


def summary_numpy(state: WhistState) -> dict[str, np.ndarray]:
    """`summary` as numpy arrays (one compiled call per batch shape, not op by op)."""
    return {k: np.asarray(v) for k, v in _summary_jitted(state).items()}


def _header(s: dict[str, np.ndarray]) -> str:
    """Trump, opening leader and the trick in play of a summary."""
    trick = int(s["trick"])
    return (f"whist  trump {TRUMPS[int(s['trump']) + 1]}  opening leader "
            f"{SEATS[int(s['first_leader'])]}  trick {min(trick + 1, NUM_TRICKS)}/{NUM_TRICKS}")


def _tricks(s: dict[str, np.ndarray]) -> str:
    ns, ew = (int(x) for x in s["tricks"])
    return f"tricks N-S {ns} / E-W {ew}"


def _current_trick(s: dict[str, np.ndarray]) -> list[tuple[int, int]]:
    """(player, card) of the trick in progress, in play order from its leader."""
    leader = int(s["leader"])
    played = [(p, int(s["trick_cards"][p])) for p in ((leader + i) % 4 for i in range(4))]
    return [(p, c) for p, c in played if c >= 0]


def _taken_trick(s: dict[str, np.ndarray], t: int) -> list[tuple[int, int]]:
    """(player, card) of the finished trick `t`, by player."""
    played = s["played"]
    return sorted((int(played[c] % 4), int(c)) for c in np.flatnonzero(played // 4 == t))


class WhistEnv(Env, Views, TournamentViews, Bots, Benchmarked, TrickPlay, PbnDeals):
    """Whist card play (`whist`): one deal of 13 tricks. Actions: card ids 0..51."""

    name = "whist"
    num_players = 4
    num_actions = NUM_CARDS
    max_steps = NUM_CARDS
    stochastic_step = False
    card_deck = DECK
    card_actions = NUM_CARDS
    # bridge's card play in OpenSpiel (after its auction, here random bids: per decision)
    bench_baseline = ("bridge(use_double_dummy_result=false)", "decisions")

    def __init__(self, config: WhistConfig | None = None) -> None:
        self.config = config or WhistConfig()
        self.trump = TRUMPS.index(self.config.trump) - 1
        self.leader = SEATS.index(self.config.leader)

    def __hash__(self) -> int:
        return hash(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WhistEnv) and other.config == self.config

    # ---- the API ------------------------------------------------------------------------------
    @staticmethod
    def _start(loc: Array, trump: Array | int, leader: Array | int) -> WhistState:
        """The state before the opening lead: cards `loc` (owner per card), `trump`, `leader`."""
        loc = jnp.asarray(loc).astype(jnp.int8)
        leader = jnp.asarray(leader, jnp.int32)
        h, _ = LAYOUT.pack(dict(trump=trump, first=leader, leader=leader, trick=0, nplayed=0,
                                led=-1, best_s=0, best_p=leader, ns=0, ew=0,
                                winners=jnp.full(NUM_TRICKS, -1)))
        return WhistState(
            current_player=leader.astype(jnp.int8),
            legal_action_mask=loc == leader,
            rewards=jnp.zeros(4, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            illegal_action=jnp.bool_(False),
            step_count=jnp.int32(0),
            _loc=loc, _h=h,
        )

    def _init(self, key: Array) -> WhistState:
        """A uniform deal: the cards in places 13p..13p+12 of a random permutation go to p."""
        deal = dealing.shuffle(key, np.ones(NUM_CARDS, bool), (NUM_TRICKS,) * 4)
        return self._start(deal.hand, self.trump, self.leader)

    def _step(self, s: WhistState, action: Array, key: Array) -> WhistState:
        """Card `action` played by the current player (legal: `Env.step` checked the mask).
        The trick's best card is a running maximum of `card_strength`; the fourth card ends
        the trick, the winner's side scores it and leads next; the 13th trick pays."""
        g = LAYOUT.unpack(s)
        a = action.astype(jnp.int32)
        cur = s.current_player.astype(jnp.int32)
        t = g["trick"]
        suit = a // 13
        before = trick_kernel.Trick(led=g["led"], best=g["best_s"], winner=g["best_p"],
                                    points=0, count=g["nplayed"])
        strength = trick_kernel.card_strength(suit, a % 13, trick_kernel.led_after(
            before, suit), g["trump"], jnp.bool_(False))
        trick, complete = trick_kernel.add_play(before, cur, suit, strength, 0, 4)
        best_s, best_p = trick.best, trick.winner
        loc = jnp.where(CARD_IDS == a, PLAYED + 4 * t + cur, s._loc.astype(jnp.int32))
        ns_won = complete & (best_p % 2 == 0)
        ew_won = complete & (best_p % 2 == 1)
        ns, ew = g["ns"] + ns_won, g["ew"] + ew_won
        nxt = jnp.where(complete, best_p, (cur + 1) % 4)  # the winner leads the next trick
        led = jnp.where(complete, -1, trick.led)
        done = t + complete == NUM_TRICKS
        winners = jnp.where(complete & (jnp.arange(NUM_TRICKS) == t), best_p, g["winners"])
        h, _ = LAYOUT.pack(g | dict(leader=jnp.where(complete, best_p, g["leader"]),
                                    trick=t + complete, nplayed=trick.count, led=led,
                                    best_s=best_s, best_p=best_p, ns=ns, ew=ew,
                                    winners=winners))
        side = jnp.stack([ns, ew, ns, ew]).astype(jnp.float32)
        hand = loc == nxt
        return s.replace(
            current_player=nxt.astype(jnp.int8),
            legal_action_mask=trick_kernel.follow_mask(hand, SUIT, led),
            rewards=jnp.where(done, side, 0.0),
            terminated=done,
            _loc=loc.astype(jnp.int8),
            _h=h,
        )

    def _deal_done(self, state: WhistState) -> Array:
        return state._h[..., TRICK] == NUM_TRICKS

    def _observe(self, s: WhistState, player: Array) -> Array:
        """`OBS_SPEC`'s fields; the layout: docs/rules/whist.md, section Information."""
        loc, g = s._loc.astype(jnp.int32), LAYOUT.unpack(s)
        played = loc >= PLAYED
        code = loc - PLAYED
        cards = jnp.stack([loc == player, jnp.where(played, code % 4, -1),
                           jnp.where(played, code // 4, -1)], axis=1)
        return OBS_SPEC.assemble({
            "cards": cards, "me": player, "current_player": s.current_player,
            "trump": g["trump"], "first_leader": g["first"], "leader": g["leader"],
            "trick": g["trick"], "n_played": g["nplayed"], "led_suit": g["led"],
            "tricks": jnp.stack([g["ns"], g["ew"]]), "winners": g["winners"],
        })

    @staticmethod
    def observation_spec() -> ObservationSpec:
        return OBS_SPEC

    # ---- names --------------------------------------------------------------------------------
    def action_name(self, action: int, state: WhistState | None = None) -> str:
        """'play AS', 'play TD', ..."""
        a = int(action)
        if not 0 <= a < NUM_CARDS:
            raise ValueError(f"bad action {action}: not an action id 0..{NUM_CARDS - 1}")
        return ACTION_NAMES[a]

    def action_from_name(self, name: str, state: WhistState | None = None) -> int:
        """The inverse of `action_name`."""
        text = " ".join(str(name).split())
        if text not in ACTION_IDS:
            raise ValueError(f"unknown action name {name!r}: want 'play <card>', e.g. 'play AS'")
        return ACTION_IDS[text]

    # ---- deal strings -------------------------------------------------------------------------
    def from_deal(self, deal: str, key: Array | None = None) -> WhistState:
        """The state before the opening lead of a deal given as

        - a deal string `whist [trump=NT|S|H|D|C] [leader=N|E|S|W] | <N> | <E> | <S> | <W>`
          (hands as card tokens; missing fields take the env's flags), or
        - a PBN deal `N:<hand> <hand> <hand> <hand>` (`kanjax.core.pbn`), with the env's flags.
        `key` is unused (no chance)."""
        trump, leader = self.trump, self.leader
        if looks_like_pbn(deal):
            hands = parse_pbn(deal)
        else:
            d, f = read_deal(deal, self.name, DECK, DEAL_FIELDS)
            trump = TRUMPS.index(f.choice("trump", TRUMPS, self.config.trump)) - 1
            leader = SEATS.index(f.choice("leader", tuple(SEATS), self.config.leader))
            if len(d.hands) != 4:
                raise ValueError(f"deal has {len(d.hands)} hands: want 4 (N, E, S, W)")
            hands = d.hands
        loc = np.full(NUM_CARDS, -1, np.int32)
        for p, hand in enumerate(hands):
            if len(hand) != NUM_TRICKS:
                raise ValueError(f"hand of {SEATS[p]} has {len(hand)} cards: want {NUM_TRICKS}")
            for c in hand:
                if loc[c] >= 0:
                    raise ValueError(f"card {CARD_TOKENS[c]} is dealt twice (hands of "
                                     f"{SEATS[loc[c]]} and {SEATS[p]})")
                loc[c] = p
        return _start_jitted(loc, trump, leader)

    @staticmethod
    def deal_string(state: WhistState) -> str:
        """The hands as they are now (unbatched), trump and opening leader, as a deal string
        (`from_deal` reads it back before the opening lead)."""
        s = summary_numpy(state)
        owner = s["hand_owner"]
        trump, first = int(s["trump"]), int(s["first_leader"])
        hands = [DECK.format_hand(DECK.sort_hand(np.flatnonzero(owner == p))) for p in range(4)]
        return " | ".join([f"whist trump={TRUMPS[trump + 1]} leader={SEATS[first]}", *hands])

    # ---- views --------------------------------------------------------------------------------
    def summary(self, state: WhistState) -> dict[str, Array]:
        return summary(state)

    def render(self, state: WhistState) -> str:
        """Trump, opening leader, tricks, each hand by suit, the current trick, whose turn."""
        s = summary_numpy(state)
        lines = [f"{_header(s)}  {_tricks(s)}"]
        owner = s["hand_owner"]
        for p in range(4):
            lines.append(f"{SEATS[p]}  {DECK.format_by_suit(np.flatnonzero(owner == p))}")
        played = _current_trick(s)
        if played:
            lines.append(f"trick {int(s['trick']) + 1}: " + ", ".join(
                f"{SEATS[p]} {DECK.token(c)}" for p, c in played))
        lines.append(self.status_line(state, SEATS.__getitem__, over="game over"))
        return "\n".join(lines)

    def seats_played_with(self, state: WhistState, player: int) -> tuple[int, ...]:
        """The declarer's side is one person, as in bridge: the declarer (at the opening
        leader's right) plays the dummy's cards too, and a person given the dummy's seat plays
        the declarer's; a defender plays his own."""
        declarer = (int(summary_numpy(state)["first_leader"]) + 3) % 4
        dummy = (declarer + 2) % 4
        return (declarer, dummy) if player in (declarer, dummy) else (player,)

    def scene(self, state: WhistState, player: int | None = None) -> Scene:
        """Trump, opening leader and trick in the header; the seats in play order from S (at
        the bottom, as bridge diagrams draw them) with their roles (bridge's: the declarer sits
        at the opening leader's right) and tricks taken; the current trick with its owners
        (between tricks: the one just taken).
        For `player`, what `observe` gives him: his own hand, the others' as counts, the legal
        plays only when he is to act."""
        s = summary_numpy(state)
        viewer = check_viewer(player, 4)
        first, owner = int(s["first_leader"]), s["hand_owner"]
        roles = {(first + 3) % 4: "declarer", (first + 1) % 4: "dummy"}
        done = bool(state.terminated | state.truncated)
        to_act = None if done else int(state.current_player)
        tricks = s["tricks"]
        seats = tuple(Seat(
            player=p, label=SEATS[p], role=roles.get(p, "defence"),
            cards=tuple(DECK.token(c) for c in DECK.sort_hand(np.flatnonzero(owner == p)))
            if viewer in (None, p) else None,
            count=int((owner == p).sum()), notes=(f"side tricks {int(tricks[p % 2])}",),
            to_act=p == to_act) for p in (2, 3, 0, 1))
        t, label = int(s["trick"]), f"trick {int(s['trick']) + 1}"
        played = _current_trick(s)
        if not played and t > 0:  # between tricks: the one just taken
            played = _taken_trick(s, t - 1)
            label = f"trick {t}, taken by {SEATS[int(s['winners'][t - 1])]}"
        table = (Group(label, tuple(DECK.token(c) for _, c in played),
                       tuple(p for p, _ in played)),) if played else ()
        shown = t if _current_trick(s) else t - 1
        table += face_down(("earlier tricks", int(((s["played"] >= 0)
                                                   & (s["played"] // 4 < shown)).sum())))
        status = "game over" if done else f"to act: {SEATS[to_act]}"
        if done and bool(state.illegal_action):
            status += " (illegal action)"
        return Scene(
            game=self.name, header=_header(s), seats=seats, table=table, scores=(_tricks(s),),
            to_act=to_act, legal=tuple(self.action_name(a) for a in legal_actions(state))
            if not done and viewer in (None, to_act) else (), status=status, viewer=viewer)

    # ---- trick play for the double-dummy solvers ---------------------------------------------
    def trick_rules(self, state: Any = None) -> dict[str, Any]:
        """Plain trick-taking: 4 players, 13 tricks of 1 point, no point cards, no joker;
        the seats N E S W."""
        return dict(game=self.name, n=4, n_tricks=NUM_TRICKS, ids=tuple(range(NUM_CARDS)),
                    suit=tuple(int(x) for x in SUIT), rank=tuple(int(x) for x in RANK),
                    points=(0,) * NUM_CARDS, trick_value=1, tokens=CARD_TOKENS,
                    suit_names="SHDC", seat_names=tuple(SEATS))

    def trick_position(self, state: WhistState) -> dict[str, Any]:
        """Seats: the players N E S W = 0..3; the side: the opening leader's partnership (as
        DDS's SolveBoard at the start), taken / taken_other its and the other side's tricks."""
        h = np.asarray(state._h).astype(np.int32)
        loc = np.asarray(state._loc).astype(np.int32)
        t, nplayed, leader = int(h[TRICK]), int(h[NPLAYED]), int(h[LEADER])
        if t == NUM_TRICKS or bool(np.asarray(state.terminated | state.truncated)):
            raise ValueError("whist: the deal is over; a double-dummy position needs trick play")
        trick = []
        for i in range(nplayed):
            played = np.flatnonzero(loc == PLAYED + 4 * t + (leader + i) % 4)
            if len(played) != 1:
                raise ValueError(f"whist: bad state: {len(played)} cards of "
                                 f"{SEATS[(leader + i) % 4]} in the current trick")
            trick.append(int(played[0]))
        side = int(h[FIRST]) % 2
        tricks = (int(h[NS]), int(h[EW]))
        return dict(
            players=(0, 1, 2, 3),
            hands=tuple(tuple(int(c) for c in np.flatnonzero(loc == p)) for p in range(4)),
            trump=int(h[TRUMP]), leader=leader, side=tuple(s % 2 == side for s in range(4)),
            trick=tuple(trick), led=int(h[LED]) if nplayed else -1, tricks_done=t,
            taken=tricks[side], taken_other=tricks[1 - side],
            moves=tuple(int(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))))

    def trick_start(self, deal: str, key: Array | None = None, trump: Any = None,
                    leader: Any = None) -> WhistState:
        """The state before the opening lead: trump and opening leader are the deal string's
        fields, else `trump=` / `leader=` ("NT" / "S" / ... or -1..3, "N" / "E" / ... or
        0..3), else the env's flags. A `trump=` or `leader=` the string sets otherwise raises
        ValueError."""
        t = self.trump if trump is None else trump_index(trump)
        first = self.leader if leader is None else seat_index(leader)
        fields = {} if looks_like_pbn(deal) else dict(cards_mod.deal_header(deal).fields)
        state = self.from_deal(deal)
        h = np.asarray(state._h).astype(np.int32)
        if "trump" in fields:
            if trump is not None and t != int(h[TRUMP]):
                raise ValueError(f"trump={trump!r}, but the deal string sets trump="
                                 f"{fields['trump']}")
            t = int(h[TRUMP])
        if "leader" in fields:
            if leader is not None and first != int(h[FIRST]):
                raise ValueError(f"leader={leader!r}, but the deal string sets leader="
                                 f"{fields['leader']}")
            first = int(h[FIRST])
        return _start_jitted(state._loc, t, first)

    @staticmethod
    def pbn(state: WhistState, first: str = "N") -> str:
        """The hands as they are now (unbatched) as a PBN deal."""
        owner = summary_numpy(state)["hand_owner"]
        return format_pbn([np.flatnonzero(owner == p) for p in range(4)], first)

    # ---- tournament views (`kanjax.api.Env`) -------------------------------------------------
    # Sides: N-S 0, E-W 1; roles (bridge's names): the opening leader's side defends, the
    # other declares. A side wins the deal with 7 or more of the 13 tricks.
    version = "1"
    role_names = ("defence", "declarer")
    deal_columns = (("leader", "string"), ("trump", "string"), ("tricks_ns", "int8"),
                    ("tricks_ew", "int8"))
    heuristic = "kanjax.games.whist.heuristic:make_whist_heuristic"
    worst_score = 0.0  # a player's match score is his side's tricks

    def deal_facts(self, before: WhistState, after: WhistState) -> dict[str, Array]:
        """The deal's sides, roles and winners, its opening leader, trump and tricks."""
        h = after._h.astype(jnp.int32)
        side = jnp.arange(4) % 2
        tricks = jnp.stack([h[NS], h[EW]])
        return {
            "role": (side != h[FIRST] % 2).astype(jnp.int8), "side": side.astype(jnp.int8),
            "won": 2 * tricks[side] > NUM_TRICKS, "counted": jnp.bool_(True),
            "leader": h[FIRST].astype(jnp.int8), "trump": h[TRUMP].astype(jnp.int8),
            "tricks": tricks.astype(jnp.int8),
        }

    def deal_row(self, facts: dict) -> dict:
        """The `deals` columns: opening leader (N E S W), trump (NT S H D C), tricks by side."""
        return {"leader": SEATS[int(facts["leader"])], "trump": TRUMPS[int(facts["trump"]) + 1],
                "tricks_ns": int(facts["tricks"][0]), "tricks_ew": int(facts["tricks"][1])}


def trump_index(trump: str | int) -> int:
    """A trump given as a name ("NT", "S", "H", "D", "C") or a suit index (-1 NT, 0..3)."""
    if trump in TRUMPS:
        return TRUMPS.index(trump) - 1
    if trump in (-1, 0, 1, 2, 3) and not isinstance(trump, bool):
        return int(trump)
    raise ValueError(f"trump={trump!r}: want one of {', '.join(TRUMPS)}")


def seat_index(seat: str | int) -> int:
    """A seat given as a letter (N E S W) or an index 0..3."""
    if isinstance(seat, str) and len(seat) == 1 and seat in SEATS:
        return SEATS.index(seat)
    if seat in (0, 1, 2, 3) and not isinstance(seat, bool):
        return int(seat)
    raise ValueError(f"leader={seat!r}: want one of {', '.join(SEATS)}")


_start_jitted = jax.jit(WhistEnv._start)  # from_deal: one compile for every env and deal


def make_whist(name: str, **flags) -> WhistEnv:
    """`kanjax.make` factory: `make_whist("whist", trump="S", leader="E")`."""
    return WhistEnv(WhistConfig.for_game(name, **flags))
