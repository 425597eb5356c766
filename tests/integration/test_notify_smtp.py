"""Mails from the outbox to a REAL SMTP server process (aiosmtpd on localhost): what it receives, a
temporary refusal retried then sent, a refused connection and a permanent refusal (docs/notifications.md).

The outbox lives in PostgreSQL (the session's test database). Under CI=true a missing aiosmtpd fails.
"""

from __future__ import annotations

import email
import email.policy
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from orchestrator.adapters.mailer import SmtpMailer
from orchestrator.adapters.tables import Outbox
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.jobs import dispatch
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.notify.outbox import deliver, queue_mail
from orchestrator.services.notify.run import send_one
from tests.support.ci import missing

REPO_ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "s3cret-Pw-only-for-this-test"
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FACTS = {
    "event_name": "Small Test Cup",
    "team_name": "Norway",
    "account_url": "http://olympiad.test/account",
    "round_name": "Round 2",
    "stage_name": "Group",
    "opponent_name": "Sweden",
    "deadline": "Sat 2 Mar 2024, 11:30 Europe/Oslo (10:30 UTC)",
    "deadline_short": "11:30 Europe/Oslo",
}

SinkFactory = Callable[..., tuple[int, Path]]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def smtp_sink(tmp_path: Path) -> Iterator[SinkFactory]:
    """Starts ``tests/support/smtp_sink.py`` in its own process; returns (port, folder of what it got)."""
    try:
        import aiosmtpd  # noqa: F401
    except ImportError:
        missing("aiosmtpd is not installed (pip install -e '.[dev]')")
    processes: list[subprocess.Popen[bytes]] = []

    def start(*options: str) -> tuple[int, Path]:
        port, folder = _free_port(), tmp_path / f"sink-{len(processes)}"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.smtp_sink",
                "--port",
                str(port),
                "--dir",
                str(folder),
                *options,
            ],
            cwd=REPO_ROOT,
        )
        processes.append(process)
        for _ in range(200):  # readiness only: the server writes "ready" once it listens
            if (folder / "ready").exists() or process.poll() is not None:
                break
            time.sleep(0.05)
        assert process.poll() is None and (folder / "ready").exists(), "the SMTP server did not start"
        return port, folder

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def no_jobs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, ...]]]:
    calls: list[tuple[str, tuple[int, ...]]] = []
    monkeypatch.setattr(dispatch, "send", lambda name, *ids, countdown=None: calls.append((name, ids)))
    return calls


def _queue(factory: UnitOfWorkFactory, recipient: str = "captain@example.org") -> int:
    with factory() as uow:
        row = queue_mail(
            uow,
            kind=Kind.LINEUP_DUE,
            key=f"lineup_due:test:{uuid.uuid4()}",
            recipient=recipient,
            facts=FACTS,
            link="http://olympiad.test/captain/matches/7/lineup",
        )
        assert row is not None
        return row.id or 0


def _row(factory: UnitOfWorkFactory, outbox_id: int) -> Outbox:
    with factory() as uow:
        row = uow.outbox.get_or_raise(Outbox, outbox_id)
        uow.session.expunge(row)
        return row


