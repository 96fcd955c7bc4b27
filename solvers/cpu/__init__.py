"""The CPU backend of the double-dummy solver: a compiled (numba) scalar search, one problem a
thread (`api.solve(..., backend="cpu")`; "auto" picks it on a CPU-only jax for the rules it
supports).

Modules: `backend` (positions in, values out, threads; what it supports and refuses),
`search` (the explicit-stack null-window search and its MTD(f) driver), `table` (the
transposition table with partition search), `bounds` (sure tricks), `ordering` (DDS's move
ordering), `bits` (suit-word helpers).

Supported: plain tricks (`Rules.plain_tricks`: a trick worth 1, no point cards, no joker) at
2..4 seats, one card a play, any sides, roots within a trick, root move limits. Refused, with
a ValueError naming the rule: the joker, point cards, tricks worth more than 1, more than 4
seats (and everything `Rules.limits` names).

numba caches the machine code (`cache=True`, in `__pycache__`): the first call in a fresh
checkout compiles for about half a minute, later processes load it in about a second.
numba checks only the source file of the function it loads, so after editing one of these
modules delete `solvers/cpu/__pycache__/*.nb*` (a stale caller would keep the old callee).
"""
