"""Rule-based heuristic bots for the Kan games (Gonin, Yonin, Gambari), as jittable policies.

`make_heuristic(env)` returns a policy `(key, observation, legal_mask) -> action` for any Kan
variant. It decodes the observation by its `observation_spec` fields, gives every action a score and
plays the legal action of highest score (ties: the lowest id), so it is always legal.

Rules of thumb (rule ids: `rules/kan.md`):

- Following (KAN-24, KAN-27): if an opponent holds the trick and it has point cards (or my
  card is one), win it with the cheapest card that wins, a sure winner (no unseen card beats
  it) first. If my partner holds the trick safely, give him a point card (J, Q, K, then A, not
  a trump). Otherwise discard the cheapest card: low, not a point card, not a trump.
- Leading: cash the top card of a suit (no unseen higher card), point cards and sure winners
  (trumps, or side suits with no unseen trump) first; else lead the cheapest card.
- Joker (KAN-25, KAN-26, KAN-54): play it on an opponent's trick holding >= 2 point cards
  (>= 1 from trick 7 on); lead it, naming the suit with the most unseen point cards, when
  forced or when that suit has >= 4 of them out and I have no top card to cash. Yonin: the
  JK is lowest in trick 10, so it goes by trick 9 at the latest.
- IKU (KAN-21) with >= 2 aces, or an ace and >= 3 trumps; else KOI.
- Signal (KAN-38): F1 showing the best card of the two strongest suits. Trump (KAN-39, KAN-57):
  the suit of most length + high cards in the (seen) hand, plus the signalled suits.
- STOP (KAN-31) unless every uncaptured point card is a sure winner in my hand (JUUROKU).
  Shippo-Jo (KAN-71): CALL. Yonin contract (KAN-56): NONE unless JK, >= 3 aces and >= 4
  trumps (SKUNK). Gambari bid (KAN-65): KAN when 2 JK + 2 aces + trumps + kings / 2 (side
  suits) >= target + 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import CARD_IDS, DECIDE, JK, SUIT, KanEnv

Array = jax.Array
Policy = Callable[[Array, Array, Array], Array]

RANK = CARD_IDS % 13  # 0..12 (A = 12); the JK's 0 is never used as a rank
IS_JK = CARD_IDS == JK
POINT = (RANK >= 9) & ~IS_JK  # KAN-3
IN_SUIT = SUIT[:, None] == np.arange(4)  # bool[53, 4]
# HIGHER[c, d]: d is a higher card of c's suit (KAN-2)
HIGHER = (SUIT[:, None] == SUIT[None, :]) & (RANK[None, :] > RANK[:, None]) & ~IS_JK[:, None]
HONOURS = np.maximum(RANK - 8, 0) / 2  # J 0.5, Q 1, K 1.5, A 2


class View(NamedTuple):
    """The observation fields the heuristic uses (see `KanEnv._observe`), as int32 / bool."""

    mine: Array  # bool[53]: in my hand
    unseen: Array  # bool[53]: in the deck, neither mine nor played
    played_by: Array  # int[53]
    trick_of: Array  # int[53]: the trick a card was played in (-1)
    taken_by: Array  # int[53]
    me: Array
    phase: Array
    trump: Array
    trick: Array
    n_played: Array
    led: Array
    kankei: Array  # int[n]: 1 / 0 / -1 unknown
    signal: Array  # int[3]: form, card, card
    target: Array  # Gambari target (9 elsewhere)


def decode(env: KanEnv, observation: Array) -> View:
    """The heuristic's view of `observation` (its `observation_spec` fields)."""
    sl = env.observation_spec().slices()
    o = observation.astype(jnp.int32)
    cards = o[sl["cards"]].reshape(ks.NUM_CARDS, 4)
    mine = cards[:, 0] > 0
    one = {k: o[sl[k]][0] for k in ("me", "phase", "trump", "trick", "n_played", "led_suit")}
    target = o[sl["target"]][0] if "target" in sl else jnp.int32(9)
    return View(
        mine=mine, unseen=jnp.asarray(env.deck) & ~mine & (cards[:, 1] < 0),
        played_by=cards[:, 1], trick_of=cards[:, 2], taken_by=cards[:, 3],
        me=one["me"], phase=one["phase"], trump=one["trump"], trick=one["trick"],
        n_played=one["n_played"], led=one["led_suit"], kankei=o[sl["kankei"]],
        signal=o[sl["signal"]], target=target,
    )


