"""Public pages and public JSON built once per change: an in-process cache in front of the routes.

A spectator page costs tens of milliseconds to build (read models, standings, templates); at audience
scale most requests ask for a page that has not changed since the last one. A route that builds a
public page calls ``page_built(request, topics)`` with the live topics the page shows (services/live.py).
On an anonymous ``GET`` (no session cookie at all, the cookies read as the application reads them: web/i18n.py
``cookies_of``) ``PageCacheMiddleware`` keeps the answer under its address (scheme, host, path and query)
and the reader's language (web/i18n.py) with the topics and the live sequence read before the build, and
serves it again, without calling the route, while

- none of those topics has been announced since (``live.TopicVersions``), and
- it is younger than ``MAX_AGE_S`` (pages that show time, a deadline or a clock, and changes that no
  service announces, are at most that old).

A request with ``If-None-Match`` equal to the kept page's ETag gets 304 from that check alone. A request
that carries the session cookie (or an Authorization header) never reads nor fills the cache: its page
may show the account, staff links or a CSRF token. An answer that sets a cookie, is marked private, was
built with a session loaded, was rendered in another language than the one the cache read, is not a 200,
or whose route did not call ``page_built`` is passed on as it is (docs/security.md, "The public page
cache"). While one request builds a page, others for the same address wait for it (at most ``WAIT_S``)
instead of building it again; when only the page's age ran out (no topic changed) they are answered the
copy being replaced instead of waiting (``STALE_S``).
A kept text page is sent compressed to a client that accepts it (gzip, or brotli when installed), compressed
once per encoding and kept with the page (web/http/compression.py); every form says ``Vary: Accept-Encoding``.
docs/caching.md describes the design.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from orchestrator.services import live
from orchestrator.web import i18n
from orchestrator.web.http import compression
from orchestrator.web.http.caching import matches

SLOT = "olympiad.page_cache"
MAX_AGE_S = 5.0
MAX_ENTRIES = 2000
MAX_BYTES = 64 * 1024 * 1024  # the bodies kept, all addresses together
WAIT_S = 10.0
# A page whose age ran out but whose topics did not change is served to the requests that arrive while one
# of them builds it again, if it is not older than MAX_AGE_S + STALE_S: no request waits for an age rebuild.
STALE_S = 10.0
_NOT_IN_304 = (b"content-length", b"content-type")

Key = tuple[str, str, str, str, str]  # scheme, host, path, query, the reader's language
Headers = tuple[tuple[bytes, bytes], ...]


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int  # the live sequence read before the build
    topics: tuple[str, ...]
    built_at: float
    headers: Headers
    body: bytes
    etag: str
    # The forms sent, by encoding ("" plain, "gzip", "br"): headers, body, ETag; made on first demand.
    forms: dict[str, tuple[Headers, bytes, str]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.body) + sum(len(body) for coding, (_h, body, _e) in self.forms.items() if coding)


class PageCache:
    """One app's kept pages, with counters for tests and the bench: ``builds`` (public pages built,
    cached or not) and ``hits`` (answers given from the cache, 304 included)."""

    def __init__(
        self,
        versions: live.TopicVersions | None = None,
        *,
        max_age_s: float = MAX_AGE_S,
        max_entries: int = MAX_ENTRIES,
        max_bytes: int = MAX_BYTES,
        stale_s: float = STALE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.versions = versions or live.broadcaster.versions
        self.max_age_s = max_age_s
        self.stale_s = stale_s
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._bytes = 0
        self.clock = clock
        self.hits = 0
        self._builds = 0
        self._lock = threading.Lock()  # builds are counted in the routes' worker threads
        self._entries: OrderedDict[Key, Entry] = OrderedDict()
        self.inflight: dict[Key, asyncio.Event] = {}

    @property
    def builds(self) -> int:
        return self._builds

    def count_build(self) -> None:
        with self._lock:
            self._builds += 1

    def fresh(self, key: Key) -> Entry | None:
        """The kept page at ``key`` if none of its topics changed and it is young enough. A page that is
        only too old stays kept (``stale``) until its rebuild replaces it."""
        entry = self._current(key)
        if entry is None or self.clock() - entry.built_at >= self.max_age_s:
            return None
        self._entries.move_to_end(key)
        return entry

    def stale(self, key: Key) -> Entry | None:
        """The kept page at ``key`` if none of its topics changed, though its age may have run out (by at
        most ``stale_s``): what the requests get while another one builds the page again."""
        entry = self._current(key)
        if entry is None or self.clock() - entry.built_at >= self.max_age_s + self.stale_s:
            return None
        return entry

    def _current(self, key: Key) -> Entry | None:
        entry = self._entries.get(key)
        if entry is not None and self.versions.changed_since(entry.topics, entry.seq):
            self._drop(key)  # a topic changed: never served again
            return None
        return entry

    def forget(self, key: Key) -> None:
        self._drop(key)

    def form(self, key: Key, entry: Entry, coding: str) -> tuple[Headers, bytes, str]:
        """The headers, body and ETag of ``entry`` sent in ``coding`` (``compression.accepted``): made once
        per entry and encoding and kept with it (an answer not worth compressing is sent plain)."""
        if not compression.compressible(entry.headers, entry.body):
            coding = ""
        found = entry.forms.get(coding)
        if found is not None:
            return found
        body = compression.compress(entry.body, coding) if coding else entry.body
        etag = compression.etag_for(entry.etag, coding)
        headers = compression.with_vary(entry.headers)
        if coding or compression.compressible(entry.headers, entry.body):
            headers = compression.encoded_headers(headers, coding, len(body), etag)
        made = entry.forms[coding] = (headers, body, etag)
        if coding and self._entries.get(key) is entry:
            self._bytes += len(body)
            self._trim()
        return made

    def keep(self, key: Key, entry: Entry) -> None:
        """Keep ``entry``; the least recently used go when there are too many or they weigh too much."""
        if entry.size > self.max_bytes:
            return
        self._drop(key)
        self._entries[key] = entry
        self._bytes += entry.size
        self._trim()

    def _trim(self) -> None:
        while self._entries and (len(self._entries) > self.max_entries or self._bytes > self.max_bytes):
            self._drop(next(iter(self._entries)))

    def _drop(self, key: Key) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._bytes -= entry.size

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(slots=True)
class _Slot:
    """Put in the request's scope by the middleware; ``page_built`` fills in the topics."""

    topics: tuple[str, ...] | None = None


