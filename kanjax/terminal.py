"""A `kanjax.scene.Scene` drawn in the terminal with rich, and a person's answer read against
its legal actions. Game-neutral: only the scene's plain values are read."""

from __future__ import annotations

from rich.columns import Columns
from rich.console import Group as Stack
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from kanjax.scene import Group, Scene, Seat

SUITS = "SHDC"
SUIT_STYLE = {"S": "bold", "H": "bold red", "D": "bold red", "C": "bold"}


def card(token: str) -> Text:
    """One card token, red for hearts and diamonds, magenta for a joker."""
    return Text(token, style=SUIT_STYLE.get(token[1:], "bold magenta"))


def cards(tokens: tuple[str, ...] | list[str]) -> Text:
    return Text(" ").join(card(t) for t in tokens)


def by_suit(tokens: tuple[str, ...]) -> Text:
    """A hand for people: jokers, then each suit's cards in the hand's order (`S: AS KS`)."""
    jokers = [t for t in tokens if t[1:] not in SUITS]
    parts = [cards(jokers)] if jokers else []
    for suit in SUITS:
        held = [t for t in tokens if t[1:] == suit]
        if held:
            parts.append(Text.assemble(f"{suit}: ", cards(held)))
    return Text("   ").join(parts) if parts else Text("-", style="dim")


def _hand(seat: Seat) -> Text:
    if seat.cards is None:
        return Text(f"{seat.count} cards, hidden", style="dim")
    return by_suit(seat.cards)


def _group(group: Group, labels: dict[int, str]) -> Text:
    if group.owners is None:
        shown = cards(group.cards)
    else:
        shown = Text("  ").join(Text.assemble(f"{labels[o]} ", card(t))
                                for o, t in zip(group.owners, group.cards, strict=True))
    if group.hidden:
        face_down = Text(f"{group.hidden} face down", style="dim")
        shown = Text("  ").join([shown, face_down]) if group.cards else face_down
    return shown if group.cards or group.hidden else Text("-", style="dim")


def draw(scene: Scene) -> RenderableType:
    """The table: the header, each seat (the player to act marked), the cards on the table,
    the scores, the status and the numbered legal actions."""
    seats = Table(show_header=False, box=None, padding=(0, 1))
    for seat in scene.seats:
        mark = Text("> ", style="bold green") if seat.to_act else Text("  ")
        who = Text.assemble(mark, (seat.label, "bold"), f" {seat.role}" if seat.role else "")
        notes = Text(", ".join(seat.notes), style="cyan")
        seats.add_row(who, _hand(seat), notes)
    labels = {seat.player: seat.label for seat in scene.seats}
    table = Table(show_header=False, box=None, padding=(0, 1))
    for group in scene.table:
        table.add_row(Text(group.label, style="bold"), _group(group, labels))
    parts: list[RenderableType] = [Text(scene.header, style="bold reverse"), seats]
    if scene.table:
        parts.append(table)
    parts += [Text(line, style="yellow") for line in scene.scores]
    parts.append(Text(scene.status, style="bold"))
    if scene.legal:
        parts.append(legal_list(scene.legal))
    return Stack(*parts)


def legal_list(names: tuple[str, ...]) -> Columns:
    """The legal actions numbered from 1, in columns."""
    return Columns([Text.assemble((f"{i:>2}", "bold green"), f" {name}")
                    for i, name in enumerate(names, 1)], padding=(0, 3))


def answer(text: str, legal: tuple[str, ...]) -> str:
    """The legal action a person's answer names: its number in `legal` (from 1), its name
    (any case), or the last word of exactly one legal action: a card token (`AS` for
    `pick AS`), a suit (`S` for `expose S`); ValueError saying what was wrong otherwise."""
    text = " ".join(text.split())
    if not text:
        raise ValueError("no answer: type a number from the list, an action or a card")
    if text.isdigit():
        if 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]
        raise ValueError(f"{text} is not a number from the list (1..{len(legal)})")
    by_name = {name.lower(): name for name in legal}
    if text.lower() in by_name:
        return by_name[text.lower()]
    naming = [name for name in legal if name.split()[-1].upper() == text.upper()]
    if len(naming) == 1:
        return naming[0]
    if naming:
        raise ValueError(f"{text!r} could be {' or '.join(naming)}: type the whole action")
    raise ValueError(f"{text!r} is not a legal action here")
