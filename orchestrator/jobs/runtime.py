"""What a job runs with in this process: settings, a unit-of-work factory and a game-server client factory.

``configure`` sets it (the web app, the worker and tests call it once); ``runtime()`` builds it from
``get_settings()`` on first use.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from orchestrator.adapters.lichess import LichessClient
from orchestrator.adapters.uow import UnitOfWorkFactory, unit_of_work_factory
from orchestrator.config import Settings, get_settings

ACTOR = "worker"


@dataclass
class Runtime:
    """What jobs need: settings, a unit-of-work factory and a game-server client factory."""

    settings: Settings
    uow_factory: UnitOfWorkFactory
    client_factory: Callable[[], LichessClient]
    sent: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)  # eager mode: what ran


_runtime: Runtime | None = None
_runtime_lock = threading.Lock()


class _SharedTransport(httpx.BaseTransport):
    """One HTTP connection pool for every job's game-server client in this process.

    Each job still gets its own ``LichessClient`` (and closes it), but TLS set-up and connections are
    kept between jobs instead of being made again for each one. Closing a client leaves the pool open.
    Made per process on first use, so a forked worker never shares its parent's sockets.
    """

    def __init__(self) -> None:
        self._pid = 0
        self._inner: httpx.HTTPTransport | None = None
        self._lock = threading.Lock()

    def _transport(self) -> httpx.HTTPTransport:
        with self._lock:
            if self._inner is None or self._pid != os.getpid():
                self._inner, self._pid = httpx.HTTPTransport(), os.getpid()
            return self._inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._transport().handle_request(request)

    def close(self) -> None:
        """Kept open: other jobs' clients use the same pool."""


def configure(
    settings: Settings | None = None,
    *,
    uow_factory: UnitOfWorkFactory | None = None,
    client_factory: Callable[[], LichessClient] | None = None,
) -> Runtime:
    """Set the process's runtime (the worker and the web app call this once; tests too)."""
    global _runtime
    settings = settings or get_settings()
    if client_factory is None:
        transport = _SharedTransport()

        def client_factory() -> LichessClient:
            return LichessClient.from_settings(settings, transport=transport)

    runtime = Runtime(
        settings=settings,
        uow_factory=uow_factory or unit_of_work_factory(settings),
        client_factory=client_factory,
    )
    with _runtime_lock:
        _runtime = runtime
    return runtime


def runtime() -> Runtime:
    """The configured runtime, built from ``get_settings()`` on first use."""
    with _runtime_lock:
        current = _runtime
    return current or configure()
