"""The job runtime: named, id-only jobs, how they are sent and run, and the periodic ticks (docs/workers.md).

``runtime`` (what a job runs with), ``bodies`` (the jobs, ``run_job``, ``periodic_tick``), ``scheduler``
(the play-off tick's steps, the eager scheduler thread) and ``dispatch`` (sending: eager queue or Celery).
Importing the package registers ``dispatch.send`` as the sender of ``orchestrator.services.queue``, so a
process that imports any part of the runtime sends the jobs its services queue.
"""

from orchestrator.jobs import dispatch as _dispatch  # noqa: F401  (registers the queue's sender)
