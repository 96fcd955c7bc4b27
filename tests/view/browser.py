"""Headless Chromium for the page tests (issue 29): Debian's `chromium` and `chromium-driver`,
driven by selenium. Where they are missing the tests that use `browser` skip, except when
KANJAX_REQUIRE_BROWSER=1 (CI, `.ci/run`): then they fail."""

from __future__ import annotations

import io
import os
import shutil

import pytest

LAUNCH_ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run", "--window-size=1400,1000")


def _missing_browser() -> str | None:
    """What of the browser is missing, or None."""
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "no chromium on PATH"
    if not shutil.which("chromedriver"):
        return "no chromedriver on PATH"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module, its console log readable."""
    missing = _missing_browser()
    if missing:
        if os.environ.get("KANJAX_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{missing}, but KANJAX_REQUIRE_BROWSER=1: install Debian's chromium "
                        "and chromium-driver (`.ci/run` does)")
        pytest.skip(f"{missing}: apt-get install chromium chromium-driver to run these")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for arg in LAUNCH_ARGS:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


def console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def colours(png: bytes) -> int:
    """How many distinct colours a PNG has (a blank page has one or two)."""
    from PIL import Image

    return len(Image.open(io.BytesIO(png)).convert("RGB").getcolors(1 << 24))


def browser_or_none(request: pytest.FixtureRequest):
    """The `browser` fixture, or None where the browser is missing and not required (a test
    with other checks runs them and skips only its browser part)."""
    if _missing_browser() and os.environ.get("KANJAX_REQUIRE_BROWSER") != "1":
        return None
    return request.getfixturevalue("browser")


def open_page(driver, url: str, step: int | None = None):
    """Load a page of `kanjax view` and wait until it has unpacked its frames and shows a
    step (`step`, where given); its table element."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)

    def ready(d) -> bool:
        shown = d.find_element(By.ID, "table").get_attribute("data-step")
        return shown is not None and (step is None or shown == str(step))

    WebDriverWait(driver, 30).until(ready)
    return driver.find_element(By.ID, "table")
