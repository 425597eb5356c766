"""The staff "Import from Chess.com" pages and API through the ASGI app (SQLite in a temporary directory),
with Chess.com faked over httpx.MockTransport."""

from __future__ import annotations

import re

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response

from orchestrator.adapters.tables import Board, Role
from orchestrator.services.accounts.users import create_user
from orchestrator.web.auth import iter_routes
from tests.support.chesscom_fake import FakeChessCom, Played, match_with_chesscom_accounts, served_match_1201
from tests.support.factories import stored_board
from tests.support.web import PASSWORD, login


@pytest.fixture
def site(app: FastAPI) -> tuple[FastAPI, Played, FakeChessCom]:
    fake = served_match_1201()
    app.state.chesscom_client_factory = fake.client
    with app.state.uow_factory() as uow:
        played = match_with_chesscom_accounts(uow)
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        create_user(uow, username="captain", password=PASSWORD, role=Role.CAPTAIN, team_id=1)
    return app, played, fake


def form_after(page: str, heading_id: str) -> dict[str, str]:
    """The hidden and text fields the browser would post for the form under the heading ``heading_id``."""
    section = page.split(f'id="{heading_id}"', 1)[1].split("</form>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', section))
    for name, value in re.findall(
        r'<input id="[^"]+" name="([^"]+)" type="[^"]+"[^>]*value="([^"]*)"', section
    ):
        fields[name] = value
    return fields


def import_page(played: Played) -> str:
    return f"/staff/matches/{played.match_id}/chesscom-import"


def import_match_1201_by_api(client: TestClient, played: Played, csrf: str) -> Response:
    """The JSON API imports Chess.com team match 1201 into ``played``."""
    return client.post(
        f"/api/v1/staff/matches/{played.match_id}/chesscom-import",
        json={"source": "team_match", "chesscom_match": "1201"},
        headers={"X-CSRF-Token": csrf},
    )


def stored(app: FastAPI, board_id: int) -> Board:
    return stored_board(app.state.uow_factory, board_id)


def test_the_match_results_page_links_to_the_import_page_which_renders_both_forms(
    site: tuple[FastAPI, Played, FakeChessCom],
) -> None:
    app, played, fake = site
    client, _ = login(app, "arbiter")
    results_page = client.get(f"/staff/matches/{played.match_id}/results")
    assert f'href="/staff/matches/{played.match_id}/chesscom-import"' in results_page.text

    page = client.get(import_page(played))

    assert page.status_code == 200
    assert "Import the team match" in page.text and "Import from the archives" in page.text
    assert page.text.count('name="csrf_token"') >= 2
    # no script but the optional one that remembers the reader's time zone (web/timefmt.py)
    assert re.findall(r'<script src="([^"]+)"', page.text) == ["/static/tz.js"]
    assert page.text.count("<script") == 1
    assert fake.paths == []  # showing the form asks Chess.com nothing


def test_the_team_match_form_works_without_javascript_and_shows_recorded_and_flagged_boards(
    site: tuple[FastAPI, Played, FakeChessCom],
) -> None:
    app, played, _ = site
    client, _ = login(app, "arbiter")
    page = client.get(import_page(played))
    fields = form_after(page.text, "team-match")
    assert fields["source"] == "team_match" and fields["csrf_token"]
    fields["chesscom_match"] = "https://www.chess.com/club/matches/1201"

    answer = client.post(import_page(played), data=fields)

    assert answer.status_code == 200
    assert "1 board recorded, 5 for the arbiter" in answer.text
    flagged = answer.text.split('id="flagged"', 1)[1].split('id="boards"', 1)[0]
    assert "abandoned" in flagged and "https://www.chess.com/game/live/900000202" in flagged
    assert "not playing in team match 1201" in flagged
    board = stored(app, played.boards[1])
    assert (board.result, board.result_source, board.updated_by) == ("1-0", "import", "arbiter")
    assert stored(app, played.boards[2]).result == "*"


def test_a_rate_limit_shows_the_form_again_saying_to_retry_later_and_records_nothing(
    site: tuple[FastAPI, Played, FakeChessCom],
) -> None:
    app, played, fake = site
    fake.serve("/pub/match/1201/2", httpx.Response(429))
    client, _ = login(app, "arbiter")
    fields = form_after(client.get(import_page(played)).text, "team-match")
    fields["chesscom_match"] = "1201"

    answer = client.post(import_page(played), data=fields)

    assert answer.status_code == 503
    assert answer.headers["retry-after"] == "60"
    assert "Nothing was recorded; try again in a minute" in answer.text
    assert 'value="1201"' in answer.text  # the form keeps what was typed
    assert stored(app, played.boards[1]).result == "*"


def test_an_archive_window_that_cannot_be_read_lists_the_problems(
    site: tuple[FastAPI, Played, FakeChessCom],
) -> None:
    app, played, fake = site
    client, csrf = login(app, "arbiter")
    answer = client.post(
        import_page(played),
        data={"csrf_token": csrf, "source": "archives", "start": "yesterday", "end": ""},
    )
    assert answer.status_code == 422
    assert "is not a date and time" in answer.text and "give the window&#39;s end" in answer.text
    assert fake.paths == []


def test_the_form_is_refused_without_its_csrf_token(site: tuple[FastAPI, Played, FakeChessCom]) -> None:
    app, played, fake = site
    client, _ = login(app, "arbiter")
    answer = client.post(
        import_page(played),
        data={"source": "team_match", "chesscom_match": "1"},
    )
    assert answer.status_code == 403
    assert fake.paths == []


def test_the_json_api_imports_and_answers_every_board(site: tuple[FastAPI, Played, FakeChessCom]) -> None:
    app, played, _ = site
    client, csrf = login(app, "arbiter")
    answer = import_match_1201_by_api(client, played, csrf)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["recorded"], body["flagged"], body["chesscom_match_id"]) == (1, 5, 1201)
    by_no = {b["board_no"]: b for b in body["boards"]}
    assert by_no[1]["outcome"] == "recorded" and by_no[1]["stored"] == "1-0"
    assert by_no[2]["outcome"] == "flagged" and by_no[2]["proposed"] == "+/-"


