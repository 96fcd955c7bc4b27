"""A `kanjax.scene.Scene` drawn as SVG: the seats around an oval table, each hand as cards
(face down where hidden, with the count), the table's groups (a trick placed toward its
owners, melds and piles in labelled rows), the header, the score lines and the player to
act highlighted. It reads only the Scene, so it draws every game (`Views.render_svg`, the
HTML viewer of `kanjax.view`).

Cards are `<use>`s of one definition per token (`card_defs`): a standalone drawing carries
the definitions of its cards; the viewer puts them once in its page and draws its frames
without them (`with_defs=False`).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from kanjax.scene import Group, Scene, Seat

WIDTH, HEIGHT = 1100, 720  # the canvas before the score lines
CX, CY = 550, 370  # the table's centre
SEAT_RX, SEAT_RY = 400, 270  # the ellipse the seats' centres lie on
TABLE_RX, TABLE_RY = 270, 175  # the oval table
CARD_W, CARD_H = 36, 52
HAND_WIDTH = 260  # a hand's widest row of cards
LINE = 20  # the height of a text line below the table
SUITS = {"S": ("\u2660", "#111"), "H": ("\u2665", "#c62828"), "D": ("\u2666", "#c62828"),
         "C": ("\u2663", "#111")}
JOKERS = {"JK": "#6a1b9a", "BJ": "#111", "RJ": "#c62828"}
FONT = "DejaVu Sans, Arial, sans-serif"


@dataclasses.dataclass(frozen=True)
class Picture:
    """An SVG drawing that Jupyter shows inline (`_repr_svg_`), as pgx's `save_svg`."""

    svg: str

    def _repr_svg_(self) -> str:
        return self.svg

    def save_svg(self, path: str | Path) -> None:
        """Write the drawing to `path` (an .svg file)."""
        Path(path).write_text(self.svg)


def card_id(token: str) -> str:
    """The id of a card's definition (`card_defs`); `back` for a face-down card."""
    return "kc-" + "".join(ch if ch.isalnum() else f"_{ord(ch)}" for ch in token)


def card_face(token: str) -> str:
    """One card's face at the origin: the rank and suit in its corner (visible where cards
    overlap) and the suit large in the middle; jokers as `JK` / `BJ` / `RJ` with a star."""
    if token in JOKERS:
        color, corner, middle = JOKERS[token], token, "\u2605"
    elif len(token) == 2 and token[1] in SUITS:
        middle, color = SUITS[token[1]]
        corner = ("10" if token[0] == "T" else token[0]) + "\n" + middle
    else:  # a token this drawing does not know: written out
        color, corner, middle = "#333", token, ""
    top, second = (corner.split("\n") + [""])[:2]
    return (f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="4" '
            f'fill="#fff" stroke="#555"/>'
            f'<text x="3" y="14" font-size="13" font-weight="bold" fill="{color}">'
            f'{escape(top)}</text>'
            f'<text x="4" y="27" font-size="12" fill="{color}">{escape(second)}</text>'
            f'<text x="{CARD_W - 13}" y="{CARD_H - 8}" font-size="20" text-anchor="middle" '
            f'fill="{color}">{escape(middle)}</text>')


BACK = (f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="4" '
        f'fill="#2b5797" stroke="#1a3560"/><rect x="4" y="4" width="{CARD_W - 8}" '
        f'height="{CARD_H - 8}" rx="2" fill="none" stroke="#9bb7e0"/>')


def card_defs(tokens: set[str] | frozenset[str]) -> str:
    """`<defs>` with the face of each token and the card back."""
    faces = "".join(f'<g id="{card_id(t)}">{card_face(t)}</g>' for t in sorted(tokens))
    return f'<defs>{faces}<g id="kc-back">{BACK}</g></defs>'


def scene_tokens(scene: Scene) -> set[str]:
    """Every card token a drawing of `scene` shows."""
    tokens = {t for seat in scene.seats for t in seat.cards or ()}
    return tokens | {t for group in scene.table for t in group.cards}


def draw(scene: Scene, notes: dict | None = None, with_defs: bool = True) -> str:
    """`scene` as one SVG document. `notes` (a double-dummy annotation of this decision:
    `values` by action name, `best`, `played`, `loss`, `unit`) puts each legal card's value
    under it and marks the played card with its loss."""
    parts = draw_parts(scene, notes)
    if with_defs:
        parts.insert(1, card_defs(scene_tokens(scene)))
    return "".join(parts)


