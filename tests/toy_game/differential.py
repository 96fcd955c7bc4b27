"""Toy trick's half of the differential test (`tests.harness.differential`): `ToyRef` from the
engine's deal (the first summary's `hand_owner`), every summary field compared at every step."""

from __future__ import annotations

from tests.toy_game.reference import NUM_CARDS, ToyRef

FIELDS = ("current_player", "hand_owner", "played", "first_leader", "leader", "trick", "led",
          "won")


class ToyAdapter:
    def rare_actions(self, env) -> tuple[int, ...]:
        return ()

    def reference(self, env, first) -> ToyRef:
        owner = first["hand_owner"].tolist()
        return ToyRef([[c for c in range(NUM_CARDS) if owner[c] == p] for p in range(2)],
                      leader=env.config.leader)

    def feed(self, ref: ToyRef, s) -> None:
        pass  # no chance after the deal

    def facts(self, ref: ToyRef) -> dict:
        return ref.summary()

    def compared(self, env) -> tuple[str, ...]:
        return FIELDS

    def final(self, env) -> tuple[str, ...]:
        return FIELDS

    def engine_facts(self, s: dict) -> dict:
        return s


ADAPTER = ToyAdapter()
