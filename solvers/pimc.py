"""A PIMC (perfect-information Monte Carlo) bot for the Kan games (Gonin, Yonin and Gambari Kan)
on either double-dummy backend (the batched JAX search: Gonin Kan only).

For the player to act in trick play: sample N layouts of the hidden hands consistent with his
observation (`kanjax.games.kan.sampler`, KAN-46), solve every (layout, legal move) pair open, and
play the move with the best mean. On the batched JAX search (`solvers.search`, for accelerators)
everything is one jittable function of the observation; on the compiled CPU search (`solvers.cpu`,
the default on a CPU) the layouts are sampled and the move chosen in JAX and the problems solved on
the host, every core busy.

- What is solved: the deal's result. Each problem is the goal "my side reaches its target"
  (kankei `T(d)`, mukankei `U(d) = 17 - T(d)`, KAN-29, KAN-48; Gambari: the bid target `t`,
  KAN-67) with the root limited to one move, so a move's mean is the share of layouts in which
  it still wins the deal against perfect play. Under a Yonin contract (KAN-60) the declaring
  team's goal is its target (SKUNK) or all 16 (ALL16) with the opponents at 0, the other
  team's a point card before that. In Yonin's deal 1 the teams are secret (KAN-52): each
  layout names them (the holders of JK and the trump jack, KAN-50, KAN-51).
- Budget: PIMC searches once the mover holds at most `max_cards` cards (before, the tie-break
  decides alone; the JAX search's default is 6 cards: goal searches of fuller hands mostly
  run past any useful budget there; the CPU search's is 10, whole hands), and a problem still
  open after `budget` search nodes counts as a coin flip (1/2).
- Ties (moves of equal mean, the usual case when the deal is decided either way, and every
  decision outside trick play) go to the heuristic bot (`kanjax.games.kan.heuristic`) among the
  tied moves: PIMC keeps the heuristic's move unless the solver finds a better one.
- Moves of one rank-equivalence class (adjacent live cards of one hand, worth the same points)
  are one problem: the class does not depend on the layout.

`decide(keys, observations, masks, active)` decides a batch of games (on the JAX search, in
one search whose lanes share the work queue); `policy(key, observation, mask)` is one game's
policy (jittable on the JAX search, as every kanjax bot).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, Env
from kanjax.core.dealing import ring_positions
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import JK, PLAY, KanEnv
from kanjax.games.kan.heuristic import POINT, make_heuristic
from kanjax.games.kan.sampler import make_sampler
from solvers import api, convert, pimc_dbf, search, trick_play
from solvers.cpu import backend as cpu
from solvers.position import Position

KAN_GAMES = ("gonin_kan", "yonin_kan", "gambari_kan")  # the games `Pimc` plays
JAX_GAMES = ("gonin_kan",)  # ... on the batched JAX search (its problems are Gonin Kan's)
GAMES = KAN_GAMES + pimc_dbf.GAMES  # the games a PIMC bot (`make_bot`) plays


def unsupported(env: Env) -> str:
    """Why no PIMC bot plays `env` ("" if one does): a game not in `GAMES`, or Da Bai Fen
    flags `pimc_dbf` does not take."""
    if env.name not in GAMES:
        return f"pimc bots play {', '.join(GAMES)} only, not {env.name!r}"
    if env.name in pimc_dbf.GAMES:
        why = pimc_dbf.unsupported(env)
        return f"pimc bots: {why}" if why else ""
    return ""


def supports(env: Env) -> bool:
    """Whether a PIMC bot plays `env` (`unsupported`)."""
    return not unsupported(env)


def make_bot(env: Env, samples: int = 16, budget: int | None = None,
             max_cards: int | None = None):
    """The PIMC bot of `env`'s game: `Pimc` (the Kan games) or `pimc_dbf.PimcDbf` (Da Bai
    Fen, CPU search), each with `decide(keys, obs, masks, active)` and `policy`."""
    if env.name in pimc_dbf.GAMES:
        return pimc_dbf.PimcDbf(env, samples=samples, budget=budget, max_cards=max_cards)
    return Pimc(env, samples=samples, budget=budget, max_cards=max_cards)


MAX_MOVES = 13  # trick-play moves of a hand: 10 cards, or 9 cards and 4 JK leads
JAX_BUDGET, CPU_BUDGET = 5_000, 200_000  # default search nodes a problem, by backend
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


def layout_kankei(env: KanEnv, v: dict[str, np.ndarray], holders: np.ndarray) -> np.ndarray:
    """bool[n]: the kankei of the layout `holders` seen in `v` (`_view`, as numpy): the
    observed ones, or in Yonin's deal 1, where they are secret (KAN-52), the deal-1 holders
    of JK and the trump jack (KAN-50), a lone holder of both with the player opposite
    (KAN-51)."""
    if (v["kankei"] >= 0).all():
        return v["kankei"] > 0
    dealt = np.where(v["played_by"] >= 0, v["played_by"], holders)  # holder since the deal
    jk, jack = int(dealt[JK]), int(dealt[13 * int(v["trump"]) + 9])
    if jk == jack:
        pos = np.asarray(ring_positions(v["seat_of"], v["dealer"], env.num_players))
        jack = int(np.argmax(pos == (pos[jk] + 2) % 4))
    return np.isin(np.arange(env.num_players), [jk, jack])


def layout_position(env: KanEnv, v: dict[str, np.ndarray], holders: np.ndarray) -> Position:
    """The double-dummy position (`solvers.position`, as `TrickPlay.trick_position` gives it) of
    the layout `holders` (player of each card, -1) seen by `v["me"]` (`_view`, as numpy),
    from the side of the observer: his side maximises."""
    rules = convert.rules_of(env)
    n, active = env.num_players, env.active
    pos = np.asarray(ring_positions(v["seat_of"], v["dealer"], n))
    players = [int(np.argmax(pos == k)) for k in range(active)]  # seat -> player
    leader = int(pos[v["leader"]])
    in_trick = (v["trick_of"] == v["trick"]) & (v["played_by"] >= 0)
    trick = tuple(int(np.argmax(in_trick & (v["played_by"] == players[(leader + i) % active])))
                  for i in range(int(v["n_played"])))
    kankei = layout_kankei(env, v, holders)
    mine = kankei[v["me"]]
    by_kankei = (v["taken_by"] >= 0) & kankei[np.maximum(v["taken_by"], 0)]
    point = np.asarray(POINT)
    points = (int(np.sum(point & by_kankei)), int(np.sum(point & (v["taken_by"] >= 0)
                                                          & ~by_kankei)))
    taken, other = points if mine else points[::-1]
    return Position(rules, tuple(tuple(np.flatnonzero(holders == p).tolist()) for p in players),
                    int(v["trump"]), leader, tuple(bool(kankei[p] == mine) for p in players),
                    trick, int(v["led_suit"]) if trick else -1, int(v["trick"]), taken, other)


def layout_goal(env: KanEnv, v: dict[str, np.ndarray], holders: np.ndarray,
                pos: Position) -> tuple[int, int]:
    """The goal `(side_min, other_max)` of the observer's side in `pos` (`layout_position` of
    the layout `holders`): its target, kankei `T(d)`, mukankei `U(d) = 17 - T(d)` (KAN-29,
    KAN-48; Gambari: the bid `t`, KAN-67); under a Yonin contract (KAN-60) the declaring
    team's target (SKUNK) or all 16 (ALL16) while the other team has nothing, for the other
    team a point card while the declarers are short of theirs."""
    kankei = layout_kankei(env, v, holders)
    t = int(v["target"][0]) if "target" in v else ks.KANKEI_TARGET[int(v["deal"])]
    total = pos.taken + pos.taken_other + trick_play.remaining(pos)
    kind, declarer = (int(x) for x in v.get("contract", (ks.NO_CONTRACT, -1)))
    if kind == ks.NO_CONTRACT:
        target = t if kankei[v["me"]] else 17 - t
        return target, total - target
    need = 16 if kind == ks.ALL16 else t if kankei[declarer] else 17 - t
    if kankei[declarer] == kankei[v["me"]]:
        return need, 0
    return 1, need - 1


class Pimc:
    """The PIMC bot for a Gonin Kan env: `samples` layouts a decision, `budget` search nodes a
    problem, searching from `max_cards` cards in hand, `lanes` searches side by side (the JAX
    search), `tries` sampling attempts a layout. See the module docstring.

    `backend` ("auto", "cpu" or "jax", as `solvers.api.solve`'s; auto: the compiled CPU
    search on a CPU-only jax): on the JAX search every decision is one jittable function
    (`policy`, `decide`); on the CPU search `decide` samples and chooses in JAX and solves
    on the host, one layout a thread (`threads`), and by default searches from whole hands
    (`max_cards` 10) with a budget of CPU_BUDGET nodes a problem."""

    def __init__(self, env: KanEnv, samples: int = 16, budget: int | None = None,
                 max_cards: int | None = None, lanes: int = 128, tries: int = 8,
                 backend: str = "auto", threads: int | None = None) -> None:
        if env.name not in KAN_GAMES:
            raise ValueError(f"PIMC bot: {env.name!r} is not supported; games: "
                             f"{', '.join(KAN_GAMES)} (Da Bai Fen: `make_bot`)")
        rules = convert.rules_of(env)
        if backend not in api.BACKENDS:
            raise ValueError(f"backend {backend!r}: want one of {', '.join(api.BACKENDS)}")
        if backend == "jax" and env.name not in JAX_GAMES:
            raise ValueError(f"PIMC bot: {env.name!r} on the JAX search is not supported "
                             f"(games: {', '.join(JAX_GAMES)}); use backend='cpu'")
        self.backend = backend if backend != "auto" else (
            "cpu" if jax.default_backend() == "cpu" or env.name not in JAX_GAMES else "jax")
        if self.backend == "cpu":
            cpu.check(rules)
        on_cpu = self.backend == "cpu"
        self.env, self.samples, self.threads = env, samples, threads
        self.budget = budget if budget is not None else CPU_BUDGET if on_cpu else JAX_BUDGET
        self.max_cards = max_cards if max_cards is not None else 10 if on_cpu else 6
        self.sampler = make_sampler(env, samples, tries)
        self.heuristic = make_heuristic(env)
        if on_cpu:
            self._sample = jax.jit(jax.vmap(self.sampler))
            self._views = jax.jit(jax.vmap(lambda o: _view(env, o)))
            self._choose_jit = jax.jit(self._choose)
            self.decide = self._decide_cpu
        else:
            # many small problems: refill finished lanes often
            self.searcher = search.Searcher(rules, lanes=lanes, refill_every=32)
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

    def _decide_cpu(self, keys: Array, obs: Array, masks: Array, active: Array) -> Array:
        """`_decide` with the CPU search (on the host)."""
        holders, ok = self._sample(keys, obs)
        moves, score = self.cpu_scores(obs, masks, active, holders, ok)
        return self._choose_jit(keys, obs, masks, jnp.asarray(moves), jnp.asarray(score))

    def _asked(self, v: dict, masks: Array, active: Array) -> tuple[Array, Array]:
        """(moves int32[B, MAX_MOVES], asks bool[B]): each game's trick-play moves (-1
        padded) and whether PIMC searches it (`scores`)."""
        moves = jax.vmap(lambda m: jnp.nonzero(m[:NUM_PLAY_ACTIONS], size=MAX_MOVES,
                                               fill_value=-1)[0])(masks).astype(jnp.int32)
        asks = (active & (v["phase"] == PLAY) & (v["current_player"] == v["me"])
                & (jnp.sum(moves >= 0, axis=1) > 1)
                & (jnp.sum(v["mine"], axis=1) <= self.max_cards))
        return jnp.where(asks[:, None], moves, -1), asks

    def cpu_scores(self, obs: Array, masks: Array, active: Array, holders: Array,
                   ok: Array) -> tuple[np.ndarray, np.ndarray]:
        """`scores` by the CPU search: each layout's position (`layout_position`), every
        move class's goal after it (`cpu.goal_results`, the classes of `cpu` rank
        equivalence), one layout's problems on one table."""
        v = self._views(obs)
        moves, asks = (np.asarray(x) for x in self._asked(v, jnp.asarray(masks), active))
        v = {k: np.asarray(a) for k, a in v.items()}
        holders, ok = np.asarray(holders).astype(np.int32), np.asarray(ok)
        score = np.where(moves >= 0, 0.0, -1.0)
        todo: list[tuple[int, list[int]]] = []  # (game, the moves of one class)
        positions, goals = [], []
        for b in np.flatnonzero(asks):
            vb = {k: a[b] for k, a in v.items()}
            for i in np.flatnonzero(ok[b]):
                pos = layout_position(self.env, vb, holders[b, i])
                goal = layout_goal(self.env, vb, holders[b, i], pos)
                reps = cpu.move_classes(pos)
                for rep in sorted(set(reps.values())):
                    todo.append((b, [m for m, r in reps.items() if r == rep]))
                    positions.append(dataclasses.replace(pos, root_moves=(rep,)))
                    goals.append(goal)
        results = cpu.goal_results(positions, goals, budget=self.budget,
                                   threads=self.threads)
        for (b, members), res in zip(todo, results, strict=True):
            for m in members:
                score[b, np.flatnonzero(moves[b] == m)] += 0.5 if res < 0 else res
        return moves, score

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