def draw_parts(scene: Scene, notes: dict | None = None) -> list[str]:
    """`draw`'s document without the card definitions, in parts (the canvas, the header,
    each seat, each group on the table, each line below it, the end) whose concatenation
    is the document: the HTML viewer keeps each distinct part once for all its frames."""
    extra = list(scene.scores) + _legal_lines(scene) + _note_lines(notes)
    height = HEIGHT + LINE * len(extra)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="{FONT}">'
           f'<rect width="{WIDTH}" height="{height}" fill="#f4f1e8"/>'
           f'<ellipse cx="{CX}" cy="{CY}" rx="{TABLE_RX}" ry="{TABLE_RY}" fill="#2e7d4f" '
           'stroke="#1b5e20" stroke-width="6"/>']
    out.append(_text(16, 28, scene.header, 17, weight="bold"))
    view = "all hands open" if scene.viewer is None else f"view of {_label(scene, scene.viewer)}"
    out.append(_text(16, 52, f"{view}   {scene.status}", 14, fill="#444"))
    first = _seat_index(scene)
    n = len(scene.seats)
    valued = _card_values(notes)
    for i, seat in enumerate(scene.seats):
        x, y = _seat_centre((i - first) % n, n)
        out.append(_seat(seat, x, y, scene.legal if seat.to_act else (),
                         valued if seat.to_act else {}))
    out.extend(_groups(scene, first))
    for k, line in enumerate(extra):
        out.append(_text(16, HEIGHT + LINE * k, line, 14))
    out.append("</svg>")
    return out


def _label(scene: Scene, player: int) -> str:
    return next((s.label for s in scene.seats if s.player == player), f"P{player}")


def _seat_index(scene: Scene) -> int:
    """The seat drawn at the bottom: the viewer's, else the first."""
    return next((i for i, s in enumerate(scene.seats) if s.player == scene.viewer), 0)


def _seat_centre(pos: int, n: int, rx: float = SEAT_RX, ry: float = SEAT_RY
                 ) -> tuple[float, float]:
    """Where table position `pos` of `n` lies, clockwise from the bottom."""
    angle = math.pi / 2 + 2 * math.pi * pos / n
    return CX + rx * math.cos(angle), CY + ry * math.sin(angle)


def _text(x: float, y: float, text: str, size: int, anchor: str = "start",
          weight: str = "normal", fill: str = "#111") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}" xml:space="preserve">{escape(text)}</text>')


def _use(token: str | None, x: float, y: float) -> str:
    """A card (None: face down) with its top-left corner at (x, y)."""
    ref = "kc-back" if token is None else card_id(token)
    return f'<use href="#{ref}" x="{x:.0f}" y="{y:.0f}"/>'


def _step(count: int, width: float, most: float) -> float:
    """The offset between overlapping cards so that `count` of them fit in `width`."""
    return most if count < 2 else min(most, (width - CARD_W) / (count - 1))


def _seat(seat: Seat, x: float, y: float, legal: tuple[str, ...],
          valued: dict[str, tuple[int, bool, int | None]]) -> str:
    """A seat's block centred at (x, y): its label, role and notes above its hand; a hidden
    hand (or the hidden part of one) as backs with the count."""
    shown = list(seat.cards or ())
    backs = seat.count - len(shown) if seat.count > len(shown) else 0
    step = _step(len(shown) + backs, HAND_WIDTH, 22)
    hand_w = CARD_W + step * max(len(shown) + backs - 1, 0)
    left, top = x - hand_w / 2, y - CARD_H / 2 + 6
    title = "  ".join(part for part in (seat.label, seat.role, *seat.notes) if part)
    out = []
    if seat.to_act:
        pad = 8
        width = max(hand_w, 7.5 * len(title) + 20) + 2 * pad
        out.append(f'<rect x="{x - width / 2:.0f}" y="{top - 32:.0f}" width="{width:.0f}" '
                   f'height="{CARD_H + 56:.0f}" rx="8" fill="#fff3c4" stroke="#f9a825" '
                   'stroke-width="3"/>')
        title = "\u25b6 " + title
    out.append(_text(x, top - 10, title, 14, "middle", "bold" if seat.to_act else "normal"))
    words = {w for name in legal for w in name.split()}
    badges = []
    for k, token in enumerate(shown):
        lift = 6 if token in words else 0
        out.append(_use(token, left + k * step, top - lift))
        if token in valued:
            visible = CARD_W if k == len(shown) + backs - 1 else min(step, CARD_W)
            badge = _value_badge(left + k * step, top - lift, visible, *valued[token])
            badges.append(badge)
    for k in range(backs):
        out.append(_use(None, left + (len(shown) + k) * step, top))
    if backs:
        hidden = f"{backs} hidden" if shown else f"{backs} cards"
        out.append(_text(x, top + CARD_H + 16, hidden, 12, "middle", fill="#333"))
    return "".join(out + badges)


