"""round last pull: when the game server last answered a pull of the round's games (the dashboard's age)

Revision ID: 5f1c2a9d7b3e
Revises: d8410772b0da
Create Date: 2026-12-06 09:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5f1c2a9d7b3e"
down_revision: str | None = "d8410772b0da"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_pull_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.drop_column("last_pull_at")
