"""Live updates across processes: the Redis pub/sub bridge of the in-process broadcaster.

With ``Settings.task_mode == "celery"`` results are recorded in worker processes, while spectators are
connected to web processes. A ``RedisPublisher`` forwards each message published locally to the Redis
channel; a ``RedisListener`` thread feeds messages from other processes to the local broadcaster with
``forward=False`` (so they are not sent back). A process skips its own messages by their origin id. When
to bridge is the service's decision (orchestrator/services/live_redis.py); this module only talks to Redis.

Messages carry only a topic and ids (services/live.py); a lost message costs a spectator one refresh,
nothing more.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis

log = logging.getLogger(__name__)

CHANNEL = "olympiad:live"
ORIGIN = uuid.uuid4().hex  # this process


class LiveMessage(Protocol):
    """A message of the in-process broadcaster: a topic and ids."""

    @property
    def topic(self) -> str: ...

    @property
    def data(self) -> dict[str, Any]: ...


class LocalBroadcaster(Protocol):
    """The in-process broadcaster that receives what other processes published."""

    def publish(self, topic: str, data: dict[str, Any] | None = None, *, forward: bool = True) -> None: ...


@dataclass(frozen=True, slots=True)
class Bridged:
    """A message read from the channel."""

    topic: str
    data: dict[str, Any]


def connect(url: str) -> Any:
    """A Redis client for ``url`` (connections open on first use)."""
    return redis.Redis.from_url(url)


def encode(message: LiveMessage, origin: str = ORIGIN) -> str:
    return json.dumps({"origin": origin, "topic": message.topic, "data": message.data}, default=str)


def decode(raw: str | bytes) -> tuple[str, Bridged] | None:
    try:
        payload = json.loads(raw)
        topic = payload["topic"]
        data = payload.get("data") or {}
        if not isinstance(topic, str) or not isinstance(data, dict):
            return None
        return str(payload.get("origin", "")), Bridged(topic, data)
    except (ValueError, KeyError, TypeError):
        return None


@dataclass
class RedisPublisher:
    """A broadcaster forwarder that publishes each message to the Redis channel."""

    client: Any
    channel: str = CHANNEL
    origin: str = ORIGIN

    def __call__(self, message: LiveMessage) -> None:
        try:
            self.client.publish(self.channel, encode(message, self.origin))
        except redis.RedisError:
            log.warning("live update for %s not sent to Redis", message.topic)

    def send_many(self, messages: Sequence[LiveMessage]) -> None:
        """Publish several messages in one round trip (a pipeline without a transaction), in order."""
        if len(messages) == 1:
            self(messages[0])
            return
        try:
            pipe = self.client.pipeline(transaction=False)
            for message in messages:
                pipe.publish(self.channel, encode(message, self.origin))
            pipe.execute()
        except redis.RedisError:
            log.warning(
                "%d live updates (the first for %s) not sent to Redis", len(messages), messages[0].topic
            )


@dataclass
class RedisListener:
    """A daemon thread feeding other processes' messages to the local broadcaster."""

    client: Any
    broadcaster: LocalBroadcaster
    channel: str = CHANNEL
    origin: str = ORIGIN
    ready: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> RedisListener:
        self._thread = threading.Thread(target=self._run, name="live-redis-listener", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                self.ready.set()
                while not self._stop.is_set():
                    item = pubsub.get_message(timeout=1.0)
                    if item and item.get("type") == "message":
                        self.deliver(item["data"])
                pubsub.close()
            except redis.RedisError:
                log.warning("live-update listener lost Redis; retrying")
                self._stop.wait(2.0)

    def deliver(self, raw: str | bytes) -> bool:
        """Publish one channel message locally; False for our own or unreadable messages."""
        decoded = decode(raw)
        if decoded is None:
            return False
        origin, message = decoded
        if origin == self.origin:
            return False
        self.broadcaster.publish(message.topic, message.data, forward=False)
        return True
