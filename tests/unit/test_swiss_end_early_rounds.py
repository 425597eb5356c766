"""Ending a Swiss stage early (docs/rules.md §10, "Ending a Swiss early") makes the stage's number of
rounds the rounds played everywhere: the event page, the stage page and its JSON twin, the staff set-up
page and the TRF's number of rounds (record 142). The event page names each Swiss stage's system."""

from __future__ import annotations

import re
from datetime import timedelta

from fastapi import FastAPI
from sqlmodel import select

from orchestrator.adapters.tables import Pool, Role
from orchestrator.db import utcnow
from orchestrator.services.accounts.users import create_user
from orchestrator.services.setup.stage_start import start_stage
from orchestrator.services.swiss import entries
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import ACTOR, SWISS_EVENT, pair_and_publish, pair_publish_play, running_swiss
from tests.support.web import PASSWORD, login

SLUG = "swiss-test-cup"
PAGE = f"/events/{SLUG}/stages/open"
JSON = f"/api/v1/events/{SLUG}/stages/open/swiss"


def trf_rounds(text: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith("142 ")]
    return line


def test_the_rounds_played_are_the_stages_rounds_after_an_early_end(app: FastAPI) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        stage_id = running_swiss(uow)
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        pool_id = uow.session.exec(select(Pool).where(Pool.stage_id == stage_id)).one().id
    public, _ = login(app, None)
    staff, _ = login(app, "arbiter")
    assert "5 rounds" in public.get(PAGE).text
    assert trf_rounds(staff.get(f"/staff/pools/{pool_id}/pool.trf").text) == "142 5"
    pair_publish_play(factory, stage_id)
    pair_publish_play(factory, stage_id)
    pair_and_publish(factory, stage_id)
    with factory() as uow:
        later = utcnow() + timedelta(hours=1)
        entries.end_swiss_early(
            uow, stage_id=stage_id, reason="storm", actor=ACTOR, now=later
        ).raise_refusal()

    page = public.get(PAGE).text
    assert re.search(r"\d+ teams · 2 rounds", page) and "5 rounds" not in page
    assert "the stage has 2 rounds" in page
    event_page = public.get(f"/events/{SLUG}").text
    assert "· 2 rounds" in event_page and "· 5 rounds" not in event_page
    body = public.get(JSON).json()
    assert body["pool"]["stage"]["rounds"] == 2 and "the stage has 2 rounds" in body["summary"]
    staff_page = staff.get(f"/staff/events/{SLUG}/setup").text
    assert re.search(r'<td class="num">2</td>', staff_page) and not re.search(
        r'<td class="num">5</td>', staff_page
    )
    assert trf_rounds(staff.get(f"/staff/pools/{pool_id}/pool.trf").text) == "142 2"
    assert trf_rounds(staff.get(f"/api/v1/pools/{pool_id}/trf").text) == "142 2"


def test_the_event_page_names_the_pairing_system_of_each_swiss_stage(app: FastAPI) -> None:
    text = SWISS_EVENT.replace("pairing: fide-team-swiss", "pairing: olympiad-2022", 1)
    assert text != SWISS_EVENT
    with app.state.uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow, text), "open")
        start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    public, _ = login(app, None)
    page = public.get(f"/events/{SLUG}").text
    assert "Team Swiss (Olympiad Pairing Rules, FIDE D.02)" in page and "FIDE C.04.6" not in page


def test_the_event_and_match_pages_show_the_two_period_clock_and_what_the_game_server_plays(
    app: FastAPI,
) -> None:
    assert "time_control: {minutes: 90, moves: 40, then_minutes: 30, increment_seconds: 30}" in SWISS_EVENT
    factory = app.state.uow_factory
    with factory() as uow:
        stage_id = running_swiss(uow)
    published = pair_and_publish(factory, stage_id)
    public, _ = login(app, None)
    full = "Time control: 90 minutes for 40 moves, then 30 minutes, 30 seconds a move from move 1"
    server = "(on the game server, whose clock has a single period: 90 minutes, 30 seconds a move)"
    event_page = public.get(f"/events/{SLUG}").text
    assert full in event_page and server in event_page
    body = public.get(f"/api/v1/events/{SLUG}").json()
    assert body["clock"]["text"] == "90/40+30+30" and body["clock"]["server_minutes"] == 90
    match_id = published.pairings[0].match_id
    match_page = public.get(f"/events/{SLUG}/matches/{match_id}").text
    assert full in match_page and server in match_page
