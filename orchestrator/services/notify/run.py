"""What the ``notify.scan`` and ``notify.send`` jobs run (orchestrator/jobs/bodies.py calls these)."""

from __future__ import annotations

import logging
from datetime import datetime

from orchestrator.adapters.mailer import mailer_for
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.notify.outbox import deliver, queue_due_sends
from orchestrator.services.notify.triggers import ScanReport, scan

log = logging.getLogger(__name__)


def run_scan(uow_factory: UnitOfWorkFactory, *, now: datetime, settings: Settings) -> ScanReport:
    """Queue every mail that is due, then send again the queued ones whose wait is over."""
    with uow_factory() as uow:
        report = scan(uow, now=now, settings=settings)
        queue_due_sends(uow, now=now)
    if report.queued:
        log.info("notifications queued: %s", report.queued)
    return report


def send_one(uow_factory: UnitOfWorkFactory, *, outbox_id: int, settings: Settings) -> float | None:
    """Send one outbox row; returns the wait before the next attempt (a temporary refusal) or None."""
    with uow_factory() as uow:
        return deliver(uow, outbox_id=outbox_id, mailer=mailer_for(settings), settings=settings)
