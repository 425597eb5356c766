"""The public record of a Swiss stage (docs/record.md): each ``swiss.publish`` entry names the round's
pairing-allocated bye, the byes teams asked for and the teams absent, so ``olympiad verify-record``
recomputes the stage's closing; an imported TRF event's rounds are recorded too; a result changed behind
the application's back is named at the closing; export-event/import-event carry the chain unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from orchestrator.adapters.repo_record import as_entry
from orchestrator.adapters.tables import Stage, SwissRoundRole, SwissRoundTeam
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.cli import app as cli_app
from orchestrator.config import Settings
from orchestrator.db import get_engine, init_db, make_engine, make_session_factory, utcnow
from orchestrator.domain import record
from orchestrator.services.backup.event_backup import export_event, import_event
from orchestrator.services.read import record as record_read
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results.standings import ClosedStage
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.swiss.adjustments import give_adjustment
from tests.support.results import LATER
from tests.support.swiss import ACTOR, pair_publish_play, running_swiss
from tests.support.trf_files import fixture
from tests.support.trf_import import do_import

runner = CliRunner()
HALF_BYE_ROUND = 2  # the round in which one team has the half-point bye it asked for


def slug_of(uowf: UnitOfWorkFactory, stage_id: int) -> str:
    with uowf() as uow:
        return uow.events.event_of_stage(uow.events.get_or_raise(Stage, stage_id)).slug


def entries(uowf: UnitOfWorkFactory, slug: str) -> list[record.Entry]:
    with uowf() as uow:
        event = uow.read.visible_event(slug)
        assert event is not None and event.id is not None
        return [as_entry(row) for row in uow.record.oldest_first(event.id)]


def close(uowf: UnitOfWorkFactory, stage_id: int) -> None:
    """Close the stage, drawing any tie-break lot its first attempt commits (a second attempt)."""
    for _attempt in range(3):
        with uowf() as uow:
            closed: ClosedStage = standings_service.close_stage(
                uow, stage_id=stage_id, actor="boss", now=utcnow() + LATER
            )
        if closed.refusal is None:
            return
    raise AssertionError(f"stage {stage_id} did not close")


def played_swiss(uowf: UnitOfWorkFactory) -> tuple[int, str]:
    """The seven-team Swiss (tests/fixtures/events/swiss-small.yaml) played to its end, one team with a
    requested half-point bye in round 2 (as an imported file stores one) and the pairing-allocated bye in
    every other round; returns the stage id and the event's slug."""
    with uowf() as uow:
        stage_id = running_swiss(uow)
    with uowf() as uow:
        rounds = {r.number: r for r in uow.rounds.rounds_of_stage(stage_id)}
        team_id = uow.rounds.entries_of_pool(uow.rounds.pools_of_stage(stage_id)[0].id or 0)[-1].team_id
        uow.rounds.add(
            SwissRoundTeam(
                round_id=rounds[HALF_BYE_ROUND].id or 0,
                team_id=team_id,
                role=SwissRoundRole.HALF_BYE.value,
                recorded_by=ACTOR,
            )
        )
        total = len(rounds)
    for _number in range(total):
        pair_publish_play(uowf, stage_id)
    close(uowf, stage_id)
    return stage_id, slug_of(uowf, stage_id)


def test_a_swiss_stage_with_a_bye_and_a_requested_bye_verifies_with_its_closing_recomputed(
    uowf: UnitOfWorkFactory,
) -> None:
    stage_id, slug = played_swiss(uowf)
    found = entries(uowf, slug)
    published = [e.payload or {} for e in found if e.kind == "swiss.publish"]
    assert [p["round"] for p in published] == [1, 2, 3, 4, 5]
    assert [len(p["byes"]) for p in published] == [1, 0, 1, 1, 1]  # seven teams; six in round 2
    assert [len(p["half_byes"]) for p in published] == [0, 1, 0, 0, 0]
    assert {p["boards"] for p in published} == {4}
    assert all(p["full_byes"] == [] and p["absent"] == [] for p in published)
    with uowf() as uow:
        pool = uow.rounds.pools_of_stage(stage_id)[0].id
    assert {p["pool"] for p in published} == {str(pool)}
    verdict = record.verify(found)
    assert verdict.mismatch is None
    assert (verdict.closings, verdict.unchecked) == (1, 0)


