"""An answer the page cache does not keep (a logged-in visitor's page, a static file) is compressed for a
client that reads gzip (web/http/compression.py ``CompressAnswers``), with a coded ETag that revalidates;
the cache's own compressed copy is not compressed twice, and the live stream is never held or compressed."""

from __future__ import annotations

import asyncio
import gzip

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from orchestrator.web.http.compression import CompressAnswers
from tests.support.swiss import pair_publish_play, running_swiss
from tests.support.web import PASSWORD, login

PAGE = "/events/swiss-test-cup/stages/open"
STATIC = "/static/site.css"


@pytest.fixture
def stage_id(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        return running_swiss(uow)


def test_a_logged_in_page_and_a_static_file_are_sent_compressed_when_asked(
    app: FastAPI, stage_id: int
) -> None:
    pair_publish_play(app.state.uow_factory, stage_id)
    staff, _csrf = login(app, "arbiter")
    plain = staff.get(PAGE, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert "no-store" in plain.headers["cache-control"]  # not kept by the page cache
    packed = staff.get(PAGE, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and "Accept-Encoding" in packed.headers["vary"]
    assert packed.text == plain.text  # httpx decodes it: the same page
    assert int(packed.headers["content-length"]) < len(plain.content) // 2
    assert packed.headers["etag"] == plain.headers["etag"][:-1] + '-gzip"'
    # Revalidating the compressed copy: 304, though the route compares its plain ETag.
    again = staff.get(PAGE, headers={"Accept-Encoding": "gzip", "If-None-Match": packed.headers["etag"]})
    assert again.status_code == 304
    anonymous = TestClient(app)
    css = anonymous.get(STATIC, headers={"Accept-Encoding": "identity"})
    css_packed = anonymous.get(STATIC, headers={"Accept-Encoding": "gzip"})
    assert css.status_code == css_packed.status_code == 200 and "content-encoding" not in css.headers
    assert css_packed.headers["content-encoding"] == "gzip" and css_packed.content == css.content
    assert int(css_packed.headers["content-length"]) < len(css.content)


def test_the_kept_page_is_not_compressed_twice(app: FastAPI, stage_id: int) -> None:
    pair_publish_play(app.state.uow_factory, stage_id)
    client = TestClient(app)
    plain = client.get(PAGE, headers={"Accept-Encoding": "identity"})
    for _ in range(2):  # built and kept, then from the cache: one gzip layer each time
        packed = client.get(PAGE, headers={"Accept-Encoding": "gzip"})
        assert packed.headers["content-encoding"] == "gzip" and packed.text == plain.text


def _run(app: ASGIApp, accept: bytes) -> list[Message]:
    """The messages ``CompressAnswers`` in front of ``app`` sends for a GET accepting ``accept``."""
    sent: list[Message] = []
    scope: Scope = {"type": "http", "method": "GET", "path": "/x", "headers": [(b"accept-encoding", accept)]}

    async def receive() -> Message:
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(CompressAnswers(app)(scope, receive, send))
    return sent


def test_an_encoded_answer_passes_untouched_and_the_live_stream_is_not_held() -> None:
    page = b"<p>" + b"a page worth compressing " * 100 + b"</p>"
    packed = gzip.compress(page)

    async def encoded(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"text/html"), (b"content-encoding", b"gzip")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": packed})

    sent = _run(encoded, b"gzip")
    assert sent[1]["body"] == packed  # not compressed again

    seen: list[int] = []

    async def stream(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"text/event-stream; charset=utf-8")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": page, "more_body": True})
        seen.append(len(sent))  # what had gone out when the first message was sent
        await send({"type": "http.response.body", "body": b""})

    sent = _run(stream, b"gzip, br")
    assert seen == [2] and sent[1]["body"] == page  # sent as it came, before the stream ended
    assert all(k != b"content-encoding" for k, _v in sent[0]["headers"])

    async def html(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"text/html; charset=utf-8"), (b"etag", b'"abc"')]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": page[:600], "more_body": True})
        await send({"type": "http.response.body", "body": page[600:]})

    sent = _run(html, b"gzip")
    headers = dict(sent[0]["headers"])
    assert headers[b"content-encoding"] == b"gzip" and headers[b"etag"] == b'"abc-gzip"'
    assert gzip.decompress(sent[1]["body"]) == page
    assert _run(html, b"identity")[1]["body"] == page[:600]  # a client that reads no coding: as it is
