"""Konkan's rummy kernel (konkan.md KON-2..20, konkan_engine.md KON-E6..E11): fixed-shape JAX,
no search over subsets at run time.

Cards are counts per type (`spec`: t = 13 s + r, the joker 52). A suit's cards are rank
words (bit r: the suit holds rank r) and run *positions* 0..13 (0 = Ace low, 1..12 = 2..K,
13 = Ace high). A window of positions a..b never holds both 0 and 13 (a run is at most 13
long), so its *rank mask* (`RANGE_RANKS[a, b]`) has at most one Ace bit and popcounts of a hand
word and a rank mask count the naturals it can place there.

Three queries: `act_masks` (the picks and finishing actions of PHASE_ACT, KON-E6..E9),
`opened_take` (KON-E11 for an opened player) and `opening_batch` (KON-E11 for an unopened
one, exact), with `opening_bound` / `opening_relaxed` as cheap sound filters before it. How
each is computed without a search at run time: docs/rules/konkan_engine.md ("The meld
kernel").
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core.jaxutil import Array, materialize
from kanjax.games.konkan import spec as ks

NP = 14  # run positions
POS_RANK = np.array([ks.position_rank(q) for q in range(NP)])
POS_VALUE = np.array([ks.rank_value(ks.position_rank(q)) for q in range(NP)])
RANK_VALUE = np.array([ks.rank_value(r) for r in range(ks.NUM_RANKS)])
CARD_VALUE = np.array([ks.rank_value(t % 13) for t in range(52)] + [ks.JOKER_HAND_VALUE])
NEG = -(1 << 20)
CHUNK = 8  # set choices per trip of the exact opening search
JOKER_PICK = 1 << 13  # `act_masks`: above a rank word's 13 bits, "a joker can be picked"


def _range_tables() -> tuple[np.ndarray, np.ndarray]:
    """`RANGE_RANKS[a, b]`: the rank mask of positions a..b (0 where a > b);
    `RANGE_POS[a, b]`: their position mask."""
    ranks = np.zeros((NP, NP), np.int32)
    pos = np.zeros((NP, NP), np.int32)
    for a in range(NP):
        for b in range(a, NP):
            for q in range(a, b + 1):
                ranks[a, b] |= 1 << POS_RANK[q]
                pos[a, b] |= 1 << q
    return ranks, pos


RANGE_RANKS, RANGE_POS = _range_tables()
W3 = np.array([RANGE_RANKS[p, p + 2] for p in range(12)])  # the rank masks of 3-windows
# new runs (KON-E6): lowest position p, k cards, 3 <= k <= 13, p + k - 1 <= 13, k = 13 only at 0
WINDOWS = [(p, k) for k in range(3, 14) for p in range(NP - k + 1) if k < 13 or p == 0]


def popcount(x: Array) -> Array:
    return jax.lax.population_count(x.astype(jnp.int32)).astype(jnp.int32)


def or_reduce(x: Array, axis: int) -> Array:
    return jax.lax.reduce(x, jnp.zeros((), x.dtype), jax.lax.bitwise_or, (axis % x.ndim,))


def lowest(x: Array) -> Array:
    """The lowest set bit's index of a positive int32 (32 for 0)."""
    x = x.astype(jnp.int32)
    return popcount((x & -x) - 1)


def highest(x: Array) -> Array:
    """The highest set bit's index of a positive int32 (-1 for 0)."""
    return 31 - jax.lax.clz(x.astype(jnp.int32)).astype(jnp.int32)


def suit_words(counts: Array) -> Array:
    """int32[..., 4]: bit r of word s where counts[..., 13 s + r] >= 1 (naturals only)."""
    bits = (counts[..., :52].reshape(*counts.shape[:-1], 4, 13) >= 1).astype(jnp.int32)
    return (bits << jnp.arange(13, dtype=jnp.int32)).sum(-1)


def rank_suits(counts: Array) -> Array:
    """int32[..., 13]: bit s of entry r where counts[..., 13 s + r] >= 1."""
    bits = (counts[..., :52].reshape(*counts.shape[:-1], 4, 13) >= 1).astype(jnp.int32)
    return (bits << jnp.arange(4, dtype=jnp.int32)[:, None]).sum(-2)


def words_to_cards(words: Array) -> Array:
    """int32[..., 4] rank words -> bool[..., 52]."""
    bits = (words[..., :, None] >> jnp.arange(13, dtype=jnp.int32)) & 1
    return bits.reshape(*words.shape[:-1], 52).astype(bool)


def rank_suits_to_cards(rs: Array) -> Array:
    """int32[..., 13] suit masks per rank -> bool[..., 52]."""
    bits = (rs[..., None, :] >> jnp.arange(4, dtype=jnp.int32)[:, None]) & 1
    return bits.reshape(*rs.shape[:-1], 52).astype(bool)


def pos_to_ranks(pos: Array) -> Array:
    """A position mask -> its rank mask (positions 0 and 13 both give the Ace)."""
    pos = pos.astype(jnp.int32)
    return (pos & 0x1FFE) | ((pos | (pos >> 13)) & 1)


def ranks_to_pos(ranks: Array, ace_high: Array) -> Array:
    """A rank mask -> positions, the Ace on 13 where `ace_high`, else on 0."""
    ranks = ranks.astype(jnp.int32)
    ace = ranks & 1
    return (ranks & 0x1FFE) | jnp.where(ace_high, ace << 13, ace)


def _span(a: Array, b: Array) -> Array:
    """The position mask of a..b (0 where b < a; a, b within 0..13 or empty)."""
    a = jnp.clip(a, 0, 14)
    b = jnp.clip(b, -1, 13)
    return jnp.where(b >= a, (2 << b) - (1 << a), 0)


def _nth_low(x: Array, n: Array) -> Array:
    """The position of the (n+1)-th lowest set bit of x (n = 0..2), 14 if x has fewer."""
    for _ in range(2):
        x = jnp.where(n > 0, x & (x - 1), x)
        n = n - 1
    return jnp.where(x == 0, 14, lowest(x))


def _nth_high(x: Array, n: Array) -> Array:
    """The position of the (n+1)-th highest set bit of x (n = 0..2), -1 if x has fewer."""
    for _ in range(2):
        x = jnp.where(n > 0, x & ~(1 << jnp.clip(highest(x), 0, 31)), x)
        n = n - 1
    return jnp.where(x == 0, -1, highest(x))


