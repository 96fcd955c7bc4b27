"""Train the policy network (`net.py` on `gonin.py`'s features) for 5-player Gonin Kan, one
round a match, in two phases, every game played by the batched environment
(`env.step_batch` inside a jitted `lax.scan`, all games of a batch at once):

1. imitation: the heuristic bot plays `--games` matches against itself; the network learns
   its move from the mover's observation (cross-entropy over the legal actions);
2. self-play improvement, `--iterations` times: the network (sampling from its softmax)
   plays all five seats of `--selfplay-games` matches; a policy-gradient pass over its moves,
   each weighted by the mover's match score from that move on (normalised), with the
   imitation loss kept as an anchor (`--anchor`). Each iteration goes on from the last; the
   weights saved are those that score best against the heuristic bot (greedy play, the same
   deals every time).

Then it saves the weights (`tournaments.policies.save_params`, a `.npz` file) that a `jax`
bot loads: `examples/policy_net/gonin_eval.toml`. Plain JAX (Adam written out): nothing to
install beyond kanjax. `python -m examples.policy_net.train_gonin --out gonin_net.npz`;
`--quick` trains a toy network (the test).
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

import kanjax
from examples.policy_net import gonin, net
from kanjax.bots import make_heuristic, make_random
from kanjax.rollout import make_stream
from tournaments.policies import bind, save_params

Array = jax.Array
FLAGS = {"n_rounds": 1}  # one round (up to three deals) a match
# the evaluation's matches go through 32 lanes (`make_stream`: a lane whose match ends
# starts the next): 0.7x the CPU time of all 250 at once, with no second compile (a stream
# of 64 lanes or more finishes on an eighth of them, one more compile of the step)
EVAL_LANES = 32


def play(env: kanjax.Env, act: Callable, params, key: Array, games: int) -> dict[str, Array]:
    """`games` whole matches, every seat played by `act(params, key, observation,
    legal_mask)`, as arrays [step, game]: each move's observation, mask, action, mover, the
    heuristic bot's choice there (`teacher`) and whether the game was still on (`valid`),
    and the step's rewards [step, game, player]. One `lax.scan` of `env.max_steps`
    `step_batch` calls (games that end first stay put)."""
    teacher = make_heuristic(env)
    vact = jax.vmap(act, in_axes=(None, 0, 0, 0))

    def step(state, k):
        kp, ks = jax.random.split(k)
        mover = jnp.maximum(state.current_player, 0)
        obs = jax.vmap(env.observe)(state, mover)
        mask = state.legal_action_mask
        pkeys = jax.random.split(kp, games)
        action = vact(params, pkeys, obs, mask)
        nxt = env.step_batch(state, action, jax.random.split(ks, games))
        return nxt, {"obs": obs, "mask": mask, "action": action, "mover": mover,
                     "teacher": jax.vmap(teacher)(pkeys, obs, mask), "rewards": nxt.rewards,
                     "valid": ~(state.terminated | state.truncated)}

    k0, k1 = jax.random.split(key)
    state = jax.vmap(env.init)(jax.random.split(k0, games))
    return jax.lax.scan(step, state, jax.random.split(k1, env.max_steps))[1]


def returns_to_go(data: dict[str, Array]) -> Array:
    """float[step, game]: the mover's rewards from each step to the match's end."""
    to_go = jnp.cumsum(data["rewards"][::-1], axis=0)[::-1]
    return jnp.take_along_axis(to_go, data["mover"][..., None], axis=-1)[..., 0]


def adam(params, grads, state, lr: float, b1: float = 0.9, b2: float = 0.999):
    """One Adam step; `state` = (step, first moments, second moments)."""
    t, m, v = state
    t = t + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    new = jax.tree.map(lambda p, m, v: p - lr * (m / (1 - b1 ** t)) / (
        jnp.sqrt(v / (1 - b2 ** t)) + 1e-8), params, m, v)
    return new, (t, m, v)


def adam_state(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return jnp.int32(0), zeros, zeros


def make_update(env: kanjax.Env, lr: float, anchor: float):
    """A jitted minibatch step `(params, opt, batch) -> (params, opt, loss)` on `batch`
    (obs, mask, teacher, and for policy-gradient steps action and advantage): the teacher's
    cross-entropy times `anchor` (1 where there is no advantage) plus the policy gradient."""
    scores = jax.vmap(net.masked_logits(env, gonin.features(env)), in_axes=(None, 0, 0))

    def loss(params, batch):
        logp = jax.nn.log_softmax(scores(params, batch["obs"], batch["mask"]))
        pick = functools.partial(jnp.take_along_axis, logp, axis=1)
        imitation = -pick(batch["teacher"][:, None])[:, 0].mean()
        if "advantage" not in batch:
            return imitation
        policy = -(batch["advantage"] * pick(batch["action"][:, None])[:, 0]).mean()
        return policy + anchor * imitation

    @jax.jit
    def update(params, opt, batch):
        value, grads = jax.value_and_grad(loss)(params, batch)
        params, opt = adam(params, grads, opt, lr)
        return params, opt, value

    return update


def fit(update, params, opt, samples: dict[str, np.ndarray], epochs: float, batch: int,
        rng: np.random.Generator):
    """`epochs` passes of minibatch steps over `samples`; returns (params, opt, mean loss)."""
    n = len(samples["obs"])
    losses = []
    for _ in range(max(1, int(epochs * n / batch))):
        idx = rng.integers(0, n, batch)
        params, opt, value = update(params, opt, {k: v[idx] for k, v in samples.items()})
        losses.append(float(value))
    return params, opt, float(np.mean(losses))


def flat(data: dict[str, Array], keys: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The moves of games still on, as numpy arrays [move, ...]."""
    valid = np.asarray(data["valid"])
    return {k: np.asarray(data[k])[valid] for k in keys}


