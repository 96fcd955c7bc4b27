"""A PIMC (perfect-information Monte Carlo) bot for Da Bai Fen on the compiled CPU search
(rules `rules/da_bai_fen.md`; the Kan games' bot is `solvers.pimc`, whose shape this follows).

In trick play (phase play), once the mover holds at most `max_cards` cards: sample `samples`
layouts of the hidden hands and the kitty consistent with his observation
(`kanjax.games.da_bai_fen.sampler`), build each layout's double-dummy position (`layout_position`:
the hand's rules as the engine gives them, `DbfEnv.hand_rules`, with the layout's kitty points for
DBF-29's last-trick bonus and DBF-24's penalty; the current trick; the points taken), solve the
exact value of every legal play (`api.solve(..., all_moves=True, backend="cpu")`, the multi-card
search `solvers.cpu.multi`: the opponents' points P, DBF-30) and score each play by its mean over
the layouts of the mover's team's outcome (P for the opponents, -P for the
declarers). The heuristic bot (`kanjax.games.da_bai_fen.heuristic`) breaks ties and decides
everything else.

A play of several cards is several actions (picks, and `play` to close a lead). At every pick
the bot re-decides among the plays that contain the cards already in its selection (the
observation's selection column) and picks a card of the best of them, or `play` when the
selection is the best lead. The scores of one play's picks are those of its first pick (kept
by the observation without the selection), so the picks of one play agree. Plays of a layout
that the engine's mask does not allow (with `invalid_multilead = "mask"` the mask knows which
multi-leads are valid; the layouts may not) are skipped; the bot only returns legal actions.

Not taken (ValueError; `supports` is False): Dun plays (`jilin_dun`, V8: the multi-card
search plays no four-of-a-kind), `dun_points_protected` (V9) and `changchun_kitty` (V11, the
sampler's limit). The multi-card search is exact and has no node budget.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, Env
from kanjax.bots import make_heuristic
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.engine import OBS_HEAD, POINTS, TRUMP
from kanjax.games.da_bai_fen.sampler import KITTY, make_sampler
from solvers import api
from solvers.position import Position, Rules, play_cards

GAMES = ("da_bai_fen",)
MAX_CARDS = 6  # default: exact solves take ~0.015 s at 6 cards a hand, 0.25 s at 8
HEAD = {k: i for i, k in enumerate(OBS_HEAD)}
N = ds.NUM_CARDS
CACHE = 4096  # decisions kept for the later picks of their plays


def unsupported(env: Env) -> str:
    """Why the bot cannot play `env` ("" if it can)."""
    if env.name not in GAMES:
        return f"{env.name!r} is not Da Bai Fen"
    cfg = env.config
    for flag in ("jilin_dun", "dun_points_protected", "changchun_kitty"):
        if getattr(cfg, flag):
            return f"da_bai_fen with {flag} is not supported"
    return ""


def supports(env: Env) -> bool:
    return not unsupported(env)


def view(env: Env, obs: np.ndarray) -> dict:
    """The observation fields the bot reads (numpy, one game)."""
    sl = env.observation_spec().slices()
    o = np.asarray(obs).astype(np.int64)
    cards = o[sl["cards"]].reshape(N, 6)
    v = {k: int(o[sl["head"]][i]) for k, i in HEAD.items()}
    v.update(mine=cards[:, 0] > 0, sel=cards[:, 1] > 0, played_by=cards[:, 4],
             trick_of=cards[:, 5], me=int(o[sl["me"]][0]),
             current=int(o[sl["current_player"]][0]), points=o[sl["points"]])
    return v


def layout_position(env: Env, v: dict, holders: np.ndarray,
                    rules_cache: dict | None = None) -> Position:
    """The double-dummy position of the layout `holders` (int[54]: player 0..3, KITTY, -1
    played) seen in `v` (`view`), at the start of the mover's play (his selection ignored):
    as `DbfEnv.trick_position` builds it from the true state, the side the opponents (the
    value is P)."""
    holders = np.asarray(holders).astype(np.int64)
    kpts = int(POINTS[holders == KITTY].sum())
    key = (v["R"], v["T"], kpts)
    if rules_cache is None or key not in rules_cache:
        rules = Rules(**env.hand_rules(*key))
        if rules_cache is not None:
            rules_cache[key] = rules
    else:
        rules = rules_cache[key]
    tno, leader, nplays = v["tno"], v["tleader"], v["nplays"]
    in_trick = (v["trick_of"] == tno) & (v["played_by"] >= 0)
    trick: list[int] = []
    for i in range(nplays):
        trick += np.flatnonzero(in_trick & (v["played_by"] == (leader + i) % 4)).tolist()
    opp = 1 - v["declaring"]
    pts = v["points"]
    return Position(rules, tuple(tuple(np.flatnonzero(holders == p).tolist()) for p in range(4)),
                    v["T"], leader, tuple(p % 2 == opp for p in range(4)), tuple(trick),
                    -1 if not nplays else v["T"] if v["led"] == TRUMP else v["led"], tno,
                    int(pts[opp]), int(pts[1 - opp]), play_cards=v["n"] if nplays else 1)


def next_actions(play: int, sel: int, leading: bool) -> list[int]:
    """The actions that continue the selection `sel` (a play mask) towards `play` (one that
    contains it): its missing cards' picks, or `play` for a lead complete."""
    if play == sel:
        return [ds.PLAY] if leading else []
    return [ds.PICK + c for c in play_cards(play & ~sel)]