# ---- PHASE_ACT: picks and finishing actions (KON-E6..E9) -----------------------------------
def act_masks(cnt: Array, sel: Array, kind: Array, key: Array, nat: Array, jok: Array,
              can_meld: Array, run_lengths: Array, set_sizes: Array, can_table: Array
              ) -> dict[str, Array]:
    """The picks and finishing actions legal for a hand `cnt` (int[53] counts) with selection
    `sel` (int[53], a sub-multiset) and the table melds (`kind` -1 / RUN_MELD / SET_MELD,
    `key` the run's suit or the set's rank, `nat` the run's natural positions or the set's
    suits, `jok` the run's joker positions or the set's joker count; int[35] each).
    `can_meld`: new melds allowed; `run_lengths` / `set_sizes`: bit k set where a new run of k
    cards / a set of k cards is allowed (a konkan requester's parts, KON-27); `can_table`:
    layoffs and retrievals allowed (opened, not a requester). Every finishing action leaves a
    card in hand (KON-13). Returns `pick` bool[53], `run` bool[12], `set` bool, `layoff`,
    `layoff_low`, `retrieve` bool[35].

    Per action kind: new runs (`_run_masks`), new sets (`_set_masks`), layoffs onto runs
    (`_run_layoff_masks`) and onto sets (`_set_layoff_masks`), retrievals
    (`_retrieve_masks`); each gives its finishing actions and the cards it lets the mover
    pick, as rank words (`JOKER_PICK`: a joker) or suit masks per rank, gathered by
    `_picks`."""
    i32 = jnp.int32
    f = _act_facts(cnt.astype(i32), sel.astype(i32))
    kind, key, nat, jok = (x.astype(i32) for x in (kind, key, nat, jok))
    t = {"nat": nat, "jok": jok, "is_run": kind == ks.RUN_MELD, "is_set": kind == ks.SET_MELD,
         "s": jnp.clip(key, 0, 3), "r": jnp.clip(key, 0, 12)}
    nat_words, run = _run_masks(f, can_meld, run_lengths)
    set_words, set_j, set_ = _set_masks(f, can_meld, set_sizes)
    run_words, layoff, layoff_low = _run_layoff_masks(f, t, can_table)
    set_suits, set_jokers, set_layoff = _set_layoff_masks(f, t, can_table)
    ret_words, ret_suits, retrieve = _retrieve_masks(f, t, can_table)
    pick = _picks(f, t, nat_words | set_words, run_words | set_jokers | ret_words,
                  set_suits | ret_suits, set_j)
    return {"pick": pick, "run": run, "set": set_, "layoff": layoff | set_layoff,
            "layoff_low": layoff_low, "retrieve": retrieve}


def _act_facts(cnt: Array, sel: Array) -> dict[str, Array]:
    """What `act_masks` reads of the hand `cnt` and the selection `sel` (int32[53]): their
    suit words and rank suits, whether the selection is a sub-multiset of distinct natural
    cards (`ok_sel`), the hand's jokers `J`, the selection's naturals `nsel` and jokers `js`,
    the most cards a finishing action may take (`kmax`: one stays in hand), the selection's
    suits and ranks."""
    sw = suit_words(sel)
    sel_ranks = or_reduce(sw, 0)
    nsel = sel[:52].sum()
    dup = ((sel[:52] >= 2) | (sel[:52] > cnt[:52])).any() | (sel[52] > cnt[52])
    return {"hw": suit_words(cnt), "sw": sw, "hr": rank_suits(cnt), "sr": rank_suits(sel),
            "ok_sel": ~dup, "J": cnt[52], "js": sel[52], "nsel": nsel, "kmax": cnt.sum() - 1,
            "sel_suits": sw != 0, "nsuits": (sw != 0).sum(), "sel_ranks": sel_ranks,
            "nranks": popcount(sel_ranks), "one": jnp.maximum(nsel, 1)}


def _run_masks(f: dict, can_meld: Array, run_lengths: Array) -> tuple[Array, Array]:
    """New runs (KON-E6): (the pickable naturals as rank words, `JOKER_PICK` where a joker
    is; `run p` bool[12]). For each suit and lowest position p the lengths that work are an
    interval; the longest window of them holds every pickable card."""
    i32 = jnp.int32
    nsel, js, J, kmax = f["nsel"], f["js"], f["J"], f["kmax"]
    pp = jnp.arange(ks.RUN_STARTS, dtype=i32)[None, :]  # [1, 12]
    hpos = ranks_to_pos(f["hw"], False) | ((f["hw"] & 1) << 13)  # [4]: the Ace on both ends
    spos = ranks_to_pos(f["sw"][:, None], pp > 0)  # [4, 12]
    in_w = (spos & ((1 << pp) - 1)) == 0
    k_sel = jnp.where(spos != 0, highest(spos) - pp + 1, 0)
    k_gap = _nth_low(0x3FFF & ~((1 << pp) - 1) & ~hpos[:, None], J) - pp
    k_len = jnp.where(pp == 0, 13, jnp.minimum(12, 14 - pp))
    lo_len, hi_len = lowest(run_lengths), highest(run_lengths)
    k_top = jnp.minimum(jnp.minimum(jnp.minimum(k_len, kmax), k_gap), hi_len)
    suit_ok = (f["nsuits"] == 0) | f["sel_suits"][:, None]
    base = (can_meld & f["ok_sel"] & (f["nsuits"] <= 1) & suit_ok & in_w
            & (run_lengths != 0))
    pick_n = base & (k_top >= jnp.maximum(jnp.maximum(lo_len, k_sel), nsel + 1 + js))
    win = _span(pp, pp + k_top - 1)
    pick_j = (base & (J >= js + 1) & ((hpos[:, None] & win) != 0)
              & (k_top >= jnp.maximum(jnp.maximum(lo_len, k_sel), f["one"] + js + 1)))
    nat_words = or_reduce(jnp.where(pick_n, pos_to_ranks(win & hpos[:, None]), 0)
                          | jnp.where(pick_j, JOKER_PICK, 0), 1) & ~f["sw"]
    size = nsel + js
    run = (base & (nsel >= 1) & (size >= k_sel) & (size <= jnp.minimum(k_len, kmax))
           & (((run_lengths >> jnp.clip(size, 0, 31)) & 1) == 1)).any(0)
    return nat_words, run


