"""Bonus and penalty points on the Swiss desk (services/swiss/adjustments.py, web/pages/staff/swiss.py,
web/api/swiss.py; docs/swiss.md "Bonus and penalty points"): staff give them with a reason, captains and
visitors cannot, bad input is refused with the problem, the standings change, the public page and JSON
show each one beside the team, and the public record keeps it."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from tests.support.trf_files import fixture
from tests.support.trf_import import do_import, standings_after
from tests.support.web import PASSWORD, login

FILE = "board-forfeit.trf"  # six teams, rounds 1 to 3 of 5 played


@pytest.fixture
def imported(app: FastAPI) -> tuple[str, int, dict[str, int]]:
    """The file imported: its slug, its stage and its teams' ids; an arbiter and Chile's captain."""
    report = do_import(app.state.uow_factory, (FILE, fixture(FILE)))
    with app.state.uow_factory() as uow:
        teams = {t.name: t.id or 0 for t in uow.teams.teams_of_event(report.event_id)}
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        create_user(uow, username="captain", password=PASSWORD, role=Role.CAPTAIN, team_id=teams["Chile"])
    return report.slug, report.stages[0].stage_id, teams


def test_the_desk_form_gives_a_penalty_and_the_standings_and_pages_show_it(
    app: FastAPI, imported: tuple[str, int, dict[str, int]]
) -> None:
    slug, stage_id, teams = imported
    before = standings_after(app.state.uow_factory, slug, "open")
    arbiter, csrf = login(app, "arbiter")
    assert "Bonus or penalty points" in arbiter.get(f"/staff/swiss/{stage_id}").text
    form = {"csrf_token": csrf, "team_id": str(teams["Chile"]), "after_round": "2", "match_points": "-1"}
    given = arbiter.post(
        f"/staff/swiss/{stage_id}/adjustment", data={**form, "game_points": "-0.5", "reason": "late arrival"}
    )
    assert given.status_code == 303 and given.headers["location"].endswith("done=adjusted")
    after = standings_after(app.state.uow_factory, slug, "open")
    assert after[1] == before[1]  # before the round given
    for rnd in (2, 3):
        mp, gp = before[rnd]["Chile"]
        assert after[rnd]["Chile"] == (mp - 1, gp - 1)
    anonymous, _ = login(app, None)
    page = anonymous.get(f"/events/{slug}/stages/open")
    assert page.status_code == 200
    assert "Bonus and penalty points" in page.text and "late arrival" in page.text
    assert "\u22121 MP, \u2212\u00bd GP" in page.text
    document = anonymous.get(f"/api/v1/events/{slug}/stages/open/swiss").json()
    assert [
        (a["team"]["name"], a["after_round"], a["mp"], a["gp_half"], a["reason"])
        for a in document["adjustments"]
    ] == [("Chile", 2, -1, -1, "late arrival")]
    record = anonymous.get(f"/api/v1/events/{slug}/record").json()
    newest = record["entries"][0]  # newest first
    assert newest["kind"] == "swiss.adjustment"
    payload = newest["payload"]
    assert (payload["team"], payload["match_points"], payload["game_points"], payload["reason"]) == (
        "Chile",
        -1,
        "-1/2",
        "late arrival",
    )


def test_the_api_gives_a_bonus_and_answers_with_what_it_stored(
    app: FastAPI, imported: tuple[str, int, dict[str, int]]
) -> None:
    slug, stage_id, teams = imported
    before = standings_after(app.state.uow_factory, slug, "open")[3]["Finland"]
    arbiter, csrf = login(app, "arbiter")
    answer = arbiter.post(
        f"/api/v1/swiss/stages/{stage_id}/teams/{teams['Finland']}/adjustments",
        json={"after_round": 0, "match_points": 2, "game_points": "1.5", "reason": "appeal upheld"},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 201, answer.text
    assert {k: answer.json()[k] for k in ("team", "after_round", "mp", "gp_half")} == {
        "team": "Finland",
        "after_round": 0,
        "mp": 2,
        "gp_half": 3,
    }
    assert standings_after(app.state.uow_factory, slug, "open")[3]["Finland"] == (
        before[0] + 2,
        before[1] + 3,
    )


def test_captains_and_visitors_cannot_give_points(
    app: FastAPI, imported: tuple[str, int, dict[str, int]]
) -> None:
    slug, stage_id, teams = imported
    before = standings_after(app.state.uow_factory, slug, "open")
    for who in ("captain", None):
        client, csrf = login(app, who)
        api = client.post(
            f"/api/v1/swiss/stages/{stage_id}/teams/{teams['Chile']}/adjustments",
            json={"match_points": 5, "reason": "mine"},
            headers={"X-CSRF-Token": csrf},
        )
        assert api.status_code in (401, 403)
        page = client.post(
            f"/staff/swiss/{stage_id}/adjustment",
            data={"csrf_token": csrf, "team_id": str(teams["Chile"]), "match_points": "5", "reason": "mine"},
        )
        assert page.status_code in (302, 303, 401, 403)
        assert "adjusted" not in page.headers.get("location", "")
    assert standings_after(app.state.uow_factory, slug, "open") == before


def test_bad_input_is_refused_with_the_problem_and_changes_nothing(
    app: FastAPI, imported: tuple[str, int, dict[str, int]]
) -> None:
    slug, stage_id, teams = imported
    before = standings_after(app.state.uow_factory, slug, "open")
    arbiter, csrf = login(app, "arbiter")
    headers = {"X-CSRF-Token": csrf}
    base = f"/api/v1/swiss/stages/{stage_id}/teams"
    nothing = arbiter.post(f"{base}/{teams['Chile']}/adjustments", json={"reason": "r"}, headers=headers)
    assert nothing.status_code == 422 and "match_points: give match points or game points" in nothing.text
    quarter = arbiter.post(
        f"{base}/{teams['Chile']}/adjustments", json={"game_points": "0.25", "reason": "r"}, headers=headers
    )
    assert quarter.status_code == 422 and "game_points" in quarter.text and "half game points" in quarter.text
    late = arbiter.post(
        f"{base}/{teams['Chile']}/adjustments", json={"after_round": 6, "match_points": 1, "reason": "r"},
        headers=headers,
    )  # fmt: skip
    assert late.status_code == 422 and "after_round: give a round from 0 (from the start) to 5" in late.text
    stranger = arbiter.post(
        f"{base}/999999/adjustments", json={"match_points": 1, "reason": "r"}, headers=headers
    )
    assert stranger.status_code == 422 and "team_id: the team does not play in Open" in stranger.text
    no_reason = arbiter.post(
        f"/staff/swiss/{stage_id}/adjustment",
        data={"csrf_token": csrf, "team_id": str(teams["Chile"]), "match_points": "1", "reason": " "},
    )
    assert no_reason.status_code == 422 and "reason: say why" in no_reason.text
    no_team = arbiter.post(
        f"/staff/swiss/{stage_id}/adjustment", data={"csrf_token": csrf, "match_points": "1", "reason": "r"}
    )
    assert no_team.status_code == 422 and "team_id: choose the team" in no_team.text
    assert standings_after(app.state.uow_factory, slug, "open") == before


def test_a_draft_paired_without_the_points_is_discarded(
    app: FastAPI, imported: tuple[str, int, dict[str, int]]
) -> None:
    _slug, stage_id, teams = imported
    arbiter, csrf = login(app, "arbiter")
    headers = {"X-CSRF-Token": csrf}
    draft = arbiter.post(f"/api/v1/swiss/stages/{stage_id}/pair-next-round", json={}, headers=headers)
    assert draft.status_code == 200 and draft.json()["number"] == 4
    answer = arbiter.post(
        f"/api/v1/swiss/stages/{stage_id}/teams/{teams['Chile']}/adjustments",
        json={"after_round": 3, "match_points": -2, "reason": "fine"},
        headers=headers,
    )
    assert answer.status_code == 201 and answer.json()["discarded_draft"] == 4
    assert "The draft pairing of round 4 was discarded: pair it again." in answer.json()["message"]
    assert arbiter.get(f"/api/v1/swiss/stages/{stage_id}/draft").status_code == 404
