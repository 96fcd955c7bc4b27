"""What a game offers beyond the `kanjax.api.Env` core, as named capabilities.

Each capability is an abstract class that a game's Env mixes in: its abstract members are
what the game must write, the rest have defaults. The layers above test for a capability by
type (`isinstance(env, TrickPlay)`), never by probing for attributes. `CAPABILITIES` lists
them in the order `kanjax games` prints its table.

- `Views` (every game): notation and pictures: the text view, the scene the terminal and
  the SVG/HTML views draw, deal strings, the comparable facts of a state.
- `TournamentViews` (every game): what a tournament records and reports of each deal.
- `Bots` (every game): the game's heuristic bot and its random bot.
- `Benchmarked` (every game): what `kanjax bench` compares the game with and counts.
- `TrickPlay`: trick play as data for the double-dummy solvers (`solvers.convert`).
- `InformationSets`: deals consistent with what a player has seen, for PIMC bots.
- `PbnDeals`: bridge PBN deals, read by `from_deal` and written by `pbn`.
"""

from __future__ import annotations

import abc
import typing
from collections.abc import Callable
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np

from kanjax.api import Array, State, legal_actions

if typing.TYPE_CHECKING:
    from kanjax.core.cards import Deal, Deck
    from kanjax.scene import Scene
    from kanjax.svg import Picture


class Views(abc.ABC):
    """Notation and pictures of a game's states (`kanjax show`, `kanjax play`, records)."""

    card_deck: Deck  # the variant's cards as notation (ids <-> tokens)

    @abc.abstractmethod
    def summary(self, state: State) -> dict[str, Array]:
        """The comparable facts of a state (jittable, batched or not): `common_summary` and
        the game's own; differential tests and records compare them."""

    @abc.abstractmethod
    def render(self, state: State) -> str:
        """A person's view of one (unbatched) state (`kanjax show`)."""

    @abc.abstractmethod
    def scene(self, state: State, player: int | None = None) -> Scene:
        """One (unbatched) state as a `kanjax.scene.Scene`: every hand open (`player=None`)
        or what `observe` gives `player`; the terminal table and the SVG/HTML views draw it."""

    @abc.abstractmethod
    def deal_string(self, state: State) -> str:
        """The hands as they are now (unbatched) as a deal string `from_deal` reads back."""

    def deal_flags(self, deal: Deal) -> dict[str, Any]:
        """The variant flags a deal string's header (`kanjax.core.cards.deal_header`) implies (a
        player count, a deck variant); `kanjax.deal_env` makes the env with them."""
        return {}

    def public_name(self, name: str) -> str:
        """An action's name (`action_name`) as the players other than its mover learn it,
        before a view hides the cards they do not see (`kanjax.view`): the name, unless a
        part of it other than its cards is private."""
        return name

    def seats_played_with(self, state: State, player: int) -> tuple[int, ...]:
        """The players whose turns the person in `player`'s seat plays (`kanjax play
        --human`): his alone, unless one person plays several hands (bridge's declarer plays
        the dummy's cards)."""
        return (player,)

    def ended_deal(self, state: State, action: Array) -> State | None:
        """Where `action` at `state` ends a deal that is not the match's last: the state the
        deal ends in, before `step` deals the next one (its last trick whole, its result), for
        views; no player is to act in it (an empty legal mask). None: the game keeps no such
        state (its next deal shows how the last one ended)."""
        return None

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
        legal = [self.action_name(a, state) for a in legal_actions(state)]
        shown = ", ".join(legal[:limit])
        if limit is not None and len(legal) > limit:
            shown += f", ... ({len(legal)} in all)"
        return f"to act: {player_name(int(state.current_player))}   legal: {shown}"


class TournamentViews(abc.ABC):
    """What a tournament records of each deal and reports (`tournaments`, `kanjax
    simulate`)."""

    role_names: tuple[str, ...] = ()  # the roles a player holds in a deal; `deal_facts`'
    # `role` indexes them, tournament reports name win shares by them
    deal_columns: tuple[tuple[str, str], ...] = ()  # the game's own columns of a
    # tournament's `deals` table, in order: (name, type), type one of int8 int16 int32 int64
    # bool string list<int8>; `deal_row` gives their values
    max_deals: int = 1  # a match never has more deals than this (the tournament's row buffer)

    @property
    @abc.abstractmethod
    def worst_score(self) -> float:
        """The lowest match score a player can end with under this variant (from the game's
        scoring rules; a bound where the exact least is out of reach): a tournament scores a
        forfeit below this, so a forfeit always loses."""

    @abc.abstractmethod
    def deal_facts(self, before: State, after: State) -> dict[str, Array]:
        """The facts of the deal that the step `before` -> `after` finished (jittable,
        unbatched; read only where `deal_done(after)`; `after` may already hold the next
        deal, so facts of the finished deal's start come from `before`): `role`
        int8[num_players] (an index of `role_names`, -1: none), `side` int8[num_players]
        (players of one side played the deal together; -1: no side), `won`
        bool[num_players] (his side won it), `counted` bool (the deal counts in per-deal
        statistics; a game may leave out deals that were void), and the game's own arrays
        that `deal_row` turns into its `deal_columns`. Every value has a fixed shape and
        dtype."""

    @abc.abstractmethod
    def deal_row(self, facts: dict[str, Any]) -> dict[str, Any]:
        """One finished deal's `deal_facts` (numpy, unbatched) as the values of the game's
        `deal_columns` (a dict with exactly those keys; Python values, e.g. outcome names)."""

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


