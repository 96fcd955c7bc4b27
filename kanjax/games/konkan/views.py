"""Konkan's views of one state (`KonkanEnv.render`, `KonkanEnv.scene`): they read the env's
`summary` as numpy arrays (`spec`'s summary keys)."""

from __future__ import annotations

import numpy as np

from kanjax.api import Env, State
from kanjax.core.scenes import label, legal_names, shows_mover, status, to_act
from kanjax.games.konkan import spec as ks
from kanjax.scene import Group, Scene, Seat


def head_line(config: ks.KonConfig, s: dict[str, np.ndarray]) -> str:
    """The variant, the round, the dealer, the stock and the phase."""
    return (f"konkan n={config.n}{' pairs' if config.partnership else ''}  round "
            f"{int(s['round'])}/{config.n_rounds}  dealer {label(int(s['dealer']))}  stock "
            f"{int(s['stock'])}  phase {ks.PHASE_NAMES[int(s['phase'])]}")


def totals_line(s: dict[str, np.ndarray]) -> str:
    """The match totals so far, by player: `totals  P0 12  P1 -3 ...`."""
    return "totals  " + "  ".join(f"{label(p)} {int(v)}" for p, v in enumerate(s["totals"]))


def multiset(counts: np.ndarray) -> list[int]:
    """The card types of a count per type (a hand, the pile, a selection), in type order."""
    return [t for t in range(ks.NUM_TYPES) for _ in range(int(counts[t]))]


def melds(s: dict[str, np.ndarray]) -> list[tuple[int, str]]:
    """The table's melds: (slot, kind name) of each slot in use."""
    return [(m, "run" if int(k) == ks.RUN_MELD else "set")
            for m, k in enumerate(s["meld_kind"]) if int(k) >= 0]


def meld_tokens(s: dict[str, np.ndarray], m: int) -> list[str]:
    """The tokens of meld slot `m`: a run from its low end (a joker `JK` where it stands in),
    a set's naturals by suit and then its jokers."""
    deck = ks.DECK
    cells = s["meld_cards"][m]
    if int(s["meld_kind"][m]) == ks.RUN_MELD:
        su = int(s["meld_suit"][m])
        return [deck.token(ks.card_type(su, ks.position_rank(q))) if cells[q] == ks.NATURAL
                else "JK" for q in range(ks.RUN_POSITIONS) if cells[q]]
    r = int(s["meld_rank"][m])
    return ([deck.token(ks.card_type(u, r)) for u in range(ks.NUM_SUITS) if cells[u]]
            + ["JK"] * int(s["meld_jokers"][m]))


def _sorted(counts: np.ndarray) -> tuple[str, ...]:
    return tuple(ks.DECK.token(t) for t in ks.DECK.sort_hand(multiset(counts)))


def scene(env: Env, state: State, s: dict[str, np.ndarray], player: int | None) -> Scene:
    """`state` (its `summary` `s`, with the last round's `finisher`) as a scene: every hand
    open, or with `player` his alone (a partner's is hidden too); each meld under its slot
    and owner, the discard pile (top last), the stock; totals and the last round's scores;
    how the last round ended."""
    config: ks.KonConfig = env.config
    n = config.n
    mover = to_act(state)
    dealer = int(s["dealer"])
    seats = []
    for p in range(n):
        notes = [f"team {config.team(p)}"] if config.partnership else []
        notes += [k for k in ("opened", "requested") if s[k][p]]
        if p == mover and int(s["taken"]) >= 0:
            notes.append(f"took {ks.DECK.token(int(s['taken']))}")
        seats.append(Seat(p, label(p), "dealer" if p == dealer else "",
                          cards=_sorted(s["hands"][p]) if player in (None, p) else None,
                          count=int(s["hands"][p].sum()), notes=tuple(notes),
                          to_act=p == mover))
    table = [Group(f"meld {m} {label(int(s['meld_owner'][m]))} {kind}",
                   tuple(meld_tokens(s, m))) for m, kind in melds(s)]
    if s["selection"].any() and shows_mover(mover, player):
        table.append(Group(f"{label(mover)} picked", _sorted(s["selection"])))
    top = int(s["pile_top"])
    pile = s["pile"].astype(np.int64)
    if top >= 0:
        pile[top] -= 1
        table.append(Group("discard pile, top last", _sorted(pile) + (ks.DECK.token(top),)))
    table.append(Group("stock", (), hidden=int(s["stock"])))
    scores = [totals_line(s)]
    outcome = int(s["outcome"])
    last = ""
    if outcome >= 0:
        scores.append("last round  " + "  ".join(
            f"{label(p)} {int(v)}" for p, v in enumerate(s["round_scores"])))
        finisher = int(s["finisher"])
        last = f"last round: {ks.OUTCOME_NAMES[outcome]}" + (
            f" by {label(finisher)}" if finisher >= 0 else "")
    if mover is None and s["winners"].any():
        last += "; winners " + " ".join(label(p) for p in np.flatnonzero(s["winners"]))
    return Scene(env.name, head_line(config, s), tuple(seats), tuple(table), tuple(scores),
                 mover, legal_names(env, state, player), status(state, "game over", last),
                 player)
