"""The CPU backend of the double-dummy solver: a compiled (numba) scalar search, one problem a
thread (`api.solve(..., backend="cpu")`, `api.reaches`, `api.named_goals`; "auto" picks it on
a CPU-only jax for the rules it supports). `solvers.pimc` solves its layouts with it on a CPU.

Modules: `backend` (positions and goals in, values out, threads; what it supports and
refuses; its move generator for checks against the engines), `search` (the explicit-stack
null-window search and its MTD(f) driver; the rules as data), `table` (the transposition
table with partition search), `bounds` (sure tricks, and sure points of point-card rules),
`ordering` (DDS's move ordering; a generic one for other seat counts, points and the joker),
`bits` (suit-word helpers), `multi` (the search for plays of several cards: Da Bai Fen's trick
play, DBF-20..30, a play as a card mask; `api.solve` sends such positions there).

Supported: every rule `Rules` describes within the solvers' limits, at 2..6 seats, one card a
play: plain tricks (bridge's card play) and point-card tricks with a joker (the Kan rules):
point cards (KAN-3), tricks of any value, the joker (when it may be
played, KAN-25 / KAN-54; its lead naming a suit, KAN-26; its power, KAN-27, and the low joker
of Yonin's last trick, KAN-54), any sides, roots within a trick, root move limits, and goals
(the kankei's target, KAN-29; sukonku and juuroku, KAN-31 / KAN-32). Refused, with a ValueError
naming the rule: more than 6 seats and everything `Rules.limits` names (Da Bai Fen's
multi-card plays among them, which `multi` searches instead: everything but Dun quads, V8).

numba caches the machine code (`cache=True`, in `__pycache__`): the first call in a fresh
checkout compiles it, later processes load it from there. numba checks only the source file of
the function it loads, so after editing one of these modules delete
`solvers/cpu/__pycache__/*.nb*` (a stale caller would keep the old callee).
"""
