"""Engine positions for the Conquian scenario tests: a state built from the cards a scenario
names (hands, melds, the stock top first, the exposed card, the dead cards), the rest of the
pack dealt into the stock's bottom or declared dead, then stepped by name."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

import kanjax
from kanjax.api import jitted
from kanjax.games.conquian import engine
from kanjax.games.conquian import spec as cq
from tests.harness.named import legal, play  # noqa: F401 (the scenarios import them here)


def make(**flags) -> engine.ConquianEnv:
    return kanjax.make("conquian", **flags)


def cards(env, text: str) -> list[int]:
    return [env.card_deck.card(t) for t in text.split()]


def position(env, *, hands=("", ""), melds=("", ""), stock: str | None = None, exposed="",
             fresh=True, mover=0, dealer=1, phase=cq.PHASE_FACE, forced=False, refusal=-1,
             picked="", pot=0):
    """The state of a scenario. `stock` (top first) defaults to 19 of the cards not named
    elsewhere; the cards left over are dead. Hands and melds are per seat; `pot` drawn deals
    came before this one in its series."""
    loc = np.full(cq.NUM_CARDS, -1)
    for p in range(2):
        for c in cards(env, hands[p]):
            loc[c] = cq.LOC_HAND + p
        for c in cards(env, melds[p]):
            loc[c] = cq.LOC_MELD + p
    e = cards(env, exposed)
    for c in e:
        loc[c] = cq.LOC_EXPOSED
    rest = [c for c in range(cq.NUM_CARDS) if loc[c] < 0]
    pile = rest[:cq.STOCK_SIZE - 1] if stock is None else cards(env, stock)
    for c in rest:
        loc[c] = cq.LOC_DEAD
    for c in pile:
        loc[c] = cq.LOC_STOCK
    assert len(pile) <= cq.STOCK_SIZE
    turned = cq.STOCK_SIZE - len(pile)
    place = np.full(cq.NUM_CARDS, -1)
    for i, c in enumerate(pile):
        place[c] = 2 * cq.HAND_SIZE + turned + i
    free = iter(range(2 * cq.HAND_SIZE + turned))
    for c in range(cq.NUM_CARDS):
        if place[c] < 0:
            place[c] = next(free)
    sel = np.zeros(cq.NUM_CARDS, bool)
    sel[cards(env, picked)] = True
    g = dict(phase=phase, dealer=dealer, exposed=e[0] if e else -1, fresh=int(fresh),
             forced=int(forced), refusal=refusal, turned=turned, outcome=cq.IN_PLAY,
             winner=-1, turn_done=1, deal_done=0, pot=pot, dealt=pot)
    g = {k: jnp.int32(v) for k, v in g.items()}
    return env._state(jnp.asarray(loc, jnp.int32), jnp.asarray(place, jnp.int32),
                      jnp.asarray(sel), g, jnp.int32(mover))


def summary(env, state) -> dict:
    return {k: np.asarray(v) for k, v in jitted(env, "summary")(state).items()}


def where(env, state, text: str) -> list[int]:
    loc = summary(env, state)["location"]
    return [int(loc[c]) for c in cards(env, text)]
