"""Every route declares who may use it, and the declaration holds for every kind of visitor.

Enumerates app.routes × (anonymous, captain, arbiter, admin, owner): a route without a rule fails the
test; each visitor the rule admits gets past authorisation, each one it refuses gets 401/403 or is sent
to the login page. Unsafe requests carry a valid CSRF token, so this tests authorisation, not CSRF.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Event, Role, Team
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user
from orchestrator.web.app import create_app
from orchestrator.web.auth import AccessRule, RouteInfo, iter_routes
from tests.support.web import PASSWORD, login

PERSONAS: tuple[Role | None, ...] = (None, Role.CAPTAIN, Role.ARBITER, Role.ADMIN, Role.OWNER)
SAMPLE_PATH_VALUES = {"token": "not-a-real-token", "path": "site.css"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    data_dir: Path = tmp_path_factory.mktemp("matrix")
    application = create_app(Settings(data_dir=data_dir, environment="test", login_max_failures=1000))
    with TestClient(application):  # runs the lifespan: migrates the SQLite file
        with application.state.uow_factory() as uow:
            event = uow.events.insert(Event(slug="ev", name="Event"))
            uow.teams.insert(Team(event_id=event.id or 0, name="Norway", federation="NOR", seed=1))
            # The captain persona's team is not team 1: the sample invitation path (team 1) then invites a
            # captain without a password, which every staff role may (resetting a password is not).
            team = uow.teams.insert(Team(event_id=event.id or 0, name="Sweden", federation="SWE", seed=2))
            for role in PERSONAS:
                if role is not None:
                    create_user(
                        uow,
                        username=role.value,
                        password=PASSWORD,
                        role=role,
                        team_id=team.id if role is Role.CAPTAIN else None,
                    )
        yield application


def client_for(app: FastAPI, role: Role | None) -> tuple[TestClient, str]:
    """A client logged in as ``role`` (or anonymous) and its session's CSRF token."""
    return login(app, role.value if role else None)


def requests_of(route: RouteInfo) -> list[tuple[str, str]]:
    """(method, concrete path) pairs that exercise ``route``."""
    if route.is_mount:
        return [("GET", f"{route.path}/site.css")]
    concrete = re.sub(r"\{(\w+)(:\w+)?\}", lambda m: SAMPLE_PATH_VALUES.get(m.group(1), "1"), route.path)
    methods = sorted((route.methods or {"GET"}) - {"HEAD"})
    return [(method, concrete) for method in methods]


def denied(status: int, location: str) -> bool:
    return status in (401, 403) or (status in (302, 303, 307) and location.startswith("/login"))


def test_every_route_declares_an_access_rule(app: FastAPI) -> None:
    missing = [route.path for route in iter_routes(app) if route.rule is None]
    assert missing == [], f"routes without an access rule: {missing}"


def test_the_routes_include_the_pages_and_the_api_so_the_matrix_is_not_empty(app: FastAPI) -> None:
    paths = {route.path for route in iter_routes(app)}
    assert {"/login", "/logout", "/api/v1/auth/login", "/api/v1/auth/me", "/healthz", "/static"} <= paths
    spectators = {"/", "/events/{slug}", "/events/{slug}/live", "/api/v1/events/{slug}/matches/{match_id}"}
    assert spectators <= paths


@pytest.mark.parametrize("role", PERSONAS, ids=lambda r: r.value if r else "anonymous")
def test_each_visitor_gets_exactly_what_each_route_rule_allows(app: FastAPI, role: Role | None) -> None:
    client, csrf = client_for(app, role)
    wrong: list[str] = []
    for route in iter_routes(app):
        rule = route.rule
        assert isinstance(rule, AccessRule), route.path
        for method, path in requests_of(route):
            if path in ("/logout", "/api/v1/auth/logout"):
                continue  # would end this client's session; covered by the logout test below
            answer = client.request(method, path, headers={"X-CSRF-Token": csrf})
            was_denied = denied(answer.status_code, answer.headers.get("location", ""))
            if rule.allows(role) == was_denied:
                wrong.append(f"{method} {path}: rule {rule.name!r}, got {answer.status_code}")
    assert wrong == []


@pytest.mark.parametrize("role", PERSONAS, ids=lambda r: r.value if r else "anonymous")
def test_logout_is_for_logged_in_users_only(app: FastAPI, role: Role | None) -> None:
    for path in ("/logout", "/api/v1/auth/logout"):
        client, csrf = client_for(app, role)
        answer = client.post(path, headers={"X-CSRF-Token": csrf})
        assert denied(answer.status_code, answer.headers.get("location", "")) == (role is None), path