def _set_masks(f: dict, can_meld: Array, set_sizes: Array) -> tuple[Array, Array, Array]:
    """New sets: (the pickable naturals as rank words [4], whether a joker is pickable per
    rank [13], `set`)."""
    i32 = jnp.int32
    nsel, js, J, kmax, one = f["nsel"], f["js"], f["J"], f["kmax"], f["one"]
    na = popcount(f["hr"])
    rbit = 1 << jnp.arange(13, dtype=i32)
    rank_ok = (f["nranks"] == 0) | (f["sel_ranks"] == rbit)
    base = can_meld & f["ok_sel"] & (f["nranks"] <= 1) & rank_ok
    set_n = set_j = jnp.zeros(13, bool)
    for z in (3, 4):
        zok = (((set_sizes >> z) & 1) == 1) & (z <= kmax)
        set_n |= base & zok & (jnp.maximum(nsel + 1, z - J) <= jnp.minimum(na, z - js))
        set_j |= (base & zok & (J >= js + 1) & (jnp.maximum(one, z - J)
                                                <= jnp.minimum(na, z - js - 1)))
    rank_suit_picks = jnp.where(set_n, f["hr"] & ~f["sr"], 0)  # [13] suit masks
    u = jnp.arange(4, dtype=i32)
    set_words = (((rank_suit_picks[None, :] >> u[:, None]) & 1)
                 << jnp.arange(13, dtype=i32)).sum(1)  # [4]: the ranks are distinct bits
    size = nsel + js
    set_ = (can_meld & f["ok_sel"] & (f["nranks"] == 1) & (nsel >= 1) & (size <= kmax)
            & (((set_sizes >> jnp.clip(size, 0, 31)) & 1) == 1))
    return set_words, set_j, set_


def _run_layoff_masks(f: dict, t: dict, can_table: Array) -> tuple[Array, Array, Array]:
    """Layoffs onto runs (KON-E7), at the high end (positions hi+1 .. hi+j) and the low end
    (lo-j .. lo-1): (the pickable cards of each meld's suit as rank words [M], `layoff`,
    `layoff low` bool[M])."""
    nsel, js, J, kmax = f["nsel"], f["js"], f["J"], f["kmax"]
    s, is_run = t["s"], t["is_run"]
    occ = t["nat"] | jnp.where(is_run, t["jok"], 0)
    lo, hi = lowest(occ), highest(occ)
    hws, sws = f["hw"][s], f["sw"][s]
    base = (can_table & f["ok_sel"] & is_run & (f["nsuits"] <= 1)
            & ((f["nsuits"] == 0) | f["sel_suits"][s]))
    # the hand's and the selection's positions of the meld's suit (an Ace on both ends)
    hp = ranks_to_pos(hws, False) | ((hws & 1) << 13)
    one_j = (J >= js + 1)
    top = 13 - popcount(occ)
    k = nsel + js
    # high end: the J+1-th position above hi the hand lacks bounds j
    above = 0x3FFF & ~((2 << hi) - 1)
    sp = ranks_to_pos(sws, True)
    j_sel = jnp.where(sp != 0, highest(sp) - hi, 0)
    ok_sel_hi = (sp & ~above) == 0
    j_gap = _nth_low(above & ~hp, J) - hi - 1
    j_max = jnp.minimum(jnp.minimum(13 - hi, top), kmax)
    hi_top = jnp.minimum(j_max, j_gap)
    hi_ok = base & ok_sel_hi & (hi_top >= jnp.maximum(jnp.maximum(j_sel, nsel + 1 + js), 1))
    hi_jok = base & ok_sel_hi & one_j & (hi_top >= jnp.maximum(j_sel, nsel + js + 1))
    layoff = base & ok_sel_hi & (k >= 1) & (k <= j_max) & (k >= j_sel)
    hi_words = pos_to_ranks(_span(hi + 1, hi + hi_top) & hp) & ~sws
    # low end
    below = (1 << lo) - 1
    sp = ranks_to_pos(sws, False)
    j_sel = jnp.where(sp != 0, lo - lowest(sp), 0)
    ok_sel_lo = (sp & ~below) == 0
    j_gap = lo - _nth_high(below & ~hp, J) - 1
    j_max = jnp.minimum(jnp.minimum(lo, top), kmax)
    lo_top = jnp.minimum(j_max, j_gap)
    lo_ok = base & ok_sel_lo & (lo_top >= jnp.maximum(jnp.maximum(j_sel, nsel + 1 + js), 1))
    lo_jok = base & ok_sel_lo & one_j & (lo_top >= jnp.maximum(j_sel, nsel + js + 1))
    layoff_low = base & ok_sel_lo & (k >= 1) & (k <= j_max) & (k >= j_sel)
    lo_words = pos_to_ranks(_span(lo - lo_top, lo - 1) & hp) & ~sws
    run_words = (jnp.where(hi_ok, hi_words, 0) | jnp.where(lo_ok, lo_words, 0)
                 | jnp.where(hi_jok | lo_jok, JOKER_PICK, 0))  # [M], suit s
    return run_words, layoff, layoff_low


def _set_layoff_masks(f: dict, t: dict, can_table: Array) -> tuple[Array, Array, Array]:
    """Layoffs onto sets: (the pickable suits at each meld's rank [M], `JOKER_PICK` where a
    joker is [M], `layoff` bool[M])."""
    nsel, js, J, kmax = f["nsel"], f["js"], f["J"], f["kmax"]
    r, m_suits = t["r"], t["nat"]
    z = popcount(m_suits) + jnp.where(t["is_set"], t["jok"], 0)
    srr = f["sr"][r]
    base = (can_table & f["ok_sel"] & t["is_set"] & (f["nranks"] <= 1)
            & ((f["nranks"] == 0) | (f["sel_ranks"] == 1 << r)) & ((srr & m_suits) == 0))
    room = base & (z + nsel + js + 1 <= 4) & (nsel + js + 1 <= kmax)
    set_suits = jnp.where(room, f["hr"][r] & ~m_suits & ~srr, 0)  # [M] suit masks at rank r
    jokers = jnp.where(room & (J >= js + 1), JOKER_PICK, 0)
    layoff = base & (nsel + js >= 1) & (z + nsel + js <= 4) & (nsel + js <= kmax)
    return set_suits, jokers, layoff


