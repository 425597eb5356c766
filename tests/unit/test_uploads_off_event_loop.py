"""The staff routes that must ``await`` an upload (the event file, rosters, TRF files) do their blocking
work in the thread pool, not on the event loop: a slow or hostile upload never holds up the process's other
requests (docs/architecture.md, "Web")."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from orchestrator.errors import ValidationFailed
from orchestrator.services.setup import event_setup
from orchestrator.services.teams import rosters
from orchestrator.web.pages.staff import trf_import
from tests.support.factories import SMALL_EVENT
from tests.support.web import login, owner_app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[FastAPI]:
    yield from owner_app(tmp_path)


def on_the_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def test_the_event_file_roster_and_trf_uploads_run_their_work_off_the_event_loop(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, csrf = login(app, "owner")
    created = client.post(
        "/api/v1/staff/events", json={"definition_text": SMALL_EVENT}, headers={"X-CSRF-Token": csrf}
    )
    assert created.status_code == 201, created.text
    slug = next(
        line.split(":", 1)[1].strip() for line in SMALL_EVENT.splitlines() if line.startswith("slug:")
    )
    seen: dict[str, bool] = {}

    def refusing(name: str) -> Any:
        def work(*_args: Any, **_kwargs: Any) -> None:
            seen[name] = on_the_event_loop()
            raise ValidationFailed([f"{name} stopped by the test"])

        return work

    monkeypatch.setattr(event_setup, "create_event", refusing("event file"))
    monkeypatch.setattr(rosters, "import_rosters", refusing("roster"))
    monkeypatch.setattr(trf_import, "import_trf", refusing("trf"))
    answers = [
        client.post("/staff/events", data={"definition_text": SMALL_EVENT, "csrf_token": csrf}),
        client.post(f"/staff/events/{slug}/rosters", data={"csv_text": "team,name\n", "csrf_token": csrf}),
        client.post(
            "/staff/events/import-trf",
            data={"csrf_token": csrf},
            files={"open_file": ("open.trf", b"012 Some event\n", "text/plain")},
        ),
    ]
    for answer, name in zip(answers, ("event file", "roster", "trf"), strict=True):
        assert answer.status_code == 422, (name, answer.status_code)
        assert f"{name} stopped by the test" in answer.text
    assert seen == {"event file": False, "roster": False, "trf": False}
