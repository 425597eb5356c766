"""The real application under uvicorn on a free local port, for tests that talk to it over HTTP."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from orchestrator.adapters.uow import UnitOfWorkFactory


@dataclass
class LiveServer:
    base_url: str
    uow_factory: UnitOfWorkFactory


@contextmanager
def serving(app: FastAPI, port: int, *, lifespan: Literal["auto", "on", "off"] = "on") -> Iterator[str]:
    """Run ``app`` on 127.0.0.1:``port`` in a thread until the block ends; yields its base URL once
    /healthz answers 200."""
    base_url = f"http://127.0.0.1:{port}"
    # A page's live stream (SSE) stays open until its browser goes: as `olympiad serve` does, give open
    # responses a short while to end and then cancel them, rather than uvicorn's unbounded wait (which
    # the join below cut at 10 s, after every browser test).
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
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
        yield base_url
    finally:
        server.should_exit = True
        thread.join(10)
