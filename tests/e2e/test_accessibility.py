"""Accessibility: axe-core (the ``axe-playwright-python`` package bundles it, MPL-2.0) run in headless
Chromium on the spectator pages of a finished demo event and on the staff pages its owner reaches, at
phone (390 px) and desktop (1280 px) width.

A violation of impact "serious" or "critical" fails the test; every violation found (whatever its impact)
is printed with its nodes, so ``pytest -s`` gives the whole report. The team page's matches must also fit
a phone without scrolling sideways. Screenshots of the team page are copied to ``$OLYMPIAD_SCREENSHOTS``
(e.g. docs/screenshots) when that is set. The Swiss stage page and a Swiss team's page are checked on
the small Swiss fixture (two rounds played, the third being played) served by the live server.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.accessibility import axe, failing, report, violations
from tests.support.browser import log_in
from tests.support.demo_served import FinishedDemo
from tests.support.server import LiveServer
from tests.support.swiss import pair_and_publish, pair_publish_play, play_round, running_swiss

pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.timeout(300)]
WIDTHS = [(390, 844), (1280, 900)]


def public_pages(demo: FinishedDemo) -> dict[str, str]:
    """Every kind of spectator page, each with content: pool matches played, a decided play-off."""
    event = f"/events/{demo.slug}"
    pool = f"{event}/stages/group/pools/A"
    [match, *_] = demo.links(pool, rf'href="({event}/matches/\d+)"')
    [team, *_] = demo.links(pool, rf'href="({event}/teams/\d+)"')
    [playoff_match, *_] = demo.links(f"{event}/stages/playoff", rf'href="({event}/matches/\d+)"')
    prizes = f"{event}/stages/group/board-prizes"
    [player, *_] = demo.links(prizes, rf'href="({event}/players/\d+)"')
    return {
        "home": "/",
        "event": event,
        "stage": f"{event}/stages/group",
        "play-off stage": f"{event}/stages/playoff",
        "pool": pool,
        "bracket": f"{event}/bracket",
        "match": match,
        "play-off match": playoff_match,
        "team": team,
        "board prizes": prizes,
        "player": player,
        "login": "/login",
    }


def staff_pages(demo: FinishedDemo) -> dict[str, str]:
    """The results desk (overview, a round, a match's entry form, closing a stage), lineups, audit, lots,
    player links and a player's e-mail form, and the captain's pages as staff see them when acting for a
    team (the same templates a captain gets)."""
    event = f"/events/{demo.slug}"
    [match, *_] = demo.links(f"{event}/stages/group/pools/A", rf'href="{event}/matches/(\d+)"')
    [team, *_] = demo.links(f"{event}/matches/{match}", rf'href="{event}/teams/(\d+)"')
    [player, *_] = demo.links(f"{event}/stages/group/board-prizes", rf'href="{event}/players/(\d+)"')
    return {
        "captain home": f"/captain?team_id={team}",
        "captain lineup": f"/captain/matches/{match}/lineup?team_id={team}",
        "dashboard": f"/staff/events/{demo.slug}",
        "results desk": f"/staff/events/{demo.slug}/results",
        "round results": "/staff/rounds/1/results",
        "match results": "/staff/matches/1/results",
        "close stage": "/staff/stages/1/close",
        "missing lineups": "/staff/rounds/1/lineups",
        "audit log": f"/staff/events/{demo.slug}/audit",
        "lots": "/staff/events/1/lots",
        "play-off desk": "/staff/playoff/2",
        "event setup": "/staff/events/1",
        "player links": f"/staff/events/{demo.slug}/links",
        "player e-mail": f"/staff/events/{demo.slug}/players/{player}/email",
    }


def check(browser: Any, demo: FinishedDemo, pages: dict[str, str], width: int, height: int, *, staff: bool):
    runner = axe()
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    if staff:
        log_in(page, demo.web_url, "owner", demo.owner_password)
    found = {name: violations(page, demo.web_url + path, runner) for name, path in pages.items()}
    context.close()
    text = report(found, width)
    print(text or f"[{width}px] no violation on {', '.join(pages)}")
    bad = failing(found)
    assert not bad, f"serious or critical violations: {bad}\n{text}"


@pytest.mark.parametrize(("width", "height"), WIDTHS)
def test_the_spectator_pages_have_no_serious_accessibility_violation(
    browser: Any, demo_event: FinishedDemo, width: int, height: int
) -> None:
    check(browser, demo_event, public_pages(demo_event), width, height, staff=False)


@pytest.mark.parametrize(("width", "height"), WIDTHS)
def test_the_staff_pages_have_no_serious_accessibility_violation(
    browser: Any, demo_event: FinishedDemo, width: int, height: int
) -> None:
    check(browser, demo_event, staff_pages(demo_event), width, height, staff=True)


def test_on_a_phone_the_team_matches_fit_and_the_roster_says_it_scrolls(
    browser: Any, demo_event: FinishedDemo, tmp_path: Path
) -> None:
    team = public_pages(demo_event)["team"]
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    for width, height in WIDTHS:
        phone = width < 500
        context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
        page = context.new_page()
        page.goto(demo_event.web_url + team)
        overflow = page.evaluate(
            "[...document.querySelectorAll('.table-wrap')].map(e => e.scrollWidth - e.clientWidth)"
        )
        matches_overflow, roster_overflow = overflow
        assert matches_overflow <= 0, f"the team's matches scroll sideways at {width}px"
        hint = page.locator("text=Swipe the table sideways for every round")
        assert hint.is_visible() == phone
        if phone:
            assert roster_overflow > 0  # the hint is there because the roster does scroll
            assert page.locator(".team-matches th.t-stage").is_hidden()
            assert page.locator(".team-matches .t-stage-inline").first.is_visible()
        shot = tmp_path / f"team-{'phone' if phone else 'desktop'}.png"
        page.screenshot(path=str(shot), full_page=True)
        context.close()
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(target) / shot.name)


@pytest.fixture(scope="module")
def swiss_stage(live_server: LiveServer) -> str:
    """The small Swiss stage (tests/fixtures/events/swiss-small.yaml) with two rounds played and the third
    being played; returns the address of its page."""
    factory = live_server.uow_factory
    with factory() as uow:
        stage_id = running_swiss(uow)
    pair_publish_play(factory, stage_id)
    pair_publish_play(factory, stage_id)
    third = pair_and_publish(factory, stage_id)
    play_round(factory, third.round_id, leave=[(1, 4), (2, 4), (3, 4)])
    return "/events/swiss-test-cup/stages/open"


@pytest.mark.parametrize(("width", "height"), WIDTHS)
def test_the_swiss_stage_page_is_accessible_and_fits_a_phone(
    browser: Any, live_server: LiveServer, swiss_stage: str, width: int, height: int, tmp_path: Path
) -> None:
    runner = axe()
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    page = context.new_page()
    url = live_server.base_url + swiss_stage
    [team, *_] = re.findall(r'href="(/events/swiss-test-cup/teams/\d+)"', httpx.get(url).text)
    found = {
        "swiss stage": violations(page, url, runner),
        "swiss stage after round 1": violations(page, url + "?after=1", runner),
        "swiss team": violations(page, live_server.base_url + team, runner),
    }
    text = report(found, width)
    print(text or f"[{width}px] no violation on the Swiss pages")
    bad = failing(found)
    assert not bad, f"serious or critical violations: {bad}\n{text}"
    page.goto(url)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls"
    pairings = page.evaluate(
        "[...document.querySelectorAll('.swiss-pairings')].map(t => t.parentElement.scrollWidth"
        " - t.parentElement.clientWidth)"
    )
    assert pairings and max(pairings) <= 0, f"a round's pairings scroll sideways at {width}px"
    standings = page.locator(".standings-full").first
    team_cell = page.locator(".standings-full .sticky-2").first
    page.locator("#standings .table-wrap").evaluate("e => e.scrollLeft = e.scrollWidth")
    box = team_cell.bounding_box()
    assert box is not None and 0 <= box["x"] < width, "the team column leaves the screen when scrolled"
    assert standings.is_visible()
    hint = page.locator("text=Swipe the table sideways for every tie-break")
    assert hint.is_visible() == (width < 500)
    page.goto(live_server.base_url + team)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the team page scrolls"
    path = page.evaluate(
        "(e => e.scrollWidth - e.clientWidth)(document.querySelector('.swiss-path').parentElement)"
    )
    assert path <= 0, f"the team's path through the Swiss scrolls sideways at {width}px"
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    if target:
        for name, address in (("swiss", url), ("swiss-team", live_server.base_url + team)):
            page.goto(address)
            shot = Path(target) / f"{name}-{'phone' if width < 500 else 'desktop'}.png"
            Path(target).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot), full_page=True)
    context.close()
