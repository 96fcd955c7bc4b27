"""Bit helpers for the compiled search: popcount, highest and lowest set bit of a suit word
(at most 16 bits: card ranks 0..15 of one suit), by lookup tables numba freezes into the
compiled code."""

from __future__ import annotations

import numpy as np
from numba import njit

_W = 1 << 16
POP = np.array([bin(x).count("1") for x in range(_W)], np.int64)
TOP = np.array([x.bit_length() - 1 for x in range(_W)], np.int64)  # -1 for 0


@njit(nogil=True, cache=True)
def pop(x):
    return POP[x & 0xFFFF]


@njit(nogil=True, cache=True)
def top(x):
    """The highest set bit's index, -1 for 0."""
    return TOP[x & 0xFFFF]


@njit(nogil=True, cache=True)
def low(x):
    """The lowest set bit's index, -1 for 0."""
    return TOP[(x & -x) & 0xFFFF]


@njit(nogil=True, cache=True)
def above(words, rest):
    """The cards of `words` above every card of `rest` (one suit word each)."""
    shift = top(rest) + 1
    return (words >> shift) << shift


@njit(nogil=True, cache=True)
def closure(w):
    """`w` with every rank above its lowest set bit set too (0 stays 0)."""
    if w == 0:
        return 0
    return ~((w & -w) - 1) & 0xFFFF