def test_a_closing_without_a_bye_in_the_record_would_not_hold(uowf: UnitOfWorkFactory) -> None:
    """The byes are what the closing is recomputed from: a record that leaves one out names the team."""
    _stage_id, slug = played_swiss(uowf)
    found = entries(uowf, slug)
    rewritten: list[record.Entry] = []
    for e in found:
        payload = dict(e.payload or {})
        if e.kind == "swiss.publish" and payload["round"] == HALF_BYE_ROUND:
            asked = payload["half_byes"][0]
            payload["half_byes"] = []
        rewritten.append(
            record.next_entry(rewritten[-1] if rewritten else None, at=e.at, kind=e.kind, payload=payload)
        )
    mismatch = record.verify(rewritten).mismatch
    closing = next(e for e in rewritten if e.kind == "stage.close")
    assert mismatch is not None and mismatch.seq == closing.seq
    assert f", {asked}: published MP" in mismatch.what


def saved(client: TestClient, slug: str, path: Path) -> Path:
    """The record's JSON in one file, as ``verify-record --save`` writes it (every entry on one page)."""
    path.write_text(client.get(f"/api/v1/events/{slug}/record").text, encoding="utf-8")
    return path


def test_a_result_changed_behind_the_applications_back_is_named_at_the_swiss_closing(
    app: FastAPI, client: TestClient, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record_read, "PER_PAGE", 10_000)
    uowf = app.state.uow_factory
    with uowf() as uow:
        stage_id = running_swiss(uow)
        total = len(uow.rounds.rounds_of_stage(stage_id))
    for _number in range(total):
        last = pair_publish_play(uowf, stage_id)
    with get_engine(settings).begin() as connection:  # the database, not the application
        board = connection.execute(
            text(
                "SELECT board.id, board.result FROM board JOIN match ON board.match_id = match.id "
                "WHERE match.round_id = :round AND match.match_no = 1 AND board.board_no = 1"
            ),
            {"round": last.round_id},
        ).one()
        flipped = {"1-0": "0-1", "0-1": "1-0", "½-½": "1-0"}[board.result]
        connection.execute(
            text("UPDATE board SET result = :r WHERE id = :id"), {"r": flipped, "id": board.id}
        )
    close(uowf, stage_id)
    slug = slug_of(uowf, stage_id)
    result = runner.invoke(cli_app, ["verify-record", str(saved(client, slug, tmp_path / "record.json"))])
    assert result.exit_code == 1, result.output
    closing = next(e for e in entries(uowf, slug) if e.kind == "stage.close")
    assert f"MISMATCH entry {closing.seq} (stage.close, " in result.output
    assert "published GP" in result.output or "published MP" in result.output
    assert "the recorded results give" in result.output


def test_a_sound_swiss_record_exits_0_and_says_its_closing_was_checked(
    app: FastAPI, client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record_read, "PER_PAGE", 10_000)
    _stage_id, slug = played_swiss(app.state.uow_factory)
    result = runner.invoke(cli_app, ["verify-record", str(saved(client, slug, tmp_path / "record.json"))])
    assert result.exit_code == 0, result.output
    assert "1 stage closing(s) checked against the recorded results" in result.output
    assert "not recomputed" not in result.output


def test_export_and_import_carry_a_swiss_record_unchanged(
    uowf: UnitOfWorkFactory, settings: Settings, tmp_path: Path
) -> None:
    _stage_id, slug = played_swiss(uowf)
    original = entries(uowf, slug)
    archive = tmp_path / "swiss.zip"
    with uowf() as uow:
        export_event(uow, slug=slug, path=archive)
    engine = make_engine(f"sqlite:///{tmp_path / 'restored.sqlite3'}")
    init_db(engine=engine)
    sessions = make_session_factory(engine)
    target: UnitOfWorkFactory = lambda: UnitOfWork(sessions)  # noqa: E731
    with target() as uow:
        import_event(uow, path=archive, actor="cli", settings=settings)
    restored = entries(target, slug)
    assert restored == original
    verdict = record.verify(restored)
    assert verdict.mismatch is None and (verdict.closings, verdict.unchecked) == (1, 0)


