"""The State/Env contract shared by every kanjax game (pgx conventions).

Each game writes `_init`, `_step` and `_observe`; `Env.step` handles, once for all games,
the three things every game must get right: a terminal state stays put (zero rewards), an
illegal action makes the mover forfeit instead of corrupting the state, and the legal mask
is all-True at terminal states.

`Env` is the core every game has (pgx-sized: the jittable `init`, `step`, `step_batch`,
`observe`, the observation spec, action names both ways, `from_deal`, deal and turn
boundaries, the chance index, the version). What else a game offers (views, tournament
views, bots, benchmarks, trick play for the solvers, ...) it declares as capabilities,
`kanjax.capabilities`. A turn of several actions is staged selections closed by a finishing
action, with `turn_done` marking the turn's end: docs/turns.md. `legal_actions`,
`checked_step` and `jitted` are the Python path's helpers over one (unbatched) state.
"""

from __future__ import annotations

import abc
import dataclasses
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.core.jaxutil import Array, tree_where
from kanjax.core.layout import slots

if typing.TYPE_CHECKING:
    pass


def register_state(cls: type) -> type:
    """Make a frozen dataclass a pytree whose every field is data (an array)."""
    fields = [f.name for f in dataclasses.fields(cls)]
    return jax.tree_util.register_dataclass(cls, data_fields=fields, meta_fields=[])


@dataclasses.dataclass(frozen=True)
class State:
    """Fields every game state has; games subclass it with their own private `_fields`.

    current_player: int8, the player (not seat) to act; -1 at terminal states.
    legal_action_mask: bool[num_actions]; all True at terminal states.
    rewards: float32[num_players], what this step paid; summed over a match = match scores.
    terminated / truncated: bool; truncated means the step bound was hit.
    illegal_action: bool, the match ended because the mover chose an illegal action.
    step_count: int32, actions taken so far.
    """

    current_player: Array
    legal_action_mask: Array
    rewards: Array
    terminated: Array
    truncated: Array
    illegal_action: Array
    step_count: Array

    def replace(self, **changes: Any) -> State:
        return dataclasses.replace(self, **changes)


FLAG_TYPES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def check_flag_types(config: Any) -> None:
    """ValueError naming the first field of a config dataclass (a game's variant flags) whose
    value is not of the field's type (`FLAG_TYPES`; an integer is a number, true/false is
    neither). Games call it first thing in their config's checks."""
    hints = typing.get_type_hints(type(config))
    for field in dataclasses.fields(config):
        want, value = hints[field.name], getattr(config, field.name)
        kinds = (int, float) if want is float else (want,)
        if want in FLAG_TYPES and (not isinstance(value, kinds) or (
                want is not bool and isinstance(value, bool))):
            raise ValueError(f"{field.name}={value!r}: must be {FLAG_TYPES[want]}")


def check_flag_keys(game: str, flags: dict[str, Any], valid: Iterable[str]) -> None:
    """ValueError naming the first of `flags` that is not one of the game's `valid` keys."""
    valid = list(valid)
    for flag in flags:
        if flag not in valid:
            raise ValueError(
                f"unknown config key {flag!r} for {game}; valid keys: {', '.join(valid)}")


def common_summary(state: State) -> dict[str, Array]:
    """The facts every game's `summary` starts with (jittable, vmappable)."""
    return {
        "current_player": state.current_player.astype(jnp.int8),
        "legal_action_mask": state.legal_action_mask,
        "rewards": state.rewards,
        "terminated": state.terminated,
    }


@dataclasses.dataclass(frozen=True)
class ObsField:
    """One field of an observation: `size` integers, each in `low`..`high`."""

    name: str
    size: int
    low: int
    high: int
    meaning: str


