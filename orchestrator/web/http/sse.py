"""Server-sent events for spectators: ``GET /events/{slug}/live?topic=pool:12&topic=match:34``.

Each page names the topics it follows in its stream's address (``data-live-src``): a handful whatever the
size of the field (the event, the stage, the pool, the round, the section: services/live.py ``to_follow``),
which every change of a match is announced on too; live.js opens this stream and re-reads the page's live
regions when a message arrives. A message carries the topic and a few ids, never anything
secret or sealed (services only announce ids and kinds; this module forwards only those).

Each stream holds a connection and a subscription for as long as the reader stays: one client address may
hold at most ``live_max_streams_per_ip`` at once (a setting); one more is answered 429 (docs/security.md,
"Live streams").
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from sse_starlette.sse import EventSourceResponse

from orchestrator.errors import NotFound, ServiceError, ValidationFailed
from orchestrator.services import live
from orchestrator.translation import gettext as _
from orchestrator.web.auth import allow_public

router = APIRouter(tags=["live"])

TOPIC = re.compile(r"^(event|stage|round|section|pool|match|duel|team):[A-Za-z0-9_-]{1,80}$")
MAX_TOPICS = live.FOLLOW_ALL_MAX  # a page follows at most this many (services/live.py to_follow)
PING_S = 15
_SAFE_KEY = re.compile(r"^(kind|status|[a-z]+_id)$")
_WORD = re.compile(r"[a-z-]{1,32}")


class TooManyStreams(ServiceError):
    status_code = 429


class StreamSlots:
    """The live streams open per client address, in one app (``app.state.live_slots``). Used from the
    event loop only."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}

    def take(self, address: str, cap: int) -> Callable[[], None]:
        """A slot for ``address``, or TooManyStreams; the returned function frees it (once)."""
        if self.open.get(address, 0) >= cap:
            raise TooManyStreams(
                _("Too many live updates open from your address (at most %(count)d): close a page.")
                % {"count": cap}
            )
        self.open[address] = self.open.get(address, 0) + 1
        freed = False

        def free() -> None:
            nonlocal freed
            if freed:
                return
            freed = True
            left = self.open.get(address, 1) - 1
            if left > 0:
                self.open[address] = left
            else:
                self.open.pop(address, None)

        return free


def _slots(request: Request) -> StreamSlots:
    slots = getattr(request.app.state, "live_slots", None)
    if not isinstance(slots, StreamSlots):
        slots = StreamSlots()
        request.app.state.live_slots = slots
    return slots


def safe_payload(message: live.Message) -> dict[str, Any]:
    """What a spectator may see of a message: its topic, its kind and ids (ints), nothing else."""
    payload: dict[str, Any] = {"topic": message.topic}
    for key, value in message.data.items():
        if not _SAFE_KEY.match(key):
            continue
        is_id = isinstance(value, int) and not isinstance(value, bool)
        is_word = isinstance(value, str) and key in ("kind", "status") and _WORD.fullmatch(value)
        if is_id or is_word:
            payload[key] = value
    return payload


def _event_exists(request: Request, slug: str) -> bool:
    with request.app.state.uow_factory() as uow:
        return uow.read.visible_event(slug) is not None


@router.get(
    "/events/{slug}/live",
    dependencies=[allow_public()],
    summary="Live changes of an event (text/event-stream)",
    response_description="A stream of `ready` then `change` events whose data is JSON {topic, kind, *_id}",
)
async def event_live(
    request: Request,
    slug: str,
    topic: list[str] = Query(default=[], description="Topics to follow, e.g. pool:12, match:34"),
) -> EventSourceResponse:
    """Server-sent events for the event's topic and the given ones; pages re-read what changed."""
    bad = [t for t in topic if not TOPIC.match(t)]
    if bad or len(topic) > MAX_TOPICS:
        problems = [_("topic %(topic)r: write kind:id, e.g. pool:12") % {"topic": t} for t in bad[:5]]
        if len(topic) > MAX_TOPICS:
            problems.append(_("at most %(count)d topics") % {"count": MAX_TOPICS})
        raise ValidationFailed(problems)
    if not await run_in_threadpool(_event_exists, request, slug):
        raise NotFound(_("There is no event %(slug)r.") % {"slug": slug})
    return event_stream(frozenset({f"event:{slug}", *topic}), request)


def event_stream(topics: frozenset[str], request: Request) -> EventSourceResponse:
    """A stream of ``ready`` then one ``change`` per message of ``topics`` (also the staff dashboard's);
    429 when the client's address already holds ``live_max_streams_per_ip`` streams."""
    cap = request.app.state.settings.live_max_streams_per_ip
    address = request.client.host if request.client else ""
    free = _slots(request).take(address, cap)

    async def stream() -> AsyncIterator[dict[str, str]]:
        try:
            async with live.broadcaster.subscribe(topics) as queue:
                yield {"event": "ready", "data": json.dumps({"topics": sorted(topics)})}
                while True:
                    message = await queue.get()
                    yield {"event": "change", "data": json.dumps(safe_payload(message))}
        finally:
            free()

    body = stream()
    weakref.finalize(body, free)  # a stream that never started (the client left at once) frees it too
    return EventSourceResponse(
        body, ping=PING_S, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )
