"""Playing one chunk of a tournament: its games as one jitted, vmapped call.

A `ChunkPlayer` compiles once for its config (batch padded to the chunk size) and turns a list
of planned games into rows of the `games`, `seats` and `deals` tables. The games of one
duplicate group share a game key, so they get the same deals (`kanjax.rollout` keys chance
by the deal).
"""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np

import kanjax
from kanjax.bots import uniform_random
from kanjax.envs import kan_spec as ks
from kanjax.envs.kan import summary
from kanjax.rollout import Policy, game_key, play_step
from tournaments.config import BotSpec, TournamentConfig
from tournaments.plan import PlannedGame


def jax_policy(spec: BotSpec, env) -> Policy:
    """The jittable policy of a bot spec."""
    if spec.kind == "random":
        return uniform_random
    if spec.kind == "heuristic":
        from kanjax.bots.heuristic import make_heuristic

        return make_heuristic(env)
    raise ValueError(f"bot {spec.name!r}: kind {spec.kind!r} is not a JAX policy")


class ChunkPlayer:
    """Plays chunks of games of one tournament config (compiled once)."""

    def __init__(self, cfg: TournamentConfig) -> None:
        self.cfg = cfg
        self.env = env = kanjax.make(cfg.game, **cfg.flags)
        policies = tuple(jax_policy(b, env) for b in cfg.bots)
        self.max_deals = cfg.flags.get("n_rounds", 10) * 3 * (4 if env.config.shippo_jo else 1)
        self._run = jax.jit(jax.vmap(self._one_game(policies)))
        self.config_hash = cfg.config_hash()

    def _one_game(self, policies):
        env, steps, deals = self.env, self.env.max_steps, self.max_deals
        n = env.num_players

        def run(gkey, seating):
            state = env.init(gkey)
            rows = {
                "round": jnp.zeros(deals, jnp.int32), "deal": jnp.zeros(deals, jnp.int8),
                "dealer": jnp.zeros(deals, jnp.int8), "trump": jnp.zeros(deals, jnp.int8),
                "kankei": jnp.zeros((deals, n), jnp.bool_),
                "points": jnp.zeros((deals, 2), jnp.int8),
                "outcome": jnp.zeros(deals, jnp.int8),
            }
            carry = (state, jnp.zeros(n, jnp.float32), jnp.full(steps, -1, jnp.int16),
                     rows, jnp.int32(0), jnp.int8(-1))

            def cond(c):
                return ~(c[0].terminated | c[0].truncated)

            def body(c):
                s0, returns, actions, rows, ndeals, forfeit = c
                s1, action = play_step(env, policies, s0, gkey, seating)
                actions = actions.at[s0.step_count].set(action.astype(jnp.int16))
                forfeit = jnp.where(s1.illegal_action, s0.current_player, forfeit)
                a, b = summary(s0), summary(s1)
                ended = env.deal_done(s1) & ~s1.illegal_action
                k = jnp.minimum(ndeals, deals - 1)
                new = {"round": a["round"], "deal": a["deal"], "dealer": a["dealer"],
                       "trump": a["trump"], "kankei": a["kankei"], "points": b["last_points"],
                       "outcome": b["last_outcome"]}
                rows = {key: rows[key].at[k].set(jnp.where(ended, new[key].astype(
                    rows[key].dtype), rows[key][k])) for key in rows}
                return (s1, returns + s1.rewards, actions, rows, ndeals + ended, forfeit)

            s, returns, actions, rows, ndeals, forfeit = jax.lax.while_loop(cond, body, carry)
            return {"returns": returns, "steps": s.step_count, "truncated": s.truncated,
                    "forfeit": forfeit, "actions": actions, "ndeals": ndeals, **rows}

        return run

    def play(self, chunk: int, games: list[PlannedGame]) -> dict[str, list[dict]]:
        """Rows of the `games`, `seats` and `deals` tables for these games."""
        size = self.cfg.chunk_size
        padded = games + [games[-1]] * (size - len(games))  # one compiled batch size
        root = jax.random.PRNGKey(self.cfg.seed)
        gkeys = jnp.stack([game_key(root, g.deal_seed) for g in padded])
        seating = jnp.asarray([g.bots for g in padded], jnp.int32)
        out = jax.tree.map(np.asarray, self._run(gkeys, seating))
        return self._rows(chunk, games, out)

    def _rows(self, chunk: int, games: list[PlannedGame], out: dict) -> dict[str, list[dict]]:
        names = [b.name for b in self.cfg.bots]
        flags = json.dumps(self.cfg.flags, sort_keys=True)
        rows: dict[str, list[dict]] = {"games": [], "seats": [], "deals": []}
        for i, g in enumerate(games):
            bots = [names[b] for b in g.bots]
            nd = min(int(out["ndeals"][i]), self.max_deals)
            steps = int(out["steps"][i])
            rows["games"].append({
                "game_id": g.game_id, "group": g.group, "rotation": g.rotation, "chunk": chunk,
                "seed": g.deal_seed, "config_hash": self.config_hash, "game": self.cfg.game,
                "flags": flags, "bots": bots, "scores": out["returns"][i].tolist(),
                "steps": steps, "truncated": bool(out["truncated"][i]),
                "forfeit": int(out["forfeit"][i]), "actions": out["actions"][i][:steps].tolist(),
            })
            kankei = out["kankei"][i][:nd]
            kwin = np.isin(out["outcome"][i][:nd], ks.KANKEI_WINS)
            for d in range(nd):
                rows["deals"].append({
                    "game_id": g.game_id, "deal_index": d, "round": int(out["round"][i][d]),
                    "deal": int(out["deal"][i][d]), "dealer": int(out["dealer"][i][d]),
                    "trump": int(out["trump"][i][d]),
                    "kankei": np.flatnonzero(kankei[d]).tolist(),
                    "points_kankei": int(out["points"][i][d][0]),
                    "points_mukankei": int(out["points"][i][d][1]),
                    "outcome": ks.OUTCOME_NAMES[int(out["outcome"][i][d])],
                })
            decided = out["outcome"][i][:nd] != ks.SHIPPO_VOID
            for p, bot in enumerate(bots):
                k = kankei[:, p]
                rows["seats"].append({
                    "game_id": g.game_id, "group": g.group, "rotation": g.rotation,
                    "player": p, "bot": bot, "score": float(out["returns"][i][p]),
                    "deals": int(decided.sum()), "deals_kankei": int((k & decided).sum()),
                    "deals_won_kankei": int((k & kwin).sum()),
                    "deals_won_mukankei": int((~k & decided & ~kwin).sum()),
                })
        return rows