def _retrieve_masks(f: dict, t: dict, can_table: Array) -> tuple[Array, Array, Array]:
    """Retrievals (KON-19, KON-20, KON-38): (the pickable cards of a run's suit as rank words
    [M], the pickable suits at a set's rank [M], `retrieve` bool[M])."""
    nsel, js, s, r = f["nsel"], f["js"], t["s"], t["r"]
    hws, sws, srr = f["hw"][s], f["sw"][s], f["sr"][r]
    need = pos_to_ranks(jnp.where(t["is_run"], t["jok"], 0))
    base = can_table & t["is_run"] & (need != 0)
    run_words = jnp.where(base & (nsel + js == 0), hws & need, 0)
    retrieve = base & (nsel == 1) & (js == 0) & f["sel_suits"][s] & ((sws & ~need) == 0)
    missing = 15 & ~t["nat"]
    base = (can_table & t["is_set"] & (t["jok"] >= 1) & ((missing & ~f["hr"][r]) == 0)
            & (js == 0) & f["ok_sel"] & (f["nranks"] <= 1)
            & ((f["nranks"] == 0) | (f["sel_ranks"] == 1 << r)))
    set_suits = jnp.where(base & ((srr & ~missing) == 0), missing & ~srr, 0)
    retrieve |= base & (f["nranks"] == 1) & (srr == missing)
    return run_words, set_suits, retrieve


def _picks(f: dict, t: dict, words: Array, run_words: Array, set_suits: Array,
           set_j: Array) -> Array:
    """The pick mask bool[53]: the rank words `words` [4] (and `JOKER_PICK`), each meld's
    `run_words` spread to its suit and `set_suits` to its rank in each of its suits, and a
    joker where `set_j` says. Each meld's words are computed once (`materialize`: XLA on
    CPU would otherwise recompute a meld's whole chain in every suit of it, and the words'
    in every card)."""
    i32 = jnp.int32
    u = jnp.arange(4, dtype=i32)
    run_words, set_suits = materialize(run_words), materialize(set_suits)
    meld_words = jnp.where(t["s"][:, None] == u, run_words[:, None], 0) | (
        ((set_suits[:, None] >> u) & 1) << t["r"][:, None])  # [M, 4]
    words = materialize(words | or_reduce(meld_words, 0))
    joker = (words >= JOKER_PICK).any() | set_j.any()
    ok_sel = f["ok_sel"]
    return jnp.concatenate([words_to_cards(words) & ok_sel, (joker & ok_sel)[None]])


# ---- KON-E11 for a player opened at the turn's start ----------------------------------------
def opened_take(hand: Array, c: Array, kind: Array, key: Array, nat: Array, jok: Array,
                must_use: bool) -> Array:
    """KON-E11 for a player who had opened before this turn (not a requester): may he take
    the top discard `c` (a type) holding `hand` (int[53])?

    With `must_use` (`take_must_use_card`): some sequence of legal table actions of this turn
    ends with a card of type c placed by a new meld or a layoff. Why the checks below equal
    that: jokers are the only thing a table action can add to the hand (a retrieval), and
    there are at most two on the table; the retrievals possible with H + c are enumerated
    (none, each source, both: a run's joker needs its one natural, a set's jokers its missing
    naturals). Any other action before the one placing c only spends cards: a layoff onto the
    run c joins is one layoff with c; a new meld c is laid off onto is one meld with c; other
    melds, layoffs onto sets, or retrievals whose joker is not used change nothing c needs
    (melds are never split or shrunk, a set never gets a suit back). So some sequence works
    iff for some retrievals, the hand after them (H_r, still holding a c) has one action with
    c leaving a card: a layoff onto a run of c's suit from its end to c, gaps filled by H_r's
    naturals or jokers, at most 13 long; a layoff onto a set of c's rank lacking c's suit with
    room; or a new meld of three with c (a 3-window of positions around c, or a set of its
    rank: any longer meld with c contains such a three). A joker c: a layoff of one joker onto
    a run shorter than 13 or a set of three, or a meld of three with a joker.

    Without `must_use` (konkan_engine.md: the turn must still be able to end, and c is not
    discarded unless placed): the same, or after the same retrievals a new meld or layoff
    without c that keeps a card of another type in hand: a single-card layoff (any layoff
    starts with one) or a meld of three of the hand without c's type (other actions only
    spend more cards, so they keep no more)."""
    i32 = jnp.int32
    kind, key, nat, jok = (x.astype(i32) for x in (kind, key, nat, jok))
    c = c.astype(i32)
    hp = hand.astype(i32).at[c].add(1)
    is_run, is_set = kind == ks.RUN_MELD, kind == ks.SET_MELD
    # joker sources (at most two in all): each joker of a run, each set holding jokers
    count = jnp.where(is_run, popcount(jok), (is_set & (jok >= 1)).astype(i32))
    m0 = jnp.argmax(count > 0)
    later = (jnp.arange(35) > m0) & (count > 0)
    m1 = jnp.where(count[m0] == 2, m0, jnp.argmax(later))
    valid = jnp.stack([count[m0] > 0, (count[m0] == 2) | later.any()])
    ms = jnp.stack([m0, m1])
    jk = jok[ms]
    low = jk & -jk
    bit = jnp.where((jnp.arange(2) == 1) & (m1 == m0), jk & ~low, low)
    runs = is_run[ms]
    s, r = jnp.clip(key[ms], 0, 3), jnp.clip(key[ms], 0, 12)
    u = jnp.arange(4)
    run_t = 13 * s + jnp.asarray(POS_RANK)[jnp.clip(lowest(bit), 0, 13)]  # a run's joker: its card
    set_t = jnp.where(((nat[ms][:, None] >> u[None, :]) & 1) == 0,
                      13 * u[None, :] + r[:, None], 53)  # a set's: its missing suits
    cand = jnp.where(runs[:, None], jnp.where((u == 0)[None, :], run_t[:, None], 53), set_t)
    needs = (jnp.arange(53)[None, None, :] == cand[:, :, None]).sum(1)  # [2, 53]
    gains = jnp.where(runs, 1, jk) * valid
    subsets = jnp.asarray([[0, 0], [1, 0], [0, 1], [1, 1]], i32)
    need = subsets @ needs  # [4, 53]
    gain = subsets @ gains
    hands = hp[None, :] - need + gain[:, None] * (jnp.arange(53) == 52)[None, :]
    feasible = (hands >= 0).all(1) & ((subsets == 0) | valid[None, :]).all(1)
    return (feasible & jax.vmap(lambda h: _take_checks(h, c, kind, key, nat, jok, must_use))(
        hands)).any()



