"""The staff page that imports an event from TRF-2026 files (web/pages/staff/trf_import.py, docs/trf.md
"Importing"): owners and administrators only, CSRF, a size cap, and a refused file shown again (422) with
every problem by line while nothing is written."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from orchestrator.web.pages.staff.trf_import import MAX_TRF_BYTES
from tests.support.trf_files import fixture
from tests.support.web import PASSWORD, login

PAGE = "/staff/events/import-trf"


@pytest.fixture
def staff(app: FastAPI) -> FastAPI:
    with app.state.uow_factory() as uow:
        create_user(uow, username="admin", password=PASSWORD, role=Role.ADMIN)
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    return app


def upload(name: str, text: str) -> dict[str, tuple[str, bytes, str]]:
    return {"open_file": (name, text.encode("latin-1"), "text/plain")}


def events(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        return len(uow.events.list_all())


def test_an_administrator_imports_a_file_and_lands_on_the_new_events_setup(staff: FastAPI) -> None:
    admin, csrf = login(staff, "admin")
    assert "Import an event from TRF files" in admin.get(PAGE).text
    assert PAGE in admin.get("/staff/events").text
    done = admin.post(PAGE, data={"csrf_token": csrf}, files=upload("cup.trf", fixture("board-forfeit.trf")))
    assert done.status_code == 303 and done.headers["location"].startswith(
        "/staff/events/synthetic-cup/setup"
    )
    page = admin.get(done.headers["location"]).text
    assert "Synthetic Cup" in page and events(staff) == 1


def test_a_broken_file_is_refused_with_every_line_and_nothing_is_written(staff: FastAPI) -> None:
    admin, csrf = login(staff, "admin")
    refused = admin.post(PAGE, data={"csrf_token": csrf}, files=upload("broken.trf", fixture("broken.trf")))
    assert refused.status_code == 422
    for line in (6, 13, 16, 20, 28, 41, 42, 43):
        assert f"broken.trf: line {line}:" in refused.text
    assert "Traceback" not in refused.text and events(staff) == 0


def test_no_file_and_a_file_too_large_are_refused(staff: FastAPI) -> None:
    admin, csrf = login(staff, "admin")
    empty = admin.post(PAGE, data={"csrf_token": csrf}, files={"open_file": ("", b"", "text/plain")})
    assert empty.status_code == 422 and "choose a TRF-2026 team file" in empty.text
    big = admin.post(PAGE, data={"csrf_token": csrf}, files=upload("big.trf", "x" * (MAX_TRF_BYTES + 1)))
    assert big.status_code in (413, 422) and events(staff) == 0


def test_the_form_needs_its_csrf_token(staff: FastAPI) -> None:
    admin, _csrf = login(staff, "admin")
    answer = admin.post(PAGE, data={}, files=upload("cup.trf", fixture("board-forfeit.trf")))
    assert answer.status_code in (400, 403) and events(staff) == 0


def test_arbiters_and_anonymous_visitors_cannot_import(staff: FastAPI) -> None:
    arbiter, token = login(staff, "arbiter")
    assert arbiter.get(PAGE).status_code == 403
    refused = arbiter.post(
        PAGE, data={"csrf_token": token}, files=upload("cup.trf", fixture("board-forfeit.trf"))
    )
    assert refused.status_code == 403
    anonymous, _ = login(staff, None)
    assert anonymous.get(PAGE).status_code in (302, 303, 401)
    assert events(staff) == 0
