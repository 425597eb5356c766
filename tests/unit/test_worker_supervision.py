"""The worker waits out a broker restart and every long-running service is restarted when it exits
(docs/deployment.md, "Supervision and restarts"; docs/workers.md, "Outages")."""

from __future__ import annotations

from pathlib import Path

import yaml

from workers.app import celery_app

REPO = Path(__file__).resolve().parents[2]


def test_the_worker_reconnects_to_the_broker_for_as_long_as_it_takes():
    conf = celery_app.conf
    assert conf.broker_connection_retry and conf.broker_connection_retry_on_startup
    assert conf.broker_connection_max_retries is None  # never gives up (Celery's default is 100 tries)
    assert conf.broker_channel_error_retry
    assert conf.worker_cancel_long_running_tasks_on_connection_loss  # redelivered: acks_late
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert celery_app.tasks["results.pull_round"].max_retries is None  # retried while the outage lasts
    assert conf.broker_transport_options["retry_on_timeout"] is True


def test_every_long_running_service_of_the_compose_file_is_restarted_when_it_exits():
    services = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]
    for name in ("postgres", "redis", "web", "worker", "beat"):
        assert services[name].get("restart") == "unless-stopped", name
