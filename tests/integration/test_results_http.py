"""A pool from published to closed standings over HTTP only, on the real PostgreSQL.

The event is stored and its first stage started with the setup factories (small.yaml: 4 teams, one pool,
3 rounds, 6 boards, appeal window set to 0 minutes here); everything after that goes through the web:
log in, find the rounds and matches on the staff pages, enter every result with the forms and the API,
close the stage, then compare the stored final standings with the tie-break engine run on what was entered.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from fractions import Fraction

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Role
from orchestrator.config import Settings
from orchestrator.domain.scoring import MatchRecord, match_game_points, parse_result
from orchestrator.domain.standings import compute_standings
from orchestrator.services.accounts.users import create_user
from orchestrator.web.app import create_app
from tests.support import factories

PASSWORD = "correct horse battery"
PATTERNS = (
    ("1-0", "1-0", "½-½", "0-1", "1-0", "½-½"),
    ("0-1", "½-½", "1-0", "1-0", "0-1", "-/+"),
    ("½-½", "0-1", "0-1", "½-½", "+/-", "1-0"),
)


@pytest.fixture
def pg_app(pg_url: str) -> Iterator[FastAPI]:
    app = create_app(Settings(database_url=pg_url, environment="test", login_max_failures=1000))
    with TestClient(app):
        yield app


def form_fields(section: str) -> dict[str, str]:
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', section))
    for name, body in re.findall(r'<select id="[^"]+" name="([^"]+)"[^>]*>(.*?)</select>', section, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', body)
        fields[name] = chosen.group(1) if chosen else "*"
    return fields


def test_a_pool_goes_from_published_to_closed_standings_over_http(pg_app: FastAPI) -> None:
    tag = secrets.token_hex(4)
    text = factories.SMALL_EVENT.replace("appeal_window_minutes: 15", "appeal_window_minutes: 0")
    with pg_app.state.uow_factory() as uow:
        event_id = factories.make_event(uow, text, slug=f"small-{tag}")
        stage_id = factories.running_stage(uow, event_id=event_id)
        create_user(uow, username=f"owner{tag}", password=PASSWORD, role=Role.OWNER)
        create_user(uow, username=f"arb{tag}", password=PASSWORD, role=Role.ARBITER)
    slug = f"small-{tag}"

    arbiter = TestClient(pg_app, follow_redirects=False)
    login = arbiter.post(
        "/login", data={"username": f"arb{tag}", "password": PASSWORD, "csrf_token": _csrf(arbiter)}
    )
    assert login.status_code == 303
    overview = arbiter.get(f"/staff/events/{slug}/results")
    assert overview.status_code == 200
    round_ids = [int(r) for r in re.findall(r'href="/staff/rounds/(\d+)/results"', overview.text)]
    assert len(round_ids) >= 3

    entered: list[MatchRecord] = []
    teams: set[str] = set()
    use_api = False
    api_token = arbiter.get("/api/v1/auth/me").json().get("csrf_token")
    for round_no, round_id in enumerate(round_ids[:3], start=1):
        page = arbiter.get(f"/staff/rounds/{round_id}/results").text
        for match_id, first, second in re.findall(r'id="match-(\d+)">\s*<h2>Match (.+?) – (.+?) <span', page):
            teams.update((first, second))
            section = page.split(f'id="match-{match_id}"', 1)[1].split("</form>", 1)[0]
            fields = form_fields(section)
            board_ids = [int(b) for b in re.findall(r'name="board_(\d+)"', section)]
            pattern = PATTERNS[(round_no + int(match_id)) % len(PATTERNS)]
            if use_api:  # every other match through the JSON API, board by board (the autosave path)
                for board_id, code in zip(board_ids, pattern, strict=True):
                    answer = arbiter.put(
                        f"/api/v1/boards/{board_id}/result",
                        json={"result": code, "expected_version": int(fields[f"version_{board_id}"])},
                        headers={"X-CSRF-Token": api_token},
                    )
                    assert answer.status_code == 200, answer.text
            else:  # the "Save results" button without JavaScript
                for board_id, code in zip(board_ids, pattern, strict=True):
                    fields[f"board_{board_id}"] = code
                assert arbiter.post(f"/staff/matches/{match_id}/results", data=fields).status_code == 303
            use_api = not use_api
            gp_a, gp_b = match_game_points([parse_result(code) for code in pattern])
            entered.append(MatchRecord(round_no, first, second, gp_a, gp_b))

    assert len(entered) == 6 and len(teams) == 4  # 3 rounds of 2 matches

    # an arbiter may not close; the owner may
    arbiter_token = {"X-CSRF-Token": api_token}
    assert arbiter.post(f"/api/v1/stages/{stage_id}/close", headers=arbiter_token).status_code == 403
    owner = TestClient(pg_app, follow_redirects=False)
    token = owner.post("/api/v1/auth/login", json={"username": f"owner{tag}", "password": PASSWORD}).json()
    assert owner.get(f"/api/v1/stages/{stage_id}/close").json()["problems"] == []
    closed = owner.post(f"/api/v1/stages/{stage_id}/close", headers={"X-CSRF-Token": token["csrf_token"]})
    assert closed.status_code == 200, closed.text
    pool_id = closed.json()["pools"][0]["pool_id"]

    stored = owner.get(f"/api/v1/pools/{pool_id}/standings").json()
    chain = stored["chain"]
    expected = compute_standings(sorted(teams), entered, chain=chain, boards=6)
    assert all(not row["provisional"] for row in stored["rows"])
    by_team = {row["team"]: row for row in stored["rows"]}
    assert set(by_team) == teams
    for row in expected.rows:
        got = by_team[row.team]
        for code, value in row.values.items():
            assert Fraction(got["values"][code]) == value, (row.team, code)
    # ranks agree wherever the chain separated teams (a recorded lot may split the rest)
    for a in expected.rows:
        for b in expected.rows:
            if a.rank < b.rank:
                assert by_team[a.team]["rank"] < by_team[b.team]["rank"]
    if "LOT" in chain:  # a tie left after the chain was drawn by lot: every rank is distinct
        assert sorted(row["rank"] for row in stored["rows"]) == list(range(1, len(teams) + 1))


def _csrf(client: TestClient) -> str:
    page = client.get("/login")
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)
