"""Gonin Kan's PIMC bot on the batched JAX search (`solvers.search`, for accelerators): the
whole decision is one jittable function of the observation. `solvers.pimc` (the CPU driver
every game with information sets plays) describes the method; here the layouts (the game's
sampler), their goal problems (Gonin Kan's: built from its observation, `_problem`) and the
moves' rank-equivalence classes (`_move_roots`) are arrays, and one search whose lanes share
the work queue solves every (layout, move class) of a batch. A problem still open after
`budget` nodes counts 1/2; PIMC searches once the mover holds at most `max_cards` cards
(default 6: goal searches of fuller hands mostly run past any useful budget here).

This is the one PIMC module that reads a game's observation itself: it goes once the layouts
reach the search as plain data (issue 46 item 2).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, Env
from kanjax.core.dealing import ring_positions
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import JK, PLAY, KanEnv
from kanjax.games.kan.heuristic import POINT, make_heuristic
from solvers import convert, search

MAX_MOVES = 13  # trick-play moves of a hand: 10 cards, or 9 cards and 4 JK leads
JAX_BUDGET = 5_000  # default search nodes a problem
NUM_PLAY_ACTIONS = ks.LEAD_JK + 4  # card actions 0..52 and the JK leads 53..56


def _view(env: KanEnv, obs: Array) -> dict[str, Array]:
    """The observation fields the problems need (int32)."""
    sl = env.observation_spec().slices()
    o = obs.astype(jnp.int32)
    cards = o[sl["cards"]].reshape(ks.NUM_CARDS, 4)
    one = {k: o[sl[k]][0] for k in ("me", "phase", "current_player", "deal", "dealer",
                                   "trump", "trick", "n_played", "leader", "led_suit")}
    extra = {k: o[sl[k]] for k in ("target", "contract") if k in sl}  # Gambari, Yonin
    return one | extra | dict(mine=cards[:, 0] > 0, played_by=cards[:, 1],
                              trick_of=cards[:, 2], taken_by=cards[:, 3],
                              points=o[sl["points"]], seat_of=o[sl["seat_of"]],
                              kankei=o[sl["kankei"]])


def _cards(env: KanEnv, v: dict[str, Array]) -> dict[str, Array]:
    """What every layout of `v` shares: the live cards (in a hand or the current trick), each
    card's move code (int32[53], `search`: 16 * suit + relative rank, or JK_CODE), the point
    words and the observer's suit words (uint32[4])."""
    in_trick = (v["trick_of"] == v["trick"]) & (v["played_by"] >= 0)
    live = (jnp.asarray(env.deck) & (v["played_by"] < 0)) | in_trick
    grid = live[:JK].reshape(4, 13)
    rel = jnp.cumsum(grid, axis=1) - 1  # relative rank of each live card in its suit
    bits = jnp.where(grid, jnp.left_shift(jnp.uint32(1), rel.astype(jnp.uint32)), 0)

    def words(cards: Array) -> Array:
        return jnp.sum(jnp.where(cards[:JK].reshape(4, 13), bits, 0), axis=1).astype(
            jnp.uint32)

    code = jnp.concatenate([(16 * np.arange(4)[:, None] + rel).reshape(-1),
                            jnp.array([search.JK_CODE])])
    return dict(live=live, in_trick=in_trick, code=code, words=words,
                points=words(jnp.asarray(POINT)), mine=words(v["mine"]))


