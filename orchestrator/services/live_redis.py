"""When live updates cross processes (docs/caching.md, "Between processes"): the use case around the Redis
bridge of orchestrator/adapters/live_redis.py.

With ``Settings.task_mode == "celery"`` results are recorded in worker processes, while spectators are
connected to web processes. Every process installs the publisher (``install_publisher``): each message
published locally is also sent to the Redis channel. Each web process runs a listener thread
(``start_listener``) that feeds messages from other processes to its broadcaster. In-process task modes
need no bridge: both return None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orchestrator.adapters import live_redis as bridge
from orchestrator.config import Settings
from orchestrator.services import live

_installed: dict[tuple[int, str], bridge.RedisPublisher] = {}


def _enabled(settings: Settings) -> bool:
    return settings.task_mode == "celery"


def install_publisher(
    settings: Settings, broadcaster: live.Broadcaster = live.broadcaster
) -> bridge.RedisPublisher | None:
    """Forward this process's messages to Redis when tasks run in Celery; None otherwise."""
    if not _enabled(settings):
        return None
    key = (id(broadcaster), settings.redis_url)
    if key in _installed:  # an app built twice in one process must not send every message twice
        return _installed[key]
    publisher = bridge.RedisPublisher(bridge.connect(settings.redis_url))
    broadcaster.add_forwarder(publisher)
    _installed[key] = publisher
    return publisher


def start_listener(
    settings: Settings, broadcaster: live.Broadcaster = live.broadcaster
) -> bridge.RedisListener | None:
    """Start the web-side listener when tasks run in Celery; None otherwise."""
    if not _enabled(settings):
        return None
    return bridge.RedisListener(bridge.connect(settings.redis_url), broadcaster).start()


class _Callback:
    """A stand-in for the local broadcaster that hands each message to a function."""

    def __init__(self, on_message: Callable[[str, dict[str, Any]], None]) -> None:
        self.on_message = on_message

    def publish(self, topic: str, data: dict[str, Any] | None = None, *, forward: bool = True) -> None:
        self.on_message(topic, data or {})


def start_watcher(
    settings: Settings, on_message: Callable[[str, dict[str, Any]], None]
) -> bridge.RedisListener | None:
    """When tasks run in Celery, a listener thread calling ``on_message(topic, data)`` for each message
    another process publishes (``olympiad demo``'s staff wake when a worker closes a stage); None otherwise.
    ``on_message`` runs on the listener's thread."""
    if not _enabled(settings):
        return None
    return bridge.RedisListener(bridge.connect(settings.redis_url), _Callback(on_message)).start()
