"""The State/Env contract shared by every kanjax game (pgx conventions).

Each game writes `_init`, `_step` and `_observe`; `Env.step` handles, once for all games,
the three things every game must get right: a terminal state stays put (zero rewards), an
illegal action makes the mover forfeit instead of corrupting the state, and the legal mask
is all-True at terminal states.

Each game also owns its views, which the layers above (records, the CLI, tournaments, the
solvers' conversions, the test harnesses) call instead of naming a game: `summary`,
`render`, `deal_string` / `from_deal`, `deal_facts` / `deal_row` (a tournament's `deals`
rows), `role_names`, `worst_score`, `version`. A turn of several actions is staged
selections closed by a finishing action, with `turn_done` marking the turn's end:
docs/turns.md.
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

from kanjax.core.cards import Deal, Deck
from kanjax.core.jaxutil import Array, tree_where
from kanjax.core.layout import slots
from kanjax.scene import Scene

if typing.TYPE_CHECKING:
    from kanjax.svg import Picture


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
    stochastic_step: ClassVar[bool] = True  # whether `step` may deal cards (needs a key)
    illegal_action_penalty: float = -1.0

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

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self.observation_spec().shape

    def obs_slices(self) -> dict[str, slice]:
        """Field name -> slice of the observation (`observation_spec`)."""
        return self.observation_spec().slices()

    def chance_index(self, state: State) -> Array:
        """Which chance event the next step would draw (the rollout keys chance by it): the
        step count unless a game counts its deals (duplicate play needs deal-keyed chance)."""
        return state.step_count

    def deal_done(self, state: State) -> Array:
        """True when the last step ended a deal (the boundary between deals)."""
        return self._deal_done(state)

    def ended_deal(self, state: State, action: Array) -> State | None:
        """Where `action` at `state` ends a deal that is not the match's last: the state the
        deal ends in, before `step` deals the next one (its last trick whole, its result), for
        views; no player is to act in it (an empty legal mask). None: the game keeps no such
        state (its next deal shows how the last one ended)."""
        return None

    def turn_done(self, state: State) -> Array:
        """True when the last step ended its mover's turn. A turn of several actions (a Da
        Bai Fen multi-card lead, a rummy opening of several melds) is staged selections
        closed by a finishing action; the steps inside it return False. Games whose every
        turn is one action keep this default."""
        return jnp.ones(jnp.shape(state.step_count), jnp.bool_)

    # ---- what each game tells the layers above (records, CLI, tournaments, solvers) ----
    version: ClassVar[str] = "0"  # the engine's version: changes whenever a rule or an
    # encoding does; a tournament's config hash includes it
    role_names: tuple[str, ...] = ()  # the roles a player holds in a deal; `deal_facts`'
    # `role` indexes them, tournament reports name win shares by them
    deal_columns: tuple[tuple[str, str], ...] = ()  # the game's own columns of a
    # tournament's `deals` table, in order: (name, type), type one of int8 int16 int32 int64
    # bool string list<int8>; `deal_row` gives their values
    max_deals: int = 1  # a match never has more deals than this (the tournament's row buffer)
    heuristic: ClassVar[str | None] = None  # "module:factory" of the game's heuristic bot,
    # factory(env) -> policy (`kanjax.bots.make_heuristic`); None: the game has none
    random_bot: ClassVar[str | None] = None  # "module:factory" of the game's random bot (a
    # tournament's kind "random", `kanjax.bots.make_random`); None: `uniform_random`
    card_deck: Deck  # the variant's cards as notation (`kanjax.core.cards.Deck`: ids <-> tokens)
    reads_pbn: ClassVar[bool] = False  # `from_deal` also reads a bridge PBN deal (kanjax.core.pbn)
    card_actions: int = 0  # action ids below this play cards (`kanjax bench` counts plays)
    bench_baseline: ClassVar[tuple[str, str]] = ("oh_hell(players=5,num_tricks_fixed=10)",
                                                 "deals")  # the OpenSpiel game `kanjax bench`
    # compares with, and per what: "deals" (games) or "decisions" per CPU-second
    bench_kernels: ClassVar[str | None] = None  # "module:function" measuring the game's own
    # kernels for `kanjax bench` (function(min_seconds) -> rows with a `kernel` name)

    @property
    def worst_score(self) -> float:
        """The lowest match score a player can end with under this variant (from the game's
        scoring rules; a bound where the exact least is out of reach): a tournament scores a
        forfeit below this, so a forfeit always loses."""
        raise NotImplementedError(f"{self.name}: no worst score")

    def deal_flags(self, deal: Deal) -> dict[str, Any]:
        """The variant flags a deal string's header (`kanjax.core.cards.deal_header`) implies (a
        player count, a deck variant); `kanjax.deal_env` makes the env with them."""
        return {}

    def summary(self, state: State) -> dict[str, Array]:
        """The comparable facts of a state (jittable, batched or not): `common_summary` and
        the game's own; differential tests and records compare them."""
        raise NotImplementedError(f"{self.name}: no summary")

    def render(self, state: State) -> str:
        """A person's view of one (unbatched) state (`kanjax show`)."""
        raise NotImplementedError(f"{self.name}: no text view")

    def scene(self, state: State, player: int | None = None) -> Scene:
        """One (unbatched) state as a `kanjax.scene.Scene`: every hand open (`player=None`)
        or what `observe` gives `player`; the terminal table and the SVG/HTML views draw it."""
        raise NotImplementedError(f"{self.name}: no scene")

    def seats_played_with(self, state: State, player: int) -> tuple[int, ...]:
        """The players whose turns the person in `player`'s seat plays in the match of
        `state` (`kanjax play --human`): his alone, unless the game has one person play
        several hands (whist: bridge's declarer plays the dummy's cards)."""
        return (player,)

    def render_svg(self, state: State, player: int | None = None) -> str:
        """`scene(state, player)` drawn as an SVG document (`kanjax.svg`)."""
        from kanjax.svg import draw

        return draw(self.scene(state, player))

    def picture(self, state: State, player: int | None = None) -> Picture:
        """`render_svg` as a `kanjax.svg.Picture`: shown inline in Jupyter, `save_svg(path)`."""
        from kanjax.svg import Picture

        return Picture(self.render_svg(state, player))

    def status_line(self, state: State, player_name: Callable[[int], str],
                    over: str = "match over", limit: int | None = None) -> str:
        """The closing line of a text view of one state: who is to act and his legal actions
        (the first `limit` of them named), or `over` (and whether an illegal action ended
        it)."""
        if bool(state.terminated | state.truncated):
            return over + ("  (illegal action)" if bool(state.illegal_action) else "")
        legal = [self.action_name(a, state) for a in self.legal_actions(state)]
        shown = ", ".join(legal[:limit])
        if limit is not None and len(legal) > limit:
            shown += f", ... ({len(legal)} in all)"
        return f"to act: {player_name(int(state.current_player))}   legal: {shown}"

    def deal_string(self, state: State) -> str:
        """The hands as they are now (unbatched) as a deal string `from_deal` reads back."""
        raise NotImplementedError(f"{self.name}: no deal strings")

    def deal_facts(self, before: State, after: State) -> dict[str, Array]:
        """The facts of the deal that the step `before` -> `after` finished (jittable,
        unbatched; read only where `deal_done(after)`; `after` may already hold the next
        deal, so facts of the finished deal's start come from `before`): `role`
        int8[num_players] (an index of `role_names`, -1: none), `side` int8[num_players]
        (players of one side played the deal together; -1: no side), `won`
        bool[num_players] (his side won it), `counted` bool (the deal counts in per-deal
        statistics: Kan's void Shippo-Jo deals do not), and the game's own arrays that
        `deal_row` turns into its `deal_columns`. Every value has a fixed shape and dtype."""
        raise NotImplementedError(f"{self.name}: no deal facts")

    def deal_row(self, facts: dict[str, Any]) -> dict[str, Any]:
        """One finished deal's `deal_facts` (numpy, unbatched) as the values of the game's
        `deal_columns` (a dict with exactly those keys; Python values, e.g. outcome names)."""
        raise NotImplementedError(f"{self.name}: no deal rows")

    def deal_rows(self, facts: dict[str, Any]) -> dict[str, Any]:
        """Several finished deals' `deal_facts` (numpy, stacked on a leading axis of deals)
        as the `deal_columns`: name -> one value a deal (a list or a numpy array), the
        values `deal_row` gives; by default `deal_row` deal by deal (a game may do it in
        array operations)."""
        k = len(facts["counted"])
        rows = [self.deal_row({name: v[d] for name, v in facts.items()}) for d in range(k)]
        return {name: [r[name] for r in rows] for name, _ in self.deal_columns}

    def deal_tally(self, before: State, after: State) -> Array:
        """int32 counts of how the deal that the step `before` -> `after` finished ended
        (jittable, unbatched; zeros where no deal ended), summed by `kanjax simulate` and
        read by `tally_report`; the default counts nothing."""
        return jnp.zeros(0, jnp.int32)

    def tally_report(self, tally: np.ndarray, returns: np.ndarray, deals: int) -> dict:
        """`kanjax simulate`'s entries for `deals` finished deals: `tally` the summed
        `deal_tally`, `returns` float[games, num_players] the match scores."""
        return {"deals": deals, "mean_returns": [round(float(x), 3) for x in returns.mean(0)]}

    def tally_lines(self, report: dict) -> list[str]:
        """`tally_report`'s entries as lines of `kanjax simulate`'s text output."""
        return [f"  deals: {report['deals']}; mean returns per player: "
                + " / ".join(f"{x:.2f}" for x in report["mean_returns"])]

    # ---- trick play for the double-dummy solvers (`solvers.convert`) --------------------
    def trick_rules(self, state: State | None = None) -> dict[str, Any]:
        """The trick-play rules as the fields of `solvers.position.Rules` (players in a
        trick, tricks, per card id its suit, rank and points, ...). A game whose rules are
        static ignores `state`; one whose rules are a hand's (Da Bai Fen's trumps and kitty)
        reads them from the unbatched `state` in trick play (ValueError without one)."""
        raise NotImplementedError(f"{self.name}: no double-dummy positions")

    def trick_position(self, state: State) -> dict[str, Any]:
        """One (unbatched) state in trick play as plain data, seats in play order: `players`
        (the player in each seat), `hands` (each seat's cards), `trump` (-1: none), `leader`
        (the current trick's leader's seat), `side` (bool per seat: the side to optimise),
        `trick` (its cards so far, in order), `led` (its led suit, -1 while empty),
        `tricks_done`, `taken` / `taken_other` (what the side / the other side has), `moves`
        (the trick-play moves the legal mask allows); where a play may hold several cards
        (`Rules.cards_a_play`), `play_cards` (the cards of each play in the current trick, 1
        while it is empty; `trick` holds each play's cards together, in id order) and
        `quad_led` (the trick's lead is a four-of-a-kind). ValueError outside trick play."""
        raise ValueError(f"{self.name}: no double-dummy positions")

    def trick_start(self, deal: str, key: Array | None = None, trump: Any = None,
                    leader: Any = None) -> State:
        """The state at the first card of trick 1 of a deal string: `from_deal`, then the
        decisions before trick play taken as the game documents (`trump`, `leader`: the
        choices the rules leave open; ValueError where they fix them otherwise)."""
        raise ValueError(f"{self.name}: no double-dummy positions")

    def trick_choices(self, deal: str, trump: Any = None, leader: Any = None) -> list[dict]:
        """The choices before trick 1 a deal string leaves open that a solver can weigh (each
        as `trick_start`'s `trump` / `leader` keywords; one entry if none is open), such as
        every trump a player may still choose."""
        return [{"trump": trump, "leader": leader}]

    def trick_goals(self, state: State) -> dict[str, tuple[bool, int, int]]:
        """The game's named yes/no questions of trick play from `state` (contracts) as goals:
        name -> (for `trick_position`'s side (True) or the other side, side_min, other_max):
        can that side force, at a trick's end, its total >= side_min while the other's is <=
        other_max (`solvers.position`). Empty where the game has none."""
        return {}

    # ---- the checked Python path ------------------------------------------------------
    def checked_step(self, state: State, action: int | str, key: Array | None = None) -> State:
        """`step` for one (unbatched) state that raises ValueError on an illegal action: one
        not legal now, a name that is not exactly an action's, anything but an integer id."""
        if bool(np.asarray(state.terminated | state.truncated)):
            raise ValueError(f"{self.name}: the match is over; no action can be taken")
        mask = np.asarray(state.legal_action_mask)

        def fault(what: str) -> ValueError:
            legal = [self.action_name(int(a), state) for a in np.flatnonzero(mask)]
            return ValueError(f"{self.name}: {what} for player {int(state.current_player)}; "
                              f"legal: {', '.join(legal)}")

        if isinstance(action, str):
            if action != " ".join(action.split()):
                raise fault(f"bad action name {action!r} (stray spaces)")
            try:
                action = self.action_from_name(action, state)
            except ValueError as err:
                raise fault(str(err)) from None
        value = np.asarray(action)
        if value.ndim or not np.issubdtype(value.dtype, np.integer):
            raise fault(f"bad action {action!r}: want an action id (an integer) or name")
        action = int(value)
        if not (0 <= action < self.num_actions) or not mask[action]:
            raise fault(f"illegal action {action} ({self._safe_name(action, state)})")
        return self.jitted("step")(state, jnp.int32(action), key)

    def legal_actions(self, state: State) -> list[int]:
        """The legal action ids of one (unbatched) state."""
        return [int(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))]

    def _safe_name(self, action: int, state: State | None) -> str:
        try:
            return self.action_name(action, state)
        except (ValueError, IndexError):
            return "out of range"

    def jitted(self, method: str):
        """`jax.jit(getattr(self, method))`, compiled once per env and reused."""
        cache = self.__dict__.setdefault("_jitted", {})
        if method not in cache:
            cache[method] = jax.jit(getattr(self, method))
        return cache[method]

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

    def public_name(self, name: str) -> str:
        """An action's name (`action_name`) as the players other than its mover learn it,
        before a view hides the cards they do not see (`kanjax.view`): the name, unless a
        part of it other than its cards is private."""
        return name

    @abc.abstractmethod
    def action_from_name(self, name: str, state: State | None = None) -> int:
        """The inverse of `action_name`; raises ValueError naming a bad name."""

    @abc.abstractmethod
    def from_deal(self, deal: str, key: Array | None = None) -> State:
        """A state built from a deal string (explicit hands); see the game's docs."""
