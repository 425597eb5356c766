"""The demo's staff wake when a worker closes a stage (orchestrator/demo/driver.py ``stage_closed_alarm``,
services/live_redis.py ``start_watcher``), instead of at their next tick."""

from __future__ import annotations

import threading
from pathlib import Path

from orchestrator.config import Settings
from orchestrator.demo.driver import stage_closed_alarm
from orchestrator.services.live_redis import start_watcher


def test_only_a_stage_closed_on_the_events_own_topic_wakes_the_staff() -> None:
    wake = threading.Event()
    alarm = stage_closed_alarm("oly-2020", wake)
    alarm("event:oly-2020", {"kind": "result"})
    alarm("event:other", {"kind": "stage-closed", "stage_id": 3})
    alarm("stage:3", {"kind": "stage-closed", "stage_id": 3})
    alarm("event:oly-2020-b", {"kind": "stage-closed"})
    assert not wake.is_set()
    alarm("event:oly-2020", {"kind": "stage-closed", "stage_id": 3})
    assert wake.is_set()


def test_with_tasks_in_process_there_is_no_watcher(tmp_path: Path) -> None:
    settings = Settings(environment="test", data_dir=tmp_path, task_mode="eager")
    assert start_watcher(settings, lambda _topic, _data: None) is None
