"""Accessibility: axe-core (the ``axe-playwright-python`` package bundles it, MPL-2.0) run in headless
Chromium on the spectator pages of a finished demo event and on the staff pages its owner reaches, at
phone (390 px) and desktop (1280 px) width.

A violation of impact "serious" or "critical" fails the test; every violation found (whatever its impact)
is printed with its nodes, so ``pytest -s`` gives the whole report. The team page's matches must also fit
a phone without scrolling sideways. Screenshots of the team page are copied to ``$OLYMPIAD_SCREENSHOTS``
(e.g. docs/screenshots) when that is set.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import log_in
from tests.support.ci import missing
from tests.support.demo_served import FinishedDemo

pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.timeout(300)]
WIDTHS = [(390, 844), (1280, 900)]
FAILING = ("serious", "critical")


def public_pages(demo: FinishedDemo) -> dict[str, str]:
    """Every kind of spectator page, each with content: pool matches played, a decided play-off."""
    event = f"/events/{demo.slug}"
    pool = f"{event}/stages/group/pools/A"
    [match, *_] = demo.links(pool, rf'href="({event}/matches/\d+)"')
    [team, *_] = demo.links(pool, rf'href="({event}/teams/\d+)"')
    [playoff_match, *_] = demo.links(f"{event}/stages/playoff", rf'href="({event}/matches/\d+)"')
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
        "login": "/login",
    }


def staff_pages(demo: FinishedDemo) -> dict[str, str]:
    """The results desk (overview, a round, a match's entry form, closing a stage), lineups, audit, lots."""
    return {
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
    }


def axe() -> Any:
    """axe-core's runner (a dev dependency): a missing package fails under CI=true, skips elsewhere."""
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        missing("axe-playwright-python is not installed (pip install -e '.[dev]')")
    return Axe()


def violations(page: Any, url: str, runner: Any) -> list[dict[str, Any]]:
    answer = page.goto(url)
    assert answer is not None and answer.status == 200, f"{url}: {answer.status if answer else None}"
    page.wait_for_load_state("load")
    return list(runner.run(page).response["violations"])


def report(found: dict[str, list[dict[str, Any]]], width: int) -> str:
    """Every violation with its nodes, page by page."""
    lines = []
    for name, items in found.items():
        for v in items:
            head = f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes)"
            lines.append(f"[{width}px] {name}: {head}")
            for node in v["nodes"]:
                summary = " ".join((node.get("failureSummary") or "").split())
                lines.append(f"    {' '.join(map(str, node['target']))}: {node['html'][:200]} | {summary}")
    return "\n".join(lines)


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
    failing = [f"{name}: {v['id']}" for name, items in found.items() for v in items if v["impact"] in FAILING]
    assert not failing, f"serious or critical violations: {failing}\n{text}"


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
