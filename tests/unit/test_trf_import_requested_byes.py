"""FIDE's sample GrandMommysCup03.trf imported with its requested byes (record 240 ``F``, ``H``;
services/swiss/trf_import.py, docs/trf.md "Importing"), on SQLite: every team's match and game points
after round 14 are its record 310's, the standings after each round are the file's own, the Swiss desk
reads the byes back (its TRF download writes the file's 240 records again) and the pages name them."""

from __future__ import annotations

from fastapi import FastAPI

from orchestrator.adapters.tables import SwissRoundRole
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.standings import team_totals
from orchestrator.domain.trf.swiss_read import read_team_trf
from orchestrator.services.read.rating_trf import pool_rating_trf
from orchestrator.services.results import exports as results_exports
from orchestrator.services.results import standings as standings_service
from orchestrator.services.swiss import exports
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.swiss.rounds import describe_round
from orchestrator.services.swiss.state import swiss_state_of
from tests.support.trf_files import fixture
from tests.support.trf_import import do_import, expected_after, record_310_totals, standings_after
from tests.support.web import login

SAMPLE = "GrandMommysCup03.trf"


def file_byes(text: str) -> set[tuple[str, int, int]]:
    """The requested byes of records 240 ``F``/``H``: (type, round, team), one a team."""
    return {
        (line[4], int(line[6:9]), int(team))
        for line in text.splitlines()
        if line.startswith(("240 F", "240 H"))
        for team in line[10:].split()
    }


def team_names(text: str) -> dict[int, str]:
    return {int(line[4:7]): line[8:40].strip() for line in text.splitlines() if line.startswith("310 ")}


def test_the_sample_imports_with_every_team_s_points_of_record_310(uow_factory: UnitOfWorkFactory) -> None:
    text = fixture(SAMPLE)
    report = do_import(uow_factory, (SAMPLE, text))
    stage = report.stages[0]
    assert (stage.teams, stage.rounds_played) == (50, 14)
    expected = record_310_totals(text)
    assert len(expected) == 50
    after = standings_after(uow_factory, report.slug, "open")  # the public page's table
    assert after[14] == expected
    state, _ = read_team_trf(text)
    assert after == expected_after(state, 14)  # and after every round, the byes counted from theirs on
    with uow_factory() as uow:
        data = standings_service.pool_records(
            uow, pool_id=uow.rounds.pools_of_stage(stage.stage_id)[0].id or 0
        )
        totals = team_totals(data.teams, data.records, scoring=data.rules.scoring, bye_mp=data.bye_mp)
        roles = [row.role for row, _n in uow.rounds.round_teams_of_stage(stage.stage_id)]
    assert {team: (t.mp, t.gp_half) for team, t in totals.items()} == expected  # the stored standings'
    assert roles.count(SwissRoundRole.FULL_BYE.value) == 9
    assert roles.count(SwissRoundRole.HALF_BYE.value) == 13


def test_the_desk_reads_the_requested_byes_back_and_its_trf_writes_them_again(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = fixture(SAMPLE)
    report = do_import(uow_factory, (SAMPLE, text))
    stage_id = report.stages[0].stage_id
    names = team_names(text)
    file_state, _ = read_team_trf(text)
    with uow_factory() as uow:
        stored = swiss_state_of(uow, stage_id)
        pool_id = stored.rows.pool.id or 0
        written = exports.pool_trf(uow, pool_id=pool_id)
        standings_file = results_exports.pool_trf(uow, pool_id=pool_id)
        rating_file = pool_rating_trf(uow, pool_id=pool_id)[1]
        rounds = {rnd.number: rnd.id or 0 for rnd in stored.rows.rounds}
        round_1, round_12 = describe_round(uow, round_id=rounds[1]), describe_round(uow, round_id=rounds[12])
    key = lambda b: (b.round, b.team)  # noqa: E731
    assert sorted(stored.state.requested_byes, key=key) == sorted(file_state.requested_byes, key=key)
    assert all(stored.state.points(t.name) == file_state.points(t.name) for t in file_state.teams)
    assert file_byes(written) == file_byes(text) and len(file_byes(text)) == 22
    # the standings file (tie-break checker) and the rating file write them too, 320 only the allocated byes
    assert file_byes(standings_file) == file_byes(rating_file) == file_byes(text)
    assert [x for x in standings_file.splitlines() if x.startswith("320")] == [
        x for x in rating_file.splitlines() if x.startswith("320")
    ]
    totals = record_310_totals(standings_file)
    assert totals == record_310_totals(text)
    assert (round_1.full_byes, round_1.half_byes) == ((names[3],), (names[39],))
    assert (round_12.full_byes, sorted(round_12.half_byes)) == ((), sorted([names[15], names[31]]))
    assert names[39] not in round_1.not_paired


def test_the_pages_name_a_requested_bye_with_its_value(app: FastAPI) -> None:
    text = fixture(SAMPLE)
    report = do_import(app.state.uow_factory, (SAMPLE, text))
    names = team_names(text)
    with app.state.uow_factory() as uow:
        full = next(
            row
            for row, number in uow.rounds.round_teams_of_stage(report.stages[0].stage_id)
            if number == 1 and row.role == SwissRoundRole.FULL_BYE.value
        )
    client, _csrf = login(app, None)
    page = client.get(f"/events/{report.slug}/stages/open?round=2")
    assert page.status_code == 200
    assert "Requested bye (half point):" in page.text and names[7] in page.text and names[39] in page.text
    first = client.get(f"/events/{report.slug}/stages/open?round=1").text
    assert "Requested bye (full point):" in first and names[3] in first
    team = client.get(f"/events/{report.slug}/teams/{full.team_id}")
    assert team.status_code == 200 and "Requested bye (full point): a won match" in team.text


def test_a_requested_bye_of_the_round_to_pair_keeps_the_team_out_of_the_desk_s_pairing(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """board-forfeit.trf has played 3 of its 5 rounds; team 2 asks for a half-point bye in round 4: stored
    with round 4, the desk pairs the five others (one of them with the pairing-allocated bye) and, once
    the round is published, the team has the bye's match point."""
    text = fixture("board-forfeit.trf") + "240 H   4    2\n"
    report = do_import(uow_factory, ("bye.trf", text))
    stage_id = report.stages[0].stage_id
    with uow_factory() as uow:
        stored = swiss_state_of(uow, stage_id)
        brazil_before = stored.state.points("Brazil")
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor="test")
    assert draft.number == 4 and draft.half_byes == ("Brazil",) and "Brazil" not in draft.not_paired
    assert "Brazil" not in {t for p in draft.pairings for t in (p.first, p.second)}
    assert len(draft.pairings) == 2 and draft.bye is not None
    with uow_factory() as uow:
        swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="test")
    with uow_factory() as uow:
        data = standings_service.pool_records(uow, pool_id=stored.rows.pool.id or 0)
    brazil = team_totals(data.teams, data.records, scoring=data.rules.scoring, bye_mp=data.bye_mp)["Brazil"]
    assert (brazil.mp, brazil.gp_half) == (brazil_before[0] + 1, brazil_before[1] + 4)
