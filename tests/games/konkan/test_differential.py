"""Differential tests: the JAX Konkan engine (`kanjax.games.konkan.engine`) vs its plain-Python
reference (`kanjax.games.konkan.reference`), step by step (`tests.harness.differential`, the adapter
`tests.games.konkan.differential`): every legal mask, the mover, and every field of
`kanjax.games.konkan.spec.SUMMARY_KEYS` after every step, and the match scores (the rewards
summed). The engine steps with `env.step_batch` (`vmap(env.step)` bit for bit:
tests/test_step_batch.py).

The same trajectories check the engine's invariants on its own summaries (`invariants`): 106
cards, two of each type, in the hands, on the table, in the pile and the stock; every table
meld a valid run or set (KON-7..9, KON-38) in a prefix of the slots; a legal action until
the end; hands of at most 15; rounds within their turn bound (KON-23).

The default run (`CONFIGS`): 2,000 games over four configs, one engine each: n = 2 with
opening 71 and without `take_must_use_card` (KON-V1, KON-V4; requests, KON-27/28); n = 3;
n = 4 in pairs (KON-31) over 2 rounds with `reward="points"`; n = 5 without
`opening_requires_run` (KON-V3). Every config asserts the branches its games reach
(`BRANCHES`: openings, takes (KON-E11), lay-offs, retrievals, retracts, requests, rounds gone
out or blocked (KON-23), games ended); the rarer ones (`UNION`: retrievals from sets, hands
(KON-24), konkans (KON-25) in a game's last round (KON-28) and in an earlier one (KON-26),
rounds ended by the turn bound) over the four configs together. Konkans come from the stacked
deals of the adapter's `init`, hands from its planned openings (`Steering`). `pytest -m slow`
plays 100,000 games (`SLOW_ONLY` adds n = 4 solo, n = 3 over 2 rounds and a full game in
pairs; hours).

Most of the default run's time is the four engines' compiles and, per game, the reference's
legal masks (KON-E11's take searches); the measured figures are in docs/benchmarks-history.md.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from kanjax.games.konkan import spec as ks
from tests.games.konkan.differential import ADAPTER
from tests.harness import differential as hd

# (flags, games in the default run (SLOW_ONLY: its weight in the slow run), engine lanes);
# each config compiles its engine (about 17 CPU-seconds): n = 2..5 once each by default
CONFIGS = [
    pytest.param(dict(n=2, opening_min=71, take_must_use_card=False, n_rounds=1,
                      max_turns_per_round=100), 300, 100, id="n2-71-take-free-1round"),
    pytest.param(dict(n=3, n_rounds=1, max_turns_per_round=75), 300, 100, id="n3-1round"),
    pytest.param(dict(n=4, partnership=True, opening_min=71, reward="points", n_rounds=2,
                      max_turns_per_round=70), 400, 100, id="n4-pairs-71-2rounds"),
    pytest.param(dict(n=5, opening_requires_run=False, n_rounds=1, max_turns_per_round=60),
                 300, 100, id="n5-no-run-1round"),
]
SLOW_ONLY = [
    pytest.param(dict(n=4, partnership=True, reward="points", max_turns_per_round=70), 60, 30,
                 id="n4-pairs-5rounds"),
    pytest.param(dict(n=3, n_rounds=2, max_turns_per_round=90), 300, 30, id="n3-2rounds"),
    pytest.param(dict(n=4, opening_min=71, n_rounds=2, max_turns_per_round=70), 300, 30,
                 id="n4-71-2rounds"),
]
SLOW_LANES = 40
CHUNK = 600  # games at most in one engine batch of the default run

POS_RANK = np.array([ks.position_rank(q) for q in range(ks.RUN_POSITIONS)])


def counts(lane_types: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """int[B, 53]: per lane (the leading axis) the number of `keep` entries of each type."""
    lanes = lane_types.shape[0]
    idx = (np.arange(lanes).reshape((-1,) + (1,) * (lane_types.ndim - 1)) * ks.NUM_TYPES
           + lane_types)
    return np.bincount(idx[keep], minlength=lanes * ks.NUM_TYPES).reshape(lanes, -1)


def table_counts(s: dict) -> np.ndarray:
    """int[B, 53]: the table melds' cards per type (naturals by position or suit, jokers)."""
    kind, cells = s["meld_kind"][..., None], s["meld_cards"]
    run_types = s["meld_suit"][..., None].astype(np.int64) * 13 + POS_RANK
    set_types = np.arange(14) * 13 + s["meld_rank"][..., None].astype(np.int64)
    types = np.where(kind == ks.RUN_MELD, run_types, set_types)
    nat = (cells == ks.NATURAL) & (kind != ks.NO_MELD)
    out = counts(np.where(nat, types, 0), nat)
    out[:, ks.JOKER] += s["meld_jokers"].astype(np.int64).sum(-1)
    return out


