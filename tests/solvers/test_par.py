"""Par scores and contracts of bridge deals (`solvers.par`), against DDS's DealerPar through
endplay on the tests' deals, every dealer and vulnerability."""

from __future__ import annotations

import random

import pytest

from solvers.par import Contract, par, score
from tests.solvers.test_solve_cli import SUITS, SUITS_TABLE

EXAMPLE = "N:Q7.KQ.8752.96542 9864.64.AKJ.AKJT 32.JT98732.T93.7 AKJT5.A5.Q64.Q83"
VULS = ("None", "All", "NS", "EW")  # endplay's Vul 0..3
SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def random_pbn(rng: random.Random) -> str:
    ids = list(range(52))
    rng.shuffle(ids)
    hands = [".".join("".join("AKQJT98765432"[12 - r] for r in sorted(
        (c % 13 for c in ids[13 * s:13 * s + 13] if c // 13 == suit), reverse=True))
        for suit in range(4)) for s in range(4)]
    return "N:" + " ".join(hands)


def dds_par(pbn: str) -> tuple[dict, dict]:
    """(the deal's table in `api.dd_tables`' form, {(dealer, vul): (score, contracts)}) from
    DDS (endplay's calc_dd_table and par)."""
    pytest.importorskip("endplay")
    from endplay.dds import calc_dd_table
    from endplay.dds import par as dds
    from endplay.types import Deal, Denom, Player, Vul

    t = calc_dd_table(Deal(pbn))
    table = {name: {seat: t[Denom(k), Player(p)] for p, seat in enumerate("NESW")}
             for name, k in (("NT", 4), ("S", 0), ("H", 1), ("D", 2), ("C", 3))}
    out = {}
    for dealer in range(4):
        for vul in range(4):
            got = dds(t, Vul(vul), Player(dealer))
            out["NESW"[dealer], VULS[vul]] = (got.score, sorted(
                "".join(SYMBOLS.get(ch, ch) for ch in str(c)) for c in got))
    return table, out


DEALS = [EXAMPLE, SUITS] + [random_pbn(random.Random(k)) for k in range(16)]


@pytest.mark.parametrize("pbn", DEALS)
def test_par_equals_dds(pbn):
    table, want = dds_par(pbn)
    for (dealer, vul), (score_ns, contracts) in want.items():
        got = par(table, dealer, vul)
        assert (got.score, sorted(map(str, got.contracts))) == (score_ns, contracts), (
            dealer, vul)


def test_par_of_the_suits_deal():
    """Each seat a whole suit (N spades): N-S make 7S, above E-W's 7H; N-S vulnerable."""
    got = par(SUITS_TABLE, "E", "NS")
    assert got.score == 2210 and [str(c) for c in got.contracts] == ["7SN=", "7SS="]
    assert str(got) == "+2210 7SN= 7SS="
    assert par(SUITS_TABLE, "E", "EW").score == 1510


def test_scores_of_duplicate_bridge():
    assert score(4, "S", 10, False) == 420 and score(4, "S", 11, True) == 650
    assert score(3, "NT", 9, True) == 600 and score(1, "NT", 8, False) == 120
    assert score(7, "NT", 13, True) == 2220 and score(6, "C", 12, False) == 920
    assert score(2, "D", 8, False) == 90 and score(5, "D", 11, False) == 400
    assert score(4, "H", 7, False) == -500 and score(4, "H", 6, True) == -1100
    assert str(Contract(4, "S", "N", True, -2)) == "4SNx-2"


def test_par_errors_name_the_bad_value():
    with pytest.raises(ValueError, match="dealer 'X': want one of N, E, S, W"):
        par(SUITS_TABLE, "X", "None")
    with pytest.raises(ValueError, match="vulnerability 'Al': want one of None, NS, EW, All"):
        par(SUITS_TABLE, "N", "Al")
    with pytest.raises(ValueError, match="strains NT S H D C and declarers N E S W"):
        par({"NT": SUITS_TABLE["NT"]}, "N", "None")
    assert par(SUITS_TABLE, "N", "Both") == par(SUITS_TABLE, "N", "All")  # PBN's aliases
