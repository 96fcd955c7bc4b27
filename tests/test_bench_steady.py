"""`kanjax bench` measures the steady state honestly: every lane decides at every step (a
finished match restarts in its lane at once) and only decisions are counted (issue 45: idle
lanes of finished matches were counted as steps, 30% of Da Bai Fen's and 59% of whist's)."""

import jax
import numpy as np

import kanjax
from kanjax.bench import _scan_fn


def test_issue_45_bench_restarts_finished_matches_at_once_and_counts_decisions():
    env = kanjax.make("whist")  # one deal of 52 card plays a match
    steps, batch = 60, 4
    gkeys = jax.random.split(jax.random.PRNGKey(3), batch)
    states, decisions, deals, plays = _scan_fn(env, steps)(
        jax.vmap(env.init)(gkeys), gkeys, 0)
    assert (np.asarray(decisions) == steps).all()  # no lane idled after its match ended
    assert (np.asarray(deals) == 1).all()  # each lane finished one match ...
    assert not np.asarray(states.terminated).any()  # ... and is playing the next
    assert (np.asarray(plays) == steps).all()  # every whist decision plays a card
