"""The record's head kept for a unit of work (``RecordRepository._head``, SQLite).

A unit of work that appends several entries to one event's record (a stage start records a lot per pool)
locks the event and reads the end of its chain once; every entry still links to the one before it, and the
next unit of work reads the end again rather than trusting what an earlier one kept.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event as sa_event

from orchestrator.adapters.repo_record import RecordRepository, as_entry
from orchestrator.adapters.tables import Event, EventStatus
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.domain import record


def _event(uowf: UnitOfWorkFactory) -> int:
    with uowf() as uow:
        row = uow.events.insert(Event(slug="heads", name="Heads", status=EventStatus.RUNNING.value))
        return row.id or 0


def _chain_reads(uow: UnitOfWork) -> list[str]:
    """The statements that read the end of a record's chain, as ``uow`` sends them from now on."""
    reads: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "FROM record_entry" in statement and "ORDER BY record_entry.seq DESC" in statement:
            reads.append(statement)

    sa_event.listen(uow.session.get_bind(), "before_cursor_execute", seen)
    return reads


def _append(uow: UnitOfWork, event_id: int, n: int) -> None:
    RecordRepository(uow.session).append(
        event_id=event_id, kind="stage.start", payload={"stage": n, "matches": []}
    )


def test_one_read_of_the_chain_end_per_unit_of_work_and_every_entry_linked(
    uow_factory: UnitOfWorkFactory,
) -> None:
    event_id = _event(uow_factory)
    with uow_factory() as uow:
        reads = _chain_reads(uow)
        for n in range(3):
            _append(uow, event_id, n)
        RecordRepository(uow.session).append_changes(
            [
                {
                    "action": "event.close",
                    "entity": "event",
                    "entity_id": event_id,
                    "event_id": event_id,
                    "new": {"champions": ["Norway"]},
                }
            ]
        )
        assert len(reads) == 1
    with uow_factory() as uow:
        reads = _chain_reads(uow)
        _append(uow, event_id, 3)
        assert len(reads) == 1  # a new unit of work reads the end again
    with uow_factory() as uow:
        chain = [as_entry(row) for row in uow.record.oldest_first(event_id)]
    assert [e.seq for e in chain] == [1, 2, 3, 4, 5]
    assert [e.kind for e in chain] == ["stage.start"] * 3 + ["event.close", "stage.start"]
    assert record.check_chain(chain) is None


def test_an_entry_rolled_back_with_its_savepoint_leaves_no_gap_in_the_chain(
    uow_factory: UnitOfWorkFactory,
) -> None:
    event_id = _event(uow_factory)
    with uow_factory() as uow:
        _append(uow, event_id, 1)
        savepoint = uow.session.begin_nested()
        _append(uow, event_id, 2)
        savepoint.rollback()
        _append(uow, event_id, 3)
    with uow_factory() as uow:
        chain = [as_entry(row) for row in uow.record.oldest_first(event_id)]
    assert [(e.seq, (e.payload or {})["stage"]) for e in chain] == [(1, 1), (2, 3)]
    assert record.check_chain(chain) is None