def _problem(env: KanEnv, v: dict[str, Array], cards: dict, holders: Array) -> dict[str, Array]:
    """The goal problem (`search.Problems` arrays, one row, no root words) of the layout
    `holders` (player of each card, -1) seen by `v["me"]`: his side reaching its target."""
    n, active = env.num_players, env.active
    pos = ring_positions(v["seat_of"], v["dealer"], n)
    players = jnp.stack([jnp.argmax(pos == k) for k in range(active)])  # seat -> player
    t, nplayed, live, code = v["trick"], v["n_played"], cards["live"], cards["code"]
    hands = jnp.stack([cards["words"](holders == p) for p in players]).astype(jnp.uint16)
    leader = pos[v["leader"]]
    trick = []
    for i in range(active - 1):
        who = players[(leader + i) % active]
        card = jnp.argmax(cards["in_trick"] & (v["played_by"] == who))
        trick.append(jnp.where(i < nplayed, code[card], 0))
    mine = v["kankei"][v["me"]] > 0
    taken = jnp.where(mine, v["points"][0], v["points"][1])
    other = jnp.where(mine, v["points"][1], v["points"][0])
    total = taken + other + jnp.sum(live & POINT)
    target = jnp.asarray(ks.KANKEI_TARGET)[v["deal"]]
    target = jnp.where(mine, target, 17 - target)
    jk = jnp.where(holders[JK] >= 0, pos[jnp.maximum(holders[JK], 0)], -1)
    scalars = jnp.stack([leader, jnp.where(nplayed > 0, v["led_suit"], -1), nplayed,
                         v["trump"], taken, other, t, 1, jk, total])
    return dict(hands=hands, points=cards["points"].astype(jnp.uint16),
                trick=jnp.stack(trick).astype(jnp.int8), scalars=scalars.astype(jnp.int8),
                side=(v["kankei"][players] > 0) == mine,
                goal=jnp.stack([target, total - target]).astype(jnp.int8),
                window=jnp.array(search.FULL_WINDOW, jnp.int8))


def _move_roots(cards: dict[str, Array], moves: Array) -> tuple[Array, Array]:
    """For each of the observer's moves (action id, -1 none): its root words (uint32[5]: the
    move's rank-equivalence class, which the search tries as one) and a class key (the same
    for the moves of one class). `cards`: `_cards`."""
    plain = (moves >= 0) & (moves < JK)
    c = cards["code"][jnp.clip(moves, 0, JK)]
    suit, low = jnp.clip(c >> 4, 0, 3), (c & 15).astype(jnp.uint32)
    h, pts = cards["mine"][suit], cards["points"][suit]
    one = jnp.uint32(1)
    top, mask = low, one << low
    for _ in range(12):  # the mover's run of adjacent live cards worth the same points
        nxt = top + 1
        grow = (nxt < 13) & (((h >> nxt) & 1) > 0) & (((pts >> nxt) & 1) == ((pts >> top) & 1))
        mask = jnp.where(grow, mask | (one << nxt), mask)
        top = jnp.where(grow, nxt, top)
    jk_bit = jnp.where(moves == JK, 0, moves - ks.LEAD_JK + 1)  # `search._word_bit`
    word = jnp.where(plain, suit, 4)
    bits = jnp.where(plain, mask, one << jnp.clip(jk_bit, 0, 4).astype(jnp.uint32))
    roots = jnp.where((jnp.arange(5) == word[:, None]) & (moves >= 0)[:, None],
                      bits[:, None], jnp.uint32(0))
    key = jnp.where(plain, 16 * suit + top.astype(jnp.int32), 64 + jk_bit)
    return roots, jnp.where(moves >= 0, key, -1 - jnp.arange(moves.shape[0]))


def plays(env: Env) -> bool:
    """Whether the batched JAX search plays `env`: Gonin Kan (its problems are Gonin Kan's)."""
    return isinstance(env, KanEnv) and env.config.variant == "gonin"


