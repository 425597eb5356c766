"""The Celery application: Redis broker and result backend, late acks, beat schedule (docs/workers.md).

Run ``celery -A workers.app worker --pool=threads`` and ``celery -A workers.app beat``. Settings come from
``orchestrator.config.Settings`` (OLYMPIAD_* environment variables), like everything else. The job runtime
sends through ``celery_app`` in celery mode (orchestrator/jobs/dispatch.py), so this module imports nothing
of it; the tasks and the worker's warm-up are in workers/tasks.py.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init
from kombu import Queue

from orchestrator.config import get_settings
from orchestrator.services import live_redis
from orchestrator.services.queue import (
    BACKGROUND_JOBS,
    CHANCES_SCAN,
    NOTIFY_SCAN,
    OPEN_DUE,
    PLAYOFF_TICK,
    RECONCILE,
    background_queue,
)

settings = get_settings()
BACKGROUND_QUEUE = background_queue(settings.worker_queue)

celery_app = Celery(
    "olympiad", broker=settings.redis_url, backend=settings.redis_url, include=["workers.tasks"]
)
celery_app.conf.update(
    # A task is acknowledged only when it has run, so a worker that dies mid-task loses nothing: the
    # message goes back to the queue (Redis: after worker_visibility_timeout_s) and runs again. Every
    # task is idempotent, so running twice changes nothing.
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    broker_transport_options={
        "visibility_timeout": settings.worker_visibility_timeout_s,
        "socket_connect_timeout": 5,
        "socket_timeout": 30,
        "retry_on_timeout": True,
        "health_check_interval": 10,
    },
    # A Redis restart is waited out (docs/workers.md, "Outages"): reconnect for as long as it takes, at
    # start-up too, and cancel what was running when the connection went (acks_late: it runs again).
    broker_connection_retry=True,
    broker_connection_retry_on_startup=True,
    broker_connection_max_retries=None,
    broker_channel_error_retry=True,
    worker_cancel_long_running_tasks_on_connection_loss=True,
    task_default_queue=settings.worker_queue,
    # Two queues (docs/workers.md, "Queues"): a worker started without -Q serves both; a deployment that
    # wants spectators' figures never to hold up a round runs one worker with -Q <worker_queue> and a
    # second, niced, with -Q <worker_queue>.background. Beat's jobs and retries are routed by name.
    task_queues=(Queue(settings.worker_queue), Queue(BACKGROUND_QUEUE)),
    task_routes={name: {"queue": BACKGROUND_QUEUE} for name in sorted(BACKGROUND_JOBS)},
    task_serializer="json",
    accept_content=["json"],
    result_serializer="json",
    result_expires=3600,
    task_ignore_result=True,  # tasks report through the database, not the result backend
    timezone="UTC",
    enable_utc=True,
    worker_hijack_root_logger=False,
    # A periodic job already queued or running is not sent again (docs/workers.md, "Dispatch modes").
    beat_scheduler="orchestrator.jobs.beat:PeriodicScheduler",
    beat_schedule={
        "open-due-rounds": {"task": OPEN_DUE, "schedule": settings.beat_open_due_s},
        "reconcile-open-games": {"task": RECONCILE, "schedule": settings.beat_reconcile_s},
        "playoff-tick": {"task": PLAYOFF_TICK, "schedule": settings.beat_playoff_s},
        "notify-scan": {"task": NOTIFY_SCAN, "schedule": settings.beat_notify_s},
        "chances-scan": {"task": CHANCES_SCAN, "schedule": settings.beat_reconcile_s},  # docs/needs.md
    },
)
app = celery_app  # ``celery -A workers.app`` finds ``app``


@worker_init.connect
@worker_process_init.connect
def install_live_publisher(**_: Any) -> None:
    """Forward this worker's live messages to Redis, so results a worker records reach spectators at once.

    ``worker_init`` fires in the main worker process (``--pool=threads``/``solo`` run tasks there);
    ``worker_process_init`` in each prefork child. ``install_publisher`` is idempotent per process.
    """
    live_redis.install_publisher(settings)
