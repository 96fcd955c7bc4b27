"""One game record as one self-contained HTML page (`kanjax view`): the table drawn as SVG
(`kanjax.svg`) at every step, stepped with the arrow keys, buttons or a slider, beside the
list of actions by name (the current one highlighted; a click jumps to it; `#step=N` in the
address opens step N). No network, no server: the frames are drawn here, in Python, and
embedded as gzipped JSON (`page_data` reads it back), each distinct part of a drawing (a
seat, a meld, a line) once for the whole page (`svg.draw_parts`), so a long match's page
stays small.

A page as one player sees it (`player`) shows only what that player has seen at each step:
the actions taken so far (another player's as he learns it: `Views.public_name`, with the
cards he does not see hidden as `??`), not the actions still to come.

It reads only `Views.scene`, so it shows every game. Double-dummy notes (`solvers.annotate`)
are shown at their steps: each legal card's (or play's) value, the played card with its
loss (values of the other side, fewest best, where the note says `minimise`); in the list,
each annotated play is marked best, losing (with its loss) or not solved.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re

from kanjax import records
from kanjax.api import Env
from kanjax.scene import Scene, check_viewer
from kanjax.svg import card_defs, draw_parts, scene_tokens

CARD = re.compile(r"[2-9TJQKA][SHDC]|JK|BJ|RJ")  # a card token (the notation of DESIGN.md)


def record_scenes(record: dict, player: int | None = None) -> list[Scene]:
    """The scene before each action of `record` and after the last one (len(actions) + 1
    scenes), every hand open or as `player` sees it; ValueError naming a bad record or
    player."""
    return _env_scenes(record, player)[1]


def _env_scenes(record: dict, player: int | None
                ) -> tuple[Env, list[Scene], list[bool]]:
    """`record_scenes` with the record's env and whether each action ended a deal."""
    m = records.start_match(record)
    try:
        viewer = check_viewer(player, m.env.num_players)
    except ValueError as err:
        raise ValueError(f"{m.env.name}: {err}") from None
    names = record.get("actions")
    if not isinstance(names, list):
        raise ValueError("the record has no list of 'actions'")
    ids, bad = m.action_ids(names)
    if bad is not None:
        raise ValueError(f"the record's action {len(ids)} ({names[len(ids)]!r}): {bad}")
    played = m.run(ids)
    if any(played.done(i) for i in range(len(ids))):
        raise ValueError("the record goes on after its match is over (see `kanjax replay`)")
    scenes = [m.env.scene(played.state(i), viewer) for i in range(len(ids) + 1)]
    return m.env, scenes, [bool(x) for x in played.traj.deal_done[: len(ids)]]


def seen_names(env: Env, names: list[str], scenes: list[Scene],
               ended: list[bool] | None = None) -> list[str]:
    """Each action's name as the viewer of `scenes` (the scene before each action, then
    after the last) learns it: all of them where every hand is open; else his own in full,
    and another's public name (`Views.public_name`) with each card that the viewer sees
    neither before nor after it as `??`, except in an action that `ended` a deal (the last
    card played or laid down, in view before the next deal's table replaces it)."""
    out = []
    for s, name in enumerate(names):
        before, after = scenes[s], scenes[s + 1]
        if before.viewer is None or before.to_act == before.viewer:
            out.append(name)
            continue
        shown = scene_tokens(before) | scene_tokens(after)
        out.append(" ".join(w if not CARD.fullmatch(w) or w in shown or (ended and ended[s])
                            else "??" for w in env.public_name(name).split()))
    return out


