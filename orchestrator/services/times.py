"""Times for people: every stored moment is UTC; pages show it in the event's time zone with the zone's
name, and the reader's own zone beside it when it differs (docs/staff-guide.md, "Times and time zones").
Forms take local times in the event's zone; ``local_to_utc`` reads them.

Pure functions over ``zoneinfo``; the web layer's Jinja filter (web/timefmt.py) calls ``moment_text``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orchestrator import translation
from orchestrator.errors import ValidationFailed
from orchestrator.translation import gettext as _

LOCAL_INPUT = "%Y-%m-%dT%H:%M"  # what <input type="datetime-local"> sends and shows


def zone_or_none(name: str | None) -> ZoneInfo | None:
    """The IANA zone ``name``, or None for an empty or unknown name (a cookie may hold anything)."""
    if not name or len(name) > 64:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def zone(name: str | None) -> tzinfo:
    """The IANA zone ``name``; UTC when it is missing or unknown."""
    return zone_or_none(name) or UTC


@dataclass(frozen=True, slots=True)
class Moment:
    """One moment as shown: in the event's zone and, when it differs, in the reader's."""

    event_text: str  # "2024-03-31 03:30 CEST (Europe/Oslo)"
    reader_text: str | None  # "2024-03-30 21:30 EDT (America/New_York)", None when the zones agree
    iso: str  # the UTC instant, for <time datetime="...">


def _suffix(local: datetime, zone_name: str) -> str:
    abbreviation = local.tzname() or zone_name
    name = zone_name if zone_or_none(zone_name) else "UTC"
    return abbreviation if abbreviation == name else f"{abbreviation} ({name})"


def _text(moment: datetime, zone_name: str) -> str:
    local = moment.astimezone(zone(zone_name))
    return f"{local:%Y-%m-%d %H:%M} {_suffix(local, zone_name)}"


def in_zone(moment: datetime, zone_name: str | None) -> datetime:
    """``moment`` (a naive one is taken as UTC) as wall-clock time in ``zone_name`` (UTC if unknown)."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(zone(zone_name))


def zone_suffix(local: datetime, zone_name: str | None) -> str:
    """What follows a time in ``zone_name``: "CEST (Europe/Oslo)", "+05 (Asia/Samarkand)", "UTC"."""
    return _suffix(local, zone_name if zone_name and zone_or_none(zone_name) else "UTC")


def moment_text(moment: datetime, event_zone: str | None, reader_zone: str | None = None) -> Moment:
    """``moment`` (aware; a naive one is taken as UTC) in the event's zone and the reader's.

    The reader's line is left out when the reader's zone is unknown or shows the same wall-clock time
    with the same offset (e.g. Europe/Oslo and Europe/Berlin), so a page does not repeat itself.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    event_name = event_zone if event_zone and zone_or_none(event_zone) else "UTC"
    shown = _text(moment, event_name)
    reader = None
    if reader_zone and zone_or_none(reader_zone) and reader_zone != event_name:
        here = moment.astimezone(zone(event_name))
        there = moment.astimezone(zone(reader_zone))
        if here.utcoffset() != there.utcoffset():
            reader = _text(moment, reader_zone)
    return Moment(shown, reader, moment.astimezone(UTC).isoformat())


def said(moment: datetime, event_zone: str | None) -> str:
    """``moment`` inside a message (an error, a conflict, an e-mail line): the date and time as the
    current language writes them, in the event's zone, with the zone's name (``sex. 4 dez. 2026, 14:00
    +05 (Asia/Samarkand)``). Messages name times this way, never in bare UTC."""
    local = in_zone(moment, event_zone)
    return f"{translation.date_text(local, with_day=False)} {zone_suffix(local, event_zone)}"


def local_input(moment: datetime | None, event_zone: str | None) -> str:
    """A stored moment as a form field's value: local time in the event's zone (``2024-03-02T11:00``)."""
    if moment is None:
        return ""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(zone(event_zone)).strftime(LOCAL_INPUT)


def local_to_utc(text: str, event_zone: str | None, *, field: str = "time") -> datetime:
    """A form's local time in the event's zone (``2024-03-02T11:00`` or ``2024-03-02 11:00``) as UTC.

    A time the clocks skip (spring forward) is refused; a time that happens twice (fall back) is the
    first of the two, as ``zoneinfo``'s ``fold=0`` reads it, and the page says which offset it used.
    """
    name = event_zone if zone_or_none(event_zone) else "UTC"
    try:
        naive = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValidationFailed(
            [
                _("%(field)s: %(text)r is not a date and time such as 2024-03-02 11:00 (%(zone)s time)")
                % {"field": field, "text": text.strip(), "zone": name}
            ]
        ) from None
    if naive.tzinfo is not None:
        raise ValidationFailed(
            [
                _("%(field)s: give the local time in %(zone)s without a UTC offset")
                % {
                    "field": field,
                    "zone": name,
                }
            ]
        )
    local = naive.replace(tzinfo=zone(name))
    back = local.astimezone(UTC).astimezone(zone(name))
    if back.replace(tzinfo=None) != naive:
        raise ValidationFailed(
            [
                _("%(field)s: %(time)s does not exist in %(zone)s (the clocks skip it); choose another time")
                % {"field": field, "time": f"{naive:%Y-%m-%d %H:%M}", "zone": name}
            ]
        )
    return local.astimezone(UTC)
