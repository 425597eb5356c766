"""Marks in Redis for Celery jobs that are queued and have not started yet (docs/workers.md).

``jobs.dispatch.send`` claims a job's mark before sending it and skips the send when the same job (name
and ids) is already waiting in the queue: a job that has not started reads everything committed before it
runs, so a second copy would only repeat its work. The worker releases the mark when the job starts, so
anything that happens from then on queues the job again. This keeps beat's reconcile (which queues a pull
for every open round) from piling up copies while the worker is busy or the game server is down.

A mark expires after ``ttl_s`` (a lost message never blocks its job for longer); a Redis error never stops a
send (the mark is then simply not used).
"""

from __future__ import annotations

import logging
import os
import threading

import redis

log = logging.getLogger(__name__)


class JobMarks:
    """``claim`` a job's mark before sending it, ``release`` it when the job starts."""

    def __init__(self, url: str, prefix: str) -> None:
        self.prefix = prefix
        self._client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)

    def key(self, name: str, ids: tuple[int, ...]) -> str:
        return f"{self.prefix}:{name}:{','.join(str(i) for i in ids)}"

    def claim(self, name: str, ids: tuple[int, ...], ttl_s: int) -> bool:
        """True when the job is not waiting yet (send it now); False when a copy is already queued."""
        try:
            return bool(self._client.set(self.key(name, ids), b"1", nx=True, ex=max(1, ttl_s)))
        except redis.RedisError:
            log.warning("job mark for %s not claimed (Redis unavailable): sending anyway", name)
            return True

    def release(self, name: str, ids: tuple[int, ...]) -> bool:
        """Remove the mark; False when Redis did not answer (the caller may try again later)."""
        try:
            self._client.delete(self.key(name, ids))
        except redis.RedisError:
            log.warning("job mark for %s not released (Redis unavailable): released once it is back", name)
            return False
        return True


_marks: dict[tuple[int, str, str], JobMarks] = {}
_marks_lock = threading.Lock()


def job_marks(url: str, queue: str) -> JobMarks:
    """This process's marks for one broker and queue (made again after a fork)."""
    key = (os.getpid(), url, queue)
    with _marks_lock:
        marks = _marks.get(key)
        if marks is None:
            marks = _marks[key] = JobMarks(url, f"olympiad:queued:{queue}")
        return marks
