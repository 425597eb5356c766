"""The outlook table: each team's chances and needs in a stage, stored by the job that computes them after
each round (docs/needs.md), so no page computes them on a request."""

# No ``from __future__ import annotations``: SQLModel reads the annotations at class creation.

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, UniqueConstraint
from sqlmodel import Field, SQLModel

from orchestrator.adapters.tables_base import one_of, reference, timestamp
from orchestrator.domain.needs import Status


class Outlook(SQLModel, table=True):
    """A team and the top ``places`` of its pool (or of its Swiss stage): the chance by Monte Carlo in
    ten-thousandths (None: no ratings to simulate with) and, in a round-robin pool's last rounds, the exact
    ``status`` (clinched, eliminated, open) with its ``lines`` (what each gain gives, docs/needs.md)."""

    __tablename__ = "outlook"
    __table_args__ = (
        UniqueConstraint("stage_id", "team_id", "places"),
        one_of("status", Status, nullable=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = reference("stage.id", cascade=True, index=True)
    pool_id: int | None = reference("pool.id", cascade=True, nullable=True, index=True)
    team_id: int = reference("team.id", cascade=True, index=True)
    places: int
    chance: int | None = Field(default=None)  # ten-thousandths
    status: str | None = Field(default=None, max_length=16)
    lines: list[Any] = Field(default_factory=list, sa_type=JSON)
    simulations: int = Field(default=0)
    seed: int = Field(default=0)
    after_round: int = Field(default=0)
    computed_at: datetime = timestamp()