class PimcDbf:
    """The PIMC bot for a Da Bai Fen env: `samples` layouts a decision, searching from
    `max_cards` cards in hand, `tries` sampling attempts a layout, `threads` host threads
    (default one per core). `budget` is accepted for the tournament's settings and unused
    (the multi-card search is exact). See the module docstring."""

    def __init__(self, env: Env, samples: int = 16, budget: int | None = None,
                 max_cards: int | None = None, tries: int = 8,
                 threads: int | None = None) -> None:
        why = unsupported(env)
        if why:
            raise ValueError(f"PIMC bot: {why}")
        del budget
        self.env, self.samples, self.threads = env, samples, threads
        self.max_cards = MAX_CARDS if max_cards is None else max_cards
        self.sampler = make_sampler(env, samples, tries)
        self._sample = jax.jit(jax.vmap(self.sampler))
        self._heuristic = jax.jit(jax.vmap(make_heuristic(env)))
        self._rules: dict = {}
        self._cache: dict[bytes, dict[int, float]] = {}

    def policy(self, key: Array, observation: Array, legal_mask: Array) -> Array:
        """One game's action (host code: not jittable)."""
        return self.decide(key[None], observation[None], legal_mask[None],
                           jnp.ones(1, bool))[0]

    def _asked(self, v: dict, mask: np.ndarray) -> bool:
        return (v["phase"] == ds.PHASE_PLAY and v["current"] == v["me"]
                and int(v["mine"].sum()) <= self.max_cards and int(mask.sum()) > 1)

    def _cache_key(self, obs: np.ndarray) -> bytes:
        """The observation without the selection: one play's picks share it."""
        o = np.array(obs)
        sl = self.env.observation_spec().slices()["cards"]
        cards = o[sl].reshape(N, 6)
        cards[:, 1] = 0
        o[sl] = cards.reshape(-1)
        return o.tobytes()

    def play_scores(self, obs: Sequence[np.ndarray], holders: np.ndarray,
                    ok: np.ndarray) -> list[dict[int, float]]:
        """For each observation (at a play of its observer) and its layouts `holders`
        (int[B, S, 54]) marked `ok`: each play (a play mask) legal in every ok layout -> its
        mean outcome for the mover's team (P for the opponents, -P for the declarers); {} where
        no layout is ok. One `api.solve` call for all."""
        positions, owner = [], []
        views = [view(self.env, o) for o in obs]
        for b, v in enumerate(views):
            for i in np.flatnonzero(ok[b]):
                positions.append(layout_position(self.env, v, holders[b, i], self._rules))
                owner.append(b)
        sols = api.solve(positions, all_moves=True, backend="cpu",
                         threads=self.threads) if positions else []
        sums: list[dict[int, float]] = [{} for _ in views]
        counts = [0] * len(views)
        plays: list[set[int] | None] = [None] * len(views)
        for b, sol in zip(owner, sols, strict=True):
            moves = sol.move_ids or {}
            sign = 1.0 if views[b]["me"] % 2 != views[b]["declaring"] else -1.0
            for m, val in moves.items():
                sums[b][m] = sums[b].get(m, 0.0) + sign * val
            counts[b] += 1
            plays[b] = set(moves) if plays[b] is None else plays[b] & set(moves)
        return [{m: sums[b][m] / counts[b] for m in sorted(plays[b] or ())}
                for b in range(len(views))]

    def choose_mask(self, v: dict, scores: dict[int, float], mask: np.ndarray) -> np.ndarray:
        """The actions of the best-scored plays that contain the selection and can be
        continued through `mask` (the whole mask where there are none)."""
        sel = sum(1 << int(c) for c in np.flatnonzero(v["sel"]))
        leading = v["nplays"] == 0
        best, keep = None, np.zeros_like(mask)
        for m, s in scores.items():
            if m & sel != sel:
                continue
            acts = [a for a in next_actions(m, sel, leading) if mask[a]]
            if not acts:
                continue
            if best is None or s > best + 1e-9:
                best, keep = s, np.zeros_like(mask)
            if s >= best - 1e-9:
                keep[acts] = True
        return keep if keep.any() else mask

    def decide(self, keys: Array, obs: Array, masks: Array, active: Array) -> Array:
        """int32[B]: each game's action; the heuristic's where not `active` or not asked."""
        obs_np, masks_np = np.asarray(obs), np.asarray(masks)
        act = np.asarray(active)
        keep = masks_np.copy()
        todo, found = [], {}
        views = [view(self.env, o) for o in obs_np]
        for b, v in enumerate(views):
            if act[b] and self._asked(v, masks_np[b]):
                k = self._cache_key(obs_np[b])
                if k in self._cache:
                    found[b] = self._cache[k]
                else:
                    todo.append((b, k))
        if todo:
            idx = np.array([b for b, _ in todo])
            # the whole batch is sampled (one compile for the batch's shape, as `solvers.pimc`
            # does), the asked games' layouts used
            holders, ok = self._sample(keys, obs)
            scores = self.play_scores(obs_np[idx], np.asarray(holders)[idx],
                                      np.asarray(ok)[idx])
            if len(self._cache) > CACHE:
                self._cache.clear()
            for (b, k), s in zip(todo, scores, strict=True):
                self._cache[k] = found[b] = s
        for b, s in found.items():
            keep[b] = self.choose_mask(views[b], s, masks_np[b])
        return self._heuristic(keys, obs, jnp.asarray(keep))
