"""notify.scan's read of the audit log leaves out what finished events changed before they closed (SQLite).

docs/performance.md, "A season on one machine": each scan read the changes of every event closed within its
two-day look-back again; 200 finished events cost a worker 0.5 s of CPU per scan.
"""

from __future__ import annotations

from datetime import timedelta

from orchestrator.adapters.repo_audit import CLOSE_SETTLED
from orchestrator.adapters.tables import AuditLog, Event
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow

CHANGES = ("stage.start", "board.correction")


def entry(event_id: int | None, action: str, ago: timedelta, *, entity: str = "stage") -> AuditLog:
    return AuditLog(
        at=utcnow() - ago, actor="t", action=action, entity=entity, entity_id=event_id, event_id=event_id
    )


def test_changes_an_event_closed_on_long_ago_are_left_out_and_later_ones_kept(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        settled, recent, running = (
            uow.events.insert(Event(slug=slug, name=slug)).id or 0
            for slug in ("settled", "recent", "running")
        )
        rows = {
            "settled start": entry(settled, "stage.start", timedelta(hours=5)),
            "settled close": entry(
                settled, "event.close", CLOSE_SETTLED + timedelta(hours=1), entity="event"
            ),
            "settled late correction": entry(settled, "board.correction", timedelta(minutes=30)),
            "recent start": entry(recent, "stage.start", timedelta(hours=3)),
            "recent close": entry(recent, "event.close", timedelta(minutes=10), entity="event"),
            "running start": entry(running, "stage.start", timedelta(hours=5)),
            "no event": entry(None, "board.correction", timedelta(hours=5)),
        }
        for row in rows.values():
            uow.session.add(row)
        uow.flush()
        names = {row.id: name for name, row in rows.items()}
    with uow_factory() as uow:
        found = [names[row.id] for row in uow.audit.audit_since(CHANGES, utcnow() - timedelta(days=2))]
    assert found == [
        "settled late correction",  # written after its event closed: a mail may still be due
        "recent start",  # its event closed ten minutes ago: the scans since may have missed it
        "running start",
        "no event",
    ]
