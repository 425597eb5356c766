"""Attacks an outside tester made on a running instance, each refused (SQLite in a temporary directory)."""

from __future__ import annotations

import logging
import re
import stat
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from fastapi import FastAPI
from fastapi.testclient import TestClient
from itsdangerous import URLSafeTimedSerializer
from pydantic import ValidationError

from orchestrator.adapters.tables import Role, User
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import dispose_engines, utcnow
from orchestrator.errors import Forbidden, LoginThrottled, ValidationFailed
from orchestrator.services.accounts import users
from orchestrator.services.gameserver import player_links
from orchestrator.services.teams.captains import captain_home, create_captain_invitation
from orchestrator.web.app import SESSION_COOKIE, create_app
from orchestrator.web.http.security import RedactInvitationTokens
from tests.support.accounts import PASSWORD, fail_logins, login, make_owner, settings
from tests.support.databases import schema_at_head
from tests.support.factories import make_event

__all__ = ["settings"]  # the fixture of tests/support/accounts.py (uow_factory comes from conftest)
# The key `olympiad serve` used when OLYMPIAD_SECRET_KEY was not set: it was in the source.
BUILT_IN_KEY = "dev-insecure-secret-change-me"
PRODUCTION = {
    "environment": "production",
    "secret_key": "k" * 32,
    "token_encryption_key": Fernet.generate_key().decode(),
    "public_base_url": "https://olympiad.example.org",
}


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    schema_at_head(settings.sqlalchemy_url)
    application = create_app(settings)
    with TestClient(application):
        with application.state.uow_factory() as uow:
            users.create_user(uow, username="anna", password=PASSWORD, role="owner")
        yield application


def json_login(client: TestClient, username: str = "anna", password: str = PASSWORD) -> str:
    answer = client.post("/api/v1/auth/login", json={"username": username, "password": password})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["csrf_token"])


# --- 1. the session key -------------------------------------------------------------------------------