class JaxPimc:
    """The PIMC bot for a Gonin Kan env on the batched JAX search: `samples` layouts a
    decision, `budget` search nodes a problem, searching from `max_cards` cards in hand,
    `lanes` searches side by side, `tries` sampling attempts a layout; `decide` and `policy`
    are jittable. See the module docstring."""

    def __init__(self, env: KanEnv, samples: int = 16, budget: int | None = None,
                 max_cards: int | None = None, lanes: int = 128, tries: int = 8) -> None:
        if not plays(env):
            raise ValueError(f"PIMC bot: {env.name!r} on the JAX search is not supported "
                             "(Gonin Kan only); use the CPU search (solvers.pimc.Pimc)")
        self.env, self.samples = env, samples
        self.budget = JAX_BUDGET if budget is None else budget
        self.max_cards = 6 if max_cards is None else max_cards
        self.sampler = env.make_sampler(samples, tries)
        self.heuristic = make_heuristic(env)
        # many small problems: refill finished lanes often
        self.searcher = search.Searcher(convert.rules_of(env), lanes=lanes, refill_every=32)
        self.decide = jax.jit(self._decide)

    def policy(self, key: Array, observation: Array, legal_mask: Array) -> Array:
        """One game's action (jittable and vmappable on the JAX search)."""
        return self.decide(key[None], observation[None], legal_mask[None],
                           jnp.ones(1, bool))[0]

    def _choose(self, keys: Array, obs: Array, masks: Array, moves: Array,
                score: Array) -> Array:
        """int32[B]: the heuristic's move among each game's best-scored moves (all its legal
        moves where none was scored)."""
        best = (score >= jnp.max(score, axis=1, keepdims=True)) & (moves >= 0)
        b = obs.shape[0]
        keep = jnp.zeros((b, masks.shape[1]), bool).at[
            jnp.arange(b)[:, None], jnp.maximum(moves, 0)].max(best)
        asked = jnp.any(moves >= 0, axis=1)
        return jax.vmap(self.heuristic)(keys, obs, jnp.where(asked[:, None], keep & masks,
                                                             masks))

    def _decide(self, keys: Array, obs: Array, masks: Array, active: Array) -> Array:
        """int32[B]: each game's action; the heuristic's where not `active` or not asked."""
        holders, ok = jax.vmap(self.sampler)(keys, obs)
        moves, score = self.scores(obs, masks, active, holders, ok)
        return self._choose(keys, obs, masks, moves, score)

    def _asked(self, v: dict, masks: Array, active: Array) -> tuple[Array, Array]:
        """(moves int32[B, MAX_MOVES], asks bool[B]): each game's trick-play moves (-1
        padded) and whether PIMC searches it (`scores`)."""
        moves = jax.vmap(lambda m: jnp.nonzero(m[:NUM_PLAY_ACTIONS], size=MAX_MOVES,
                                               fill_value=-1)[0])(masks).astype(jnp.int32)
        asks = (active & (v["phase"] == PLAY) & (v["current_player"] == v["me"])
                & (jnp.sum(moves >= 0, axis=1) > 1)
                & (jnp.sum(v["mine"], axis=1) <= self.max_cards))
        return jnp.where(asks[:, None], moves, -1), asks

    def scores(self, obs: Array, masks: Array, active: Array, holders: Array,
               ok: Array) -> tuple[Array, Array]:
        """(moves int32[B, MAX_MOVES], scores float32[B, MAX_MOVES]): the trick-play moves of
        each game where PIMC is asked (`active`, the observer to act with at most `max_cards`
        cards and more than one move; else none, -1) and in how many of the layouts
        `holders` (int[B, N, 53], those with `ok`) each still reaches the side's target; a
        search given up counts 1/2. The JAX search's (jittable)."""
        env = self.env
        b, n_s = holders.shape[:2]
        v = jax.vmap(lambda o: _view(env, o))(obs)
        moves, _ = self._asked(v, masks, active)

        def game(vv: dict[str, Array], hh: Array, mm: Array):
            cards = _cards(env, vv)
            one = jax.vmap(lambda h: _problem(env, vv, cards, h))(hh.astype(jnp.int32))
            return one, *_move_roots(cards, mm)

        problems, roots, keys = jax.vmap(game)(v, holders, moves)
        lead = jnp.argmax(keys[:, :, None] == keys[:, None, :], axis=2)  # first of its class
        solve = (ok[:, :, None] & (lead == jnp.arange(MAX_MOVES))[:, None, :]
                 & (moves >= 0)[:, None, :])
        shape = (b, n_s, MAX_MOVES)
        flat = {k: jnp.broadcast_to(a[:, :, None], shape + a.shape[2:]).reshape(
            (-1,) + a.shape[2:]) for k, a in problems.items()}
        flat["root"] = jnp.broadcast_to(roots[:, None], shape + (5,)).reshape(-1, 5)
        order = jnp.argsort((~solve).reshape(-1).astype(jnp.int8), stable=True)
        res, *_ = self.searcher.solve_all({k: a[order] for k, a in flat.items()},
                                         jnp.sum(solve), jnp.int32(self.budget))
        res = jnp.zeros_like(res).at[order].set(res).reshape(shape)
        res = jnp.take_along_axis(res, lead[:, None, :], axis=2)  # a class shares its value
        score = jnp.sum(ok[:, :, None] * jnp.where(res < 0, 0.5, res), axis=1)
        return moves, jnp.where(moves >= 0, score, -1.0)
