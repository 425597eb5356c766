"""The combined classification of a stored event (orchestrator/services/read/combined.py, docs/sections.md):
through the read service, the page, the JSON document and the CSV download; provisional after each round,
final once both sections' stages are closed; 404 for an event without sections."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import timedelta
from fractions import Fraction
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain.combined import CombinedRow, SectionPlace, combined_classification
from orchestrator.domain.scoring import GameResult, MatchRecord, match_game_points
from orchestrator.domain.section_results import section_places
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import PRESETS
from orchestrator.errors import NotFound
from orchestrator.eventfile import parse_event
from orchestrator.services.read import combined
from orchestrator.services.results import standings as standings_service
from tests.support.combined import enter_scores, sections_event, start_sections
from tests.support.factories import running_stage
from tests.support.swiss import ACTOR, pair_and_publish, play_round

LATER = timedelta(minutes=16)  # past the 15-minute appeal window
SLUG = "combined-cup"


def _view(factory: UnitOfWorkFactory) -> combined.CombinedView:
    with factory() as uow:
        return combined.combined_view(uow, slug=SLUG)


def _close(factory: UnitOfWorkFactory, stage_ids: Sequence[int]) -> None:
    for stage_id in stage_ids:
        with factory() as uow:
            closed = standings_service.close_stage(uow, stage_id=stage_id, actor=ACTOR, now=utcnow() + LATER)
        closed.raise_refusal()


# --- a tiny case worked by hand ----------------------------------------------------------------------


@pytest.fixture
def one_round(uow_factory: UnitOfWorkFactory) -> dict[str, int]:
    """Open: Russia, China; Women: Russia Women, China Women; one round each, played:
    Russia 3-1 China (boards 1, 1, 1, 0), China Women 2.5-1.5 Russia Women (boards 1, 1, ½, 0)."""
    with uow_factory() as uow:
        ids = start_sections(uow, sections_event(["RUS", "CHN"], ["RUS", "CHN"], rounds=1, slug=SLUG))
    open_round = pair_and_publish(uow_factory, ids["open"])
    women_round = pair_and_publish(uow_factory, ids["women"])
    enter_scores(uow_factory, open_round.round_id, {"Russia": [2, 2, 2, 0]})
    enter_scores(uow_factory, women_round.round_id, {"China Women": [2, 2, 1, 0]})
    return ids


def test_a_tie_on_the_place_sum_and_on_match_points_is_broken_by_the_game_points(
    uow_factory: UnitOfWorkFactory, one_round: dict[str, int]
) -> None:
    # Places: Open Russia 1, China 2; Women China Women 1, Russia Women 2.
    # Place sums: RUS 1 + 2 = 3, CHN 2 + 1 = 3: equal.
    # TB1, match points: RUS 2 + 0 = 2, CHN 0 + 2 = 2: equal.
    # TB2, the teams' Olympiad TB1: one match each and no bye, so the one opponent is dropped: 0 + 0 = 0.
    # TB3, the teams' game points: RUS 3 + 1.5 = 4.5, CHN 1 + 2.5 = 3.5: Russia first.
    # TB4, opponents' match points less the lowest: the only opponent is the lowest: 0 + 0 = 0.
    view = _view(uow_factory)
    assert not view.final and view.after_round == 1
    got = [
        (line.place, line.federation, [t.place if t else None for t in line.teams], line.place_sum)
        for line in view.lines
    ]
    assert got == [(1, "RUS", [1, 2], 3), (2, "CHN", [2, 1], 3)]
    assert [[cell.exact for cell in line.tiebreaks] for line in view.lines] == [
        ["2/1", "0/1", "9/2", "0/1"],
        ["2/1", "0/1", "7/2", "0/1"],
    ]
    assert all(line.complete and not line.tied_with_previous for line in view.lines)
    assert [t.team.name for t in view.lines[0].teams if t] == ["Russia", "Russia Women"]

    _close(uow_factory, list(one_round.values()))
    final = _view(uow_factory)
    assert final.final and all(section.final for section in final.sections)
    assert [(line.place, line.federation) for line in final.lines] == [(1, "RUS"), (2, "CHN")]


# --- a longer case, derived from the stored results ----------------------------------------------------

OPEN = ["RUS", "CHN", "USA", "UKR"]  # USA has no Women team
WOMEN = ["SRB", "RUS", "UKR", "CHN"]  # Serbia has no Open team
TEXT = sections_event(OPEN, WOMEN, rounds=3, slug=SLUG)


def _independent(uow: UnitOfWork, stage_ids: dict[str, int]) -> tuple[CombinedRow, ...]:
    """The classification from the stored boards: each section ranked by the domain's own standings of
    its matches (not the stored standings the service reads), then ``combined_classification``."""
    event = parse_event(TEXT, source="combined.yaml")
    teams = {team.name: team for team in event.teams}
    sections: dict[str, tuple[SectionPlace, ...]] = {}
    for key, stage_id in stage_ids.items():
        number = {r.id: r.number for r in uow.rounds.rounds_of_stage(stage_id)}
        matches = list(uow.rounds.matches_of_stage(stage_id))
        boards = uow.boards.boards_by_match(m.id for m in matches)
        names = uow.teams.teams_by_id(t for m in matches for t in (m.first_team_id, m.second_team_id))
        records = []
        for match in matches:
            results = [GameResult(b.result) for b in sorted(boards[match.id or 0], key=lambda b: b.board_no)]
            if not all(r.is_final for r in results):
                continue
            gp_a, gp_b = match_game_points(results)
            first, second = names[match.first_team_id].name, names[match.second_team_id].name
            records.append(MatchRecord(number[match.round_id], first, second, gp_a, gp_b))
        if not records:
            sections[key] = ()  # a section without a result is not ranked yet
            continue
        field = [team.name for team in event.teams_of(key)]
        standings = compute_standings(
            field, records, chain=PRESETS["olympiad-2026"], boards=4, round_robin=False, bye_mp=1
        )
        sections[key] = section_places(standings, teams)
    return combined_classification(sections)


def _expected_json(rows: Sequence[CombinedRow]) -> list[dict[str, Any]]:
    def exact(value: Fraction | int) -> str:
        value = Fraction(value)
        return f"{value.numerator}/{value.denominator}"

    return [
        {
            "place": row.place,
            "federation": row.federation,
            "complete": row.complete,
            "teams": [None if t is None else (t.place, t.team) for t in row.teams],
            "place_sum": row.place_sum,
            "tiebreaks": [exact(value) for value in row.keys],
        }
        for row in rows
    ]


def _json_lines(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "place": line["place"],
            "federation": line["federation"],
            "complete": line["complete"],
            "teams": [None if t is None else (t["place"], t["team"]["name"]) for t in line["teams"]],
            "place_sum": line["place_sum"],
            "tiebreaks": [cell["exact"] for cell in line["tiebreaks"]],
        }
        for line in doc["lines"]
    ]


@pytest.fixture
def played(app: FastAPI) -> tuple[UnitOfWorkFactory, dict[str, int]]:
    factory: UnitOfWorkFactory = app.state.uow_factory
    with factory() as uow:
        ids = start_sections(uow, TEXT)
    return factory, ids


def _play_round(factory: UnitOfWorkFactory, ids: dict[str, int]) -> None:
    for stage_id in ids.values():
        published = pair_and_publish(factory, stage_id)
        play_round(factory, published.round_id)


def test_page_json_and_csv_follow_the_stored_results_round_by_round_until_final(
    app: FastAPI, played: tuple[UnitOfWorkFactory, dict[str, int]]
) -> None:
    factory, ids = played
    client = TestClient(app)
    before = client.get(f"/api/v1/events/{SLUG}/combined")
    assert before.status_code == 200 and before.json()["lines"] == []
    assert "No section has a result yet" in client.get(f"/events/{SLUG}/combined").text
    for round_no in (1, 2, 3):
        _play_round(factory, ids)
        with factory() as uow:
            expected = _independent(uow, ids)
        doc = client.get(f"/api/v1/events/{SLUG}/combined").json()
        assert doc["after_round"] == round_no and doc["final"] is False
        assert _json_lines(doc) == _expected_json(expected)
    # Serbia and the United States have one team each: listed after the three with both teams.
    assert {row.federation for row in expected if not row.complete} == {"SRB", "USA"}
    assert [row.complete for row in expected] == [True] * 3 + [False] * 2

    _close(factory, list(ids.values()))
    doc = client.get(f"/api/v1/events/{SLUG}/combined").json()
    assert doc["final"] is True and _json_lines(doc) == _expected_json(expected)

    page = client.get(f"/events/{SLUG}/combined")
    assert page.status_code == 200
    html = page.text
    assert "<caption>Federations by the sum of places</caption>" in html
    assert html.count('<th scope="row"') == len(expected) and 'scope="col"' in html
    assert 'tabindex="0" role="region"' in html and "scroll-hint" in html
    assert html.count("incomplete*") == 2 and "badge-final" in html

    download = client.get(f"/events/{SLUG}/combined.csv")
    assert download.status_code == 200 and download.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(download.text)))
    assert rows[0] == [
        "place", "federation", "Open team", "Open place", "Women team", "Women place",
        "place sum", "TB1", "TB2", "TB3", "TB4", "complete", "status",
    ]  # fmt: skip
    assert [(int(r[0]), r[1], int(r[6]), r[11], r[12]) for r in rows[1:]] == [
        (row.place, row.federation, row.place_sum, "yes" if row.complete else "no", "final")
        for row in expected
    ]
    event_page = client.get(f"/events/{SLUG}")
    assert f'href="/events/{SLUG}/combined"' in event_page.text


def test_a_result_entered_after_the_page_was_kept_rebuilds_it(
    app: FastAPI, played: tuple[UnitOfWorkFactory, dict[str, int]]
) -> None:
    factory, ids = played
    client = TestClient(app)
    for stage_id in ids.values():
        pair_and_publish(factory, stage_id)
    cache = app.state.page_cache
    paths = (f"/api/v1/events/{SLUG}/combined", f"/events/{SLUG}/combined", f"/events/{SLUG}/combined.csv")
    for path in paths:
        assert client.get(path).status_code == 200
    builds, hits = cache.builds, cache.hits
    first = client.get(paths[0]).json()
    assert first["lines"] == [] and first["after_round"] == 0
    assert "No section has a result yet" in client.get(paths[1]).text
    assert (cache.builds, cache.hits) == (builds, hits + 2)  # kept: nothing changed
    with factory() as uow:
        open_round = next(r for r in uow.rounds.rounds_of_stage(ids["open"]) if r.number == 1)
    play_round(factory, open_round.id or 0)  # the Open's round 1 only: the Women play on
    assert "No section has a result yet" not in client.get(paths[1]).text
    assert "Russia" in client.get(paths[2]).text
    again = client.get(paths[0]).json()
    assert cache.builds == builds + 3  # each kept answer built again after the results
    assert again["after_round"] == 0  # the Women have not finished a round
    assert [s["rounds_finished"] for s in again["sections"]] == [1, 0]
    with factory() as uow:
        expected = _independent(uow, ids)
    assert _json_lines(again) == _expected_json(expected)
    assert len(again["lines"]) == len(OPEN) and not any(line["complete"] for line in again["lines"])


def test_an_event_without_sections_has_no_combined_classification(app: FastAPI) -> None:
    with app.state.uow_factory() as uow:
        running_stage(uow)  # the small event (one section), its first stage running
    client = TestClient(app)
    message = "This event has no combined classification"
    for path in (
        "/api/v1/events/small-test-cup/combined",
        "/events/small-test-cup/combined",
        "/events/small-test-cup/combined.csv",
    ):
        answer = client.get(path)
        assert answer.status_code == 404 and message in answer.text, path
    assert client.get("/api/v1/events/no-such-event/combined").status_code == 404
    assert 'href="/events/small-test-cup/combined"' not in client.get("/events/small-test-cup").text
    with app.state.uow_factory() as uow, pytest.raises(NotFound, match=message):
        combined.combined_view(uow, slug="small-test-cup")
