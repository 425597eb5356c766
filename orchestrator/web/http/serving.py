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

import logging
import multiprocessing
import signal
import socket
import threading
from multiprocessing.process import BaseProcess
from typing import Any

import uvicorn

from orchestrator.config import Settings
from orchestrator.db import is_sqlite
from orchestrator.heap import freeze_heap
from orchestrator.web.app import create_app

FACTORY = "orchestrator.web.app:create_app"

STARTUP_FAILURE = 3  # uvicorn's exit code when the app's start-up fails
log = logging.getLogger(__name__)


def frozen(app: Any) -> Any:
    """``app`` after moving every object alive now (modules, templates, the app) out of the garbage
    collector's reach (``heap.freeze_heap``): a full collection then walks only what requests create, instead
    of pausing every connection while it walks the whole heap (measured in docs/caching.md, "The p99 at
    200 connections": a lower p99 in one interleaved comparison, no clear difference in another)."""
    freeze_heap()
    return app


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


# asyncio's own event loop with httptools' C parser. Under a saturating load (wrk, 200 connections, the
# process on its own CPU) uvloop served about 8 % more pages a second, but kept some requests waiting one to
# two seconds in more than half of the runs (p99 0.5-1.2 s); asyncio's loop kept every run's p99 at 44-70 ms
# and its slowest request under 170 ms (docs/caching.md, "uvloop and the slowest requests").
SERVER_OPTIONS: dict[str, Any] = {"loop": "asyncio", "http": "httptools"}


def run(settings: Settings, *, host: str, port: int, workers: int) -> None:
    """Serve until stopped. One process runs the app built here (with the in-process scheduler in eager
    mode); several each build theirs from the environment, the same settings this process read."""
    common: dict[str, Any] = {"log_level": "info", "timeout_graceful_shutdown": 2, **SERVER_OPTIONS}
    common["access_log"] = settings.access_log
    if workers == 1:
        if settings.task_mode == "eager":
            settings = settings.model_copy(update={"eager_scheduler": True})
        uvicorn.run(frozen(create_app(settings)), host=host, port=port, **common)
    elif hasattr(socket, "SO_REUSEPORT"):
        Workers(host, port, workers, common).run()
    else:  # one shared listening socket (uvicorn's supervisor)
        uvicorn.run(FACTORY, factory=True, workers=workers, host=host, port=port, **common)


def reuseport_socket(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port) with SO_REUSEPORT, not yet listening. Its protocol is named: asyncio
    sets TCP_NODELAY on the accepted connections only for IPPROTO_TCP sockets, and without it (Nagle's
    algorithm against delayed acknowledgements) the pages were served at half the rate."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def _worker(host: str, port: int, options: dict[str, Any]) -> None:
    """One web process: its own listening socket on the shared port, its own app from the environment."""
    config = uvicorn.Config(frozen(create_app()), host=host, port=port, **options)
    uvicorn.Server(config).run(sockets=[reuseport_socket(host, port)])


class Workers:
    """N web processes, each listening on its own SO_REUSEPORT socket, so that the kernel spreads new
    connections evenly among them. With one shared socket (uvicorn's own supervisor) the first process to
    wake accepts every connection waiting: 200 keep-alive connections opened at once were seen to land
    all on one process, which then did all the work (docs/caching.md). A process that dies is replaced;
    SIGTERM or SIGINT stops them all (each finishes its requests, as uvicorn does)."""

    def __init__(self, host: str, port: int, count: int, options: dict[str, Any]) -> None:
        self.host, self.port, self.count, self.options = host, port, count, options
        self.context = multiprocessing.get_context("spawn")
        self.stopping = threading.Event()
        self.processes: list[BaseProcess] = []

    def _start(self) -> BaseProcess:
        process = self.context.Process(target=_worker, args=(self.host, self.port, self.options))
        process.start()
        return process

    def _replace_ended(self) -> None:
        for index, process in enumerate(self.processes):
            if process.is_alive():
                continue
            if process.exitcode == STARTUP_FAILURE:  # the app cannot start (e.g. no database): stop
                raise SystemExit(f"a web process could not start (exit {process.exitcode})")
            log.warning("web process %s ended (exit %s); starting another", process.pid, process.exitcode)
            self.processes[index] = self._start()

    def run(self) -> None:
        # Held, never listening, so that a port another program holds is refused here, at once.
        try:
            placeholder = reuseport_socket(self.host, self.port)
        except OSError as error:
            raise SystemExit(f"cannot listen on {self.host}:{self.port}: {error.strerror}") from None
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self.stopping.set())
        log.info("starting %d web processes on %s:%d", self.count, self.host, self.port)
        self.processes = [self._start() for _ in range(self.count)]
        try:
            while not self.stopping.wait(0.5):
                self._replace_ended()
        finally:
            for process in self.processes:
                process.terminate()
            for process in self.processes:
                process.join(10)
                if process.is_alive():
                    process.kill()
                    process.join()
            placeholder.close()