def view_html(record: dict, *, player: int | None = None,
              notes: dict[int, dict] | None = None, title: str | None = None) -> str:
    """The page of `record`: every hand open, or what `player` sees; `notes` maps a step s
    (the decision before action s) to its double-dummy note (`values` by action or play
    name, `best`, `played`, `loss`, `unit`; `solved` False where the search gave up;
    `minimise` where the values are the other side's, `solvers.annotate`), shown
    where every hand is open or `player` is the one to act."""
    env, scenes, ended = _env_scenes(record, player)
    notes = {s: n for s, n in (notes or {}).items()
             if player is None or scenes[s].to_act == player}
    parts: dict[str, int] = {}  # each distinct part of a drawing, numbered
    frames = [[parts.setdefault(part, len(parts)) for part in draw_parts(scene, notes.get(s))]
              for s, scene in enumerate(scenes)]
    tokens = set().union(*(scene_tokens(scene) for scene in scenes))
    names = seen_names(env, record["actions"], scenes, ended)
    movers = [_mover(scene) for scene in scenes[:-1]]
    title = title or (f"{record['game']} seed {record['seed']}"
                      + ("" if player is None else f", as player {player} sees it"))
    items = [f'<li data-step="{s}"><span class="n">{s}</span> {html.escape(mover)} '
             f'<span class="act">{html.escape(name)}{_mark(notes.get(s))}</span></li>'
             for s, (mover, name) in enumerate(zip(movers, names, strict=True))]
    end = f"end: scores {' '.join(f'{x:+g}' for x in record.get('scores', []))}"
    items.append(f'<li data-step="{len(names)}"><span class="n">{len(names)}</span> '
                 f'{html.escape(end)}</li>')
    pool = list(parts)
    data = {"parts": pool, "frames": frames,
            "notes": {s: _note_text(n) for s, n in notes.items()}}
    return PAGE.format(
        title=html.escape(title), last=len(frames) - 1, defs=card_defs(tokens),
        items="".join(items), viewer="open" if player is None else "player",
        first="".join(pool[i] for i in frames[0]),  # shown while the data unpacks
        data=_packed(data))


def _packed(data: dict) -> str:
    """`data` as JSON, gzipped, in base64: what the page unpacks (a long match's frames
    repeat each other, so they pack about tenfold)."""
    text = json.dumps(data, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(text, mtime=0)).decode()


def page_data(page: str) -> dict:
    """The data a page of `view_html` holds: `parts` (each distinct part of its drawings),
    `frames` (each step's drawing, as the numbers of its parts) and `notes` (the text of
    each annotated step's double-dummy note)."""
    packed = re.search(r'<script id="data" type="application/gzip;base64">(.*?)</script>',
                       page, re.S)
    if packed is None:
        raise ValueError("not a page of kanjax view (no packed data)")
    return json.loads(gzip.decompress(base64.b64decode(packed.group(1))))


def _mover(scene: Scene) -> str:
    return next((s.label for s in scene.seats if s.player == scene.to_act), "")


def _mark(note: dict | None) -> str:
    """An annotated play's mark in the list: best, losing (its loss) or not solved."""
    if note is None:
        return ""
    if not note.get("solved", True) or note.get("loss") is None:
        return ' <span class="dd unknown" title="not solved">?</span>'
    if note["loss"]:
        return (f' <span class="dd lose" title="loses {note["loss"]} {note.get("unit", "")}">'
                f'\u2717 -{note["loss"]}</span>')
    return ' <span class="dd best" title="a best play">\u2713</span>'


def _note_text(note: dict) -> str:
    """A note as one line: every action's value, the played one and its loss."""
    if not note.get("solved", True):
        return (f"double dummy: not solved within the budget; played {note.get('played')}")
    low = note.get("minimise", False)  # the values are the other side's
    values = ", ".join(f"{name} {value}" for name, value in sorted(
        note.get("values", {}).items(), key=lambda kv: kv[1] if low else -kv[1]))
    loss = note.get("loss", 0)
    unit = note.get("unit", "") + (" of the other side: fewest best" if low else "")
    return (f"double dummy ({unit}): best {note.get('best')}; {values}. "
            f"Played {note.get('played')}: " + (f"loses {loss}" if loss else "best"))


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: DejaVu Sans, Arial, sans-serif; margin: 12px; background: #faf8f2; }}
h1 {{ font-size: 18px; margin: 0 0 8px; }}
#controls {{ display: flex; gap: 6px; align-items: center; margin-bottom: 8px; }}
#slider {{ width: 420px; }}
#main {{ display: flex; gap: 12px; align-items: flex-start; }}
#table svg {{ max-width: 100%; height: auto; }}
#actions {{ list-style: none; margin: 0; padding: 0; width: 260px; max-height: 800px;
  overflow-y: auto; font-size: 13px; border: 1px solid #ccc; background: #fff; }}
