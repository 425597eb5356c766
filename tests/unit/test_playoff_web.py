"""The play-off over HTTP (ASGI, SQLite): captain isolation through pages, JSON and guessed ids; sealed
nominations invisible to everyone else (pages, API, live messages, audit, error messages) until both are
in; deadlines enforced by the server; the public bracket page and its JSON; the event's own Armageddon
clocks on the pages and in the game's pairing."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Match, Role, Round, Stage
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.domain.teams import Category
from orchestrator.services import live
from orchestrator.services.accounts.users import AuthUser, create_user
from orchestrator.services.playoff.armageddon import (
    NOMINATIONS_CLOSED,
    choose_colour,
    commit_armageddon_lot,
    nominate,
    reveal_armageddon_lot,
)
from orchestrator.services.playoff.armageddon_game import armageddon_pairing, record_armageddon_result
from orchestrator.services.playoff.deadlines import apply_due_deadlines
from orchestrator.services.teams.lineups import ineligibility
from orchestrator.web.app import create_app
from tests.support.databases import schema_at_head
from tests.support.factories import EVENT_2020
from tests.support.playoff import (
    SEED_B,
    PlayoffSetup,
    draw_category,
    duel_match,
    eligible_accounts,
    play_duel,
    playoff_with_bracket,
)
from tests.support.web import PASSWORD, login


@dataclass
class World:
    app: FastAPI
    setup: PlayoffSetup
    duel_id: int
    first: str  # duel III's teams
    second: str
    first_accounts: list[tuple[str, str]]  # (account, name) eligible for the drawn category
    second_accounts: list[tuple[str, str]]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    settings = Settings(data_dir=tmp_path, environment="test", login_max_failures=1000)
    schema_at_head(settings.sqlalchemy_url)
    app = create_app(settings)
    with TestClient(app):
        factory = app.state.uow_factory
        setup = playoff_with_bracket(factory)
        play_duel(factory, setup, "III", "WWWWDD", "LLLLDD")
        duel_id, category = draw_category(factory, setup, "III")
        with factory() as uow:
            first, second = setup.place_team["C2"], setup.place_team["D3"]
            accounts: dict[str, list[tuple[str, str]]] = {}
            for name in (first, second):
                players = uow.teams.players_of_team(setup.team_ids[name])
                accounts[name] = [
                    (p.account, p.name) for p in players if ineligibility(p, Category(category), 2000) is None
                ]
            for username, team in (("cap1", first), ("cap2", second), ("cap3", setup.place_team["A1"])):
                create_user(
                    uow, username=username, password=PASSWORD, role=Role.CAPTAIN, team_id=setup.team_ids[team]
                )
            create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
        yield World(app, setup, duel_id, first, second, accounts[first], accounts[second])


def nominate_html(client: TestClient, csrf: str, duel_id: int, account: str) -> int:
    answer = client.post(
        f"/captain/duels/{duel_id}/nomination", data={"account": account, "csrf_token": csrf}
    )
    return answer.status_code


# --- captain isolation ---------------------------------------------------------------------------------


def test_a_captain_cannot_read_or_change_another_teams_lineup_by_page_json_or_guessed_ids(
    world: World,
) -> None:
    cap1, csrf = login(world.app, "cap1")
    with world.app.state.uow_factory() as uow:
        other_match = duel_match(uow, world.setup, "I", 1)  # cap1's team does not play duel I
        other_team = other_match.first_team_id
        own_match = duel_match(uow, world.setup, "III", 1)
    # Another team's form, named explicitly: refused.
    assert cap1.get(f"/captain/matches/{other_match.id}/lineup?team_id={other_team}").status_code == 403
    assert cap1.get(f"/api/v1/matches/{other_match.id}/lineup?team_id={other_team}").status_code == 403
    answer = cap1.put(
        f"/api/v1/matches/{other_match.id}/lineup",
        json={"team_id": other_team, "boards": [None] * 6},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 403
    # A guessed match id of a match the captain's team does not play: not found, nothing learnt.
    assert cap1.get(f"/captain/matches/{other_match.id}/lineup").status_code == 404
    assert cap1.get(f"/api/v1/matches/{other_match.id}/lineup").status_code == 404
    # The opponent's side of the captain's own match: refused.
    opponent = (
        own_match.second_team_id
        if own_match.first_team_id == world.setup.team_ids[world.first]
        else own_match.first_team_id
    )
    assert cap1.get(f"/api/v1/matches/{own_match.id}/lineup?team_id={opponent}").status_code == 403
    # Staff pages are not for captains.
    assert cap1.get(f"/staff/playoff/{world.setup.playoff_stage_id}").status_code == 403


def test_a_captain_cannot_read_or_make_another_teams_nomination(world: World) -> None:
    cap3, csrf = login(world.app, "cap3")  # Top A 1st: not in duel III
    other = world.setup.team_ids[world.first]
    assert cap3.get(f"/captain/duels/{world.duel_id}/armageddon").status_code == 403
    assert cap3.get(f"/api/v1/duels/{world.duel_id}/armageddon?team_id={other}").status_code == 403
    answer = cap3.put(
        f"/api/v1/duels/{world.duel_id}/nomination",
        json={"team_id": other, "account": world.first_accounts[0][0]},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 403
    cap2, csrf2 = login(world.app, "cap2")
    answer = cap2.put(
        f"/api/v1/duels/{world.duel_id}/nomination",
        json={"team_id": other, "account": world.first_accounts[0][0]},
        headers={"X-CSRF-Token": csrf2},
    )
    assert answer.status_code == 403  # the opponent's captain cannot nominate for the other side


# --- sealing --------------------------------------------------------------------------------------------


def visible_to_others(world: World, client: TestClient) -> str:
    """Everything the other captain and spectators can read about the duel."""
    public = TestClient(world.app)
    parts = [
        public.get(f"/events/{world.setup.slug}/bracket").text,
        public.get(f"/api/v1/events/{world.setup.slug}/bracket").text,
        client.get(f"/captain/duels/{world.duel_id}/armageddon").text,
        client.get(f"/api/v1/duels/{world.duel_id}/armageddon").text,
    ]
    text = "\n".join(parts)
    # The live status and CSRF tokens differ per request; they carry no nomination.
    return re.sub(r'name="csrf_token" value="[^"]+"', "", text)


def test_a_sealed_nomination_is_invisible_to_the_other_captain_and_spectators_whichever_player_it_is(
    world: World,
) -> None:
    cap1, csrf1 = login(world.app, "cap1")
    cap2, csrf2 = login(world.app, "cap2")
    messages: list[live.Message] = []
    live.broadcaster.add_forwarder(messages.append)
    seen = []
    audit_texts = []
    errors = []
    (acc_a, name_a), (acc_b, name_b) = world.first_accounts[0], world.first_accounts[-1]
    assert acc_a != acc_b
    for account in (acc_a, acc_b):
        messages.clear()
        assert nominate_html(cap1, csrf1, world.duel_id, account) == 303
        assert all(acc_a not in json.dumps(m.data) and acc_b not in json.dumps(m.data) for m in messages)
        seen.append(visible_to_others(world, cap2))
        # The other captain's refused nomination (a player of the wrong team) says the same either way.
        answer = cap2.put(
            f"/api/v1/duels/{world.duel_id}/nomination",
            json={"account": acc_a},
            headers={"X-CSRF-Token": csrf2},
        )
        errors.append((answer.status_code, answer.json()))
        with world.app.state.uow_factory() as uow:
            audit_texts.append(json.dumps([(a.action, a.new, a.old, a.reason) for a in uow.audit.latest(50)]))
    assert seen[0] == seen[1]
    for text in seen:
        assert name_a not in text and name_b not in text and acc_a not in text and acc_b not in text
    assert errors[0] == errors[1] and errors[0][0] == 422
    for text in audit_texts:
        assert acc_a not in text and acc_b not in text and name_a not in text and name_b not in text
    # The captain sees their own sealed choice.
    assert name_b in cap1.get(f"/captain/duels/{world.duel_id}/armageddon").text
    # Once both are in, everyone sees both.
    assert nominate_html(cap2, csrf2, world.duel_id, world.second_accounts[0][0]) == 303
    page = TestClient(world.app).get(f"/events/{world.setup.slug}/bracket").text
    assert name_b in page and world.second_accounts[0][1] in page


def test_nominations_are_refused_after_the_deadline_and_the_default_applies(world: World) -> None:
    cap1, csrf1 = login(world.app, "cap1")
    assert nominate_html(cap1, csrf1, world.duel_id, world.first_accounts[0][0]) == 303
    with world.app.state.uow_factory() as uow:
        arm = uow.playoff.armageddon_of_duel(world.duel_id)
        assert arm is not None
        arm.deadline_at = utcnow() - timedelta(seconds=1)
        uow.session.add(arm)
    cap2, csrf2 = login(world.app, "cap2")
    answer = cap2.put(
        f"/api/v1/duels/{world.duel_id}/nomination",
        json={"account": world.second_accounts[0][0]},
        headers={"X-CSRF-Token": csrf2},
    )
    assert answer.status_code == 409 and answer.json()["detail"] == NOMINATIONS_CLOSED
    # Spectators see the nominations as soon as the deadline has passed, defaults applied.
    data = TestClient(world.app).get(f"/api/v1/events/{world.setup.slug}/bracket").json()
    arm_json = next(d for r in data["rounds"] for d in r["duels"] if d["key"] == "III")["armageddon"]
    assert arm_json["sealed"] is False
    assert [n["by_default"] for n in arm_json["nominees"]] == [False, True]
    with world.app.state.uow_factory() as uow:
        done = apply_due_deadlines(uow)
    assert done["armageddons_revealed"] == 1


def a2_captain_and_duel_i_round(uow: UnitOfWork, world: World, username: str) -> tuple[Match, Round]:
    """A captain account ``username`` for Top A 2nd; its first duel match and that match's round."""
    own = world.setup.team_ids[world.setup.place_team["A2"]]
    create_user(uow, username=username, password=PASSWORD, role=Role.CAPTAIN, team_id=own)
    match = duel_match(uow, world.setup, "I", 1)
    return match, uow.rounds.get_or_raise(Round, match.round_id)


