"""The stand-in's HTTP fault kinds take turns (docs/gameserver.md, "Fault injection"): a fault test that
draws a few faults meets each enabled kind, however many requests its timing made."""

from __future__ import annotations

from orchestrator.standin.faults import FaultPlan


def test_the_http_faults_that_fire_take_turns_among_the_enabled_kinds() -> None:
    plan = FaultPlan.from_text("429,500,slow", rate=1.0, seed=7)
    assert [plan.http_fault() for _ in range(7)] == ["429", "500", "slow", "429", "500", "slow", "429"]


def test_only_enabled_kinds_take_turns_and_a_zero_rate_fires_nothing() -> None:
    plan = FaultPlan.from_text("500,truncate", rate=1.0, seed=7)
    assert [plan.http_fault() for _ in range(3)] == ["500", "500", "500"]
    assert plan.truncate_line("abcdef") != "abcdef"  # the line kinds keep their own turn
    assert FaultPlan.from_text("429,500", rate=0.0, seed=7).http_fault() is None


def test_a_rate_below_one_skips_some_requests_but_keeps_the_order_of_kinds() -> None:
    plan = FaultPlan.from_text("429,500", rate=0.3, seed=11)
    fired = [kind for kind in (plan.http_fault() for _ in range(200)) if kind is not None]
    assert 20 < len(fired) < 120 and fired[:4] == ["429", "500", "429", "500"]
