"""Move ordering without sorting: per suit a candidate card and a score, and the argmax over
suits and joker moves (the node machine tries the table's best move and the killer first).

Generic (any rules): lead high to cash a sure winner, else low; follow low (or give points) when
partner wins, else win as cheaply as possible. Plain tricks at four seats (`Lane.quick`):
DDS's weights (`plain_leads`, `plain_follow`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kanjax.core import jaxutil
from kanjax.core.jaxutil import Array
from kanjax.core.trick import LED_BASE, TRUMP_BASE, Trick
from solvers.position import Rules
from solvers.search.play import strength
from solvers.search.words import JK_CODE, LEAD_CODE, SUITS, stronger, top, top_bit, trumps


def plain_leads(hands: Array, me: Array, trump: Array) -> tuple[Array, Array]:
    """(score, high) per suit of a plain-tricks lead by `me`: how good the suit is, and whether
    to lead his highest candidate rather than his lowest (as DDS's
    lead weights): above all, a suit the opponents hold few cards of (few replies to
    search; a void counts 4); then a suit his side holds the top card of (led from the
    top if it is his; more so when the left-hand opponent holds the second), a finesse
    through the left-hand opponent, the second and third cards on his side, an
    opponent's bare top card; a ruff for partner, none for the opponents."""
    seat = (me + jnp.arange(4)) % 4
    h = hands[seat]  # me, left-hand opponent, partner, right-hand opponent
    lens = jax.lax.population_count(h).astype(jnp.int32)
    live = h[0] | h[1] | h[2] | h[3]

    def holder(words: Array) -> tuple[Array, Array]:
        """Per suit, who (0..3 as above) holds the top card of `words` (-1: none), and
        `words` without it."""
        bit = top_bit(words)
        return jnp.where(words != 0, jnp.argmax((h & bit) != 0, axis=0), -1), words & ~bit

    h1, rest = holder(live)
    h2, rest = holder(rest)
    h3, _ = holder(rest)
    has_trumps = trumps(h, trump) != 0
    side_suit = (SUITS != trump) & (trump >= 0)
    opp_ruff = side_suit & ((lens[1] == 0) & has_trumps[1] | (lens[3] == 0) & has_trumps[3])
    pd_ruff = side_suit & (lens[2] == 0) & has_trumps[2] & ~opp_ruff
    replies = jnp.where(lens[1] == 0, 4, lens[1]) + jnp.where(lens[3] == 0, 4, lens[3])
    ours = (h1 == 0) | (h1 == 2)
    win = 60 + 20 * ((h2 == 1) & (lens[1] > 1)) - 5 * ((h2 == 3) & (lens[3] > 1))
    lose = (20 - 10 * (((h1 == 3) | (h2 == 3)) & (lens[3] != 1))
            + 30 * ((h1 == 1) & (h2 == 2) & (lens[2] > 1))
            + 35 * ((h2 == 2) & (h3 == 2))
            + 25 * (((h2 == 0) & (h3 == 2) | (h2 == 2) & (h3 == 0)) & (lens[2] > 1))
            + 25 * ((h1 == 1) & (lens[1] == 1) | (h1 == 3) & (lens[3] == 1)))
    score = (jnp.where(ours, win, lose) - 32 * replies - 40 * opp_ruff + 40 * pd_ruff
             + 20 * ((SUITS == trump) & ours))
    return score, (h1 == 0) | ~ours & (h2 == 0) & (h3 == 0)


