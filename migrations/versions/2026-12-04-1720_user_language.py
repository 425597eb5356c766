"""user language: the language of a user's e-mails (None: English), set by the switch and the account page

Revision ID: 7b2d9e4c1a30
Revises: 5614905ea7e1
Create Date: 2026-12-04 17:20:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7b2d9e4c1a30"
down_revision: str | None = "5614905ea7e1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("user", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    op.drop_column("user", "language")
