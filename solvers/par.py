"""Par: the result of a bridge deal when both sides bid perfectly, knowing its double-dummy
table (DDS's DealerPar; endplay's `par`).

The table is `api.dd_tables`'s: `table[strain][declarer]`, the declarer's tricks, strains
"NT" "S" "H" "D" "C" and declarers "N" "E" "S" "W". With the dealer (who bids first) and the
vulnerability (PBN's `Vulnerable` tag: None, NS, EW or All), the auction is searched to the
end: a side bids any contract above the last one (its better declarer in the strain
playing it), or passes; a contract that goes down is doubled, one that makes is not; the
side to act weighs every bid by the auction's outcome after it, its opponents doing the
same, and four passes end a deal unplayed (0). The par score is that outcome, for N-S.

The par contracts are the contracts an auction so bid may end in: each scores the par score,
and every bid above it is worse for its declarer's opponents. A contract is named by level,
strain, declarer, `x` when doubled and its result (`=`, `+1`, `-2`), the lowest level of its
strain and declarer given (`4SN+1` rather than `5SN=`), as DDS writes them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping

SEATS = "NESW"
STRAINS = ("C", "D", "H", "S", "NT")  # in bidding order
VULNERABLE = {"None": (False, False), "NS": (True, False), "EW": (False, True),
              "All": (True, True)}  # PBN's values -> (N-S vulnerable, E-W vulnerable)
VUL_ALIASES = {"Love": "None", "-": "None", "Both": "All"}  # PBN 2.1's other spellings
DOWN_DOUBLED = ((100, 300, 500), (200, 500, 800))  # the first three tricks down; then 300 each
BIDS = 35  # 1C .. 7NT


def vulnerability(vul: str) -> tuple[bool, bool]:
    """PBN's `Vulnerable` value -> (N-S vulnerable, E-W vulnerable); ValueError naming it."""
    key = VUL_ALIASES.get(vul, vul)
    if key not in VULNERABLE:
        raise ValueError(f"vulnerability {vul!r}: want one of "
                         f"{', '.join([*VULNERABLE, *VUL_ALIASES])}")
    return VULNERABLE[key]


def score(level: int, strain: str, tricks: int, vulnerable: bool) -> int:
    """Duplicate bridge's score for the declarer of `level` `strain` taking `tricks`: made
    undoubled, or down doubled (par's contracts)."""
    down = level + 6 - tricks
    if down > 0:
        first = DOWN_DOUBLED[vulnerable]
        return -(first[down - 1] if down <= 3 else first[2] + 300 * (down - 3))
    per = 20 if strain in "CD" else 30
    below = per * level + (10 if strain == "NT" else 0)
    out = below + per * (tricks - 6 - level)
    out += (500 if vulnerable else 300) if below >= 100 else 50
    if level >= 6:
        out += (750 if vulnerable else 500) if level == 6 else (1500 if vulnerable else 1000)
    return out


@dataclasses.dataclass(frozen=True)
class Contract:
    """A par contract: `level` 1..7, `strain` (STRAINS), `declarer` (a seat letter),
    `doubled` (it goes down), `result` (tricks over the contract, negative: down)."""

    level: int
    strain: str
    declarer: str
    doubled: bool
    result: int

    def __str__(self) -> str:
        result = "=" if self.result == 0 else f"{self.result:+d}"
        return f"{self.level}{self.strain}{self.declarer}{'x' if self.doubled else ''}{result}"


@dataclasses.dataclass(frozen=True)
class Par:
    """The par score (for N-S) and the par contracts (`Contract`), by bid, then declarer."""

    score: int
    contracts: tuple[Contract, ...]

    def __str__(self) -> str:
        return f"{self.score:+d} " + " ".join(map(str, self.contracts)) if self.contracts \
            else "0 (passed out)"


def par(table: Mapping[str, Mapping[str, int]], dealer: str = "N", vul: str = "None") -> Par:
    """The par score and contracts of a deal's double-dummy table (`api.dd_tables`' form),
    `dealer` a seat letter, `vul` PBN's vulnerability (None NS EW All). ValueError for a
    table of other strains or seats, or tricks outside 0..13."""
    if dealer not in SEATS or len(dealer) != 1:
        raise ValueError(f"dealer {dealer!r}: want one of {', '.join(SEATS)}")
    vulnerable = vulnerability(vul)
    if set(table) != set(STRAINS) or any(set(row) != set(SEATS) or not all(
            0 <= t <= 13 for t in row.values()) for row in table.values()):
        raise ValueError("a par score wants a double-dummy table of strains NT S H D C and "
                         "declarers N E S W, tricks 0..13")
    tricks = tuple(tuple(int(table[s][seat]) for seat in SEATS) for s in STRAINS)
    return _par(tricks, SEATS.index(dealer) % 2, vulnerable)


def _declarer(tricks: tuple, strain: int, side: int) -> int:
    """The seat of `side` (0 N-S, 1 E-W) taking the more tricks in `strain` (the first of
    equals)."""
    a, b = side, side + 2
    return b if tricks[strain][b] > tricks[strain][a] else a


@functools.cache
def _par(tricks: tuple, first: int, vulnerable: tuple[bool, bool]) -> Par:
    """`par` on tricks[strain][seat] (STRAINS, SEATS order); `first` the dealer's side."""
    def ns(bid: int, side: int) -> int:
        """N-S's score of `bid` played by `side`'s better declarer."""
        level, strain = bid // 5 + 1, bid % 5
        got = score(level, STRAINS[strain], tricks[strain][_declarer(tricks, strain, side)],
                    vulnerable[side])
        return got if side == 0 else -got

    def better(side: int, a: int, b: int) -> int:  # the outcome `side` prefers
        return max(a, b) if side == 0 else min(a, b)

    # after[bid][side]: the outcome when `side` has just bid `bid` and the others act: pass,
    # or their best bid above it; above[bid][side]: `side`'s best outcome bidding above `bid`
    after = [[0, 0] for _ in range(BIDS)]
    above = [[None, None] for _ in range(BIDS + 1)]
    for bid in range(BIDS - 1, -1, -1):
        for side in (0, 1):
            other = 1 - side
            over = above[bid + 1][other]
            after[bid][side] = ns(bid, side) if over is None else better(
                other, ns(bid, side), over)
        for side in (0, 1):
            here, over = after[bid][side], above[bid + 1][side]
            above[bid][side] = here if over is None else better(side, here, over)
    second = 1 - first  # four passes: the dealer's side, the other, then each again
    result = better(first, above[0][first], better(second, above[0][second], 0))
    contracts = []
    for side in (0, 1):
        for strain in range(5):
            for seat in (side, side + 2):
                for bid in range(strain, BIDS, 5):
                    level = bid // 5 + 1
                    got = score(level, STRAINS[strain], tricks[strain][seat],
                                vulnerable[side])
                    over = above[bid + 1][1 - side]
                    if (got if side == 0 else -got) == result and (
                            over is None or better(1 - side, over, result) == result != over):
                        contracts.append((bid, seat, Contract(
                            level, STRAINS[strain], SEATS[seat], got < 0,
                            tricks[strain][seat] - 6 - level)))
                        break
    return Par(result, tuple(c for _, _, c in sorted(contracts, key=lambda x: x[:2])))
