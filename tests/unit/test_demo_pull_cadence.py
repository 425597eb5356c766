"""The demo's rounds pull themselves in Celery mode (orchestrator/demo/driver.py ``Demo._settings``;
docs/workers.md, "Event-driven rounds"): one tick after the games exist, or at once at instant speed, not
at beat's next reconcile."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import Settings
from orchestrator.demo.driver import INSTANT_PULL_S, Demo
from orchestrator.demo.plan import DemoOptions, DemoPlan


@pytest.mark.parametrize(
    ("task_mode", "speed", "pull_s"),
    [("celery", 60.0, 0.1), ("celery", 0.0, INSTANT_PULL_S), ("eager", 60.0, 0.0), ("eager", 0.0, 0.0)],
)
def test_with_celery_a_round_pulls_itself_after_its_games_and_in_process_beat_does_it(
    tmp_path: Path, task_mode: str, speed: float, pull_s: float
) -> None:
    options = DemoOptions(data_dir=tmp_path, task_mode=task_mode, database_url=f"sqlite:///{tmp_path}/x.db")
    demo = Demo(options, base_settings=Settings(environment="test"))
    plan = DemoPlan(round_gap_s=0.0, speed=speed, tick_s=0.1, lead_s=0.0)

    settings = demo._settings(plan, standin_url="http://127.0.0.1:1", web_url=None)

    assert settings.round_pull_s == pull_s
    assert 0 < INSTANT_PULL_S < plan.tick_s  # a chain of pulls, sooner than a tick
    assert settings.task_mode == task_mode
