"""Times on pages, in one place: the ``when`` Jinja filter shows a stored UTC moment in the event's zone
with the zone's name, and the reader's own zone beside it when it differs; ``local_input`` fills a
``datetime-local`` field in the event's zone (services/times.py does the arithmetic).

The event's zone comes from the page's staff navigation (web/staff_nav.py) or an ``event_zone`` the route
passes; the reader's from the ``tz`` cookie that the optional static/tz.js sets. Without JavaScript (no
cookie) a page shows the event's zone only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any
from urllib.parse import unquote

from fastapi import Request
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from orchestrator.services import times
from orchestrator.web.i18n import date_text, gettext

TZ_COOKIE = "tz"
# The event zone of the page being rendered (web/deps.py ``render``): macros imported without the
# template's context (public/_macros.html ``when``) read it through the ``in_event_zone`` filter.
_PAGE_ZONE: ContextVar[str] = ContextVar("page_zone", default="UTC")


def page_zone_of(context: dict[str, Any]) -> str:
    """The zone a page's times are shown in: its staff navigation's event, an ``event_zone`` the route
    passes, or the ``timezone`` of the event its view shows (``view.event``); UTC otherwise."""
    if context.get("staff_nav") is not None or context.get("event_zone"):
        return event_zone_of(context)
    event = getattr(context.get("view"), "event", None)
    return str(getattr(event, "timezone", None) or "UTC")


@contextmanager
def page_zone(name: str) -> Iterator[None]:
    token = _PAGE_ZONE.set(name)
    try:
        yield
    finally:
        _PAGE_ZONE.reset(token)


def reader_zone(request: Request) -> str | None:
    """The reader's IANA zone from the ``tz`` cookie; None when absent or not a zone."""
    name = unquote(request.cookies.get(TZ_COOKIE, ""))
    return name if times.zone_or_none(name) else None


def event_zone_of(context: Context | dict[str, Any]) -> str:
    nav = context.get("staff_nav")
    if nav is not None:
        return str(nav.timezone)
    return str(context.get("event_zone") or "UTC")


@pass_context
def when(context: Context, moment: datetime | None, default: str = "—") -> Markup:
    """``{{ round.scheduled_at | when }}``: ``<time>`` in the event's zone, the reader's zone beside it."""
    if moment is None:
        return Markup(escape(default))
    request = context.get("request")
    reader = reader_zone(request) if request is not None else None
    shown = times.moment_text(moment, event_zone_of(context), reader)
    html = f'<time datetime="{escape(shown.iso)}">{escape(shown.event_text)}</time>'
    if shown.reader_text:
        yours = escape(gettext("(your time %(time)s)")) % {"time": shown.reader_text}
        html += f' <span class="reader-time">{yours}</span>'
    return Markup(html)


@pass_context
def local_input(context: Context, moment: datetime | None) -> str:
    """``value="{{ deadline | local_input }}"``: the moment as local time in the event's zone."""
    return times.local_input(moment, event_zone_of(context))


@pass_context
def zone_name(context: Context, _value: object = None) -> str:
    """The event's zone name, for form labels (``Deadline ({{ none | zone_name }} time)``)."""
    return event_zone_of(context)


def in_event_zone(moment: datetime, with_day: bool = True) -> Markup:
    """``{{ dt | in_event_zone }}``: a public page's ``<time>`` in the event's zone, written as the reader's
    language writes dates. The page is the same for every reader of a language (it is cached,
    docs/caching.md), so the reader's own time is added in the browser by static/tz.js from ``datetime``,
    in the page's language and the same fields (``data-day="0"``: without the weekday)."""
    name = _PAGE_ZONE.get()
    local = times.in_zone(moment, name)
    text = f"{date_text(local, with_day)} {times.zone_suffix(local, name)}"
    iso = times.moment_text(moment, name).iso
    day = "" if with_day else ' data-day="0"'  # static/tz.js writes the reader's time in the same fields
    return Markup(f'<time datetime="{escape(iso)}" data-zone="{escape(name)}"{day}>{escape(text)}</time>')


def install(env: Any) -> None:
    env.filters["in_event_zone"] = in_event_zone
    env.filters["when"] = when
    env.filters["local_input"] = local_input
    env.globals["event_zone_name"] = zone_name