def page_built(request: Request, topics: Iterable[str]) -> None:
    """A public page (or public JSON) was built from what ``topics`` announce: count it and, on an
    anonymous request, let the cache keep it until one of them changes."""
    store = getattr(request.app.state, "page_cache", None)
    if isinstance(store, PageCache):
        store.count_build()
    slot = request.scope.get(SLOT)
    if isinstance(slot, _Slot):
        slot.topics = tuple(topics)


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


# The request headers the cache looks at; the server gives header names in lower case (ASGI).
_LOOKED_AT = frozenset(
    (
        b"host",
        b"cookie",
        b"authorization",
        b"accept",
        b"accept-language",
        b"accept-encoding",
        b"if-none-match",
    )
)


def _looked_at(scope: Scope) -> dict[bytes, bytes]:
    """The headers of ``_LOOKED_AT`` in one pass over the request's (every page served from the cache reads
    them): a repeated header's first value, except cookies, which are joined."""
    found: dict[bytes, bytes] = {}
    for name, value in scope.get("headers", ()):
        if name in _LOOKED_AT:
            if name == b"cookie" and name in found:
                found[name] += b"; " + value
            else:
                found.setdefault(name, value)
    return found


def _key(scope: Scope, heads: dict[bytes, bytes], cookies: dict[str, str]) -> Key:
    query = scope.get("query_string", b"")
    # The pages are in the reader's language; the API's JSON is the same for everyone.
    api = scope["path"].startswith("/api/")
    lang = ""
    if not api:
        # The same reading of the cookies as the application's (web/i18n.py ``language_of_headers``).
        accept_language = heads.get(b"accept-language")
        lang = i18n.choose(
            cookies.get(i18n.LANG_COOKIE), accept_language.decode("latin-1") if accept_language else None
        )
    host = heads.get(b"host", b"").decode("latin-1")
    return (scope.get("scheme", "http"), host, scope["path"], query.decode("latin-1"), lang)


def _keepable(scope: Scope, key: Key) -> bool:
    """Whether the answer to the request whose inner ``scope`` the application filled in may be kept: not if
    the request loaded a session (the page may show the account or a CSRF token, whatever the cache made of
    the cookies) nor if the page was rendered in another language than the key's."""
    if scope.get("session"):
        return False
    rendered = scope.get(i18n.RENDERED)
    return rendered is None or rendered == key[4]


async def _send_304(send: Send, headers: Iterable[tuple[bytes, bytes]]) -> None:
    kept = [(k, v) for k, v in headers if k.lower() not in _NOT_IN_304]
    await send({"type": "http.response.start", "status": 304, "headers": kept})
    await send({"type": "http.response.body", "body": b""})


@dataclass(frozen=True, slots=True)
class _Ask:
    """What a request asks of a kept page: its copy's ETags and the encoding it reads."""

    if_none_match: str | None
    coding: str


async def _send_entry(send: Send, store: PageCache, key: Key, entry: Entry, ask: _Ask) -> None:
    headers, body, _etag = store.form(key, entry, ask.coding)
    # The client's copy may be any form of the page (plain, gzip or br): each is the same page.
    if ask.if_none_match and any(
        matches(ask.if_none_match, compression.etag_for(entry.etag, coding)) for coding in compression.CODINGS
    ):
        await _send_304(send, headers)
        return
    await send({"type": "http.response.start", "status": 200, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})