def make_match_score(env: kanjax.Env, games: int):
    """`(params, key) -> mean match score of the greedy network against the bot` for the
    heuristic and the random bot: the network in one seat (every seat in turn) and the bot
    in the others, the mean over its seats of its score minus the others' mean."""
    greedy = gonin.make_policy(env)
    n = env.num_players
    seating = jnp.asarray([[int(p == g % n) for p in range(n)] for g in range(games)])
    net_seat = jax.nn.one_hot(jnp.arange(games) % n, n)

    bots = {"heuristic": make_heuristic(env), "random": make_random(env)}

    @jax.jit
    def score(params, key):
        out = {}
        for name, bot in bots.items():
            r = make_stream(env, (bot, bind(greedy, params)), lanes=EVAL_LANES)(
                key, seating).returns
            mine = (r * net_seat).sum(1)
            others = (r * (1 - net_seat)).sum(1) / (n - 1)
            out[name] = (mine - others).mean()
        return out

    return score


def train(out: str, games: int = 1024, steps: int = 3000, iterations: int = 3,
          selfplay_games: int = 256, hidden: tuple[int, ...] = (128, 128), lr: float = 1e-3,
          pg_lr: float = 2e-4, anchor: float = 0.5, eval_games: int = 250, seed: int = 0,
          log: Callable[[str], None] = print) -> dict:
    """Both phases; saves the weights to `out`; returns what it measured."""
    env = kanjax.make("gonin_kan", **FLAGS)
    t0 = time.perf_counter()
    key = jax.random.PRNGKey(seed)
    rng = np.random.default_rng(seed)
    k_init, k_data, k_eval, key = jax.random.split(key, 4)
    params = net.init_params(env, k_init, hidden, gonin.features(env))
    score = make_match_score(env, eval_games)
    heuristic = make_heuristic(env)
    teach = jax.jit(functools.partial(play, env, lambda p, k, o, m: heuristic(k, o, m)),
                    static_argnums=2)
    data = flat(teach(None, k_data, games), ("obs", "mask", "teacher"))
    log(f"imitation data: {len(data['obs'])} moves of {games} heuristic matches "
        f"({time.perf_counter() - t0:.0f} s)")
    update = make_update(env, lr, anchor)
    opt = adam_state(params)
    params, opt, loss = fit(update, params, opt, data, steps * 256 / len(data["obs"]), 256,
                            rng)
    best = {k: float(v) for k, v in score(params, k_eval).items()}
    log(f"imitation: {steps} steps, loss {loss:.3f}; vs heuristic {best['heuristic']:+.2f}, "
        f"vs random {best['random']:+.2f} a match ({time.perf_counter() - t0:.0f} s)")
    history = [{"phase": "imitation", "loss": loss, **best}]
    selfplay = jax.jit(functools.partial(play, env, gonin.make_sampling_policy(env)),
                       static_argnums=2)
    pg = make_update(env, pg_lr, anchor)
    opt, kept_params = adam_state(params), params
    for it in range(iterations):
        key, k = jax.random.split(key)
        raw = selfplay(params, k, selfplay_games)
        ret = np.asarray(returns_to_go(raw))[np.asarray(raw["valid"])]
        moves = flat(raw, ("obs", "mask", "teacher", "action"))
        moves["advantage"] = ((ret - ret.mean()) / (ret.std() + 1e-6)).astype(np.float32)
        params, opt, loss = fit(pg, params, opt, moves, 1.0, 512, rng)
        got = {k: float(v) for k, v in score(params, k_eval).items()}
        better = got["heuristic"] > best["heuristic"]
        log(f"self-play {it + 1}: {len(ret)} moves, loss {loss:.3f}; vs heuristic "
            f"{got['heuristic']:+.2f}, vs random {got['random']:+.2f} "
            f"({'the best so far' if better else 'not better'}; "
            f"{time.perf_counter() - t0:.0f} s)")
        history.append({"phase": f"self-play {it + 1}", "loss": loss, "best": better, **got})
        if better:
            kept_params, best = params, got
    save_params(out, kept_params)
    seconds = time.perf_counter() - t0
    log(f"saved {out} ({seconds:.0f} s in all)")
    return {"history": history, "final": best, "seconds": seconds}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="gonin_net.npz")
    p.add_argument("--games", type=int, default=1024)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--selfplay-games", type=int, default=256)
    p.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    p.add_argument("--anchor", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="a toy run in seconds (the test)")
    a = p.parse_args()
    if a.quick:
        a.games, a.steps, a.iterations, a.selfplay_games, a.hidden = 8, 20, 1, 8, [8]
    train(a.out, a.games, a.steps, a.iterations, a.selfplay_games, tuple(a.hidden),
          anchor=a.anchor, eval_games=10 if a.quick else 250, seed=a.seed)


if __name__ == "__main__":
    main()
