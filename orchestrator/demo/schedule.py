"""Demo time: a stage's rounds moved from the event file's real dates to a few seconds apart from now.

A round moved into the pairing lead (``gameserver_pair_lead_s``) gets its ``rounds.create_games`` queued in
the same transaction (``queue_due``: services/due_games.py, the rule of beat's ``rounds.open_due``):
staff who move a round to now expect its games at once, not a beat period later (docs/workers.md,
"Event-driven rounds").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from orchestrator.adapters.tables import Round, Stage
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.services.due_games import queue_due_games


def compress_rounds(
    uow: UnitOfWork,
    *,
    stage_id: int,
    rounds: Sequence[Round],
    start: datetime,
    gap_s: float,
    actor: str,
    pair_lead_s: float | None = None,
) -> list[int]:
    """Round n of ``rounds`` starts at ``start + (n - 1) * gap_s`` and its lineups close then; one
    ``stage.demo_schedule`` audit entry for the stage. With ``pair_lead_s``, the rounds now due within it get
    their games queued (``queue_due``; a Swiss stage the workers publish queues its own). Returns the rounds'
    ids."""
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
    if pair_lead_s is not None:
        queue_due(uow, rounds, pair_lead_s=pair_lead_s)
    return [r.id or 0 for r in rounds]


def queue_due(
    uow: UnitOfWork, rounds: Sequence[Round], *, pair_lead_s: float, now: datetime | None = None
) -> list[int]:
    """``queue_due_games`` at the demo's clock (now unless given): the ids of the rounds queued."""
    return queue_due_games(uow, rounds, now=now or utcnow(), pair_lead_s=pair_lead_s)
