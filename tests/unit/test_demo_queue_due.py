"""Rounds the demo's staff move into the pairing lead get their games queued at once (orchestrator/demo/
schedule.py ``queue_due``), by the rule of beat's ``rounds.open_due``, instead of a beat tick later."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from orchestrator.adapters.tables import Round, RoundStatus
from orchestrator.demo.schedule import queue_due
from orchestrator.services.queue import CREATE_GAMES

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


class _Commit:
    """A unit of work that only records what would be sent after its commit."""

    def __init__(self) -> None:
        self.jobs: list[tuple[str, tuple[int, ...], float | None]] = []

    def after_commit(self, _fn: Any, /, jobs: list[tuple[str, tuple[int, ...], float | None]]) -> None:
        self.jobs.extend(jobs)


def _round(round_id: int, *, at_s: float | None, status: RoundStatus = RoundStatus.SCHEDULED) -> Round:
    at = None if at_s is None else NOW + timedelta(seconds=at_s)
    return Round(id=round_id, stage_id=1, number=round_id, status=status.value, scheduled_at=at)


def test_only_scheduled_rounds_starting_within_the_lead_are_queued_the_rest_left_to_beat() -> None:
    uow = _Commit()
    rounds = [
        _round(1, at_s=-5),  # late: due
        _round(2, at_s=0),  # now
        _round(3, at_s=1),  # exactly the lead away: due, as open_due's ``<=``
        _round(4, at_s=1.001),  # just beyond the lead: beat's open_due when it falls due
        _round(5, at_s=None),  # held (a bracket round whose duels are not all known)
        _round(6, at_s=0, status=RoundStatus.PAIRED),  # games already created
        _round(7, at_s=0, status=RoundStatus.UNPAIRED),  # a Swiss round nobody published
    ]
    assert queue_due(uow, rounds, pair_lead_s=1, now=NOW) == [1, 2, 3]  # type: ignore[arg-type]
    assert uow.jobs == [(CREATE_GAMES, (1,), None), (CREATE_GAMES, (2,), None), (CREATE_GAMES, (3,), None)]


def test_a_lead_of_zero_queues_only_what_has_started() -> None:
    uow = _Commit()
    rounds = [_round(1, at_s=0), _round(2, at_s=0.5)]
    assert queue_due(uow, rounds, pair_lead_s=0, now=NOW) == [1]  # type: ignore[arg-type]
    assert uow.jobs == [(CREATE_GAMES, (1,), None)]
