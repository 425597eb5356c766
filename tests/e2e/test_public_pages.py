"""Spectator pages in a real browser on the 2020 event's Base stage (uvicorn, SQLite, headless Chromium).

The pages work with JavaScript disabled; screenshots of the pool and match pages at desktop (1280) and
phone (390) widths are taken every run, and copied to ``$OLYMPIAD_SCREENSHOTS`` (e.g. docs/screenshots)
when that is set.
"""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from orchestrator.services.results import results
from tests.support.factories import EVENT_2020, make_event, running_stage
from tests.support.server import LiveServer

playwright_api = pytest.importorskip("playwright.sync_api")
SLUG = "online-olympiad-2020"


@dataclass(frozen=True)
class Base:
    pool_path: str
    match_path: str
    match_id: int


@pytest.fixture(scope="module")
def base(live_server: LiveServer) -> Base:
    """Base stage of the 2020 event running; Pool A played to round 4, round 5 under way."""
    factory = live_server.uow_factory
    with factory() as uow:
        event_id = make_event(uow, EVENT_2020)
        stage_id = running_stage(uow, event_id=event_id, stage_key="base")
    with factory() as uow:
        pool = uow.read.pools_of_stages([stage_id])[0]
        rounds = {r.id: r.number for r in uow.read.rounds_of_stages([stage_id])}
        matches = sorted(
            uow.read.matches_of_pools([pool.id or 0]), key=lambda m: (rounds[m.round_id], m.match_no)
        )
        boards = [
            (b.id or 0, b.version, rounds[m.round_id], m.id or 0)
            for m in matches
            for b in uow.read.boards_of_matches([m.id or 0])
        ]
        shown = matches[0]
        for board in uow.read.boards_of_matches([shown.id or 0]):
            board.game_url = f"https://lichess.org/game{board.board_no:04d}"
            board.pgn = (
                f'[Event "FIDE Online Chess Olympiad 2020"]\n[Board "{board.board_no}"]\n\n1. e4 e5 *\n'
            )
            uow.session.add(board)
    rng = random.Random(2020)
    for board_id, version, rnd, _match_id in boards:
        if rnd > 5 or (rnd == 5 and rng.random() < 0.4):
            continue
        code = rng.choices(["1-0", "½-½", "0-1"], [4, 3, 3])[0]
        with factory() as uow:
            results.record_result(
                uow, board_id=board_id, result=code, expected_version=version, actor="arbiter"
            )
    return Base(
        pool_path=f"/events/{SLUG}/stages/base/pools/{pool.letter}",
        match_path=f"/events/{SLUG}/matches/{shown.id}",
        match_id=shown.id or 0,
    )


def test_without_javascript_a_spectator_reads_the_pool_and_follows_a_match_link(
    browser: object, live_server: LiveServer, base: Base
) -> None:
    page = browser.new_context(java_script_enabled=False).new_page()  # type: ignore[attr-defined]
    page.goto(live_server.base_url + base.pool_path)
    assert page.locator("#standings tbody tr").count() == 10
    assert page.locator("#crosstable tbody tr").count() == 10
    assert page.locator("#rounds .round-card").count() == 9
    assert page.locator(".live-status").is_hidden()  # no live indicator without the script
    page.click(f'#rounds a[href="{base.match_path}"]')
    page.wait_for_url(live_server.base_url + base.match_path)
    assert page.locator("table.boards tbody tr").count() == 6
    assert page.locator("a:has-text('Watch game')").count() == 6
    with page.expect_download() as download:
        page.click("table.boards tbody tr >> nth=0 >> a:has-text('PGN')")
    assert download.value.suggested_filename.endswith("-board-1.pgn")


def test_the_team_page_lists_players_with_their_results_without_javascript(
    browser: object, live_server: LiveServer, base: Base
) -> None:
    page = browser.new_context(java_script_enabled=False).new_page()  # type: ignore[attr-defined]
    page.goto(live_server.base_url + base.match_path)
    page.click(".scoreboard .side-first a")
    assert "/teams/" in page.url
    assert page.locator("table.roster tbody tr").count() >= 6
    assert page.locator("table.roster td.game .g-res").count() >= 6 * 4


def test_the_print_layout_hides_navigation(browser: object, live_server: LiveServer, base: Base) -> None:
    page = browser.new_context().new_page()  # type: ignore[attr-defined]
    page.goto(live_server.base_url + base.pool_path)
    page.emulate_media(media="print")
    assert page.locator(".site-header").is_hidden()
    assert page.locator(".crumbs").is_hidden()
    assert page.locator("#standings table").is_visible()


@pytest.mark.parametrize(("width", "height", "name"), [(1280, 900, "desktop"), (390, 844, "phone")])
def test_screenshots_of_the_pool_and_match_pages(
    browser: object, live_server: LiveServer, base: Base, tmp_path: Path, width: int, height: int, name: str
) -> None:
    context = browser.new_context(  # type: ignore[attr-defined]
        viewport={"width": width, "height": height}, device_scale_factor=1 if width > 500 else 2
    )
    page = context.new_page()
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    for label, path in (("pool", base.pool_path), ("match", base.match_path)):
        page.goto(live_server.base_url + path)
        playwright_api.expect(page.locator(".live-status")).to_contain_text("Live")
        file = tmp_path / f"{label}-{name}.png"
        page.screenshot(path=str(file), full_page=True)
        assert file.stat().st_size > 10_000
        # nothing wider than the viewport except inside the scrolling table wrappers
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{label} page scrolls sideways at {width}px"
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            shutil.copy(file, Path(target) / file.name)
    context.close()


def test_a_reader_elsewhere_sees_their_own_time_beside_the_events(
    browser: object, live_server: LiveServer, base: Base
) -> None:
    """The event is in UTC; the page's times carry its zone, and static/tz.js adds the reader's own."""
    tokyo = browser.new_context(timezone_id="Asia/Tokyo").new_page()  # type: ignore[attr-defined]
    tokyo.goto(live_server.base_url + base.match_path)
    event_time = tokyo.locator("time[data-zone='UTC']").first
    playwright_api.expect(event_time).to_contain_text("UTC")
    playwright_api.expect(tokyo.locator(".reader-time").first).to_contain_text("your time")
    tokyo.context.close()
    london = browser.new_context(timezone_id="UTC").new_page()  # type: ignore[attr-defined]
    london.goto(live_server.base_url + base.match_path)
    playwright_api.expect(london.locator("time[data-zone='UTC']").first).to_be_visible()
    assert london.locator(".reader-time").count() == 0  # the same zone: nothing repeated
    london.context.close()


def test_on_a_phone_nothing_covers_the_colour_squares_or_the_game_links_of_a_match(
    browser: object, live_server: LiveServer, base: Base
) -> None:
    """At 390 px the boards stack into a grid; the board number used to be a sticky column wider than the
    grid's first track and covered the White square and the start of "Watch game"."""
    context = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(live_server.base_url + base.match_path)
    covered = page.evaluate(
        """() => Array.from(document.querySelectorAll('.boards .colour, .boards .links a')).filter(el => {
            el.scrollIntoView({block: 'center'});
            const box = el.getBoundingClientRect();
            const left = document.elementFromPoint(box.left + 1, box.top + box.height / 2);
            return !(left === el || el.contains(left));
        }).map(el => el.outerHTML)"""
    )
    shown = page.locator(".boards .colour").count() + page.locator(".boards .links a").count()
    context.close()
    assert shown >= 12, "the match shows its colour squares and game links"
    assert covered == [], covered
