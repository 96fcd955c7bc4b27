"""Kan's tournament views (`kanjax.games.kan.results`) where a rule decides a deal's row: a
void Shippo-Jo deal (KAN-71) and the sitting-out 6-player dealer (KAN-17)."""

from __future__ import annotations

import jax
import numpy as np

import kanjax
from tests.games.gonin_kan.test_engine import _env, _s39_plan, do, play


def facts(env, before, after) -> dict[str, np.ndarray]:
    return {k: np.asarray(v) for k, v in jax.jit(env.deal_facts)(before, after).items()}


def test_KAN_71_a_void_deal_has_a_row_but_counts_in_no_statistic():
    env = _env(shippo_jo=True)
    plan = _s39_plan(muk_ace=False)
    st = env.from_deal(plan.deal("deal=2 kankei=1,3 joker=1 ace=3 rk=1 rm=-1 won=0"))
    before = play(env, do(env, st, "signal F5", "trump C"), plan.tricks)
    after = do(env, before, "Shippo CALL")
    f = facts(env, before, after)
    assert bool(env.deal_done(after)) and not f["counted"] and not f["won"].any()
    assert f["role"].tolist() == f["side"].tolist() == [1, 0, 1, 0, 1]  # kankei P1, P3
    row = env.deal_row(f)
    assert (row["outcome"], row["kankei"], row["deal"]) == ("SHIPPO_VOID", [1, 3], 2)
    assert set(row) == {name for name, _ in env.deal_columns}


def test_KAN_17_the_sitting_out_dealer_counts_with_the_kankei():
    env = kanjax.make("gonin_kan", players=6)
    state = env.init(jax.random.PRNGKey(4))
    f = facts(env, state, state)
    kankei = env.deal_row(f)["kankei"]
    assert int(f["dealer"]) in kankei and len(kankei) == 3
    assert np.flatnonzero(f["role"] == 0).tolist() == kankei
    assert env.max_deals == 30  # 10 rounds of at most 3 deals (KAN-10); CALLs redeal:
    assert kanjax.make("gonin_kan", shippo_jo=True).max_deals == 120  # bounded 4x (KAN-71)
