"""Double-dummy `Position`s from what users have: a PBN deal, a kanjax state in trick play, or
a deal string (Kan or whist).

- `from_pbn(pbn, trump, leader)`: a bridge deal (`kanjax.pbn`) as a whist position before
  the opening lead; the side is the leader's partnership.
- `from_state(env, state)`: an unbatched Kan or whist state in trick play -> `(position,
  players)`; `players[seat]` is the kanjax player in Position seat `seat`.
- `deal_state(text, ...)` / `from_deal(text, ...)`: a deal string -> the env's state at the
  first card of trick 1 (the decisions before it taken as below) -> `from_state`.

Kan (`KanState`, kanjax.envs.kan): the Position's seats are the ring positions of the active
players in play order (seat k = the player with `pos == k`; the sitting-out 6-player dealer
is left out); side = the kankei, taken / taken_other = pk / pm (point cards, KAN-3), trump
and tricks_done from the header, the current trick's cards in play order from its leader and
its led suit (the suit named by a JK lead, KAN-26). Where the state's legal mask allows fewer
trick-play moves than the trick rules the solver plays (`kan_rules`: Yonin's compulsory
first lead, KAN-53), the mask's moves become `root_moves`. The solver plays no contracts: a
move the mask allows beyond those rules (a Yonin declarer's JK in trick 1, KAN-58) is left
out.

Whist (`WhistState`, kanjax.envs.whist): seats are the players N E S W = 0..3; the side is
the opening leader's partnership (as in `from_pbn` and DDS's SolveBoard at the start), taken /
taken_other its and the other side's tricks.
"""

from __future__ import annotations

import re

import numpy as np

from kanjax.pbn import SEATS, parse_pbn
from solvers.position import NO_TRUMP, WHIST, Position, kan_rules

WHIST_TRUMPS = ("NT", "S", "H", "D", "C")  # suit index = position - 1 (NT: -1)
KAN_SUITS = "CDHS"  # Kan suit ids 0..3 (kan.md §15)
_PBN_START = re.compile(r"\s*[A-Za-z]:")


def _whist_trump(trump: str | int) -> int:
    if trump in WHIST_TRUMPS:
        return WHIST_TRUMPS.index(trump) - 1
    if trump in (NO_TRUMP, 0, 1, 2, 3) and not isinstance(trump, bool):
        return int(trump)
    raise ValueError(f"trump={trump!r}: want one of {', '.join(WHIST_TRUMPS)}")


def _whist_seat(leader: str | int) -> int:
    if isinstance(leader, str) and len(leader) == 1 and leader in SEATS:
        return SEATS.index(leader)
    if leader in (0, 1, 2, 3) and not isinstance(leader, bool):
        return int(leader)
    raise ValueError(f"leader={leader!r}: want one of {', '.join(SEATS)}")


def from_pbn(pbn: str, trump: str, leader: str) -> Position:
    """A full bridge deal in PBN (`N:<hand> <hand> <hand> <hand>`, `kanjax.pbn`) as a whist
    Position before the opening lead: trump "NT" / "S" / "H" / "D" / "C", `leader` "N" / "E" /
    "S" / "W" (seat indices 0..3 and suit indices -1..3 are accepted too); the side is the
    leader's partnership. Bad input raises ValueError (`CardError` for the PBN text)."""
    hands = parse_pbn(pbn)
    t, lead = _whist_trump(trump), _whist_seat(leader)
    return Position(WHIST, hands, t, lead, tuple(s % 2 == lead % 2 for s in range(4)))


# ---- states ---------------------------------------------------------------------------------
def from_state(env, state) -> tuple[Position, tuple[int, ...]]:
    """An unbatched Kan or whist state in trick play -> (position, players), `players[seat]`
    the kanjax player in Position seat `seat` (so `players[position.to_move]` is
    `state.current_player`). ValueError, naming the phase, outside trick play."""
    from kanjax.envs.kan import KanEnv
    from kanjax.envs.whist import WhistEnv

    if np.ndim(state.current_player) != 0:
        raise ValueError(f"from_state takes one state, not a batch of shape "
                         f"{np.shape(state.current_player)}")
    if isinstance(env, KanEnv):
        return _kan_position(env, state)
    if isinstance(env, WhistEnv):
        return _whist_position(state)
    raise ValueError(f"from_state: no double-dummy positions for {getattr(env, 'name', env)!r}; "
                     "games: gonin_kan, yonin_kan, gambari_kan, whist")


