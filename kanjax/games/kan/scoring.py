"""Kan deal scoring as static tables (kan.md §8, KAN-40..KAN-45; Yonin KAN-61; Gambari KAN-68).

Every deal outcome updates the round accumulators `(Rk, Rm)` as
`R := mult * R + add` (an "add" row has mult 1, a "set" row mult 0, a doubled failed gyaku
juuroku mult 2), then the W3 bonus is added when the kankei win deal 3 (KAN-44).
`deal_tables(config)` returns numpy arrays indexed by `[outcome, deal_is_1]`.
"""

from __future__ import annotations

import numpy as np

from kanjax.games.kan import spec as ks

# KAN-41 / KAN-42: event -> (kankei, mukankei).
STANDARD = {
    "W": (1, -1), "L": (-1, 1), "B": (1, -1), "GS1": (-10, 10), "GS23": (-3, 3),
    "JOK": (8, -8), "JF": (-16, 16), "GJOK": (-16, 16), "GJF": (32, -32), "W3": (1, -1),
}
ZERO_SUM_5P = {
    "W": (3, -2), "L": (-3, 2), "B": (3, -2), "GS1": (-12, 8), "GS23": (-6, 4),
    "JOK": (15, -10), "JF": (-30, 20), "GJOK": (-15, 10), "GJF": (30, -20), "W3": (3, -2),
}

# KAN-61: Yonin contract outcome -> ((kankei, mukankei), set?, per deal 1 / deals 2-3 where
# they differ); failures and juuroku successes add, successful gyaku contracts set.
YONIN_CONTRACTS = {
    ks.C_SUKONKU_OK: ((4, -4), False), ks.C_SUKONKU_FAIL: ((-8, 8), False),
    ks.C_JUUROKU_OK: ((16, -16), False), ks.C_JUUROKU_FAIL: ((-32, 32), False),
    ks.C_GYAKU_JUUROKU_OK: ((-32, 32), True), ks.C_GYAKU_JUUROKU_FAIL: ((64, -64), False),
}
YONIN_GYAKU_SUKONKU = {  # by deal_is_1
    ks.C_GYAKU_SUKONKU_OK: {1: ((-20, 20), True), 0: ((-6, 6), True)},
    ks.C_GYAKU_SUKONKU_FAIL: {1: ((40, -40), False), 0: ((12, -12), False)},
}
# KAN-68: Gambari base value v per outcome (from the standard deal-1 entries).
GAMBARI_VALUE = {ks.NORMAL_WIN: 1, ks.NORMAL_LOSS: -1, ks.SUKONKU: 2, ks.GYAKU_SUKONKU: -10}
NUM_OUTCOMES = ks.NUM_OUTCOMES


def _sum(table: dict, *events: str, times: int = 1) -> tuple[int, int]:
    return tuple(times * sum(table[e][i] for e in events) for i in (0, 1))


def deal_tables(config: ks.KanConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(mult int32[O, 2], add int32[O, 2, 2], w3 int32[2], kankei_wins bool[O]), O outcomes.

    `mult[o, d1]`, `add[o, d1] = (k, m)` score outcome `o` in deal 1 (`d1` = 1) or deal 2/3
    (KAN-44); `w3` is the W3 bonus; `kankei_wins[o]` is KAN-34 (False for SHIPPO_VOID).
    Gambari (KAN-68): `(k, m)` is what the lone kankei and each mukankei get for the deal."""
    table = ZERO_SUM_5P if config.scoring == "zero_sum_5p" else STANDARD
    doubling = config.gyaku_juuroku_fail_doubling or config.scoring == "zero_sum_5p"  # KAN-43
    mult = np.ones((NUM_OUTCOMES, 2), np.int32)
    add = np.zeros((NUM_OUTCOMES, 2, 2), np.int32)
    for d1 in (0, 1):
        rows = {
            ks.NORMAL_WIN: (1, _sum(table, "W")),
            ks.NORMAL_LOSS: (1, _sum(table, "L")),
            ks.SUKONKU: (1, _sum(table, "W", "B")),
            ks.GYAKU_SUKONKU: (0, _sum(table, "GS1" if d1 else "GS23")),
            ks.JUUROKU_OK: (1, _sum(table, "W", "JOK")),
            ks.JUUROKU_FAIL: (1, _sum(table, "L", "JF")),
            ks.GYAKU_JUUROKU_OK: (0, _sum(table, "GJOK")),
            # KAN-43: add W, double everything, then add GJF -> 2R + 2W + GJF.
            ks.GYAKU_JUUROKU_FAIL: (2, tuple(
                a + b for a, b in zip(_sum(table, "W", times=2), _sum(table, "GJF"), strict=True)
            )) if doubling else (1, _sum(table, "W", "GJF")),
            ks.SHIPPO_VOID: (1, (0, 0)),  # KAN-71: a void deal scores nothing
        }
        for o, (m, kv) in rows.items():
            mult[o, d1] = m
            add[o, d1] = kv
    if config.variant == "yonin":
        override = config.yonin_contract_round_override  # KAN-78
        for d1 in (0, 1):
            rows = dict(YONIN_CONTRACTS) | {o: v[d1] for o, v in YONIN_GYAKU_SUKONKU.items()}
            for o, (kv, is_set) in rows.items():
                mult[o, d1] = 0 if is_set and override else 1
                add[o, d1] = kv
    if config.variant == "gambari":
        mult[:] = 1
        add[:] = 0
        per_opponent = config.gambari_scoring == "per_opponent"
        for o, v in GAMBARI_VALUE.items():
            add[o, :] = (2 * v if per_opponent else v, -v)
    kankei_wins = np.array([o in ks.KANKEI_WINS for o in range(NUM_OUTCOMES)])
    return mult, add, np.array(table["W3"], np.int32), kankei_wins


def round_bound(config: ks.KanConfig) -> int:
    """The largest |Rk| or |Rm| a round can reach (so every round's reward and, times
    `n_rounds`, every match score is within it): each deal at most multiplies the
    accumulators by its largest |mult| and adds its largest |add| (and W3 in deal 3)."""
    mult, add, w3, _ = deal_tables(config)
    bound = 0
    for deal in range(1, (1 if config.variant == "gambari" else 3) + 1):
        d1 = int(deal == 1)
        bound = int(np.max(np.abs(mult[:, d1]) * bound + np.abs(add[:, d1]).max(axis=1)))
        bound += int(np.abs(w3).max()) if deal == 3 else 0
    return bound


def worst_round(config: ks.KanConfig) -> int:
    """The lowest result a player can get from one round (KAN-14, KAN-40..44): the least
    `Rk` or `Rm` at a round's end over every sequence of deal outcomes the tables score (a
    round ends at a kankei loss or after its last deal; a void deal scores nothing)."""
    mult, add, w3, kankei_wins = deal_tables(config)
    deals = 1 if config.variant == "gambari" else 3
    running, ends = {(0, 0)}, set()
    for deal in range(1, deals + 1):
        d1, nxt = int(deal == 1), set()
        for r in running:
            for o in range(NUM_OUTCOMES):
                if o == ks.SHIPPO_VOID:
                    continue
                new = mult[o, d1] * np.array(r) + add[o, d1] + (deal == 3 and kankei_wins[o]) * w3
                (nxt if kankei_wins[o] and deal < deals else ends).add(tuple(int(x) for x in new))
        running = nxt
    return min(min(r) for r in ends)
