"""The TRF import on PostgreSQL (services/swiss/trf_import.py, docs/trf.md "Importing"): Chennai's file
stored with the standings the replay computes, FIDE's sample with its requested byes and record 310's
points, two sections in one transaction, the next round paired on the server, a broken second file
leaving nothing behind, and a penalty of record 299 stored with record 310's standings."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.trf.swiss_read import read_team_trf
from orchestrator.errors import ValidationFailed
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.trf_files import fixture
from tests.support.trf_import import do_import, expected_after, record_310_totals, standings_after, women

CHENNAI = Path(__file__).parents[1] / "fixtures/olympiads/chennai-2022-open/chennai-2022-open.trf"


def slugs(uow_factory: UnitOfWorkFactory) -> set[str]:
    with uow_factory() as uow:
        return {event.slug for event in uow.events.list_all()}


def test_chennai_is_stored_on_postgresql_with_the_replays_standings(uow_factory: UnitOfWorkFactory) -> None:
    text = CHENNAI.read_text(encoding="utf-8")
    report = do_import(uow_factory, (CHENNAI.name, text))
    state, _ = read_team_trf(text)
    assert report.stages[0].matches == 1018
    assert standings_after(uow_factory, report.slug, "open") == expected_after(state, 11)


def test_fides_sample_is_stored_on_postgresql_with_its_requested_byes(uow_factory: UnitOfWorkFactory) -> None:
    """GrandMommysCup03.trf: 22 requested byes (records 240 F, H); after round 14 every team has its
    record 310's match and game points, and after each round the file's own."""
    text = fixture("GrandMommysCup03.trf")
    report = do_import(uow_factory, ("GrandMommysCup03.trf", text))
    state, _ = read_team_trf(text)
    after = standings_after(uow_factory, report.slug, "open")
    assert after[14] == record_310_totals(text) and len(after[14]) == 50
    assert after == expected_after(state, 14)


def test_two_sections_are_imported_and_the_next_round_paired(uow_factory: UnitOfWorkFactory) -> None:
    open_text = fixture("informative-802.trf")
    report = do_import(uow_factory, ("open.trf", open_text), ("women.trf", women(open_text)))
    assert [(s.key, s.rounds_played) for s in report.stages] == [("open", 3), ("women", 3)]
    with uow_factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=report.stages[1].stage_id, actor="test")
    assert draft.number == 4 and len(draft.pairings) == 3


def test_a_broken_second_file_writes_nothing(uow_factory: UnitOfWorkFactory) -> None:
    before = slugs(uow_factory)
    with pytest.raises(ValidationFailed) as refused:
        do_import(
            uow_factory, ("good.trf", fixture("board-forfeit.trf")), ("broken.trf", fixture("broken.trf"))
        )
    assert len(refused.value.problems) == 8 and slugs(uow_factory) == before


def test_records_250_and_260_of_played_rounds_import_on_postgresql(uow_factory: UnitOfWorkFactory) -> None:
    """Accelerations and prohibited pairings of the rounds played need nothing stored (docs/trf.md)."""
    text = fixture("board-forfeit.trf") + "250    2        1   3    1    3\n260   1   3    1    2\n"
    report = do_import(uow_factory, ("accelerated.trf", text))
    assert report.stages[0].rounds_played == 3
    with uow_factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=report.stages[0].stage_id, actor="test")
    assert draft.number == 4


def test_a_penalty_of_record_299_is_stored_on_postgresql_with_record_310_s_standings(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """penalty-299.trf: Chile loses 2 match points and 1 game point after round 3 (docs/trf.md)."""
    text = fixture("penalty-299.trf")
    report = do_import(uow_factory, ("penalty-299.trf", text))
    state, _ = read_team_trf(text)
    after = standings_after(uow_factory, report.slug, "open")
    assert after[3] == record_310_totals(text) and after[3]["Chile"] == (3, 15)
    assert after == expected_after(state, 3)
    with uow_factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=report.stages[0].stage_id, actor="test")
    assert draft.number == 4
