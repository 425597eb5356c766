"""Logging in and out over real HTTP, as a browser without JavaScript would."""

from __future__ import annotations

import re

import httpx
import pytest

from orchestrator.services.accounts.users import create_user
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"


def csrf_field(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


def test_a_staff_member_logs_in_with_the_form_sees_their_name_and_logs_out(live_server: LiveServer) -> None:
    with live_server.uow_factory() as uow:
        create_user(
            uow, username="arbiter.one", password=PASSWORD, role="arbiter", display_name="Ana Arbiter"
        )
    with httpx.Client(base_url=live_server.base_url, follow_redirects=True) as browser:
        login_page = browser.get("/login")
        assert login_page.status_code == 200 and "<form" in login_page.text
        home = browser.post(
            "/login",
            data={"username": "Arbiter.One", "password": PASSWORD, "csrf_token": csrf_field(login_page.text)},
        )
        # staff land on their events (no event under way here: the list), not on the public home
        assert home.status_code == 200 and str(home.url) == f"{live_server.base_url}/staff/events"
        assert "Ana Arbiter" in home.text and "Log out" in home.text
        me = browser.get("/api/v1/auth/me").json()
        assert me["user"]["role"] == "arbiter"

        after = browser.post("/logout", data={"csrf_token": csrf_field(home.text)})
        assert after.status_code == 200 and "Log out" not in after.text
        assert browser.get("/api/v1/auth/me").status_code == 401


def test_a_login_post_from_another_site_without_the_token_is_refused(live_server: LiveServer) -> None:
    with live_server.uow_factory() as uow:
        create_user(uow, username="owner.one", password=PASSWORD, role="owner")
    with httpx.Client(base_url=live_server.base_url) as attacker:
        answer = attacker.post(
            "/login",
            data={"username": "owner.one", "password": PASSWORD},
            headers={"Origin": "https://evil.example"},
        )
        assert answer.status_code == 403
        assert attacker.get("/api/v1/auth/me").status_code == 401
