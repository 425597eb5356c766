"""Times for people (services/times.py): the event's zone with its name, the reader's beside it when
it differs, local form times read in the event's zone, across daylight-saving changes.

Europe/Oslo: CET = UTC+1 in winter, CEST = UTC+2 in summer; in 2024 the clocks went forward on 31 March at
01:00 UTC (02:00 local became 03:00) and back on 27 October at 01:00 UTC (03:00 local became 02:00).
America/New_York: EDT = UTC-4 from 10 March 2024.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from orchestrator import translation
from orchestrator.errors import ValidationFailed
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services import times
from tests.support.factories import SMALL_EVENT


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_a_winter_moment_is_shown_in_cet_with_the_zone_name() -> None:
    # 00:30 UTC + 1 h (CET, before the 01:00 UTC change) = 01:30
    shown = times.moment_text(at("2024-03-31 00:30"), "Europe/Oslo")
    assert shown.event_text == "2024-03-31 01:30 CET (Europe/Oslo)"
    assert shown.reader_text is None and shown.iso == "2024-03-31T00:30:00+00:00"


def test_the_hour_after_spring_forward_is_shown_in_cest() -> None:
    # 01:30 UTC is after the change: + 2 h (CEST) = 03:30; 02:30 local never happened that night
    assert times.moment_text(at("2024-03-31 01:30"), "Europe/Oslo").event_text == (
        "2024-03-31 03:30 CEST (Europe/Oslo)"
    )


def test_the_readers_zone_is_shown_beside_with_its_own_date() -> None:
    # 01:30 UTC - 4 h (EDT) = 21:30 the day before
    shown = times.moment_text(at("2024-03-31 01:30"), "Europe/Oslo", "America/New_York")
    assert shown.reader_text == "2024-03-30 21:30 EDT (America/New_York)"


def test_a_reader_on_the_same_clock_or_with_an_unknown_zone_sees_the_event_zone_only() -> None:
    moment = at("2024-07-01 10:00")
    assert times.moment_text(moment, "Europe/Oslo", "Europe/Berlin").reader_text is None  # both UTC+2
    assert times.moment_text(moment, "Europe/Oslo", "Mars/Olympus").reader_text is None
    assert times.moment_text(moment, "Europe/Oslo", None).reader_text is None


def test_utc_events_and_naive_moments() -> None:
    assert times.moment_text(datetime(2024, 7, 1, 10, 0), "UTC").event_text == "2024-07-01 10:00 UTC"
    # an unknown event zone falls back to UTC rather than failing a page
    assert times.moment_text(at("2024-07-01 10:00"), "Nowhere/Land").event_text == "2024-07-01 10:00 UTC"


def test_a_local_form_time_is_read_in_the_events_zone_summer_and_winter() -> None:
    # 10:00 CEST - 2 h = 08:00 UTC; 10:00 CET - 1 h = 09:00 UTC
    assert times.local_to_utc("2024-06-01T10:00", "Europe/Oslo") == at("2024-06-01 08:00")
    assert times.local_to_utc("2024-12-01 10:00", "Europe/Oslo") == at("2024-12-01 09:00")


def test_a_local_time_the_clocks_skip_is_refused() -> None:
    with pytest.raises(ValidationFailed) as refused:
        times.local_to_utc("2024-03-31T02:30", "Europe/Oslo", field="Deadline")
    assert "does not exist in Europe/Oslo" in refused.value.problems[0]


def test_a_local_time_that_happens_twice_is_the_first_of_the_two() -> None:
    # 02:30 on 27 October happens in CEST (00:30 UTC) and again in CET (01:30 UTC): the first is taken
    assert times.local_to_utc("2024-10-27T02:30", "Europe/Oslo") == at("2024-10-27 00:30")


def test_bad_form_times_are_refused_with_the_zone_named() -> None:
    for text in ("tomorrow", "", "2024-06-01T10:00+02:00"):
        with pytest.raises(ValidationFailed) as refused:
            times.local_to_utc(text, "Europe/Oslo")
        assert "Europe/Oslo" in refused.value.problems[0], text


def test_a_form_field_shows_the_stored_moment_as_local_time() -> None:
    assert times.local_input(at("2024-06-01 08:00"), "Europe/Oslo") == "2024-06-01T10:00"
    assert times.local_input(None, "Europe/Oslo") == ""
    assert times.local_to_utc(times.local_input(at("2024-12-01 09:00"), "Europe/Oslo"), "Europe/Oslo") == (
        at("2024-12-01 09:00")
    )


def test_the_event_file_refuses_a_time_zone_that_is_not_an_iana_zone() -> None:
    assert parse_event(SMALL_EVENT, source="small.yaml").timezone == "Europe/Oslo"
    with pytest.raises(EventDefinitionError) as refused:
        parse_event(SMALL_EVENT.replace("timezone: Europe/Oslo", "timezone: Oslo/Time"), source="small.yaml")
    assert any("not an IANA time zone" in str(p) for p in refused.value.problems)


def test_a_time_inside_a_message_is_in_the_event_zone_and_the_readers_language() -> None:
    moment = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
    assert times.said(moment, "Asia/Samarkand") == "4 Dec 2026, 14:00 +05 (Asia/Samarkand)"
    assert times.said(moment, None) == "4 Dec 2026, 09:00 UTC"
    with translation.speaking("pt"):
        assert times.said(moment, "Europe/Oslo") == "4 dez. 2026, 10:00 CET (Europe/Oslo)"
