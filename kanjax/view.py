"""One game record as one self-contained HTML page (`kanjax view`): the table drawn as SVG
(`kanjax.svg`) at every step, stepped with the arrow keys, buttons or a slider, beside the
list of actions by name (the current one highlighted; a click jumps to it). No network,
no server: the frames are drawn here, in Python, and embedded as JSON.

It reads only `Env.scene`, so it shows every game. Double-dummy notes (`solvers.annotate`)
are shown at their steps: each legal card's value, the played card with its loss.
"""

from __future__ import annotations

import html
import json

from kanjax import records
from kanjax.scene import Scene, check_viewer
from kanjax.svg import card_defs, draw, scene_tokens


def record_scenes(record: dict, player: int | None = None) -> list[Scene]:
    """The scene before each action of `record` and after the last one (len(actions) + 1
    scenes), every hand open or as `player` sees it; ValueError naming a bad record or
    player."""
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
    return [m.env.scene(played.state(i), viewer) for i in range(len(ids) + 1)]


def view_html(record: dict, *, player: int | None = None,
              notes: dict[int, dict] | None = None, title: str | None = None) -> str:
    """The page of `record`: every hand open, or what `player` sees; `notes` maps a step s
    (the decision before action s) to its double-dummy note (`values` by action name,
    `best`, `played`, `loss`, `unit`)."""
    scenes = record_scenes(record, player)
    notes = notes or {}
    frames = [draw(scene, notes.get(s), with_defs=False) for s, scene in enumerate(scenes)]
    tokens = set().union(*(scene_tokens(scene) for scene in scenes))
    names = record["actions"]
    movers = [_mover(scene) for scene in scenes[:-1]]
    title = title or (f"{record['game']} seed {record['seed']}"
                      + ("" if player is None else f", as player {player} sees it"))
    items = [f'<li data-step="{s}"><span class="n">{s}</span> {html.escape(mover)} '
             f'{html.escape(name)}{" *" if s in notes else ""}</li>'
             for s, (mover, name) in enumerate(zip(movers, names, strict=True))]
    end = f"end: scores {' '.join(f'{x:+g}' for x in record.get('scores', []))}"
    items.append(f'<li data-step="{len(names)}"><span class="n">{len(names)}</span> '
                 f'{html.escape(end)}</li>')
    data = {"frames": frames, "notes": {s: _note_text(n) for s, n in notes.items()}}
    return PAGE.format(
        title=html.escape(title), last=len(frames) - 1, defs=card_defs(tokens),
        items="".join(items), data=json.dumps(data).replace("</", "<\\/"))


def _mover(scene: Scene) -> str:
    return next((s.label for s in scene.seats if s.player == scene.to_act), "")


def _note_text(note: dict) -> str:
    """A note as one line: every action's value, the played one and its loss."""
    values = ", ".join(f"{name} {value}" for name, value in
                       sorted(note.get("values", {}).items(), key=lambda kv: -kv[1]))
    loss = note.get("loss", 0)
    return (f"double dummy ({note.get('unit', '')}): best {note.get('best')}; {values}. "
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
</style></head>
<body>
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
<div id="main"><div id="table"></div><ul id="actions">{items}</ul></div>
<div id="note"></div>
<script id="data" type="application/json">{data}</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("data").textContent);
const LAST = DATA.frames.length - 1;
const slider = document.getElementById("slider");
const items = document.querySelectorAll("#actions li");
let step = 0;
function show(s) {{
  step = Math.max(0, Math.min(LAST, s));
  const table = document.getElementById("table");
  table.innerHTML = DATA.frames[step];
  table.dataset.step = step;
  slider.value = step;
  document.getElementById("pos").textContent = "step " + step + " / " + LAST;
  document.getElementById("note").textContent = DATA.notes[step] || "";
  items.forEach((li, i) => li.classList.toggle("current", i === step));
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
show(0);
</script>
</body></html>
"""
