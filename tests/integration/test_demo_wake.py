"""A message a worker publishes reaches the demo's watcher over Redis (services/live_redis.py
``start_watcher``): the staff start the next stage as soon as a worker closes one."""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path

from orchestrator.adapters import live_redis as bridge
from orchestrator.config import Settings
from orchestrator.demo.driver import stage_closed_alarm
from orchestrator.services import live
from orchestrator.services.live_redis import start_watcher
from tests.support.workers import REDIS_URL, require_redis


def test_a_stage_closed_in_another_process_wakes_the_watcher(tmp_path: Path) -> None:
    require_redis()
    settings = Settings(environment="test", data_dir=tmp_path, task_mode="celery", redis_url=REDIS_URL)
    slug = f"wake-{secrets.token_hex(4)}"
    wake = threading.Event()
    watcher = start_watcher(settings, stage_closed_alarm(slug, wake))
    assert watcher is not None
    try:
        assert watcher.ready.wait(10)
        worker = bridge.RedisPublisher(bridge.connect(REDIS_URL), origin="a-worker")
        other = live.Message(f"event:{slug}", {"kind": "result"})
        closed = live.Message(f"event:{slug}", {"kind": "stage-closed", "stage_id": 1})
        worker(other)
        deadline = time.monotonic() + 10
        while not wake.is_set() and time.monotonic() < deadline:
            worker(closed)  # again until the subscription is in place
            wake.wait(0.2)
        assert wake.is_set()
    finally:
        watcher.stop()
