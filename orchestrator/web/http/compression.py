"""Compressed answers for the public page cache (web/http/page_cache.py, docs/caching.md "Compression").

A kept page is compressed once per encoding the readers ask for (gzip; brotli when the client accepts it
and the optional ``brotli`` package is installed: ``pip install .[brotli]``), and the compressed bytes are
kept beside the plain ones: a page read by a thousand spectators is compressed once, not a thousand
times. Every compressible answer says ``Vary: Accept-Encoding``, so that a shared proxy does not give a
compressed copy to a client that cannot read it. Each encoding has its own strong ETag (the plain one
with ``-gzip`` or ``-br`` before the closing quote, RFC 9110 8.8.3.3); a client revalidating a copy of any
form gets 304 (each form is the same page).

``CompressAnswers`` does the same, per request, for the answers the cache does not keep (docs/caching.md,
"Compression").
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from types import ModuleType

from starlette.types import ASGIApp, Message, Receive, Scope, Send

try:  # optional (MIT licence): brotli is sent only when it is installed
    import brotli as _brotli

    BROTLI: ModuleType | None = _brotli
except ImportError:  # pragma: no cover - depends on the installation
    BROTLI = None

CODINGS = ("", "gzip", "br")  # the forms of a kept answer: plain, gzip, brotli
MIN_BYTES = 512  # smaller answers are sent as they are: the headers would weigh more than the saving
GZIP_LEVEL = 6
BROTLI_QUALITY = 6  # ~gzip's speed with a smaller result; 11 costs seconds on a large page
_TYPES = (b"text/", b"application/json", b"application/javascript", b"image/svg+xml")

Headers = tuple[tuple[bytes, bytes], ...]


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def accepted(header: str | None, *, brotli: bool = BROTLI is not None) -> str:
    """The encoding to send for an ``Accept-Encoding`` header (RFC 9110 12.5.3): ``"br"`` (when
    ``brotli``), else ``"gzip"``, else ``""`` (the plain bytes). A coding with ``q=0`` is refused;
    ``*`` stands for any coding not named."""
    if not header:
        return ""
    weights: dict[str, float] = {}
    for part in header.split(","):
        name, _sep, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if name.strip():
            weights[name.strip().lower()] = weight
    star = weights.get("*", 0.0)
    for coding in ("br", "gzip") if brotli else ("gzip",):
        if weights.get(coding, star) > 0:
            return coding
    return ""


def compressible(headers: Headers, body: bytes) -> bool:
    """Whether an answer is worth compressing: text or JSON, not encoded already, not tiny."""
    kind = (_header(headers, b"content-type") or b"").lower()
    return (
        len(body) >= MIN_BYTES and kind.startswith(_TYPES) and _header(headers, b"content-encoding") is None
    )


def compress(body: bytes, coding: str) -> bytes:
    """``body`` in ``coding`` (``"gzip"`` or ``"br"``); the same bytes each time (no time stamp)."""
    if coding == "br" and BROTLI is not None:
        return bytes(BROTLI.compress(body, quality=BROTLI_QUALITY))
    if coding == "gzip":
        return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    raise ValueError(f"unknown coding {coding!r}")


def etag_for(etag: str, coding: str) -> str:
    """The ETag of the ``coding`` form of an answer whose plain ETag is ``etag``."""
    if not coding:
        return etag
    weak, tag = ("W/", etag[2:]) if etag.startswith("W/") else ("", etag)
    return f'{weak}{tag[:-1]}-{coding}"' if tag.endswith('"') else f"{weak}{tag}-{coding}"


def with_vary(headers: Headers) -> Headers:
    """``headers`` with ``Accept-Encoding`` added to their ``Vary`` (once)."""
    vary = _header(headers, b"vary")
    if vary is not None and b"accept-encoding" in vary.lower():
        return headers
    if vary is None:
        return (*headers, (b"vary", b"Accept-Encoding"))
    return tuple((k, v + b", Accept-Encoding") if k.lower() == b"vary" else (k, v) for k, v in headers)


def encoded_headers(headers: Headers, coding: str, length: int, etag: str) -> Headers:
    """The headers of the ``coding`` form: its length, encoding and ETag in place of the plain ones."""
    dropped = (b"content-length", b"content-encoding", b"etag")
    kept = tuple((k, v) for k, v in headers if k.lower() not in dropped)
    extra = [(b"content-length", str(length).encode()), (b"etag", etag.encode("latin-1"))]
    if coding:
        extra.append((b"content-encoding", coding.encode()))
    return (*kept, *extra)


# Never compressed by ``CompressAnswers``: the live stream is read message by message as it comes.
_STREAMED = (b"text/event-stream",)


def _plain_tags(if_none_match: bytes) -> bytes:
    """``If-None-Match`` with the plain form of each tag of a compressed form added (``"x-gzip"`` also
    as ``"x"``): a route compares the plain ETag, and each form is the same page."""
    tags = [t.strip() for t in if_none_match.split(b",")]
    extra = []
    for tag in tags:
        for coding in (b"gzip", b"br"):
            suffix = b"-" + coding + b'"'
            if tag.endswith(suffix):
                extra.append(tag[: -len(suffix)] + b'"')
    return b", ".join((*tags, *extra))


class CompressAnswers:
    """Pure ASGI middleware in front of the page cache: compresses the answers the cache does not keep (a
    logged-in visitor's page, staff pages, ``/static/`` files, the API's answers to a session) for a client
    whose ``Accept-Encoding`` allows it, with the same codecs, threshold, ``Vary`` and coded ETag as the
    kept pages (module docstring). An answer already encoded (the cache's own compressed copy) passes
    untouched, so nothing is compressed twice; so do the live stream, a ``HEAD``, any status but 200, and
    answers under ``MIN_BYTES`` or of a type not worth it (``compressible``). The answer is gathered whole
    before it is compressed: every answer of this application that is compressible is a page, a document
    or a small file."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        raw: bytes | None = None
        if_none_match: bytes | None = None
        for name, value in scope.get("headers", ()):
            if name == b"accept-encoding":
                raw = value if raw is None else raw + b", " + value
            elif name == b"if-none-match":
                if_none_match = value
        coding = accepted(raw.decode("latin-1") if raw is not None else None)
        if not coding:
            await self.app(scope, receive, send)
            return
        if if_none_match is not None and b"-" in if_none_match:
            tags = _plain_tags(if_none_match)
            scope = dict(scope)
            scope["headers"] = [(k, tags if k == b"if-none-match" else v) for k, v in scope["headers"]]
        await self.app(scope, receive, _Compressing(send, coding))


class _Compressing:
    """The ``send`` of one answer: passes it on, or gathers it and sends it compressed in ``coding``."""

    def __init__(self, send: Send, coding: str) -> None:
        self.send = send
        self.coding = coding
        self.start: Message | None = None  # held while the body is gathered
        self.body = bytearray()

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = tuple(message.get("headers", ()))
            kind = (_header(headers, b"content-type") or b"").lower()
            length = _header(headers, b"content-length")
            if (
                message["status"] == 200
                and kind.startswith(_TYPES)
                and not kind.startswith(_STREAMED)
                and _header(headers, b"content-encoding") is None
                and not (length is not None and length.isdigit() and int(length) < MIN_BYTES)
            ):
                self.start = message
                return
        elif message["type"] == "http.response.body" and self.start is not None:
            self.body += message.get("body", b"")
            if not message.get("more_body", False):
                await self._finish(self.start, bytes(self.body))
            return
        await self.send(message)

    async def _finish(self, start: Message, body: bytes) -> None:
        headers: Headers = tuple(start.get("headers", ()))
        if compressible(headers, body):
            etag = (_header(headers, b"etag") or b"").decode("latin-1")
            body = compress(body, self.coding)
            headers = encoded_headers(with_vary(headers), self.coding, len(body), etag_for(etag, self.coding))
            if not etag:
                headers = tuple((k, v) for k, v in headers if k != b"etag")
        await self.send({**start, "headers": list(headers)})
        await self.send({"type": "http.response.body", "body": body})