def test_the_server_receives_the_mail_with_its_headers_and_no_secret(
    uow_factory: UnitOfWorkFactory, smtp_sink: SinkFactory, tmp_path: Path, no_jobs: list
) -> None:
    port, folder = smtp_sink("--user", f"mailer:{PASSWORD}")
    settings = Settings(
        data_dir=tmp_path,
        environment="test",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_security="none",
        smtp_user="mailer",
        smtp_password=PASSWORD,
        mail_from="Olympiad <noreply@olympiad.test>",
    )
    outbox_id = _queue(uow_factory)
    assert send_one(uow_factory, outbox_id=outbox_id, settings=settings) is None
    (received,) = sorted(folder.glob("*.eml"))
    raw = received.read_bytes()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["To"] == "captain@example.org"
    assert message["From"] == "Olympiad <noreply@olympiad.test>"
    assert message["Subject"] == "Norway: lineup for Round 2 is due at 11:30 Europe/Oslo"
    assert (
        message["Message-ID"].endswith("@olympiad.test>") and f"outbox-{outbox_id}" in message["Message-ID"]
    )
    assert message["Auto-Submitted"] == "auto-generated" and message["X-Olympiad-Kind"] == "lineup_due"
    plain = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    assert plain is not None and html is not None
    text = plain.get_content()
    assert "Deadline: Sat 2 Mar 2024, 11:30 Europe/Oslo (10:30 UTC)." in text
    assert "Submit the lineup: http://olympiad.test/captain/matches/7/lineup" in text
    assert 'href="http://olympiad.test/captain/matches/7/lineup"' in html.get_content()
    envelope = (folder / "envelope.log").read_text()
    assert envelope == "noreply@olympiad.test -> captain@example.org auth='mailer'\n"  # logged in as mailer
    assert PASSWORD.encode() not in raw
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts, row.last_error) == ("sent", 1, None)


def test_a_temporary_refusal_is_retried_with_backoff_then_sent(
    uow_factory: UnitOfWorkFactory, smtp_sink: SinkFactory, tmp_path: Path, no_jobs: list
) -> None:
    port, folder = smtp_sink("--refuse", "2")
    settings = Settings(data_dir=tmp_path, environment="test", smtp_host="127.0.0.1", smtp_port=port)
    mailer = SmtpMailer(host="127.0.0.1", port=port, security="none")
    outbox_id = _queue(uow_factory)

    def attempt(at: datetime) -> float | None:
        with uow_factory() as uow:
            return deliver(uow, outbox_id=outbox_id, mailer=mailer, settings=settings, now=at)

    assert attempt(T0) == 60  # 451: wait mail_retry_s
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts, row.last_error) == ("queued", 1, "451 4.3.0 Try again later")
    assert attempt(T0 + timedelta(seconds=60)) == 120  # 451 again: doubled
    assert attempt(T0 + timedelta(seconds=180)) is None  # accepted
    assert (folder / "refused.log").read_text().count("451") == 2
    assert len(list(folder.glob("*.eml"))) == 1
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts) == ("sent", 3)


def test_a_refused_connection_is_temporary_and_names_no_secret(
    uow_factory: UnitOfWorkFactory, tmp_path: Path, no_jobs: list
) -> None:
    port = _free_port()  # nobody listens there
    settings = Settings(data_dir=tmp_path, environment="test")
    mailer = SmtpMailer(host="127.0.0.1", port=port, security="none", user="mailer", password=PASSWORD)
    outbox_id = _queue(uow_factory)
    with uow_factory() as uow:
        assert deliver(uow, outbox_id=outbox_id, mailer=mailer, settings=settings, now=T0) == 60
    row = _row(uow_factory, outbox_id)
    assert row.status == "queued" and row.last_error is not None
    assert row.last_error.startswith(f"cannot reach 127.0.0.1:{port}") and PASSWORD not in row.last_error


def test_a_permanent_refusal_fails_with_the_servers_reason(
    uow_factory: UnitOfWorkFactory, smtp_sink: SinkFactory, tmp_path: Path, no_jobs: list
) -> None:
    port, folder = smtp_sink("--reject")
    settings = Settings(data_dir=tmp_path, environment="test")
    mailer = SmtpMailer(host="127.0.0.1", port=port, security="none")
    outbox_id = _queue(uow_factory)
    with uow_factory() as uow:
        assert deliver(uow, outbox_id=outbox_id, mailer=mailer, settings=settings, now=T0) is None
    row = _row(uow_factory, outbox_id)
    assert (row.status, row.attempts, row.last_error) == ("failed", 1, "550 5.1.1 Mailbox unavailable")
    assert list(folder.glob("*.eml")) == []
