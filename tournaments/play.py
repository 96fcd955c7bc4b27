"""Playing one chunk of a tournament: its games as one jitted, vmapped call.

A `ChunkPlayer` compiles once for its config (batch padded to a number of whole chunks: one
on a CPU, more on a GPU) and turns chunks of planned games into their `games`, `seats` and
`deals` tables (pyarrow, built column by column from the batch's arrays), chunk by chunk.
The games of one duplicate group share a game key, so they get the same deals
(`kanjax.rollout` keys chance by the deal). A finished deal is recorded through the env's
views: `deal_facts` inside the jitted loop (up to `max_deals` of them a game), `deal_rows`
(by default `deal_row` deal by deal) for its columns.
"""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pyarrow as pa

import kanjax
from kanjax.bots import make_heuristic, make_random, uniform_random
from kanjax.rollout import Policy, game_key, propose_batch, stream_games
from tournaments.bots import BotFault
from tournaments.config import BotSpec, TournamentConfig
from tournaments.plan import PlannedGame
from tournaments.policies import bind, load_params, make_policy
from tournaments.schema import GAMES, SEATS, deals_schema

HOST_KINDS = ("python", "external")  # bots that move on the host (tournaments.bots)
_COMPILED: dict[tuple, dict] = {}  # jitted chunk functions by (game, flags, lanes, bots)
_PIMC: dict[tuple, object] = {}  # PIMC bots by (game, flags, settings)
STREAM, MIN_LANES = 4, 16  # a CPU batch streams through 1/STREAM of its size, >= MIN_LANES
# the game keys of a batch from its deal seeds in one call (one `fold_in` call a game cost
# as much host time as a 128-game chunk's whole network)
_game_keys = jax.jit(jax.vmap(game_key, in_axes=(None, 0)))


