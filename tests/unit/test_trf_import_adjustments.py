"""Bonus and penalty points (TRF-2026 record 299 with a blank type) imported with an event
(services/swiss/trf_import.py, docs/trf.md "Importing"), on SQLite: stored as the stage's adjustments, the
standings after the last round are record 310's, the pairing score counts them from the round after
theirs, and the Swiss TRF download writes them again as records 299."""

from __future__ import annotations

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.standings import team_totals
from orchestrator.domain.swiss.model import ScoreAdjustment
from orchestrator.domain.trf.swiss_read import read_team_trf
from orchestrator.services.read.rating_trf import pool_rating_trf
from orchestrator.services.results import exports as results_exports
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results.adjustments import stage_adjustments
from orchestrator.services.swiss import exports
from orchestrator.services.swiss.state import swiss_state_of
from tests.support.trf_files import fixture
from tests.support.trf_import import do_import, expected_after, record_310_totals, standings_after

PENALTY = "penalty-299.trf"  # Chile, team 3, loses 2 match points and 1 game point after round 3


def test_a_penalty_of_record_299_is_stored_with_its_line_instead_of_refused(
    uow_factory: UnitOfWorkFactory,
) -> None:
    report = do_import(uow_factory, (PENALTY, fixture(PENALTY)))
    stage_id = report.stages[0].stage_id
    with uow_factory() as uow:
        stored = stage_adjustments(uow, stage_id)
        chile = next(t.id for t in uow.teams.teams_of_event(report.event_id) if t.name == "Chile")
    assert [(a.team_id, a.after_round, a.standings_only, a.mp, a.gp_half) for a in stored] == [
        (chile, 3, False, -2, -2)
    ]
    assert stored[0].reason == "record 299 of the imported file, line 41"


def test_the_standings_after_the_last_round_are_record_310_s_penalty_included(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = fixture(PENALTY)
    report = do_import(uow_factory, (PENALTY, text))
    expected = record_310_totals(text)
    assert expected["Chile"] == (3, 15)  # 5 MP and 8½ GP over the board, less the penalty
    after = standings_after(uow_factory, report.slug, "open")  # the public page's tables
    assert after[3] == expected
    state, _ = read_team_trf(text)
    assert after == expected_after(state, 3)  # and after rounds 1 and 2, before the penalty
    assert after[2]["Chile"] == state.points("Chile", through=2)
    with uow_factory() as uow:
        pool_id = uow.rounds.pools_of_stage(report.stages[0].stage_id)[0].id or 0
        data = standings_service.pool_records(uow, pool_id=pool_id)
        rows = {r.team: r.values for r in standings_service.pool_standings(uow, pool_id=pool_id).rows}
        names = {t.id: t.name for t in uow.teams.teams_of_event(report.event_id)}
        stored = {names[s.team_id]: s.values for s in uow.rounds.standings_of_pool(pool_id)}
    totals = team_totals(
        data.teams,
        data.records,
        scoring=data.rules.scoring,
        bye_mp=data.bye_mp,
        adjustments=data.adjusted_points,
    )
    assert {team: (t.mp, t.gp_half) for team, t in totals.items()} == expected
    assert (rows["Chile"]["MP"], 2 * rows["Chile"]["GP"]) == expected["Chile"]
    assert stored["Chile"]["MP"] == "3"  # the stored standings the stage's pool table reads


def test_the_standings_and_rating_files_write_the_penalty_as_record_299_and_in_record_310(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = fixture(PENALTY)
    report = do_import(uow_factory, (PENALTY, text))
    with uow_factory() as uow:
        pool_id = uow.rounds.pools_of_stage(report.stages[0].stage_id)[0].id or 0
        standings_file = results_exports.pool_trf(uow, pool_id=pool_id)
        rating_file = pool_rating_trf(uow, pool_id=pool_id)[1]
    penalty = [line for line in text.splitlines() if line.startswith("299")]
    for written in (standings_file, rating_file):
        assert [line for line in written.splitlines() if line.startswith("299")] == penalty
        assert record_310_totals(written) == record_310_totals(text)


def test_the_pairing_score_counts_the_penalty_from_the_next_round_and_the_trf_writes_it_back(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = fixture(PENALTY)
    report = do_import(uow_factory, (PENALTY, text))
    with uow_factory() as uow:
        stored = swiss_state_of(uow, report.stages[0].stage_id)
        written = exports.pool_trf(uow, pool_id=stored.rows.pool.id or 0)
    assert stored.state.adjustments == (ScoreAdjustment("Chile", 3, -2, -2, True),)
    assert stored.state.adjusted("Chile", 4) == (-2, -2) and stored.state.adjusted("Chile", 3) == (0, 0)
    assert [line for line in written.splitlines() if line.startswith("299")] == [
        line for line in text.splitlines() if line.startswith("299")
    ]
    again, _ = read_team_trf(written)
    assert again.adjustments == stored.state.adjustments


def test_points_for_the_standings_only_count_after_the_last_round_and_never_in_the_pairing(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = fixture(PENALTY).replace("299    -2.0  -1.0    3    3", "299    -2.0  -1.0  999    3")
    report = do_import(uow_factory, ("final.trf", text))
    after = standings_after(uow_factory, report.slug, "open")
    assert after[3] == record_310_totals(text)
    assert after[2]["Chile"] == read_team_trf(text)[0].points("Chile", through=2)
    with uow_factory() as uow:
        stored = swiss_state_of(uow, report.stages[0].stage_id)
    assert stored.state.adjusted("Chile", 4) == (0, 0)
    assert stored.state.points("Chile") == record_310_totals(text)["Chile"]