class _Capture:
    """The route's answer: kept whole when cacheable, else passed on (as 304 when the client's copy,
    whose If-None-Match the route did not see, is current)."""

    def __init__(
        self, send: Send, slot: _Slot, if_none_match: str | None, keepable: Callable[[], bool]
    ) -> None:
        self.send = send
        self.slot = slot
        self.keepable = keepable
        self.if_none_match = if_none_match
        self.mode = ""
        self.headers: tuple[tuple[bytes, bytes], ...] = ()
        self.etag = ""
        self.body = bytearray()
        self.complete = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            await self._start(message)
        elif message["type"] != "http.response.body" or self.mode == "pass":
            await self.send(message)
        elif self.mode == "304":
            if not message.get("more_body", False):
                await self.send({"type": "http.response.body", "body": b""})
        else:
            self.body += message.get("body", b"")
            self.complete = not message.get("more_body", False)

    async def _start(self, message: Message) -> None:
        headers = tuple(message.get("headers", []))
        etag = (_header(headers, b"etag") or b"").decode("latin-1")
        ok = message["status"] == 200 and bool(etag)
        if (
            ok
            and self.slot.topics is not None
            and _header(headers, b"set-cookie") is None
            and b"private" not in (_header(headers, b"cache-control") or b"")
            and self.keepable()
        ):
            self.mode, self.headers, self.etag = "keep", headers, etag
        elif ok and self.if_none_match and matches(self.if_none_match, etag):
            self.mode = "304"
            kept = [(k, v) for k, v in headers if k.lower() not in _NOT_IN_304]
            await self.send({"type": "http.response.start", "status": 304, "headers": kept})
        else:
            self.mode = "pass"
            await self.send(message)


class PageCacheMiddleware:
    """Pure ASGI middleware (streamed answers such as server-sent events pass through untouched)."""

    def __init__(self, app: ASGIApp, *, store: PageCache, session_cookie: str) -> None:
        self.app = app
        self.store = store
        self.session_cookie = session_cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        heads = _looked_at(scope)
        # The cookies as the application reads them (a space before "=", quotes, a repeated name...).
        cookie_header = heads.get(b"cookie")
        cookies = i18n.cookies_of(((b"cookie", cookie_header),)) if cookie_header is not None else {}
        if (
            scope["path"].startswith("/static/")  # files answer If-None-Match themselves
            or self.session_cookie in cookies
            or b"authorization" in heads
            # A live stream (EventSource sends this) is never kept, and a second subscriber to the same
            # address must not wait for the first one's stream to end as for a page being built.
            or b"text/event-stream" in heads.get(b"accept", b"")
        ):
            await self.app(scope, receive, send)
            return
        key = _key(scope, heads, cookies)
        raw = heads.get(b"if-none-match")
        if_none_match = raw.decode("latin-1") if raw is not None else None
        encodings = heads.get(b"accept-encoding")
        ask = _Ask(if_none_match, compression.accepted(encodings.decode("latin-1") if encodings else None))
        entry = self.store.fresh(key)
        building = self.store.inflight.get(key)
        if entry is None and building is not None:  # another request is building this page
            entry = self.store.stale(key)  # only its age ran out: the copy it replaces, meanwhile
            if entry is None:  # a topic changed (or nothing is kept): wait for the new page
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(building.wait(), WAIT_S)
                entry = self.store.fresh(key)
        if entry is not None:
            self.store.hits += 1
            await _send_entry(send, self.store, key, entry, ask)
            return
        await self._build(scope, receive, send, key, ask)

    async def _build(self, scope: Scope, receive: Receive, send: Send, key: Key, ask: _Ask) -> None:
        seq = self.store.versions.seq  # before the route reads the database
        done = asyncio.Event()
        leader = key not in self.store.inflight
        if leader:
            self.store.inflight[key] = done
        slot = _Slot()
        inner = dict(scope)
        inner[SLOT] = slot
        # The route answers in full so that the page can be kept; the 304 is decided here.
        inner["headers"] = [(k, v) for k, v in scope.get("headers", []) if k != b"if-none-match"]
        capture = _Capture(send, slot, ask.if_none_match, lambda: _keepable(inner, key))
        try:
            await self.app(inner, receive, capture)
            entry = None
            if capture.mode == "keep":
                body, topics = bytes(capture.body), slot.topics or ()
                entry = Entry(seq, topics, self.store.clock(), capture.headers, body, capture.etag)
                if capture.complete:
                    self.store.keep(key, entry)  # before the waiting requests wake up
            if leader and (entry is None or not capture.complete):
                self.store.forget(key)  # no longer kept: an older copy must not be served meanwhile
        finally:
            if leader:
                self.store.inflight.pop(key, None)
                done.set()
        if entry is not None:
            await _send_entry(send, self.store, key, entry, ask)