def test_without_a_configured_key_the_app_keeps_a_random_private_key_in_the_data_directory(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    for data_dir in (first, second):
        create_app(Settings(data_dir=data_dir, environment="test"))
    keys = [(d / "secret_key").read_text().strip() for d in (first, second)]
    assert keys[0] != keys[1] and len(keys[0]) >= 32 and BUILT_IN_KEY not in keys
    assert stat.S_IMODE((first / "secret_key").stat().st_mode) == 0o600


def test_sessions_survive_a_restart_with_the_kept_key(app: FastAPI, settings: Settings) -> None:
    client = TestClient(app)
    json_login(client)
    cookie = client.cookies[SESSION_COOKIE]
    restarted = create_app(settings)
    with TestClient(restarted, cookies={SESSION_COOKIE: cookie}) as again:
        assert again.get("/api/v1/auth/me").json()["user"]["username"] == "anna"


def test_a_session_forged_with_the_old_built_in_key_is_refused(app: FastAPI) -> None:
    with app.state.uow_factory() as uow:
        owner = uow.accounts.get_by_username("anna")
        assert owner is not None
        uid, generation = owner.id, owner.session_generation
    # Starlette's SessionMiddleware signs base64(JSON) with itsdangerous' TimestampSigner.
    from base64 import b64encode

    from itsdangerous import TimestampSigner

    payload = b64encode(f'{{"uid": {uid}, "gen": {generation}, "csrf": "x"}}'.encode())
    forged = TimestampSigner(BUILT_IN_KEY).sign(payload).decode()
    client = TestClient(app, cookies={SESSION_COOKIE: forged})
    assert client.get("/api/v1/auth/me").status_code == 401


def test_a_player_link_signed_with_the_old_built_in_key_is_refused(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    with uow_factory() as uow:
        make_event(uow)
    forged = URLSafeTimedSerializer(BUILT_IN_KEY, salt="player-link-invite").dumps({"p": 1})
    assert player_links.link_token(settings, player_id=1) != forged
    with pytest.raises(Exception, match="not valid"), uow_factory() as uow:
        player_links.start_link(uow, token=forged, settings=settings)


def test_production_refuses_to_start_and_names_every_missing_setting() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(environment="production", public_base_url="http://olympiad.example.org")
    message = str(refused.value)
    for name in ("OLYMPIAD_SECRET_KEY", "OLYMPIAD_TOKEN_ENCRYPTION_KEY", "OLYMPIAD_PUBLIC_BASE_URL"):
        assert name in message


def test_production_refuses_a_short_secret_key_and_a_key_that_is_not_a_fernet_key() -> None:
    with pytest.raises(ValidationError, match="at least 32 bytes"):
        Settings(**{**PRODUCTION, "secret_key": "short-key"})
    with pytest.raises(ValidationError, match="OLYMPIAD_TOKEN_ENCRYPTION_KEY"):
        Settings(**{**PRODUCTION, "token_encryption_key": "not-a-fernet-key"})


def test_a_refused_production_setting_does_not_print_the_secrets_beside_it() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(**{**PRODUCTION, "secret_key": "hunter2-short"})
    # Pydantic prints a shortened copy of the input (start and end) unless told not to: none at all here.
    assert "input_value" not in str(refused.value) and "hunter2-short" not in str(refused.value)


def test_production_starts_with_a_long_key_an_encryption_key_and_an_https_url() -> None:
    assert Settings(**PRODUCTION).environment == "production"  # type: ignore[arg-type]


# --- 3. logout ends the session on the server ----------------------------------------------------------


def test_a_saved_cookie_stops_working_after_logout(app: FastAPI) -> None:
    client = TestClient(app)
    csrf = json_login(client)
    saved = client.cookies[SESSION_COOKIE]
    assert client.post("/api/v1/auth/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
    replay = TestClient(app, cookies={SESSION_COOKIE: saved})
    assert replay.get("/api/v1/auth/me").status_code == 401


def test_a_saved_cookie_stops_working_after_a_password_change(app: FastAPI) -> None:
    client = TestClient(app)
    json_login(client)
    saved = client.cookies[SESSION_COOKIE]
    with app.state.uow_factory() as uow:
        owner = uow.accounts.get_by_username("anna")
        assert owner is not None and owner.id is not None
        users.set_password(uow, user_id=owner.id, password="another long secret", actor="anna")
    assert TestClient(app, cookies={SESSION_COOKIE: saved}).get("/api/v1/auth/me").status_code == 401


# --- 4. re-inviting a captain who has a password -------------------------------------------------------


def captain_with_password(uow_factory: UnitOfWorkFactory) -> tuple[int, int]:
    with uow_factory() as uow:
        event_id = make_event(uow)
        team_id = next(t.id or 0 for t in uow.teams.teams_of_event(event_id) if t.name == "Norway")
        user_id, token = create_captain_invitation(uow, team_id=team_id, actor="arb", actor_role=Role.ARBITER)
    with uow_factory() as uow:
        users.accept_invitation(uow, token=token, password=PASSWORD)
    return team_id, user_id


def test_an_arbiter_may_not_reset_the_password_of_a_captain_who_has_one(
    uow_factory: UnitOfWorkFactory,
) -> None:
    team_id, _ = captain_with_password(uow_factory)
    with pytest.raises(Forbidden, match="owner or an administrator"), uow_factory() as uow:
        create_captain_invitation(uow, team_id=team_id, actor="arb", actor_role=Role.ARBITER)


def test_an_arbiter_may_send_a_new_link_to_a_captain_who_never_set_a_password(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
        team_id = next(t.id or 0 for t in uow.teams.teams_of_event(event_id) if t.name == "Norway")
        first, _ = create_captain_invitation(uow, team_id=team_id, actor="arb", actor_role=Role.ARBITER)
    with uow_factory() as uow:
        again, _ = create_captain_invitation(uow, team_id=team_id, actor="arb", actor_role=Role.ARBITER)
    assert again == first


def test_an_owner_reset_is_audited_and_shown_to_the_captain_with_who_and_when(
    uow_factory: UnitOfWorkFactory,
) -> None:
    team_id, user_id = captain_with_password(uow_factory)
    with uow_factory() as uow:
        create_captain_invitation(uow, team_id=team_id, actor="anna", actor_role=Role.OWNER)
    with uow_factory() as uow:
        actions = [(e.action, e.actor) for e in uow.audit.for_entity("user", user_id)]
        captain = users.AuthUser.of(uow.accounts.get_or_raise(User, user_id))
        home = captain_home(uow, user=captain)
    assert ("user.password_reset_link", "anna") in actions
    assert home.password_reset is not None and home.password_reset.by == "anna"
    assert home.password_reset.at <= utcnow()


def test_the_captain_s_page_says_who_reset_the_password_and_when(app: FastAPI) -> None:
    team_id, user_id = captain_with_password(app.state.uow_factory)
    with app.state.uow_factory() as uow:
        create_captain_invitation(uow, team_id=team_id, actor="anna", actor_role=Role.ADMIN)
        username = uow.accounts.get_or_raise(User, user_id).username
    client = TestClient(app)
    json_login(client, username=username)
    page = client.get("/captain")
    assert page.status_code == 200
    assert "anna sent a new sign-in link for this account on <time" in page.text


# --- 5. login throttling without a lock ----------------------------------------------------------------


def test_the_wait_after_failures_doubles_and_is_capped(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    at, waits = utcnow(), []
    for _ in range(24):
        verdict = login(uow_factory, settings, "wrong password", now=at)
        if isinstance(verdict.refusal, LoginThrottled):
            waits.append(verdict.refusal.retry_after_s)
            at += timedelta(seconds=verdict.refusal.retry_after_s)
    assert waits[:3] == [settings.login_delay_s, 2 * settings.login_delay_s, 4 * settings.login_delay_s]
    assert waits[-1] == waits[-2] == settings.login_delay_max_s


def test_the_right_password_always_works_once_the_wait_has_passed(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    at = utcnow()
    for _ in range(30):  # someone keeps guessing as fast as the waits allow
        verdict = login(uow_factory, settings, "wrong password", now=at)
        retry = verdict.refusal.retry_after_s if isinstance(verdict.refusal, LoginThrottled) else 0
        at += timedelta(seconds=max(retry, 1))
    throttled = login(uow_factory, settings, PASSWORD, now=at - timedelta(seconds=1))
    assert isinstance(throttled.refusal, LoginThrottled)
    assert re.search(r"Try again in \d+ (second|minute)", throttled.refusal.message)
    later = at + timedelta(seconds=settings.login_delay_max_s)
    assert login(uow_factory, settings, PASSWORD, now=later).user is not None


def test_throttled_attempts_do_not_make_the_wait_longer(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    at = utcnow()
    fail_logins(uow_factory, settings, settings.login_max_failures, start=at)
    fail_logins(uow_factory, settings, 50, start=at, step=timedelta(milliseconds=1))
    after_wait = at + timedelta(seconds=settings.login_delay_s)
    assert login(uow_factory, settings, PASSWORD, now=after_wait).user is not None


# --- 6. logs and passwords -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        ("/link/eyJwIjoxfQ.aGVsbG8.c2lnbmVk", "eyJwIjoxfQ.aGVsbG8.c2lnbmVk"),
        ("/link/callback?code=AUTHCODE42&state=STATE42", "AUTHCODE42"),
        ("/link/callback?state=STATE42&code=AUTHCODE42", "STATE42"),
    ],
)
def test_access_logs_do_not_show_player_link_tokens_or_oauth_codes(path: str, secret: str) -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', None, None
    )
    record.args = ("127.0.0.1:5000", "GET", path, "1.1", 200)
    RedactInvitationTokens().filter(record)
    assert secret not in record.getMessage() and "[redacted]" in record.getMessage()


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        ("/%6cink/eyJwIjoxfQ.aGVsbG8.c2lnbmVk", "eyJwIjoxfQ.aGVsbG8.c2lnbmVk"),
        ("/%69nvitation/SECRETTOKEN42", "SECRETTOKEN42"),
        ("/invitation%2FSECRETTOKEN42", "SECRETTOKEN42"),
        ("/link/callback?%63ode=AUTHCODE42", "AUTHCODE42"),
        ("/%6C%69%6E%6B/TOKEN%34%32abc", "TOKEN42abc"),
    ],
)
def test_access_logs_redact_tokens_in_percent_encoded_paths(path: str, secret: str) -> None:
    """docs/security.md, "Logs": the server decodes the path before routing, so the log redacts after
    decoding too."""
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', None, None
    )
    record.args = ("127.0.0.1:5000", "GET", path, "1.1", 200)
    RedactInvitationTokens().filter(record)
    message = record.getMessage()
    assert secret not in message and "[redacted]" in message, message
    assert secret.replace("42", "%34%32") not in message


def test_a_decoded_path_cannot_write_a_second_line_into_the_access_log() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', None, None
    )
    record.args = ("127.0.0.1:5000", "GET", "/%6cink/x%0aFAKE LINE", "1.1", 200)
    RedactInvitationTokens().filter(record)
    assert "\n" not in record.getMessage() and "[redacted]" in record.getMessage()


