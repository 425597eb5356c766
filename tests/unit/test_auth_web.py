"""Login pages, CSRF, session cookie and security headers through the ASGI app (SQLite in a tmp dir)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Event, Team
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user, invite_captain
from orchestrator.web.app import SESSION_COOKIE
from orchestrator.web.deps import safe_next
from orchestrator.web.http.security import RedactInvitationTokens
from tests.support.web import PASSWORD, form_token


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, environment="test", login_max_failures=3, secret_key="s" * 40)


@pytest.fixture
def app(app: FastAPI) -> FastAPI:
    """The app on these settings with one arbiter, anna."""
    with app.state.uow_factory() as uow:
        create_user(uow, username="anna", password=PASSWORD, role="arbiter")
    return app


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    return TestClient(app, follow_redirects=False)


def login_form(client: TestClient, username: str = "anna", password: str = PASSWORD, **extra: str):  # type: ignore[no-untyped-def]
    token = form_token(client.get("/login").text)
    return client.post(
        "/login", data={"username": username, "password": password, "csrf_token": token, **extra}
    )


def test_logging_in_through_the_form_redirects_to_the_next_page_and_shows_the_user(
    client: TestClient,
) -> None:
    answer = login_form(client, next="/api/v1/auth/me")
    assert answer.status_code == 303 and answer.headers["location"] == "/api/v1/auth/me"
    assert client.get("/api/v1/auth/me").json()["user"]["username"] == "anna"
    assert "anna" in client.get("/").text


def test_a_wrong_password_shows_the_form_again_without_echoing_the_password(client: TestClient) -> None:
    answer = login_form(client, password="my secret guess")
    assert "Wrong username or password." in answer.text
    assert "my secret guess" not in answer.text
    assert client.get("/api/v1/auth/me").status_code == 401


def test_the_form_says_when_logins_are_throttled(client: TestClient) -> None:
    for _ in range(3):
        login_form(client, password="wrong password")
    answer = login_form(client)
    assert answer.status_code == 429 and "Too many failed logins" in answer.text
    assert int(answer.headers["retry-after"]) > 0


def test_a_form_post_without_the_csrf_token_is_refused(client: TestClient) -> None:
    client.get("/login")
    answer = client.post("/login", data={"username": "anna", "password": PASSWORD})
    assert answer.status_code == 403 and "Reload the page" in answer.text
    assert client.get("/api/v1/auth/me").status_code == 401


def test_a_form_post_with_another_sessions_token_is_refused(app: FastAPI, client: TestClient) -> None:
    other = TestClient(app)
    stolen = form_token(other.get("/login").text)
    client.get("/login")
    answer = client.post("/login", data={"username": "anna", "password": PASSWORD, "csrf_token": stolen})
    assert answer.status_code == 403


def test_the_api_needs_the_csrf_header_on_unsafe_requests_once_logged_in(client: TestClient) -> None:
    session = client.post("/api/v1/auth/login", json={"username": "anna", "password": PASSWORD}).json()
    assert client.post("/api/v1/auth/logout").status_code == 403
    assert client.get("/api/v1/auth/me").status_code == 200
    assert (
        client.post("/api/v1/auth/logout", headers={"X-CSRF-Token": session["csrf_token"]}).status_code == 204
    )
    assert client.get("/api/v1/auth/me").status_code == 401


def test_the_json_login_accepts_json_only(client: TestClient) -> None:
    answer = client.post(
        "/api/v1/auth/login",
        content='{"username": "anna", "password": "correct horse battery"}',
        headers={"content-type": "text/plain"},
    )
    assert answer.status_code in (415, 422)
    assert client.get("/api/v1/auth/me").status_code == 401


def test_the_json_login_answers_401_for_wrong_credentials(client: TestClient) -> None:
    answer = client.post("/api/v1/auth/login", json={"username": "anna", "password": "nope nope nope"})
    assert answer.status_code == 401 and answer.json()["detail"] == "Wrong username or password."


def test_logging_in_replaces_the_csrf_token_seen_before(client: TestClient) -> None:
    before = form_token(client.get("/login").text)
    login_form(client)
    after = client.get("/api/v1/auth/me").json()["csrf_token"]
    assert after != before


def test_the_session_cookie_is_signed_http_only_and_same_site_lax(client: TestClient) -> None:
    answer = login_form(client)
    cookie = next(v for k, v in answer.headers.multi_items() if k == "set-cookie" and SESSION_COOKIE in v)
    assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
    assert PASSWORD not in cookie
    client.cookies.set(SESSION_COOKIE, client.cookies[SESSION_COOKIE][:-3] + "xyz")
    assert client.get("/api/v1/auth/me").status_code == 401  # a tampered cookie is ignored


def test_pages_carry_security_headers(client: TestClient) -> None:
    headers = client.get("/login").headers
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "same-origin"
    assert headers["cache-control"] == "private, no-store"


def test_logged_in_only_actions_refuse_anonymous_visitors(
    client: TestClient,
) -> None:
    assert client.get("/api/v1/auth/me").status_code == 401
    answer = client.post("/logout", data={"csrf_token": form_token(client.get("/login").text)})
    assert answer.status_code == 401


def test_the_health_check_reports_the_database(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "database": "ok"}


def test_unknown_pages_get_a_404_page_and_unknown_api_paths_json(client: TestClient) -> None:
    page = client.get("/no/such/page")
    assert page.status_code == 404 and "Not found" in page.text
    assert client.get("/api/v1/nothing").json() == {"detail": "This page does not exist."}


def test_an_invitation_link_lets_the_captain_choose_a_password_and_logs_them_in(
    app: FastAPI, client: TestClient
) -> None:
    with app.state.uow_factory() as uow:
        event = uow.events.insert(Event(slug="ev", name="Event"))
        team = uow.teams.insert(Team(event_id=event.id or 0, name="Norway", federation="NOR", seed=1))
        _, token = invite_captain(uow, username="cap", team_id=team.id or 0, actor="anna")
    page = client.get(f"/invitation/{token}")
    assert page.status_code == 200 and "cap" in page.text
    csrf = form_token(page.text)
    mismatch = client.post(
        f"/invitation/{token}",
        data={"password": PASSWORD, "password_again": PASSWORD + "!", "csrf_token": csrf},
    )
    assert mismatch.status_code == 422 and "The two passwords differ." in mismatch.text
    done = client.post(
        f"/invitation/{token}", data={"password": PASSWORD, "password_again": PASSWORD, "csrf_token": csrf}
    )
    assert done.status_code == 303
    assert client.get("/api/v1/auth/me").json()["user"]["role"] == "captain"
    assert client.get(f"/invitation/{token}").status_code == 404  # used once


def test_the_openapi_document_lists_the_auth_api(client: TestClient) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    assert {"/api/v1/auth/login", "/api/v1/auth/logout", "/api/v1/auth/me"} <= set(paths)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/events/x?tab=1", "/events/x?tab=1"),
        ("https://evil.example/", "/"),
        ("//evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("javascript:alert(1)", "/"),
        ("", "/"),
    ],
)
def test_after_login_only_same_site_paths_are_followed(target: str, expected: str) -> None:
    assert safe_next(target) == expected


def test_access_logs_do_not_show_invitation_tokens() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', None, None
    )
    record.args = ("127.0.0.1:5000", "GET", "/invitation/SECRETTOKEN123", "1.1", 200)
    RedactInvitationTokens().filter(record)
    assert "SECRETTOKEN123" not in record.getMessage()
    assert "/invitation/[redacted]" in record.getMessage()
