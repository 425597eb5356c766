"""A spectator's pool page follows results live (Playwright, headless Chromium, uvicorn, SQLite).

An arbiter enters a result in another browser context; the spectator's page shows it without a reload.
"""

from __future__ import annotations

import pytest

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from tests.support.browser import log_in
from tests.support.pools import SeededPool, play, seed_small_pool
from tests.support.server import LiveServer

playwright_api = pytest.importorskip("playwright.sync_api")
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def seeded(live_server: LiveServer) -> SeededPool:
    pool = seed_small_pool(live_server.uow_factory)
    with live_server.uow_factory() as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    return pool


def spectator_on_pool(browser: object, live_server: LiveServer, seeded: SeededPool) -> object:
    page = browser.new_context().new_page()  # type: ignore[attr-defined]
    page.goto(live_server.base_url + seeded.pool_path)
    playwright_api.expect(page.locator(".live-status")).to_contain_text("Live")  # the stream is open
    page.evaluate("window.__notReloaded = true")
    return page


def test_a_result_entered_by_an_arbiter_appears_on_the_spectators_pool_page_without_a_reload(
    browser: object, live_server: LiveServer, seeded: SeededPool
) -> None:
    spectator = spectator_on_pool(browser, live_server, seeded)
    key = sorted(k for k in seeded.matches if k[0] == 1)[0]
    match_id = seeded.matches[key]
    score = spectator.locator(f'#rounds a[href$="/matches/{match_id}"]')  # type: ignore[attr-defined]
    playwright_api.expect(score).to_have_text("–")

    arbiter = browser.new_context().new_page()  # type: ignore[attr-defined]
    log_in(arbiter, live_server.base_url, "arbiter", PASSWORD)
    with live_server.uow_factory() as uow:
        board_id = uow.read.boards_of_matches([match_id])[0].id
    arbiter.goto(f"{live_server.base_url}/staff/matches/{match_id}/results")
    arbiter.select_option(f"#board-{board_id}", "1-0")
    playwright_api.expect(arbiter.locator(f"#status-{board_id}")).to_have_text("Saved")

    playwright_api.expect(score).to_have_text("1–0")
    assert spectator.evaluate("window.__notReloaded") is True


def test_the_standings_and_cross_table_update_live_when_a_match_is_completed(
    browser: object, live_server: LiveServer, seeded: SeededPool
) -> None:
    spectator = spectator_on_pool(browser, live_server, seeded)
    key = sorted(k for k in seeded.matches if k[0] == 1)[1]
    _, first, _ = key
    top = spectator.locator("#standings tbody tr").first  # type: ignore[attr-defined]
    # the results service in this process publishes after its commit, as a worker's bridge would
    play(live_server.uow_factory, seeded.matches[key], ("1-0", "0-1", "1-0", "0-1", "1-0", "0-1"))
    playwright_api.expect(top).to_contain_text(first)
    playwright_api.expect(spectator.locator("#crosstable td.win").first).to_have_text("6")  # type: ignore[attr-defined]
    assert spectator.evaluate("window.__notReloaded") is True
