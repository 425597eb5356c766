"""Result entry pages and the results API through the ASGI app (SQLite in a temporary directory)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Board, Match, Role
from orchestrator.services.accounts.users import create_user
from orchestrator.services.results import standings as standings_service
from orchestrator.web.auth import iter_routes
from tests.support.pool_builder import BuiltPool, build_pool
from tests.support.web import PASSWORD, form_token, login


@pytest.fixture
def app_and_pool(app: FastAPI) -> tuple[FastAPI, BuiltPool]:
    with app.state.uow_factory() as uow:
        built = build_pool(uow)
        for role in (Role.ARBITER, Role.ADMIN):
            create_user(uow, username=role.value, password=PASSWORD, role=role)
    return app, built


def form_of(page: str, match_id: int) -> dict[str, str]:
    """The fields the browser would post for the match's form, as the page rendered them."""
    section = page.split(f'id="match-{match_id}"', 1)[1].split("</form>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', section))
    for name, body in re.findall(r'<select id="[^"]+" name="([^"]+)"[^>]*>(.*?)</select>', section, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', body)
        fields[name] = chosen.group(1) if chosen else "*"
    return fields


def test_the_save_results_button_saves_the_changed_boards_without_javascript(
    app_and_pool: tuple[FastAPI, BuiltPool],
) -> None:
    app, built = app_and_pool
    client, _ = login(app, "arbiter")
    match_id = built.match(1, "Norway")
    page = client.get(f"/staff/matches/{match_id}/results")
    assert page.status_code == 200 and "Save results" in page.text
    fields = form_of(page.text, match_id)
    b1, b2 = built.boards[match_id][:2]
    fields[f"board_{b1}"] = "1-0"
    fields[f"board_{b2}"] = "½-½"
    answer = client.post(f"/staff/matches/{match_id}/results", data=fields)
    assert answer.status_code == 303
    again = client.get(answer.headers["location"])
    assert "Saved (2 boards)" in again.text
    with app.state.uow_factory() as uow:
        assert [uow.boards.get_or_raise(Board, b).result for b in built.boards[match_id]] == [
            "1-0",
            "½-½",
            "*",
            "*",
        ]


def test_the_form_shows_the_stored_result_beside_yours_when_someone_else_saved_first(
    app_and_pool: tuple[FastAPI, BuiltPool],
) -> None:
    app, built = app_and_pool
    ann, _ = login(app, "arbiter")
    bob, bob_csrf = login(app, "admin")
    match_id = built.match(1, "Norway")
    b1 = built.boards[match_id][0]
    fields = form_of(ann.get(f"/staff/matches/{match_id}/results").text, match_id)
    saved = bob.put(
        f"/api/v1/boards/{b1}/result",
        json={"result": "0-1", "expected_version": 1},
        headers={"X-CSRF-Token": bob_csrf},
    )
    assert saved.status_code == 200 and saved.json()["version"] == 2
    fields[f"board_{b1}"] = "1-0"
    fields[f"board_{built.boards[match_id][1]}"] = "½-½"
    answer = ann.post(f"/staff/matches/{match_id}/results", data=fields)
    assert answer.status_code == 409
    assert (
        "Changed by someone else" in answer.text
        and "stored 0-1" in answer.text
        and "yours 1-0" in answer.text
    )
    with app.state.uow_factory() as uow:
        assert uow.boards.get_or_raise(Board, built.boards[match_id][1]).result == "*"  # nothing saved
    # the page now carries the stored version, so saving again keeps the user's choice
    retry = form_of(answer.text, match_id)
    assert retry[f"board_{b1}"] == "1-0" and retry[f"version_{b1}"] == "2"
    assert ann.post(f"/staff/matches/{match_id}/results", data=retry).status_code == 303


def test_the_api_answers_409_with_the_stored_result_and_who_saved_it(
    app_and_pool: tuple[FastAPI, BuiltPool],
) -> None:
    app, built = app_and_pool
    client, csrf = login(app, "arbiter")
    b1 = built.boards[built.match(1, "Norway")][0]
    headers = {"X-CSRF-Token": csrf}
    assert (
        client.put(
            f"/api/v1/boards/{b1}/result", json={"result": "1-0", "expected_version": 1}, headers=headers
        ).status_code
        == 200
    )
    stale = client.put(
        f"/api/v1/boards/{b1}/result", json={"result": "0-1", "expected_version": 1}, headers=headers
    )
    assert stale.status_code == 409
    current = stale.json()["current"][0]
    assert (current["value"], current["version"], current["changed_by"]) == ("1-0", 2, "arbiter")


def test_an_arbiter_may_enter_results_but_not_close_a_stage_or_annul(
    app_and_pool: tuple[FastAPI, BuiltPool],
) -> None:
    app, built = app_and_pool
    client, csrf = login(app, "arbiter")
    headers = {"X-CSRF-Token": csrf}
    assert client.post(f"/api/v1/stages/{built.stage_id}/close", headers=headers).status_code == 403
    player = built.players[("Norway", 1)]
    assert (
        client.post(f"/api/v1/players/{player}/annulment", json={"reason": "x"}, headers=headers).status_code
        == 403
    )
    page = client.get(f"/staff/stages/{built.stage_id}/close")
    assert page.status_code == 200 and "cannot be closed yet" in page.text


def test_closing_too_early_is_refused_with_the_reason(app_and_pool: tuple[FastAPI, BuiltPool]) -> None:
    app, built = app_and_pool
    client, csrf = login(app, "admin")
    answer = client.post(f"/api/v1/stages/{built.stage_id}/close", headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 409 and "has no result" in answer.json()["detail"]


def test_the_staff_pages_render(app_and_pool: tuple[FastAPI, BuiltPool]) -> None:
    app, built = app_and_pool
    client, _ = login(app, "admin")
    for path in (
        f"/staff/events/{built.event_slug}/results",
        f"/staff/events/{built.event_slug}/audit",
        f"/staff/events/{built.event_slug}/appeals",
        f"/staff/events/{built.event_slug}/fairplay",
        f"/staff/stages/{built.stage_id}/close",
        f"/staff/pools/{built.pool_id}/standings.csv",
        f"/staff/pools/{built.pool_id}/pool.trf",
    ):
        assert client.get(path).status_code == 200, path


def test_result_routes_declare_staff_or_admin_rules(app_and_pool: tuple[FastAPI, BuiltPool]) -> None:
    app, _ = app_and_pool
    rules = {
        (route.path, method): route.rule.name
        for route in iter_routes(app)
        for method in route.methods
        if route.rule is not None
    }
    assert rules[("/api/v1/boards/{board_id}/result", "PUT")] == "staff"
    assert rules[("/staff/matches/{match_id}/results", "POST")] == "staff"
    assert rules[("/api/v1/stages/{stage_id}/close", "POST")] == "roles: admin, owner"
    assert rules[("/api/v1/players/{player_id}/annulment", "POST")] == "roles: admin, owner"
    assert rules[("/staff/matches/{match_id}/corrections", "POST")] == "roles: admin, owner"


# --- withdrawals ---------------------------------------------------------------------------------------


def test_an_arbiter_withdraws_a_team_through_the_confirmation_form_and_the_pages_say_so(
    app_and_pool: tuple[FastAPI, BuiltPool],
) -> None:
    app, built = app_and_pool
    client, _ = login(app, "arbiter")
    sweden = built.teams["Sweden"]
    desk = client.get(f"/staff/stages/{built.stage_id}/withdrawals")
    assert desk.status_code == 200 and f'<option value="{sweden}">Sweden (pool A)</option>' in desk.text
    page = client.get(f"/staff/stages/{built.stage_id}/withdrawals?team_id={sweden}")
    assert page.status_code == 200 and "3 matches will be forfeited" in page.text
    assert "Round 1 against" in page.text and "Round 3 against" in page.text
    fields = {"csrf_token": form_token(page.text), "team_id": str(sweden), "reason": "travel ban"}
    assert (
        client.post(
            f"/staff/stages/{built.stage_id}/withdrawals", data={**fields, "csrf_token": "x"}
        ).status_code
        == 403
    )
    answer = client.post(f"/staff/stages/{built.stage_id}/withdrawals", data=fields)
    assert answer.status_code == 303
    done = client.get(answer.headers["location"])
    assert "Sweden withdrawn from round 1" in done.text
    with app.state.uow_factory() as uow:
        codes = [uow.rounds.get_or_raise(Match, built.match(r, "Sweden")).forfeit for r in (1, 2, 3)]
    assert all(code in ("+-", "-+") for code in codes)
    overview = client.get(f"/staff/events/{built.event_slug}/results")
    assert "Sweden (pool A) withdrawn in round 1: recorded by arbiter" in overview.text
    public = client.get(f"/events/{built.event_slug}/stages/group/pools/A")
    assert public.status_code == 200
    assert 'Sweden</a> <span class="withdrawn">withdrawn in round 1</span>' in public.text
    again = client.post(f"/staff/stages/{built.stage_id}/withdrawals", data=fields)
    assert again.status_code == 409 and "already withdrew" in again.text and "by arbiter" in again.text


def test_the_withdrawal_form_without_a_reason_shows_the_confirmation_again_and_changes_nothing(
    app_and_pool: tuple[FastAPI, BuiltPool],
) -> None:
    app, built = app_and_pool
    client, csrf = login(app, "arbiter")
    norway = built.teams["Norway"]
    answer = client.post(
        f"/staff/stages/{built.stage_id}/withdrawals",
        data={"csrf_token": csrf, "team_id": str(norway), "reason": " "},
    )
    assert answer.status_code == 422 and "say why the team withdraws" in answer.text
    assert "3 matches will be forfeited" in answer.text
    with app.state.uow_factory() as uow:
        assert uow.rounds.get_or_raise(Match, built.match(1, "Norway")).forfeit == ""


def test_the_withdrawal_api_forfeits_the_remaining_matches_and_refuses_a_second_time(
    app_and_pool: tuple[FastAPI, BuiltPool],
) -> None:
    app, built = app_and_pool
    client, csrf = login(app, "arbiter")
    headers = {"X-CSRF-Token": csrf}
    url = f"/api/v1/stages/{built.stage_id}/teams/{built.teams['Denmark']}/withdrawal"
    preview = client.get(url)
    assert preview.status_code == 200 and [f["round"] for f in preview.json()["forfeits"]] == [1, 2, 3]
    assert preview.json()["withdrawn_at"] is None
    assert client.post(url, json={"reason": ""}, headers=headers).status_code == 422
    done = client.post(url, json={"reason": "illness"}, headers=headers)
    assert done.status_code == 200, done.text
    body = done.json()
    assert (body["team"], body["withdrawn_round"], body["withdrawn_by"]) == ("Denmark", 1, "arbiter")
    assert [f["match_id"] for f in body["forfeits"]] == [built.match(r, "Denmark") for r in (1, 2, 3)]
    again = client.post(url, json={"reason": "illness"}, headers=headers)
    assert again.status_code == 409 and "by arbiter" in again.json()["detail"]
    assert client.get(url).json()["withdrawn_by"] == "arbiter"
    with app.state.uow_factory() as uow:
        table = standings_service.pool_standings(uow, pool_id=built.pool_id)
    denmark = next(row for row in table.rows if row.team == "Denmark")
    assert (denmark.values["MP"], denmark.values["GP"]) == (0, 0)
