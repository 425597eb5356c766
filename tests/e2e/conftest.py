"""End-to-end fixtures: the real application served by uvicorn on a free local port (SQLite in a tmp dir)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.web.app import create_app


@dataclass
class LiveServer:
    base_url: str
    uow_factory: UnitOfWorkFactory


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir: Path = tmp_path_factory.mktemp("e2e")
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    settings = Settings(data_dir=data_dir, environment="test", public_base_url=base_url)
    app = create_app(settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        # Wait for readiness by polling the health check (bounded by attempts, not by a timed assertion).
        for _ in range(200):
            try:
                if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            threading.Event().wait(0.05)
        else:
            pytest.fail("the uvicorn server did not start")
        yield LiveServer(base_url, app.state.uow_factory)
    finally:
        server.should_exit = True
        thread.join(10)