def test_an_imported_trf_event_records_its_rounds_byes_and_results_and_its_closing_verifies(
    uow_factory: UnitOfWorkFactory,
) -> None:
    report = do_import(uow_factory, ("GrandMommysCup03.trf", fixture("GrandMommysCup03.trf")))
    stage_id = report.stages[0].stage_id
    found = entries(uow_factory, report.slug)
    published = [e.payload or {} for e in found if e.kind == "swiss.publish"]
    assert [p["round"] for p in published] == list(range(1, 15))
    assert sum(len(p["full_byes"]) for p in published) == 9  # the file's requested byes (docs/trf.md)
    assert sum(len(p["half_byes"]) for p in published) == 13
    with uow_factory() as uow:
        boards = sum(
            1
            for rnd in uow.rounds.rounds_of_stage(stage_id)
            for item in uow.boards.boards_of_round(rnd.id or 0)
            if item.board.result != "*"
        )
    assert sum(1 for e in found if e.kind == "board.import_result") == boards
    close(uow_factory, stage_id)
    verdict = record.verify(entries(uow_factory, report.slug))
    assert verdict.mismatch is None
    assert (verdict.closings, verdict.unchecked) == (1, 0)


def test_a_round_paired_again_after_publishing_counts_its_last_publication_only(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        stage_id = running_swiss(uow)
    with uowf() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    with uowf() as uow:
        swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
    with uowf() as uow:
        swiss_rounds.repair_round(uow, round_id=draft.round_id, actor=ACTOR)
    with uowf() as uow:
        swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
    slug = slug_of(uowf, stage_id)
    publications = [e for e in entries(uowf, slug) if e.kind == "swiss.publish"]
    assert len(publications) == 2
    assert len(record.swiss_rounds(entries(uowf, slug))) == 1


def test_bonus_and_penalty_points_are_recorded_and_counted_at_the_swiss_closing(
    uowf: UnitOfWorkFactory,
) -> None:
    """A penalty given at the desk (TRF record 299's meaning, docs/swiss.md) is a ``swiss.adjustment``
    entry with its stage's pool; the closing's published points include it, and so does the recomputation:
    a record without the entry names the team."""
    with uowf() as uow:
        stage_id = running_swiss(uow)
        total = len(uow.rounds.rounds_of_stage(stage_id))
    pair_publish_play(uowf, stage_id)
    with uowf() as uow:
        team_id = uow.rounds.entries_of_pool(uow.rounds.pools_of_stage(stage_id)[0].id or 0)[0].team_id
        given = give_adjustment(
            uow,
            stage_id=stage_id,
            team_id=team_id,
            after_round=1,
            mp=-2,
            gp_half=-1,
            reason="late",
            actor=ACTOR,
        )
    for _number in range(total - 1):
        pair_publish_play(uowf, stage_id)
    close(uowf, stage_id)
    found = entries(uowf, slug_of(uowf, stage_id))
    adjusted = [e.payload or {} for e in found if e.kind == "swiss.adjustment"]
    with uowf() as uow:
        pool = uow.rounds.pools_of_stage(stage_id)[0].id
    assert [(p["team"], p["pool"], p["match_points"], p["game_points"]) for p in adjusted] == [
        (given.team, str(pool), -2, "-1/2")
    ]
    verdict = record.verify(found)
    assert verdict.mismatch is None
    assert (verdict.closings, verdict.unchecked) == (1, 0)
    rewritten: list[record.Entry] = []
    for e in (e for e in found if e.kind != "swiss.adjustment"):
        rewritten.append(
            record.next_entry(rewritten[-1] if rewritten else None, at=e.at, kind=e.kind, payload=e.payload)
        )
    mismatch = record.verify(rewritten).mismatch
    assert mismatch is not None and f", {given.team}: published MP" in mismatch.what


def test_an_imported_file_s_record_299_is_recorded_and_its_closing_verifies(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Chile loses 2 match points and 1 game point after round 3 (record 299 of the file); the rest of the
    event is played on the server and closed."""
    report = do_import(uow_factory, ("penalty-299.trf", fixture("penalty-299.trf")))
    stage_id = report.stages[0].stage_id
    adjusted = [e.payload or {} for e in entries(uow_factory, report.slug) if e.kind == "swiss.adjustment"]
    assert [(p["team"], p["after_round"], p["match_points"], p["game_points"]) for p in adjusted] == [
        ("Chile", 3, -2, "-1")
    ]
    with uow_factory() as uow:
        left = sum(1 for r in uow.rounds.rounds_of_stage(stage_id) if r.status != "finished")
    for _number in range(left):
        pair_publish_play(uow_factory, stage_id)
    close(uow_factory, stage_id)
    verdict = record.verify(entries(uow_factory, report.slug))
    assert verdict.mismatch is None
    assert (verdict.closings, verdict.unchecked) == (1, 0)
