"""The job queue as services see it: ``enqueue`` a named, id-only job after the commit
(docs/architecture.md, habits 4 and 5).

``enqueue(uow, name, *ids)`` puts a job on the unit of work's after-commit list, so nothing is sent for a
rolled-back transaction. Once committed, the transaction's jobs go, in the order they were queued, to the
sender the job runtime registers with ``set_sender`` (orchestrator/jobs: in process in eager mode, to
Celery otherwise). This module imports nothing from the runtime, so a service that wants another's
follow-up queues a job here instead of importing the runtime or the worker (docs/architecture.md).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Protocol

OPEN_DUE = "rounds.open_due"
CREATE_GAMES = "rounds.create_games"
PULL_ROUND = "results.pull_round"
RECONCILE = "results.reconcile"
RECOMPUTE_POOL = "standings.recompute_pool"
ADVANCE_STAGE = "stages.advance"
PLAYOFF_ADVANCE = "playoff.advance"
PLAYOFF_TICK = "playoff.tick"
PLAYOFF_DUEL = "playoff.duel"  # one duel's Armageddon moves, chained (jobs/scheduler.py, run_duel_steps)
NOTIFY_SCAN = "notify.scan"  # what changed or is due → mails in the outbox (docs/notifications.md)
NOTIFY_SEND = "notify.send"  # send one outbox row
CHANCES_SCAN = "chances.scan"  # each running stage's chances and needs after a round (docs/needs.md)
TASK_NAMES = (
    OPEN_DUE,
    CREATE_GAMES,
    PULL_ROUND,
    RECONCILE,
    RECOMPUTE_POOL,
    ADVANCE_STAGE,
    PLAYOFF_ADVANCE,
    PLAYOFF_TICK,
    PLAYOFF_DUEL,
    NOTIFY_SCAN,
    NOTIFY_SEND,
    CHANCES_SCAN,
)

# Jobs that only keep spectators' figures current go to a queue of their own (``background_queue``), so a
# worker serving it alone can never hold up a round's pairing, games or results (docs/workers.md, "Queues").
BACKGROUND_JOBS = frozenset({CHANCES_SCAN})

Job = tuple[str, tuple[int, ...], float | None]  # name, ids, countdown
Sender = Callable[[Sequence[Job]], None]  # sends one committed transaction's jobs, in order


class _AfterCommit(Protocol):
    def after_commit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None: ...


_sender: Sender | None = None

# Jobs queued per transaction (keyed by the unit of work's ``transaction``, new for each entry), in order.
_queued: weakref.WeakKeyDictionary[Any, list[Job]] = weakref.WeakKeyDictionary()
_queued_lock = threading.Lock()


def set_sender(sender: Sender) -> None:
    """Where committed jobs go (the job runtime registers itself when it is imported)."""
    global _sender
    _sender = sender


def background_queue(main_queue: str) -> str:
    """The Celery queue of ``BACKGROUND_JOBS`` beside ``main_queue`` (``Settings.worker_queue``)."""
    return f"{main_queue}.background"


def queue_of(name: str, main_queue: str) -> str:
    """The Celery queue of job ``name``: the background one for ``BACKGROUND_JOBS``, else the main one."""
    return background_queue(main_queue) if name in BACKGROUND_JOBS else main_queue


def check_job(name: str, ids: tuple[int, ...]) -> None:
    """A known job name and ids only: a job reads everything else from the database when it runs."""
    if name not in TASK_NAMES:
        raise ValueError(f"unknown task {name!r}; known: {', '.join(TASK_NAMES)}")
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise TypeError("tasks take ids only")


def enqueue(uow: _AfterCommit, name: str, *ids: int, countdown: float | None = None) -> None:
    """Send job ``name`` with ``ids`` once ``uow`` has committed (dropped on rollback).

    The same job (name, ids, countdown) queued again in the same transaction is sent once: jobs are
    idempotent and read the committed state, so e.g. a pool touched by every ingestion batch of a pull
    is recomputed once per pull. A transaction's jobs are sent together, in the order they were queued.
    """
    check_job(name, ids)
    job: Job = (name, ids, countdown)
    transaction = getattr(uow, "transaction", None)
    if transaction is None:
        uow.after_commit(_deliver, [job])
        return
    with _queued_lock:
        try:
            jobs = _queued.get(transaction)
            first = jobs is None
            if jobs is None:
                jobs = _queued[transaction] = []
        except TypeError:  # not weakly referenceable: no de-duplication, one send per job
            uow.after_commit(_deliver, [job])
            return
        if job in jobs:
            return
        jobs.append(job)
    if first:
        uow.after_commit(_deliver, jobs)


def _deliver(jobs: Sequence[Job]) -> None:
    if _sender is None:
        raise RuntimeError(
            "no job sender is configured: import orchestrator.jobs in this process "
            "(the web app, the Celery worker, the command line and the demo do)"
        )
    _sender(jobs)
