"""Gonin Kan (5 players, or 6 with the dealer sitting out): kan.md §4-§9, §12-§16.

Decision order: deal 1: IKU/KOI by the default leader, then by the other kankei (KAN-21),
then trick play; deals 2/3: the shower signals, the chooser names trump and leads
(KAN-36..39); STOP/JUUROKU by the trick winner (KAN-31); Shippo CALL/NO_CALL (KAN-71). The
chance events of deal 1 (kan KAN-17, nijū exchange KAN-18, seat change KAN-20) are applied in
the step that deals it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Array
from kanjax.core import cards as cards_mod
from kanjax.core.deal_fields import DealFields
from kanjax.core.dealing import card_at, kth_card, player_at
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import (
    _TOK,
    CARD_IDS,
    DECIDE,
    IKU_KOI,
    JK,
    NC,
    PLAY,
    PLAYED,
    SHIPPO,
    SIG_TABLE,
    SIGNAL,
    TRUMP,
    KanEnv,
    KanState,
    _round_trump,
    action_mask,
    gonin_joker_cards,
)
from kanjax.games.kan.layouts import KanLayouts
from kanjax.games.kan.views import KanViews

ACTIVE = 5  # active players per trick (KAN-16)
ACES_JK = np.array([12, 25, 38, 51, JK])  # KAN-71


class GoninKanEnv(KanViews, KanEnv, KanLayouts):
    """Gonin Kan (`gonin_kan`, `players=5|6`): a whole match of `n_rounds` rounds."""

    active = ACTIVE
    DEAL_FIELDS = KanEnv.DEAL_FIELDS + ("nijuu", "deal", "kankei", "joker", "ace", "rk", "rm",
                                        "won")

    def __init__(self, config: ks.KanConfig) -> None:
        super().__init__(config)
        # Steps per round without Shippo-Jo: deal 1: 2 (iku/koi) + 50 cards; deals 2/3:
        # signal + trump + 50 cards + one STOP/JUUROKU decision. Shippo-Jo adds one decision
        # per deal and CALL redeals (unbounded): the bound is then 4x a round's length, and a
        # match with that many CALLs truncates (State.truncated).
        per_round = 52 + 2 * 53
        rounds = config.n_rounds
        self.max_steps = (per_round + 3) * 4 * rounds if config.shippo_jo else per_round * rounds
        sig_mask = np.ones(ks.NUM_SIGNALS, bool)
        if config.tournament_signals:  # KAN-73: F1, F2, F3 only
            sig_mask[ks.SIGNAL_F4 - ks.SIGNAL:] = False
        self._sig_mask = sig_mask

    # ---- dealing ------------------------------------------------------------------------------
    def _deal_start(
        self, g: dict[str, Array], loc: Array, entry: Array, spare: Array
    ) -> tuple[dict[str, Array], Array, Array]:
        """Deal 1 -> kan, nijū, seat change, IKU/KOI; deals 2/3 -> the signal phase."""
        players = jnp.arange(self.num_players)
        deal1 = g["deal"] == 1
        pos = g["pos"]
        trump1 = _round_trump(g["round"], self.config.n_rounds)  # KAN-11
        poh = 13 * trump1 + 12
        holder = loc[JK]
        nijuu = deal1 & (loc[poh] == holder)
        if self.config.nijuu_kan_redeal:
            # KAN-70: redealing until JK and poh are split == swapping poh with a uniform
            # card of the 40 outside the holder's hand (exactly the conditional law).
            r = (spare[1] % 40).astype(jnp.int32)
            q = pos[holder] + 1 + r // ks.HAND_SIZE
            y = card_at(entry, ks.HAND_SIZE * jnp.where(q >= ACTIVE, q - ACTIVE, q)
                           + r % ks.HAND_SIZE)
            swapped = jnp.where(CARD_IDS == poh, loc[y], jnp.where(CARD_IDS == y, holder, loc))
            loc = jnp.where(nijuu, swapped, loc)
            nij_c, nij_x = jnp.int32(-1), jnp.int32(-1)
        else:
            # KAN-18: partner P = next(next(H)); c uniform in P's hand, x uniform in {JK, poh}.
            partner = player_at(pos, (pos[holder] + 2) % ACTIVE)
            c = card_at(entry, ks.HAND_SIZE * pos[partner])
            x = jnp.where((spare[0] & 1) == 1, JK, poh)
            swapped = jnp.where(CARD_IDS == x, partner, jnp.where(CARD_IDS == c, holder, loc))
            loc = jnp.where(nijuu, swapped, loc)
            nij_c, nij_x = jnp.where(nijuu, c, -1), jnp.where(nijuu, x, -1)
        jk1, ace1 = loc[JK], loc[poh]  # KAN-17, KAN-19
        self._separate(g, jk1, ace1, deal1)  # KAN-20
        pos = g["pos"]
        # KAN-21: default leader = the kankei with two mukankei on his right.
        dleader = jnp.where((pos[ace1] - pos[jk1]) % ACTIVE == 3, jk1, ace1)
        # KAN-36/37: in deal 2 the ace holder shows, in deal 3 the joker holder.
        shower = jnp.where(g["deal"] == 2, g["ace1"], g["jk1"])
        chooser = jnp.where(g["deal"] == 2, g["jk1"], g["ace1"])
        g.update(
            kankei=jnp.where(deal1, (players == jk1) | (players == ace1), g["kankei"]),
            phase=jnp.where(deal1, IKU_KOI, SIGNAL),
            leader=jnp.where(deal1, dleader, chooser),
            trump=jnp.where(deal1, trump1, -1),
            jk1=jnp.where(deal1, jk1, g["jk1"]), ace1=jnp.where(deal1, ace1, g["ace1"]),
            nijuu_c=jnp.where(deal1, nij_c, g["nijuu_c"]),
            nijuu_x=jnp.where(deal1, nij_x, g["nijuu_x"]),
        )
        return g, loc, jnp.where(deal1, dleader, shower)

    def _legal_from(self, g: dict[str, Array], loc: Array, cur: Array) -> Array:
        ph = jnp.asarray(g["phase"])
        cards, jk_lead = gonin_joker_cards(g, loc, cur)
        return action_mask(cards, jk_lead, {
            ks.IKU: (ph == IKU_KOI, 2),  # 57, 58
            ks.STOP: (ph == DECIDE, 2),  # 59, 60
            ks.TRUMP: (ph == TRUMP, 4),  # 61..64
            ks.SIGNAL: (jnp.asarray(self._sig_mask) & (ph == SIGNAL), ks.NUM_SIGNALS),
            ks.SHIPPO_CALL: (ph == SHIPPO, 2),  # 221, 222
        })

    def _step(self, s: KanState, action: Array, key: Array | None) -> KanState:
        n = self.num_players
        players = jnp.arange(n)
        g = self.layout.unpack(s)
        new = dict(g)
        a = action.astype(jnp.int32)
        cur = s.current_player.astype(jnp.int32)
        ph = g["phase"]
        in_iku, in_sig, in_trump = ph == IKU_KOI, ph == SIGNAL, ph == TRUMP
        in_play, in_dec, in_ship = ph == PLAY, ph == DECIDE, ph == SHIPPO
        kankei = g["kankei"] > 0
        pos, deal, leader = g["pos"], g["deal"], g["leader"]

        # ---- IKU / KOI (KAN-21): the default leader (`leader`) first, then the other kankei.
        first = g["iku0"] < 0
        said = (a == ks.IKU).astype(jnp.int32)
        other_k = jnp.argmax(kankei & (players != leader))
        new["iku0"] = jnp.where(in_iku & first, said, g["iku0"])
        new["iku1"] = jnp.where(in_iku & ~first, said, g["iku1"])
        resolved = in_iku & ~first
        iku_leader = jnp.where((g["iku0"] == 0) & (said == 1), other_k, leader)

        # ---- signal (KAN-38): hand index i = the card with i smaller cards in the hand
        sig = jnp.asarray(SIG_TABLE)[jnp.clip(a - ks.SIGNAL, 0, ks.NUM_SIGNALS - 1)]
        shown = kth_card(s._loc == cur, sig[1:])
        new["sig_form"] = jnp.where(in_sig, sig[0], g["sig_form"])
        new["sig_a"] = jnp.where(in_sig, shown[0], g["sig_a"])
        new["sig_b"] = jnp.where(in_sig, shown[1], g["sig_b"])
        chooser = jnp.where(deal == 2, g["jk1"], g["ace1"])
        new["trump"] = jnp.where(in_trump, a - ks.TRUMP, g["trump"])

        # ---- trick play (KAN-23..KAN-28)
        loc, complete, winner = self._play(g, new, s._loc, a, cur, in_play)
        leader = jnp.where(resolved, iku_leader, leader)
        leader = jnp.where(in_trump, cur, leader)
        leader = jnp.where(complete, winner, leader)
        new["leader"] = leader

        # ---- end-of-trick checks (KAN-30)
        # (a) Shippo-Jo (KAN-71): all aces and JK played by one team -> the other may call.
        if self.config.shippo_jo:
            code = loc[ACES_JK].astype(jnp.int32)
            by_k = kankei[code & 7]
            one_team = jnp.all(code >= PLAYED) & (jnp.all(by_k) | jnp.all(~by_k))
            trig = complete & (g["shippo"] == 0) & one_team
            callers = (kankei != by_k[0]) & (pos < ACTIVE)
            decider = jnp.argmin(jnp.where(callers, (pos - pos[winner]) % ACTIVE, ACTIVE))
        else:
            trig = jnp.bool_(False)
            decider = jnp.int32(0)
        new["shippo"] = g["shippo"] | trig
        nocall = in_ship & (a == ks.SHIPPO_NO_CALL)
        run = (complete & ~trig) | nocall
        # (c) juuroku, (d) sukonku, (e) normal end; T(d) = 9, 8, 9 (KAN-29).
        pk, pm = new["pk"], new["pm"]
        out, decide = self._checks(deal, pk, pm, new["trick"], g["declared"],
                                   jnp.where(deal == 2, 8, 9), decisions=True)
        outcome = jnp.where(run, out, -1)
        to_decide = run & decide
        # STOP / JUUROKU by the trick winner (KAN-31), Shippo CALL (KAN-71).
        outcome = jnp.where(in_dec & (a == ks.STOP),
                            jnp.where(pm == 0, ks.SUKONKU, ks.GYAKU_SUKONKU), outcome)
        new["declared"] = jnp.where(in_dec & (a == ks.JUUROKU), jnp.where(pm == 0, 1, 2),
                                    g["declared"])
        outcome = jnp.where(in_ship & (a == ks.SHIPPO_CALL), ks.SHIPPO_VOID, outcome)

        # ---- next phase and player
        cur_new = jnp.where(in_iku, jnp.where(first, other_k, iku_leader), cur)
        cur_new = jnp.where(in_sig, chooser, cur_new)
        next_player = self._next_player(pos, cur)
        cur_new = jnp.where(in_play, jnp.where(complete, winner, next_player), cur_new)
        cur_new = jnp.where(nocall, leader, cur_new)
        phase = jnp.where(resolved | in_trump | in_dec | nocall, PLAY, ph)
        phase = jnp.where(in_sig, TRUMP, phase)
        phase = jnp.where(trig, SHIPPO, phase)
        cur_new = jnp.where(trig, decider, cur_new)
        new["phase"] = jnp.where(to_decide, DECIDE, phase)
        return self._settle(s, g, new, loc, cur_new, outcome, key)

    # ---- deal strings ----------------------------------------------------------------------------
    def _from_deal(self, g: dict, f: DealFields, loc: np.ndarray, hands: list[list[int]],
                   pos: np.ndarray, key: Array | None):
        """Gonin fields:

            gonin_kan [players=6] [dealer=<player>] [round=<r>] [seats=<player per seat,...>]
                      [scores=<n ints>] [nijuu=<card>,<JK|poh>] | <seat 0> | <seat 1> | ...

        (hands by SEAT; the 6-player dealer's hand is empty) builds deal 1 of round r: kan
        (KAN-17), the nijū exchange (KAN-18; `nijuu=` gives c, taken from P's hand, and x;
        without it the exchange is drawn from `key`), the seat change (KAN-20); the state is at
        the first IKU/KOI. With `nijuu_kan_redeal` a deal where one hand holds JK and poh is
        replaced by a fresh deal drawn from `key` (KAN-70). Deals 2/3: add `deal=2|3
        kankei=<p>,<p> joker=<p> ace=<p> [rk=<int>] [rm=<int>] [won=<outcome code or
        name>,...]` (deal-1 joker / poh holders; outcomes of the earlier deals of the round):
        the state is at the signal. Defaults: seats identity, dealer the occupant of
        `first_dealer_seat`, round 0, scores 0, rk = rm = 0. Bad fields or values raise
        ValueError naming them."""
        n = self.num_players
        dealer, rnd = int(g["dealer"]), int(g["round"])
        deal_no = f.ints("deal", 1, 1, 3)[0] if "deal" in f else 1
        g["deal"] = deal_no
        entry = np.full(NC, -1, np.int32)
        spare = np.zeros(2, np.uint32)
        if deal_no == 1:
            for k in ("kankei", "joker", "ace", "rk", "rm", "won"):
                if k in f:
                    raise ValueError(f"deal field {k!r} is only for deal=2|3")
            poh = 13 * int(_round_trump(rnd, self.config.n_rounds)) + 12
            holder = int(loc[JK])
            nijuu = loc[poh] == holder
            if "nijuu" in f and (not nijuu or self.config.nijuu_kan_redeal):
                raise ValueError(f"deal field nijuu={f['nijuu']}: no nijū exchange in this deal "
                                 f"(JK and {_TOK.token(poh)} in different hands, or "
                                 "nijuu_kan_redeal)")
            if nijuu and self.config.nijuu_kan_redeal:
                if key is None:
                    raise ValueError("nijuu_kan_redeal: this deal is redealt; pass a key")
                loc, entry, spare = self._shuffle(key, jnp.asarray(g["seat_of"]), dealer)
            elif nijuu:
                partner = int(np.flatnonzero(pos == (pos[holder] + 2) % ACTIVE)[0])
                hand = sorted(hands[partner])
                if "nijuu" in f:
                    toks = f["nijuu"].split(",")
                    if len(toks) != 2:
                        raise ValueError(f"deal field nijuu={f['nijuu']}: want <card>,<JK|poh>")
                    try:
                        c, x = _TOK.card(toks[0]), _TOK.card(toks[1])
                    except cards_mod.CardError as err:
                        raise ValueError(f"deal field nijuu={f['nijuu']}: {err}") from None
                    if c not in hand:
                        raise ValueError(f"deal field nijuu={f['nijuu']}: {toks[0]} is not in "
                                         f"the hand of the partner (player {partner})")
                    if x not in (JK, poh):
                        raise ValueError(f"deal field nijuu={f['nijuu']}: x must be JK or "
                                         f"{_TOK.token(poh)}")
                elif key is None:
                    raise ValueError("this deal needs a nijū exchange: give nijuu=<card>,<JK|"
                                     "poh> or a key")
                else:  # KAN-18 chance event drawn from key
                    k_c, k_x = jax.random.split(key)
                    c = hand[int(jax.random.randint(k_c, (), 0, ks.HAND_SIZE))]
                    x = JK if bool(jax.random.bernoulli(k_x)) else poh
                entry[c] = ks.HAND_SIZE * pos[partner]
                spare[0] = int(x == JK)
        else:
            for k in ("kankei", "joker", "ace"):
                if k not in f:
                    raise ValueError(f"deal={deal_no} needs field {k!r}")
            if "nijuu" in f:
                raise ValueError("deal field 'nijuu' is only for deal 1")
            kk = f.ints("kankei", 2, 0, n - 1)
            jk1, ace1 = f.ints("joker", 1, 0, n - 1)[0], f.ints("ace", 1, 0, n - 1)[0]
            if kk[0] == kk[1] or (n == 6 and dealer in kk):
                raise ValueError(f"deal field kankei={f['kankei']}: want two active players")
            if sorted([jk1, ace1]) != sorted(kk):
                raise ValueError(f"deal fields joker={jk1} ace={ace1}: must be the two kankei "
                                 f"{kk}")
            if (pos[kk[0]] - pos[kk[1]]) % ACTIVE in (1, ACTIVE - 1):
                raise ValueError(f"deal field kankei={f['kankei']}: kankei sit next to each "
                                 "other (KAN-20 separates them in deal 1)")
            won = self._won_outcomes(f, deal_no)
            g.update(kankei=np.isin(np.arange(n), kk), jk1=jk1, ace1=ace1,
                     rk=f.ints("rk", 1)[0] if "rk" in f else 0,
                     rm=f.ints("rm", 1)[0] if "rm" in f else 0,
                     out1=won[0], out2=won[1], out3=won[2])
        return g, loc, entry, spare