def test_the_play_off_routes_are_in_the_matrix_with_their_rules(app: FastAPI) -> None:
    rules = {route.path: route.rule for route in iter_routes(app)}
    assert rules["/events/{slug}/bracket"] is not None and rules["/events/{slug}/bracket"].allows(None)
    assert rules["/api/v1/events/{slug}/bracket"] is not None and rules[
        "/api/v1/events/{slug}/bracket"
    ].allows(None)
    for path in ("/captain", "/captain/matches/{match_id}/lineup", "/api/v1/duels/{duel_id}/nomination"):
        rule = rules[path]
        assert rule is not None and rule.allows(Role.CAPTAIN) and not rule.allows(None)
    for path in (
        "/staff/playoff/{stage_id}",
        "/api/v1/playoff/{stage_id}/build",
        "/staff/teams/{team_id}/captain-invitation",
    ):
        rule = rules[path]
        assert rule is not None and rule.allows(Role.ARBITER) and not rule.allows(Role.CAPTAIN)


def test_the_late_change_rulings_are_for_staff_and_in_the_matrix(app: FastAPI) -> None:
    rules = {route.path: route.rule for route in iter_routes(app)}
    for path in (
        "/staff/late-changes/{late_change_id}/{ruling}",
        "/api/v1/late-changes/{late_change_id}/{ruling}",
        "/api/v1/stages/{stage_id}/late-changes",
    ):
        rule = rules[path]
        assert rule is not None and rule.allows(Role.ARBITER) and rule.allows(Role.ADMIN), path
        assert not rule.allows(Role.CAPTAIN) and not rule.allows(None), path


def test_a_pool_withdrawal_is_for_the_staff_who_record_forfeits_and_in_the_matrix(app: FastAPI) -> None:
    rules = {(route.path, method): route.rule for route in iter_routes(app) for method in route.methods or ()}
    forfeit = rules[("/api/v1/matches/{match_id}/forfeit", "PUT")]
    assert forfeit is not None
    for key in (
        ("/staff/stages/{stage_id}/withdrawals", "GET"),
        ("/staff/stages/{stage_id}/withdrawals", "POST"),
        ("/api/v1/stages/{stage_id}/teams/{team_id}/withdrawal", "GET"),
        ("/api/v1/stages/{stage_id}/teams/{team_id}/withdrawal", "POST"),
    ):
        rule = rules[key]
        assert rule is not None and rule.name == forfeit.name, key
        assert rule.allows(Role.ARBITER) and rule.allows(Role.ADMIN) and rule.allows(Role.OWNER), key
        assert not rule.allows(Role.CAPTAIN) and not rule.allows(None), key


def test_the_swiss_round_desk_is_for_staff_and_its_public_stage_for_everyone(app: FastAPI) -> None:
    rules = {(route.path, method): route.rule for route in iter_routes(app) for method in route.methods or ()}
    for key in (
        ("/api/v1/swiss/stages/{stage_id}/pair-next-round", "POST"),
        ("/api/v1/swiss/stages/{stage_id}/draft", "GET"),
        ("/api/v1/swiss/rounds/{round_id}", "GET"),
        ("/api/v1/swiss/rounds/{round_id}/publish", "POST"),
        ("/api/v1/swiss/rounds/{round_id}/re-pair", "POST"),
        ("/api/v1/swiss/rounds/{round_id}/override", "POST"),
        ("/api/v1/swiss/stages/{stage_id}/teams/{team_id}/withdraw", "POST"),
        ("/api/v1/swiss/stages/{stage_id}/teams/{team_id}/late-entry", "POST"),
        ("/api/v1/swiss/stages/{stage_id}/teams/{team_id}/absent", "POST"),
        ("/api/v1/swiss/stages/{stage_id}/end-early", "POST"),
        ("/staff/swiss/{stage_id}", "GET"),
        ("/staff/swiss/{stage_id}/pair", "POST"),
        ("/staff/swiss/rounds/{round_id}/publish", "POST"),
        ("/staff/swiss/rounds/{round_id}/re-pair", "POST"),
        ("/staff/swiss/rounds/{round_id}/override", "POST"),
        ("/staff/swiss/{stage_id}/withdraw", "POST"),
        ("/staff/swiss/{stage_id}/absent", "POST"),
        ("/staff/swiss/{stage_id}/late-entry", "POST"),
        ("/staff/swiss/{stage_id}/end-early", "POST"),
    ):
        rule = rules[key]
        assert rule is not None and rule.allows(Role.ARBITER) and rule.allows(Role.ADMIN), key
        assert not rule.allows(Role.CAPTAIN) and not rule.allows(None), key
    public = rules[("/api/v1/events/{slug}/stages/{stage_key}/swiss", "GET")]
    assert public is not None and public.allows(None)
