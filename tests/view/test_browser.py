"""The HTML view (`kanjax view`) in headless Chromium (issue 29), for a short match of each
game: the page loads without console errors, → steps to the first trick, the slider reaches
the last step, and the screenshot is a picture (many colours), not a blank page.

Needs Debian's `chromium` and `chromium-driver` (driven by selenium). Where they are missing
the tests skip, except when KANJAX_REQUIRE_BROWSER=1 (CI, `.ci/run`): then they fail.
KANJAX_SCREENSHOT_DIR=<folder> keeps each game's screenshot there as <game>.png (the
README's docs/view.png is gonin_kan's)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import kanjax
from kanjax.svg import scene_tokens
from kanjax.view import CARD, record_scenes, view_html
from tests.view.browser import colours, console_errors, open_page
from tests.view.records import deal_ends, mid_trick_step, short_record


@pytest.mark.parametrize("game", kanjax.games())
def test_view_in_browser(game, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    record = short_record(game)
    last = len(record["actions"])
    page = tmp_path / "game.html"
    page.write_text(view_html(record))
    table = open_page(browser, page.as_uri())
    assert console_errors(browser) == []
    first = table.get_attribute("innerHTML")
    assert table.get_attribute("data-step") == "0" and "<svg" in first

    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert table.get_attribute("data-step") == "1"
    assert table.get_attribute("innerHTML") != first
    body.send_keys(Keys.ARROW_LEFT)
    assert table.get_attribute("innerHTML") == first
    step = mid_trick_step(record)
    for _ in range(step):
        body.send_keys(Keys.ARROW_RIGHT)
    assert table.get_attribute("data-step") == str(step)
    current = browser.find_element(By.CSS_SELECTOR, "#actions li.current")
    assert current.get_attribute("data-step") == str(step)
    png = browser.get_screenshot_as_png()
    (tmp_path / f"{game}.png").write_bytes(png)
    assert colours(png) > 50
    if os.environ.get("KANJAX_SCREENSHOT_DIR"):
        Path(os.environ["KANJAX_SCREENSHOT_DIR"], f"{game}.png").write_bytes(png)

    slider = browser.find_element(By.ID, "slider")
    slider.send_keys(Keys.END)
    assert slider.get_attribute("value") == str(last)
    assert table.get_attribute("data-step") == str(last)
    assert browser.find_element(By.ID, "pos").text == f"step {last} / {last}"
    browser.find_elements(By.CSS_SELECTOR, "#actions li")[0].click()
    assert table.get_attribute("innerHTML") == first
    assert console_errors(browser) == []


@pytest.mark.parametrize("game", kanjax.games())
def test_player_page_shows_only_what_the_player_has_seen(game, browser, tmp_path):
    """Issue 44 item 4: at each step a player's page lists the actions taken so far and
    nothing still to come (neither the others' nor his own), another player's action with
    only the cards the player has seen by then; `#step=N` opens step N and follows the
    steps."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    record, viewer = short_record(game), 1
    names = record["actions"]
    scenes, ended = record_scenes(record, viewer), deal_ends(record)
    page = tmp_path / "player.html"
    page.write_text(view_html(record, player=viewer))
    mid = mid_trick_step(record) or len(names) // 2
    for step in sorted({0, 1, mid, len(names) - 1, len(names)}):
        open_page(browser, f"{page.as_uri()}#step={step}", step)
        items = browser.find_elements(By.CSS_SELECTOR, "#actions li")
        shown = [li.get_attribute("innerText").split() for li in items if li.is_displayed()]
        assert [li.get_attribute("data-step") for li in items if li.is_displayed()] == [
            str(k) for k in range(step + 1)]
        seen = set().union(*(scene_tokens(scenes[k]) for k in range(step + 1)))
        for k, words in enumerate(shown[:step]):
            cards = {w for w in words[2:] if CARD.fullmatch(w)}
            assert cards <= seen or ended[k], (k, words)  # a deal's last card: played
            if scenes[k].to_act == viewer:
                assert " ".join(words[2:]).startswith(names[k])
        if step < len(names):  # the move about to be made is not shown
            assert shown[step] == [str(step), next(
                s.label for s in scenes[step].seats if s.player == scenes[step].to_act)]
    open_page(browser, f"{page.as_uri()}#step=2", 2)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert browser.current_url.endswith("#step=3")
    assert console_errors(browser) == []
