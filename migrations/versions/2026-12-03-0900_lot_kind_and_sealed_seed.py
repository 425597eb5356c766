"""lot kind and sealed seed: a committed lot keeps its secret seed until the reveal

Revision ID: 7c1e5d2a9f30
Revises: 45a0ad0bcd6c
Create Date: 2026-12-03 09:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7c1e5d2a9f30"
down_revision: str | None = "45a0ad0bcd6c"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lot", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sealed_seed_hex", sa.String(length=128), nullable=True))
        batch_op.add_column(sa.Column("kind", sa.String(length=8), server_default="order", nullable=False))
        batch_op.create_check_constraint(op.f("ck_lot_kind"), "kind IN ('order', 'one')")


def downgrade() -> None:
    with op.batch_alter_table("lot", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_lot_kind"), type_="check")
        batch_op.drop_column("kind")
        batch_op.drop_column("sealed_seed_hex")
