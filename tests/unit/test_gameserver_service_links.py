"""Players link their game-server account by OAuth with PKCE: staff page, invitation, stand-in, back.

The web app and the stand-in both run in process (TestClient); the stand-in checks the PKCE verifier.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography.fernet import Fernet
from fastapi.testclient import TestClient
from sqlmodel import select

from orchestrator.adapters.tables import PlayerLink
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user
from orchestrator.services.gameserver.player_links import decrypt_token
from orchestrator.standin.app import create_standin_app
from orchestrator.web.app import create_app
from tests.support.databases import schema_at_head
from tests.support.gameserver_round import make_round

PASSWORD = "correct horse battery"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path,
        environment="test",
        token_encryption_key=Fernet.generate_key().decode(),  # type: ignore[arg-type]
        gameserver_url="http://gs.test",
        public_base_url="http://orchestrator.test",
        standin_speed=0,
    )


@pytest.fixture
def web(settings: Settings):
    schema_at_head(settings.sqlalchemy_url)
    app = create_app(settings)
    with TestClient(app, follow_redirects=False) as client:
        with app.state.uow_factory() as uow:
            create_user(uow, username="arbiter", password=PASSWORD, role="arbiter")
        app.state.gameserver_http = TestClient(create_standin_app(settings), base_url="http://gs.test")
        yield app, client


def login(client: TestClient) -> None:
    answer = client.post("/api/v1/auth/login", json={"username": "arbiter", "password": PASSWORD})
    assert answer.status_code == 200


def invitation_links(page: str) -> list[str]:
    return re.findall(r'value="http://orchestrator\.test(/link/[^"]+)"', page)


def authorize(app, link_page: str, username: str) -> str:  # type: ignore[no-untyped-def]
    """Follow the page's button to the stand-in's /oauth as ``username``; returns the callback path+query."""
    href = html.unescape(re.search(r'href="(http://gs\.test/oauth\?[^"]+)"', link_page).group(1))  # type: ignore[union-attr]
    query = parse_qs(urlsplit(href).query)
    assert query["code_challenge_method"] == ["S256"] and query["scope"] == ["challenge:write"]
    assert query["redirect_uri"] == ["http://orchestrator.test/link/callback"]
    answer = app.state.gameserver_http.get(href + f"&username={username}", follow_redirects=False)
    assert answer.status_code == 303
    target = urlsplit(answer.headers["location"])
    return f"{target.path}?{target.query}"


def test_a_player_links_their_account_and_the_token_is_stored_encrypted_and_never_shown(web, settings):
    app, client = web
    rows = make_round(app.state.uow_factory, boards=1)
    login(client)
    staff = client.get(f"/staff/events/{rows.event_id}/links", follow_redirects=True)
    assert staff.status_code == 200
    links = invitation_links(staff.text)
    assert len(links) == 2 and "missing" in staff.text
    player = TestClient(app, follow_redirects=False)  # the player is not logged in
    page = player.get(links[0])
    assert page.status_code == 200 and "evnor1" in page.text
    callback = authorize(app, page.text, "evnor1")
    done = player.get(callback)
    assert done.status_code == 200 and "evnor1" in done.text
    with app.state.uow_factory() as uow:
        link = uow.session.exec(select(PlayerLink)).one()
        token = decrypt_token(settings, link.token_encrypted or "").get_secret_value()
        assert (
            link.status == "linked"
            and link.linked_account == "evnor1"
            and link.player_id == rows.player_ids[0]
        )
    assert token.startswith("lio_") and token not in done.text and token not in (link.token_encrypted or "")
    again = TestClient(app, follow_redirects=False)
    login(again)
    page = again.get(f"/staff/events/{rows.event_id}/links", follow_redirects=True)
    assert len(invitation_links(page.text)) == 1
    assert player.get(callback).status_code in (400, 422, 502)  # a code works once


def test_authorizing_another_account_is_refused_and_nothing_is_stored(web):
    app, client = web
    rows = make_round(app.state.uow_factory, boards=1)
    login(client)
    links = invitation_links(client.get(f"/staff/events/{rows.event_id}/links", follow_redirects=True).text)
    page = client.get(links[0])
    answer = client.get(authorize(app, page.text, "somebodyelse"))
    assert answer.status_code == 409 and "evnor1" in answer.text
    with app.state.uow_factory() as uow:
        assert uow.session.exec(select(PlayerLink)).all() == []


def test_a_forged_invitation_or_state_is_refused(web):
    app, client = web
    make_round(app.state.uow_factory, boards=1)
    assert client.get("/link/forged-token").status_code == 404
    assert client.get("/link/callback?code=x&state=forged").status_code == 422
    assert client.get("/link/callback?error=access_denied").status_code == 400


def test_the_staff_page_is_for_staff_only(web):
    app, client = web
    rows = make_round(app.state.uow_factory, boards=1)
    answer = client.get(f"/staff/events/{rows.event_id}/links")
    assert answer.status_code in (302, 303, 401) and "/link/" not in answer.text
