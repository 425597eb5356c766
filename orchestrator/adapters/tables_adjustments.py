"""The score_adjustment table: bonus and penalty points the arbiter gives a team of a Swiss stage, as
TRF-2026 record 299 with a blank type says them (docs/trf.md, docs/swiss.md "Bonus and penalty points")."""

# No ``from __future__ import annotations``: SQLModel reads the annotations at class creation.

from datetime import datetime

from sqlalchemy import CheckConstraint, Text
from sqlmodel import Field, SQLModel

from orchestrator.adapters.tables_base import reference, timestamp


class ScoreAdjustment(SQLModel, table=True):
    """Match points and game half-points added to (negative: taken from) a team's score in a stage.

    ``after_round``: they count in the standings after that round and in the pairing of the next round on
    (0: from the start), as record 299's round; ``standings_only``: they count in the standings only, never
    in a pairing (record 299's round 999). ``reason`` is shown to spectators beside the team.
    """

    __tablename__ = "score_adjustment"
    __table_args__ = (
        CheckConstraint("after_round >= 0", name="after_round"),
        CheckConstraint("mp <> 0 OR gp_half <> 0", name="points"),
    )

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = reference("stage.id", cascade=True, index=True)
    team_id: int = reference("team.id", cascade=True, index=True)
    after_round: int = Field(default=0)
    standings_only: bool = Field(default=False)
    mp: int = Field(default=0)
    gp_half: int = Field(default=0)
    reason: str = Field(default="", sa_type=Text)
    recorded_by: str = Field(max_length=80)
    recorded_at: datetime = timestamp()