def test_lineups_are_refused_after_the_round_deadline(world: World) -> None:
    with world.app.state.uow_factory() as uow:
        match, rnd = a2_captain_and_duel_i_round(uow, world, "cap4")
        rnd.lineup_deadline_at = utcnow() + timedelta(hours=1)
        uow.session.add(rnd)
    cap4, csrf4 = login(world.app, "cap4")
    form = cap4.get(f"/api/v1/matches/{match.id}/lineup").json()
    boards = [b["player_id"] for b in form["boards"]]
    answer = cap4.put(
        f"/api/v1/matches/{match.id}/lineup", json={"boards": boards}, headers={"X-CSRF-Token": csrf4}
    )
    assert answer.status_code == 200, answer.text
    with world.app.state.uow_factory() as uow:
        rnd = uow.rounds.get_or_raise(Round, match.round_id)
        rnd.lineup_deadline_at = utcnow() - timedelta(seconds=1)
        uow.session.add(rnd)
    answer = cap4.put(
        f"/api/v1/matches/{match.id}/lineup", json={"boards": boards}, headers={"X-CSRF-Token": csrf4}
    )
    assert answer.status_code == 409 and "closed" in answer.json()["detail"]
    page = cap4.post(
        f"/captain/matches/{match.id}/lineup",
        data={"csrf_token": csrf4, **{f"board_{i + 1}": str(b or "") for i, b in enumerate(boards)}},
    )
    assert page.status_code == 409


