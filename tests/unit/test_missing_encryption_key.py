"""Without OLYMPIAD_TOKEN_ENCRYPTION_KEY players cannot link their game-server accounts: the operator is
told at start-up and staff on the dashboard, before anyone tries, and the periodic jobs fail in one line
(docs/security.md, "Production settings")."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Role
from orchestrator.config import Settings, configuration_warnings
from orchestrator.errors import ServiceError
from orchestrator.jobs import bodies
from orchestrator.services.accounts.users import create_user
from orchestrator.web.app import create_app
from tests.support.factories import make_event
from tests.support.web import PASSWORD, login

MISSING = "OLYMPIAD_TOKEN_ENCRYPTION_KEY is not set"


def test_the_warning_names_the_missing_key_and_only_when_it_is_missing(tmp_path: Path) -> None:
    assert any(MISSING in w for w in configuration_warnings(Settings(data_dir=tmp_path, environment="test")))
    key = Fernet.generate_key().decode()
    with_key = Settings(data_dir=tmp_path, environment="test", token_encryption_key=key)
    assert configuration_warnings(with_key) == []


def test_the_web_app_warns_at_start_up_and_the_staff_dashboard_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(Settings(data_dir=tmp_path, environment="test", login_max_failures=1000))
    with caplog.at_level(logging.WARNING), TestClient(app):
        assert any(MISSING in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)
        with app.state.uow_factory() as uow:
            make_event(uow)
            create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
            slug = uow.events.get_by_slug("small-test-cup")
        client, _ = login(app, "arb")
        page = client.get("/staff/events/small-test-cup").text
        assert MISSING in page and slug is not None


def test_a_job_refused_for_a_missing_setting_fails_in_one_log_line_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refused(*_args: Any, **_kwargs: Any) -> None:
        raise ServiceError(f"{MISSING}: game-server tokens cannot be stored")

    monkeypatch.setattr(bodies, "runtime", lambda: None)
    monkeypatch.setattr(bodies, "PERIODIC", ("games.create",))
    monkeypatch.setitem(bodies.JOBS, "games.create", refused)
    with caplog.at_level(logging.ERROR):
        assert bodies.periodic_tick() == ["games.create"]
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.exc_info is None and MISSING in record.getMessage()
    assert "\n" not in record.getMessage()
