"""The full Olympiad 2026 (tests/support/full_2026.py) served by uvicorn for the browser tests: stored
once per test session by the ``full_2026`` fixture of tests/e2e/conftest.py, one round played in each
section and the next paired and published."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from orchestrator.config import Settings
from orchestrator.ports import free_port
from orchestrator.web.app import create_app
from tests.support.full_2026 import Full2026, store_full_2026
from tests.support.server import LiveServer, serving


def served_full_2026(data_dir: Path) -> Iterator[tuple[LiveServer, Full2026]]:
    """The event served from a database in ``data_dir``, for a session fixture to yield from."""
    port = free_port()
    settings = Settings(data_dir=data_dir, environment="test", public_base_url=f"http://127.0.0.1:{port}")
    app = create_app(settings)
    with serving(app, port) as base_url:
        event = store_full_2026(app.state.uow_factory, played=1)
        yield LiveServer(base_url, app.state.uow_factory), event


def pages_2026(event: Full2026) -> dict[str, str]:
    """The four spectator pages of the 2026 event checked in a browser, by the name of their screenshot."""
    base = f"/events/{event.slug}"
    return {
        "olympiad-event": base,
        "olympiad-swiss": f"{base}/stages/open",
        "combined": f"{base}/combined",
        "board-prizes": f"{base}/stages/open/board-prizes",
    }
