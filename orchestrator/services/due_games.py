"""When a round's games are due: the rule beat's ``rounds.open_due`` applies to every round, for the rounds a
step has in hand (docs/workers.md, "Event-driven rounds").

A scheduled round whose start is within ``gameserver_pair_lead_s`` of now (or past) gets its
``rounds.create_games`` queued, sent after the commit; a later round is left to ``rounds.open_due`` when it
falls due. The job is idempotent, so beat queuing it too pairs nothing twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from orchestrator.adapters.tables import Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.services.queue import CREATE_GAMES, enqueue


def queue_due_games(
    uow: UnitOfWork, rounds: Sequence[Round], *, now: datetime, pair_lead_s: float
) -> list[int]:
    """Queue ``rounds.create_games`` for each of ``rounds`` that is due (module docstring); their ids."""
    due_by = now + timedelta(seconds=pair_lead_s)
    due = [
        rnd.id or 0
        for rnd in rounds
        if rnd.status == RoundStatus.SCHEDULED.value
        and rnd.scheduled_at is not None
        and rnd.scheduled_at <= due_by
    ]
    for round_id in due:
        enqueue(uow, CREATE_GAMES, round_id)
    return due
