"""A rule-based heuristic bot for Da Bai Fen (`kanjax.games.da_bai_fen.engine`), as a jittable
policy.

`make_dbf_heuristic(env)` returns a policy `(key, observation, legal_mask) -> action`. It reads
only the observation (its `observation_spec` fields: my hand and selection, the kitty I know, the
exposed card, who played what in which trick, the hand's public slots) and the legal mask; it
gives every action a score and plays the legal action of highest score (ties: the lowest id),
so it is always legal. Rule ids: `rules/da_bai_fen.md`.

A play of several cards is several picks (and a lead's `play`): each step re-derives the whole
intended play from the observation (which shows the cards already in my selection) and picks
its next card, so the picks of one play agree. "Unseen" cards are neither mine, nor played,
nor a kitty card I know: only they can be in another player's hand.

- Exposure (DBF-12/13/22): expose the suit that would give me the most trumps (jokers, trump
  rank cards, the suit's cards, its ace counted 1.5) once they reach a third of the cards I
  hold plus one (at least 2); in the final pass, at 4. Otherwise pass.
- Discard (DBF-17): keep trumps, aces and point cards; throw low cards of plain suits, the
  shortest suits first (voiding a suit makes ruffs), point cards only when nothing else is
  left (the kitty's points go to the last trick's winners, doubled: DBF-29).
- Claim (DBF-18): claim the annulment when my team does not declare (a hand without trumps
  is poor for my side, and the annulment costs the declarers their hand); pass when it does
  (we keep the kitty and the lead we have).
- Lead (DBF-21/23): a Dun (V8) when I hold four of a kind; else all my master cards of the
  suit with the most (a master: no unseen card of its effective suit is stronger, so the
  multi-lead is valid whatever the hidden hands are; masters of trumps draw trumps); else my
  cheapest single card, not a point card, from a short plain suit.
- Follow (DBF-25/26): if the opponents hold the trick and it has points (or it is the last
  trick, or I can win it without a trump or point card), win it with the cheapest winning
  card (with a trump ruff of n trumps when I am void in a plain led suit); if my partner holds
  it safely (I play last, or nothing unseen can beat his play), give him my point cards;
  otherwise throw my cheapest non-point cards.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.bots import Policy, best_scored
from kanjax.core import trick as tk
from kanjax.games.da_bai_fen import spec as ds
from kanjax.games.da_bai_fen.engine import OBS_HEAD, PRANK, PSUIT, TRUMP, DbfEnv, tables

Array = jax.Array

N = ds.NUM_CARDS
H = {k: i for i, k in enumerate(OBS_HEAD)}
POINTS = np.array(ds.CARD_POINTS, np.float32)
BIG = 1000.0


def _obs(env: DbfEnv, observation: Array) -> dict:
    """The observation's fields the bot uses, as int32 / bool."""
    sl = env.observation_spec().slices()
    o = observation.astype(jnp.int32)
    cards = o[sl["cards"]].reshape(N, 6)
    v = {k: o[sl["head"]][i] for k, i in H.items()}
    v.update(mine=cards[:, 0] > 0, sel=cards[:, 1] > 0, kit=cards[:, 2] > 0,
             played_by=cards[:, 4], trick_of=cards[:, 5], me=o[sl["me"]][0],
             levels=o[sl["levels"]])
    v["unseen"] = ~v["mine"] & (v["played_by"] < 0) & ~v["kit"]
    return v


def _expose_scores(env: DbfEnv, v: dict) -> Array:
    """float[4]: how far each suit's exposure is above my threshold (> 0: expose)."""
    yz = env.config.yuan_zhu
    me, mine = v["me"], v["mine"]
    R = jnp.where(v["kind"] == ds.OPEN_DEAL, v["levels"][me % 2], v["R"])
    held = jnp.sum(mine)
    final = v["phase"] == ds.PHASE_FINAL_PASS
    need = jnp.where(final, 4.0, jnp.maximum(2.0, held / 3.0 + 1.0))
    out = []
    for s in range(4):
        trump, _, _ = tables(R, jnp.int32(s), yz)
        ace = (jnp.asarray(PSUIT) == s) & (jnp.asarray(PRANK) == ds.RANK_A)
        count = jnp.sum(mine & trump) + 0.5 * jnp.sum(mine & ace & trump)
        out.append(count - need + 0.01 * s)  # ties: a fixed order
    return jnp.stack(out)


