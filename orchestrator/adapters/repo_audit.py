"""The audit log (``uow.audit``): entries queued with the unit of work's writes and the
queries over them.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased
from sqlmodel import col, select

from orchestrator.adapters.repo_record import RecordRepository
from orchestrator.adapters.repositories import Repository, TableRow, insert_rows
from orchestrator.adapters.tables import AuditLog
from orchestrator.db import utcnow

# An event closed this long ago: every notify.scan since has read the changes made before its closing.
CLOSE_SETTLED = timedelta(hours=1)


class AuditRepository(Repository):
    """The audit log (``uow.audit``): entries queued with the unit of work's writes and the
    queries over them."""

    def record(
        self,
        *,
        actor: str,
        action: str,
        entity: str,
        entity_id: int | None,
        old: dict[str, Any] | None = None,
        new: dict[str, Any] | None = None,
        reason: str | None = None,
        event_id: int | None = None,
        at: datetime | None = None,
    ) -> AuditLog:
        """Queue an audit row: it is written with the unit of work's next flush or its commit, batched with
        the others (nothing reads an audit row's id in the transaction that writes it). A change that decides
        a standing also gets its entry in the event's public record now, in the same transaction
        (``RecordRepository.append_change``, docs/record.md)."""
        row = AuditLog(
            at=at or utcnow(),
            actor=actor,
            action=action,
            entity=entity,
            entity_id=entity_id,
            old=old,
            new=new,
            reason=reason,
            event_id=event_id,
        )
        self.session.add(row)
        RecordRepository(self.session).append_change(
            action=action, entity=entity, entity_id=entity_id, event_id=event_id, old=old, new=new, at=row.at
        )
        return row

    def change(
        self,
        row: TableRow,
        action: str,
        *,
        actor: str,
        event_id: int | None = None,
        old: dict[str, Any] | None = None,
        new: dict[str, Any] | None = None,
        reason: str | None = None,
        at: datetime | None = None,
    ) -> AuditLog:
        """Queue the audit entry of a change to ``row``, as ``record`` does: its entity is the row's table
        name and its entity_id the row's id, so an entry can never name the wrong table (a new row is
        flushed first, for its id)."""
        return self.record(
            actor=actor,
            action=action,
            entity=row.__tablename__,
            entity_id=row.id,
            old=old,
            new=new,
            reason=reason,
            event_id=event_id,
            at=at,
        )

    def for_entity(self, entity: str, entity_id: int) -> Sequence[AuditLog]:
        return self.session.exec(
            select(AuditLog)
            .where(AuditLog.entity == entity, AuditLog.entity_id == entity_id)
            .order_by(col(AuditLog.at), col(AuditLog.id))
        ).all()

    def latest(self, limit: int = 100, *, event_id: int | None = None) -> Sequence[AuditLog]:
        statement = select(AuditLog)
        if event_id is not None:
            statement = statement.where(AuditLog.event_id == event_id)
        return self.session.exec(statement.order_by(col(AuditLog.id).desc()).limit(limit)).all()

    def add_rows(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert audit rows (column values) in one statement (``insert_rows``); each change that decides a
        standing gets its public record entry too, as ``record`` gives it."""
        insert_rows(self.session.connection(), AuditLog.__table__, rows)  # type: ignore[attr-defined]
        RecordRepository(self.session).append_changes(rows)

    def audit_since(self, actions: Sequence[str], since: datetime) -> Sequence[AuditLog]:
        """Entries of ``actions`` written at ``since`` or later (notify.scan's changes), except those of an
        event that closed after them, more than ``CLOSE_SETTLED`` ago: every scan since has read them, and
        without this each scan read every finished event of the look-back again (two days: 500 ms of a
        worker's CPU per scan with 200 finished events, docs/performance.md "A season on one machine").
        An entry written after its event closed (a late correction) is kept."""
        closing = aliased(AuditLog)
        settled = utcnow() - CLOSE_SETTLED
        closed_after = (
            sa_select(col(closing.id))
            .where(
                col(closing.entity) == "event",
                col(closing.entity_id) == col(AuditLog.event_id),
                col(closing.action) == "event.close",
                col(closing.at) >= col(AuditLog.at),
                col(closing.at) < settled,
            )
            .exists()
        )
        return self.session.exec(
            select(AuditLog)
            .where(col(AuditLog.action).in_(list(actions)), col(AuditLog.at) >= since, ~closed_after)
            .order_by(col(AuditLog.id))
        ).all()

    def entries(
        self,
        *,
        event_id: int | None = None,
        board_ids: Iterable[int] | None = None,
        match_id: int | None = None,
        action_prefix: str | None = None,
        entity: str | None = None,
        entity_id: int | None = None,
        limit: int = 500,
    ) -> Sequence[AuditLog]:
        statement = select(AuditLog)
        if event_id is not None:
            statement = statement.where(AuditLog.event_id == event_id)
        if board_ids is not None or match_id is not None:
            clauses = []
            ids = list(board_ids or [])
            if ids:
                clauses.append((col(AuditLog.entity) == "board") & col(AuditLog.entity_id).in_(ids))
            if match_id is not None:
                clauses.append((col(AuditLog.entity) == "match") & (col(AuditLog.entity_id) == match_id))
            statement = statement.where(or_(*clauses)) if clauses else statement.where(col(AuditLog.id) < 0)
        if action_prefix is not None:
            statement = statement.where(col(AuditLog.action).startswith(action_prefix))
        if entity is not None:
            statement = statement.where(AuditLog.entity == entity)
        if entity_id is not None:
            statement = statement.where(AuditLog.entity_id == entity_id)
        return self.session.exec(statement.order_by(col(AuditLog.id).desc()).limit(limit)).all()
