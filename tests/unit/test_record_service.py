"""The public record written by the services (docs/record.md): one entry per change that decides a standing,
in the same transaction, insert-only, carried unchanged by export-event/import-event."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.adapters.repo_record import RecordRepository, as_entry
from orchestrator.adapters.tables import Stage
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_session_factory, utcnow
from orchestrator.domain import record
from orchestrator.services.backup.event_backup import export_event, import_event
from orchestrator.services.results import appeals, results, withdrawals
from orchestrator.services.results import standings as standings_service
from orchestrator.services.setup import draws
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.databases import migrated_engine
from tests.support.pools import DRAW_3_3, FIRST_WINS_6_0, SeededPool, play, seed_small_pool
from tests.support.results import LATER
from tests.support.swiss import running_swiss


@pytest.fixture
def seeded(uowf: UnitOfWorkFactory) -> SeededPool:
    return seed_small_pool(uowf)


def event_id_of(uowf: UnitOfWorkFactory, slug: str) -> int:
    with uowf() as uow:
        event = uow.read.visible_event(slug)
        assert event is not None and event.id is not None
        return event.id


def entries(uowf: UnitOfWorkFactory, slug: str) -> list[record.Entry]:
    with uowf() as uow:
        return [as_entry(row) for row in uow.record.oldest_first(event_id_of(uowf, slug))]


def kinds(uowf: UnitOfWorkFactory, slug: str) -> list[str]:
    return [e.kind for e in entries(uowf, slug)]


def play_everything(uowf: UnitOfWorkFactory, seeded: SeededPool) -> None:
    for (_, first, _), match_id in sorted(seeded.matches.items()):
        play(uowf, match_id, FIRST_WINS_6_0 if first == "Norway" else DRAW_3_3)


def test_publishing_and_starting_a_stage_records_the_lots_and_every_pairing(
    uowf: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    found = entries(uowf, seeded.slug)
    assert [e.kind for e in found] == ["lot.commit", "lot.draw", "stage.start"]
    pairings = found[-1].payload or {}
    assert sorted(m["match"] for m in pairings["matches"]) == sorted(seeded.matches.values())
    assert {m["boards"] for m in pairings["matches"]} == {6}
    assert record.verify(found).mismatch is None


def test_each_result_appends_one_entry_linked_to_the_one_before(
    uowf: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    before = entries(uowf, seeded.slug)
    match_id = seeded.match_of(1, "Norway")
    play(uowf, match_id, FIRST_WINS_6_0)
    after = entries(uowf, seeded.slug)
    added = after[len(before) :]
    assert [e.kind for e in added] == ["board.result"] * 6
    assert [(e.payload or {})["board_no"] for e in added] == [1, 2, 3, 4, 5, 6]
    assert {(e.payload or {})["match"] for e in added} == {match_id}
    assert added[0].prev == before[-1].hash and added[0].seq == before[-1].seq + 1
    assert record.check_chain(after) is None


def test_a_correction_a_forfeit_an_appeal_and_a_withdrawal_each_append_one_entry(
    uowf: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    match_id = seeded.match_of(1, "Norway")
    play(uowf, match_id, FIRST_WINS_6_0)
    with uowf() as uow:
        board = uow.read.boards_of_matches([match_id])[0]
    count = len(kinds(uowf, seeded.slug))
    with uowf() as uow:
        results.correct_result(
            uow,
            board_id=board.id or 0,
            result="½-½",
            expected_version=board.version,
            actor="arb",
            reason="typo",
        )
    assert kinds(uowf, seeded.slug)[count:] == ["board.correction"]
    other = (
        seeded.match_of(1, "Denmark")
        if seeded.match_of(1, "Denmark") != match_id
        else seeded.match_of(1, "Finland")
    )
    with uowf() as uow:
        results.set_match_forfeit(uow, match_id=other, forfeit="+-", actor="arb", reason="no show")
    assert kinds(uowf, seeded.slug)[count + 1 :] == ["match.forfeit"]
    assert entries(uowf, seeded.slug)[-1].payload == {"match": other, "forfeits": {str(other): "+-"}}
    with uowf() as uow:
        appeal = appeals.open_appeal(uow, match_id=match_id, actor="cap", grounds="disconnection")
    assert kinds(uowf, seeded.slug)[count + 2 :] == []  # an open appeal decides nothing yet
    with uowf() as uow:
        appeals.decide_appeal(uow, appeal_id=appeal.appeal_id, decision="stands", upheld=False, actor="arb")
    assert kinds(uowf, seeded.slug)[count + 2 :] == ["appeal.decide"]
    with uowf() as uow:
        withdrawals.withdraw_from_pool_stage(
            uow, stage_id=seeded.stage_id, team_id=seeded.teams["Sweden"], reason="travel", actor="arb"
        )
    added = entries(uowf, seeded.slug)[count + 3 :]
    withdrawn = added[0].payload or {}
    assert added[0].kind == "team.withdraw" and withdrawn["team"] == "Sweden"
    # one entry for the withdrawal, then the forfeit of each remaining match as its own entry
    assert len(withdrawn["forfeited_matches"]) == 2
    assert [e.kind for e in added[1:]] == ["match.forfeit"] * 2
    assert record.verify(entries(uowf, seeded.slug)).mismatch is None


def test_closing_the_stage_records_standings_that_the_recorded_results_give(
    uowf: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    play_everything(uowf, seeded)
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=seeded.stage_id, actor="boss", now=utcnow() + LATER)
    found = entries(uowf, seeded.slug)
    closing = next(e for e in found if e.kind == "stage.close")
    rows = (closing.payload or {})["pools"][str(seeded.pool_id)]
    with uowf() as uow:
        stored = {row.team_id: row.values["MP"] for row in uow.rounds.standings_of_pool(seeded.pool_id)}
    assert {row["team"]: row["MP"] for row in rows} == {name: stored[i] for name, i in seeded.teams.items()}
    assert (closing.payload or {})["scoring"] == {"win": 2, "draw": 1, "loss": 0}
    verdict = record.verify(found)
    assert verdict.mismatch is None and verdict.closings == 1
    # the same closing publishing one match point more for Norway does not hold
    forged = [dict(row) for row in rows]
    forged[0]["MP"] = str(int(forged[0]["MP"]) + 1)
    chain: list[record.Entry] = []
    for e in found:
        payload = {**(e.payload or {}), "pools": {str(seeded.pool_id): forged}} if e is closing else e.payload
        chain.append(
            record.next_entry(chain[-1] if chain else None, at=e.at, kind=e.kind, payload=payload or {})
        )
    mismatch = record.verify(chain).mismatch
    assert mismatch is not None and mismatch.seq == closing.seq and forged[0]["team"] in mismatch.what


def test_a_lot_commitment_and_its_draw_each_append_one_entry_without_the_sealed_seed(
    uowf: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    event_id = event_id_of(uowf, seeded.slug)
    with uowf() as uow:
        lot_id = draws.commit_lot(
            uow, event_id=event_id, purpose="Photo order", candidates=["A", "B"], actor="arb"
        )
    commit = entries(uowf, seeded.slug)[-1]
    assert commit.kind == "lot.commit" and "seed_hex" not in (commit.payload or {})
    with uowf() as uow:
        draws.reveal_lot(uow, lot_id=lot_id, actor="arb")
    drawn = entries(uowf, seeded.slug)[-1]
    assert drawn.kind == "lot.draw" and (drawn.payload or {})["lot"] == lot_id
    assert record.check_lots(entries(uowf, seeded.slug)) is None


def test_changes_that_decide_no_standing_are_not_recorded(
    uowf: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    count = len(kinds(uowf, seeded.slug))
    with uowf() as uow:
        uow.audit.record(actor="x", action="user.notifications", entity="user", entity_id=1, event_id=None)
        uow.audit.record(
            actor="x",
            action="round.lineup_deadline",
            entity="round",
            entity_id=1,
            event_id=event_id_of(uowf, seeded.slug),
        )
    assert len(kinds(uowf, seeded.slug)) == count


def test_the_record_repository_offers_no_update_and_no_delete() -> None:
    assert not any(
        hasattr(RecordRepository, name) for name in ("update", "delete", "add", "add_all", "update_versioned")
    )


def test_export_and_import_carry_the_chain_unchanged(
    uowf: UnitOfWorkFactory, seeded: SeededPool, settings: Settings, tmp_path: Path
) -> None:
    play(uowf, seeded.match_of(1, "Norway"), FIRST_WINS_6_0)
    original = entries(uowf, seeded.slug)
    archive = tmp_path / "cup.zip"
    with uowf() as uow:
        export_event(uow, slug=seeded.slug, path=archive)
    engine = migrated_engine(f"sqlite:///{tmp_path / 'restored.sqlite3'}")
    sessions = make_session_factory(engine)
    target: UnitOfWorkFactory = lambda: UnitOfWork(sessions)  # noqa: E731
    with target() as uow:
        import_event(uow, path=archive, actor="cli", settings=settings)
    restored = entries(target, seeded.slug)
    assert restored == original
    assert record.verify(restored).mismatch is None


def test_publishing_a_swiss_round_records_its_matches_and_its_bye(uowf: UnitOfWorkFactory) -> None:
    with uowf() as uow:
        stage_id = running_swiss(uow)
        slug = uow.events.event_of_stage(uow.events.get_or_raise(Stage, stage_id)).slug
    with uowf() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor="arb")
    before = kinds(uowf, slug)
    with uowf() as uow:
        swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="arb")
    added = entries(uowf, slug)[len(before) :]
    assert [e.kind for e in added] == ["swiss.publish"]
    payload = added[0].payload or {}
    assert payload["round"] == 1 and len(payload["matches"]) == 3 and len(payload["byes"]) == 1  # seven teams
    assert payload["byes"][0] not in {m[side] for m in payload["matches"] for side in ("a", "b")}
