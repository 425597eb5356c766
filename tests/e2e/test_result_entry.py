"""Result entry in a real browser (Playwright, headless Chromium) against uvicorn with a SQLite file.

With JavaScript a board saves as soon as a result is chosen and shows "Saved"; without JavaScript the
"Save results" button saves; when someone else saved first the board shows "Changed by someone else".
"""

from __future__ import annotations

import pytest

from orchestrator.adapters.tables import Board, Role
from orchestrator.services.accounts.users import create_user
from orchestrator.services.results import results
from tests.support.browser import log_in
from tests.support.pool_builder import BuiltPool, build_pool
from tests.support.server import LiveServer

playwright_api = pytest.importorskip("playwright.sync_api")
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def pool(live_server: LiveServer) -> BuiltPool:
    with live_server.uow_factory() as uow:
        built = build_pool(uow, slug="browser-cup")
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    return built


def logged_in_page(browser: object, live_server: LiveServer, *, javascript: bool) -> object:
    context = browser.new_context(java_script_enabled=javascript)  # type: ignore[attr-defined]
    page = context.new_page()
    log_in(page, live_server.base_url, "arbiter", PASSWORD)
    return page


def stored(live_server: LiveServer, board_id: int) -> Board:
    with live_server.uow_factory() as uow:
        board = uow.boards.get_or_raise(Board, board_id)
        uow.session.expunge(board)
        return board


def test_choosing_a_result_saves_the_board_and_shows_saved(
    browser: object, live_server: LiveServer, pool: BuiltPool
) -> None:
    page = logged_in_page(browser, live_server, javascript=True)
    match_id = pool.match(1, "Norway")
    board_id = pool.boards[match_id][0]
    page.goto(f"{live_server.base_url}/staff/matches/{match_id}/results")  # type: ignore[attr-defined]
    page.select_option(f"#board-{board_id}", "1-0")  # type: ignore[attr-defined]
    status = page.locator(f"#status-{board_id}")  # type: ignore[attr-defined]
    playwright_api.expect(status).to_have_text("Saved")
    board = stored(live_server, board_id)
    assert (board.result, board.version, board.updated_by) == ("1-0", 2, "arbiter")
    # a second choice on the same page uses the new version and is saved too
    page.select_option(f"#board-{board_id}", "½-½")  # type: ignore[attr-defined]
    playwright_api.expect(status).to_have_text("Saved")
    assert stored(live_server, board_id).version == 3


def test_without_javascript_the_save_results_button_saves(
    browser: object, live_server: LiveServer, pool: BuiltPool
) -> None:
    page = logged_in_page(browser, live_server, javascript=False)
    match_id = pool.match(2, "Norway")
    b1, b2 = pool.boards[match_id][:2]
    page.goto(f"{live_server.base_url}/staff/matches/{match_id}/results")  # type: ignore[attr-defined]
    page.select_option(f"#board-{b1}", "0-1")  # type: ignore[attr-defined]
    page.select_option(f"#board-{b2}", "-/+")  # type: ignore[attr-defined]
    assert stored(live_server, b1).result == "*"  # nothing saved before the button
    page.click(f"#match-{match_id} button:has-text('Save results')")  # type: ignore[attr-defined]
    playwright_api.expect(page.locator(".message-notice")).to_contain_text("Saved (2 boards)")  # type: ignore[attr-defined]
    assert (stored(live_server, b1).result, stored(live_server, b2).result) == ("0-1", "-/+")


def test_a_board_changed_by_someone_else_shows_the_stored_result_and_saves_nothing(
    browser: object, live_server: LiveServer, pool: BuiltPool
) -> None:
    page = logged_in_page(browser, live_server, javascript=True)
    match_id = pool.match(3, "Norway")
    board_id = pool.boards[match_id][1]
    page.goto(f"{live_server.base_url}/staff/matches/{match_id}/results")  # type: ignore[attr-defined]
    with live_server.uow_factory() as uow:  # another arbiter saves while the page is open
        results.record_result(uow, board_id=board_id, result="0-1", expected_version=1, actor="bob")
    page.select_option(f"#board-{board_id}", "1-0")  # type: ignore[attr-defined]
    status = page.locator(f"#status-{board_id}")  # type: ignore[attr-defined]
    playwright_api.expect(status).to_contain_text("Changed by someone else")
    playwright_api.expect(status).to_contain_text("bob saved 0-1")
    assert page.input_value(f"#board-{board_id}") == "0-1"  # type: ignore[attr-defined]
    board = stored(live_server, board_id)
    assert (board.result, board.version, board.updated_by) == ("0-1", 2, "bob")
