"""The outbox: a mail is queued once per idempotency key, then sent by the ``notify.send`` job.

``queue_mail`` honours the recipient's preferences and writes nothing for a key already queued, so a scan
that runs again (or twice at once) never queues the same message twice. ``deliver`` sends one row: a
temporary refusal (4xx, connection) waits ``mail_retry_s`` doubled per attempt, up to
``mail_max_attempts``; a permanent one (5xx) fails at once with the server's reason. Staff may queue a
failed mail again (``retry_failed``, audited).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from orchestrator.adapters.mailer import Mailer, MailPermanent, MailTemporary
from orchestrator.adapters.tables import Outbox, OutboxStatus, User
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.notify.compose import compose
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.queue import NOTIFY_SEND, enqueue
from orchestrator.services.row_views import row_view
from orchestrator.translation import gettext as _

OUTBOX_PAGE_ROWS = 200


def queue_mail(
    uow: UnitOfWork,
    *,
    kind: Kind,
    key: str,
    recipient: str | None,
    facts: Mapping[str, Any],
    link: str | None = None,
    user: User | None = None,
    lang: str | None = None,
) -> Outbox | None:
    """Queue the mail of ``kind`` for ``recipient`` unless its key is known or the user turned it off; it is
    written in the user's language, or ``lang`` for a recipient who is not a user (None: English)."""
    if not recipient or (user is not None and kind.value in (user.notify_off or [])):
        return None
    if uow.outbox.outbox_by_key(key) is not None:
        return None
    mail = compose(kind, facts, link=link, lang=user.language if user is not None else lang)
    now = utcnow()
    row = uow.outbox.add_outbox(
        Outbox(
            key=key[:200],
            kind=kind.value,
            recipient=recipient,
            subject=mail.subject,
            body_text=mail.text,
            body_html=mail.html,
            created_at=now,
            updated_at=now,
        )
    )
    if row is not None:
        enqueue(uow, NOTIFY_SEND, row.id or 0)
    return row


def message_of(row: Outbox, settings: Settings) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = row.subject
    message["From"] = settings.mail_from
    message["To"] = row.recipient
    message["Date"] = formatdate(row.created_at.timestamp(), usegmt=True)
    domain = settings.mail_from.rpartition("@")[2].strip(" >") or "localhost"
    message["Message-ID"] = make_msgid(idstring=f"outbox-{row.id}", domain=domain)
    message["X-Olympiad-Kind"] = row.kind
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies, please
    message.set_content(row.body_text)
    if row.body_html:
        message.add_alternative(row.body_html, subtype="html")
    return message


def retry_delay(settings: Settings, attempts: int) -> float:
    """Wait after the ``attempts``-th failed try: mail_retry_s, doubled each time, capped."""
    return float(min(settings.mail_retry_s * 2 ** max(attempts - 1, 0), settings.mail_retry_max_s))


def deliver(
    uow: UnitOfWork, *, outbox_id: int, mailer: Mailer, settings: Settings, now: datetime | None = None
) -> float | None:
    """Try to send one queued mail; returns seconds until the next try, or None (sent, failed or gone)."""
    now = now or utcnow()
    row = uow.outbox.lock_outbox(outbox_id)
    if row is None or row.status != OutboxStatus.QUEUED.value:
        return None
    if row.next_at is not None and row.next_at > now:
        return (row.next_at - now).total_seconds()
    row.attempts += 1
    row.updated_at = now
    try:
        mailer.send(message_of(row, settings))
    except MailTemporary as error:
        row.last_error = str(error)
        if row.attempts >= settings.mail_max_attempts:
            row.status = OutboxStatus.FAILED.value
            row.next_at = None
            uow.outbox.add(row)
            return None
        delay = retry_delay(settings, row.attempts)
        row.next_at = now + timedelta(seconds=delay)
        uow.outbox.add(row)
        return delay
    except MailPermanent as error:
        row.status, row.last_error, row.next_at = OutboxStatus.FAILED.value, str(error), None
    else:
        row.status, row.sent_at, row.next_at = OutboxStatus.SENT.value, now, None
    uow.outbox.add(row)
    return None


def retry_failed(uow: UnitOfWork, *, outbox_id: int, actor: str) -> Outbox:
    """Queue a failed mail again (a fresh set of attempts); audited as ``outbox.retry``."""
    row = uow.outbox.lock_outbox(outbox_id)
    if row is None:
        raise NotFound(_("outbox %(id)s does not exist") % {"id": outbox_id})
    if row.status != OutboxStatus.FAILED.value:
        raise Conflict(
            _("mail %(id)s is %(status)s: only a failed mail can be sent again")
            % {"id": outbox_id, "status": row.status}
        )
    old = {"status": row.status, "attempts": row.attempts, "last_error": row.last_error}
    row.status, row.attempts, row.next_at, row.updated_at = OutboxStatus.QUEUED.value, 0, None, utcnow()
    uow.outbox.add(row)
    flush_and_audit(uow, row, "outbox.retry", actor=actor, old=old, new={"status": row.status})
    enqueue(uow, NOTIFY_SEND, outbox_id)
    return row


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """What staff see of a mail: never its body (a player's link is a credential of sorts)."""

    id: int
    kind: str
    recipient: str
    subject: str
    status: str
    attempts: int
    last_error: str | None
    created_at: datetime
    updated_at: datetime
    sent_at: datetime | None

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "recipient": self.recipient,
            "subject": self.subject,
            "status": self.status,
            "attempts": self.attempts,
            "last_error": self.last_error,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "sent_at": self.sent_at.isoformat() if self.sent_at else None,
        }


def outbox_rows(uow: UnitOfWork, *, status: str | None = None) -> list[OutboxRow]:
    """The latest mails, newest first, optionally of one status."""
    if status and status not in {s.value for s in OutboxStatus}:
        raise ValidationFailed(
            [
                _("status must be one of: %(statuses)s")
                % {
                    "statuses": ", ".join(s.value for s in OutboxStatus),
                }
            ]
        )
    return [
        row_view(OutboxRow, row, id=row.id or 0)
        for row in uow.outbox.outbox_list(status or None, OUTBOX_PAGE_ROWS)
    ]


def queue_due_sends(uow: UnitOfWork, *, now: datetime) -> int:
    """Send again every queued mail whose wait is over (after a restart or a lost job)."""
    ids = uow.outbox.outbox_due(now)
    for outbox_id in ids:
        enqueue(uow, NOTIFY_SEND, outbox_id)
    return len(ids)
