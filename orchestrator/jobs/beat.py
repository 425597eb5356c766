"""Beat's scheduler: a periodic job is sent only when no copy of it is queued or running (docs/workers.md,
"Dispatch modes").

``workers/app.py`` names ``PeriodicScheduler`` as ``beat_scheduler``. Before sending one of beat's jobs
(``bodies.PERIODIC``) it claims the job's mark in Redis (``JobMarks.claim_periodic``): the claim fails while
a copy waits in the queue (its queued mark, removed when a worker starts it) or runs (its running mark, set
by the worker from the job's start to its end), and beat then skips that period. A job that takes longer
than beat's period, or a worker that is behind, no longer piles copies of it up ahead of the pulls and
pairings. Every mark expires (``dispatch.JOB_MARK_TTL_S``, ``dispatch.RUNNING_MARK_TTL_S``), so a lost
message, a Redis restart or a worker killed mid-job costs at most one mark's life, never the job; a Redis
that does not answer just lets the job be sent.
"""

from __future__ import annotations

from typing import Any

from celery.beat import PersistentScheduler, ScheduleEntry
from celery.utils.log import get_logger

from orchestrator.adapters.job_marks import job_marks
from orchestrator.jobs.bodies import PERIODIC
from orchestrator.jobs.dispatch import JOB_MARK_TTL_S
from orchestrator.jobs.runtime import runtime

log = get_logger(__name__)  # beat's own logger tree: its log shows each send skipped


class PeriodicScheduler(PersistentScheduler):
    """Celery beat's persistent scheduler, skipping a periodic job that is queued or running already."""

    def apply_async(
        self, entry: ScheduleEntry, producer: Any = None, advance: bool = True, **kwargs: Any
    ) -> Any:
        ids = tuple(entry.args or ())
        if entry.task not in PERIODIC or entry.kwargs:
            return super().apply_async(entry, producer=producer, advance=advance, **kwargs)
        settings = runtime().settings  # the worker's marks: the same Redis and queue (workers/app.py)
        marks = job_marks(settings.redis_url, settings.worker_queue)
        if not marks.claim_periodic(entry.task, ids, JOB_MARK_TTL_S):
            if advance:
                self.reserve(entry)  # its next period, as if sent
            log.info("beat: %s is queued or running already; not sent again", entry.task)
            return None
        try:
            return super().apply_async(entry, producer=producer, advance=advance, **kwargs)
        except Exception:
            marks.release(entry.task, ids, later=False)
            raise
