"""Tables of people and access, and the e-mail outbox: users, login attempts, the audit log, outbox."""

# No ``from __future__ import annotations``: SQLModel reads the annotations at class creation.

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Index, Text
from sqlmodel import Field, SQLModel

from orchestrator.adapters.tables_base import Role, one_of, reference, timestamp


class User(SQLModel, table=True):
    """A login: staff (owner, admin, arbiter) or a team captain."""

    __tablename__ = "user"
    __table_args__ = (
        one_of("role", Role),
        CheckConstraint("role = 'captain' OR team_id IS NULL", name="team_only_for_captains"),
    )

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=80, unique=True)
    display_name: str = Field(default="", max_length=120)
    role: str = Field(max_length=16)
    team_id: int | None = reference("team.id", cascade=True, nullable=True, index=True)
    # argon2id; None until an invited user sets a password
    password_hash: str | None = Field(default=None, max_length=255)
    invitation_token_hash: str | None = Field(default=None, max_length=64, unique=True)  # sha256 hex
    invitation_expires_at: datetime | None = timestamp(nullable=True)
    disabled: bool = Field(default=False)
    # Bumped on password change or disabling: signed session cookies carry it, so old ones stop working.
    session_generation: int = Field(default=1)
    created_at: datetime = timestamp()
    last_login_at: datetime | None = timestamp(nullable=True)
    email: str | None = Field(default=None, max_length=254)  # where notifications go (docs/notifications.md)
    notify_off: list[str] = Field(default_factory=list, sa_type=JSON)  # notification kinds turned off
    # the language of the user's e-mails (orchestrator/translation.py LANGUAGES); None: English
    language: str | None = Field(default=None, max_length=8)


class LoginAttempt(SQLModel, table=True):
    """One login attempt, for throttling (services/accounts/users.py ``authenticate``; docs/security.md)."""

    __tablename__ = "login_attempt"
    __table_args__ = (
        Index("ix_login_attempt_username_at", "username", "at"),
        Index("ix_login_attempt_ip_at", "ip", "at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=80)  # as typed, lower-cased; may not exist
    ip: str = Field(default="", max_length=64)
    at: datetime = timestamp()
    success: bool = Field(default=False)


class AuditLog(SQLModel, table=True):
    """Who changed what, when and why (docs/rules.md §6, §7). ``old``/``new`` never hold secrets."""

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_entity_entity_id", "entity", "entity_id"),
        # notify.scan reads a few actions over two days of a log that holds every result (repo_audit)
        Index("ix_audit_log_action_at", "action", "at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = timestamp(index=True)
    actor: str = Field(max_length=80)  # username, or "system", "worker", "cli"
    action: str = Field(max_length=64)  # e.g. "board.result", "user.create", "lot.draw"
    entity: str = Field(max_length=32)  # table name
    entity_id: int | None = Field(default=None)
    event_id: int | None = reference("event.id", cascade=True, nullable=True, index=True)
    old: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    new: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    reason: str | None = Field(default=None, sa_type=Text)


class OutboxStatus(StrEnum):
    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"


class Outbox(SQLModel, table=True):
    """One e-mail to send (docs/notifications.md); ``key`` keeps a re-run job from queuing it twice."""

    __tablename__ = "outbox"
    __table_args__ = (one_of("status", OutboxStatus), Index("ix_outbox_status_next", "status", "next_at"))

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=200, unique=True)  # idempotency key, e.g. "lineup_due:match:7:team:3"
    kind: str = Field(max_length=32)
    recipient: str = Field(max_length=254)
    subject: str = Field(max_length=255)
    body_text: str = Field(sa_type=Text)
    body_html: str | None = Field(default=None, sa_type=Text)
    status: str = Field(default=OutboxStatus.QUEUED.value, max_length=8)
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, sa_type=Text)  # the server's reply; never a secret
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()
    next_at: datetime | None = timestamp(nullable=True)  # a queued mail is not tried before this
    sent_at: datetime | None = timestamp(nullable=True)
