"""A rule-based heuristic bot for Konkan (`kanjax.games.konkan.engine`), as a jittable policy.

`make_konkan_heuristic(env)` returns a policy `(key, observation, legal_mask) -> action`,
always legal: it decides one action from the observation and plays it where the mask allows,
else the best legal action of a fixed order (a finishing action, a discard of least use,
`retract`, `draw`, a pick). It is deterministic except in one state its own play never
reaches. Rule ids: `rules/konkan.md` (KON-n), the turn: konkan_engine.md (KON-En).

The strategy, in full in docs/heuristics.md (section Konkan):

- each decision recomputes a *target* (the cards to select and the action that lays them)
  from the observation alone, the same at every pick of one meld, and picks toward it;
- the opening (KON-14, KON-E10) is a plan of up to `STEPS` new melds: one of the `LOOKAHEAD`
  best first melds (a meld with the taken card, KON-16; else a run where one is needed), then
  the greedy sequence, scoring a meld by its value (KON-3) less `JOKER_COST` a joker, leaving
  a card (KON-13); the bot starts an opening only when it can finish it, never needing
  `retract`;
- at a turn's start (KON-12) it takes the pile's top when its plan uses it or, once opened,
  when it makes a meld or fits a table meld; else it draws;
- opened: a taken card placed first (KON-16), then joker retrievals (KON-19/20), melds,
  layoffs, then the discard;
- the discard is the card of least *keep value* (`_keep`: toward sets and runs, kept where it
  fits a table meld, less its value, KON-3); a joker is kept;
- with no plan and no legal discard it searches at random, as `kanjax.games.konkan.random_bot`.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.bots import Policy
from kanjax.games.konkan import meld as mk
from kanjax.games.konkan import spec as ks
from kanjax.games.konkan.engine import KonkanEnv
from kanjax.games.konkan.random_bot import make_konkan_random

T = ks.NUM_TYPES
M = ks.MAX_MELDS
JOKER = ks.JOKER
W = len(mk.WINDOWS)
WSTART = np.array([p for p, _ in mk.WINDOWS], np.int32)
WLEN = np.array([k for _, k in mk.WINDOWS], np.int32)
WMASK = np.array([sum(1 << q for q in range(p, p + k)) for p, k in mk.WINDOWS], np.int32)
WVAL = np.array([mk.POS_VALUE[p:p + k].sum() for p, k in mk.WINDOWS], np.int32)
NRUN = 4 * W  # candidate melds: runs (suit, window), then sets (rank, 2 joker variants)
NCAND = NRUN + 13 * 2
STEPS = 3  # melds of a plan: the first, then the greedy sequence
LOOKAHEAD = 6  # first melds of a plan tried, each followed by the greedy sequence
JOKER_COST = 8.0  # a plan's meld scores its value less this per joker it uses
# the fallback order of legal actions where the decided action is not legal
TIER_FINISH, TIER_DISCARD, TIER_RETRACT, TIER_DRAW, TIER_PICK = 400.0, 250.0, 150.0, 100.0, 50.0


def _positions(rank_words: jax.Array) -> jax.Array:
    """A suit's rank word -> its run positions, an Ace on both 0 and 13."""
    return mk.ranks_to_pos(rank_words, False) | ((rank_words & 1) << 13)


def _candidates(h: jax.Array) -> dict[str, jax.Array]:
    """Every new meld the hand `h` (int[53]) can lay, flat [NCAND]: the runs of each suit and
    window (its naturals at their positions, jokers in the rest, KON-7/9), the sets of each
    rank (every suit held, and jokers to make 3, or 4; KON-8/9). `ok`: formable and leaving a
    card (KON-13)."""
    i32 = jnp.int32
    J = h[JOKER]
    size = h.sum()
    hp = _positions(mk.suit_words(h))  # [4]
    nat = hp[:, None] & jnp.asarray(WMASK)[None, :]  # [4, W]
    nn = mk.popcount(nat)
    rj = jnp.asarray(WLEN)[None, :] - nn
    run_ok = (nn >= 1) & (rj <= J) & (jnp.asarray(WLEN)[None, :] + 1 <= size)
    hr = mk.rank_suits(h)  # [13]
    ns = mk.popcount(hr)
    sj = jnp.stack([jnp.maximum(3 - ns, 0), jnp.where((ns >= 2) & (ns <= 3), 4 - ns, 9)], 1)
    ssize = ns[:, None] + sj  # [13, 2]
    set_ok = (ns[:, None] >= 1) & (sj <= J) & (ssize <= 4) & (ssize + 1 <= size)
    return {
        "ok": jnp.concatenate([run_ok.reshape(-1), set_ok.reshape(-1)]),
        "value": jnp.concatenate([jnp.broadcast_to(jnp.asarray(WVAL), (4, W)).reshape(-1),
                                  (ssize * jnp.asarray(mk.RANK_VALUE)[:, None]).reshape(-1)]),
        "jokers": jnp.concatenate([rj.reshape(-1), sj.reshape(-1)]).astype(i32),
        "nat": nat, "hr": hr, "rj": rj, "sj": sj,
    }


