"""Login helpers for the account tests: settings that throttle after three failures (the ``settings``
fixture: a test module imports it and lists it in ``__all__``), an owner account and logins through the
accounts service.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.accounts import users

PASSWORD = "correct horse battery"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, environment="test", login_max_failures=3)


def login(
    uow_factory: UnitOfWorkFactory, settings: Settings, password: str, **kwargs: object
) -> users.LoginVerdict:
    with uow_factory() as uow:
        return users.authenticate(uow, username="Anna", password=password, settings=settings, **kwargs)  # type: ignore[arg-type]


def fail_logins(
    uow_factory: UnitOfWorkFactory,
    settings: Settings,
    times: int,
    *,
    start: datetime,
    step: timedelta = timedelta(0),
) -> None:
    """``times`` logins with a wrong password, ``step`` apart from ``start``."""
    for n in range(times):
        login(uow_factory, settings, "wrong password", now=start + n * step)


def make_owner(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return users.create_user(uow, username="anna", password=PASSWORD, role="owner")