def _keep_value(trump: Array, strength: Array) -> Array:
    """What a card is worth keeping, points aside: trumps above every plain card."""
    return jnp.where(trump, 20.0 + strength, strength.astype(jnp.float32))


def _discard_scores(v: dict, trump, eff, strength) -> Array:
    """float[54]: the higher, the sooner the card goes to the kitty."""
    left = v["mine"] & ~v["sel"]
    length = jnp.stack([jnp.sum(left & (eff == e)) for e in range(5)])[eff]
    short = jnp.where(trump, 0.0, 4.0 * jnp.maximum(0, 5 - length))
    ace = ~trump & (jnp.asarray(PRANK) == ds.RANK_A)
    return -_keep_value(trump, strength) - 50.0 * trump - 5.0 * POINTS - 20.0 * ace + short


def _trick(v: dict, eff, strength):
    """(each card's strength in the current trick, the best play's strength, its seat)."""
    zeros = jnp.zeros(N, bool)
    led, tleader, nplays = v["led"], v["tleader"], v["nplays"]
    cs = tk.card_strength(eff, strength, led, jnp.int32(TRUMP), zeros)
    in_trick = (v["trick_of"] == v["tno"]) & (v["played_by"] >= 0)
    best, holder = jnp.int32(-1), jnp.int32(-1)
    for i in range(4):
        seat = (tleader + i) % 4
        play = in_trick & (v["played_by"] == seat)
        ps = tk.play_strength(play, eff, strength, led, jnp.int32(TRUMP), zeros)
        better = (i < nplays) & ((i == 0) | (ps > best))
        best = jnp.where(better, ps, best)
        holder = jnp.where(better, seat, holder)
    return cs, best, holder, in_trick


def _follow_scores(v: dict, trump, eff, strength) -> Array:
    """float[54]: the picks of a follow, the intended play's cards first."""
    mine = v["mine"]
    n, led = v["n"], v["led"]
    cs, best, holder, in_trick = _trick(v, eff, strength)
    keep = _keep_value(trump, strength)
    throw = -keep - 4.0 * POINTS
    feed = -keep + 5.0 * POINTS
    partner = (v["me"] + 2) % 4
    last = v["nplays"] == 3
    trick_pts = jnp.sum(jnp.where(in_trick, POINTS, 0.0))
    partner_wins = holder == partner
    threat = jnp.max(jnp.where(v["unseen"], cs, -1))
    partner_safe = partner_wins & (last | (best >= threat))
    # the cheapest winning card: of the led suit (it decides my play unless trumps are led and
    # I cannot play n trumps), or a trump of an all-trump ruff (void in the led plain suit)
    my_led = mine & (eff == led)
    k = jnp.sum(my_led)
    my_trumps = jnp.sum(mine & trump)
    by_led = my_led & (cs > best) & ((led != TRUMP) | (k >= n))
    ruff = (led != TRUMP) & (k == 0) & (my_trumps >= n)
    by_ruff = mine & trump & (cs > best) & ruff
    winners = by_led | by_ruff
    # last to play, a point card wins for us; else it would be at risk
    cost = cs + jnp.where(last, -0.5, 0.5) * POINTS
    w = jnp.argmin(jnp.where(winners, cost, 999.0))
    can_win = jnp.any(winners)
    cheap = ~trump[w] & (jnp.asarray(POINTS)[w] == 0)
    last_trick = v["tno"] == ds.HAND_SIZE - 1
    want = (~partner_wins & can_win
            & ((trick_pts > 0) | last_trick | cheap | (n > 1)))
    rest = jnp.where(last & want, feed, throw)
    base = jnp.where(partner_safe, feed, throw)
    plan = jnp.where(jnp.arange(N) == w, 2 * BIG, rest)
    plan = jnp.where(by_ruff.any() & ~by_led.any() & trump & (jnp.arange(N) != w),
                     BIG - keep, plan)
    return jnp.where(want, plan, base)


