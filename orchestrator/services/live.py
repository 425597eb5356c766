"""Live updates: services announce what changed; the web's server-sent-events endpoint listens.

Services call ``announce(uow, topic, **data)`` inside a unit of work: the message is published only after
the commit (docs/architecture.md, habit 4), so a spectator never sees a change that was rolled back. Topics
name what
changed, e.g. ``event:online-olympiad-2020``, ``pool:12``, ``match:345``, ``duel:7``.

Publishing is thread-safe (sync routes and in-process tasks run in worker threads). Messages never carry
secrets or sealed data: only ids and kinds, pages re-read what they show.

Every published message also bumps its topic's version (``TopicVersions``): the page cache
(web/http/page_cache.py) keeps a built page until a topic it shows changes (docs/caching.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol


class _AfterCommit(Protocol):
    def after_commit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None: ...


@dataclass(frozen=True, slots=True)
class Message:
    topic: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class _Subscriber:
    topics: frozenset[str]
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Message]


def any_of(kind: str) -> str:
    """A version-only topic that changes with every topic of ``kind``: ``any_of("event")`` is ``event:*``,
    which a page listing every event depends on. No stream carries it (sse.py accepts ids only)."""
    return f"{kind}:*"


class TopicVersions:
    """A version per topic, from one sequence that grows with each message published in this process.

    A page built after reading ``seq`` is still current while none of its topics has a version above that
    ``seq``: taking ``seq`` before reading the database keeps a change committed during the build from
    being missed (the page is only ever rebuilt once too often).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = 0
        self._versions: dict[str, int] = {}

    @property
    def seq(self) -> int:
        return self._seq

    def bump(self, topic: str) -> int:
        """Record a message of ``topic``; it also counts for ``any_of`` its kind (``event:*``)."""
        kind = topic.partition(":")[0]
        with self._lock:
            self._seq += 1
            self._versions[topic] = self._seq
            self._versions[any_of(kind)] = self._seq
            return self._seq

    def of(self, topic: str) -> int:
        return self._versions.get(topic, 0)

    def changed_since(self, topics: Iterable[str], seq: int) -> bool:
        versions = self._versions
        return any(versions.get(topic, 0) > seq for topic in topics)


class Broadcaster:
    """In-process fan-out of messages to async subscribers; other transports feed it via ``publish``."""

    def __init__(self, queue_size: int = 256) -> None:
        self._subscribers: set[_Subscriber] = set()
        self._lock = threading.Lock()
        self._queue_size = queue_size
        self._forwarders: list[Callable[[Message], None]] = []
        self.versions = TopicVersions()

    def add_forwarder(self, forward: Callable[[Message], None]) -> None:
        """Also hand every published message to ``forward`` (e.g. a Redis bridge to other processes)."""
        self._forwarders.append(forward)

    def publish(self, topic: str, data: dict[str, Any] | None = None, *, forward: bool = True) -> None:
        message = Message(topic, dict(data or {}))
        self.versions.bump(topic)  # before anyone is told, so that a re-read page is built anew
        with self._lock:
            subscribers = [s for s in self._subscribers if topic in s.topics]
        for subscriber in subscribers:
            with contextlib.suppress(RuntimeError):  # the subscriber's loop is closed: it is leaving
                subscriber.loop.call_soon_threadsafe(_offer, subscriber.queue, message)
        if forward:
            for forwarder in self._forwarders:
                forwarder(message)

    @contextlib.asynccontextmanager
    async def subscribe(self, topics: Iterable[str]) -> AsyncIterator[asyncio.Queue[Message]]:
        subscriber = _Subscriber(
            frozenset(topics), asyncio.get_running_loop(), asyncio.Queue(self._queue_size)
        )
        with self._lock:
            self._subscribers.add(subscriber)
        try:
            yield subscriber.queue
        finally:
            with self._lock:
                self._subscribers.discard(subscriber)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)


def _offer(queue: asyncio.Queue[Message], message: Message) -> None:
    if queue.full():  # a slow client loses the oldest notice, not the newest: pages re-read state anyway
        with contextlib.suppress(asyncio.QueueEmpty):
            queue.get_nowait()
    queue.put_nowait(message)


broadcaster = Broadcaster()


def publish(topic: str, **data: Any) -> None:
    broadcaster.publish(topic, data)


def announce(uow: _AfterCommit, topic: str, **data: Any) -> None:
    """Publish ``topic`` once the unit of work has committed (dropped on rollback)."""
    uow.after_commit(publish, topic, **data)
