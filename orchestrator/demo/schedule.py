"""Demo time: a stage's rounds moved from the event file's real dates to a few seconds apart from now."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from orchestrator.adapters.tables import Round, Stage
from orchestrator.adapters.uow import UnitOfWork


def compress_rounds(
    uow: UnitOfWork, *, stage_id: int, rounds: Sequence[Round], start: datetime, gap_s: float, actor: str
) -> list[int]:
    """Round n of ``rounds`` starts at ``start + (n - 1) * gap_s`` and its lineups close then; one
    ``stage.demo_schedule`` audit entry for the stage. Returns the rounds' ids."""
    for rnd in rounds:
        rnd.scheduled_at = start + timedelta(seconds=gap_s * (rnd.number - 1))
        rnd.lineup_deadline_at = None  # demo time: lineups close when the round starts
        uow.rounds.insert(rnd)
    stage = uow.events.get_or_raise(Stage, stage_id)
    uow.audit.change(
        stage,
        "stage.demo_schedule",
        actor=actor,
        event_id=stage.event_id,
        new={"first_round_at": start.isoformat(), "gap_s": gap_s, "rounds": len(rounds)},
        reason="demo: the stage's schedule compressed into demo time",
    )
    return [r.id or 0 for r in rounds]
