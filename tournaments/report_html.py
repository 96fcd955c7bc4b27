"""The report of a tournament folder as one self-contained page (`kanjax tournament report DIR
--html`): the terminal report's tables (`tournaments.report`'s rows), its two plots embedded
as base64 PNG, and a link to a page of each game (`kanjax.view.view_html`, written to
DIR/views/<game id>.html) for the first `views` games. The pages reference nothing outside
themselves but those game pages, by relative links."""

from __future__ import annotations

import base64
import os
from html import escape
from pathlib import Path

from tournaments import report, stored

STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:0.5em 0}
th,td{border:1px solid #ccc;padding:0.2em 0.6em;text-align:right}
th{background:#eee}td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:90%}.warn{color:#a00;font-weight:bold}img{max-width:100%}"""


def _table(header: list[str], rows: list[list]) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                   for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _text_rows(rows) -> list[list[str]]:
    return [[escape(str(cell)) for cell in row] for row in rows]


def _image(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<p><img alt="{escape(alt)}" src="data:image/png;base64,{data}"></p>'


def _game_views(root: Path, page_dir: Path, count: int) -> tuple[list[list[str]], int]:
    """Write the view pages of the first `count` stored games (by id); their rows of the
    games table (with a link each), and the number of games stored."""
    from kanjax.view import view_html

    ids = stored.game_ids(root)
    rows = []
    if count > 0 and ids:
        seed = stored.run_seed(root)
        (root / "views").mkdir(exist_ok=True)
        for row in stored.game_rows(root, ids[:count]):
            gid = row["game_id"]
            bots = ", ".join(f"P{p} {b}" for p, b in enumerate(row["bots"]))
            try:
                record = stored.game_record(row, seed)
            except ValueError as err:
                raise ValueError(f"{root}: game {gid}: {err}") from None
            path = root / "views" / f"{gid}.html"
            path.write_text(view_html(record, title=f"{root.resolve().name}: game {gid} "
                                                    f"({row['game']}; {bots})"))
            forfeit = (f"P{row['forfeit']}: {row['forfeit_reason']}" if row["forfeit"] >= 0
                       else "truncated" if row["truncated"] else "")
            link = Path(os.path.relpath(path, page_dir)).as_posix()
            rows.append([f'<a href="{escape(link)}">game {gid}</a>', str(row["group"]),
                         escape(bots), " / ".join(f"{s:g}" for s in row["scores"]),
                         escape(forfeit)])
    return rows, len(ids)


def write_html(dir: str | Path, result: dict, out: str | Path | None,
               views: int) -> tuple[Path, int]:
    """Write the page of a `report.report(dir)` result (after its plots) to `out` (default
    DIR/report.html) and the view pages of the first `views` games; returns the page's path
    and the number of view pages written."""
    root = Path(dir)
    page = Path(out) if out is not None else root / "report.html"
    columns, bots = report.bot_table(result)
    games, stored_count = _game_views(root, page.resolve().parent, views)
    title = escape(report.headline(result))
    warn = [f'<p class="{"warn" if line.startswith("WARNING") else "note"}">{escape(line)}'
            "</p>" for line in report.format_completeness(result["completeness"])]
    sprt = report.sprt_line(result)
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
             f"<style>{STYLE}</style></head><body><h1>{title}</h1>", *warn,
             _table([c[0] for c in columns], _text_rows(bots)),
             *(f'<p class="note">{escape(line)}</p>' for line in report.table_notes(result)),
             f"<h2>{escape(report.PAIRWISE_TITLE)}</h2>",
             _table(["a", "b", "a - b [95% CI]", "groups"],
                    _text_rows(report.pairwise_rows(result))),
             f"<p>{escape(sprt)}</p>" if sprt else "",
             "<h2>ratings and scores</h2>",
             *(_image(root / name, name) for name in result["plots"]),
             "<h2>games</h2>",
             f"<p>{len(games)} of {stored_count} games have a page here (the first by id; "
             "<code>--views N</code> sets how many are written).</p>",
             _table(["game", "group", "bots by player", "scores", "forfeit"], games) if games
             else "", "</body></html>"]
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("\n".join(parts) + "\n")
    return page, len(games)