@dataclasses.dataclass(frozen=True)
class ObservationSpec:
    """An observation's layout: its fields, in order, in one flat integer array a network can
    use as it is. The shape is the fields' total size; the dtype is int16 where every bound
    fits in it, else int32."""

    fields: tuple[ObsField, ...]

    @property
    def shape(self) -> tuple[int]:
        return (sum(f.size for f in self.fields),)

    @property
    def dtype(self) -> np.dtype:
        fits = all(-(2 ** 15) <= f.low <= f.high < 2 ** 15 for f in self.fields)
        return np.dtype(np.int16 if fits else np.int32)

    def slices(self) -> dict[str, slice]:
        """Field name -> slice of the observation."""
        return slots((f.name, f.size) for f in self.fields)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high): int64[shape] bounds of every element."""
        return tuple(np.concatenate([np.full(f.size, getattr(f, b), np.int64)
                                     for f in self.fields]) for b in ("low", "high"))

    def assemble(self, values: Mapping[str, Array]) -> Array:
        """The observation of the field values `values` (name -> array of `size` elements,
        any shape and integer or bool dtype), in the spec's order and dtype (jittable)."""
        parts = []
        for f in self.fields:
            x = jnp.asarray(values[f.name]).reshape(-1)
            if x.shape != (f.size,):
                raise ValueError(f"observation field {f.name!r}: {x.shape[0]} values, want "
                                 f"{f.size}")
            parts.append(x.astype(self.dtype))
        return jnp.concatenate(parts)


class Env(abc.ABC):
    """A game: pure, jittable `init`, `step` and `observe` over a static config."""

    name: ClassVar[str]
    num_players: int
    num_actions: int
    max_steps: int  # a match never takes more steps than this; reaching it truncates
    config: Any = None  # the variant's static flags (a hashable dataclass); None: no flags
    version: ClassVar[str] = "0"  # changes whenever a rule or an encoding does (a
    # tournament's config hash includes it)
    stochastic_step: ClassVar[bool] = True  # whether `step` may deal cards (needs a key)
    illegal_action_penalty: float = -1.0  # the mover's reward for an illegal action

    # ---- the jittable API -------------------------------------------------------------
    def init(self, key: Array) -> State:
        """A new match, shuffled and dealt from `key`."""
        return self._init(key)

    def step(self, state: State, action: Array, key: Array | None = None) -> State:
        """Apply `action` for `state.current_player`; `key` drives any chance in the step."""
        if key is None:
            if self.stochastic_step:
                raise ValueError(
                    f"{self.name}.step needs a PRNG key: new deals are shuffled inside step"
                )
            key = jax.random.PRNGKey(0)
        return self._template(state, action, key)[0]

    def step_batch(self, states: State, actions: Array, keys: Array) -> State:
        """`step` over a batch (leading axis B of `states`, `actions`, `keys`): exactly
        `jax.vmap(self.step)(states, actions, keys)`, bit for bit. A game may override it
        with a faster batched form (Kan deals new cards only in the lanes that need them)."""
        return jax.vmap(self.step)(states, actions, keys)

    def _template(self, state: State, action: Array, key: Array | None) -> tuple[State, Array]:
        """The shared step template around the game's `_step` (which gets `key`): terminal
        states stay put, an illegal action forfeits, the step bound truncates. Returns the
        next state and whether it is the game's own step (the action legal, the match not
        over)."""
        action = jnp.asarray(action, jnp.int32)
        in_range = (action >= 0) & (action < self.num_actions)
        legal = in_range & state.legal_action_mask[jnp.clip(action, 0, self.num_actions - 1)]
        done = state.terminated | state.truncated

        moved = self._step(state, jnp.clip(action, 0, self.num_actions - 1), key)
        moved = moved.replace(step_count=state.step_count + 1)
        moved = moved.replace(truncated=moved.truncated | (~moved.terminated & (
            moved.step_count >= self.max_steps)))
        nxt = tree_where(legal, moved, self._forfeit(state))
        nxt = tree_where(done, state.replace(rewards=jnp.zeros_like(state.rewards)), nxt)
        return self._seal(nxt), legal & ~done

    @staticmethod
    def _seal(state: State) -> State:
        """At a terminal (or truncated) state: the all-True legal mask and no player."""
        end = state.terminated | state.truncated
        return state.replace(
            legal_action_mask=state.legal_action_mask | end,
            current_player=jnp.where(end, jnp.int8(-1), state.current_player).astype(jnp.int8),
        )

    def observe(self, state: State, player: Array) -> Array:
        """What `player` may know of `state` (never stored in State): a flat integer array laid
        out as `observation_spec()` says, every element within its field's bounds."""
        return self._observe(state, jnp.asarray(player, jnp.int32))

    @abc.abstractmethod
    def observation_spec(self) -> ObservationSpec:
        """The layout, bounds and dtype of `observe`'s arrays (static for an env)."""

    def chance_index(self, state: State) -> Array:
        """Which chance event the next step would draw (the rollout keys chance by it): the
        step count unless a game counts its deals (duplicate play needs deal-keyed chance)."""
        return state.step_count

    def deal_done(self, state: State) -> Array:
        """True when the last step ended a deal (the boundary between deals)."""
        return self._deal_done(state)

    def turn_done(self, state: State) -> Array:
        """True when the last step ended its mover's turn. A turn of several actions (a Da
        Bai Fen multi-card lead, a rummy opening of several melds) is staged selections
        closed by a finishing action; the steps inside it return False. Games whose every
        turn is one action keep this default."""
        return jnp.ones(jnp.shape(state.step_count), jnp.bool_)

    def _forfeit(self, state: State) -> State:
        """The mover chose an illegal action: the match ends, the mover pays the penalty and
        the others share its opposite (zero-sum)."""
        n = self.num_players
        mover = jax.nn.one_hot(state.current_player, n, dtype=jnp.float32)
        pen = jnp.float32(self.illegal_action_penalty)
        rewards = mover * pen - (1.0 - mover) * pen / (n - 1)
        return state.replace(
            rewards=rewards,
            terminated=jnp.bool_(True),
            illegal_action=jnp.bool_(True),
            step_count=state.step_count + 1,
        )

    # ---- what each game writes ---------------------------------------------------------
    @abc.abstractmethod
    def _init(self, key: Array) -> State: ...

    @abc.abstractmethod
    def _step(self, state: State, action: Array, key: Array) -> State: ...

    @abc.abstractmethod
    def _observe(self, state: State, player: Array) -> Array: ...

    @abc.abstractmethod
    def _deal_done(self, state: State) -> Array: ...

    @abc.abstractmethod
    def action_name(self, action: int, state: State | None = None) -> str:
        """A person's name for `action`; with `state`, hand-relative actions name cards."""

    @abc.abstractmethod
    def action_from_name(self, name: str, state: State | None = None) -> int:
        """The inverse of `action_name`; raises ValueError naming a bad name."""

    @abc.abstractmethod
    def from_deal(self, deal: str, key: Array | None = None) -> State:
        """A state built from a deal string (explicit hands); see the game's docs."""


