"""The demo moves a past event's schedule to the run's dates (orchestrator/demo/plan.py ``shift_dates``).

``olympiad demo`` plays the 2020 file: without the shift, stages not started yet showed July 2020 beside
the started stages' dates of the run.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from itertools import pairwise
from pathlib import Path

from orchestrator.demo.plan import DEFAULT_EVENT, demo_definition, shift_dates
from orchestrator.eventfile import parse_event

REPO = Path(__file__).resolve().parents[2]
RUN_DAY = date(2026, 12, 4)


def test_the_2020_schedule_moves_to_the_run_keeping_times_of_day_and_every_gap() -> None:
    text = (REPO / DEFAULT_EVENT).read_text(encoding="utf-8")
    before = parse_event(text)
    after = parse_event(shift_dates(text, RUN_DAY))
    old = [moment for stage in before.stages for moment in stage.schedule]
    new = [moment for stage in after.stages for moment in stage.schedule]
    assert len(new) == len(old) > 0
    assert min(new) == datetime(2026, 12, 4, 10, 0)  # the file's first round, 2020-07-25 10:00
    assert [b - a for a, b in pairwise(new)] == [b - a for a, b in pairwise(old)]
    assert {m.year for m in new} == {2026, 2027}  # the play-off, 27-30 Aug in the file: in January
    assert all(m.time() == o.time() for m, o in zip(new, old, strict=True))


def test_the_demo_file_has_no_date_of_the_past_left_and_keeps_its_name() -> None:
    text = (REPO / DEFAULT_EVENT).read_text(encoding="utf-8")
    demo = demo_definition(text, untimed_knockout=True, first_day=RUN_DAY)
    dates = re.findall(r"\b(\d{4})-\d{2}-\d{2} \d{2}:\d{2}", demo)
    assert dates and set(dates) == {"2026"}  # the pool stages (25 Jul - 23 Aug in the file); no play-off
    assert parse_event(demo).name == "FIDE Online Chess Olympiad 2020"  # a name, not a date


def test_a_file_without_dates_and_the_default_without_a_day_are_left_as_they_are() -> None:
    text = "name: X\nnote: born 1991, account abc-2020-07\n"
    assert shift_dates(text, RUN_DAY) == text
    schedule = 'schedule: {start: "2024-03-02 10:00"}\n'
    assert demo_definition(schedule) == demo_definition(schedule, first_day=None)
    assert "2024-03-02 10:00" in demo_definition(schedule)
    assert "2026-12-04 10:00" in demo_definition(schedule, first_day=RUN_DAY)


def test_an_instant_demo_keeps_the_play_off_schedule_with_every_round_in_the_past() -> None:
    text = (REPO / DEFAULT_EVENT).read_text(encoding="utf-8")
    before = parse_event(text)
    demo = parse_event(demo_definition(text, untimed_knockout=True, first_day=RUN_DAY, instant=True))
    old = [moment for stage in before.stages for moment in stage.schedule]
    new = [moment for stage in demo.stages for moment in stage.schedule]
    playoff = next(stage for stage in demo.stages if stage.key == "playoff")
    assert len(playoff.schedule) == 8  # kept: each bracket round is due as soon as it is created
    assert max(new) == datetime(2026, 11, 4, 12, 0)  # the final's second match, 30 days before the run
    assert max(new) < datetime.combine(RUN_DAY, datetime.min.time())  # every computed round is past too
    assert [b - a for a, b in pairwise(new)] == [b - a for a, b in pairwise(old)]
    assert min(new) == datetime(2026, 9, 29, 10, 0)  # the file's 36 days, ending 30 days before the run
