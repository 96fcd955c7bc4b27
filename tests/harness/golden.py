"""Golden playthroughs (OpenSpiel's habit): every step of a few fixed random matches as text.

Each file records, per step, the player to act, the legal actions, the action taken, the
rewards and a digest of every player's observation, plus the whole table at each deal start.
A test diffs a fresh playthrough against the file, so any change of behaviour shows up as a
readable diff. After an intended change, regenerate: `python -m tests.harness.golden`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jax
import numpy as np

from kanjax.bots import uniform_random
from kanjax.records import Match
from kanjax.render import show

GOLDEN_DIR = Path(__file__).parent / "golden"
CASES = {
    "gonin_kan_5p_seed3": ("gonin_kan", {"n_rounds": 2}, 3),
    "gonin_kan_6p_seed4": ("gonin_kan", {"players": 6, "n_rounds": 1, "shippo_jo": True}, 4),
}


def playthrough(game: str, flags: dict, seed: int) -> str:
    m = Match(game, flags, seed, None)
    observe = jax.jit(jax.vmap(m.env.observe, in_axes=(None, 0)))
    players = np.arange(m.env.num_players)
    lines = [f"# {game} {flags} seed={seed}", show(m.env, m.state)]
    while not m.done:
        s = m.state
        obs = np.asarray(observe(s, players))
        digest = hashlib.sha1(obs.tobytes()).hexdigest()[:12]
        legal = [m.env.action_name(a, s) for a in m.env.legal_actions(s)]
        action = int(uniform_random(m.keys()[0], None, s.legal_action_mask))
        m.step(action)
        rewards = np.asarray(m.state.rewards)
        lines.append(
            f"step {int(s.step_count)}: P{int(s.current_player)} obs {digest} "
            f"legal [{', '.join(legal)}] -> {m.env.action_name(action, s)}"
            + (f"  rewards {rewards.tolist()}" if rewards.any() else "")
        )
        if bool(m.env.deal_done(m.state)) and not m.done:
            lines.append(show(m.env, m.state))
    lines.append(f"final scores {m.returns.tolist()}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, case in CASES.items():
        (GOLDEN_DIR / f"{name}.txt").write_text(playthrough(*case))
        print(f"wrote {GOLDEN_DIR / name}.txt")
