"""A team's iCalendar feed: its rounds with their start, lineup deadlines and Armageddon nominations.

Each event has a stable UID (``round-<id>-team-<id>@<host>``), so a calendar that subscribes to the feed
updates events instead of adding copies. Times are in the event's time zone (TZID, with a VTIMEZONE)
when the event has one other than UTC, else in UTC.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from icalendar import Calendar
from icalendar import Event as VEvent

from orchestrator.adapters.tables import Event, EventStatus, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.errors import NotFound
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.notify.compose import zone_of
from orchestrator.services.notify.triggers import round_name
from orchestrator.services.teams.lineups import effective_deadline
from orchestrator.translation import gettext as _

ROUND_LENGTH = timedelta(hours=2)  # a calendar entry needs an end; the round's games rarely take longer
REMINDER_LENGTH = timedelta(minutes=15)


def _local(at: datetime, zone: ZoneInfo) -> datetime:
    return at.astimezone(zone)


def team_calendar(uow: UnitOfWork, *, team_id: int, base_url: str) -> bytes:
    """The feed of ``team_id`` (404 for an unknown team or one of an event not yet published)."""
    team = uow.teams.get(Team, team_id)
    event = uow.events.get(Event, team.event_id) if team is not None else None
    if team is None or event is None or event.status == EventStatus.DRAFT.value:
        raise NotFound(_("no published team %(id)s") % {"id": team_id})
    return _feed(uow, event, team, base_url)


def _feed(uow: UnitOfWork, event: Event, team: Team, base_url: str) -> bytes:
    definition = definition_or_none(event)
    zone = zone_of(definition.timezone if definition else None)
    host = urlsplit(base_url).hostname or "localhost"
    base = base_url.rstrip("/")
    cal = Calendar()
    cal.add("prodid", "-//olympiad-orchestrator//team feed//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", f"{team.name} – {event.name}")
    stamp = utcnow()
    names = {t.id: t.name for t in uow.teams.teams_of_event(event.id or 0)}
    for match, rnd, stage in uow.rounds.team_schedule(team.id or 0):
        if rnd.scheduled_at is None:
            continue
        opponent_id = match.second_team_id if match.first_team_id == team.id else match.first_team_id
        opponent = names.get(opponent_id, "?")
        entry = VEvent()
        entry.add("uid", f"round-{rnd.id}-match-{match.id}-team-{team.id}@{host}")
        entry.add("dtstamp", stamp)
        entry.add("summary", f"{stage.name}, {round_name(rnd)}: {team.name} v {opponent}")
        entry.add("dtstart", _local(rnd.scheduled_at, zone))
        entry.add("dtend", _local(rnd.scheduled_at + ROUND_LENGTH, zone))
        entry.add("url", f"{base}/events/{event.slug}/matches/{match.id}")
        cal.add_component(entry)
        deadline = effective_deadline(rnd)
        if deadline is not None:
            due = VEvent()
            due.add("uid", f"lineup-{match.id}-team-{team.id}@{host}")
            due.add("dtstamp", stamp)
            due.add("summary", f"Lineup deadline: {stage.name}, {round_name(rnd)} v {opponent}")
            due.add("dtstart", _local(deadline - REMINDER_LENGTH, zone))
            due.add("dtend", _local(deadline, zone))
            due.add("url", f"{base}/captain/matches/{match.id}/lineup")
            cal.add_component(due)
    for arm, duel in uow.playoff.team_armageddons(team.id or 0):
        if arm.deadline_at is None:
            continue
        nomination = VEvent()
        nomination.add("uid", f"armageddon-{arm.id}-team-{team.id}@{host}")
        nomination.add("dtstamp", stamp)
        nomination.add("summary", f"Armageddon nomination deadline: {duel.round_name} ({duel.key})")
        nomination.add("dtstart", _local(arm.deadline_at - REMINDER_LENGTH, zone))
        nomination.add("dtend", _local(arm.deadline_at, zone))
        nomination.add("url", f"{base}/captain/duels/{duel.id}/armageddon")
        cal.add_component(nomination)
    if zone.key != "UTC":
        cal.add_missing_timezones()
    return cal.to_ical()
