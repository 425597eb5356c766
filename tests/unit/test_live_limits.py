"""Live streams (server-sent events) per client address are capped (web/http/sse.py, docs/security.md
"Live streams")."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.requests import Request

from orchestrator.config import Settings
from orchestrator.errors import ServiceError
from orchestrator.web.http.sse import event_stream


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, environment="test", live_max_streams_per_ip=2)


def request_from(app: FastAPI, address: str) -> Request:
    scope = {"type": "http", "method": "GET", "path": "/x", "headers": [], "app": app, "client": (address, 1)}
    return Request(scope)


def test_a_third_live_stream_from_one_address_is_a_429_while_another_address_still_gets_one(
    app: FastAPI,
) -> None:
    topics = frozenset({"event:x"})
    first = event_stream(topics, request_from(app, "203.0.113.9"))
    second = event_stream(topics, request_from(app, "203.0.113.9"))
    with pytest.raises(ServiceError) as refused:
        event_stream(topics, request_from(app, "203.0.113.9"))
    assert refused.value.status_code == 429
    assert event_stream(topics, request_from(app, "198.51.100.1")) is not None

    async def run_one_and_end_it() -> None:
        iterator = first.body_iterator
        await iterator.__anext__()  # type: ignore[union-attr]
        await iterator.aclose()  # type: ignore[union-attr]

    asyncio.run(run_one_and_end_it())
    assert event_stream(topics, request_from(app, "203.0.113.9")) is not None  # the ended one's slot
    del second
    gc.collect()  # a stream never started frees its slot too
    assert event_stream(topics, request_from(app, "203.0.113.9")) is not None
