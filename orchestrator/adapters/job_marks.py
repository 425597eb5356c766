"""Marks in Redis for Celery jobs that are queued and have not started yet (docs/workers.md).

``jobs.dispatch.send`` claims a job's mark before sending it and skips the send when the same job (name
and ids) is already waiting in the queue: a job that has not started reads everything committed before it
runs, so a second copy would only repeat its work. The worker releases the mark when the job starts, so
anything that happens from then on queues the job again. This keeps beat's reconcile (which queues a pull
for every open round) from piling up copies while the worker is busy or the game server is down.

Beat's periodic jobs (rounds.open_due, results.reconcile, ...) have a second mark, ``running``: the worker
sets it when such a job starts and removes it when the job ends, and beat sends the job only when neither
mark is there (``claim_periodic``). So a periodic job is in the queue or running at most once, however
short beat's period and however long the job takes; a job a service queues (``claim``) checks the queued
mark only, so a change made while the job runs still queues it again.

A mark expires after ``ttl_s`` (a lost message or a worker killed mid-job never blocks its job for longer);
a Redis error never stops a send (the mark is then simply not used).
"""

from __future__ import annotations

import logging
import os
import threading

import redis

log = logging.getLogger(__name__)


# Beat's claim: the queued mark is set only when the job is neither queued nor running (one round trip,
# so a worker starting the job between a check and a set cannot let a second copy through).
_CLAIM_PERIODIC = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 1 end
return 0
"""


class JobMarks:
    """``claim`` a job's mark before sending it, ``release`` it when the job starts; a periodic job is also
    marked ``running`` from its start to its end (``start_running``, ``end_running``)."""

    def __init__(self, url: str, prefix: str, running_prefix: str = "") -> None:
        self.prefix = prefix
        self.running_prefix = running_prefix or f"{prefix}:running"
        self._client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)

    def key(self, name: str, ids: tuple[int, ...], *, later: bool = False) -> str:
        """The queued mark of a job; ``later``: of its copy sent with a countdown (a mark of its own)."""
        base = f"{self.prefix}:{name}:{','.join(str(i) for i in ids)}"
        return f"{base}:later" if later else base

    def running_key(self, name: str, ids: tuple[int, ...]) -> str:
        return f"{self.running_prefix}:{name}:{','.join(str(i) for i in ids)}"

    def claim_periodic(self, name: str, ids: tuple[int, ...], ttl_s: int) -> bool:
        """Beat: True when the job is neither queued nor running (send it now, it is marked queued)."""
        keys = (self.key(name, ids), self.running_key(name, ids))
        try:
            return bool(self._client.eval(_CLAIM_PERIODIC, 2, *keys, max(1, ttl_s)))
        except redis.RedisError:
            log.warning("job mark for %s not claimed (Redis unavailable): sending anyway", name)
            return True

    def start_running(self, name: str, ids: tuple[int, ...], ttl_s: int) -> bool:
        """A worker starts a periodic job: marked running for at most ``ttl_s`` (a killed worker's mark
        expires); False when Redis did not answer (beat may then send a copy: the jobs are idempotent)."""
        try:
            self._client.set(self.running_key(name, ids), b"1", ex=max(1, ttl_s))
        except redis.RedisError:
            log.warning("running mark for %s not set (Redis unavailable)", name)
            return False
        return True

    def end_running(self, name: str, ids: tuple[int, ...]) -> bool:
        """The periodic job ended; False when Redis did not answer (the caller may try again later)."""
        try:
            self._client.delete(self.running_key(name, ids))
        except redis.RedisError:
            log.warning("running mark for %s not removed (Redis unavailable): removed once it is back", name)
            return False
        return True

    def forget_running(self) -> int:
        """Remove every running mark of this queue (a worker starting: what a killed one was running is
        not running any more); how many there were."""
        try:
            keys = list(self._client.scan_iter(f"{self.running_prefix}:*", count=500))
            if keys:
                self._client.delete(*keys)
        except redis.RedisError:
            log.warning("running marks not cleared (Redis unavailable): they expire on their own")
            return 0
        return len(keys)

    def claim(self, name: str, ids: tuple[int, ...], ttl_s: int, *, later: bool = False) -> bool:
        """True when the job is not waiting yet (send it now); False when a copy is already queued.

        A copy sent with a countdown (``later``) is marked apart from one sent to run at once, so neither
        holds the other back: a copy queued for now would run before the delayed one is due (a lot's draw
        after its reveal delay), and a delayed copy must not hold back work wanted now."""
        try:
            return bool(self._client.set(self.key(name, ids, later=later), b"1", nx=True, ex=max(1, ttl_s)))
        except redis.RedisError:
            log.warning("job mark for %s not claimed (Redis unavailable): sending anyway", name)
            return True

    def release(self, name: str, ids: tuple[int, ...], *, later: bool | None = None) -> bool:
        """Remove the mark (``later`` True or False: that copy's only; None, as a worker starting the job
        does: both, since the copy that starts reads everything committed before it); False when Redis did
        not answer (the caller may try again later)."""
        keys = [self.key(name, ids, later=flag) for flag in ((False, True) if later is None else (later,))]
        try:
            self._client.delete(*keys)
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
            marks = _marks[key] = JobMarks(url, f"olympiad:queued:{queue}", f"olympiad:running:{queue}")
        return marks
