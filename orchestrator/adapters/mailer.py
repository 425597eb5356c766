"""Sending one e-mail: to an SMTP server, or as an .eml file in a folder (the embedded default).

``mailer_for(settings)`` picks the backend: ``smtp_host`` set → ``SmtpMailer``, else ``FolderMailer`` under
``data_dir/mail``. Both raise ``MailTemporary`` (try again later: a 4xx reply, a refused or dropped
connection, a timeout) or ``MailPermanent`` (a 5xx reply: the mail fails with the server's reason). Error
texts carry the server's reply only; the password never appears in them (``_scrub``).
"""

from __future__ import annotations

import os
import smtplib
import ssl
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

from orchestrator.config import Settings

MAIL_DIR = "mail"  # under data_dir: where the folder backend writes


class MailError(Exception):
    """A mail was not sent; ``str(error)`` is safe to store and show (no secret)."""


class MailTemporary(MailError):
    pass


class MailPermanent(MailError):
    pass


class Mailer(Protocol):
    def send(self, message: EmailMessage) -> None: ...

    def describe(self) -> str: ...


class FolderMailer:
    """Writes each mail to ``folder/<Message-ID>.eml`` (written whole, then renamed into place)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def describe(self) -> str:
        return f"no SMTP host configured: e-mails are written as .eml files to {self.folder}"

    def send(self, message: EmailMessage) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            name = _file_name(str(message["Message-ID"] or "mail"))
            draft = self.folder / f".{name}.part"
            draft.write_bytes(message.as_bytes())
            os.replace(draft, self.folder / f"{name}.eml")
        except OSError as error:
            raise MailTemporary(f"cannot write to the mail folder: {error.strerror}") from None


def _file_name(message_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in message_id.strip("<>"))[:120]


class SmtpMailer:
    """One connection per mail (mails are few): STARTTLS, implicit TLS or none, then AUTH if a user is set."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        security: str = "starttls",
        user: str = "",
        password: str = "",
        timeout_s: float = 10.0,
        tls_context: ssl.SSLContext | None = None,
    ) -> None:
        self.host, self.port, self.security = host, port, security
        self.user, self._password, self.timeout_s = user, password, timeout_s
        self._tls = tls_context

    def describe(self) -> str:
        return f"e-mails go to SMTP server {self.host}:{self.port} ({self.security})"

    def send(self, message: EmailMessage) -> None:
        try:
            self._send(message)
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _ in error.recipients.values()]
            reply = "; ".join(f"{code} {_text(text)}" for code, text in error.recipients.values())
            raise self._by_code(min(codes) if codes else 550, f"recipient refused: {reply}") from None
        except smtplib.SMTPResponseException as error:
            raise self._by_code(error.smtp_code, f"{error.smtp_code} {_text(error.smtp_error)}") from None
        except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError, OSError) as error:
            raise MailTemporary(self._scrub(f"cannot reach {self.host}:{self.port}: {error}")) from None
        except smtplib.SMTPException as error:
            raise MailPermanent(self._scrub(f"SMTP error: {error}")) from None

    def _send(self, message: EmailMessage) -> None:
        context = self._tls or ssl.create_default_context()
        if self.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                self.host, self.port, timeout=self.timeout_s, context=context
            )
        else:
            client = smtplib.SMTP(self.host, self.port, timeout=self.timeout_s)
        with client:
            client.ehlo()
            if self.security == "starttls":
                client.starttls(context=context)
                client.ehlo()
            if self.user:
                client.login(self.user, self._password)
            client.send_message(message)

    def _by_code(self, code: int, text: str) -> MailError:
        text = self._scrub(text)
        return MailTemporary(text) if 400 <= code < 500 else MailPermanent(text)

    def _scrub(self, text: str) -> str:
        if self._password:
            text = text.replace(self._password, "***")
        return text[:500]


def _text(reply: bytes | str) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)


def mailer_for(settings: Settings) -> Mailer:
    if settings.smtp_host:
        return SmtpMailer(
            host=settings.smtp_host,
            port=settings.smtp_port,
            security=settings.smtp_security,
            user=settings.smtp_user,
            password=settings.smtp_password.get_secret_value(),
            timeout_s=settings.smtp_timeout_s,
        )
    return FolderMailer(settings.data_dir.resolve() / MAIL_DIR)
