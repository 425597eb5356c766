"""Staff navigation: where staff land after logging in, the navigation bar on every staff page linking to
every other staff page of the event, and the old numeric-id URLs redirecting to the slug's."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from orchestrator.services.read.dashboard import EVENT_PAGES
from tests.support.factories import make_event, running_stage, stage_id_of
from tests.support.web import PASSWORD, login

SLUG = "small-test-cup"


@pytest.fixture
def web(app: FastAPI) -> FastAPI:
    with app.state.uow_factory() as uow:
        running_stage(uow)
        for role in (Role.OWNER, Role.ARBITER):
            create_user(uow, username=role.value, password=PASSWORD, role=role)
    return app


def event_id(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        event = uow.events.get_by_slug(SLUG)
        assert event is not None
        return event.id or 0


def nav_links(html: str) -> set[str]:
    nav = re.search(r'<nav class="staff-nav[^"]*"[^>]*>(.*?)</nav>', html, re.S)
    assert nav is not None, "the page has no staff navigation"
    return set(re.findall(r'href="([^"]+)"', nav.group(1)))


def test_staff_land_on_the_dashboard_of_the_event_under_way_after_logging_in(web: FastAPI) -> None:
    client, csrf = login(web, None)
    answer = client.post("/login", data={"username": "arbiter", "password": PASSWORD, "csrf_token": csrf})
    assert answer.status_code == 303 and answer.headers["location"] == "/staff"
    landing = client.get("/staff")
    assert landing.status_code == 303 and landing.headers["location"] == f"/staff/events/{SLUG}"
    assert client.get(landing.headers["location"]).status_code == 200


def test_a_login_with_a_target_page_goes_there_and_two_events_under_way_give_the_list(web: FastAPI) -> None:
    client, csrf = login(web, None)
    form = {"username": "owner", "password": PASSWORD, "csrf_token": csrf, "next": "/staff/events"}
    assert client.post("/login", data=form).headers["location"] == "/staff/events"
    with web.state.uow_factory() as uow:
        running_stage(uow, event_id=make_event(uow, slug="second-cup"))
    assert client.get("/staff").headers["location"] == "/staff/events"


def test_every_staff_page_of_the_event_carries_a_navigation_to_every_other(web: FastAPI) -> None:
    client, _ = login(web, "owner")
    with web.state.uow_factory() as uow:
        group = stage_id_of(uow, event_id(web), "group")
        final = stage_id_of(uow, event_id(web), "final")
        rnd = uow.rounds.rounds_of_stage(group)[0]
        match = uow.rounds.matches_of_round(rnd.id or 0)[0]
    expected = {f"/staff/events/{SLUG}{tail}" for _, tail in EVENT_PAGES}
    expected |= {f"/staff/stages/{group}/pools", f"/staff/stages/{final}/pools", "/staff/events"}
    pages = [f"/staff/events/{SLUG}{tail}" for _, tail in EVENT_PAGES] + [
        f"/staff/stages/{group}/pools",
        f"/staff/rounds/{rnd.id}/results",
        f"/staff/rounds/{rnd.id}/lineups",
        f"/staff/matches/{match.id}/results",
        f"/staff/stages/{group}/close",
        f"/staff/stages/{group}/withdrawals",
    ]
    for page in pages:
        answer = client.get(page)
        assert answer.status_code == 200, (page, answer.status_code)
        assert nav_links(answer.text) == expected, page
        assert 'aria-current="page"' in answer.text or page not in expected, page


def test_the_old_numeric_urls_redirect_to_the_slugs_keeping_the_query(web: FastAPI) -> None:
    client, _ = login(web, "owner")
    number = event_id(web)
    for tail in ("", "/rosters", "/lots", "/captains", "/links", "/setup"):
        answer = client.get(f"/staff/events/{number}{tail}?done=imported")
        assert answer.status_code == 308, tail
        assert answer.headers["location"] == f"/staff/events/{SLUG}{tail}?done=imported", tail
    assert client.get(f"/staff/events/{number + 1000}").status_code == 404


def test_public_pages_carry_no_staff_navigation(web: FastAPI) -> None:
    client, _ = login(web, "owner")
    page = client.get(f"/events/{SLUG}")
    assert page.status_code == 200 and 'class="staff-nav' not in page.text
