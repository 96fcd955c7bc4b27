"""Yonin Kan, a.k.a. Damari Kan (4 players): kan.md §10 (KAN-47..KAN-62), with §2-§9 where
unchanged.

Decision order: deal 1 is led by the holder of AS (AC when spades are trump, KAN-53); the
kankei (JK and trump-jack holders, KAN-50/51) are silent until deal 1 ends (KAN-52). Deals
2/3: the chooser names trump seeing only his first three cards (KAN-57), then leads. In trick
1 of every deal each player, until a contract is declared, first chooses contract NONE /
SKUNK / ALL16 (KAN-56), then plays his card. STOP/JUUROKU by the trick winner (KAN-31,
undeclared deals 2/3). The seat change of KAN-55 is made when a won deal 1 ends.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, ObsField
from kanjax.core import trick as trick_kernel
from kanjax.core.deal_fields import DealFields
from kanjax.core.dealing import card_at, player_at
from kanjax.games.kan import spec as ks
from kanjax.games.kan.engine import (
    CARD_IDS,
    CONTRACT,
    DECIDE,
    JK,
    NOT_JK,
    OVER,
    PLAY,
    SUIT,
    TRUMP,
    KanEnv,
    KanState,
    _round_trump,
    action_mask,
)
from kanjax.games.kan.layouts import KanLayouts
from kanjax.games.kan.views import KanViews

AS, AC = 51, 12  # KAN-53


def yonin_joker_ok(t: Array, leading: Array, declared_now: Array, trick1_rule: str) -> Array:
    """Whether a Yonin player holding JK may play it (KAN-54: at any turn of any trick), in
    trick `t` (0..9), given whether he leads and has just declared a contract; KAN-58 in
    trick 1: under "lead" (flag `yonin_joker_trick1_contract`) no JK lead without a contract
    declared at this turn, under "any" no JK at all without one."""
    if trick1_rule == "lead":
        return ~((t == 0) & leading & ~declared_now)
    return (t > 0) | declared_now


def yonin_trick_strength(suit: Array, rank: Array, led: Array, trump: Array, is_jk: Array,
                         trick: Array) -> Array:
    """KAN-27 in tricks 1..9; in trick 10 the JK is the lowest card of the led suit (KAN-54):
    below every other card of it, above the cards of other suits."""
    last = trick == ks.NUM_TRICKS - 1
    return trick_kernel.card_strength(suit, rank, led, trump, is_jk & ~last, is_jk & last)


class YoninKanEnv(KanViews, KanEnv, KanLayouts):
    """Yonin Kan (`yonin_kan`): a whole match of `n_rounds` rounds of 1 to 3 deals."""

    active = 4
    DEAL_FIELDS = KanEnv.DEAL_FIELDS + ("yonin_removed_five", "deal", "kankei", "joker",
                                        "jack", "rk", "rm", "won")

    def __init__(self, config: ks.KanConfig) -> None:
        super().__init__(config)
        # Per round: deal 1: 4 contract decisions + 40 cards; deals 2/3: trump + 4 contract
        # decisions + 40 cards + one STOP/JUUROKU decision.
        self.max_steps = (44 + 2 * 46) * config.n_rounds

    def _deck_flags(self) -> dict:
        return {"yonin_removed_five": self.config.yonin_removed_five}

    # ---- dealing ------------------------------------------------------------------------------
    def _deal_start(
        self, g: dict[str, Array], loc: Array, entry: Array, spare: Array
    ) -> tuple[dict[str, Array], Array, Array]:
        """Deal 1: silent kankei (KAN-50, KAN-51), the AS / AC lead (KAN-53); deals 2/3: the
        trump choice from the first three cards (KAN-57)."""
        players = jnp.arange(self.num_players)
        deal1 = g["deal"] == 1
        pos = g["pos"]
        trump1 = _round_trump(g["round"], self.config.n_rounds)  # KAN-11
        jk_holder, jack_holder = loc[JK], loc[13 * trump1 + 9]
        partner = jnp.where(jk_holder == jack_holder,  # nijō kan: the player opposite
                            player_at(pos, (pos[jk_holder] + 2) % 4), jack_holder)
        first_lead = loc[jnp.where(trump1 == 3, AC, AS)]
        chooser = jnp.where(g["deal"] == 2, g["jk1"], g["ace1"])
        # places 10q, 10q + 1, 10q + 2 of the shuffle: the first three cards dealt to q
        first3 = jnp.stack([card_at(entry, ks.HAND_SIZE * pos[chooser] + i)
                            for i in range(3)])
        g.update(
            kankei=jnp.where(deal1, (players == jk_holder) | (players == partner), g["kankei"]),
            jk1=jnp.where(deal1, jk_holder, g["jk1"]),
            ace1=jnp.where(deal1, jack_holder, g["ace1"]),
            phase=jnp.where(deal1, CONTRACT, TRUMP),
            trump=jnp.where(deal1, trump1, -1),
            leader=jnp.where(deal1, first_lead, chooser),
            first3=jnp.where(deal1, -1, first3),
        )
        return g, loc, jnp.where(deal1, first_lead, chooser)

    def _between_deals(self, new: dict[str, Array], deal1_won: Array) -> None:
        """KAN-55: before deal 2, adjacent kankei are separated (partners sit opposite)."""
        kankei = new["kankei"] > 0
        a = jnp.argmax(kankei)
        b = self.num_players - 1 - jnp.argmax(kankei[::-1])
        self._separate(new, a, b, deal1_won)

    # ---- rules ----------------------------------------------------------------------------------
    def _legal_from(self, g: dict[str, Array], loc: Array, cur: Array) -> Array:
        ph, t, deal = jnp.asarray(g["phase"]), jnp.asarray(g["trick"]), g["deal"]
        leading = jnp.asarray(g["nplayed"]) == 0
        plain = (loc == cur) & NOT_JK
        follow = trick_kernel.follow_mask(plain, SUIT, g["led"])  # KAN-24
        first_lead = (deal == 1) & (t == 0) & leading  # KAN-53: AS (AC) only
        forced = CARD_IDS == jnp.where(g["trump"] == 3, AC, AS)
        cards = jnp.where(leading, jnp.where(first_lead, plain & forced, plain), follow)
        cards = cards & (ph == PLAY)
        jk_ok = yonin_joker_ok(t, leading, g["declarer"] == cur,
                               self.config.yonin_joker_trick1_contract)
        jk = (ph == PLAY) & (loc[JK] == cur) & jk_ok & ~first_lead
        con = ph == CONTRACT
        return action_mask(cards.at[JK].set(jk & ~leading), jk & leading, {
            ks.STOP: (ph == DECIDE, 2),  # 59, 60
            ks.TRUMP: (ph == TRUMP, 4),  # 61..64
            ks.CONTRACT_NONE: (con, 2),  # NONE, SKUNK
            ks.CONTRACT_ALL16: (con & (deal > 1), 1),  # ALL16 only in deals 2/3
        })

    def trick_strength(self, suit: Array, rank: Array, led: Array, trump: Array,
                       is_jk: Array, trick: Array) -> Array:
        return yonin_trick_strength(suit, rank, led, trump, is_jk, trick)

    def _step(self, s: KanState, action: Array, key: Array | None) -> KanState:
        g = self.layout.unpack(s)
        new = dict(g)
        a = action.astype(jnp.int32)
        cur = s.current_player.astype(jnp.int32)
        ph, deal = g["phase"], g["deal"]
        in_con, in_trump = ph == CONTRACT, ph == TRUMP
        in_play, in_dec = ph == PLAY, ph == DECIDE
        kankei = g["kankei"] > 0

        # ---- contract (KAN-56) and trump (KAN-57)
        kind = a - ks.CONTRACT_NONE
        declares = in_con & (kind > 0)
        new["contract"] = jnp.where(declares, kind, g["contract"])
        new["declarer"] = jnp.where(declares, cur, g["declarer"])
        new["trump"] = jnp.where(in_trump, a - ks.TRUMP, g["trump"])

        # ---- trick play (KAN-23..KAN-28, KAN-54)
        loc, complete, winner = self._play(g, new, s._loc, a, cur, in_play)
        new["leader"] = jnp.where(complete, winner, g["leader"])

        # ---- end-of-trick checks (KAN-30): (b) the contract (KAN-60), else (c)-(e)
        pk, pm = new["pk"], new["pm"]
        tgt = jnp.where(deal == 2, 8, 9)  # KAN-48
        contract = g["contract"]
        dk = kankei[jnp.maximum(g["declarer"], 0)]  # the declarer's true team
        mine, theirs = jnp.where(dk, pk, pm), jnp.where(dk, pm, pk)
        goal = jnp.where(contract == ks.ALL16, 16, jnp.where(dk, tgt, 17 - tgt))
        ok = jnp.where(contract == ks.SKUNK,
                       jnp.where(dk, ks.C_SUKONKU_OK, ks.C_GYAKU_SUKONKU_OK),
                       jnp.where(dk, ks.C_JUUROKU_OK, ks.C_GYAKU_JUUROKU_OK))
        by_contract = jnp.where(theirs > 0, ok + 1, jnp.where(mine >= goal, ok, -1))
        out, decide = self._checks(deal, pk, pm, new["trick"], g["declared"], tgt,
                                   decisions=True)
        out = jnp.where(contract > 0, by_contract, out)
        outcome = jnp.where(complete, out, -1)
        to_decide = complete & decide & (contract == 0)
        # STOP / JUUROKU by the trick winner (KAN-31, KAN-59)
        outcome = jnp.where(in_dec & (a == ks.STOP),
                            jnp.where(pm == 0, ks.SUKONKU, ks.GYAKU_SUKONKU), outcome)
        new["declared"] = jnp.where(in_dec & (a == ks.JUUROKU), jnp.where(pm == 0, 1, 2),
                                    g["declared"])

        # ---- next phase and player: contract, trump and decide keep the player
        next_player = self._next_player(g["pos"], cur)
        cur_new = jnp.where(in_play, jnp.where(complete, winner, next_player), cur)
        more_contracts = in_play & (g["trick"] == 0) & ~complete & (contract == 0)
        phase = jnp.where(in_con | in_dec, PLAY, ph)
        phase = jnp.where(in_trump | more_contracts, CONTRACT, phase)
        new["phase"] = jnp.where(to_decide, DECIDE, phase)
        return self._settle(s, g, new, loc, cur_new, outcome, key)

    # ---- observation (KAN-46, KAN-52, KAN-57) -----------------------------------------------
    def _obs_hand(self, g: dict[str, Array], loc: Array, p: Array) -> Array:
        """While trump is chosen the chooser sees only his first three cards, the others
        nothing of their new hands (KAN-57)."""
        first3 = jnp.any(CARD_IDS[:, None] == g["first3"][None, :], axis=1)
        return jnp.where(g["phase"] == TRUMP, first3 & (p == g["leader"]), loc == p)

    def _obs_teams(self, g: dict[str, Array], p: Array) -> tuple[Array, Array]:
        """In deal 1 the teams are secret (KAN-52): p knows only that he is kankei if he was
        dealt JK or the trump jack; team points are hidden (KAN-28)."""
        secret = (g["deal"] == 1) & (g["phase"] != OVER)
        players = jnp.arange(self.num_players)
        own = (players == p) & ((p == g["jk1"]) | (p == g["ace1"]))
        kankei = jnp.where(secret, jnp.where(own, 1, -1), g["kankei"])
        points = jnp.where(secret, -1, jnp.stack([g["pk"], g["pm"]]))
        return kankei, points

    def _obs_extra_fields(self) -> tuple[ObsField, ...]:
        return (ObsField("contract", 2, -1, 3, "the contract (KAN-56): kind 0 none / 1 SKUNK / "
                         "2 ALL16, its declarer (-1)"),)

    def _obs_extra(self, g: dict[str, Array]) -> dict[str, Array]:
        return {"contract": jnp.stack([g["contract"], g["declarer"]])}

    # ---- deal strings ----------------------------------------------------------------------------
    def _from_deal(self, g: dict, f: DealFields, loc: np.ndarray, hands: list[list[int]],
                   pos: np.ndarray, key: Array | None):
        """Yonin fields:

            yonin_kan [yonin_removed_five=S|C] [dealer=<player>] [round=<r>]
                      [seats=<player per seat,...>] [scores=<4 ints>] | <seat 0> | ... | <seat 3>

        builds deal 1 of round r (the state is at the first contract decision of the AS / AC
        holder). Deals 2/3: add `deal=2|3 kankei=<p>,<p> joker=<p> jack=<p> [rk=<int>]
        [rm=<int>] [won=<outcome code or name>,...]` (the deal-1 joker and trump-jack holders;
        the same player for nijō kan): the state is at the trump choice, and the first three
        cards written in the chooser's hand are the three he has seen (KAN-57)."""
        n = self.num_players
        if "yonin_removed_five" in f and f["yonin_removed_five"] != self.config.yonin_removed_five:
            raise ValueError(f"deal field yonin_removed_five={f['yonin_removed_five']}: this env "
                             f"has yonin_removed_five={self.config.yonin_removed_five}")
        deal_no = f.ints("deal", 1, 1, 3)[0] if "deal" in f else 1
        g["deal"] = deal_no
        entry = np.full(len(loc), -1, np.int32)
        if deal_no == 1:
            for k in ("kankei", "joker", "jack", "rk", "rm", "won"):
                if k in f:
                    raise ValueError(f"deal field {k!r} is only for deal=2|3")
        else:
            for k in ("kankei", "joker", "jack"):
                if k not in f:
                    raise ValueError(f"deal={deal_no} needs field {k!r}")
            kk = f.ints("kankei", 2, 0, n - 1)
            jk1, jack1 = f.ints("joker", 1, 0, n - 1)[0], f.ints("jack", 1, 0, n - 1)[0]
            if kk[0] == kk[1] or not {jk1, jack1} <= set(kk):
                raise ValueError(f"deal fields kankei={f['kankei']} joker={jk1} jack={jack1}: "
                                 "want two kankei, among them the joker and jack holders")
            if (pos[kk[0]] - pos[kk[1]]) % 4 != 2:
                raise ValueError(f"deal field kankei={f['kankei']}: the kankei must sit "
                                 "opposite in deals 2 and 3 (KAN-55)")
            chooser = jk1 if deal_no == 2 else jack1
            for i, c in enumerate(hands[chooser][:3]):
                entry[c] = ks.HAND_SIZE * pos[chooser] + i
            won = self._won_outcomes(f, deal_no)
            g.update(kankei=np.isin(np.arange(n), kk), jk1=jk1, ace1=jack1,
                     rk=f.ints("rk", 1)[0] if "rk" in f else 0,
                     rm=f.ints("rm", 1)[0] if "rm" in f else 0,
                     out1=won[0], out2=won[1], out3=won[2])
        return g, loc, entry, np.zeros(2, np.uint32)
