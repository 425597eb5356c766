"""Times on staff pages in the event's zone (the small test event is in Europe/Oslo), the reader's zone
beside them from the ``tz`` cookie, and a form that takes a local time in the event's zone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role, Round
from orchestrator.services.accounts.users import create_user
from tests.support.factories import running_stage
from tests.support.web import PASSWORD, login


@pytest.fixture
def web(app: FastAPI) -> tuple[FastAPI, int]:
    """The small event running; its round 2 starts 2030-06-01 12:00 UTC, lineups close 11:00 UTC."""
    with app.state.uow_factory() as uow:
        stage_id = running_stage(uow)
        rnd = uow.rounds.rounds_of_stage(stage_id)[1]
        rnd.scheduled_at = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
        rnd.lineup_deadline_at = datetime(2030, 6, 1, 11, 0, tzinfo=UTC)
        uow.session.add(rnd)
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        return app, rnd.id or 0


def test_the_lineup_page_shows_times_in_the_events_zone_and_the_readers_beside(
    web: tuple[FastAPI, int],
) -> None:
    app, round_id = web
    client, _ = login(app, "arbiter")
    page = client.get(f"/staff/rounds/{round_id}/lineups").text
    # 12:00 UTC + 2 h (CEST in June) = 14:00; 11:00 UTC -> 13:00
    assert "2030-06-01 14:00 CEST (Europe/Oslo)" in page and "2030-06-01 13:00 CEST (Europe/Oslo)" in page
    assert 'class="reader-time"' not in page  # no cookie: the event's zone only
    assert 'value="2030-06-01T13:00"' in page and "New deadline (Europe/Oslo time)" in page
    client.cookies.set("tz", "America/New_York")
    page = client.get(f"/staff/rounds/{round_id}/lineups").text
    # 12:00 UTC - 4 h (EDT) = 08:00
    assert "(your time 2030-06-01 08:00 EDT (America/New_York))" in page


def test_the_deadline_form_takes_a_local_time_in_the_events_zone(web: tuple[FastAPI, int]) -> None:
    app, round_id = web
    client, csrf = login(app, "arbiter")
    form = {"csrf_token": csrf, "expected": "2030-06-01T11:00:00+00:00", "reason": "late flight"}
    url = f"/staff/rounds/{round_id}/lineup-deadline"
    moved = client.post(url, data={**form, "deadline": "2030-06-01T13:30"})
    assert moved.status_code == 303, moved.text
    with app.state.uow_factory() as uow:
        stored = uow.session.get(Round, round_id)
        assert stored is not None
        # 13:30 in Oslo (CEST, UTC+2) is 11:30 UTC
        assert stored.lineup_deadline_at == datetime(2030, 6, 1, 11, 30, tzinfo=UTC)


def test_a_local_time_the_clocks_skip_is_refused_by_the_form(web: tuple[FastAPI, int]) -> None:
    app, round_id = web
    client, csrf = login(app, "arbiter")
    form = {"csrf_token": csrf, "expected": "2030-06-01T11:00:00+00:00", "deadline": "2030-03-31T02:30"}
    refused = client.post(f"/staff/rounds/{round_id}/lineup-deadline", data=form)
    assert refused.status_code == 422 and "does not exist in Europe/Oslo" in refused.text


def test_public_pages_show_times_in_the_events_zone_whoever_reads_them(web: tuple[FastAPI, int]) -> None:
    app, _round_id = web
    client, _ = login(app, None)
    page = client.get("/events/small-test-cup/stages/group").text
    # Round 2: 12:00 UTC + 2 h (CEST in June) = 14:00 in Oslo, on Saturday 1 June 2030
    expected = (
        '<time datetime="2030-06-01T12:00:00+00:00" data-zone="Europe/Oslo">'
        "Sat 1 Jun 2030, 14:00 CEST (Europe/Oslo)</time>"
    )
    assert expected in page
    assert "12:00 UTC" not in page
    # A public page is the same for every reader (it is cached): the reader's zone is added in the
    # browser by static/tz.js, never by the server.
    client.cookies.set("tz", "America/New_York")
    again = client.get("/events/small-test-cup/stages/group").text
    assert expected in again and 'class="reader-time"' not in again


def test_a_captains_page_shows_the_rounds_in_the_events_zone(web: tuple[FastAPI, int]) -> None:
    app, round_id = web
    with app.state.uow_factory() as uow:
        [match, *_] = uow.rounds.matches_of_round(round_id)
        team_id = match.first_team_id
    client, _ = login(app, "arbiter")
    page = client.get(f"/captain?team_id={team_id}").text
    # Round 2's lineups close 11:00 UTC = 13:00 CEST in Oslo (staff see a captain's page acting for a team)
    assert "Sat 1 Jun 2030, 13:00 CEST (Europe/Oslo)" in page and "11:00 UTC" not in page