def _lead_scores(env: DbfEnv, v: dict, trump, eff, strength) -> Array:
    """float[61]: the intended lead's next pick, or `play` once it is picked."""
    mine, sel = v["mine"], v["sel"]
    keep = _keep_value(trump, strength)
    omax = jnp.stack([jnp.max(jnp.where(v["unseen"] & (eff == e), strength, -1))
                      for e in range(5)])
    master = mine & (strength >= omax[eff])
    count = jnp.stack([jnp.sum(master & (eff == e)) for e in range(5)])
    mpts = jnp.stack([jnp.sum(jnp.where(master & (eff == e), POINTS, 0.0)) for e in range(5)])
    suit_score = 10.0 * count + mpts + 5.0 * (jnp.arange(5) < TRUMP)
    e = jnp.argmax(jnp.where(count > 0, suit_score, -1.0))
    intent = master & (eff == e) & (count[e] > 0)
    if env.config.jilin_dun:  # V8: a Dun beats all but a higher quad
        prank = jnp.asarray(PRANK)
        quads = jnp.stack([jnp.sum(mine & (prank == r)) == 4 for r in range(13)])
        r = jnp.argmax(jnp.where(quads, jnp.arange(13), -1))
        dun = jnp.any(quads)
        intent = jnp.where(dun, mine & (prank == r), intent)
    # no master: one cheap card, from a short plain suit, not a point card
    length = jnp.stack([jnp.sum(mine & (eff == x)) for x in range(5)])[eff]
    single = -keep - 6.0 * POINTS - 1.5 * jnp.where(trump, 0, length) - 30.0 * trump
    any_intent = jnp.any(intent)
    todo = intent & ~sel
    picks = jnp.where(any_intent, jnp.where(todo, BIG - keep, -BIG + single), single)
    play = jnp.where(jnp.any(sel) & ~jnp.any(todo), 2 * BIG, -2 * BIG)
    play = jnp.where(any_intent, play, jnp.where(jnp.any(sel), 2 * BIG, -2 * BIG))
    return jnp.concatenate([picks, play[None], jnp.full(6, -3 * BIG)])


def action_scores(env: DbfEnv, observation: Array) -> Array:
    """float[61]: the score of each action (only the legal ones matter)."""
    v = _obs(env, observation)
    trump, eff, strength = tables(v["R"], v["T"], env.config.yuan_zhu)
    phase = v["phase"]
    lo = jnp.full(ds.NUM_ACTIONS, -3 * BIG)
    # exposure
    expo = lo.at[ds.EXPOSE:ds.EXPOSE + 4].set(_expose_scores(env, v)).at[ds.PASS].set(0.0)
    # discard
    disc = lo.at[:N].set(_discard_scores(v, trump, eff, strength))
    # claim
    ours = v["declaring"] == v["me"] % 2
    claim = lo.at[ds.PASS].set(0.0).at[ds.CLAIM].set(jnp.where(ours, -1.0, 1.0))
    # play
    follow = lo.at[:N].set(_follow_scores(v, trump, eff, strength))
    lead = _lead_scores(env, v, trump, eff, strength)
    play = jnp.where(v["nplays"] == 0, lead, follow)
    drawing = (phase == ds.PHASE_DRAW) | (phase == ds.PHASE_FINAL_PASS)
    return jnp.where(drawing, expo, jnp.where(
        phase == ds.PHASE_DISCARD, disc, jnp.where(phase == ds.PHASE_CLAIM, claim, play)))


def make_dbf_heuristic(env: DbfEnv) -> Policy:
    """The heuristic policy `(key, observation, legal_mask) -> action` for Da Bai Fen."""
    return best_scored(lambda observation: action_scores(env, observation))
