"""notifications: users' e-mail and the kinds they turned off, players' e-mail, the outbox

Revision ID: 5614905ea7e1
Revises: 6c1f3a8e2b57
Create Date: 2026-12-04 16:30:25.867866+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5614905ea7e1"
down_revision: str | None = "6c1f3a8e2b57"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("recipient", sa.String(length=254), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("body_text", sa.Text(), nullable=False),
        sa.Column("body_html", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('queued', 'sent', 'failed')", name=op.f("ck_outbox_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("key", name=op.f("uq_outbox_key")),
    )
    op.create_index("ix_outbox_status_next", "outbox", ["status", "next_at"], unique=False)
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email", sa.String(length=254), nullable=True))
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email", sa.String(length=254), nullable=True))
        batch_op.add_column(sa.Column("notify_off", sa.JSON(), nullable=False, server_default="[]"))
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.alter_column("notify_off", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_column("notify_off")
        batch_op.drop_column("email")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("email")
    op.drop_index("ix_outbox_status_next", table_name="outbox")
    op.drop_table("outbox")
