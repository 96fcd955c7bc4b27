"""Batched whole-match play inside one jitted `lax.while_loop` (each trip one batched step,
`play_batch`: the policies on the games where they move, `propose_batch`, then
`env.step_batch`); one match's every state in one jitted scan (`make_trajectory`: records,
replays, `kanjax show`).

Key convention (records, replays and duplicate tournaments rely on it): game `g` of a batch
started from `key` uses `game_key = fold_in(key, g)`; `init(game_key)`; before step `t` (its
`step_count`) the policy key is `split(fold_in(game_key, t))[0]` and the env's step key is
`fold_in(fold_in(game_key, CHANCE), env.chance_index(state))`. Chance is keyed by the env's
chance index (Kan: the number of deals dealt so far), not by the step, so games that share a
game key get the same deals in the same order whatever the players do (duplicate play).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from kanjax import exported
from kanjax.api import Env, State
from kanjax.bots import uniform_random
from kanjax.core import prng
from kanjax.core.jaxutil import materialize, update_lanes

Array = jax.Array
Policy = Callable[[Array, Array, Array], Array]
StatsFn = Callable[[State, State], Any]


def game_key(key: Array, g: Array | int) -> Array:
    """The key of game `g` of a batch started from `key`."""
    return jax.random.fold_in(key, g)


CHANCE = 0x7FFFFFFF  # folded into a game key to derive its chance keys


def step_keys(env: Env, gkey: Array, state: State) -> tuple[Array, Array]:
    """(policy key, env step key) for the step taken from `state` (see the module doc)."""
    pkey = prng.split_first(prng.fold_in(gkey, state.step_count))
    skey = prng.fold_in(prng.fold_in(gkey, CHANCE), env.chance_index(state))
    return pkey, skey


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Rollout:
    """Final states and per-game totals of a batch of matches."""

    state: State  # final states, batched
    returns: Array  # float32[B, num_players]: summed rewards = match scores
    steps: Array  # int32[B]: steps taken
    stats: Any  # the summed `stats_fn` values (None when not asked for)


def propose(
    env: Env,
    policies: Sequence[Policy],
    state: State,
    gkey: Array,
    seating: Array,
) -> tuple[Array, Array, Array, Array]:
    """(the action of the policy seated for the current player of one game, the env's step
    key, the mover's observation, the policy key). `seating[p]` is the index in `policies` of
    the policy playing player p."""
    pkey, skey = step_keys(env, gkey, state)
    player = jnp.maximum(state.current_player, 0).astype(jnp.int32)
    obs = env.observe(state, player)
    actions = jnp.stack([pol(pkey, obs, state.legal_action_mask) for pol in policies])
    return actions[seating[player]], skey, obs, pkey


BLOCKS = 4  # a policy of several runs on blocks of a quarter of the batch (`propose_batch`)


def propose_batch(
    env: Env,
    policies: Sequence[Policy],
    states: State,
    gkeys: Array,
    seating: Array,
) -> tuple[Array, Array, Array, Array]:
    """`propose` over a batch (leading axis B; `seating` int32[B, num_players]): the same
    actions, step keys, observations and policy keys for the games still on.

    One policy runs on every game under `vmap`. With several, each runs only where it is to
    move (`jaxutil.update_lanes`: those games gathered, ceil(B / `BLOCKS`) at a time, as many
    times as needed), so a step pays for the moves it plays, not for every seat's policy at
    every game (under `vmap` alone all would run and the mover's be selected); a finished
    game's action is 0."""
    pkeys, skeys = jax.vmap(lambda g, s: step_keys(env, g, s))(gkeys, states)
    player = jnp.maximum(states.current_player, 0).astype(jnp.int32)
    obs = jax.vmap(env.observe)(states, player)
    inputs = (pkeys, obs, states.legal_action_mask)
    if len(policies) == 1:
        actions = jax.vmap(policies[0])(*inputs).astype(jnp.int32)
    else:
        batch = player.shape[0]
        seat = seating[jnp.arange(batch), player]
        live = ~(states.terminated | states.truncated)
        actions = jnp.zeros(batch, jnp.int32)
        for i, pol in enumerate(policies):
            actions = update_lanes(live & (seat == i),
                                   lambda _old, x, pol=pol: pol(*x).astype(jnp.int32),
                                   actions, inputs, -(-batch // BLOCKS))
    # computed once: else XLA (CPU) inlines a policy's elementwise work into each of the
    # step's many uses of the action (a Kan game: 29 copies, 3x slower)
    return materialize(actions), skeys, obs, pkeys


def choose(
    env: Env,
    policies: Sequence[Policy],
    state: State,
    gkey: Array,
    seating: Array,
) -> tuple[Array, Array]:
    """(action, step key) of `propose`."""
    return propose(env, policies, state, gkey, seating)[:2]


def play_batch(
    env: Env,
    policies: Sequence[Policy],
    states: State,
    gkeys: Array,
    seating: Array,
) -> tuple[State, Array]:
    """One step of a batch of games (leading axis B; `seating` int32[B, num_players], the index
    in `policies` of the policy playing each player): the policy seated for each game's current
    player picks the action (`propose_batch`), stepped with `env.step_batch`. Returns the next
    states and the actions taken."""
    actions, skeys, _, _ = propose_batch(env, policies, states, gkeys, seating)
    return env.step_batch(states, actions, skeys), actions


def _as_tuple(policies: Sequence[Policy] | Policy) -> tuple[Policy, ...]:
    """One policy or several, as a tuple."""
    return (policies,) if callable(policies) else tuple(policies)


def make_rollout(
    env: Env,
    policies: Sequence[Policy] | Policy = uniform_random,
    stats_fn: StatsFn | None = None,
    max_steps: int | None = None,
) -> Callable[[Array, Array], Rollout]:
    """A jitted `(key, seating int32[B, num_players], first=0) -> Rollout` playing B whole
    matches: games `first` .. `first` + B - 1 of `key` (`game_key`), so a run in several
    batches plays the same games as one batch.

    Every game runs until it ends or reaches `max_steps` (default: the env's bound); the batch
    loops until the slowest game is done. `stats_fn(before, after)` (per game) is summed over
    all steps of all games, e.g. to tally how deals end.
    """
    policies = _as_tuple(policies)
    limit = env.max_steps if max_steps is None else max_steps

    def run(key: Array, seating: Array, first: Array | int = 0) -> Rollout:
        batch = seating.shape[0]
        gkeys = jax.vmap(lambda g: game_key(key, g))(first + jnp.arange(batch))
        state0 = jax.vmap(env.init)(gkeys)
        zero_stats = None if stats_fn is None else jax.tree.map(
            lambda x: jnp.zeros(x.shape[1:], x.dtype),
            jax.vmap(stats_fn)(state0, state0),
        )
        carry0 = (state0, jnp.zeros_like(state0.rewards), zero_stats, jnp.int32(0))

        def cond(carry):
            state, _, _, t = carry
            return (t < limit) & ~jnp.all(state.terminated | state.truncated)

        def body(carry):
            state, returns, stats, t = carry
            nxt = play_batch(env, policies, state, gkeys, seating)[0]
            if stats_fn is not None:
                add = jax.vmap(stats_fn)(state, nxt)
                stats = jax.tree.map(lambda s, a: s + a.sum(0), stats, add)
            return nxt, returns + nxt.rewards, stats, t + 1

        state, returns, stats, _ = jax.lax.while_loop(cond, body, carry0)
        return Rollout(state=state, returns=returns, steps=state.step_count, stats=stats)

    return jax.jit(run)


TAIL = 4  # a stream finishes its last matches on 1/TAIL of its lanes (`stream_games`)


def stream_games(
    start: Callable[[Array], Any],
    step: Callable[[Any, Array, Any], tuple[Any, Array, Any]],
    result: Callable[[Any], Any],
    games: int,
    lanes: int,
    acc: Any = None,
    count: Array | int | None = None,
    tail: bool = True,
) -> tuple[Any, Any]:
    """Auto reset, the one loop of `make_stream` and the tournament's chunks: games
    0 .. `count` - 1 (default `games`) played through min(`lanes`, `games`) lanes. Returns
    (each game's `result`, leading axis `games`: zeros for a game not played; the final
    `acc`).

    `start(g)`: game g's carry in a lane (one lane; g an int32 scalar, possibly `count` or
    more: clamp it). `step(carry, active, acc)`: one step of every lane (leading axis: lane;
    `active` bool[lanes]: the lanes playing a game, the others hold a finished one) ->
    (carry, ended bool[lanes]: the games this step ended, acc). `result(carry)` (one lane):
    what an ended game writes at its index. A lane whose game ends writes its result and
    starts the next unplayed game in place (`_end_games`: `start` only in those lanes), so
    no lane waits for the slowest game. With `tail`, more games than lanes and at least 32
    lanes, the last games finish on lanes // `TAIL` lanes once none is left to start and
    few enough are left (a few long matches would otherwise keep every lane stepping): a
    second compile of `step`, at that width."""
    count = games if count is None else count
    width = min(lanes, games)
    fill = max(4, width // 256)  # lanes started or written out at a time
    lane_game = jnp.arange(width, dtype=jnp.int32)
    carry = jax.vmap(start)(lane_game)  # at once (`_end_games`: width / fill loop trips)
    out = jax.tree.map(lambda x: jnp.zeros((games, *x.shape), x.dtype),
                       jax.eval_shape(result, jax.tree.map(lambda x: x[0], carry)))

    def body(loop: tuple) -> tuple:
        carry, ended, lane_game, upcoming, out, acc = loop
        carry, lane_game, upcoming, out = _end_games(ended, lane_game, upcoming, count, carry,
                                                     out, start, result, fill)
        active = lane_game < count
        carry, ended, acc = step(carry, active, acc)
        return carry, ended & active, lane_game, upcoming, out, acc

    def playing(loop: tuple) -> Array:  # a game on (an ended one: to write)
        return jnp.any(loop[2] < count)

    loop = (carry, jnp.zeros(width, bool), lane_game, jnp.int32(width), out, acc)
    narrow = width // TAIL
    if tail and games > width and narrow >= 8:  # the tail on fewer lanes (a second compile)
        def wide(loop: tuple) -> Array:
            left = jnp.sum(loop[2] < count)
            return playing(loop) & ((loop[3] < count) | (left > narrow))

        loop = jax.lax.while_loop(wide, body, loop)
        on = loop[2] < count
        keep = jnp.nonzero(on, size=narrow, fill_value=jnp.argmin(on))[0]
        loop = (*jax.tree.map(lambda x: x[keep], loop[:3]), *loop[3:])
    return tuple(jax.lax.while_loop(playing, body, loop)[4:])


def _end_games(ended: Array, lane_game: Array, upcoming: Array, count: Array | int,
               carry: Any, out: Any, start: Callable[[Array], Any],
               result: Callable[[Any], Any], size: int) -> tuple[Any, Array, Array, Any]:
    """(`carry`, `lane_game`, `upcoming`, `out`) once each lane where `ended` (in lane order)
    has written its game's `result` at the game's index (`lane_game`) and started the next
    game (`upcoming` on; `start` where it is < `count`). The ended lanes are gathered `size`
    at a time, in a `while_loop` that makes no trip on a step where no game ends (most
    steps), reading and updating the loop's own carry, so XLA updates it in place (a copy of
    the lanes a step costs more than the step where a lane holds a whole match's actions)."""
    b = ended.shape[0]
    size = min(size, b)
    games = jax.tree.leaves(out)[0].shape[0]
    n = jnp.sum(ended, dtype=jnp.int32)
    order = jax.lax.cond(n > 0, lambda: jnp.nonzero(ended, size=b + size, fill_value=b)[0],
                         lambda: jnp.full(b + size, b, jnp.int32))  # the ended lanes first

    def trip(loop: tuple) -> tuple:
        i, lane_game, carry, out = loop
        idx = jax.lax.dynamic_slice(order, (i * size,), (size,))
        valid = idx < b
        at = jnp.where(valid, idx, b)  # out of range: dropped
        old = jax.tree.map(lambda x: x[jnp.minimum(idx, b - 1)], carry)
        slot = jnp.where(valid, lane_game[jnp.minimum(idx, b - 1)], games)
        out = jax.tree.map(lambda o, r: o.at[slot].set(r, mode="drop"), out,
                           jax.vmap(result)(old))
        nxt = upcoming + i * size + jnp.arange(size, dtype=jnp.int32)
        fresh = nxt < count

        def started() -> Any:
            return jax.tree.map(lambda y, o: jnp.where(
                fresh.reshape(-1, *[1] * (y.ndim - 1)), y, o), jax.vmap(start)(nxt), old)

        # a lane with no next game keeps its last one, written back from the lanes read
        # above (else XLA copies the carry twice a trip); `start` runs where one starts
        rows = jax.lax.cond(jnp.any(valid & fresh), started, lambda: old)
        carry = jax.tree.map(lambda x, r: x.at[at].set(r, mode="drop"), carry, rows)
        return i + 1, lane_game.at[at].set(nxt, mode="drop"), carry, out

    _, lane_game, carry, out = jax.lax.while_loop(
        lambda c: c[0] * size < n, trip, (jnp.int32(0), lane_game, carry, out))
    return carry, lane_game, upcoming + n, out


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Played:
    """Per-game results of `make_stream` (leading axis G: game `first` + g)."""

    returns: Array  # float32[G, num_players]: the match scores
    steps: Array  # int32[G]: steps taken
    truncated: Array  # bool[G]: the env's step bound cut the match short
    stats: Any  # the summed `stats_fn` values over every game (None when not asked for)


def make_stream(
    env: Env,
    policies: Sequence[Policy] | Policy = uniform_random,
    stats_fn: StatsFn | None = None,
    max_steps: int | None = None,
    lanes: int = 256,
) -> Callable[..., Played]:
    """A jitted `(key, seating int32[G, num_players], first=0) -> Played`: the G matches of
    `make_rollout(...)(key, seating, first)`, the same games move for move (game g keyed
    `game_key(key, first + g)`, seated by `seating[g]`), played through `lanes` lanes with
    auto reset (`stream_games`): a lane whose match ends records its results and starts the
    next unplayed match in place, so no lane waits for the batch's slowest match and the run
    keeps its steady-state speed until the last `lanes` matches, which finish on
    `lanes // TAIL` lanes where there are more matches than lanes (and `lanes` >= 32)."""
    policies = _as_tuple(policies)
    limit = env.max_steps if max_steps is None else max_steps

    def run(key: Array, seating: Array, first: Array | int = 0) -> Played:
        games = seating.shape[0]

        def start(g: Array) -> tuple[State, Array, Array, Array]:
            gkey = game_key(key, first + g)
            state = env.init(gkey)
            return state, gkey, seating[jnp.minimum(g, games - 1)], jnp.zeros_like(state.rewards)

        def step(carry: tuple, active: Array, stats: Any) -> tuple[tuple, Array, Any]:
            state, gkeys, seats, returns = carry
            nxt = play_batch(env, policies, state, gkeys, seats)[0]
            if stats_fn is not None:
                add = jax.vmap(stats_fn)(state, nxt)
                stats = jax.tree.map(
                    lambda s, a: s + jnp.where(
                        active.reshape(-1, *[1] * (a.ndim - 1)), a, 0).sum(0), stats, add)
            ended = nxt.terminated | nxt.truncated | (nxt.step_count >= limit)
            return (nxt, gkeys, seats, returns + nxt.rewards), ended, stats

        def result(lane: tuple) -> tuple[Array, Array, Array]:
            state, _, _, returns = lane
            return returns, state.step_count, state.truncated

        stats = None if stats_fn is None else jax.tree.map(
            lambda x: jnp.zeros(x.shape, x.dtype),
            jax.eval_shape(lambda k: stats_fn(env.init(k), env.init(k)), key))
        (returns, steps, truncated), stats = stream_games(start, step, result, games, lanes,
                                                          stats)
        return Played(returns=returns, steps=steps, truncated=truncated, stats=stats)

    return jax.jit(run)


def rollout(
    env: Env,
    key: Array,
    batch: int,
    policies: Sequence[Policy] | Policy = uniform_random,
    seating: Array | None = None,
    stats_fn: StatsFn | None = None,
) -> Rollout:
    """Play `batch` whole matches (compiles on each call; keep `make_rollout` to reuse)."""
    if seating is None:
        seating = jnp.zeros((batch, env.num_players), jnp.int32)
    return make_rollout(env, policies, stats_fn)(key, seating)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class Trajectory:
    """Every state of one match (leading axis: step), from `make_trajectory`."""

    states: State  # the L + 1 states: before each step, then the last
    actions: Array  # int32[L]: the action taken at each step
    deal_done: Array  # bool[L]: the step ended a deal (`env.deal_done` of the next state)


@functools.cache
def make_trajectory(env: Env, policy: Policy = uniform_random, steps: int | None = None
                    ) -> Callable[..., Trajectory]:
    """A jitted `(game key, actions int32[L], n, first state=None) -> Trajectory` of one
    match from `first state` (None: `env.init(game key)`), L = `steps` steps (default
    `env.max_steps`; a finished match stays put): step t takes `actions[t]` for t < n, else
    `policy`'s choice (keys as in `make_rollout`). One compile per env, policy and L (and
    whether a first state is given); one call plays, replays or shows a whole match, or
    (`kanjax.records`) a part of one, from the state the last part ended in."""
    seating = jnp.zeros(env.num_players, jnp.int32)

    def run(gkey: Array, actions: Array, n: Array, state0: State | None = None) -> Trajectory:
        if state0 is None:
            state0 = env.init(gkey)

        def body(state, t):
            chosen, skey = choose(env, (policy,), state, gkey, seating)
            action = jnp.where(t < n, actions[t], chosen)
            nxt = env.step(state, action, skey)
            return nxt, (nxt, action, env.deal_done(nxt))

        _, (after, taken, dealt) = jax.lax.scan(body, state0, jnp.arange(
            env.max_steps if steps is None else steps))
        states = jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), state0, after)
        return Trajectory(states=states, actions=taken, deal_done=dealt)

    return exported.cached_jit(run, _program_name("trajectory", env, policy))


@functools.cache
def make_init(env: Env) -> Callable[[Array], State]:
    """`env.init`, jitted and kept like `make_trajectory`'s programs (the first state of a
    match played in parts, `kanjax.records`)."""
    return exported.cached_jit(env.init, f"init:{env.name}:{env.version}:"
                               f"{env.config!r}")


def _program_name(kind: str, env: Env, policy: Policy) -> str | None:
    """A name of `kind`'s program for `env` and `policy` that is the same in every process
    (`kanjax.exported`), or None where the policy is not a plain function of kanjax."""
    where = f"{getattr(policy, '__module__', '')}.{getattr(policy, '__qualname__', '')}"
    if not where.startswith("kanjax.") or "<locals>" in where:
        return None
    return f"{kind}:{env.name}:{env.version}:{env.config!r}:{where}"
