"""End-to-end fixtures: the real application served by uvicorn on a free local port (SQLite in a tmp dir),
a headless Chromium for the browser tests (tests/support/server.py, tests/support/browser.py), and a demo
event played to its champion, still served with its stand-in game server (tests/support/demo_served.py),
and the full Olympiad 2026 with one round played (tests/support/full_2026_served.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from orchestrator.config import Settings
from orchestrator.ports import free_port
from orchestrator.web.app import create_app
from tests.support.browser import chromium
from tests.support.databases import schema_at_head
from tests.support.demo_served import FinishedDemo, finished_demo
from tests.support.full_2026 import Full2026
from tests.support.full_2026_served import served_full_2026
from tests.support.server import LiveServer, serving

__all__ = ["LiveServer"]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir: Path = tmp_path_factory.mktemp("e2e")
    port = free_port()
    settings = Settings(data_dir=data_dir, environment="test", public_base_url=f"http://127.0.0.1:{port}")
    schema_at_head(settings.sqlalchemy_url)  # a copy of the migrated file: the start-up finds it at head
    app = create_app(settings)
    with serving(app, port) as base_url:
        yield LiveServer(base_url, app.state.uow_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(scope="session")
def demo_event(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FinishedDemo]:
    """The small play-off demo, finished (played once for the session: about twenty seconds)."""
    with finished_demo(tmp_path_factory.mktemp("demo")) as demo:
        yield demo


@pytest.fixture(scope="session")
def full_2026(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Full2026]]:
    """The full 2026 event served by uvicorn, stored once for the session (full_2026_served.py)."""
    yield from served_full_2026(tmp_path_factory.mktemp("full-2026"))
