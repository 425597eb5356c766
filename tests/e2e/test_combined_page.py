"""The combined classification page (docs/sections.md) in headless Chromium: no serious accessibility
violation (axe-core) at phone and desktop width, the page itself never wider than a 390 px phone (the table
scrolls in its focusable wrapper, with the hint), and readable without JavaScript. Screenshots are copied to
``$OLYMPIAD_SCREENSHOTS`` when that is set."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.accessibility import axe
from tests.support.combined import sections_event, start_sections
from tests.support.server import LiveServer
from tests.support.swiss import pair_and_publish, play_round

pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.timeout(300)]
SLUG = "combined-cup"


@pytest.fixture(scope="module")
def combined_path(live_server: LiveServer) -> str:
    """Open: Russia, China, the United States; Women: Russia, China, Serbia; round 1 played in both."""
    factory = live_server.uow_factory
    with factory() as uow:
        ids = start_sections(
            uow, sections_event(["RUS", "CHN", "USA"], ["RUS", "CHN", "SRB"], rounds=2, slug=SLUG)
        )
    for stage_id in ids.values():
        play_round(factory, pair_and_publish(factory, stage_id).round_id)
    return f"/events/{SLUG}/combined"


@pytest.mark.parametrize(("width", "height", "name"), [(390, 844, "phone"), (1280, 900, "desktop")])
def test_the_combined_page_is_accessible_and_fits_the_screen(
    browser: Any,
    live_server: LiveServer,
    combined_path: str,
    width: int,
    height: int,
    name: str,
    tmp_path: Path,
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    answer = page.goto(live_server.base_url + combined_path)
    assert answer is not None and answer.status == 200
    page.wait_for_load_state("load")
    found = axe().run(page).response["violations"]
    failing = [v["id"] for v in found if v["impact"] in ("serious", "critical")]
    assert not failing, failing
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    wrapper = page.locator(".table-wrap").first
    assert wrapper.get_attribute("tabindex") == "0"
    if width == 390:
        assert page.locator(".scroll-hint").first.is_visible()
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 4  # RUS, CHN with both teams; SRB and USA with one
    shot = tmp_path / f"combined-{name}.png"
    page.screenshot(path=str(shot), full_page=True)
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    if target:
        shutil.copy(shot, Path(target) / shot.name)
    context.close()


def test_without_javascript_the_event_page_links_to_the_classification(
    browser: Any, live_server: LiveServer, combined_path: str
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.base_url}/events/{SLUG}")
    page.get_by_role("link", name="Combined classification of the sections").click()
    assert page.url.endswith(combined_path)
    assert page.get_by_role("table").locator("caption").inner_text() == "Federations by the sum of places"
    context.close()
