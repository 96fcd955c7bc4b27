"""Whist's half of the differential test (`tests.harness.differential`): `WhistRef` from the
engine's deal (the hands of the first summary's `hand_owner`), every summary field compared
at every step. No chance after the deal; no rare actions."""

from __future__ import annotations

from kanjax.games.whist.reference import WhistRef

FIELDS = ("current_player", "terminated", "rewards", "hand_owner", "played", "trick_cards",
          "trump", "first_leader", "leader", "trick", "n_played", "led", "tricks", "winners")


class WhistAdapter:
    def rare_actions(self, env) -> tuple[int, ...]:
        return ()

    def reference(self, env, first: dict) -> WhistRef:
        owner = first["hand_owner"].tolist()
        return WhistRef([[c for c in range(52) if owner[c] == p] for p in range(4)],
                        trump=env.config.trump, leader=env.config.leader)

    def feed(self, ref: WhistRef, s: dict) -> None:
        pass

    def facts(self, ref: WhistRef) -> dict:
        return ref.summary() | {"terminal": ref.is_over, "scores": ref.rewards}

    def compared(self, env) -> tuple[str, ...]:
        return FIELDS

    def final(self, env) -> tuple[str, ...]:
        return FIELDS

    def engine_facts(self, s: dict) -> dict:
        return s


ADAPTER = WhistAdapter()
