"""The notification outbox (``uow.outbox``): one row per message to send, claimed
under a row lock by the sender.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository, constant
from orchestrator.adapters.tables import Outbox, OutboxStatus


class OutboxRepository(Repository):
    """The notification outbox (``uow.outbox``): one row per message to send, claimed
    under a row lock by the sender."""

    def outbox_by_key(self, key: str) -> Outbox | None:
        return self.session.exec(select(Outbox).where(Outbox.key == key)).first()

    def add_outbox(self, row: Outbox) -> Outbox | None:
        """Insert ``row``; None when another transaction queued the same key first (idempotency)."""
        try:
            with self.session.begin_nested():
                self.session.add(row)
                self.session.flush()
        except IntegrityError:
            return None
        return row

    def lock_outbox(self, outbox_id: int) -> Outbox | None:
        """The row, locked until the end of the transaction (one sender per mail)."""
        return self.session.exec(
            select(Outbox).where(Outbox.id == outbox_id).with_for_update(key_share=True)
        ).first()

    def outbox_list(self, status: str | None, limit: int) -> Sequence[Outbox]:
        query = select(Outbox)
        if status:
            query = query.where(Outbox.status == status)
        return self.session.exec(query.order_by(col(Outbox.id).desc()).limit(limit)).all()

    def oldest_due_mail(self, now: datetime) -> datetime | None:
        """Since when the oldest queued mail whose wait is over has been due (its retry time, or its
        queuing), or None when no mail waits (docs/workers.md, "Lag")."""
        due = func.coalesce(col(Outbox.next_at), col(Outbox.created_at))
        moment = self.session.execute(
            sa_select(func.min(due)).where(col(Outbox.status) == OutboxStatus.QUEUED.value, due <= now)
        ).scalar()
        if moment is None:
            return None
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

    def outbox_due(self, now: datetime, limit: int = 200) -> Sequence[int]:
        """Queued mails whose wait is over (a lost job or a restart must not leave them waiting)."""
        return self.session.exec(
            select(Outbox.id)
            .where(
                col(Outbox.status) == constant(OutboxStatus.QUEUED.value),
                (col(Outbox.next_at).is_(None)) | (col(Outbox.next_at) <= now),
            )
            .order_by(col(Outbox.id))
            .limit(limit)
        ).all()  # type: ignore[return-value]