def _take_view(h: Array, kind, key, nat, jok) -> tuple:
    """What the take checks read: the hand `h`'s suit and rank words, jokers and size; the
    table melds' kinds, lowest and highest positions, lengths, suits, ranks and sizes; the
    cards the hand lacks in each 3-window of each suit."""
    hw, hr = suit_words(h), rank_suits(h)
    is_run, is_set = kind == ks.RUN_MELD, kind == ks.SET_MELD
    occ = nat | jnp.where(is_run, jok, 0)
    return (hw, hr, h[52], h.sum(), is_run, is_set, lowest(occ), highest(occ), popcount(occ),
            jnp.clip(key, 0, 3), jnp.clip(key, 0, 12), popcount(nat) + jok,
            3 - popcount(hw[:, None] & jnp.asarray(W3)[None, :]))


def _any_action(h: Array, kind, key, nat, jok) -> Array:
    """Some new meld or layoff of the hand `h` leaves a card of `h`: a single-card layoff or
    a meld of three."""
    hw, hr, J, n, is_run, is_set, lo, hi, length, s, r, z, gaps3 = _take_view(
        h, kind, key, nat, jok)
    meld = ((((gaps3 <= J) & (gaps3 < 3)).any() | ((popcount(hr) + J >= 3) & (hr != 0)).any())
            & (n >= 4))
    pos_rank = jnp.asarray(POS_RANK)
    lay_nat_hi = is_run & (length <= 12) & (hi < 13) & (
        ((hw[s] >> pos_rank[jnp.clip(hi + 1, 0, 13)]) & 1) == 1)
    lay_nat_lo = is_run & (length <= 12) & (lo > 0) & (
        ((hw[s] >> pos_rank[jnp.clip(lo - 1, 0, 13)]) & 1) == 1)
    lay_set = is_set & (z < 4) & ((hr[r] & ~nat) != 0)
    lay_jok = ((is_run & (length <= 12)) | (is_set & (z < 4))) & (J >= 1)
    lay = (lay_nat_hi | lay_nat_lo | lay_set | lay_jok).any() & (n >= 2)
    return meld | lay


def _take_checks(h: Array, c: Array, kind, key, nat, jok, must_use: bool) -> Array:
    """`opened_take`'s single actions for the hand `h` after some retrievals."""
    hw, hr, J, n, is_run, is_set, lo, hi, length, s, r, z, gaps3 = _take_view(
        h, kind, key, nat, jok)
    rr = jnp.asarray(RANGE_RANKS)
    cs, cr = c // 13, c % 13
    is_j = c == 52
    has_c = h[jnp.clip(c, 0, 52)] >= 1
    # c natural: layoff onto a run of its suit
    q_hi = jnp.where(cr == 0, 13, cr)
    q_lo = cr  # the Ace low on 0
    run_c = is_run & (s == cs)
    fill_hi = rr[jnp.clip(hi + 1, 0, 13), jnp.clip(q_hi - 1, 0, 13)] * (q_hi - 1 >= hi + 1)
    gap_hi = (q_hi - hi - 1) - popcount(hw[cs] & fill_hi)
    ok_hi = run_c & (q_hi > hi) & (q_hi - lo + 1 <= 13) & (gap_hi <= J) & (n - (q_hi - hi) >= 1)
    fill_lo = rr[jnp.clip(q_lo + 1, 0, 13), jnp.clip(lo - 1, 0, 13)] * (lo - 1 >= q_lo + 1)
    gap_lo = (lo - q_lo - 1) - popcount(hw[cs] & fill_lo)
    ok_lo = run_c & (q_lo < lo) & (hi - q_lo + 1 <= 13) & (gap_lo <= J) & (n - (lo - q_lo) >= 1)
    ok_set = is_set & (r == cr) & (((nat >> cs) & 1) == 0) & (z < 4) & (n >= 2)
    lay_c = (ok_hi | ok_lo | ok_set).any()
    # c natural: a new meld of three with it
    wins = []
    for q in (q_lo, q_hi):
        for p in (q - 2, q - 1, q):
            pv = (p >= 0) & (p + 2 <= 13)
            wr = rr[jnp.clip(p, 0, 13), jnp.clip(p + 2, 0, 13)]
            wins.append(pv & (3 - popcount(hw[cs] & wr) <= J))
    meld_c = (jnp.stack(wins).any() | (popcount(hr[jnp.clip(cr, 0, 12)] & ~(1 << cs)) + J >= 2)
              ) & (n >= 4)
    natural = ~is_j & has_c & (lay_c | meld_c)
    # c a joker
    lay_j = ((is_run & (length <= 12)) | (is_set & (z < 4))).any() & (n >= 2)
    meld_j = (((gaps3 <= J) & (gaps3 <= 2)).any()
              | ((hr != 0) & (jnp.minimum(popcount(hr), 2) + J >= 3)).any()) & (n >= 4)
    joker = is_j & (J >= 1) & (lay_j | meld_j)
    if must_use:
        return natural | joker
    return natural | joker | _any_action(h.at[jnp.clip(c, 0, 52)].set(0), kind, key, nat, jok)


# ---- KON-E11 for an unopened player: the exact opening search --------------------------------
def opening_bound(cnt: Array, c: Array, opening_min: int | Array, need_run: bool,
                  need_c: bool) -> Array:
    """A cheap necessary condition of `opening_batch`'s answer (False: impossible): counting every
    natural that lies in some meld of the 15 cards `cnt` (a 3-window of positions with at least
    3 - J naturals, or a rank with at least 3 - J suits, J the jokers) at its value, and every
    joker at 11 (the most a joker is worth), the total reaches `opening_min`; with `need_c`, c
    lies in such a meld (a joker c: there is a joker); with `need_run`, some natural lies in
    such a window."""
    i32 = jnp.int32
    cnt = cnt.astype(i32)
    c = jnp.asarray(c, i32)
    J = cnt[52]
    hw = suit_words(cnt)  # [4] rank words
    pos = ranks_to_pos(hw, False) | ((hw & 1) << 13)  # the Ace on both ends
    cover = jnp.zeros(4, i32)
    for p in range(12):
        w = 7 << p
        pc = popcount(pos & w)
        cover |= jnp.where((pc >= 3 - J) & (pc >= 1), pos & w, 0)
    run_cards = words_to_cards(pos_to_ranks(cover) & hw)
    hr = rank_suits(cnt)
    d = popcount(hr)
    set_ranks = jnp.where((d >= 1) & (d + J >= 3), hr, 0)
    capable = run_cards | rank_suits_to_cards(set_ranks)
    ub = (jnp.where(capable, cnt[:52], 0) * jnp.asarray(CARD_VALUE[:52])).sum() + 11 * J
    c_ok = jnp.where(c == 52, J >= 1, capable[jnp.clip(c, 0, 51)]) | (not need_c)
    run_ok = run_cards.any() | (not need_run)
    return c_ok & run_ok & (ub >= jnp.asarray(opening_min, i32))


