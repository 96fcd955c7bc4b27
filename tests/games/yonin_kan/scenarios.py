"""Scripted Yonin Kan deals shared by the engine and reference tests: tricks as
"P:card ..." strings in play order (see `parse_trick`), the cards each player keeps, bid
sequences."""

from kanjax.games.kan import spec as ks

# ---- scripted deals --------------------------------------------------------------------------
# Deal 1, trump C: kankei P2 (AS, JC) and P0 (JK), opposite; P2 leads AS. Kankei 9, mukankei 0
# after trick 7 (S35 a).
A1 = [
    "2:AS 3:6S 0:7S 1:8S",
    "2:KS 3:9S 0:TS 1:QS",
    "2:AH 3:5H 0:6H 1:7H",
    "2:KH 3:8H 0:9H 1:TH",
    "2:AD 3:5D 0:6D 1:7D",
    "2:KD 3:8D 0:9D 1:TD",
    "2:QH 3:JH 0:6C 1:5C",  # all hearts are out: P0 and P1 trump, P0's 6C wins
]

A1_EXTRA = {0: "JK 7C 8C", 1: "9C TC QC", 2: "JC KC AC", 3: "JD QD JS"}

# Deal 1 (S35 b): a mukankei captures KD in trick 3.
A2 = ["2:AS 3:6S 0:7S 1:8S", "2:KS 3:9S 0:TS 1:QS", "2:5D 3:KD 0:6D 1:7D"]

# Deal 1, trump C, all ten tricks; kankei P1 (JK) and P2 (JC). P1 keeps JK to trick 10, where it
# is the lowest heart (S32 a). Kankei 4, mukankei 12: NORMAL_LOSS.
A3 = [
    "0:AS 1:7S 2:8S 3:9S",
    "0:KS 1:TS 2:JS 3:QS",
    "0:6H 1:AH 2:7H 3:8H",
    "1:KH 2:TH 3:JH 0:QH",
    "1:7D 2:8D 3:AD 0:9D",
    "3:KD 0:TD 1:JD 2:QD",
    "3:AC 0:7C 1:8C 2:9C",
    "3:KC 0:TC 1:QC 2:JC",
    "3:6S 0:6C 1:5D 2:5C",  # P0, P1, P2 void in spades; P0's 6C is the highest trump
    "0:9H 1:JK 2:6D 3:5H",
]

# Deals 2/3 with trump S, chooser P0 (kankei P0, P2): every point card of a suit in one trick.
K4 = ["0:AH 1:KH 2:QH 3:JH", "0:AD 1:KD 2:QD 3:JD", "0:AC 1:KC 2:QC 3:JC",
      "0:AS 1:KS 2:QS 3:JS"]

# ... mukankei P1 takes everything.
M4 = ["0:JH 1:AH 2:KH 3:QH", "1:AD 2:KD 3:QD 0:JD", "1:AC 2:KC 3:QC 0:JC",
      "1:AS 2:KS 3:QS 0:JS"]

# ... a mukankei (P1) / a kankei (P2) takes the first point card.
M_FIRST = ["0:5H 1:AH 2:6H 3:7H"]

K_FIRST = ["0:5H 1:6H 2:AH 3:7H"]

CONTRACT_CASES = [
    # (tricks, declarer, kind, outcome, R after (from R = 2), round continues)
    (K4[:2], 0, "S", ks.C_SUKONKU_OK, 6, True),
    (M_FIRST, 0, "S", ks.C_SUKONKU_FAIL, -6, False),
    (M4[:3], 1, "S", ks.C_GYAKU_SUKONKU_OK, -6, False),  # set
    (K_FIRST, 1, "S", ks.C_GYAKU_SUKONKU_FAIL, 14, True),
    (K4, 0, "A", ks.C_JUUROKU_OK, 18, True),
    (M_FIRST, 0, "A", ks.C_JUUROKU_FAIL, -30, False),
    (M4, 1, "A", ks.C_GYAKU_JUUROKU_OK, -32, False),  # set
    (K_FIRST, 1, "A", ks.C_GYAKU_JUUROKU_FAIL, 66, True),  # no doubling
]
