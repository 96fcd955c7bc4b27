"""`kanjax tournament report DIR --html`: one self-contained page with the terminal report's
tables, both plots embedded and a link to each written game page (issue 29)."""

from __future__ import annotations

import base64
import json
import re

import pytest

from kanjax.cli import main
from tests.tournaments.test_runner import config
from tests.view.browser import colours, console_errors
from tournaments.runner import run_tournament
from tournaments.stored import game_ids


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "out"
    run_tournament(config(str(out), deals=1, chunk=6), local=True, progress=False)
    return out


@pytest.fixture(scope="module")
def page(folder):
    main(["tournament", "report", str(folder), "--html", "--views", "4"])
    return (folder / "report.html").read_text()


def test_the_page_has_the_terminal_tables_numbers(folder, page, capsys):
    main(["tournament", "report", str(folder)])
    lines = capsys.readouterr().out.split("\n\npairwise")[0].splitlines()[4:]
    rows = [line for line in lines if not line.startswith("(")]  # a bot a row, then notes
    numbers = {n for line in rows for n in re.findall(r"-?\d+(?:\.\d+)?%?", line)}
    cells = set(re.findall(r"<td>([^<]*)</td>", page))
    assert len(rows) == 2 and all(any(n in c for c in cells) for n in numbers)
    assert all(f">{line}</p>" in page for line in lines if line.startswith("("))
    result = json.loads((folder / "report.json").read_text())
    for p in result["pairwise"]:  # one deal seed: one group, so no interval, and why
        assert (f"<td>{p['a']}</td><td>{p['b']}</td><td>{p['diff']:.2f} (no CI: 1 group: too "
                "few for an interval)</td>") in page


def test_both_plots_are_embedded(folder, page):
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert [base64.b64decode(i) for i in images] == [
        (folder / name).read_bytes() for name in ("ratings.png", "scores.png")]


def test_a_link_per_written_game_page_and_no_network_reference(folder, page):
    links = re.findall(r'href="([^"]+)"', page)
    assert links == [f"views/{i}.html" for i in game_ids(folder)[:4]]
    assert all((folder / link).is_file() for link in links)
    assert "4 of 6 games have a page here" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page)


def test_another_page_file_links_back_to_the_game_pages(folder, tmp_path, capsys):
    out = tmp_path / "elsewhere" / "r.html"
    main(["tournament", "report", str(folder), "--html", "-o", str(out), "--views", "1"])
    assert f"{out}: the report as a page, with 1 of 6 games' pages" in capsys.readouterr().out
    [link] = re.findall(r'href="([^"]+)"', out.read_text())
    assert (out.parent / link).resolve() == (folder / "views" / "0.html").resolve()


@pytest.mark.parametrize("args, error", [(["--views", "3"], "--out and --views go with --html"),
                                         (["--html", "--views", "-1"], "--views -1: want 0")])
def test_bad_options_are_refused(folder, args, error, capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "report", str(folder), *args])
    assert error in capsys.readouterr().err


def test_the_page_and_a_game_page_in_a_browser(folder, page, browser):
    """The report page loads in headless Chromium without console errors, both plots decode,
    and its first game link opens that game's view (issue 29)."""
    from selenium.webdriver.common.by import By

    browser.get((folder / "report.html").as_uri())
    assert console_errors(browser) == []
    widths = [img.get_property("naturalWidth") for img in browser.find_elements(By.TAG_NAME, "img")]
    assert len(widths) == 2 and min(widths) > 0
    assert colours(browser.get_screenshot_as_png()) > 50
    browser.find_element(By.CSS_SELECTOR, 'a[href="views/0.html"]').click()
    assert browser.current_url.endswith("views/0.html")
    assert "<svg" in browser.find_element(By.ID, "table").get_attribute("innerHTML")
    assert console_errors(browser) == []