def invariants(config: ks.KonConfig, s: dict, rows: np.ndarray) -> None:
    """The engine's own invariants at one step, for the games (lanes) `rows`."""
    s = {k: v[rows] for k, v in s.items()}
    where = f"lanes {rows.tolist()}"
    # 106 cards: two of each type in the hands, on the table, in the pile and the stock (KON-1)
    stock = np.arange(ks.DECK_SIZE) >= ks.DECK_SIZE - s["stock"][:, None].astype(np.int64)
    stock = counts(s["deck"].astype(np.int64), stock)
    total = s["hands"].astype(np.int64).sum(1) + s["pile"] + stock + table_counts(s)
    assert (total == ks.COPIES).all(), f"{where}: cards not conserved"
    # every table meld valid (KON-7..9, KON-38, KON-E7), the slots a prefix
    kind, cells, jok = s["meld_kind"], s["meld_cards"], s["meld_jokers"].astype(np.int64)
    used = np.arange(ks.MAX_MELDS) < s["melds"][:, None]
    assert ((kind != ks.NO_MELD) == used).all() and ((s["meld_owner"] >= 0) == used).all()
    occ = cells != ks.EMPTY
    nat = (cells == ks.NATURAL).sum(-1)
    size = occ.sum(-1)
    lo, hi = occ.argmax(-1), ks.RUN_POSITIONS - 1 - occ[..., ::-1].argmax(-1)
    run = kind == ks.RUN_MELD
    run_ok = ((hi - lo + 1 == size) & (size >= 3) & (size <= ks.MAX_RUN) & (nat >= 1)
              & ((cells == ks.JOKER_CARD).sum(-1) == jok) & (jok <= 2) & ~occ[..., 1:].all(-1)
              & (s["meld_suit"] >= 0))
    set_ok = ((nat + jok >= 3) & (nat + jok <= ks.MAX_SET) & (nat >= 1) & ~occ[..., 4:].any(-1)
              & (s["meld_rank"] >= 0))
    ok = np.where(run, run_ok, np.where(kind == ks.SET_MELD, set_ok, ~occ.any(-1) & (jok == 0)))
    assert ok.all(), f"{where}: an invalid table meld {np.argwhere(~ok)[:3].tolist()}"
    # a legal action until the end; hands of at most 15; the turn bound (KON-23)
    live = ~s["terminated"]
    assert s["legal_action_mask"][live].any(-1).all(), f"{where}: no legal action"
    assert (s["hands"].sum(-1) <= ks.MAX_HAND).all()
    assert (s["turns"] <= config.max_turns_per_round).all()


BRANCHES = ("opening", "take unopened", "take opened", "take requester", "layoff high",
            "layoff low", "layoff set", "meld after opening", "retrieve run", "retrieve set",
            "retract", "request", "out", "hand", "konkan", "konkan early round",
            "konkan last round", "blocked stock", "blocked bound", "game end")
UNION = ("retrieve set", "hand", "konkan", "konkan early round", "konkan last round",
         "blocked bound")  # rarer: asserted over the default run's configs together


def expected(flags: dict) -> list[str]:
    """The branches a config's games reach (a konkan in the last round needs a game of one
    round, an earlier one a game of several: the stacked deals are first rounds)."""
    last = "konkan early round" if flags.get("n_rounds", 5) == 1 else "konkan last round"
    return [k for k in BRANCHES if k != last]


