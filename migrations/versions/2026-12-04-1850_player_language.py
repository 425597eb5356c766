"""player language: the language of a player's "link your account" mail (None: the captains', else English)

Revision ID: ce010033126a
Revises: 7b2d9e4c1a30
Create Date: 2026-12-04 18:50:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "ce010033126a"
down_revision: str | None = "7b2d9e4c1a30"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("language")
