"""Sending from the outbox: retries with backoff on a temporary refusal, failure with the reason on a
permanent one, the folder backend, and staff sending a failed mail again (docs/notifications.md)."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select

from orchestrator.adapters.mailer import FolderMailer, MailPermanent, MailTemporary, mailer_for
from orchestrator.adapters.tables import AuditLog, Outbox
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.errors import Conflict
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.notify.outbox import deliver, queue_mail, retry_delay, retry_failed

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FACTS = {
    "event_name": "Cup",
    "team_name": "Norway",
    "account_url": "http://x/account",
    "match_name": "Norway v Sweden",
    "round_name": "Round 1",
    "stage_name": "Group",
    "outcome": "upheld",
    "decision": "Replay board 3.",
}


class ScriptedMailer:
    """Raises the scripted errors in turn, then accepts; keeps what it accepted."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.accepted: list[EmailMessage] = []

    def describe(self) -> str:
        return "scripted"

    def send(self, message: EmailMessage) -> None:
        if self.errors:
            raise self.errors.pop(0)
        self.accepted.append(message)


def _queue(factory: UnitOfWorkFactory, key: str = "appeal_decided:appeal:1:team:1:user:1") -> int:
    with factory() as uow:
        row = queue_mail(
            uow,
            kind=Kind.APPEAL_DECIDED,
            key=key,
            recipient="nor@example.org",
            facts=FACTS,
            link="http://x/m",
        )
        assert row is not None
        return row.id or 0


def _row(factory: UnitOfWorkFactory, outbox_id: int) -> Outbox:
    with factory() as uow:
        row = uow.outbox.get_or_raise(Outbox, outbox_id)
        uow.session.expunge(row)
        return row


def _deliver(factory: UnitOfWorkFactory, settings: Settings, outbox_id: int, mailer: object, now: datetime):  # type: ignore[no-untyped-def]
    with factory() as uow:
        return deliver(uow, outbox_id=outbox_id, mailer=mailer, settings=settings, now=now)  # type: ignore[arg-type]


def test_the_same_key_is_queued_once(uow_factory: UnitOfWorkFactory, sent: list) -> None:
    first = _queue(uow_factory)
    with uow_factory() as uow:
        again = queue_mail(
            uow,
            kind=Kind.APPEAL_DECIDED,
            key="appeal_decided:appeal:1:team:1:user:1",
            recipient="nor@example.org",
            facts=FACTS,
        )
    assert again is None
    assert sent == [("notify.send", (first,))]


def test_the_backoff_doubles_from_mail_retry_s_up_to_its_cap(settings: Settings) -> None:
    # mail_retry_s = 60, cap 3600: 60, 120, 240, 480, 960, 1920, then 3600 (3840 capped).
    assert [retry_delay(settings, n) for n in range(1, 8)] == [60, 120, 240, 480, 960, 1920, 3600]


def test_a_temporary_refusal_waits_then_the_mail_is_sent(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    outbox_id = _queue(uow_factory)
    mailer = ScriptedMailer(MailTemporary("451 4.3.0 try later"), MailTemporary("cannot reach smtp:25"))
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0) == 60
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts, row.last_error) == ("queued", 1, "451 4.3.0 try later")
    assert row.next_at == T0 + timedelta(seconds=60)
    # A copy of the job arriving early waits for the rest of the delay and sends nothing.
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0 + timedelta(seconds=20)) == 40
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0 + timedelta(seconds=60)) == 120
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0 + timedelta(seconds=180)) is None
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts, row.sent_at) == ("sent", 3, T0 + timedelta(seconds=180))
    (message,) = mailer.accepted
    assert message["To"] == "nor@example.org" and message["Subject"] == row.subject
    # Sent mails are not sent again.
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0 + timedelta(hours=1)) is None
    assert len(mailer.accepted) == 1


