"""Every "Watch game" link of a finished demo opens the game on the stand-in game server: a page with the
players and the moves (orchestrator/standin/gamepage.py), the same moves as the PGN our match page offers.

The links are followed from pool A's match pages and the play-off's, in a browser without JavaScript
for one of them and over HTTP for all.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import httpx
import pytest

from tests.support.demo_served import FinishedDemo

pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.timeout(300)]


def sans(pgn: str) -> list[str]:
    """The moves of a PGN's movetext (no comments or variations in ours)."""
    movetext = re.sub(r"^\[.*\]$", "", pgn, flags=re.M)
    return [t for t in movetext.split() if not re.match(r"^(\d+\.+|1-0|0-1|1/2-1/2|\*)$", t)]


def moves_on(page: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<span class="ply">([^<]+)</span>', page)]


def match_pages(demo: FinishedDemo) -> list[str]:
    event = f"/events/{demo.slug}"
    pattern = rf'href="({event}/matches/\d+)"'
    found = demo.links(f"{event}/stages/group/pools/A", pattern)
    found += demo.links(f"{event}/stages/playoff", pattern)
    return list(dict.fromkeys(found))


def test_every_watch_game_link_of_the_match_pages_opens_the_game_with_its_moves(demo_event: FinishedDemo):
    pages = match_pages(demo_event)
    assert len(pages) >= 6 + 2  # pool A's six matches, the play-off's duels
    checked = 0
    with httpx.Client(base_url=demo_event.web_url, timeout=30) as http:
        for path in pages:
            html = http.get(path).text
            rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)
            for row in rows:
                link = re.search(r'<a href="([^"]+)"[^>]*>Watch game</a>', row)
                if link is None:
                    continue
                url = link.group(1)
                assert url.startswith(demo_event.standin_url + "/"), url
                game = httpx.get(url, timeout=30)
                assert game.status_code == 200, url
                moves = moves_on(game.text)
                assert moves, f"{url} shows no move"
                pgn_link = re.search(r'<a href="([^"]+\.pgn)" download>PGN</a>', row)
                if pgn_link is not None:
                    assert moves == sans(http.get(pgn_link.group(1)).text), url
                checked += 1
    assert checked >= 6 * 6  # every board of pool A at least


def test_without_javascript_a_spectator_clicks_watch_game_and_reads_the_moves(
    browser: Any, demo_event: FinishedDemo
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(demo_event.web_url + match_pages(demo_event)[0])
    with context.expect_page() as opened:  # the link opens a new tab
        page.click("table.boards tbody tr >> nth=0 >> a:has-text('Watch game')")
    game = opened.value
    game.wait_for_load_state()
    assert game.url.startswith(demo_event.standin_url)
    assert game.locator("h1").inner_text().startswith("White: ")
    assert game.locator(".moves li").count() >= 1
    assert game.locator("figure svg").count() == 1  # the final position
    context.close()