def _kan_rules(env):
    c = env.config
    if env.name == "yonin_kan":
        return kan_rules(env.name, c.yonin_removed_five, c.yonin_joker_trick1_contract)
    return kan_rules(env.name)


def _slots(env, state) -> dict[str, np.ndarray]:
    """The header slots of an unbatched Kan state, in numpy (`Layout.unpack` without JAX)."""
    h = np.asarray(state._h).astype(np.int32)
    return {k: h[i] for k, i in env.layout.head.items()}


def _kan_position(env, state) -> tuple[Position, tuple[int, ...]]:
    from kanjax.envs.kan import PHASE_NAMES, PLAY, PLAYED

    g = _slots(env, state)
    phase = int(g["phase"])
    if phase != PLAY or bool(np.asarray(state.terminated | state.truncated)):
        what = "the match is over" if phase == PLAY else f"phase {PHASE_NAMES[phase]}"
        raise ValueError(f"{env.name}: the state is not in trick play ({what}); a double-dummy "
                         "position needs phase PLAY")
    loc = np.asarray(state._loc).astype(np.int32)
    players = tuple(int(np.flatnonzero(g["pos"] == k)[0]) for k in range(env.active))
    seat = {p: k for k, p in enumerate(players)}
    t, nplayed = int(g["trick"]), int(g["nplayed"])
    leader = seat[int(g["leader"])]
    trick = []
    for i in range(nplayed):
        played = np.flatnonzero(loc == PLAYED + 8 * t + players[(leader + i) % env.active])
        if len(played) != 1:
            raise ValueError(f"{env.name}: bad state: {len(played)} cards of player "
                             f"{players[(leader + i) % env.active]} in the current trick")
        trick.append(int(played[0]))
    rules = _kan_rules(env)
    hands = tuple(tuple(int(c) for c in np.flatnonzero(loc == p)) for p in players)
    to_move = (leader + nplayed) % env.active
    if players[to_move] != int(state.current_player):
        raise ValueError(f"{env.name}: bad state: player {int(state.current_player)} to act, "
                         f"but player {players[to_move]} is next in the trick")
    led = int(g["led"]) if nplayed else -1
    mask = set(np.flatnonzero(np.asarray(state.legal_action_mask)[: rules.num_moves]).tolist())
    allowed = set(_kan_trick_moves(rules, hands[to_move], t, None if not nplayed else led))
    root = tuple(sorted(mask & allowed)) if mask & allowed != allowed else None
    pos = Position(rules, hands, int(g["trump"]), leader,
                   tuple(bool(g["kankei"][p] > 0) for p in players), tuple(trick), led, t,
                   int(g["pk"]), int(g["pm"]), root)
    return pos, players


def _kan_trick_moves(rules, hand, t: int, led: int | None) -> list[int]:
    """The moves the solver's trick rules allow (no contracts): the plain-Python references'
    KAN-24..26 (Gonin joker rules) or KAN-24, 26, 54, 58 (Yonin), trick index `t` 0..9."""
    if rules.joker == "yonin":
        from kanjax.reference.yonin_kan import yonin_trick_legal_actions

        jk_ok = t > 0 or (rules.yonin_joker_trick1 == "lead" and led is not None)  # KAN-58
        return yonin_trick_legal_actions(hand, led, jk_ok)
    from kanjax.reference.gonin_kan import trick_legal_actions

    return trick_legal_actions(hand, t + 1, led)


