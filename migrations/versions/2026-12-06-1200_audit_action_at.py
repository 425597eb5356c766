"""audit log index on (action, at): notify.scan reads a few actions of the last two days

Revision ID: 3b7e9c1d4a52
Revises: 6ebc38816acc
Create Date: 2026-12-06 12:00:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "3b7e9c1d4a52"
down_revision: str | None = "6ebc38816acc"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.create_index("ix_audit_log_action_at", ["action", "at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index("ix_audit_log_action_at")
