"""requested byes: a team of a Swiss stage with a full- or half-point bye it asked for (docs/trf.md)

Revision ID: 3e8b1f07c2d9
Revises: 3b7e9c1d4a52
Create Date: 2026-12-06 12:15:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "3e8b1f07c2d9"
down_revision: str | None = "3b7e9c1d4a52"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("swiss_round_team", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_swiss_round_team_role"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_swiss_round_team_role"), "role IN ('bye', 'absent', 'full_bye', 'half_bye')"
        )


def downgrade() -> None:
    op.execute("UPDATE swiss_round_team SET role = 'absent' WHERE role IN ('full_bye', 'half_bye')")
    with op.batch_alter_table("swiss_round_team", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_swiss_round_team_role"), type_="check")
        batch_op.create_check_constraint(op.f("ck_swiss_round_team_role"), "role IN ('bye', 'absent')")
