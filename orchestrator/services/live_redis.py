"""Live updates across processes: a Redis pub/sub bridge for ``orchestrator.services.live``.

With ``Settings.task_mode == "celery"`` results are recorded in worker processes, while spectators are
connected to web processes. Every process installs the publisher (``install_publisher``): each message
published locally is also sent to the Redis channel. Each web process runs a listener thread
(``start_listener``) that feeds messages from other processes to its broadcaster with ``forward=False``
(so they are not sent back). A process skips its own messages by their origin id.

Messages carry only a topic and ids (live.py); a lost message costs a spectator one refresh, nothing more.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

import redis

from orchestrator.config import Settings
from orchestrator.services import live

log = logging.getLogger(__name__)

CHANNEL = "olympiad:live"
ORIGIN = uuid.uuid4().hex  # this process


def encode(message: live.Message, origin: str = ORIGIN) -> str:
    return json.dumps({"origin": origin, "topic": message.topic, "data": message.data}, default=str)


def decode(raw: str | bytes) -> tuple[str, live.Message] | None:
    try:
        payload = json.loads(raw)
        topic = payload["topic"]
        data = payload.get("data") or {}
        if not isinstance(topic, str) or not isinstance(data, dict):
            return None
        return str(payload.get("origin", "")), live.Message(topic, data)
    except (ValueError, KeyError, TypeError):
        return None


@dataclass
class RedisPublisher:
    """A broadcaster forwarder that publishes each message to the Redis channel."""

    client: Any
    channel: str = CHANNEL
    origin: str = ORIGIN

    def __call__(self, message: live.Message) -> None:
        try:
            self.client.publish(self.channel, encode(message, self.origin))
        except redis.RedisError:
            log.warning("live update for %s not sent to Redis", message.topic)


_installed: dict[tuple[int, str], RedisPublisher] = {}


def _enabled(settings: Settings) -> bool:
    return settings.task_mode == "celery"


def install_publisher(
    settings: Settings, broadcaster: live.Broadcaster = live.broadcaster
) -> RedisPublisher | None:
    """Forward this process's messages to Redis when tasks run in Celery; None otherwise."""
    if not _enabled(settings):
        return None
    key = (id(broadcaster), settings.redis_url)
    if key in _installed:  # an app built twice in one process must not send every message twice
        return _installed[key]
    publisher = RedisPublisher(redis.Redis.from_url(settings.redis_url))
    broadcaster.add_forwarder(publisher)
    _installed[key] = publisher
    return publisher


@dataclass
class RedisListener:
    """A daemon thread feeding other processes' messages to the local broadcaster."""

    client: Any
    broadcaster: live.Broadcaster
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


def start_listener(
    settings: Settings, broadcaster: live.Broadcaster = live.broadcaster
) -> RedisListener | None:
    """Start the web-side listener when tasks run in Celery; None otherwise."""
    if not _enabled(settings):
        return None
    return RedisListener(redis.Redis.from_url(settings.redis_url), broadcaster).start()