def test_the_json_api_says_when_to_retry_after_a_rate_limit(
    site: tuple[FastAPI, Played, FakeChessCom],
) -> None:
    app, played, fake = site
    fake.serve("/pub/match/1201", httpx.Response(429, headers={"Retry-After": "300"}))
    client, csrf = login(app, "arbiter")
    answer = import_match_1201_by_api(client, played, csrf)
    assert answer.status_code == 503
    assert answer.headers["retry-after"] == "300"
    assert "5 minutes" in answer.json()["detail"]


def test_a_captain_may_not_import(site: tuple[FastAPI, Played, FakeChessCom]) -> None:
    app, played, fake = site
    client, csrf = login(app, "captain")
    page = client.get(import_page(played))
    answer = import_match_1201_by_api(client, played, csrf)
    assert (page.status_code, answer.status_code) == (403, 403)
    assert fake.paths == []


def test_the_import_routes_are_staff_only_in_the_route_matrix(
    site: tuple[FastAPI, Played, FakeChessCom],
) -> None:
    app, _, _ = site
    rules = {(r.path, m): r.rule for r in iter_routes(app) for m in (r.methods or ())}
    for key in [
        ("/staff/matches/{match_id}/chesscom-import", "GET"),
        ("/staff/matches/{match_id}/chesscom-import", "POST"),
        ("/api/v1/staff/matches/{match_id}/chesscom-import", "POST"),
    ]:
        rule = rules[key]
        assert rule is not None
        assert [rule.allows(r) for r in (None, Role.CAPTAIN, Role.ARBITER, Role.ADMIN, Role.OWNER)] == [
            False,
            False,
            True,
            True,
            True,
        ]