def stream_lanes(batch: int, platform: str) -> int:
    """The lanes the all-JAX loop streams a batch of `batch` games through on a device of
    `platform`. On a CPU a step costs a fixed part plus a part a lane (a policy runs only
    where it moves, `rollout.propose_batch`): a quarter of the batch, at least `MIN_LANES`.
    The floor favours long, uneven matches (a rummy's), which is where the time goes; games
    whose matches are of about one length gain little (the figures: "Chunk stream lanes" in
    docs/benchmarks-history.md). On an accelerator a step costs about the same at any width
    up to thousands of lanes, so fewer lanes would only add steps: the whole batch."""
    return min(batch, max(MIN_LANES, batch // STREAM)) if platform == "cpu" else batch


def pimc_bot(spec: BotSpec, env, flags: dict):
    """The (shared) PIMC bot of a pimc bot spec (`solvers.pimc.make_bot`: the game's)."""
    key = (env.name, json.dumps(flags, sort_keys=True), spec.samples, spec.budget,
           spec.max_cards)
    if key not in _PIMC:
        from solvers.pimc import make_bot

        _PIMC[key] = make_bot(env, samples=spec.samples, budget=spec.budget,
                              max_cards=spec.max_cards)
    return _PIMC[key]


def jax_policy(spec: BotSpec, env) -> Policy:
    """The jittable policy of a bot spec (a jax bot's with parameters takes them first)."""
    if spec.kind == "random":
        return make_random(env)
    if spec.kind == "heuristic":
        return make_heuristic(env)
    if spec.kind == "jax":
        return make_policy(spec.target, env)
    raise ValueError(f"bot {spec.name!r}: kind {spec.kind!r} is not a JAX policy")


class ChunkPlayer:
    """Plays chunks of games of one tournament config (compiled once).

    With JAX bots only (the built-in ones and users' `jax` bots, `tournaments.policies`,
    whose parameters are loaded once and passed to the compiled functions), a chunk is one
    jitted call: a `while_loop` of batched steps that streams the batch's games through
    `lanes` lanes (`stream_lanes`: a lane whose game ends starts the next). With Python or
    external bots (`tournaments.bots`) or PIMC bots the batched step is jitted and the loop
    runs on the host, asking those bots for their moves (a PIMC bot, or a host bot that
    takes batches, decides every game where it is to move in one call); a bot that fails a
    move forfeits the game (the env's illegal-action path) and the reason is recorded.

    A forfeit always loses: the step that forfeits pays nobody, the offender's match score is
    the config's `forfeit_score` (default: the game's `TournamentViews.worst_score` - 1, below
    any score a legal match can end with), and every other player keeps his score so far
    (nobody pays for another's fault), so the offender ranks strictly below every other seat
    and neither he nor his bot's other seats gain from it."""

    def __init__(self, cfg: TournamentConfig, units: int = 1, lanes: int | None = None) -> None:
        from tournaments.bots import host_bot

        self.cfg = cfg
        self.batch = cfg.chunk_size * units  # games a batch: `units` whole chunks
        # the all-JAX loop's lanes (`stream_lanes` by default)
        self.lanes = lanes or stream_lanes(self.batch, jax.devices()[0].platform)
        self.env = env = kanjax.make(cfg.game, **cfg.flags)
        self.host = {i: host_bot(b) for i, b in enumerate(cfg.bots) if b.kind in HOST_KINDS}
        self.pimc = {i: pimc_bot(b, env, cfg.flags) for i, b in enumerate(cfg.bots)
                     if b.kind == "pimc"}
        self._policies = tuple(uniform_random if i in self.host or i in self.pimc
                               else jax_policy(b, env) for i, b in enumerate(cfg.bots))
        self._params = tuple(jax.device_put(load_params(b.params)) if b.params else None
                             for b in cfg.bots)
        self.max_deals = env.max_deals
        self._root = jax.random.PRNGKey(cfg.seed)  # the games' keys derive from it
        self.config_hash = cfg.config_hash()
        self.forfeit_score = (env.worst_score - 1 if cfg.forfeit_score is None
                              else cfg.forfeit_score)
        # Players of the same game, flags, bots (a jax bot: its target) and lanes share
        # compiled functions (a jax bot's parameters are their argument).
        key = (cfg.game, json.dumps(cfg.flags, sort_keys=True), self.lanes,
               tuple("host" if i in self.host or i in self.pimc else
                     (b.kind, b.target, bool(b.params)) for i, b in enumerate(cfg.bots)))
        if key not in _COMPILED:
            _COMPILED[key] = {
                "start": jax.jit(jax.vmap(self._start_game)),
                "propose": jax.jit(self._propose_batch),
                "advance": jax.jit(self._advance_batch),
                "run": jax.jit(self._whole_games),
            }
        jitted = _COMPILED[key]
        self._start, self._propose = jitted["start"], jitted["propose"]
        self._advance_b, self._run = jitted["advance"], jitted["run"]

    # ---- one game, jittable ------------------------------------------------------------------
    def _start_game(self, gkey):
        env, steps, n = self.env, self.env.max_steps, self.env.num_players
        state = env.init(gkey)
        rows = {k: jnp.zeros((self.max_deals, *f.shape), f.dtype)  # shapes only
                for k, f in env.deal_facts(state, state).items()}
        return {"state": state, "returns": jnp.zeros(n, jnp.float32),
                "actions": jnp.full(steps, -1, jnp.int16), "rows": rows,
                "ndeals": jnp.int32(0), "forfeit": jnp.int8(-1)}

    def _propose_batch(self, params, carry, gkeys, seating):
        """(the JAX bots' actions, the step keys, the movers' observations, the policy keys)
        of a batch; `params`: each bot's parameters (None: it has none)."""
        policies = tuple(bind(p, w) for p, w in zip(self._policies, params, strict=True))
        return propose_batch(self.env, policies, carry["state"], gkeys, seating)

    def _record(self, carry, action, s1):
        """The step from `carry`'s state with `action` to `s1`, recorded (actions, finished
        deals, forfeit)."""
        env, deals = self.env, self.max_deals
        s0 = carry["state"]
        moving = ~(s0.terminated | s0.truncated)
        ended = moving & env.deal_done(s1) & ~s1.illegal_action
        k = jnp.minimum(carry["ndeals"], deals - 1)
        facts = env.deal_facts(s0, s1)
        rows = {key: r.at[k].set(jnp.where(ended, facts[key], r[k]))
                for key, r in carry["rows"].items()}
        at = jnp.minimum(s0.step_count, env.max_steps - 1)
        forfeit = moving & s1.illegal_action  # scored in `_rows`, not by the env's rewards
        return {
            "state": s1, "returns": carry["returns"] + jnp.where(forfeit, 0.0, s1.rewards),
            "actions": carry["actions"].at[at].set(jnp.where(
                moving, action.astype(jnp.int16), carry["actions"][at])),
            "rows": rows, "ndeals": carry["ndeals"] + ended,
            "forfeit": jnp.where(forfeit, s0.current_player, carry["forfeit"]).astype(jnp.int8),
        }

    # ---- a batch of games, jittable -----------------------------------------------------------
    def _advance_batch(self, carry, action, skey):
        """One step of every game (`env.step_batch`) with `action`, recorded."""
        s1 = self.env.step_batch(carry["state"], action, skey)
        return jax.vmap(self._record)(carry, action, s1)

    def _whole_games(self, params, gkeys, seating, count):
        """Games 0 .. `count` - 1 of the batch (the rest is padding, not played: its outputs
        are zeros) streamed through `lanes` lanes (`rollout.stream_games`): a lane whose game
        ends writes its outputs at the game's index and starts the next game (its own game
        key and seating row), so no lane waits for the batch's slowest game; every game is
        the one a whole-batch loop plays, move for move."""
        batch = gkeys.shape[0]

        def start(g: jax.Array) -> tuple:
            g = jnp.minimum(g, batch - 1)
            return self._start_game(gkeys[g]), gkeys[g], seating[g]

        def step(lanes: tuple, _active: jax.Array, acc: None) -> tuple:
            carry, keys, seats = lanes
            action, skey, _, _ = self._propose_batch(params, carry, keys, seats)
            carry = self._advance_batch(carry, action, skey)
            s = carry["state"]
            return (carry, keys, seats), s.terminated | s.truncated, acc

        return stream_games(start, step, lambda lane: self._outputs(lane[0]), batch,
                            self.lanes, count=count, tail=False)[0]

    @staticmethod
    def _outputs(carry) -> dict:
        s = carry["state"]
        return {"returns": carry["returns"], "steps": s.step_count, "truncated": s.truncated,
                "forfeit": carry["forfeit"], "actions": carry["actions"],
                "ndeals": carry["ndeals"], "rows": carry["rows"]}

    # ---- chunks ------------------------------------------------------------------------
    def play(self, work: list[tuple[int, list[PlannedGame]]]
             ) -> list[tuple[int, dict[str, pa.Table]]]:
        """Each chunk (first game id, games) of `work` with its `games`, `seats` and `deals`
        tables; the chunks play as one batch (at most `batch` games)."""
        games = [g for _, chunk in work for g in chunk]
        out, reasons = self._play_games(games)
        done, start = [], 0
        for chunk, part in work:
            end = start + len(part)
            mine = {i - start: r for i, r in reasons.items() if start <= i < end}
            done.append((chunk, self._rows(chunk, part, jax.tree.map(
                lambda x, a=start, b=end: x[a:b], out), mine)))
            start = end
        return done

    def _play_games(self, games: list[PlannedGame]) -> tuple[dict, dict[int, str]]:
        """(outputs, forfeit reasons by game index) of these games, as one batch."""
        padded = games + [games[-1]] * (self.batch - len(games))  # one compiled batch size
        gkeys = _game_keys(self._root, np.asarray([g.deal_seed for g in padded], np.uint32))
        seating = np.asarray([g.bots for g in padded], np.int32)  # (a list to a jax array:
        # 3 ms a 128-game chunk; numpy goes to the jitted calls as it is)
        if self.host or self.pimc:
            return self._play_on_host(gkeys, seating, len(games))
        return jax.tree.map(np.asarray, self._run(self._params, gkeys, seating,
                                                  np.int32(len(games)))), {}

    def _play_on_host(self, gkeys, seating, live: int) -> tuple[dict, dict[int, str]]:
        """The host loop for games with Python / external / PIMC bots; returns (outputs,
        forfeit reasons by game index). It steps the whole batch until its slowest game ends
        (no streaming: a host bot's step dwarfs the lanes a finished game keeps)."""
        carry = self._start(gkeys)
        seats, seating = seating, jax.device_put(seating)  # on the device once, not a step
        reasons: dict[int, str] = {}
        for _ in range(self.env.max_steps):
            s = carry["state"]
            done = np.asarray(s.terminated | s.truncated)
            if done[:live].all():
                break
            actions, skeys, obs, pkeys = self._propose(self._params, carry, gkeys, seating)
            cur = np.asarray(s.current_player)
            mover = seats[np.arange(len(seats)), np.maximum(cur, 0)]
            for i, bot in self.pimc.items():
                turn = (mover == i) & ~done & (np.arange(len(seats)) < live)
                if turn.any():
                    actions = jnp.where(turn, bot.decide(pkeys, obs, s.legal_action_mask,
                                                         jnp.asarray(turn)), actions)
            actions = np.array(actions)
            masks, obs = np.asarray(s.legal_action_mask), np.asarray(obs)
            for i, bot in self.host.items():
                games = np.flatnonzero((mover == i) & ~done & (np.arange(len(seats)) < live))
                if not len(games):
                    continue
                moves = bot.moves(self.cfg.game, cur[games], obs[games], masks[games],
                                  self.env.action_name)
                for g, move in zip(games, moves, strict=True):
                    if isinstance(move, BotFault):
                        reasons[g] = f"{self.cfg.bots[i].name}: {move}"
                        move = -1  # out of range: the env's illegal-action forfeit
                    actions[g] = move
            carry = self._advance_b(carry, jnp.asarray(actions, jnp.int32), skeys)
        return jax.tree.map(np.asarray, self._outputs(carry)), reasons

    def close(self) -> None:
        for bot in self.host.values():
            bot.close()

    def _rows(self, chunk: int, games: list[PlannedGame], out: dict,
              reasons: dict[int, str]) -> dict[str, pa.Table]:
        """The chunk's `games`, `seats` and `deals` tables (`tournaments.schema`), built
        column by column from the batch's arrays (rows as Python dicts cost a 128-game
        chunk of the example's network about a tenth of its time)."""
        env, cfg = self.env, self.cfg
        n, players = len(games), env.num_players
        names = np.asarray([b.name for b in cfg.bots], object)
        plan = np.asarray([(g.game_id, g.group, g.rotation, g.deal_seed) for g in games],
                          np.int64).reshape(n, 4)
        game_id, group, rotation, seed = plan.T
        bots = names[np.asarray([g.bots for g in games], np.int64).reshape(n, players)]
        steps = out["steps"].astype(np.int32)
        forfeit = out["forfeit"].astype(np.int8)
        scores = out["returns"].astype(np.float64)
        why = [""] * n
        for i in np.flatnonzero(forfeit >= 0):
            scores[i], why[i] = self._scored(
                out["returns"][i], int(forfeit[i]), bots[i].tolist(),
                int(out["actions"][i][steps[i] - 1]), reasons.get(int(i), ""))
        for i, reason in reasons.items():  # a host bot's fault ends its game in a forfeit
            why[i] = why[i] or reason
        played = np.arange(out["actions"].shape[1]) < steps[:, None]
        games_table = pa.Table.from_arrays([
            pa.array(game_id), pa.array(group), pa.array(rotation, pa.int32()),
            pa.array(np.full(n, chunk, np.int32)), pa.array(seed),
            pa.array([self.config_hash] * n, pa.string()),
            pa.array([cfg.game] * n, pa.string()),
            pa.array([json.dumps(cfg.flags, sort_keys=True)] * n, pa.string()),
            _lists(pa.array(bots.reshape(-1), pa.string()), np.full(n, players)),
            _lists(pa.array(scores.reshape(-1)), np.full(n, players)),
            pa.array(steps), pa.array(out["truncated"].astype(bool)), pa.array(forfeit),
            pa.array(why, pa.string()),
            _lists(pa.array(out["actions"][played].astype(np.int16)), steps),
        ], schema=GAMES)
        facts = {k: v[:n] for k, v in out["rows"].items()}  # [game, deal, ...]
        nd = np.minimum(out["ndeals"].astype(np.int64), self.max_deals)
        done = np.arange(self.max_deals) < nd[:, None]  # [game, deal]: a finished deal
        deals = _deal_table(env, facts, done, game_id)
        return {"games": games_table,
                "seats": _seat_table(facts, done, len(env.role_names), game_id, group,
                                     rotation, bots, scores),
                "deals": deals}

    def _scored(self, returns: np.ndarray, forfeit: int, bots: list[str], last: int,
                reason: str) -> tuple[np.ndarray, str]:
        """A game's match scores and forfeit reason: where player `forfeit` forfeited, his
        score is `forfeit_score` (the others keep theirs), and a move the env refused (`last`,
        a JAX bot's) gets its reason."""
        scores = returns.astype(np.float64)
        if forfeit < 0:
            return scores, reason
        scores[forfeit] = self.forfeit_score
        name = self.env.action_name(last) if 0 <= last < self.env.num_actions else str(last)
        return scores, reason or f"{bots[forfeit]}: illegal: action {name} is not legal here"


def _lists(values: pa.Array, lengths: np.ndarray) -> pa.ListArray:
    """A list column: consecutive runs of `values` of these `lengths`, one a row."""
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _seat_table(facts: dict[str, np.ndarray], done: np.ndarray, n_roles: int,
                game_id: np.ndarray, group: np.ndarray, rotation: np.ndarray,
                bots: np.ndarray, scores: np.ndarray) -> pa.Table:
    """The `seats` rows (a game's players in order) from the games' `deal_facts` [game,
    deal, ...], `done` [game, deal] marking the finished deals: each player's counted deals,
    his side and role when constant, deals and deals won by role."""
    n, players = bots.shape
    counted = facts["counted"] & done  # [g, d]
    role, side = facts["role"].astype(np.int64), facts["side"].astype(np.int64)  # [g, d, p]
    by_role = (role[..., None] == np.arange(n_roles)) & counted[..., None, None]  # [g,d,p,r]
    by_deals = by_role.sum(1, dtype=np.int32)  # [g, p, r]
    won = (by_role & facts["won"][..., None]).sum(1, dtype=np.int32)

    def constant(x: np.ndarray, where: np.ndarray) -> np.ndarray:
        """Per game and player, x's value over the deals `where` marks when it is the same
        in all of them (and they are some), else -1."""
        big = np.iinfo(np.int64).max
        low = np.where(where[..., None], x, big).min(1)
        high = np.where(where[..., None], x, -big).max(1)
        return np.where(low == high, low, -1).astype(np.int8)

    def each(x: np.ndarray) -> np.ndarray:  # a per-game value on each of its seats
        return np.repeat(x, players)

    return pa.Table.from_arrays([
        pa.array(each(game_id)), pa.array(each(group)), pa.array(each(rotation), pa.int32()),
        pa.array(np.tile(np.arange(players, dtype=np.int8), n)),
        pa.array(bots.reshape(-1), pa.string()), pa.array(scores.reshape(-1)),
        pa.array(each(counted.sum(1, dtype=np.int32))),
        pa.array(constant(side, done).reshape(-1)), pa.array(constant(role, counted).reshape(-1)),
        _lists(pa.array(by_deals.reshape(-1)), np.full(n * players, n_roles)),
        _lists(pa.array(won.reshape(-1)), np.full(n * players, n_roles)),
    ], schema=SEATS)


def _deal_table(env, facts: dict[str, np.ndarray], done: np.ndarray,
                game_id: np.ndarray) -> pa.Table:
    """The `deals` rows (a game's deals in order) of the finished deals (`done` [game,
    deal]) from their `deal_facts` [game, deal, ...]: the common columns and the game's own
    (`TournamentViews.deal_rows`)."""
    mine = {k: v[done] for k, v in facts.items()}  # [deal, ...]
    k, players = mine["side"].shape
    schema = deals_schema(env.deal_columns)
    own = env.deal_rows(mine)
    return pa.Table.from_arrays([
        pa.array(np.broadcast_to(game_id[:, None], done.shape)[done]),
        pa.array(np.nonzero(done)[1].astype(np.int32)),
        _lists(pa.array(mine["side"].reshape(-1).astype(np.int8)), np.full(k, players)),
        _lists(pa.array(mine["role"].reshape(-1).astype(np.int8)), np.full(k, players)),
        _lists(pa.array(mine["won"].reshape(-1).astype(bool)), np.full(k, players)),
        pa.array(mine["counted"].astype(bool)),
        *(pa.array(own[name], schema.field(name).type) for name, _ in env.deal_columns),
    ], schema=schema)
