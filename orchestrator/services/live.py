"""Live updates: services announce what changed; the web's server-sent-events endpoint listens.

Services call ``announce(uow, topic, **data)`` inside a unit of work: the message is published only after
the commit (docs/architecture.md, habit 4), so a spectator never sees a change that was rolled back. Topics
name what
changed, e.g. ``event:online-olympiad-2020``, ``pool:12``, ``match:345``, ``duel:7``.

Publishing is thread-safe (sync routes and in-process tasks run in worker threads). Messages never carry
secrets or sealed data: only ids and kinds, pages re-read what they show.

Every published message also bumps its topic's version (``TopicVersions``): the page cache
(web/http/page_cache.py) keeps a built page until a topic it shows changes (docs/caching.md).

**Coarse topics.** A page's live stream follows a handful of topics whatever the size of the field
(``to_follow``): the event, the stage, the pool (a Swiss stage's one pool), the round, the section. So a
change is announced on those too: a result is announced on its match, pool, stage and event
(services/results), and ``announce`` of a ``match:`` topic also publishes it on the match's pool or duel
and its stage (``coarse_of``), so that a page of 175 matches follows three topics, not 175.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from orchestrator.adapters.tables import Match, Round


class _AfterCommit(Protocol):
    def after_commit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None: ...


# The topics whose number does not grow with the field: a page follows these (``to_follow``).
COARSE_KINDS = frozenset({"event", "stage", "round", "section", "pool"})
# A page showing at most this many topics follows them all, as it did (a pool of the 2020 event with its
# 45 matches, a match, a bracket); beyond it only its coarse ones. The live stream accepts as many
# (web/http/sse.py ``MAX_TOPICS``).
FOLLOW_ALL_MAX = 100


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
        self.publish_many([Message(topic, dict(data or {}))], forward=forward)

    def publish_many(self, messages: list[Message], *, forward: bool = True) -> None:
        """``publish`` each message in order; a forwarder with a ``send_many`` form gets them all at once
        (the Redis bridge sends one commit's messages in one round trip)."""
        with self._lock:
            subscribers = list(self._subscribers)
        for message in messages:
            self.versions.bump(message.topic)  # before anyone is told, so that a re-read page is built anew
            for subscriber in subscribers:
                if message.topic in subscriber.topics:
                    with contextlib.suppress(RuntimeError):  # the subscriber's loop is closed: it is leaving
                        subscriber.loop.call_soon_threadsafe(_offer, subscriber.queue, message)
        if forward and messages:
            for forwarder in self._forwarders:
                send_many = getattr(forwarder, "send_many", None)
                if send_many is not None:
                    send_many(messages)
                else:
                    for message in messages:
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


def _publish_batch(calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> None:
    """``publish`` for each ``(args, kwargs)`` of one commit, together (``UnitOfWork``'s batched form)."""
    broadcaster.publish_many([Message(args[0], dict(kwargs)) for args, kwargs in calls])


publish.batched = _publish_batch  # type: ignore[attr-defined]


def to_follow(topics: Iterable[str]) -> tuple[str, ...]:
    """The topics a page's live stream follows: all of them, in order and once, while there are at most
    ``FOLLOW_ALL_MAX``; else only the coarse ones (``COARSE_KINDS``), which every change of a match is
    announced on too (module docstring). A page that knows its coarse topics names them itself."""
    unique = tuple(dict.fromkeys(topics))
    if len(unique) <= FOLLOW_ALL_MAX:
        return unique
    coarse = tuple(t for t in unique if t.partition(":")[0] in COARSE_KINDS)
    if len(coarse) <= FOLLOW_ALL_MAX:
        return coarse
    return tuple(t for t in coarse if t.partition(":")[0] in ("event", "stage"))[:FOLLOW_ALL_MAX]


class _Lookup(Protocol):
    def get(self, model: type[Any], row_id: int) -> Any: ...


class _Coarse(Protocol):
    def coarse_ids(self, match_ids: Iterable[int]) -> dict[int, tuple[int | None, int | None, int]]: ...


def _coarse_topics(pool_id: int | None, duel_id: int | None, stage_id: int | None) -> tuple[str, ...]:
    found = [f"pool:{pool_id}"] if pool_id is not None else []
    if duel_id is not None:
        found.append(f"duel:{duel_id}")
    if stage_id is not None:
        found.append(f"stage:{stage_id}")
    return tuple(found)


def coarse_of(rounds: _Lookup, topic: str) -> tuple[str, ...]:
    """The coarse topics a ``match:N`` topic is announced on too: its pool (or duel) and its stage, read
    with ``rounds.get`` (the rows are already in the unit of work); none for other topics or a match
    that is not there."""
    kind, _sep, ident = topic.partition(":")
    if kind != "match" or not ident.isdigit():
        return ()
    match = rounds.get(Match, int(ident))
    if match is None:
        return ()
    rnd = rounds.get(Round, match.round_id)
    return _coarse_topics(match.pool_id, match.duel_id, rnd.stage_id if rnd is not None else None)


def announce(uow: _AfterCommit, topic: str, **data: Any) -> None:
    """Publish ``topic`` once the unit of work has committed (dropped on rollback); a match's topic also
    on its coarse topics (``coarse_of``), each once per commit (a round's lineups touch every match)."""
    rounds = getattr(uow, "rounds", None)
    coarse = coarse_of(rounds, topic) if rounds is not None else ()
    _announce_on(uow, topic, coarse, _queued(uow), data)


def announce_matches(uow: _AfterCommit, match_ids: Iterable[int], **data: Any) -> None:
    """``announce`` of ``match:N`` for each of ``match_ids`` in order, the matches' pools, duels and stages
    read in one query (``uow.rounds.coarse_ids``) instead of two a match: a pull of the 2020 event's pools
    settles up to 225 matches, whose rows are not in its unit of work (docs/performance.md)."""
    ids = list(dict.fromkeys(match_ids))
    rounds: _Coarse | None = getattr(uow, "rounds", None)
    found = rounds.coarse_ids(ids) if rounds is not None and ids else {}
    queued = _queued(uow)
    for match_id in ids:
        coarse = _coarse_topics(*found[match_id]) if match_id in found else ()
        _announce_on(uow, f"match:{match_id}", coarse, queued, data)


def _queued(uow: _AfterCommit) -> set[str]:
    """The topics already to be published when ``uow`` commits."""
    pending = getattr(uow, "_after_commit", None)
    if not isinstance(pending, list):
        return set()
    return {args[0] for fn, args, _kw in pending if fn is publish and args}


def _announce_on(
    uow: _AfterCommit, topic: str, coarse: tuple[str, ...], queued: set[str], data: dict[str, Any]
) -> None:
    """Queue ``topic`` and each of its ``coarse`` topics not in ``queued`` yet (which it updates)."""
    uow.after_commit(publish, topic, **data)
    queued.add(topic)
    for each in coarse:
        if each not in queued:
            uow.after_commit(publish, each, **data)
            queued.add(each)
