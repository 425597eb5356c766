"""Demo time of Swiss stages (orchestrator/demo/plan.py ``swiss_slots``, orchestrator/demo/swiss.py
``next_round_start``): sections side by side share their round gaps; a round starts a gap after the one
before, never before the lead."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from orchestrator.adapters.tables import Round
from orchestrator.demo.plan import DemoOptions, DemoPlan, plan_for, swiss_slots
from orchestrator.demo.swiss import next_round_start
from orchestrator.eventfile import parse_event

REPO = Path(__file__).resolve().parents[2]
SMALL_2026 = REPO / "events" / "olympiad-2026-small.yaml"
TWO_SECTIONS = REPO / "tests" / "fixtures" / "events" / "two-swiss-playoff.yaml"
NOW = datetime(2026, 12, 4, 16, 0, tzinfo=UTC)


def test_one_swiss_stage_takes_its_rounds_and_one_gap_to_start() -> None:
    definition = parse_event(SMALL_2026.read_text(encoding="utf-8"))
    assert swiss_slots(definition) == 11 + 1  # 11 rounds, one gap to start
    plan = plan_for(definition, DemoOptions(event_file=SMALL_2026, minutes=4.0))
    assert plan.round_gap_s == 4.0 * 60 / 12  # 20 s: no pool stage, no bracket


def test_two_seeded_sections_side_by_side_take_the_longer_sections_rounds_once() -> None:
    definition = parse_event(TWO_SECTIONS.read_text(encoding="utf-8"))
    assert [s.rounds for s in definition.stages if s.is_swiss] == [3, 3]
    assert swiss_slots(definition) == 3 + 1  # both seeded: one group, not (3 + 1) + (3 + 1)
    plan = plan_for(definition, DemoOptions(event_file=TWO_SECTIONS, minutes=1.0))
    # the play-off: 2 bracket rounds x 3 slots (match 1, match 2, an Armageddon) = 6; 60 s / (4 + 6) = 6 s
    assert plan.round_gap_s == 6.0


def _round(number: int, at: datetime | None) -> Round:
    return Round(stage_id=1, number=number, name=f"Round {number}", scheduled_at=at, status="finished")


def test_a_round_starts_a_gap_after_the_one_before_or_after_the_lead_when_that_is_past() -> None:
    plan = DemoPlan(round_gap_s=20.0, speed=1.0, tick_s=0.5, lead_s=2.0)
    assert next_round_start([], 1, now=NOW, plan=plan) == NOW + timedelta(seconds=2)  # the lead
    recent = [_round(1, NOW - timedelta(seconds=5))]  # round 1 began 5 s ago: round 2 at -5 + 20 = 15 s
    assert next_round_start(recent, 2, now=NOW, plan=plan) == NOW + timedelta(seconds=15)
    late = [_round(1, NOW - timedelta(seconds=60))]  # round 1 took longer than a gap: at once, after the lead
    assert next_round_start(late, 2, now=NOW, plan=plan) == NOW + timedelta(seconds=2)
