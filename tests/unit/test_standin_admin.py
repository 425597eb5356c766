"""The stand-in's /_standin/ admin routes hand out tokens and force results: they need the admin token."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
import yaml
from cryptography.fernet import Fernet
from fastapi.testclient import TestClient

from orchestrator.config import Settings
from orchestrator.db import REPO_ROOT
from orchestrator.standin.app import ADMIN_HEADER, RefusedInProduction, create_standin_app
from orchestrator.standin.faults import FaultPlan

TOKEN = secrets.token_urlsafe(32)
ADMIN_REQUESTS = [
    ("POST", "/_standin/users", {"username": "mallory", "rating": 2800}),
    ("GET", "/_standin/games/abcdefgh", None),
    ("POST", "/_standin/games/abcdefgh/result", {"status": "resign", "winner": "white"}),
    ("POST", "/_standin/time", {"advanceMs": 1000}),
    ("GET", "/_standin/state", None),
    ("POST", "/_standin/freeze", {"method": "POST", "path": "/api/bulk-pairing"}),
]


def standin(token: str = TOKEN) -> TestClient:
    return TestClient(create_standin_app(Settings(standin_speed=0, standin_admin_token=token)))  # type: ignore[arg-type]


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_REQUESTS)
def test_every_admin_route_refuses_a_request_without_the_admin_token(
    method: str, path: str, body: dict | None
) -> None:
    client = standin()
    assert client.request(method, path, json=body).status_code == 401
    wrong = {ADMIN_HEADER: TOKEN[:-1] + ("x" if TOKEN[-1] != "x" else "y")}
    assert client.request(method, path, json=body, headers=wrong).status_code == 401


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_REQUESTS)
def test_without_a_configured_admin_token_the_admin_routes_are_closed(
    method: str, path: str, body: dict | None
) -> None:
    client = standin(token="")
    answer = client.request(method, path, json=body, headers={ADMIN_HEADER: ""})
    assert answer.status_code == 403 and "OLYMPIAD_STANDIN_ADMIN_TOKEN" in answer.json()["error"]


def test_the_admin_token_opens_the_admin_routes() -> None:
    client = standin()
    made = client.post(
        "/_standin/users", json={"username": "anna", "rating": 2000}, headers={ADMIN_HEADER: TOKEN}
    )
    assert made.status_code == 200 and made.json()["token"].startswith("lip_")
    assert client.get("/_standin/state", headers={ADMIN_HEADER: TOKEN}).json()["users"] == 1


def test_a_freeze_is_armed_once_for_an_api_path_and_bad_requests_are_refused() -> None:
    client = standin()
    admin = {ADMIN_HEADER: TOKEN}
    for bad in ({"path": "/_standin/state"}, {"path": "/api/bulk-pairing", "method": "PATCH"}, {}):
        answer = client.post("/_standin/freeze", json=bad, headers=admin)
        assert answer.status_code == 400 and "path must start with /api/" in answer.json()["error"]
    armed = client.post("/_standin/freeze", json={"path": "/api/bulk-pairing"}, headers=admin)
    assert armed.json() == {"armed": ["POST", "/api/bulk-pairing"]}
    plan = FaultPlan.from_text("", 0.0, 1)
    plan.freeze_on.add(("POST", "/api/bulk-pairing"))
    assert not plan.take_freeze("GET", "/api/bulk-pairing")
    assert plan.take_freeze("post", "/api/bulk-pairing")
    assert not plan.take_freeze("POST", "/api/bulk-pairing")  # once


def test_the_standin_refuses_to_start_in_production() -> None:
    production = Settings(
        environment="production",
        secret_key="k" * 32,  # type: ignore[arg-type]
        token_encryption_key=Fernet.generate_key().decode(),  # type: ignore[arg-type]
        public_base_url="https://olympiad.example.org",
        standin_admin_token=TOKEN,  # type: ignore[arg-type]
    )
    with pytest.raises(RefusedInProduction, match="OLYMPIAD_ENVIRONMENT=production"):
        create_standin_app(production)


def compose() -> dict:
    return yaml.safe_load((Path(REPO_ROOT) / "docker-compose.yml").read_text())


def test_compose_publishes_no_standin_port_and_makes_no_default_game_server() -> None:
    services = compose()["services"]
    assert "ports" not in services["standin"]
    web_env = services["web"]["environment"]
    assert web_env["OLYMPIAD_GAMESERVER_URL"].startswith("${OLYMPIAD_GAMESERVER_URL:?")
    assert "standin" not in web_env["OLYMPIAD_GAMESERVER_URL"]


def test_compose_passes_the_game_server_admin_token_to_the_web_app_and_the_workers() -> None:
    services = compose()["services"]
    for name in ("web", "worker", "beat"):
        assert "OLYMPIAD_GAMESERVER_ADMIN_TOKEN" in services[name]["environment"], name