def _set_tables():
    """`SET_VALID[e1, x, k]`: the naturals x (base-3 code of counts per suit) and k jokers of
    one rank split into sets (3-4 cards of distinct suits, each with a natural); with e1, no
    set of one natural and two jokers (the pruning of the module docstring).
    `SET_OPTIONS[e1, code, J]`: the x <= code (counts per suit of a rank) that split with some
    k <= J jokers, `0` first, padded with -1; `SET_COUNT[e1, code, J]` how many."""
    codes = [tuple(code // 3 ** s % 3 for s in range(4)) for code in range(81)]

    @functools.cache
    def splits(x, k, e1):
        if sum(x) == 0:
            return k == 0
        s0 = next(i for i in range(4) if x[i] > 0)
        others = [i for i in range(4) if i != s0 and x[i] > 0]
        for size in range(0, 4):
            for sub in itertools.combinations(others, size):
                for kk in range(k + 1):
                    if not 3 <= 1 + size + kk <= 4 or (e1 and size == 0 and kk == 2):
                        continue
                    nx = list(x)
                    nx[s0] -= 1
                    for i in sub:
                        nx[i] -= 1
                    if splits(tuple(nx), k - kk, e1):
                        return True
        return False

    valid = np.array([[[splits(codes[x], k, bool(e1)) for k in range(3)] for x in range(81)]
                      for e1 in range(2)])
    opts = np.full((2, 81, 3, 66), -1, np.int32)
    count = np.zeros((2, 81, 3), np.int32)
    for e1 in range(2):
        for code in range(81):
            for J in range(3):
                xs = [x for x in range(81)
                      if all(codes[x][s] <= codes[code][s] for s in range(4))
                      and valid[e1, x, :J + 1].any()]
                xs.sort()
                count[e1, code, J] = len(xs)
                opts[e1, code, J, :len(xs)] = xs
    return valid, opts, count, np.array(codes, np.int32)


SET_VALID, SET_OPTIONS, SET_COUNT, CODE_DIGITS = _set_tables()
SET_SIZE = CODE_DIGITS.sum(1)

# the run programme's states: (runs of length 1, of length 2, of 3 or more) open, at most 4
STATES = [(a, b, e) for a in range(5) for b in range(5) for e in range(5) if a + b + e <= 4]
NS = len(STATES)
_IDX = {st: i for i, st in enumerate(STATES)}
CLOSE_SRC = np.array([[_IDX[(a, b, x)] if x <= 4 - a - b else NS for x in range(e, e + 5)]
                      for a, b, e in STATES], np.int32)
PLACE_SRC = np.array([[_IDX[(b, n2, c - n2)] if n2 <= c else NS for n2 in range(5)]
                      for a, b, c in STATES], np.int32)
PIECES = np.array([a + b + e for a, b, e in STATES], np.int32)


def _half_step(V: np.ndarray, n: int, required: bool, value: int) -> np.ndarray:
    """One position of the run programme (host side, numpy) for the states `V` [N, NS + 1, 3,
    2] (open runs, jokers used, a natural left unused; the last state row is a padding of NEG)
    at a position holding `n` naturals worth `value` each; with `required`, a natural of this
    position must be placed."""
    N = V.shape[0]
    W = V[:, CLOSE_SRC].max(2)  # ext runs may close
    W = np.concatenate([W, np.full((N, 1, 3, 2), NEG, np.int32)], 1)
    S = W[:, PLACE_SRC].max(2)  # then every open run takes a piece, and new runs start
    acc = np.full((N, NS, 3, 2), NEG, np.int32)
    for k in range(3):  # k jokers placed here
        A = S if k == 0 else np.concatenate([np.full((N, NS, k, 2), NEG, np.int32),
                                             S[:, :, :3 - k, :]], 2)
        u = PIECES - k
        valid = (u >= 0) & (u <= n) & ((u >= 1) | (not required))
        lt = u < n
        val = A + (PIECES * value)[None, :, None, None]
        f0 = np.where((valid & ~lt)[None, :, None], val[..., 0], NEG)
        f1 = np.where(valid[None, :, None], np.where(lt[None, :, None], val.max(-1), val[..., 1]),
                      NEG)
        np.maximum(acc, np.stack([f0, f1], -1), out=acc)
    return np.concatenate([np.maximum(acc, NEG), np.full((N, 1, 3, 2), NEG, np.int32)], 1)


def _half_table(values) -> np.ndarray:
    """The run programme over seven positions worth `values` (in processing order), for every
    pattern of naturals (base-3 code, digit i = the naturals at step i) and variant (0: free;
    v: a natural of step v - 1 must be placed): int16[2187, 8, 15, 3, 2], the best value per
    crossing runs (t open at the end, n1 of them of length 1 there: index t(t+1)/2 + n1), jokers
    used and a natural left. Prefixes are shared: each step extends every pattern so far by
    the three counts of the next position."""
    V0 = np.full((1, NS + 1, 3, 2), NEG, np.int32)
    V0[0, _IDX[(0, 0, 0)], 0, 0] = 0
    arrays = {0: V0}
    for i in range(7):
        new = {v: np.concatenate([_half_step(A, d, False, values[i]) for d in range(3)])
               for v, A in arrays.items()}
        new[i + 1] = np.concatenate([_half_step(arrays[0], d, True, values[i]) for d in range(3)])
        arrays = new
    G = np.full((3 ** 7, 8, 15, 3, 2), NEG, np.int32)
    for v, A in arrays.items():
        W = A[:, CLOSE_SRC].max(2)
        for i, (a, b, e) in enumerate(STATES):
            t = a + b + e
            np.maximum(G[:, v, t * (t + 1) // 2 + a], W[:, i], out=G[:, v, t * (t + 1) // 2 + a])
    return np.maximum(G, HALF_NEG).astype(np.int16)


HALF_NEG = -20000


@functools.cache
def half_tables() -> tuple[np.ndarray, np.ndarray]:
    """(left, right): `_half_table` of positions 0..6 and of positions 13..7 (right to left:
    a run read backwards is a run), built once, on first use (about 2 s). The right table is
    stored ready to join: its entry (t, a) is the best over the right groups (t, m) with
    m <= t - a, so a left group (t, a) joins the right entry of the same index."""
    left, right = _half_table(POS_VALUE[:7]), _half_table(POS_VALUE[::-1][:7])
    joined = np.empty_like(right)
    for t in range(5):
        g = t * (t + 1) // 2
        for a in range(t + 1):
            joined[:, :, g + a] = right[:, :, g:g + t + 1 - a].max(2)
    return left, joined


POW3 = 3 ** np.arange(7)


def jf_join(a: Array, b: Array) -> Array:
    """Two parts' best values per (jokers used j, a natural left f), int[..., 3, 2] each,
    joined: jokers add up (at most 2), f is either's (NEG where impossible)."""
    bm = jnp.maximum(b[..., 0], b[..., 1])
    out0, out1 = [], []
    for j in range(3):
        o0 = o1 = None
        for j1 in range(j + 1):
            x0 = a[..., j1, 0] + b[..., j - j1, 0]
            x1 = jnp.maximum(a[..., j1, 1] + bm[..., j - j1], a[..., j1, 0] + b[..., j - j1, 1])
            o0 = x0 if o0 is None else jnp.maximum(o0, x0)
            o1 = x1 if o1 is None else jnp.maximum(o1, x1)
        out0.append(o0)
        out1.append(o1)
    return jnp.maximum(jnp.stack([jnp.stack(out0, -1), jnp.stack(out1, -1)], -1), NEG)


def _halves_join(lrow: Array, rrow: Array) -> Array:
    """The best runs of a suit from its halves' rows (int[15, 3, 2] per crossing group: t runs
    cross, those of length 1 on one side meet runs of length 2 or more on the other; the right
    row is prefix-maximised, `half_tables`)."""
    best = jf_join(lrow, rrow).max(0)
    return jnp.where(best >= 0, best, NEG)


def suit_runs(core: Array, ace_low: Array, ace_high: Array, var_left: Array, var_right: Array
              ) -> Array:
    """The best runs of one suit: `core` int[12] naturals at positions 1..12, `ace_low` /
    `ace_high` its Aces on 0 and on 13, `var_left` / `var_right` the half tables' variants (a
    natural that must be placed: the taken card). int32[3, 2]: the best value with exactly j
    jokers, without (f=0) or with (f=1) a natural left unused; NEG where impossible."""
    left, right = (jnp.asarray(t) for t in half_tables())
    core = core.astype(jnp.int32)
    lc = (core[:6] * jnp.asarray(POW3[1:])).sum() + ace_low
    rc = (core[::-1][:6] * jnp.asarray(POW3[1:])).sum() + ace_high
    return _halves_join(left[lc, var_left].astype(jnp.int32),
                        right[rc, var_right].astype(jnp.int32))


def _maxplus3(a: Array, b: Array) -> Array:
    """Max-plus convolution of int[..., 3] vectors, truncated to 3 (jokers 0..2)."""
    out = [a[..., 0] + b[..., 0], jnp.maximum(a[..., 0] + b[..., 1], a[..., 1] + b[..., 0]),
           jnp.maximum(jnp.maximum(a[..., 0] + b[..., 2], a[..., 1] + b[..., 1]),
                       a[..., 2] + b[..., 0])]
    return jnp.maximum(jnp.stack(out, -1), NEG)


def _evaluate(cr: Array, J: Array, c: Array, T: Array, x: Array, split: Array, mode: Array,
              end: Array, need_run: bool, need_c: bool) -> Array:
    """One choice of sets (`x`: per rank the code of the naturals in sets), Aces (`split`: per
    suit the Aces put on 13, the others on 0; `mode` 1 / 2: a suit's Aces can only join a run at
    the low / high end, all go there) and, for a taken Ace, its end (`end`: 0 or 13), for the
    cards `cr` (int[13 ranks, 4 suits]) and J jokers: do runs of what is left, with the jokers,
    complete an opening (`opening_batch`)?"""
    i32 = jnp.int32
    e1 = jnp.asarray([0] + [1] * 12, i32)
    xc = jnp.clip(x, 0, 80)
    xd = jnp.asarray(CODE_DIGITS)[xc]  # [13, 4]
    left = cr - xd
    c_nat = c < 52
    cs, crk = jnp.clip(c // 13, 0, 3), c % 13
    c_in_set = c_nat & (xd[jnp.clip(crk, 0, 12), cs] >= 1)
    must = (jnp.arange(4) == cs) & need_c & c_nat & ~c_in_set  # c's suit places a c in a run
    q = jnp.where(crk == 0, end, crk)
    var_l = jnp.where((q <= 6), q + 1, 0)
    var_r = jnp.where(q >= 7, 14 - q, 0)
    aces = left[0]
    valid = (split <= aces).all()
    split = jnp.where(mode == 2, aces, jnp.where(mode == 1, 0, split))
    out = jax.vmap(suit_runs)(left[1:].T, aces - split, split, jnp.where(must, var_l, 0),
                              jnp.where(must, var_r, 0))  # [4, 3, 2]
    both = jnp.stack([jnp.where(out == 0, 0, NEG), out])  # [no run, any] x [4 suits, 3, 2]
    both = jf_join(both[:, 0::2], both[:, 1::2])
    t0, tall = jf_join(both[:, 0], both[:, 1])
    runs = jnp.stack([t0, jnp.where(tall > 0, tall, NEG)], -1)  # [3 j, 2 f, 2 a run]
    # sets: each rank's naturals take 0..2 jokers where they split into sets; max-plus over ranks
    kk = jnp.arange(3, dtype=i32)
    kvalid = jnp.asarray(SET_VALID)[e1, xc]  # [13, 3]
    size = jnp.asarray(SET_SIZE)[xc]
    w = jnp.where(kvalid, (size[:, None] + kk[None, :]) * jnp.asarray(RANK_VALUE, i32)[:, None],
                  NEG)
    w = jnp.where((x == 0)[:, None], jnp.asarray([0, NEG, NEG], i32)[None, :], w)
    w = jnp.concatenate([w, jnp.asarray([[0, NEG, NEG]] * 3, i32)])  # 16 rows
    while w.shape[0] > 1:
        w = _maxplus3(w[0::2], w[1::2])
    sb = w[0]
    jr = jnp.arange(3)[:, None, None, None]
    ks_ = jnp.arange(3)[None, :, None, None]
    f = jnp.arange(2)[None, None, :, None]
    rr = jnp.arange(2)[None, None, None, :]
    value = runs[:, None, :, :] + sb[None, :, None, None]
    spare = J - jr - ks_
    c_ok = jnp.where(c_nat, True, jr + ks_ >= 1) | (not need_c)
    ok = ((spare >= 0) & ((f == 1) | (spare > 0)) & ((rr == 1) | (not need_run)) & c_ok
          & (value >= T) & (runs[:, None] > NEG // 2) & (sb[None, :, None, None] > NEG // 2))
    return ok.any() & valid


def _set_best() -> np.ndarray:
    """`SET_BEST[e1, code, k]`: the most cards sets of one rank can hold from its naturals
    `code` (counts per suit, base 3) with exactly k jokers (NEG where none)."""
    best = np.full((2, 81, 3), NEG, np.int32)
    for e1 in range(2):
        for code in range(81):
            for x in range(81):
                if (CODE_DIGITS[x] <= CODE_DIGITS[code]).all():
                    for k in range(3):
                        if SET_VALID[e1, x, k]:
                            best[e1, code, k] = max(best[e1, code, k], SET_SIZE[x] + k)
    return best


SET_BEST = _set_best()


def opening_relaxed(cnt: Array, opening_min: Array) -> Array:
    """A sound filter of `opening_batch`'s answer (False: impossible), one evaluation: the best runs
    of each suit from all its naturals (its Aces at both ends) and the best sets of each rank
    from all its naturals, a natural allowed in both, the jokers shared, reach `opening_min`."""
    i32 = jnp.int32
    cnt = cnt.astype(i32)
    J = cnt[52]
    cr = cnt[:52].reshape(4, 13)  # [suit, rank]
    runs = jax.vmap(suit_runs)(cr[:, 1:], cr[:, 0], cr[:, 0], jnp.zeros(4, i32),
                               jnp.zeros(4, i32)).max(-1)  # [4, 3 jokers]
    code = (cr.T * jnp.asarray([1, 3, 9, 27], i32)).sum(1)  # [13]
    e1 = jnp.asarray([0] + [1] * 12, i32)
    cards = jnp.asarray(SET_BEST)[e1, code]  # [13, 3]
    sets = jnp.where(cards > 0, cards * jnp.asarray(RANK_VALUE, i32)[:, None], cards)
    w = jnp.concatenate([runs, sets, jnp.asarray([[0, NEG, NEG]] * 15, i32)])  # 32 rows
    while w.shape[0] > 1:
        w = _maxplus3(w[0::2], w[1::2])
    return (jnp.where(jnp.arange(3) <= J, w[0], NEG) >= jnp.asarray(opening_min, i32)).any()


def opening_batch(cnt: Array, c: Array, opening_min: Array, active: Array, need_run: bool,
                  need_c: bool, width: int = CHUNK) -> Array:
    """KON-E11 for an unopened player, per lane of a batch (`cnt` int[B, 53]: the hand and the
    taken card; `c`, `opening_min` int[B]) where `active` (bool[B]), False elsewhere: do some
    disjoint melds of the 15 cards contain a card of type `c` (with `need_c`), meet KON-E10
    (worth `opening_min` or more, a run among them with `need_run`) and leave a card? Exact
    (module docstring). Each trip of a `while_loop` tries the next `width` choices of the list
    the lanes still open form (lane by lane, a prefix sum of their choices left): the trips add up
    to the choices of the batch, not B times its largest lane's, and a lane stops at the first
    choice that works. Lanes `opening_relaxed` rules out make no trip."""
    i32 = jnp.int32
    cnt = cnt.astype(i32)
    B = cnt.shape[0]
    J = cnt[:, 52]
    cr = jnp.swapaxes(cnt[:, :52].reshape(B, 4, 13), 1, 2)  # [B, 13, 4]
    code = (cr * jnp.asarray([1, 3, 9, 27], i32)).sum(2)  # [B, 13]
    e1 = jnp.asarray([0] + [1] * 12, i32)
    opts = jnp.asarray(SET_OPTIONS)[e1[None, :], code, J[:, None]]  # [B, 13, 66]
    c = jnp.asarray(c, i32)
    ace_c = (c < 52) & (c % 13 == 0) & need_c
    # an Ace on 0 joins a run only with the 2 and 3 (or jokers), on 13 with the Q and K: where
    # one end cannot take it, every Ace of the suit goes to the other (no choice to enumerate)
    low = (cr[:, 1, :] > 0).astype(i32) + (cr[:, 2, :] > 0) + J[:, None] >= 2  # [B, 4]
    high = (cr[:, 11, :] > 0).astype(i32) + (cr[:, 12, :] > 0) + J[:, None] >= 2
    mode = jnp.where(low & high, 0, jnp.where(high, 2, 1))
    # digits: the sets of each rank, each suit's Aces on 13, a taken Ace's end
    radix = jnp.concatenate([jnp.asarray(SET_COUNT)[e1[None, :], code, J[:, None]],
                             jnp.where(mode == 0, cr[:, 0, :] + 1, 1),
                             jnp.where(ace_c, 2, 1)[:, None]], 1)  # [B, 18]
    T = jnp.broadcast_to(jnp.asarray(opening_min, i32), (B,))
    active = active & jax.vmap(opening_relaxed)(cnt, T)  # most lanes without one stop here
    total = jnp.where(active, jnp.prod(radix, 1, dtype=i32), 0)

    def body(carry):
        done, found = carry  # the choices tried per lane; whether one worked
        left = jnp.where(found, 0, total - done)
        ends = jnp.cumsum(left)

        def item(g: Array) -> tuple[Array, Array]:
            lane = jnp.clip(jnp.searchsorted(ends, g, side="right"), 0, B - 1)
            k = done[lane] + g - (ends[lane] - left[lane])
            rad = radix[lane]
            stride = jnp.cumprod(jnp.concatenate([jnp.ones(1, i32), rad[:-1]]))
            d = (k // stride) % rad
            x = opts[lane, jnp.arange(13), d[:13]]
            ok = _evaluate(cr[lane], J[lane], c[lane], T[lane], x, d[13:17], mode[lane],
                           13 * d[17], need_run, need_c)
            return lane, ok & (g < ends[-1])

        lane, ok = jax.vmap(item)(jnp.arange(width, dtype=i32))
        return done + jnp.clip(width - (ends - left), 0, left), found.at[lane].max(ok)

    def cond(carry):
        done, found = carry
        return (~found & (done < total)).any()

    return jax.lax.while_loop(cond, body, (jnp.zeros(B, i32), jnp.zeros(B, bool)))[1]
