"""record entries: the public record, an insert-only hash chain per event (docs/record.md)

Revision ID: d8410772b0da
Revises: ce010033126a
Create Date: 2026-12-06 08:11:27.948771+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d8410772b0da"
down_revision: str | None = "ce010033126a"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "record_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("prev", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_record_entry_event_id_event"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_record_entry")),
        sa.UniqueConstraint("event_id", "seq", name=op.f("uq_record_entry_event_id_seq")),
    )
    op.create_index(op.f("ix_record_entry_event_id"), "record_entry", ["event_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_record_entry_event_id"), table_name="record_entry")
    op.drop_table("record_entry")
