"""Lost connections to PostgreSQL or Redis: recognised, waited out with a growing pause, told once
(docs/workers.md, "Outages").

A job that meets one is tried again later (``backoff_s``; the Celery task retries with that countdown, the
eager queue with a timer) instead of being acknowledged and dropped. A long-running loop (the eager
scheduler thread, the demo's driver and its beat) logs one warning when an outage starts and one line when
it ends (``OutageLog``), waits and goes on. A deadlock or serialization failure is not an outage: the job
runs again at once (``bodies.RETRYABLE_SQLSTATES``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import redis.exceptions
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0
# SQLSTATEs of a server going away: connection exceptions (class 08), admin/crash shutdown, starting up.
LOST_SQLSTATE_PREFIXES = ("08", "57P01", "57P02", "57P03")
_LOST = (
    DisconnectionError,
    PoolTimeout,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    BrokerError,
    ConnectionError,
)


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def connection_lost(error: BaseException) -> bool:
    """True when ``error`` (or what caused it) is a lost or refused connection to the database or the
    broker, never a query's own failure (a constraint, a deadlock: those say something about the work)."""
    for link in _chain(error):
        if isinstance(link, DBAPIError):
            if link.connection_invalidated:
                return True
            sqlstate = getattr(link.orig, "sqlstate", None)
            if sqlstate is not None:
                return str(sqlstate).startswith(LOST_SQLSTATE_PREFIXES)
            if isinstance(link.orig, psycopg.OperationalError | psycopg.InterfaceError):
                return True
            continue
        if isinstance(link, psycopg.Error) and getattr(link, "sqlstate", None) is not None:
            return str(link.sqlstate).startswith(LOST_SQLSTATE_PREFIXES)
        if isinstance(link, _LOST):
            return True
    return False


def describe(error: BaseException) -> str:
    """One line naming the outage (the exception's type and first line; never a connection string)."""
    text = str(error).strip().splitlines()
    first = text[0][:160] if text else ""
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def backoff_s(attempt: int, *, base_s: float = BACKOFF_BASE_S, max_s: float = BACKOFF_MAX_S) -> float:
    """Seconds to wait before attempt ``attempt + 1`` after a lost connection: 1, 2, 4... at most a minute."""
    return float(min(max_s, base_s * 2 ** max(0, attempt - 1)))


class OutageLog:
    """One warning when a loop's outage starts, one line when it ends; nothing in between."""

    def __init__(self, what: str, logger: logging.Logger = log, clock: Callable[[], float] = time.monotonic):
        self.what = what
        self._log = logger
        self._clock = clock
        self._since: float | None = None
        self._lock = threading.Lock()

    @property
    def down(self) -> bool:
        return self._since is not None

    def failed(self, error: BaseException) -> None:
        with self._lock:
            if self._since is not None:
                return
            self._since = self._clock()
        self._log.warning("%s: connection lost (%s); waiting and trying again", self.what, describe(error))

    def ok(self) -> None:
        with self._lock:
            since, self._since = self._since, None
        if since is not None:
            self._log.info("%s: connection back after %.1f s", self.what, self._clock() - since)


def survive_broker_restart() -> None:
    """Keep the worker alive when Redis goes away while it re-queues its unacknowledged jobs.

    On losing the broker, the worker's consumer hands the jobs it holds back to the queue
    (``QoS.restore_unacked``) over a connection that is already gone; kombu then fails inside
    (``AttributeError: 'NoneType' object has no attribute 'hostname'``, or a connection error) and the
    worker exits. Those jobs are still in Redis's unacknowledged set, which any worker puts back on the
    queue once ``worker_visibility_timeout_s`` has passed, so nothing is lost by leaving them there: one
    warning, and the consumer reconnects. Installed once by workers/app.py; idempotent.
    """
    from kombu.transport import redis as kombu_redis

    qos = kombu_redis.QoS
    if getattr(qos.restore_unacked, "_survives_broker_restart", False):
        return
    original = qos.restore_unacked

    def restore_unacked(self: Any, client: Any = None) -> Any:
        try:
            return original(self, client)
        except (AttributeError, redis.exceptions.RedisError, OSError) as error:
            log.warning(
                "broker gone while handing back %d unacknowledged job(s) (%s): they return to the queue "
                "after the visibility timeout",
                len(self._delivered),
                describe(error),
            )
            self._delivered.clear()
            return None

    restore_unacked._survives_broker_restart = True  # type: ignore[attr-defined]
    setattr(qos, "restore_unacked", restore_unacked)  # noqa: B010 - replacing a library method

    original_ack = qos.ack

    def ack(self: Any, delivery_tag: Any) -> None:
        # A job finished while Redis restarts: its acknowledgement cannot reach the broker (kombu fails
        # with ``AttributeError: 'NoneType' object has no attribute 'client'`` and the worker stopped
        # consuming). The job stays in Redis's unacknowledged set and runs once more after the visibility
        # timeout; jobs are idempotent (docs/workers.md), so that costs a repeat, never a wrong result.
        try:
            original_ack(self, delivery_tag)
        except (AttributeError, redis.exceptions.RedisError, OSError) as error:
            log.warning(
                "broker gone while acknowledging a finished job (%s): it runs again after the visibility "
                "timeout",
                describe(error),
            )
            self._delivered.pop(delivery_tag, None)  # no longer held by this worker

    setattr(qos, "ack", ack)  # noqa: B010 - replacing a library method