def plain_follow(hands: Array, me: Array, trick: Trick, trump: Array, side: Array,
                 cand: Array) -> tuple[Array, Array]:
    """(score, rank) per suit of a plain-tricks follow by `me` (the trick's card `trick.count` + 1),
    as DDS's weights for the later hands: the players still to play this trick threaten
    their best card (highest of the led suit, else highest trump). When his side wins
    the trick whatever he plays: low, discarding rather than ruffing; else the lowest
    card that wins the trick for sure; else the lowest card that beats the current
    best (forcing a higher card); else low. A discard prefers long suits, not from a
    guarded second card or a bare top card."""
    led, best_s, best_p = trick.led, trick.best, trick.winner
    offs = jnp.arange(1, 4)
    later = offs <= 3 - trick.count
    seats = (me + offs) % 4
    led_w = hands[seats, led]
    trump_w = trumps(hands, trump)[seats]
    led_base = jnp.where(led == trump, TRUMP_BASE, LED_BASE)
    threat = jnp.where(led_w != 0, led_base + top(led_w),
                       jnp.where(trump_w != 0, TRUMP_BASE + top(trump_w), 0))
    threat = jnp.where(later, threat, -1)
    opp_after = jnp.maximum(threat[0], threat[2])
    mine = side[me]
    secured = (side[best_p] == mine) & (best_s > opp_after) | (
        threat[1] > jnp.maximum(best_s, opp_after))
    c = cand[:4]
    base = jnp.where(SUITS == trump, TRUMP_BASE, jnp.where(SUITS == led, LED_BASE, 0))
    sure = stronger(c, base, jnp.maximum(best_s, opp_after))
    cover = stronger(c, base, best_s)
    lo_sure, has_sure = jaxutil.trailing_zeros(sure), sure != 0
    lo_cover = jaxutil.trailing_zeros(cover)
    has_cover = (cover != 0) & (side[best_p] != mine)
    lo = jaxutil.trailing_zeros(c)
    h = hands[me]
    lens = jax.lax.population_count(h).astype(jnp.int32)
    live = hands[0] | hands[1] | hands[2] | hands[3]
    first = top_bit(live)
    second = top_bit(live & ~first)
    guard = ((lens == 2) & ((h & second) != 0) & ((h & first) == 0)) * 6 + (
        (lens == 1) & ((h & first) != 0)) * 8
    discard = (SUITS != led) & (SUITS != trump)
    low = jnp.where(discard, 3 * lens - guard, 0) - lo
    ruff = (SUITS == trump) & (led != trump)
    score = jnp.where(secured, jnp.where(ruff, -40, 20) + low, jnp.where(
        has_sure, 60 - lo_sure, jnp.where(has_cover, 15 - lo_cover, low)))
    rank = jnp.where(~secured & has_sure, lo_sure,
                     jnp.where(~secured & has_cover, lo_cover, lo))
    return score, rank


def choose(rules: Rules, cand: Array, trick: Trick, trump: Array, done: Array,
           partner_wins: Array, pts: Array, friends: Array, foes: Array,
           plain: tuple[Array, ...] | None = None) -> Array:
    """Move ordering: the code of the best-scored move of `cand` (higher first) in `trick`.
    `friends`, `foes`: the suit words of the mover's partners and opponents together;
    `plain`: `plain_leads`'s and `plain_follow`'s scores, in place of the generic ones."""
    leading, led, best_s = trick.count == 0, trick.led, trick.best
    c = cand[:4]
    hi, lo = top(c), jaxutil.trailing_zeros(c)
    if plain is None:
        # leading: cash a sure winner; else low towards a partner's winner; else low.
        # Following: low, or a point card, when partner wins; else win as cheaply as
        # possible; else low, keeping the point cards
        sure = hi > jnp.maximum(top(friends), top(foes))
        to_partner = top(friends) > jnp.maximum(top(foes), hi)
        lead_score = jnp.where(sure, 100 + hi, jnp.where(to_partner, 50 - lo, -lo))
        base = jnp.where(SUITS == trump, TRUMP_BASE, jnp.where(SUITS == led, LED_BASE, 0))
        lo_pts = jaxutil.trailing_zeros(c & pts)
        lo_plain = jaxutil.trailing_zeros(c & ~pts)
        has_pts, has_plain = (c & pts) != 0, (c & ~pts) != 0
        win = stronger(c, base, best_s)
        lo_win = jaxutil.trailing_zeros(win)
        follow_rank = jnp.where(
            partner_wins, jnp.where(has_pts, lo_pts, lo),
            jnp.where(win != 0, lo_win, jnp.where(has_plain, lo_plain, lo)))
        follow_score = jnp.where(
            partner_wins, jnp.where(has_pts, 16 - lo_pts, -lo),
            jnp.where(win != 0, 64 - base - lo_win,
                      jnp.where(has_plain, -lo_plain, -lo - 16)))
    else:
        lead_score, sure, follow_score, follow_rank = plain
    rank = jnp.where(leading, jnp.where(sure, hi, lo), follow_rank)
    score = jnp.where(leading, lead_score, follow_score)
    score = jnp.where(c != 0, score, -1000)
    jw = cand[4]
    jk_s = strength(rules, jnp.int32(JK_CODE), led, trump, done)
    jk_follow = jnp.where(partner_wins | (jk_s <= best_s), 0, 64 - jk_s)
    jk_lead = 16 * (SUITS == trump)
    scores = jnp.concatenate([
        score, jnp.where((jw & 1) != 0, jk_follow, -1000)[None],
        jnp.where(((jw >> (1 + SUITS).astype(jnp.uint32)) & 1) != 0, jk_lead, -1000)])
    codes = jnp.concatenate([16 * SUITS + rank, jnp.array([JK_CODE]), LEAD_CODE + SUITS])
    return codes[jnp.argmax(scores)]
