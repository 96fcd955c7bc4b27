"""Text views of states and deals, for people (`kanjax show`) and for records."""

from __future__ import annotations

import numpy as np

from kanjax.api import Env, State
from kanjax.cards import SUIT_CHARS, deck
from kanjax.envs import kan_spec as ks


def _kan_summary(env: Env, state: State) -> dict:
    from kanjax.envs.kan import summary  # the Kan engine; imported late to keep this light

    return {k: np.asarray(v) for k, v in summary(state).items()}


def _hands_by_seat(s: dict, n: int) -> list[list[int]]:
    occupant = np.argsort(s["seat_of"])
    owner = s["hand_owner"]
    return [[int(c) for c in np.flatnonzero(owner == occupant[seat])] for seat in range(n)]


def deal_string(env: Env, state: State) -> str:
    """The hands as they are now, by seat, as a deal string `env.from_deal` accepts (a game
    may write its own: `env.deal_string(state)`; Kan's is here)."""
    own = getattr(env, "deal_string", None)
    if own is not None:
        return own(state)
    s = _kan_summary(env, state)
    n = env.num_players
    the_deck = deck(env.name, **_deck_flags(env))
    head = [env.name]
    if n == 6:
        head.append("players=6")
    head += [
        f"round={int(s['round'])}",
        f"dealer={int(s['dealer'])}",
        "seats=" + ",".join(str(int(p)) for p in np.argsort(s["seat_of"])),
    ]
    if int(s["deal"]) > 1:
        head.append(f"deal={int(s['deal'])}")
    hands = [the_deck.format_hand(the_deck.sort_hand(h)) for h in _hands_by_seat(s, n)]
    return " | ".join([" ".join(head)] + hands)


def _deck_flags(env: Env) -> dict:
    cfg = getattr(env, "config", None)
    return {"yonin_removed_five": cfg.yonin_removed_five} if cfg is not None else {}


def _by_suit(the_deck, cards: list[int]) -> str:
    groups = {s: [] for s in SUIT_CHARS}
    jokers = []
    for c in the_deck.sort_hand(cards):
        tok = the_deck.token(c)
        (groups[tok[1]] if tok[1] in groups else jokers).append(tok[0] if tok[1] in groups else tok)
    parts = [" ".join(jokers)] if jokers else []
    parts += [f"{s}:{''.join(r) or '-'}" for s, r in groups.items()]
    return "  ".join(parts)


def _current_trick(s: dict, n: int) -> list[tuple[int, int]]:
    """(player, card) of the trick in progress, in play order from its leader."""
    played = s["played"]
    cards = np.flatnonzero((played >= 0) & (played // 8 == s["trick"]))
    seat = s["seat_of"]
    order = sorted(
        ((int(played[c] % 8), int(c)) for c in cards),
        key=lambda pc: (seat[pc[0]] - seat[int(s["leader"])]) % n,
    )
    return order


def _show_whist(env: Env, state: State) -> str:
    """A person's view of a whist state: trump, tricks, each hand by suit, the current trick."""
    from kanjax.envs.whist import SEATS, TRUMPS, summary_numpy

    s = summary_numpy(state)
    the_deck = deck(env.name)
    ns, ew = (int(x) for x in s["tricks"])
    trick = int(s["trick"])
    lines = [
        f"whist  trump {TRUMPS[int(s['trump']) + 1]}  opening leader "
        f"{SEATS[int(s['first_leader'])]}  trick {min(trick + 1, 13)}/13  "
        f"tricks N-S {ns} / E-W {ew}",
    ]
    owner = s["hand_owner"]
    for p in range(4):
        lines.append(f"{SEATS[p]}  {_by_suit(the_deck, list(np.flatnonzero(owner == p)))}")
    leader = int(s["leader"])
    played = [(p, int(s["trick_cards"][p])) for p in ((leader + i) % 4 for i in range(4))]
    played = [(p, c) for p, c in played if c >= 0]
    if played:
        lines.append(f"trick {trick + 1}: " + ", ".join(
            f"{SEATS[p]} {the_deck.token(c)}" for p, c in played))
    if bool(state.terminated | state.truncated):
        lines.append("game over" + ("  (illegal action)" if bool(state.illegal_action) else ""))
    else:
        legal = [env.action_name(a, state) for a in env.legal_actions(state)]
        lines.append(f"to act: {SEATS[int(state.current_player)]}   legal: {', '.join(legal)}")
    return "\n".join(lines)


_VIEWS = {"whist": _show_whist}  # games with their own view; the rest are Kan


def show(env: Env, state: State) -> str:
    """A person's view of a state: for Kan the header, scores, each seat's hand by suit, whose
    turn; other games (`_VIEWS`) their own."""
    if env.name in _VIEWS:
        return _VIEWS[env.name](env, state)
    s = _kan_summary(env, state)
    n = env.num_players
    the_deck = deck(env.name, **_deck_flags(env))
    trump = int(s["trump"])
    occupant = np.argsort(s["seat_of"])
    lines = [
        f"{env.name}  round {int(s['round']) + 1}/{env.config.n_rounds}  deal {int(s['deal'])}  "
        f"dealer P{int(s['dealer'])}  trump {'CDHS'[trump] if trump >= 0 else '?'}  "
        f"Rk {int(s['rk']):+d}  Rm {int(s['rm']):+d}  "
        f"points kankei {int(s['points'][0])} / mukankei {int(s['points'][1])}",
        "scores: " + "  ".join(f"P{p} {int(v):+d}" for p, v in enumerate(s["scores"])),
    ]
    if int(s["target"]) >= 0:  # Gambari (KAN-65)
        lines.append(f"kankei target {int(s['target'])}" if s["kankei"].any()
                     else f"bidding at target {int(s['target'])}")
    kind, declarer = (int(x) for x in s["contract"])
    if kind:  # Yonin (KAN-56)
        lines.append(f"contract {('SKUNK', 'ALL16')[kind - 1]} declared by P{declarer}")
    hands = _hands_by_seat(s, n)
    teams = s["kankei"].any()
    for seat in range(n):
        p = int(occupant[seat])
        role = ("kankei  " if s["kankei"][p] else "dealer  " if not hands[seat]
                else "mukankei" if teams else "        ")
        lines.append(f"seat {seat}  P{p}  {role}  {_by_suit(the_deck, hands[seat])}")
    trick = _current_trick(s, n)
    if trick:
        lines.append(f"trick {int(s['trick']) + 1}: " + ", ".join(
            f"P{p} {the_deck.token(c)}" for p, c in trick))
    if bool(state.terminated | state.truncated):
        lines.append("match over" + ("  (illegal action)" if bool(state.illegal_action) else ""))
    else:
        legal = [env.action_name(a, state) for a in env.legal_actions(state)]
        shown = ", ".join(legal[:12]) + (f", ... ({len(legal)} in all)" if len(legal) > 12 else "")
        lines.append(f"to act: P{int(state.current_player)}   legal: {shown}")
    if int(s["last_outcome"]) >= 0:
        lines.append(f"last deal: {ks.OUTCOME_NAMES[int(s['last_outcome'])]}")
    return "\n".join(lines)