def test_a_permanent_refusal_fails_at_once_with_the_reason(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    outbox_id = _queue(uow_factory)
    mailer = ScriptedMailer(MailPermanent("recipient refused: 550 5.1.1 no such user"))
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0) is None
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts, row.last_error) == (
        "failed",
        1,
        "recipient refused: 550 5.1.1 no such user",
    )


def test_temporary_refusals_fail_the_mail_after_the_last_attempt(
    uow_factory: UnitOfWorkFactory, tmp_path: Path, sent: list
) -> None:
    settings = Settings(data_dir=tmp_path, environment="test", mail_max_attempts=2)
    outbox_id = _queue(uow_factory)
    mailer = ScriptedMailer(MailTemporary("421 busy"), MailTemporary("421 still busy"))
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0) == 60
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0 + timedelta(minutes=5)) is None
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts, row.last_error) == ("failed", 2, "421 still busy")


def test_staff_send_a_failed_mail_again_and_the_audit_log_says_who(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    outbox_id = _queue(uow_factory)
    _deliver(uow_factory, settings, outbox_id, ScriptedMailer(MailPermanent("554 rejected")), T0)
    with uow_factory() as uow:
        retry_failed(uow, outbox_id=outbox_id, actor="anna")
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts) == ("queued", 0)
    assert sent.count(("notify.send", (outbox_id,))) == 2  # queued, then queued again
    with uow_factory() as uow:
        entry = uow.session.exec(select(AuditLog).where(AuditLog.action == "outbox.retry")).one()
        assert (entry.actor, entry.entity_id, entry.old) == (
            "anna",
            outbox_id,
            {"status": "failed", "attempts": 1, "last_error": "554 rejected"},
        )
    with uow_factory() as uow, pytest.raises(Conflict):
        retry_failed(uow, outbox_id=outbox_id, actor="anna")  # queued: nothing to send again


def test_without_an_smtp_host_each_mail_is_an_eml_file_in_the_data_dir(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    mailer = mailer_for(settings)
    assert isinstance(mailer, FolderMailer)
    assert mailer.folder == settings.data_dir.resolve() / "mail"
    assert str(mailer.folder) in mailer.describe()
    outbox_id = _queue(uow_factory)
    assert _deliver(uow_factory, settings, outbox_id, mailer, T0) is None
    (path,) = list(mailer.folder.glob("*.eml"))
    parsed = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert parsed["To"] == "nor@example.org"
    assert parsed["Subject"] == "Norway: the appeal about Norway v Sweden was decided"
    assert parsed["X-Olympiad-Kind"] == "appeal_decided"
    text = parsed.get_body(preferencelist=("plain",))
    html = parsed.get_body(preferencelist=("html",))
    assert text is not None and "Decision: Replay board 3." in text.get_content()
    assert html is not None and "Replay board 3." in html.get_content()
    assert _row(uow_factory, outbox_id).status == "sent"


def test_an_unwritable_folder_is_a_temporary_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    message = EmailMessage()
    message["Message-ID"] = "<a@b>"
    with pytest.raises(MailTemporary, match="cannot write"):
        FolderMailer(blocker / "mail").send(message)


def test_a_key_another_transaction_queued_first_is_skipped_not_an_error(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Two scans at once: the unique key refuses the second insert; the rest of its transaction stays."""

    def row(subject: str) -> Outbox:
        return Outbox(
            key="same-key", kind="pairings", recipient="a@example.org", subject=subject, body_text="t"
        )

    with uow_factory() as uow:
        first = uow.outbox.add_outbox(row("first"))
        assert first is not None
        assert uow.outbox.add_outbox(row("second")) is None
        kept = uow.outbox.add_outbox(
            Outbox(
                key="other-key", kind="pairings", recipient="a@example.org", subject="third", body_text="t"
            )
        )
        assert kept is not None
    with uow_factory() as uow:
        subjects = sorted(r.subject for r in uow.session.exec(select(Outbox)).all())
    assert subjects == ["first", "third"]
