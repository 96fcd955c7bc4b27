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
from kanjax.view import view_html
from tests.view.browser import colours, console_errors
from tests.view.records import mid_trick_step, short_record


@pytest.mark.parametrize("game", kanjax.games())
def test_view_in_browser(game, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    record = short_record(game)
    last = len(record["actions"])
    page = tmp_path / "game.html"
    page.write_text(view_html(record))
    browser.get(page.as_uri())
    assert console_errors(browser) == []
    table = browser.find_element(By.ID, "table")
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