# ---- the checked Python path: one (unbatched) state at a time --------------------------
def legal_actions(state: State) -> list[int]:
    """The legal action ids of one (unbatched) state."""
    return [int(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))]


def jitted(env: Env, method: str) -> Callable:
    """`jax.jit(getattr(env, method))`, compiled once per env and reused."""
    cache = env.__dict__.setdefault("_jitted", {})
    if method not in cache:
        cache[method] = jax.jit(getattr(env, method))
    return cache[method]


def checked_step(env: Env, state: State, action: int | str, key: Array | None = None) -> State:
    """`env.step` for one (unbatched) state that raises ValueError on an illegal action: one
    not legal now, a name that is not exactly an action's, anything but an integer id."""
    if bool(np.asarray(state.terminated | state.truncated)):
        raise ValueError(f"{env.name}: the match is over; no action can be taken")
    mask = np.asarray(state.legal_action_mask)

    def fault(what: str) -> ValueError:
        legal = [env.action_name(int(a), state) for a in np.flatnonzero(mask)]
        return ValueError(f"{env.name}: {what} for player {int(state.current_player)}; "
                          f"legal: {', '.join(legal)}")

    if isinstance(action, str):
        if action != " ".join(action.split()):
            raise fault(f"bad action name {action!r} (stray spaces)")
        try:
            action = env.action_from_name(action, state)
        except ValueError as err:
            raise fault(str(err)) from None
    value = np.asarray(action)
    if value.ndim or not np.issubdtype(value.dtype, np.integer):
        raise fault(f"bad action {action!r}: want an action id (an integer) or name")
    action = int(value)
    if not (0 <= action < env.num_actions) or not mask[action]:
        raise fault(f"illegal action {action} ({_safe_name(env, action, state)})")
    return jitted(env, "step")(state, jnp.int32(action), key)


def _safe_name(env: Env, action: int, state: State | None) -> str:
    try:
        return env.action_name(action, state)
    except (ValueError, IndexError):
        return "out of range"