def branches(config: ks.KonConfig, traj: hd.Trajectories) -> dict[str, int]:
    """The rare branches reached in `traj` (played through lanes); checks `invariants` at
    every step."""
    n = dict.fromkeys(BRANCHES, 0)
    S, lanes = traj.summaries, len(traj.summaries[0]["terminated"])
    open_start = np.zeros(lanes, bool)  # the mover had opened at his turn's start
    ids = np.arange(lanes)
    for t, action in enumerate(traj.actions):
        b, c = S[t], S[t + 1]
        rows = np.flatnonzero(~S[t - 1]["terminated"] | traj.fresh[t]) if t else ids
        invariants(config, b, rows)
        p = np.clip(b["current_player"].astype(np.int64), 0, config.n - 1)
        round_start = traj.fresh[t] | (b["round"] != S[t - 1]["round"] if t else True)
        open_start = np.where(round_start, False, open_start)
        draw = b["phase"] == ks.PHASE_DRAW
        open_start = np.where(draw, b["opened"][ids, p], open_start)
        go = (action >= 0) & ~b["terminated"]
        a = np.where(go, action, -1)
        req = b["requested"][ids, p]
        take = a == ks.TAKE
        n["take requester"] += int((take & req).sum())
        n["take unopened"] += int((take & ~req & ~open_start).sum())
        n["take opened"] += int((take & open_start).sum())
        n["request"] += int((a == ks.REQUEST).sum())
        n["layoff high"] += int(((a >= ks.LAYOFF) & (a < ks.LAYOFF_LOW)).sum())
        n["layoff low"] += int(((a >= ks.LAYOFF_LOW) & (a < ks.RETRIEVE)).sum())
        onto = b["meld_kind"][ids, np.clip(a - ks.LAYOFF, 0, ks.MAX_MELDS - 1)]
        n["layoff set"] += int(((a >= ks.LAYOFF) & (a < ks.LAYOFF_LOW)
                                & (onto == ks.SET_MELD)).sum())
        n["meld after opening"] += int(((a >= ks.RUN) & (a <= ks.SET) & open_start).sum())
        retrieve = (a >= ks.RETRIEVE) & (a < ks.DISCARD)
        m = np.clip(a - ks.RETRIEVE, 0, ks.MAX_MELDS - 1)
        from_run = b["meld_kind"][ids, m] == ks.RUN_MELD
        n["retrieve run"] += int((retrieve & from_run).sum())
        n["retrieve set"] += int((retrieve & ~from_run).sum())
        n["retract"] += int((a == ks.RETRACT).sum())
        discard = (a >= ks.DISCARD) & (a < ks.DRAW)
        n["opening"] += int((discard & ~open_start & b["opened"][ids, p]).sum())
        over = c["terminated"] & ~b["terminated"]
        ended = go & ((c["round"] != b["round"]) | over)
        outcome = c["outcome"]
        for name, k in (("out", ks.OUT), ("hand", ks.HAND), ("konkan", ks.KONKAN)):
            n[name] += int((ended & (outcome == k)).sum())
        blocked = ended & (outcome == ks.BLOCKED)
        bound = blocked & discard & (b["turns"] + 1 == config.max_turns_per_round)
        n["blocked bound"] += int(bound.sum())
        n["blocked stock"] += int((blocked & ~bound & (b["stock"] == 0)).sum())
        n["konkan last round"] += int((over & (outcome == ks.KONKAN)).sum())
        n["konkan early round"] += int((ended & ~over & (outcome == ks.KONKAN)).sum())
        n["game end"] += int(over.sum())
    invariants(config, S[-1], np.flatnonzero(~S[-2]["terminated"] | traj.fresh[-1]))
    return n


def run(flags: dict, seeds, chunk: int, lanes: int):
    config = ks.KonConfig(**flags)
    return hd.run_counted(ADAPTER, "konkan", flags, seeds, chunk,
                          functools.partial(branches, config), lanes)


FIRED: dict[str, dict[str, int]] = {}  # the default run's counts per config


@pytest.mark.parametrize("flags,games,lanes", CONFIGS)
def test_konkan_engine_matches_reference(flags, games, lanes):
    chunks = -(-games // CHUNK)  # the reference's facts of a chunk stay in memory
    assert games % chunks == 0
    steps, fired = run(flags, range(chunks), games // chunks, lanes)
    FIRED[str(flags)] = fired
    assert fired["game end"] == games and steps > games * 100
    never = [k for k in expected(flags) if k not in UNION and fired[k] == 0]
    assert not never, f"rare branches never reached: {never} ({fired})"


def test_konkan_rare_branches_over_the_default_run():
    """The rarer branches (UNION), over every config of the default run (the test above, run
    before this one in the same process)."""
    if len(FIRED) < len(CONFIGS):
        pytest.skip("needs every config of test_konkan_engine_matches_reference first")
    total = {k: sum(f[k] for f in FIRED.values()) for k in UNION}
    never = [k for k in UNION if total[k] == 0]
    assert not never, f"rare branches never reached: {never} ({total})"


@pytest.mark.slow
@pytest.mark.parametrize("flags,games,lanes", CONFIGS + SLOW_ONLY)
def test_konkan_engine_matches_reference_100k(flags, games, lanes):
    """The config's share of 100,000 games, in chunks of 100 (a chunk's summaries stay in
    memory: 500 games of 5 rounds would need about a GB)."""
    total = sum(c.values[1] for c in CONFIGS + SLOW_ONLY)
    seeds = hd.slow_seeds(games, total)
    steps, fired = run(flags, range(5 * seeds.start, 5 * seeds.stop), hd.SLOW_CHUNK // 5,
                       SLOW_LANES)
    never = [k for k in expected(flags) if fired[k] == 0]
    assert not never, f"rare branches never reached: {never} ({fired})"
