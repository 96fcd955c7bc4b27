"""Scripted Gambari Kan deals shared by the engine and reference tests: tricks as
"P:card ..." strings in play order (see `parse_trick`), the cards each player keeps, bid
sequences."""

# ---- scripted deals (trump C; after "P P P P K" the kankei is P2 with t = 8, S36) ------------
# Kankei P2 finishes with exactly 8, mukankei 8: NORMAL_WIN (S37).
W8 = [
    "2:AH 0:8H 1:9H",
    "2:KH 0:TH 1:JH",
    "2:QH 0:8D 1:9D",  # P0, P1 void in hearts
    "2:8S 0:AS 1:7S",
    "0:KS 1:9S 2:TS",
    "0:QS 1:JS 2:8C",  # P2 void in spades trumps: kankei 6, mukankei 2
    "2:AC 0:KC 1:9C",  # kankei 8, but the mukankei have 2: no sukonku
    "2:TC 0:QC 1:JC",
    "0:AD 1:JK 2:TD",  # odori ban: P1 must play JK in trick 9; JK wins
    "1:KD 2:JD 0:QD",
]

# The same with JS and 7S exchanged between tricks 4 and 6: kankei finish with 7 (S37).
L7 = W8[:3] + ["2:8S 0:AS 1:JS", "0:KS 1:9S 2:TS", "0:QS 1:7S 2:8C"] + W8[6:]

# Kankei P2 takes 8 while the mukankei have 0: SUKONKU after trick 6 (S37).
SK = [
    "2:AH 0:8H 1:9H",
    "2:KH 0:TH 1:JH",
    "2:QH 0:8D 1:9D",
    "2:AS 0:7S 1:8S",
    "2:KS 0:9S 1:TS",
    "2:QS 0:JS 1:TD",  # P1 void in spades, does not trump
]

SK_EXTRA = {0: "QC KC AC JD", 1: "QD KD AD JK", 2: "8C 9C TC JC"}

# Kankei P1 (bids KAN at t = 3) takes nothing; the mukankei need 17 - 3 = 14.
GS = [
    "1:8H 2:AH 0:KH",
    "2:QH 0:JH 1:9H",
    "2:AD 0:KD 1:8D",
    "2:QD 0:JD 1:9D",  # mukankei 8 (the gyaku target at t = 9, not at t = 3)
    "2:AS 0:KS 1:7S",
    "2:QS 0:JS 1:TH",  # P1 void in spades; mukankei 12
    "2:AC 0:KC 1:8C",  # mukankei 14: GYAKU_SUKONKU
]

GS_EXTRA = {0: "JC TS JK", 1: "9C TC TD", 2: "QC 8S 9S"}

BIDS_T8_P2 = "P P P P K"  # S36

BIDS_T3_P1 = " ".join(["P"] * 18 + ["K"])  # t = 9..4 all passed; P1 first at t = 3
