"""The language switch in a real browser (Playwright, headless Chromium, uvicorn, SQLite): a reader whose
browser asks for English picks Português in the footer, comes back to the same pool page in Portuguese
with 2,5-style numbers, and the choice is remembered on the next page; the Portuguese page passes axe and
fits the screen. Screenshots of the Portuguese pool page at 390 px and 1280 px go to
$OLYMPIAD_SCREENSHOTS (e.g. docs/screenshots) when that is set."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.accessibility import axe
from tests.support.pools import SeededPool, play, seed_small_pool
from tests.support.server import LiveServer

playwright_api = pytest.importorskip("playwright.sync_api")
# White's result on boards 1-6: the first-named team scores ½ + 0 + 1 + 1 + 0 + 0 = 2½, the other 3½
# (the first-named team has White on the odd boards).
HALF_POINT_CODES = ("1/2-1/2", "1-0", "1-0", "0-1", "0-1", "1-0")


@pytest.fixture(scope="module")
def seeded(live_server: LiveServer) -> SeededPool:
    pool = seed_small_pool(live_server.uow_factory)
    play(live_server.uow_factory, min(pool.matches.values()), HALF_POINT_CODES)
    return pool


def shoot(page: Any, tmp_path: Path, name: str) -> None:
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(target) / name)


def test_the_footer_switch_turns_the_page_portuguese_and_remembers_it(
    browser: Any, live_server: LiveServer, seeded: SeededPool
) -> None:
    context = browser.new_context(locale="en-GB", java_script_enabled=False)  # the switch needs no script
    page = context.new_page()
    page.goto(live_server.base_url + seeded.pool_path)
    assert page.locator("html").get_attribute("lang") == "en"
    playwright_api.expect(page.locator("#standings-h")).to_have_text("Standings")
    page.get_by_role("navigation", name="Language").get_by_role("link", name="Português").click()
    page.wait_for_load_state("load")
    assert page.url == live_server.base_url + seeded.pool_path  # back on the same page
    assert page.locator("html").get_attribute("lang") == "pt"
    playwright_api.expect(page.locator("#standings-h")).to_have_text("Classificação")
    playwright_api.expect(page.locator("#cross-h")).to_have_text("Tabela cruzada")
    playwright_api.expect(page.locator("table.cross")).to_contain_text("2,5")
    page.goto(f"{live_server.base_url}/events/{seeded.slug}")  # another page: the cookie keeps the choice
    assert page.locator("html").get_attribute("lang") == "pt"
    context.close()


@pytest.mark.parametrize(("width", "height", "name"), [(390, 844, "phone"), (1280, 900, "desktop")])
def test_the_portuguese_pool_page_fits_the_screen(
    browser: Any,
    live_server: LiveServer,
    seeded: SeededPool,
    width: int,
    height: int,
    name: str,
    tmp_path: Path,
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height}, locale="pt-PT")
    page = context.new_page()
    answer = page.goto(live_server.base_url + seeded.pool_path)
    assert answer is not None and answer.status == 200
    assert page.locator("html").get_attribute("lang") == "pt"  # from the browser's Accept-Language
    playwright_api.expect(page.locator(".live-status")).to_contain_text("Ao vivo")  # live.js's words too
    found = axe().run(page).response["violations"]
    assert not [v["id"] for v in found if v["impact"] in ("serious", "critical")]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shoot(page, tmp_path, f"pool-pt-{name}.png")
    context.close()