def _whist_position(state) -> tuple[Position, tuple[int, ...]]:
    from kanjax.envs import whist as w

    h = np.asarray(state._h).astype(np.int32)
    loc = np.asarray(state._loc).astype(np.int32)
    t, nplayed, leader = int(h[w.TRICK]), int(h[w.NPLAYED]), int(h[w.LEADER])
    if t == w.NUM_TRICKS or bool(np.asarray(state.terminated | state.truncated)):
        raise ValueError("whist: the deal is over; a double-dummy position needs trick play")
    trick = []
    for i in range(nplayed):
        played = np.flatnonzero(loc == w.PLAYED + 4 * t + (leader + i) % 4)
        if len(played) != 1:
            raise ValueError(f"whist: bad state: {len(played)} cards of {SEATS[(leader + i) % 4]}"
                             " in the current trick")
        trick.append(int(played[0]))
    side = int(h[w.FIRST]) % 2
    tricks = (int(h[w.NS]), int(h[w.EW]))
    pos = Position(WHIST, tuple(tuple(int(c) for c in np.flatnonzero(loc == p))
                                for p in range(4)),
                   int(h[w.TRUMP]), leader, tuple(s % 2 == side for s in range(4)),
                   tuple(trick), int(h[w.LED]) if nplayed else -1, t, tricks[side],
                   tricks[1 - side])
    return pos, (0, 1, 2, 3)


# ---- deal strings ---------------------------------------------------------------------------
def deal_state(text: str, game: str | None = None, *, trump: str | int | None = None,
               leader: str | int | None = None, key=None, **flags):
    """(env, state) for a deal string, at the first card of trick 1.

    `game`: the env (default: the deal string's first word; a PBN deal is whist); `flags`:
    the env's flags (`players=6`, `yonin_removed_five="C"`, ...; a Kan deal string's own
    `players=` / `yonin_removed_five=` fields are used when not given); `key`: the chance a
    Kan deal may still need (a nijū exchange, KAN-18, without `nijuu=`).

    What `env.from_deal` leaves undecided before trick play, and how it is decided here:
    - whist: trump and opening leader are the deal string's fields, else `trump=` /
      `leader=` ("NT" / "S" / ..., "N" / "E" / ...), else the env's flags (NT, W);
    - Gonin deal 1 (at IKU/KOI, KAN-21): `leader=` one of the two kankei (default: the default
      leader); trump is the round's (KAN-11);
    - Gonin deals 2/3 (at the signal, KAN-38): the signal shows nothing (F5, or the first
      legal one); `trump=` (C / D / H / S or 0..3) is required; the chooser leads;
    - Yonin deal 1 (at the first contract decision): no contract (the solver plays none); the
      AS (AC) holder leads (KAN-53); Yonin deals 2/3 (at the trump choice, KAN-57): `trump=`
      is required, the chooser leads, no contract;
    - Gambari (at the bidding, KAN-65): `leader=` (the player who bids KAN at once, the lone
      kankei) is required; trump is the round's.
    A `trump=` or `leader=` the rules fix otherwise raises ValueError.
    """
    import jax

    import kanjax

    game = game or deal_game(text)
    if game == "whist":
        env_flags = dict(flags)
        if trump is not None:
            env_flags["trump"] = WHIST_TRUMPS[_whist_trump(trump) + 1]
        if leader is not None:
            env_flags["leader"] = SEATS[_whist_seat(leader)]
        env = kanjax.make("whist", **env_flags)
        state = env.from_deal(text)
        pos, _ = _whist_position(state)
        if trump is not None and _whist_trump(trump) != pos.trump:
            raise ValueError(f"trump={trump!r}, but the deal string sets trump="
                             f"{WHIST_TRUMPS[pos.trump + 1]}")
        if leader is not None and _whist_seat(leader) != pos.leader:
            raise ValueError(f"leader={leader!r}, but the deal string sets leader="
                             f"{SEATS[pos.leader]}")
        return env, state
    if game not in ("gonin_kan", "yonin_kan", "gambari_kan"):
        raise ValueError(f"from_deal: no double-dummy positions for game {game!r}; games: "
                         "gonin_kan, yonin_kan, gambari_kan, whist (or a PBN deal)")

    if trump is not None:
        if trump in tuple(KAN_SUITS):
            trump = KAN_SUITS.index(trump)
        elif trump not in (0, 1, 2, 3) or isinstance(trump, bool):
            raise ValueError(f"trump={trump!r}: want one of C, D, H, S (or 0..3)")
    if leader is not None and (not isinstance(leader, int | np.integer) or isinstance(
            leader, bool) or leader < 0):
        raise ValueError(f"leader={leader!r}: want a player (0, 1, ...)")
    env = kan_env(text, game, **flags)
    state = env.from_deal(text, key)
    return env, _kan_to_play(env, state, trump, leader, jax.random.PRNGKey(0))


