"""The Swiss stage page shows one round's pairings, then the standings; every round is one address
(``?round=N``), linked as tabs, without JavaScript (web/pages/public/swiss_stage.py)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from tests.support.combined import sections_event, start_sections
from tests.support.swiss import matches_of, pair_and_publish, pair_publish_play, running_swiss
from tests.support.web import login

SLUG = "swiss-test-cup"
PAGE = f"/events/{SLUG}/stages/open"
SECTIONS_SLUG = "combined-cup"


@pytest.fixture
def stage_id(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        return running_swiss(uow)


def _ids(app: FastAPI, round_id: int) -> set[str]:
    with app.state.uow_factory() as uow:
        return {str(m.id) for m in matches_of(uow, round_id)}


def _match_links(html: str) -> set[str]:
    pairings = html[html.index('id="pairings"') : html.index('id="standings"')]
    return set(re.findall(r'href="/events/[^/]+/matches/(\d+)"', pairings))


def test_the_page_shows_the_round_being_played_first_then_the_standings(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    one = pair_publish_play(factory, stage_id)
    two = pair_publish_play(factory, stage_id)
    three = pair_and_publish(factory, stage_id)  # paired, not played
    client, _ = login(app, None)
    page = client.get(PAGE).text
    ids = _ids(app, three.round_id)
    assert _match_links(page) == ids  # only round 3's pairings, not rounds 1 and 2
    assert page.index('id="pairings"') < page.index('id="standings"')
    assert "Standings after round 2" in page
    start = page.index('class="round-nav round-tabs"')
    tabs = page[start : page.index("</nav>", start)]
    assert '<span aria-current="page">3</span>' in tabs
    assert f'href="{PAGE}?round=1"' in tabs and f'href="{PAGE}?round=2"' in tabs
    assert f'href="{PAGE}?round=4"' not in tabs  # not paired yet: no address to follow
    older = client.get(f"{PAGE}?round=1").text
    assert _match_links(older) == _ids(app, one.round_id)
    assert "Standings after round 1" in older  # the round shown is complete: its standings
    assert _match_links(client.get(f"{PAGE}?round=2").text) == _ids(app, two.round_id)
    assert "The pairings are published" in client.get(f"{PAGE}?round=5").text


def test_without_a_round_being_played_the_page_shows_the_latest_complete_one(
    app: FastAPI, stage_id: int
) -> None:
    factory = app.state.uow_factory
    pair_publish_play(factory, stage_id)
    two = pair_publish_play(factory, stage_id)
    client, _ = login(app, None)
    page = client.get(PAGE).text
    assert _match_links(page) == _ids(app, two.round_id)


@pytest.mark.parametrize("bad", ["0", "6", "x", "99999999", "-1"])
def test_a_round_that_is_not_one_of_the_stages_is_refused_with_the_rounds_named(
    app: FastAPI, stage_id: int, bad: str
) -> None:
    pair_publish_play(app.state.uow_factory, stage_id)
    client, _ = login(app, None)
    refused = client.get(f"{PAGE}?round={bad}")
    assert refused.status_code == 422 and "choose a round from 1 to 5" in refused.text


def test_the_combined_page_follows_the_event_and_each_sections_stage_only(app: FastAPI) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        ids = start_sections(
            uow, sections_event(["RUS", "CHN", "USA", "UKR"], ["SRB", "RUS", "UKR", "CHN"], rounds=3)
        )
    for stage_id in ids.values():
        pair_publish_play(factory, stage_id)
    client, _ = login(app, None)
    page = client.get(f"/events/{SECTIONS_SLUG}/combined").text
    live = re.search(r'data-live-src="([^"]+)"', page)
    assert live is not None
    followed = sorted(live.group(1).split("?", 1)[1].split("&amp;"))
    assert followed == sorted(f"topic=stage%3A{stage_id}" for stage_id in ids.values())