#actions li {{ padding: 2px 6px; cursor: pointer; }}
#actions li:hover {{ background: #eef; }}
#actions li.current {{ background: #f9a825; font-weight: bold; }}
#actions .n {{ display: inline-block; width: 3em; color: #777; }}
#note {{ min-height: 1.4em; font-size: 14px; margin-top: 6px; }}
.dd {{ font-weight: bold; }}
.dd.best {{ color: #2e7d32; }}
.dd.lose {{ color: #c62828; }}
.dd.unknown {{ color: #777; }}
body.player #actions li.current .act {{ display: none; }}
</style></head>
<body class="{viewer}">
<h1>{title}</h1>
<div id="controls">
<button id="first" title="first step (Home)">|&#x25C0;</button>
<button id="prev" title="previous step (&#x2190;)">&#x25C0;</button>
<input id="slider" type="range" min="0" max="{last}" value="0">
<button id="next" title="next step (&#x2192;)">&#x25B6;</button>
<button id="end" title="last step (End)">&#x25B6;|</button>
<span id="pos"></span>
</div>
<svg width="0" height="0" style="position:absolute" aria-hidden="true">{defs}</svg>
<div id="main"><div id="table">{first}</div><ul id="actions">{items}</ul></div>
<div id="note"></div>
<script id="data" type="application/gzip;base64">{data}</script>
<script>
"use strict";
const LAST = {last};
let DATA = null;  // the frames' parts, the frames and the notes, unpacked (unpack)
const PLAYER = document.body.classList.contains("player");
const slider = document.getElementById("slider");
const items = document.querySelectorAll("#actions li");
let step = 0;
async function unpack() {{
  const text = atob(document.getElementById("data").textContent.trim());
  const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  const json = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(json).text());
}}
function show(s) {{
  if (DATA === null) return;
  step = Math.max(0, Math.min(LAST, s));
  const table = document.getElementById("table");
  table.innerHTML = DATA.frames[step].map((i) => DATA.parts[i]).join("");
  table.dataset.step = step;
  slider.value = step;
  document.getElementById("pos").textContent = "step " + step + " / " + LAST;
  document.getElementById("note").textContent = DATA.notes[step] || "";
  items.forEach((li, i) => {{
    li.classList.toggle("current", i === step);
    li.hidden = PLAYER && i > step;  // a player's view: nothing still to come
  }});
  if (step !== 0 || location.hash) history.replaceState(null, "", "#step=" + step);
  items[step].scrollIntoView({{block: "nearest"}});
}}
slider.addEventListener("input", () => show(Number(slider.value)));
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(step - 1);
document.getElementById("next").onclick = () => show(step + 1);
document.getElementById("end").onclick = () => show(LAST);
items.forEach((li) => li.addEventListener("click", () => show(Number(li.dataset.step))));
document.addEventListener("keydown", (e) => {{
  if (e.target === slider) return;  // the slider moves itself with the arrow keys
  const to = {{ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: LAST}}[e.key];
  if (to !== undefined) {{ e.preventDefault(); show(to); }}
}});
function linked() {{
  const m = location.hash.match(/step=([0-9]+)/);
  return m ? Number(m[1]) : 0;
}}
window.addEventListener("hashchange", () => show(linked()));
unpack().then((data) => {{ DATA = data; show(linked()); }});
</script>
</body></html>
"""
