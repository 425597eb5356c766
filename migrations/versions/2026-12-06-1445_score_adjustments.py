"""score adjustments: bonus and penalty points of a Swiss stage's teams (TRF-2026 record 299, docs/trf.md)

Revision ID: f61c4cc0d274
Revises: 3e8b1f07c2d9
Create Date: 2026-12-06 14:45:02.753411+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "f61c4cc0d274"
down_revision: str | None = "3e8b1f07c2d9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "score_adjustment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("stage_id", sa.Integer(), nullable=False),
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("after_round", sa.Integer(), nullable=False),
        sa.Column("standings_only", sa.Boolean(), nullable=False),
        sa.Column("mp", sa.Integer(), nullable=False),
        sa.Column("gp_half", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("recorded_by", sa.String(length=80), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("after_round >= 0", name=op.f("ck_score_adjustment_after_round")),
        sa.CheckConstraint("mp <> 0 OR gp_half <> 0", name=op.f("ck_score_adjustment_points")),
        sa.ForeignKeyConstraint(
            ["stage_id"], ["stage.id"], name=op.f("fk_score_adjustment_stage_id_stage"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["team_id"], ["team.id"], name=op.f("fk_score_adjustment_team_id_team"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score_adjustment")),
    )
    op.create_index(op.f("ix_score_adjustment_stage_id"), "score_adjustment", ["stage_id"], unique=False)
    op.create_index(op.f("ix_score_adjustment_team_id"), "score_adjustment", ["team_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_score_adjustment_team_id"), table_name="score_adjustment")
    op.drop_index(op.f("ix_score_adjustment_stage_id"), table_name="score_adjustment")
    op.drop_table("score_adjustment")
