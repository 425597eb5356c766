"""The public record's table (docs/record.md): one row per entry of an event's hash chain.

Rows are only ever inserted (``uow.record`` offers no update or delete): a correction is a new entry.
"""

# No ``from __future__ import annotations``: SQLModel reads the annotations at class creation.

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, UniqueConstraint
from sqlmodel import Field, SQLModel

from orchestrator.adapters.tables_base import reference, timestamp


class RecordEntry(SQLModel, table=True):
    """One entry of an event's public record: its hash is SHA-256 over the canonical JSON of (seq,
    recorded_at, kind, payload, prev) (``orchestrator.domain.record``); ``payload`` holds public data only."""

    __tablename__ = "record_entry"
    __table_args__ = (UniqueConstraint("event_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = reference("event.id", cascade=True, index=True)
    seq: int
    recorded_at: datetime = timestamp()
    kind: str = Field(max_length=64)
    payload: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    prev: str = Field(max_length=64)
    hash: str = Field(max_length=64)
