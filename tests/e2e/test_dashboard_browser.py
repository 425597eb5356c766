"""The staff dashboard in a real browser (Playwright, headless Chromium, uvicorn, SQLite): an arbiter logs in
and lands on it, sees what waits with the held game's reason, follows a link, and sees a held game leave
the list live (no reload) once its result is entered. Screenshots at 1280 px and 390 px go to
$OLYMPIAD_SCREENSHOTS (e.g. docs/screenshots) when that is set, so a test run never changes the repository.
"""

from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from orchestrator.adapters.tables import LinkStatus, PlayerLink, Role
from orchestrator.db import utcnow
from orchestrator.domain.gameresults import map_status
from orchestrator.services.accounts.users import create_user
from orchestrator.services.gameserver.ingestion import GameUpdate, ingest_games
from orchestrator.services.results import appeals, results
from orchestrator.services.setup import draws
from tests.support.browser import log_in
from tests.support.factories import make_event, running_stage
from tests.support.server import LiveServer

playwright_api = pytest.importorskip("playwright.sync_api")
PASSWORD = "correct horse battery"
SLUG = "dashboard-cup"


@pytest.fixture(scope="module")
def event(live_server: LiveServer) -> dict[str, int]:
    """A running event with a held game, an open appeal, lineups due, a player not linked and a lot."""
    with live_server.uow_factory() as uow:
        event_id = make_event(uow, slug=SLUG)
        stage_id = running_stage(uow, event_id=event_id)
        players = uow.teams.players_of_event(event_id)
        for player in players[1:]:
            uow.teams.insert(PlayerLink(player_id=player.id or 0, status=LinkStatus.LINKED.value))
        rounds = uow.rounds.rounds_of_stage(stage_id)
        match = uow.rounds.matches_of_round(rounds[0].id or 0)[0]
        board = uow.boards.for_match(match.id or 0)[0]
        board.game_id = "e2echeat"
        uow.session.add(board)
        rounds[1].scheduled_at = utcnow() + timedelta(hours=5)
        rounds[1].lineup_deadline_at = utcnow() + timedelta(hours=4)
        uow.session.add(rounds[1])
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    with live_server.uow_factory() as uow:
        ingest_games(uow, games=[GameUpdate("e2echeat", map_status("cheat", "black"))])
        appeals.open_appeal(
            uow, match_id=match.id or 0, actor="arbiter", grounds="clock", deadline_minutes=60
        )
        draws.commit_lot(
            uow, event_id=event_id, purpose="Best board 1 prize tie", candidates=["A", "B"], actor="a"
        )
    return {"match_id": match.id or 0, "board_id": board.id or 0}


def shoot(page: Any, tmp_path: Path, name: str) -> None:
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(target) / name)


def test_an_arbiter_lands_on_the_dashboard_and_a_held_game_leaves_it_live(
    browser: Any, live_server: LiveServer, event: dict[str, int], tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="America/New_York")
    page = context.new_page()
    log_in(page, live_server.base_url, "arbiter", PASSWORD)
    assert page.url == f"{live_server.base_url}/staff/events/{SLUG}"
    items = page.locator(".dashboard-item")
    kinds = [items.nth(i).get_attribute("data-kind") for i in range(items.count())]
    assert kinds == ["held", "appeal", "lineups", "unlinked", "lot"]
    held = page.locator('.dashboard-item[data-kind="held"]')
    playwright_api.expect(held).to_contain_text("fair-play violation")
    page.reload()  # the tz cookie is set now: the reader's New York time shows beside the event's
    playwright_api.expect(page.locator(".reader-time").first).to_contain_text("America/New_York")
    playwright_api.expect(page.locator(".live-status")).to_contain_text("Live")
    shoot(page, tmp_path, "dashboard-desktop.png")
    page.evaluate("window.__notReloaded = true")
    with live_server.uow_factory() as uow:
        board = uow.boards.for_match(event["match_id"])[0]
        results.record_result(
            uow, board_id=board.id or 0, result="0-1", expected_version=board.version, actor="arbiter"
        )
    playwright_api.expect(page.locator('.dashboard-item[data-kind="held"]')).to_have_count(0)
    assert page.evaluate("window.__notReloaded") is True  # swapped in place, not reloaded
    page.locator('.dashboard-item[data-kind="appeal"] a').click()
    page.wait_for_url(f"{live_server.base_url}/staff/events/{SLUG}/appeals#appeal-*")
    assert page.locator("nav.staff-nav a", has_text="Dashboard").count() == 1
    context.close()


def test_on_a_phone_the_dashboard_fits_without_sideways_scrolling(
    browser: Any, live_server: LiveServer, event: dict[str, int], tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = context.new_page()
    log_in(page, live_server.base_url, "arbiter", PASSWORD)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the dashboard scrolls sideways by {overflow}px at 390px"
    assert page.locator(".dashboard-item").count() >= 4
    shoot(page, tmp_path, "dashboard-phone.png")
    context.close()


def test_without_javascript_the_dashboard_is_complete(
    browser: Any, live_server: LiveServer, event: dict[str, int]
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    log_in(page, live_server.base_url, "arbiter", PASSWORD)
    assert page.locator(".dashboard-item").count() >= 4
    assert page.locator(".live-status").is_hidden()  # the live indicator needs the script
    assert page.locator(".reader-time").count() == 0  # no tz cookie: the event's zone only
    context.close()