def suit_strength(hand: Array) -> Array:
    """float[4]: length + honours (A 2, K 1.5, Q 1, J 0.5) of each suit of `hand`."""
    return jnp.where(hand[:, None] & IN_SUIT, 1.0 + HONOURS[:, None], 0.0).sum(0)


def counts(v: View) -> tuple[Array, Array, Array]:
    """(aces, trumps, JK) in my hand."""
    aces = jnp.sum(v.mine & (RANK == 12))  # the JK's rank slot is 0
    trumps = jnp.sum(v.mine & (SUIT == v.trump))
    return aces, trumps, v.mine[JK].astype(jnp.int32)


def sure_leads(v: View) -> tuple[Array, Array]:
    """(top, sure) bool[53]: no unseen higher card of its suit; and, led now, nothing unseen
    can beat it (a trump, or no unseen trump; no unseen JK that may still be played)."""
    top = ~jnp.any(HIGHER & v.unseen[None, :], axis=1) & ~IS_JK
    no_trumps_out = ~jnp.any(v.unseen & (SUIT == v.trump))
    jk_out = v.unseen[JK] & (v.trick < ks.NUM_TRICKS - 1)
    return top, top & ((SUIT == v.trump) | no_trumps_out) & ~jk_out


def play_scores(env: KanEnv, v: View) -> Array:
    """float[57]: scores of the card actions 0..52 and the JK leads 53..56 (KAN-23..KAN-28)."""
    trump = SUIT == v.trump
    cost = RANK + 13.0 * trump + 10.0 * POINT  # what a card is worth keeping
    top_jk = IS_JK & (v.trick < ks.NUM_TRICKS - 1)  # the JK wins tricks 1..9 (KAN-27, KAN-54)
    urgent = (env.config.variant == "yonin") & (v.trick == ks.NUM_TRICKS - 2)  # KAN-54

    # ---- following: the current trick's best card and its holder
    strength = env.trick_strength(SUIT, RANK, v.led, v.trump, IS_JK, v.trick)  # the env's KAN-27
    in_trick = (v.trick_of == v.trick) & (v.played_by >= 0)
    best = jnp.max(jnp.where(in_trick, strength, -1))
    winner = v.played_by[jnp.argmax(jnp.where(in_trick, strength, -1))]
    pts = jnp.sum(in_trick & POINT)
    last = v.n_played == env.active - 1
    threat = jnp.max(jnp.where(v.unseen & ~IS_JK, strength, -1))
    known = (v.kankei[v.me] >= 0) & (v.kankei[winner] >= 0)
    partner = known & (v.kankei[winner] == v.kankei[v.me]) & (winner != v.me)
    safe = partner & (last | (best > threat))
    wins = strength > best
    sure = wins & (last | (strength > threat))
    worth = (pts + POINT) >= 1
    follow = -cost
    follow = jnp.where(safe & POINT & ~trump, 30.0 - RANK, follow)  # J first, then Q, K, A
    follow = jnp.where(~partner & wins & worth,
                       40.0 + 20.0 * sure - strength / 4.0 - 15.0 * (POINT & ~sure), follow)
    late = v.trick >= 6
    jk_now = (~partner & ((pts >= 2) | (late & (pts >= 1)))) | urgent
    follow = jnp.where(top_jk, jnp.where(jk_now, 100.0, -100.0), follow)

    # ---- leading: cash top cards and sure winners, else lead cheap
    top, sure_lead = sure_leads(v)
    lead = jnp.where(top, 30.0 + 10.0 * POINT + 20.0 * sure_lead - cost / 4.0, -cost)
    lead = jnp.where(top_jk, -100.0, lead)  # the JK itself is led through actions 53..56
    unseen_pts = jnp.where(v.unseen[:, None] & POINT[:, None] & IN_SUIT, 1.0, 0.0).sum(0)
    jk_lead = 10.0 * unseen_pts - 40.0 + 200.0 * urgent  # name the suit of most points out

    cards = jnp.where(v.n_played == 0, lead, follow)
    return jnp.concatenate([cards, jk_lead])


