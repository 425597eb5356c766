"""sections: the section of a team and of a stage (docs/sections.md); "" in an event without sections

Revision ID: 6c1f3a8e2b57
Revises: 5b7e2c9d1a44
Create Date: 2026-12-04 16:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "6c1f3a8e2b57"
down_revision: str | None = "5b7e2c9d1a44"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("stage", "team")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("section", sa.String(length=40), nullable=False, server_default=""))
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column("section", server_default=None)


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("section")