class Bots(abc.ABC):
    """The game's own bots (`kanjax.bots`): each a "module:factory" whose factory(env)
    returns a policy."""

    heuristic: ClassVar[str]  # the heuristic bot (`kanjax.bots.make_heuristic`)
    random_bot: ClassVar[str | None] = None  # the random bot (a tournament's kind "random");
    # None: `kanjax.bots.uniform_random`


class Benchmarked(abc.ABC):
    """What `kanjax bench` compares the game with and counts."""

    bench_baseline: ClassVar[tuple[str, str]]  # the OpenSpiel game `kanjax bench` compares
    # with, and per what: "deals" (games) or "decisions" per CPU-second
    bench_kernels: ClassVar[str | None] = None  # "module:function" measuring the game's own
    # kernels (function(min_seconds) -> rows with a `kernel` name); None: none
    card_actions: int = 0  # action ids below this play a card to a trick; 0: no action
    # does (a rummy), and "card plays per CPU-second" is undefined

    def plays_card(self, state: State, action: Array) -> Array:
        """Whether `action` taken at `state` plays a card to a trick (jittable; the unit of
        "card plays", comparable across games)."""
        return action < self.card_actions


class TrickPlay(abc.ABC):
    """Trick play as plain data for the double-dummy solvers (`solvers.convert`)."""

    @abc.abstractmethod
    def trick_rules(self, state: State | None = None) -> dict[str, Any]:
        """The trick-play rules as the fields of `solvers.position.Rules` (players in a
        trick, tricks, per card id its suit, rank and points, ...). A game whose rules are
        static ignores `state`; one whose rules are a hand's (trumps and a kitty chosen in
        the hand) reads them from the unbatched `state` in trick play (ValueError without
        one)."""

    @abc.abstractmethod
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

    @abc.abstractmethod
    def trick_start(self, deal: str, key: Array | None = None, trump: Any = None,
                    leader: Any = None) -> State:
        """The state at the first card of trick 1 of a deal string: `from_deal`, then the
        decisions before trick play taken as the game documents (`trump`, `leader`: the
        choices the rules leave open; ValueError where they fix them otherwise)."""

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


class InformationSets(abc.ABC):
    """What a player has not seen, for the PIMC bots (`solvers.pimc`): layouts of the hidden
    cards consistent with his observation, and each layout as plain trick-play data. A
    layout is `holders`: each card's holder in the game's own codes (a player, -1 played, a
    kitty, ...)."""

    pimc_max_cards: ClassVar[int] = 10  # a PIMC bot searches from this many cards in hand

    def pimc_limits(self) -> str:
        """Why a PIMC bot cannot play this variant ("" if it can)."""
        return ""

    @abc.abstractmethod
    def make_sampler(self, samples: int, tries: int) -> Callable[[Array, Array],
                                                                  tuple[Array, Array]]:
        """A jittable `(key, observation) -> (holders int[samples, cards], ok
        bool[samples])`: `samples` layouts consistent with the observation, each found in at
        most `tries` attempts (`ok` False: not found)."""

    @abc.abstractmethod
    def layout_view(self, observation: np.ndarray) -> dict[str, Any]:
        """What `searched` and `layout_position` read of one observation (numpy)."""

    @abc.abstractmethod
    def searched(self, view: dict[str, Any], mask: np.ndarray, max_cards: int) -> bool:
        """Whether a PIMC bot searches this decision: the observer to play in trick play,
        with more than one play and at most `max_cards` cards in hand."""

    @abc.abstractmethod
    def layout_position(self, view: dict[str, Any], holders: np.ndarray) -> dict[str, Any]:
        """The layout `holders` seen in `view` as trick play, the side the observer's:
        `TrickPlay.trick_position`'s fields (but `moves`), `rules` (`trick_rules`' fields for
        the layout's hand), and what the side plays for: `goal` (side_min, other_max; as
        `trick_goals`') or None for the most points, `sign` times the value being the
        observer's gain."""

    def play_actions(self, view: dict[str, Any], play: int, mask: np.ndarray) -> list[int]:
        """The legal actions that make, or go on making, the trick-play move `play` (a move
        of `layout_position`'s positions): `play` itself where it is legal (a move is an
        action id) by default."""
        return [play] if mask[play] else []

    def decision_key(self, observation: np.ndarray) -> bytes | None:
        """The key under which a decision's scores are kept for the decisions after it that
        make the same play (a play of several actions); None: never kept."""
        return None


class PbnDeals(abc.ABC):
    """Bridge PBN deals (`kanjax.core.pbn`): `from_deal` also reads one, `pbn` writes one."""

    @abc.abstractmethod
    def pbn(self, state: State) -> str:
        """The hands of one (unbatched) state as a PBN deal."""


CAPABILITIES: dict[str, type] = {
    "views": Views, "tournament": TournamentViews, "bots": Bots, "bench": Benchmarked,
    "trick play": TrickPlay, "information sets": InformationSets, "pbn": PbnDeals,
}


def capabilities(env: Any) -> list[str]:
    """The names of `CAPABILITIES` that `env` (an Env or its class) has."""
    cls = env if isinstance(env, type) else type(env)
    return [name for name, cap in CAPABILITIES.items() if issubclass(cls, cap)]


def game_table() -> list[dict[str, Any]]:
    """Every registered game with its default variant's players and actions, and its
    capabilities (`kanjax games`)."""
    import kanjax

    rows = []
    for game in kanjax.games():
        env = kanjax.make(game)
        rows.append({"game": game, "players": env.num_players,
                     "actions": env.num_actions, "capabilities": capabilities(env)})
    return rows

