"""player FIDE data: FIDE id (one player per event), title, federation, K of the FIDE list

Revision ID: 5b7d21c4e8a1
Revises: 0fcc50bf05b4
Create Date: 2026-12-04 13:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b7d21c4e8a1"
down_revision: str | None = "0fcc50bf05b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fide_id", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("title", sa.String(length=3), nullable=True))
        batch_op.add_column(sa.Column("federation", sa.String(length=3), nullable=True))
        batch_op.add_column(sa.Column("k_factor", sa.Integer(), nullable=True))
        batch_op.create_unique_constraint(op.f("uq_player_event_id_fide_id"), ["event_id", "fide_id"])


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("uq_player_event_id_fide_id"), type_="unique")
        batch_op.drop_column("k_factor")
        batch_op.drop_column("federation")
        batch_op.drop_column("title")
        batch_op.drop_column("fide_id")
