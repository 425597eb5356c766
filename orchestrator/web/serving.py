"""``olympiad serve``: one web process, or several (``--workers N``) on one machine.

Several processes share the listening socket; each builds its own app from the environment's settings
(``create_app`` as uvicorn's factory), keeps its own page cache and hears the others' live messages
through the Redis bridge (services/live_redis.py), which also bumps its page versions. So N > 1 needs
what the bridge needs and what several writers need (docs/caching.md, "Several web processes"):

- ``task_mode = "celery"``: in eager mode the jobs run inside the web process that queued them and the
  in-process scheduler (Celery beat's stand-in) would run in every process, each opening rounds and
  pulling results; and eager mode has no bridge, so a change made through one process would reach the
  others' spectators and caches only through the cache's age limit.
- PostgreSQL: SQLite lets one process write at a time and a second writer fails with "database is
  locked" under load.
"""

from __future__ import annotations

import uvicorn

from orchestrator.config import Settings
from orchestrator.db import is_sqlite
from orchestrator.web.app import create_app

FACTORY = "orchestrator.web.app:create_app"


def workers_refusal(settings: Settings, workers: int) -> list[str]:
    """Why ``workers`` processes cannot serve with ``settings`` (empty when they can)."""
    if workers < 1:
        return [f"--workers must be at least 1, not {workers}"]
    if workers == 1:
        return []
    problems = []
    if settings.task_mode != "celery":
        problems.append(
            f"--workers {workers} needs OLYMPIAD_TASK_MODE=celery (a Celery worker and beat): in eager mode "
            "jobs run inside the web process and the in-process scheduler would run in every process, and "
            "live updates (and the page caches' versions) would not reach the other processes"
        )
    if is_sqlite(settings.sqlalchemy_url):
        problems.append(
            f"--workers {workers} needs PostgreSQL (DATABASE_URL): SQLite lets one process write at a time"
        )
    return problems


def run(settings: Settings, *, host: str, port: int, workers: int) -> None:
    """Serve until stopped. One process runs the app built here (with the in-process scheduler in eager
    mode); several each build theirs from the environment, the same settings this process read."""
    common = {"host": host, "port": port, "log_level": "info", "timeout_graceful_shutdown": 2}
    if workers == 1:
        if settings.task_mode == "eager":
            settings = settings.model_copy(update={"eager_scheduler": True})
        uvicorn.run(create_app(settings), **common)  # type: ignore[arg-type]
        return
    uvicorn.run(FACTORY, factory=True, workers=workers, **common)  # type: ignore[arg-type]