def _contains(cand: dict, c: jax.Array) -> jax.Array:
    """bool[NCAND]: the candidate holds a card of type `c` (a natural at its position, or a
    joker)."""
    cs, cr = c // 13, c % 13
    cpos = jnp.where(cr == 0, 1 | (1 << 13), 1 << cr)
    run_c = jnp.where(c == JOKER, cand["rj"] >= 1,
                      (jnp.arange(4)[:, None] == cs) & ((cand["nat"] & cpos) != 0))
    set_c = jnp.where(c == JOKER, cand["sj"] >= 1, (jnp.arange(13)[:, None] == cr)
                      & jnp.ones((13, 2), bool))
    return jnp.concatenate([run_c.reshape(-1), set_c.reshape(-1)]) & (c >= 0)


def _meld_cards(cand: dict, i: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(the cards int[53], the finishing action) of candidate `i`."""
    is_run = i < NRUN
    s, w = jnp.clip(i // W, 0, 3), i % W
    r, v = jnp.clip((i - NRUN) // 2, 0, 12), (i - NRUN) % 2
    words = jnp.where(jnp.arange(4) == s, mk.pos_to_ranks(cand["nat"][s, w]), 0)
    suits = jnp.where(jnp.arange(13) == r, cand["hr"][r], 0)
    nat = jnp.where(is_run, mk.words_to_cards(words), mk.rank_suits_to_cards(suits))
    jokers = jnp.where(is_run, cand["rj"][s, w], cand["sj"][r, v])
    cards = jnp.concatenate([nat.astype(jnp.int32), jokers[None]])
    return cards, jnp.where(is_run, ks.RUN + jnp.asarray(WSTART)[w], ks.SET)


def _score(cand: dict) -> jax.Array:
    """A plan's order of melds: the value, less `JOKER_COST` a joker (jokers kept for later)."""
    return cand["value"] - JOKER_COST * cand["jokers"]


def _greedy(h, value, need_run, steps):
    """Whether the greedy sequence (the best meld by `_score`, then the best of the rest,
    `steps` melds at most) gets from the hand `h` `value` more points, and a run if
    `need_run` (the taken card is always a plan's first meld, never left to this part)."""
    is_run = jnp.arange(NCAND) < NRUN

    def step(_, carry):
        h, value, need_run, done, failed = carry
        cand = _candidates(h)
        score = jnp.where(cand["ok"] & (is_run | ~need_run), _score(cand), -jnp.inf)
        i = jnp.argmax(score).astype(jnp.int32)
        take = ~done & ~failed & (score[i] > -jnp.inf)
        failed = failed | (~done & ~take)
        cards, _ = _meld_cards(cand, i)
        h = jnp.where(take, h - cards, h)
        value = jnp.where(take, value - cand["value"][i], value)
        need_run = need_run & ~(take & is_run[i])
        return h, value, need_run, done | (take & (value <= 0) & ~need_run), failed

    init = (h, value, need_run, (value <= 0) & ~need_run, jnp.bool_(False))
    _, _, _, done, failed = jax.lax.fori_loop(0, steps, step, init)
    return done & ~failed


def _plan(h, value, need_run, c_pending, c, cand0):
    """The plan from the hand `h` (its candidates `cand0`) toward `value` more points, a run
    if `need_run`, the card `c` first if `c_pending`: the first of the `LOOKAHEAD` best
    melds allowed first (one with `c`, else a run where needed) after which the greedy
    sequence succeeds. (success, that meld's index; -1 where none is needed)."""
    done = (value <= 0) & ~need_run & ~c_pending
    is_run = jnp.arange(NCAND) < NRUN
    has_c = _contains(cand0, c)
    allowed = cand0["ok"] & jnp.where(c_pending, has_c, jnp.where(need_run, is_run, True))
    best, idx = jax.lax.top_k(jnp.where(allowed, _score(cand0), -jnp.inf), LOOKAHEAD)

    def after(i, possible):
        cards, _ = _meld_cards(cand0, i)
        return possible & _greedy(h - cards, value - cand0["value"][i], need_run & ~is_run[i],
                                  STEPS - 1)

    ok = jax.vmap(after)(idx.astype(jnp.int32), best > -jnp.inf)
    k = jnp.argmax(ok)
    return done | ok[k], jnp.where(done | ~ok[k], -1, idx[k]).astype(jnp.int32)


def _table(obs: dict) -> dict[str, jax.Array]:
    """The table melds' ends and open suits: for each meld, the card type that extends a run
    at its high / low end (-1: none), and a set's rank and the suits it still takes."""
    kind, cells = obs["meld_kind"], obs["meld_cards"]
    run, st = kind == ks.RUN_MELD, kind == ks.SET_MELD
    occ = ((cells != ks.EMPTY).astype(jnp.int32) << jnp.arange(14)).sum(-1)  # [35]
    lo, hi = mk.lowest(occ), mk.highest(occ)
    room = run & (mk.popcount(occ) < ks.MAX_RUN)
    s = jnp.clip(obs["meld_suit"], 0, 3)
    pos_rank = jnp.asarray(mk.POS_RANK)
    hi_t = jnp.where(room & (hi < 13), 13 * s + pos_rank[jnp.clip(hi + 1, 0, 13)], -1)
    lo_t = jnp.where(room & (lo > 0), 13 * s + pos_rank[jnp.clip(lo - 1, 0, 13)], -1)
    suits = ((cells[:, :4] == ks.NATURAL).astype(jnp.int32) << jnp.arange(4)).sum(-1)
    set_room = st & (mk.popcount(suits) + obs["meld_jokers"] < ks.MAX_SET)
    jok_pos = ((cells == ks.JOKER_CARD).astype(jnp.int32) << jnp.arange(14)).sum(-1)
    return {"run": run, "set": st, "occ": occ, "hi_t": hi_t, "lo_t": lo_t, "suits": suits,
            "set_room": set_room, "jok_pos": jok_pos, "s": s,
            "r": jnp.clip(obs["meld_rank"], 0, 12), "room": room, "lo": lo, "hi": hi}


def _fits(tab: dict) -> tuple[jax.Array, jax.Array]:
    """For each card type: whether a single card of it can be laid off on a table meld
    (KON-17), and that layoff's action (the lowest meld slot; -1: none)."""
    t = jnp.arange(T)[:, None]
    st = tab["set_room"][None, :] & (tab["r"][None, :] == t % 13) & (
        (tab["suits"][None, :] >> (t // 13)) & 1 == 0) & (t < JOKER)
    hi = (tab["hi_t"][None, :] == t) | st
    lo = tab["lo_t"][None, :] == t
    jok = (t == JOKER) & (tab["set_room"] | (tab["room"] & (tab["hi"] < 13)))[None, :]
    jok_lo = (t == JOKER) & (tab["room"] & (tab["lo"] > 0))[None, :]
    hi, lo = hi | jok, lo | jok_lo
    m = jnp.arange(M)
    a_hi = jnp.min(jnp.where(hi, m, M), 1)
    a_lo = jnp.min(jnp.where(lo, m, M), 1)
    action = jnp.where(a_hi < M, ks.LAYOFF + a_hi, jnp.where(a_lo < M, ks.LAYOFF_LOW + a_lo, -1))
    return action >= 0, action


def _keep(h: jax.Array, fits: jax.Array, shed: jax.Array) -> jax.Array:
    """float[53]: how much each card of the hand is worth keeping (docs/heuristics.md)."""
    present = (h[:52] >= 1).reshape(4, 13).astype(jnp.float32)
    same_rank = present.sum(0)[None, :] - present  # other suits of the rank
    pos = jnp.concatenate([present, present[:, :1]], 1)  # [4, 14]: positions, the Ace twice
    pad = jnp.pad(pos, ((0, 0), (2, 2)))

    def near(d):
        return pad[:, 2 + d: 16 + d]

    run_pos = 2 * (near(-1) + near(1)) + near(-2) + near(2)  # [4, 14]
    run = jnp.concatenate([jnp.maximum(run_pos[:, :1], run_pos[:, 13:]), run_pos[:, 1:13]], 1)
    keep = (2.0 * same_rank + run).reshape(52)
    keep = jnp.where(h[:52] >= 2, 0.25 * keep, keep)
    keep = keep + 3.0 * fits[:52] - shed * jnp.asarray(mk.CARD_VALUE[:52], jnp.float32)
    return jnp.concatenate([keep, jnp.full(1, 100.0)])


def make_konkan_heuristic(env: KonkanEnv) -> Policy:
    sl = env.observation_spec().slices()
    cfg = env.config
    n = env.n
    at_random = make_konkan_random(env)

    def field(obs, name):
        return obs[sl[name]].astype(jnp.int32)

    def policy(key: jax.Array, observation: jax.Array, legal_mask: jax.Array) -> jax.Array:
        o = {k: field(observation, k) for k in sl}
        o["meld_cards"] = o["meld_cards"].reshape(M, 14)
        h, sel = o["hand"], o["selection"]
        me = o["me"][0]
        top, taken = o["pile_top"][0], o["taken"][0]
        drawing = o["phase"][0] == ks.PHASE_DRAW
        tab = _table(o)
        fits, fit_action = _fits(tab)

        # my melds on the table: the turn's, or the opening of an earlier turn
        mine = o["meld_owner"] == me
        occ_val = (((tab["occ"][:, None] >> jnp.arange(14)) & 1) * jnp.asarray(mk.POS_VALUE)
                   ).sum(1)
        set_val = (mk.popcount(tab["suits"]) + o["meld_jokers"]) * jnp.asarray(
            mk.RANK_VALUE)[tab["r"]]
        laid = jnp.where(mine & tab["run"], occ_val, 0) + jnp.where(mine & tab["set"],
                                                                    set_val, 0)
        has_melds = (mine & (tab["run"] | tab["set"])).any()
        need_run = cfg.opening_requires_run & ~(mine & tab["run"]).any()
        left = cfg.opening_min - laid.sum()
        opening = (left > 0) | need_run  # not met: unopened, or an opening under way
        tc = jnp.clip(taken, 0, T - 1)
        c_in_mine = mine & jnp.where(
            tc == JOKER, o["meld_jokers"] >= 1,
            (tab["run"] & (tab["s"] == tc // 13)
             & ((tab["occ"] & ~tab["jok_pos"] & jnp.where(tc % 13 == 0, 1 | (1 << 13),
                                                          1 << (tc % 13))) != 0))
            | (tab["set"] & (tab["r"] == tc % 13) & (((tab["suits"] >> (tc // 13)) & 1) == 1)))
        c_pending = (taken >= 0) & (h[tc] >= 1) & ~(opening & c_in_mine.any())

        # one plan: at a turn's start, of the hand with the pile's top (may I take it?); in
        # the turn, toward the opening, or (opened) a meld with the taken card
        tt = jnp.clip(top, 0, T - 1)
        with_top = h + (jnp.arange(T) == tt) * (top >= 0)
        hp = jnp.where(drawing, with_top, h)
        requester = o["requested"][me] == 1
        p_value = jnp.where(drawing, jnp.where(has_melds, 0, cfg.opening_min),
                            jnp.where(opening, left, 0))
        p_run = jnp.where(drawing, ~has_melds & cfg.opening_requires_run, opening & need_run)
        p_c = jnp.where(drawing, top >= 0, c_pending)
        p_card = jnp.where(drawing, top, taken)
        cand0 = _candidates(hp)
        success, first = _plan(hp, p_value, p_run, p_c, p_card, cand0)
        plan_cards, plan_act = _meld_cards(cand0, jnp.maximum(first, 0))

        # at a turn's start
        take_good = (top >= 0) & ~requester & (success | (has_melds & fits[tt]))
        draw_choice = jnp.where(take_good & legal_mask[ks.TAKE], ks.TAKE, ks.DRAW)

        # opened: the next table action in the order of docs/heuristics.md
        hsize = h.sum()
        c_lay = c_pending & fits[tc] & (hsize >= 2)
        run_ret = tab["run"][:, None] & (((tab["jok_pos"][:, None] >> jnp.arange(14)) & 1) == 1)
        need_t = 13 * tab["s"][:, None] + jnp.asarray(mk.POS_RANK)[None, :]  # [35, 14]
        run_ret = run_ret & (h[need_t] >= 1)
        ret_m = run_ret.any(1)
        ret_type = jnp.max(jnp.where(run_ret, need_t, -1), 1)
        missing = 15 & ~tab["suits"]
        set_need = (((missing[:, None] >> jnp.arange(4)) & 1) == 1)  # [35, 4]
        set_types = 13 * jnp.arange(4)[None, :] + tab["r"][:, None]
        set_ret = (tab["set"] & (o["meld_jokers"] >= 1)
                   & (~set_need | (h[set_types] >= 1)).all(1)
                   & (hsize - set_need.sum(1) + o["meld_jokers"] >= 1))
        any_ret = ret_m | set_ret
        rm = jnp.argmax(any_ret)
        ret_cards = jnp.where(ret_m[rm], (jnp.arange(T) == ret_type[rm]).astype(jnp.int32),
                              jnp.zeros(T, jnp.int32).at[set_types[rm]].add(
                                  set_need[rm].astype(jnp.int32)))
        score0 = cand0["value"].astype(jnp.float32)
        best = jnp.argmax(jnp.where(cand0["ok"], score0, -jnp.inf)).astype(jnp.int32)
        meld_cards, meld_act = _meld_cards(cand0, best)
        value = jnp.asarray(mk.CARD_VALUE)
        lay_nat = fits & (h >= 1) & (jnp.arange(T) < JOKER) & (hsize >= 2)
        lay_jok = fits[JOKER] & (h[JOKER] >= 1) & (hsize >= 2) & (hsize <= 3)
        lay_t = jnp.where(lay_nat.any(), jnp.argmax(jnp.where(lay_nat, value, -1)), JOKER)
        onehot = lambda t: (jnp.arange(T) == t).astype(jnp.int32)  # noqa: E731
        opts = [  # (applies, cards, finishing action), in order
            (~opening & success & (first >= 0), plan_cards, plan_act),
            (~opening & c_lay, onehot(tc), fit_action[tc]),
            (~opening & any_ret.any(), ret_cards, ks.RETRIEVE + rm),
            (~opening & cand0["ok"].any(), meld_cards, meld_act),
            (~opening & (lay_nat.any() | lay_jok), onehot(lay_t), fit_action[lay_t]),
            (opening & success & (first >= 0), plan_cards, plan_act),
        ]
        target = jnp.zeros(T, jnp.int32)
        finish = jnp.int32(-1)
        for applies, cards, act in reversed(opts):
            target = jnp.where(applies, cards, target)
            finish = jnp.where(applies, act, finish)
        has_target = ~requester & jnp.stack([x[0] for x in opts]).any()
        need = target - sel
        next_pick = jnp.argmax(need > 0)
        table_choice = jnp.where((need == 0).all(), finish,
                                 jnp.where((need >= 0).all(), ks.PICK + next_pick, -1))
        stuck = opening & has_melds & ~success  # cannot happen after the bot's own melds
        act_choice = jnp.where(has_target, table_choice, jnp.where(stuck, ks.RETRACT, -1))
        choice = jnp.where(drawing, draw_choice, act_choice)

        # the fallback order, discards by least use
        others = jnp.arange(n) != me
        danger = ((o["hand_sizes"] <= 3) & others).any() & has_melds & ~opening
        shed = jnp.where(danger, 0.4, jnp.where(has_melds, 0.1, 0.05))
        keep = _keep(h, fits, shed)
        a = jnp.arange(ks.NUM_ACTIONS)
        disc = jnp.concatenate([jnp.zeros(ks.DISCARD), TIER_DISCARD + 50.0 - jnp.clip(
            keep, -49.0, 99.0), jnp.zeros(ks.NUM_ACTIONS - ks.DRAW)])
        fallback = jnp.select(
            [a < ks.RUN, a < ks.DISCARD, a < ks.DRAW, a == ks.DRAW, a == ks.TAKE,
             a == ks.RETRACT], [jnp.full(ks.NUM_ACTIONS, TIER_PICK),
                                jnp.full(ks.NUM_ACTIONS, TIER_FINISH), disc,
                                jnp.full(ks.NUM_ACTIONS, TIER_DRAW),
                                jnp.full(ks.NUM_ACTIONS, TIER_DRAW - 1.0),
                                jnp.full(ks.NUM_ACTIONS, TIER_RETRACT)], 0.0)
        scores = fallback + 1000.0 * (a == choice)
        action = jnp.argmax(jnp.where(legal_mask, scores, -jnp.inf)).astype(jnp.int32)
        # no plan and no discard (a taken card the plan cannot use): search at random
        lost = (~drawing & ~legal_mask[ks.DISCARD:ks.DRAW].any()
                & ((choice < 0) | ~legal_mask[jnp.clip(choice, 0, ks.NUM_ACTIONS - 1)]))
        return jnp.where(lost, at_random(key, observation, legal_mask), action)

    return policy
