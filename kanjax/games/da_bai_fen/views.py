"""Da Bai Fen's views of one state (`DbfEnv.render`, `DbfEnv.scene`): they read the env's
`summary` as numpy arrays (`kanjax.games.da_bai_fen.engine.SUMMARY_SLOTS`' names) and, for one
player's scene, his observation."""

from __future__ import annotations

import numpy as np

from kanjax.api import Env, State, jitted
from kanjax.core.scenes import label, legal_names, shows_mover, status, to_act
from kanjax.games.da_bai_fen import spec as ds
from kanjax.scene import Group, Scene, Seat


def head_line(s: dict[str, np.ndarray]) -> str:
    """The hand, its kind, the levels, R and T, the starter, leader and declarers, the phase;
    what the hand has not decided yet said in words."""
    lev = [ds.LEVEL_NAMES.get(int(x), str(int(x))) for x in s["levels"]]
    R, T = int(s["trump_level"]), int(s["trump_suit"])
    leader, declaring = int(s["leader"]), int(s["declaring"])
    phase = int(s["phase"])
    ended = phase in (ds.PHASE_DEAL, ds.PHASE_OVER)  # hands_played counts this hand
    return (f"da_bai_fen  hand {int(s['hands_played']) + (not ended)} "
            f"({ds.HAND_KIND_NAMES[int(s['hand_kind'])]})  levels 0+2 {lev[0]} / 1+3 "
            f"{lev[1]}  R {ds.LEVEL_NAMES.get(R, 'not set')}  T "
            f"{ds.SUITS[T] if T >= 0 else 'not named yet'}  starter {label(int(s['starter']))}"
            f"  leader {label(leader) if leader >= 0 else 'not known yet'}  declarers "
            f"{ds.TEAM_NAMES[declaring] if declaring >= 0 else 'not known yet'}  "
            f"phase {'hand over' if phase == ds.PHASE_DEAL else ds.PHASE_NAMES[phase]}")


def trick_plays(s: dict[str, np.ndarray]) -> list[tuple[int, np.ndarray]]:
    """The current trick's plays in order from its leader: (seat, card ids)."""
    seat = s["trick"]
    lead = int(s["trick_leader"])
    return [(q, np.flatnonzero(seat == q)) for q in ((lead + i) % 4 for i in range(4))
            if (seat == q).any()]


def last_trick(s: dict[str, np.ndarray]) -> list[tuple[int, np.ndarray]]:
    """The last trick this hand completed, in play order: (seat, card ids); [] before the
    first. The leader L leads the first trick, each trick's winner the next (DBF-19)."""
    t = int(s["tricks_done"]) - 1
    by = s["by"]
    if t < 0 or not (by // 4 == t).any():
        return []
    lead = int(s["trick_winners"][t - 1]) if t else int(s["leader"])
    return [(q, cards) for q in ((lead + i) % 4 for i in range(4))
            if len(cards := np.flatnonzero((by >= 0) & (by // 4 == t) & (by % 4 == q)))]


def _tokens(cards) -> tuple[str, ...]:
    return tuple(ds.DECK.token(int(c)) for c in cards)


def _sorted(where: np.ndarray) -> tuple[str, ...]:
    return _tokens(ds.DECK.sort_hand(np.flatnonzero(where)))


def scene(env: Env, state: State, s: dict[str, np.ndarray], player: int | None) -> Scene:
    """`state` (its `summary` `s`) as a scene: every hand open, or with `player` his alone
    and the kitty cards his observation shows (DBF-14's turned cards, the kitty he picked
    up, a shown kitty); the hand's last completed trick (whole, until the next one is) and the
    trick in progress, with their players; the exposed card, the mover's selection (his
    own), each team's earlier tricks taken (their point cards shown), the undealt deck; the
    levels and points; how the last hand ended."""
    loc = s["location"]
    mover = to_act(state)
    declaring = int(s["declaring"])
    seats = []
    for p in range(4):
        role = "" if declaring < 0 else env.role_names[int(p % 2 != declaring)]
        notes = [f"team {ds.TEAM_NAMES[p % 2]}"]
        if p == int(s["leader"]):
            notes.append("leader")
        if p == int(s["exposer"]):
            notes.append(f"exposed {ds.DECK.token(int(s['exposed']))}")
        seats.append(Seat(p, label(p), role,
                          cards=_sorted(loc == p) if player in (None, p) else None,
                          count=int((loc == p).sum()), notes=tuple(notes), to_act=p == mover))
    table = []
    done = last_trick(s)
    if done:  # shown whole, beside the trick in progress, until the next one is complete
        t = int(s["tricks_done"])
        table.append(Group(f"trick {t}, taken by {label(int(s['trick_winners'][t - 1]))}",
                           sum((_tokens(c) for _, c in done), ()),
                           sum(((q,) * len(c) for q, c in done), ())))
    plays = trick_plays(s)
    if plays:
        table.append(Group(f"trick {int(s['tricks_done']) + 1}",
                           sum((_tokens(c) for _, c in plays), ()),
                           sum(((q,) * len(c) for q, c in plays), ())))
    if s["selection"].any() and shows_mover(mover, player):
        table.append(Group(f"{label(mover)} picked", _sorted(s["selection"])))
    kitty = loc == ds.LOC_KITTY
    if kitty.any():
        known = kitty if player is None else kitty & _known_kitty(env, state, player)
        table.append(Group("kitty", _sorted(known), hidden=int((kitty & ~known).sum())))
    in_done = (s["by"] >= 0) & (s["by"] // 4 == int(s["tricks_done"]) - 1)
    for team in range(2):  # the earlier tricks taken: their point cards, the rest face down
        won = (loc == ds.LOC_WON + team) & ~in_done
        if won.any():
            points = won & (np.asarray(ds.CARD_POINTS) > 0)
            table.append(Group(f"{ds.TEAM_NAMES[team]} took", _sorted(points),
                               hidden=int((won & ~points).sum())))
    deck = int((loc == ds.LOC_DECK).sum())
    if deck:
        table.append(Group("deck", (), hidden=deck))
    pts, lev = s["points"], s["levels"]
    scores = (f"points  0+2 {int(pts[0])} / 1+3 {int(pts[1])}",
              "levels  0+2 " + " / 1+3 ".join(ds.LEVEL_NAMES.get(int(x), str(int(x)))
                                              for x in lev))
    outcome = int(s["outcome"])
    last = "" if outcome < 0 else f"last hand: {ds.OUTCOME_NAMES[outcome]}" + (
        f", opponents' points {int(s['P'])}" if int(s["P"]) >= 0 else "")
    if mover is None and int(s["winner"]) >= 0:
        last += f"; team {ds.TEAM_NAMES[int(s['winner'])]} wins"
    return Scene(env.name, head_line(s), tuple(seats), tuple(table), scores, mover,
                 legal_names(env, state, player), status(state, "game over", last, "hand over"),
                 player)


def _known_kitty(env: Env, state: State, player: int) -> np.ndarray:
    """bool[54]: the cards `player`'s observation shows as known kitty cards."""
    obs = np.asarray(jitted(env, "observe")(state, player))
    return obs[env.observation_spec().slices()["cards"]].reshape(ds.NUM_CARDS, 6)[:, 2] == 1
