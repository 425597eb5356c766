"""An event file that PyYAML or the checks could not take in stride (found by fuzzing the staff API) is
refused with its problems, on the line where they are, and never ends in a 500 or keeps a request busy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.eventfile import EventDefinitionError, parse_event
from tests.support.factories import SMALL_EVENT
from tests.support.web import login, owner_app


def edit(old: str, new: str) -> str:
    assert old in SMALL_EVENT
    return SMALL_EVENT.replace(old, new, 1)


# (the file, a fragment of the problem it must be refused with)
HOSTILE = {
    "an int tag on a word": (edit("pool_count: 1", "pool_count: !!int abc"), "'abc': not a valid int"),
    "a bool tag on a word": (edit("pool_count: 1", "pool_count: !!bool maybe"), "'maybe': not a valid bool"),
    "a float tag on a word": (edit("pool_count: 1", "pool_count: !!float abc"), "not a valid float"),
    "a timestamp tag on month 13": (
        edit('start: "2024-03-02 10:00"', "start: !!timestamp 2024-13-45"),
        "'2024-13-45': not a valid timestamp",
    ),
    "a start in the year 9999": (
        edit('start: "2024-03-02 10:00"', 'start: "9999-12-31 23:59"'),
        "must be in the years 1900–2100, found 9999",
    ),
    "a time zone longer than a file name": (
        edit("timezone: Europe/Oslo", "timezone: " + "A" * 5000),
        "not an IANA time zone",
    ),
    "an appeal window of 10^26 minutes": (
        edit("appeal_window_minutes: 15", "appeal_window_minutes: 99999999999999999999999999"),
        "appeal_window_minutes: must be at most 10080",
    ),
    "a clock of 10^23 minutes": (
        edit("minutes: 15, increment_seconds: 5}", "minutes: 99999999999999999999999, increment_seconds: 5}"),
        "time_control.minutes: must be at most 1440",
    ),
    "a clock of 10^23 minutes, written short": (
        edit("time_control: {minutes: 15, increment_seconds: 5}", "time_control: 99999999999999999999999+5"),
        "expected 1–1440 minutes",
    ),
    "a pool of 10^20 teams": (
        edit("pool_size: 4", "pool_size: 99999999999999999999"),
        "stages[0].pool_size (group): must be at most 999",
    ),
    "a seed range to 10^20": (
        edit("{seeds: 1-4}", "{seeds: 1-99999999999999999999}"),
        "goes beyond the",
    ),
}


# A file that kept a request busy before (a seed range or a pool walked to its end) fails the test by this
# timeout (pytest-timeout): a guard against a hang, not a speed target.
HANG = pytest.mark.timeout(60)


@HANG
@pytest.mark.parametrize(("text", "expected"), HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_event_file_is_refused_with_its_problem(text: str, expected: str) -> None:
    with pytest.raises(EventDefinitionError) as refused:
        parse_event(text)
    assert expected in str(refused.value)


@HANG
def test_a_seed_range_without_a_team_list_is_not_walked_to_its_end() -> None:
    text = edit("{seeds: 1-4}", "{seeds: 1-99999999999999999999}")
    text = text[: text.index("\nteams:")] + "\nteams: []\n"
    with pytest.raises(EventDefinitionError) as refused:
        parse_event(text)
    assert "seeds" in str(refused.value)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[FastAPI]:
    yield from owner_app(tmp_path)


def test_the_api_and_the_form_answer_a_hostile_event_file_with_its_problems(app: FastAPI) -> None:
    client, csrf = login(app, "owner")
    quiet = TestClient(app, raise_server_exceptions=False, cookies=client.cookies)
    for text, expected in HOSTILE.values():
        answer = quiet.post(
            "/api/v1/staff/events", json={"definition_text": text}, headers={"X-CSRF-Token": csrf}
        )
        assert answer.status_code == 422, (expected, answer.status_code, answer.text[:300])
        assert expected in answer.text
        page = quiet.post("/staff/events", data={"definition_text": text, "csrf_token": csrf})
        assert page.status_code < 500, (expected, page.status_code)
        assert "Traceback" not in page.text
