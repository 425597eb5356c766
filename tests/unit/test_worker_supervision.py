"""The worker waits out a broker restart and every long-running service is restarted when it exits
(docs/deployment.md, "Supervision and restarts"; docs/workers.md, "Outages")."""

from __future__ import annotations

import logging
from collections import OrderedDict
from pathlib import Path

import pytest
import yaml
from kombu.transport import redis as kombu_redis

import workers.tasks  # noqa: F401 - registers the tasks and installs the broker-restart guard, as the worker
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
    for name in ("postgres", "redis", "web", "worker", "worker-background", "beat"):
        assert services[name].get("restart") == "unless-stopped", name


def test_the_broker_going_away_while_jobs_are_handed_back_does_not_end_the_worker(
    caplog: pytest.LogCaptureFixture,
):
    class Gone:
        def conn_or_acquire(self, client: object = None) -> object:
            raise AttributeError("'NoneType' object has no attribute 'hostname'")  # kombu, Redis restarting

    qos = kombu_redis.QoS.__new__(kombu_redis.QoS)
    qos.channel = Gone()
    qos._delivered = OrderedDict([("tag-1", object()), ("tag-2", object())])
    with caplog.at_level(logging.WARNING):
        assert qos.restore_unacked() is None
    assert qos._delivered == {}  # left to the visibility timeout: they are still in Redis's unacked set
    assert "2 unacknowledged job(s)" in caplog.text


def test_the_broker_going_away_while_a_finished_job_is_acknowledged_does_not_end_the_worker(
    caplog: pytest.LogCaptureFixture,
):
    class Gone:
        def conn_or_acquire(self, client: object = None) -> object:
            raise AttributeError("'NoneType' object has no attribute 'client'")  # kombu, Redis restarting

    qos = kombu_redis.QoS.__new__(kombu_redis.QoS)
    qos.channel = Gone()
    qos._delivered = OrderedDict([("tag-1", object()), ("tag-2", object())])
    with caplog.at_level(logging.WARNING):
        assert qos.ack("tag-1") is None  # no exception reaches the consumer's loop
    assert list(qos._delivered) == ["tag-2"]  # tag-1 no longer held here: Redis redelivers it later
    assert "runs again after the visibility timeout" in caplog.text