@pytest.mark.parametrize(
    ("password", "problem"),
    [
        (" " * 10, "characters other than spaces"),
        ("abc" + " " * 9, "characters other than spaces"),
        ("1234567890", "too common"),
        ("QwertyUiop", "too common"),
        ("password123", "too common"),
    ],
)
def test_blank_and_common_passwords_are_refused_with_a_clear_message(password: str, problem: str) -> None:
    problems = users.password_problems(password, username="anna")
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    ("password", "username", "problem"),
    [
        ("olympiad12345", "olympiad", "username"),
        ("12345Olympiad", "olympiad", "username"),
        ("my olympiad password", "olympiad", "username"),
        ("anna2026anna", "anna", "username"),
        ("QWERTYUIOP", "anna", "too common"),
        ("qwertyuiop123", "anna", "too common"),
        ("1q2w3e4r5t!!", "anna", "too common"),
    ],
)
def test_a_password_built_on_the_username_or_a_common_password_is_refused(
    password: str, username: str, problem: str
) -> None:
    """docs/security.md, "Passwords, invitations and resets"."""
    problems = users.password_problems(password, username=username)
    assert any(problem in p for p in problems), problems


def test_creating_an_account_whose_password_holds_its_username_is_refused(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with pytest.raises(ValidationFailed, match="username"), uow_factory() as uow:
        users.create_user(uow, username="olympiad", password="olympiad12345", role="arbiter")


def test_a_long_uncommon_password_is_accepted() -> None:
    assert users.password_problems("tandem walrus ledger", username="anna") == []


def test_creating_an_account_with_a_common_password_is_refused(uow_factory: UnitOfWorkFactory) -> None:
    with pytest.raises(ValidationFailed, match="too common"), uow_factory() as uow:
        users.create_user(uow, username="bob", password="iloveyou123", role="arbiter")


# --- 7. one captain per team, deputies added by the owner, visibly --------------------------------------


def test_an_arbiter_cannot_add_a_hidden_second_captain_to_a_team(app: FastAPI) -> None:
    """docs/security.md, "Captains": a second account acting for a team only by the owner, listed."""
    uowf = app.state.uow_factory
    with uowf() as uow:
        users.create_user(uow, username="arb", password=PASSWORD, role="arbiter")
        event_id = make_event(uow)
        team_id = next(t.id or 0 for t in uow.teams.teams_of_event(event_id) if t.name == "Norway")
        create_captain_invitation(uow, team_id=team_id, actor="anna", actor_role=Role.OWNER)
    arbiter = TestClient(app)
    csrf = json_login(arbiter, "arb")
    answer = arbiter.post(
        f"/staff/teams/{team_id}/captain-invitation",
        data={"csrf_token": csrf, "username": "shadowcap", "event_id": str(event_id)},
    )
    assert answer.status_code in (403, 409)
    with uowf() as uow:
        assert uow.accounts.get_by_username("shadowcap") is None
        assert len(list(uow.accounts.users_of_team(team_id))) == 1


def test_an_owner_adds_a_deputy_captain_only_when_asking_for_one_and_every_captain_is_listed(
    app: FastAPI,
) -> None:
    uowf = app.state.uow_factory
    with uowf() as uow:
        event_id = make_event(uow)
        team_id = next(t.id or 0 for t in uow.teams.teams_of_event(event_id) if t.name == "Norway")
        create_captain_invitation(uow, team_id=team_id, actor="anna", actor_role=Role.OWNER)
    owner = TestClient(app)
    csrf = json_login(owner)
    form = {"csrf_token": csrf, "username": "deputycap", "event_id": str(event_id)}
    silent = owner.post(f"/staff/teams/{team_id}/captain-invitation", data=form)
    assert silent.status_code == 409 and "deputy" in silent.text
    added = owner.post(f"/staff/teams/{team_id}/captain-invitation", data={**form, "deputy": "1"})
    assert added.status_code == 200
    page = owner.get(f"/staff/events/{event_id}/captains", follow_redirects=True).text
    assert "deputycap" in page and "captain-nor-" in page and "deputy" in page
    with uowf() as uow:
        deputy = uow.accounts.get_by_username("deputycap")
        assert deputy is not None
        assert ("captain.deputy_add", "anna") in [
            (e.action, e.actor) for e in uow.audit.for_entity("user", deputy.id)
        ]


def test_the_sqlite_database_and_its_journal_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    """docs/security.md, "Secrets at rest": the database holds password hashes and encrypted tokens."""
    settings = Settings(data_dir=tmp_path, environment="test")
    with TestClient(create_app(settings)) as client:
        client.get("/healthz")
    database = tmp_path / "olympiad.sqlite3"
    assert database.exists()
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    for journal in tmp_path.glob("olympiad.sqlite3-*"):
        assert stat.S_IMODE(journal.stat().st_mode) == 0o600, journal.name
    database.chmod(0o644)  # a file left readable by an earlier version is tightened at the next start
    dispose_engines()
    with TestClient(create_app(settings)) as client:
        client.get("/healthz")
    assert stat.S_IMODE(database.stat().st_mode) == 0o600


@pytest.mark.parametrize("value", ["prod", "Prod", "staging", "live", ""])
def test_an_unknown_environment_is_refused_at_start_up_with_the_values_it_may_take(value: str) -> None:
    """docs/security.md, "Production settings": a misspelt production must not run as development."""
    with pytest.raises(ValidationError, match="OLYMPIAD_ENVIRONMENT must be development, test or production"):
        Settings(environment=value)


def test_production_written_in_capitals_is_production_with_its_checks() -> None:
    with pytest.raises(ValidationError, match="refusing to start in production"):
        Settings(environment="Production")
    assert Settings(**{**PRODUCTION, "environment": " PRODUCTION "}).environment == "production"
