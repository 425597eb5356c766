"""Duplicate jobs on the real PostgreSQL: a second run of a job that is running leaves at once.

Beat queues ``rounds.create_games`` and ``results.pull_round`` again every time it runs; a copy that
arrives while the first run still works must not sit on the round's lock holding a worker thread.
"""

from __future__ import annotations

from typing import Any

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services import queue
from orchestrator.services.gameserver.gameserver import create_round_games, pull_round_results


class NoServer:
    """A game-server client that must not be called: a busy job leaves before any request."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the game server was called ({name}) by a run that should have left")


def test_a_job_lock_is_held_until_the_transaction_ends_and_only_blocks_the_same_job(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as first:
        assert first.locks.try_job_lock(queue.PULL_ROUND, (41,))
        with uow_factory() as second:
            assert not second.locks.try_job_lock(queue.PULL_ROUND, (41,))
            assert second.locks.try_job_lock(queue.PULL_ROUND, (42,))  # another round
            assert second.locks.try_job_lock(queue.CREATE_GAMES, (41,))  # another job
    with uow_factory() as third:
        assert third.locks.try_job_lock(queue.PULL_ROUND, (41,))  # released at the commit


def test_a_second_create_or_pull_of_a_round_being_worked_on_leaves_without_calling_the_server(
    uow_factory: UnitOfWorkFactory,
) -> None:
    settings = Settings(environment="test")
    with uow_factory() as running:
        assert running.locks.try_job_lock(queue.CREATE_GAMES, (7,))
        assert running.locks.try_job_lock(queue.PULL_ROUND, (7,))
        with uow_factory() as copy:
            same_round: dict[str, Any] = {
                "round_id": 7,
                "client": NoServer(),
                "settings": settings,
                "actor": "test",
            }
            made = create_round_games(copy, **same_round)
            pulled = pull_round_results(copy, **same_round)
    assert made.status == "busy"
    assert (pulled.asked, pulled.round_finished, pulled.error) == (0, False, None)