def test_the_public_bracket_page_and_json_show_the_tree_without_login(world: World) -> None:
    public = TestClient(world.app)
    page = public.get(f"/events/{world.setup.slug}/bracket")
    assert page.status_code == 200
    for heading in ("First round", "Quarter-final", "Semi-final", "Final"):
        assert heading in page.text
    assert "data-live-src" in page.text and "duel%3A" in page.text
    data = public.get(f"/api/v1/events/{world.setup.slug}/bracket").json()
    assert [r["name"] for r in data["rounds"]] == ["First round", "Quarter-final", "Semi-final", "Final"]
    third = next(d for r in data["rounds"] for d in r["duels"] if d["key"] == "III")
    assert third["status"] == "armageddon" and third["armageddon"]["category_lot"]["seed_hex"]
    schema = public.get("/api/v1/openapi.json").json()
    assert "/api/v1/events/{slug}/bracket" in schema["paths"]


def test_the_bracket_json_is_kept_by_the_page_cache_until_a_duel_changes(world: World) -> None:
    cache = world.app.state.page_cache
    public = TestClient(world.app)
    path = f"/api/v1/events/{world.setup.slug}/bracket"
    first = public.get(path)
    builds = cache.builds
    again = public.get(path, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and cache.builds == builds
    assert first.headers["cache-control"].startswith("public")
    live.publish(f"duel:{world.duel_id}", duel_id=world.duel_id)
    assert public.get(path).json() == first.json() and cache.builds == builds + 1


def test_staff_move_a_closed_lineup_deadline_and_a_stale_form_names_who_moved_it_first(world: World) -> None:
    with world.app.state.uow_factory() as uow:
        match, rnd = a2_captain_and_duel_i_round(uow, world, "cap5")
        rnd.scheduled_at = (utcnow() + timedelta(hours=2)).replace(second=0, microsecond=0)
        rnd.lineup_deadline_at = rnd.scheduled_at - timedelta(hours=3)  # closed an hour ago
        uow.session.add(rnd)
        closed_at, starts_at = rnd.lineup_deadline_at, rnd.scheduled_at
    cap5, csrf5 = login(world.app, "cap5")
    boards = [b["player_id"] for b in cap5.get(f"/api/v1/matches/{match.id}/lineup").json()["boards"]]

    def submit() -> int:
        answer = cap5.put(
            f"/api/v1/matches/{match.id}/lineup", json={"boards": boards}, headers={"X-CSRF-Token": csrf5}
        )
        return answer.status_code

    assert submit() == 409
    arb, csrf = login(world.app, "arb")
    page = arb.get(f"/staff/rounds/{match.round_id}/lineups")
    assert page.status_code == 200 and "(closed)" in page.text
    url = f"/staff/rounds/{match.round_id}/lineup-deadline"
    reopened = starts_at - timedelta(minutes=30)
    form = {"csrf_token": csrf, "expected": closed_at.isoformat(), "reason": "server outage"}
    moved = arb.post(url, data={**form, "deadline": reopened.strftime("%Y-%m-%dT%H:%M")})
    assert moved.status_code == 303
    assert "(open)" in arb.get(moved.headers["location"]).text
    assert submit() == 200  # the captain can submit again
    with world.app.state.uow_factory() as uow:
        entry = [
            a for a in uow.audit.for_entity("round", match.round_id) if a.action == "round.lineup_deadline"
        ]
    assert [(a.actor, a.reason, a.new) for a in entry] == [
        ("arb", "server outage", {"deadline": reopened.isoformat()})
    ]
    # A second form still showing the old deadline saves nothing and says who moved it.
    stale = arb.post(url, data={**form, "deadline": closed_at.strftime("%Y-%m-%dT%H:%M")})
    assert stale.status_code == 409 and "changed by someone else (arb" in stale.text
    late = {
        **form,
        "expected": reopened.isoformat(),
        "deadline": (starts_at + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
    }
    refused = arb.post(url, data=late)
    assert refused.status_code == 422 and "at or before the start" in refused.text
    assert arb.post(url, data={**form, "deadline": "tomorrow"}).status_code == 422
    assert (
        cap5.post(url, data={**form, "csrf_token": csrf5, "deadline": "2099-01-01T00:00"}).status_code == 403
    )


def test_the_lineup_deadline_is_read_and_moved_through_the_json_api_too(world: World) -> None:
    with world.app.state.uow_factory() as uow:
        round_id = duel_match(uow, world.setup, "II", 1).round_id
        rnd = uow.rounds.get_or_raise(Round, round_id)
        rnd.scheduled_at = utcnow() + timedelta(hours=2)
        rnd.lineup_deadline_at = None  # closes when the round starts
        uow.session.add(rnd)
    arb, csrf = login(world.app, "arb")
    url = f"/api/v1/rounds/{round_id}/lineup-deadline"
    shown = arb.get(url).json()
    assert shown["deadline"] == shown["starts_at"] and shown["open"] and shown["movable"]
    earlier = (utcnow() + timedelta(hours=1)).isoformat()
    body = {"deadline": earlier, "expected": shown["deadline"], "reason": "earlier start"}
    moved = arb.put(url, json=body, headers={"X-CSRF-Token": csrf})
    assert moved.status_code == 200, moved.text
    assert moved.json()["deadline"] == earlier
    again = arb.put(url, json=body, headers={"X-CSRF-Token": csrf})  # still expects the old deadline
    assert again.status_code == 409 and "arb" in again.json()["detail"]
    naive = arb.put(url, json={**body, "deadline": "2030-01-01T10:00"}, headers={"X-CSRF-Token": csrf})
    assert naive.status_code == 422  # a time without its offset is refused, not guessed
    cap, cap_csrf = login(world.app, "cap1")
    assert cap.get(url).status_code == 403
    assert cap.put(url, json=body, headers={"X-CSRF-Token": cap_csrf}).status_code == 403


# --- the event's own Armageddon clocks -------------------------------------------------------------------

STAFF = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)


def level_duel_III_with_nominees_and_colour_chooser(
    factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> tuple[int, str]:
    """Duel III level 1–1 (5–1, 1–5), both nominations in, the colour lot drawn: (duel id, chooser)."""
    play_duel(factory, setup, "III", "WWWWDD", "LLLLDD")
    duel_id, _category = draw_category(factory, setup, "III")
    for place in ("C2", "D3"):
        team = setup.place_team[place]
        with factory() as uow:
            account = eligible_accounts(uow, setup, "III", team)[0]
            nominate(uow, duel_id=duel_id, team_id=setup.team_ids[team], account=account, actor=STAFF)
    with factory() as uow:
        commit_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter", seed=SEED_B)
    with factory() as uow:
        chooser = reveal_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter")
    return duel_id, chooser


@dataclass
class Drawn:
    """Duel III decided by a drawn Armageddon: (5–1, 1–5), the colour chooser took Black."""

    app: FastAPI
    setup: PlayoffSetup
    chooser: str
    stage_key: str


@pytest.fixture
def drawn(tmp_path: Path) -> Iterator[Drawn]:
    app = create_app(Settings(data_dir=tmp_path, environment="test", login_max_failures=1000))
    with TestClient(app):
        factory = app.state.uow_factory
        setup = playoff_with_bracket(factory)
        duel_id, chooser = level_duel_III_with_nominees_and_colour_chooser(factory, setup)
        with factory() as uow:
            choose_colour(uow, duel_id=duel_id, team_id=setup.team_ids[chooser], colour="black", actor=STAFF)
        with factory() as uow:
            record_armageddon_result(uow, duel_id=duel_id, result="1/2-1/2", actor="arbiter")
        with factory() as uow:
            stage_key = uow.events.get_or_raise(Stage, setup.playoff_stage_id).key
        yield Drawn(app, setup, chooser, stage_key)


def test_the_play_off_stage_page_prints_both_matches_and_the_armageddon_from_the_first_teams_side(
    drawn: Drawn,
) -> None:
    setup = drawn.setup
    page = TestClient(drawn.app).get(f"/events/{setup.slug}/stages/{drawn.stage_key}")
    assert page.status_code == 200
    text = re.sub(r"<[^>]+>", "", html.unescape(page.text))
    first, second = setup.place_team["C2"], setup.place_team["D3"]
    white = second if drawn.chooser == first else first
    assert f"Match 1: {first} 5–1 {second}" in text
    assert f"Match 2: {first} 1–5 {second}" in text  # match 2 names {second} first; read from {first}'s side
    assert f"Armageddon ({white} White; a draw sends Black's team through): {first} ½–½ {second}" in text
    assert f"{second} 5–1 {first}" not in text
    assert f'href="/events/{setup.slug}/bracket"' in page.text
    # Each match keeps to one line on a phone; only the Armageddon's longer label may wrap.
    assert page.text.count('<ul class="legs"><li>') >= 1 and page.text.count('<li class="armageddon">') == 1


def test_a_team_page_names_the_armageddon_after_its_duels_match_2_and_every_date_carries_the_year(
    drawn: Drawn,
) -> None:
    setup, public = drawn.setup, TestClient(drawn.app)
    team = public.get(f"/events/{setup.slug}/teams/{setup.team_ids[setup.place_team['C2']]}")
    bracket = public.get(f"/events/{setup.slug}/bracket")
    assert team.status_code == 200 and bracket.status_code == 200
    # the round cells, without the stage line a phone shows above the round
    cells = [
        re.sub(r'<span class="t-stage-inline">.*?</span>|<[^>]+>', "", c).strip()
        for c in re.findall(r"<td>(.*?)</td>", team.text)
    ]
    play_off = [c for c in cells if "match" in c or "Armageddon" in c]
    assert play_off[:3] == ["First round, match 1", "First round, match 2", "Armageddon"]
    assert not re.search(r"\b10\d\d\b", re.sub(r"<[^>]+>", " ", team.text))  # no "round 1003"
    times = re.findall(r"<time[^>]*>([^<]*)</time>", bracket.text)
    assert times and all(re.search(r"\b20\d\d\b", t) for t in times), times


def test_the_event_page_says_which_duels_are_on_and_then_names_the_champion_with_the_bracket(
    tmp_path: Path,
) -> None:
    app = create_app(Settings(data_dir=tmp_path, environment="test", login_max_failures=1000))
    with TestClient(app):
        factory = app.state.uow_factory
        setup = playoff_with_bracket(factory)
        public = TestClient(app)
        during = public.get(f"/events/{setup.slug}")
        for key in ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI"):
            play_duel(factory, setup, key, "WWWDDD", "DDDDDW")
        after = public.get(f"/events/{setup.slug}")

    def now(page: str) -> str:
        section = page.split('id="now"')[1].split(">", 1)[1].split("</section>")[0]
        return " ".join(re.sub(r"<[^>]+>", "", section).split())

    bracket_link = f'href="/events/{setup.slug}/bracket"'
    assert "First round, match 1 starts" in now(during.text) and "duels I, II, III, IV" in now(during.text)
    assert bracket_link in during.text.split('id="timeline"')[1]
    assert now(after.text).startswith(f"Champion {setup.place_team['A1']}")
    assert bracket_link in after.text.split('id="now"')[1].split("</section>")[0]


CLOCKS_2020 = "armageddon: {white_minutes: 5, black_minutes: 4, increment_seconds: 0}"
CLOCKS_6_5_2 = "armageddon: {white_minutes: 6, black_minutes: 5, increment_seconds: 2}"


def test_the_bracket_and_armageddon_pages_show_the_events_own_clocks_and_that_a_draw_sends_black_through(
    tmp_path: Path,
) -> None:
    assert CLOCKS_2020 in EVENT_2020
    app = create_app(Settings(data_dir=tmp_path, environment="test", login_max_failures=1000))
    with TestClient(app):
        factory = app.state.uow_factory
        setup = playoff_with_bracket(factory, definition=EVENT_2020.replace(CLOCKS_2020, CLOCKS_6_5_2))
        with factory() as uow:
            create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
        duel_id, chooser = level_duel_III_with_nominees_and_colour_chooser(factory, setup)
        client, _csrf = login(app, "arb")
        chooser_page = client.get(f"/captain/duels/{duel_id}/armageddon?team_id={setup.team_ids[chooser]}")
        with factory() as uow:
            choose_colour(uow, duel_id=duel_id, team_id=setup.team_ids[chooser], colour="black", actor=STAFF)
        bracket = client.get(f"/events/{setup.slug}/bracket")
        game_page = client.get(f"/captain/duels/{duel_id}/armageddon?team_id={setup.team_ids[chooser]}")
        with factory() as uow:
            spec = armageddon_pairing(uow, duel_id=duel_id).spec
            armageddon_match = duel_match(uow, setup, "III", 3).id
        public_game = TestClient(app).get(f"/events/{setup.slug}/matches/{armageddon_match}")
    clock = "White 6 min, Black 5 min, +2 s"
    for answer in (chooser_page, bracket, game_page, public_game):
        assert answer.status_code == 200, answer.text
        text = html.unescape(answer.text)
        assert clock in text and "5 min, Black 4 min" not in text
        assert "a draw sends Black's team through" in text
    assert html.unescape(bracket.text).count(clock) == 2  # the page's rules line and the duel's card
    # Each lot's hash and seed sit in a "Verify this draw" disclosure (no JavaScript needed).
    verify = re.findall(
        r"<details class=\"verify\"><summary>Verify this draw</summary>(.*?)</details>", bracket.text, re.S
    )
    assert len(verify) == 2 and all("seed " in v and "hash " in v for v in verify)
    assert 'class="hash"' not in re.sub(r"<details.*?</details>", "", bracket.text, flags=re.S)
    assert (spec.white_limit_s, spec.black_limit_s, spec.clock_increment_s) == (360, 300, 2)


def test_no_one_not_even_staff_reads_a_sealed_nomination_before_the_seal_ends(world: World) -> None:
    """docs/rules.md, "The Armageddon" step 2: nominations are sealed for everyone until both are in or the
    deadline passes; staff included, by the page and by the API."""
    cap1, csrf1 = login(world.app, "cap1")
    arb, _ = login(world.app, "arb")
    account, _name = world.first_accounts[0]
    assert nominate_html(cap1, csrf1, world.duel_id, account) == 303
    team_id = world.setup.team_ids[world.first]
    api = arb.get(f"/api/v1/duels/{world.duel_id}/armageddon", params={"team_id": team_id})
    assert api.status_code == 200 and api.json()["own_nomination"] is None
    assert api.json()["armageddon"]["sealed"] is True
    page = arb.get(f"/captain/duels/{world.duel_id}/armageddon", params={"team_id": team_id})
    assert page.status_code == 200 and 'id="own-nomination"' not in page.text
    # the captain still sees their own choice
    own = cap1.get(f"/api/v1/duels/{world.duel_id}/armageddon").json()
    assert own["own_nomination"] is not None
    assert 'id="own-nomination"' in cap1.get(f"/captain/duels/{world.duel_id}/armageddon").text