def _value_badge(x: float, y: float, visible: float, value: int, played: bool,
                 loss: int | None) -> str:
    """A card's double-dummy value under the card at (x, y) (`visible` wide where the next
    card overlaps it); the played card framed, its badge a row lower with its loss or a
    tick."""
    below = y + CARD_H + 2
    if not played:
        width = max(visible, 16) - 1
        return (f'<rect x="{x:.0f}" y="{below:.0f}" width="{width:.0f}" height="15" rx="3" '
                f'fill="#555"/>' + _text(x + 3, below + 12, str(value), 11, fill="#fff"))
    fill = "#c62828" if loss else "#2e7d32"
    text = f"{value} (-{loss})" if loss else f"{value} \u2713"
    return (f'<rect x="{x - 1:.0f}" y="{y - 1:.0f}" width="{visible + 2:.0f}" '
            f'height="{CARD_H + 2}" rx="5" fill="none" stroke="{fill}" stroke-width="3"/>'
            f'<rect x="{x:.0f}" y="{below + 16:.0f}" width="{7 * len(text) + 6}" height="15" '
            f'rx="3" fill="{fill}"/>' + _text(x + 3, below + 28, text, 11, fill="#fff"))


def _card_values(notes: dict | None) -> dict[str, tuple[int, bool, int | None]]:
    """Card token -> (its best value among the actions naming it, whether it was played,
    the loss of the played one)."""
    if not notes:
        return {}
    out: dict[str, tuple[int, bool, int | None]] = {}
    for name, value in notes.get("values", {}).items():
        played = name == notes.get("played")
        for word in name.split():
            old = out.get(word)
            if played or old is None or (not old[1] and value > old[0]):
                out[word] = (int(value), played, notes.get("loss") if played else None)
    return out


def _legal_lines(scene: Scene, limit: int = 150) -> list[str]:
    if not scene.legal:
        return []
    line = "legal: " + ", ".join(scene.legal)
    return [line if len(line) <= limit else line[: limit - 20] + f" ... ({len(scene.legal)})"]


def _note_lines(notes: dict | None) -> list[str]:
    if not notes:
        return []
    unit = notes.get("unit", "")
    loss = notes.get("loss", 0)
    verdict = f"loses {loss} {unit}" if loss else "best"
    return [f"double dummy: best {notes.get('best')} {unit}; played {notes.get('played')}: "
            f"{verdict}"]


def _groups(scene: Scene, first: int) -> list[str]:
    """The table: groups with owners (a trick) placed toward each owner's seat around the
    centre; the others (melds, piles) in rows from the table's top, with their labels; a
    part a group."""
    n = len(scene.seats)
    position = {s.player: (i - first) % n for i, s in enumerate(scene.seats)}
    out = []
    rows: list[Group] = []
    for group in scene.table:
        if group.owners is None:
            rows.append(group)
            continue
        part = [_text(CX, CY - 4, group.label, 13, "middle", fill="#e8f5e9")]
        seen: dict[int, int] = {}
        for token, owner in zip(group.cards, group.owners, strict=True):
            k = seen[owner] = seen.get(owner, -1) + 1
            x, y = _seat_centre(position.get(owner, 0), n, TABLE_RX * 0.55, TABLE_RY * 0.55)
            part.append(_use(token, x - CARD_W / 2 + 14 * k, y - CARD_H / 2))
        out.append("".join(part))
    if rows:
        out.extend(_rows(rows, has_trick=len(out) > 0))
    return out


def _rows(groups: list[Group], has_trick: bool) -> list[str]:
    """Labelled groups flowing in rows inside the table (scaled down to fit): the opening
    of their scaled `<g>`, a part a group, its end."""
    left, right = CX - 0.7 * TABLE_RX, CX + 0.7 * TABLE_RX  # inside the oval
    top, bottom = CY - 0.66 * TABLE_RY, CY + (-60 if has_trick else 0.72 * TABLE_RY)
    step, gap, row_h = 16, 14, CARD_H + 20
    x, y = left, top
    out = []
    for group in groups:
        count = len(group.cards) + (1 if group.hidden else 0)
        width = max(CARD_W + step * max(count - 1, 0), 7 * len(group.label))
        if x > left and x + width > right:
            x, y = left, y + row_h
        part = [_text(x, y + 12, group.label, 12, fill="#e8f5e9")]
        for k, token in enumerate(group.cards):
            part.append(_use(token, x + k * step, y + 16))
        if group.hidden:
            bx = x + len(group.cards) * step
            part.append(_use(None, bx, y + 16))
            part.append(_text(bx + CARD_W / 2, y + 16 + CARD_H / 2 + 4, str(group.hidden),
                              13, "middle", "bold", "#fff"))
        out.append("".join(part))
        x += width + gap
    scale = min(1.0, (bottom - top) / (y + row_h - top))
    shift = f"translate({left:.0f} {top:.0f}) scale({scale:.3f}) translate({-left:.0f} {-top:.0f})"
    return [f'<g transform={quoteattr(shift)}>', *out, "</g>"]