def kan_env(text: str, game: str, **flags):
    """The Kan env of a deal string: `flags`, plus the string's own `players=` /
    `yonin_removed_five=` fields where `flags` does not set them."""
    import kanjax
    from kanjax import cards

    header = cards.parse_deal(text.split("|")[0])
    players, five = header.field("players"), header.field("yonin_removed_five")
    if game == "gonin_kan" and players in ("5", "6"):
        flags.setdefault("players", int(players))
    if game == "yonin_kan" and five is not None:
        flags.setdefault("yonin_removed_five", five)
    return kanjax.make(game, **flags)


def deal_game(text: str) -> str:
    """The game of a deal string: its first word, or whist for a PBN deal."""
    return "whist" if _PBN_START.match(text) else (text.split() or [""])[0]


def _kan_to_play(env, state, trump, leader, key):
    """Take the decisions before trick 1 (see `deal_state`); `trump` a suit index or None."""
    from kanjax.envs import kan_spec as ks
    from kanjax.envs.kan import BID, CONTRACT, IKU_KOI, PHASE_NAMES, PLAY, SIGNAL, TRUMP

    if leader is not None and leader >= env.num_players:
        raise ValueError(f"leader={leader}: want a player 0..{env.num_players - 1}")

    def slot(name: str) -> int:
        return int(_slots(env, state)[name])

    def act(action: int) -> None:
        nonlocal state
        if not bool(np.asarray(state.legal_action_mask)[action]):
            raise ValueError(f"{env.name}: {env.action_name(action)} is not legal here "
                             f"(player {int(state.current_player)}, phase "
                             f"{PHASE_NAMES[slot('phase')]})")
        state = env.step(state, action, key)

    trump_free = False
    for _ in range(3 * env.num_players * 10):
        phase, cur = slot("phase"), int(state.current_player)
        if phase == PLAY:
            break
        if phase == IKU_KOI:  # KAN-21: both IKU -> the default leader leads
            kankei = np.flatnonzero(_slots(env, state)["kankei"] > 0)
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
                raise ValueError(f"{env.name} deal {slot('deal')}: player {cur} chooses trump "
                                 "before trick 1 (KAN-39, KAN-57): give trump=C|D|H|S")
            if leader is not None and leader != cur:
                raise ValueError(f"leader={leader}: the trump chooser, player {cur}, leads "
                                 "trick 1 (KAN-39, KAN-57)")
            trump_free = True
            act(ks.TRUMP + trump)
        elif phase == CONTRACT:  # KAN-56: the solver plays no contracts
            act(ks.CONTRACT_NONE)
        elif phase == BID:  # KAN-65: `leader` bids KAN, the others before him pass
            if leader is None:
                raise ValueError(f"{env.name}: the bidding decides the lone kankei, who leads "
                                 "trick 1 (KAN-65): give leader=<player>")
            act(ks.KAN_BID if cur == leader else ks.PASS_BID)
        else:
            raise ValueError(f"{env.name}: the deal string's state is in phase "
                             f"{PHASE_NAMES[phase]}, not before trick play")
    else:
        raise ValueError(f"{env.name}: no trick play after {3 * env.num_players * 10} "
                         "decisions")
    if trump is not None and not trump_free and trump != slot("trump"):
        raise ValueError(f"trump={KAN_SUITS[trump]}: the rules fix this deal's trump to "
                         f"{KAN_SUITS[slot('trump')]} (KAN-11)")
    if leader is not None and leader != slot("leader"):
        raise ValueError(f"leader={leader}: player {slot('leader')} leads trick 1 here "
                         "(Yonin deal 1: the AS holder, AC when spades are trump, KAN-53)")
    return state


def from_deal(text: str, game: str | None = None, *, trump: str | int | None = None,
              leader: str | int | None = None, key=None,
              **flags) -> tuple[Position, tuple[int, ...]]:
    """The position at the first card of trick 1 of a deal string (Kan or whist; a PBN deal
    is whist): `from_state(*deal_state(...))`, see `deal_state` for the arguments and what is
    decided before trick 1. Returns (position, players) like `from_state`."""
    return from_state(*deal_state(text, game, trump=trump, leader=leader, key=key, **flags))
