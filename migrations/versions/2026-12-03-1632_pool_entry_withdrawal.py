"""pool entry withdrawal: a team's withdrawal from a pool stage (when, by whom, from which round)

Revision ID: 0fcc50bf05b4
Revises: 922778ed0037
Create Date: 2026-12-03 16:32:35.268038+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0fcc50bf05b4"
down_revision: str | None = "922778ed0037"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("pool_entry", schema=None) as batch_op:
        batch_op.add_column(sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("withdrawn_by", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("withdrawn_round", sa.Integer(), nullable=True))
        batch_op.create_check_constraint(
            op.f("ck_pool_entry_withdrawal_complete"),
            "(withdrawn_at IS NULL) = (withdrawn_by IS NULL)"
            " AND (withdrawn_at IS NULL) = (withdrawn_round IS NULL)",
        )


def downgrade() -> None:
    with op.batch_alter_table("pool_entry", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_pool_entry_withdrawal_complete"), type_="check")
        batch_op.drop_column("withdrawn_round")
        batch_op.drop_column("withdrawn_by")
        batch_op.drop_column("withdrawn_at")