def policy_scores(env: KanEnv, v: View) -> Array:
    """float[228]: a score for every action; only the legal ones of the phase matter."""
    aces, trumps, jk = counts(v)
    strong = (aces >= 2) | ((aces >= 1) & (trumps >= 3))
    iku = jnp.where(strong, jnp.array([1.0, 0.0]), jnp.array([0.0, 1.0]))  # KAN-21

    # JUUROKU (KAN-31, KAN-32) only when every uncaptured point card is my sure winner.
    _, sure_lead = sure_leads(v)
    open_pts = jnp.asarray(env.deck) & POINT & (v.taken_by < 0)
    juuroku = (v.phase == DECIDE) & ~jnp.any(open_pts & ~(v.mine & sure_lead))
    stop = jnp.where(juuroku, jnp.array([0.0, 1.0]), jnp.array([1.0, 0.0]))

    # Trump (KAN-39, KAN-57): length + honours, plus the suits the shower signalled (KAN-38).
    form, shown = v.signal[0], v.signal[1:]
    weight = jnp.where(form == ks.F2, jnp.array([3.0, 2.0]), 2.5)
    signalled = (form >= ks.F1) & (form != ks.F3) & (form != ks.F5) & (shown >= 0)
    bonus = jnp.where(signalled[:, None] & (jnp.asarray(SUIT)[jnp.maximum(shown, 0)][:, None]
                                            == np.arange(4)), weight[:, None], 0.0).sum(0)
    trump = suit_strength(v.mine) + bonus

    signal = signal_scores(v.mine)
    shippo = jnp.array([1.0, 0.0])  # KAN-71: a CALL voids a deal the other team dominates
    kings = jnp.sum(v.mine & (RANK == 11) & (SUIT != v.trump))
    bid = 2 * jk + 2 * aces + trumps + kings / 2 >= v.target + 2  # KAN-65
    kan = jnp.where(bid, jnp.array([1.0, 0.0]), jnp.array([0.0, 1.0]))
    skunk = (jk > 0) & (aces >= 3) & (trumps >= 4)  # KAN-56
    contract = jnp.stack([1.0, jnp.where(skunk, 2.0, 0.0), -1.0])
    return jnp.concatenate([
        play_scores(env, v), iku, stop, trump, signal, shippo, kan, contract,
    ]).astype(jnp.float32)


def signal_scores(mine: Array) -> Array:
    """float[156] for the hand `mine` (bool[53]): 1 for F1 showing the best card of my two
    strongest suits (KAN-38), or F4 with the best card of my only suit, or F5 with no suited
    card; 0 for the other signals."""
    strength = suit_strength(mine)
    has = jnp.any(mine[:, None] & IN_SUIT, axis=0)
    s1 = jnp.argmax(jnp.where(has, strength, -1.0))
    s2 = jnp.argmax(jnp.where(has & (jnp.arange(4) != s1), strength, -1.0))
    best = jnp.max(jnp.where(mine[:, None] & IN_SUIT, CARD_IDS[:, None], -1), axis=0)
    index = jnp.sum(mine[None, :] & (CARD_IDS[None, :] < best[:, None]), axis=1)  # hand idx
    i, j = jnp.minimum(index[s1], index[s2]), jnp.maximum(index[s1], index[s2])
    n = ks.HAND_SIZE
    f1 = ks.SIGNAL_F1 + i * (2 * n - i - 1) // 2 + (j - i - 1)  # position in F1_PAIRS
    n_suits = jnp.sum(has)
    action = jnp.where(n_suits >= 2, f1, jnp.where(n_suits == 1, ks.SIGNAL_F4 + index[s1],
                                                   ks.SIGNAL_F5))
    return (jnp.arange(ks.SIGNAL, ks.SIGNAL + ks.NUM_SIGNALS) == action).astype(jnp.float32)


def make_heuristic(env: KanEnv) -> Policy:
    """The heuristic policy `(key, observation, legal_mask) -> action` for `env`'s variant."""

    def policy(key: Array, observation: Array, legal_mask: Array) -> Array:
        del key  # deterministic: ties go to the lowest action id
        scores = policy_scores(env, decode(env, observation))
        return jnp.argmax(jnp.where(legal_mask, scores, -jnp.inf)).astype(jnp.int32)

    return policy
