"""The words for stored values (web/domain_text.py ``VALUE_TEXT``): every status, kind and role the tables
can hold has them, the pages show them instead of the raw value, in the reader's language, and the staff
dashboard's texts are messages of the catalogues."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import pytest
from babel.messages.extract import extract
from babel.messages.pofile import read_po
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters import tables
from orchestrator.adapters.tables import LinkStatus, PlayerLink, Role
from orchestrator.domain.event import StageKind
from orchestrator.domain.lots import LotKind
from orchestrator.services.accounts.users import create_user
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.read import dashboard as dashboard_service
from orchestrator.translation import LOCALE_DIR, gettext, speaking
from orchestrator.web.domain_text import VALUE_TEXT, value_text
from tests.support.factories import running_stage
from tests.support.web import PASSWORD, login

SLUG = "small-test-cup"
POT = LOCALE_DIR / "messages.pot"


def _vocabularies() -> dict[str, type[Enum]]:
    """Every enum of the tables whose values a page prints: the statuses, the kinds, the roles and the
    results' sources (found by name, so a new ``...Status`` is checked without being listed here), with
    the stages', the lots' and the e-mails' kinds (the domain's vocabularies the tables store)."""
    found: dict[str, type[Enum]] = {
        name: value
        for name, value in vars(tables).items()
        if isinstance(value, type)
        and issubclass(value, Enum)
        and value.__module__.startswith(tables.__name__)  # tables.py and its tables_*.py siblings
        and (name.endswith(("Status", "Kind")) or name in ("Role", "ResultSource"))
    }
    return {**found, "StageKind": StageKind, "LotKind": LotKind, "notify.Kind": Kind}


def test_every_status_kind_and_role_the_tables_can_hold_has_its_words() -> None:
    vocabularies = _vocabularies()
    assert {"EventStatus", "StageStatus", "RoundStatus", "DuelStatus", "OutboxStatus", "StageKind"} <= set(
        vocabularies
    )
    missing = [
        f"{name}.{member.name}"
        for name, enum in vocabularies.items()
        for member in enum
        if str(member.value) not in VALUE_TEXT
    ]
    assert missing == []
    assert set(tables.LOT_KINDS) <= set(VALUE_TEXT)


def test_a_value_reads_in_the_readers_language_and_an_unknown_one_as_it_is() -> None:
    assert value_text("in_progress") == "in_progress"
    assert value_text(None) == ""
    assert value_text("running") == "In progress"
    assert value_text(tables.StageKind.SWISS) == "Swiss"  # an enum member is its value
    with speaking("pt"):
        portuguese = gettext("In progress")
        assert value_text("running") == portuguese
    assert portuguese != "In progress"  # the catalogue translates it, so the filter did


def _messages(path: Path) -> set[str]:
    with path.open("rb") as handle:
        return {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(handle) if m.id}


def test_every_word_is_in_the_catalogues() -> None:
    """Fails until the catalogues are extracted again (docs/translations.md)."""
    assert sorted(set(VALUE_TEXT.values()) - _messages(POT)) == []


def test_every_text_of_the_dashboard_is_in_the_catalogues() -> None:
    """Fails until the catalogues are extracted again with services/read/dashboard.py among the sources
    (babel.cfg)."""
    with Path(dashboard_service.__file__).open("rb") as handle:
        found = {m if isinstance(m, str) else m[0] for _line, m, _c, _ctx in extract("python", handle)}
    assert {"Result held", "Enter the result", "%(stage)s round %(round)s"} <= found
    assert sorted(found - _messages(POT)) == []


@pytest.fixture
def web(app: FastAPI) -> tuple[FastAPI, int]:
    """The small event with its group stage running and one arbiter."""
    with app.state.uow_factory() as uow:
        stage_id = running_stage(uow)
        event = uow.events.get_by_slug(SLUG)
        assert event is not None
        for player in uow.teams.players_of_event(event.id or 0):
            uow.teams.insert(PlayerLink(player_id=player.id or 0, status=LinkStatus.LINKED.value))
        create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
    return app, stage_id


def test_the_dashboard_and_a_stage_page_show_words_not_raw_values(web: tuple[FastAPI, int]) -> None:
    app, stage_id = web
    client, _ = login(app, "arb")
    with app.state.uow_factory() as uow:
        event = uow.events.get_by_slug(SLUG)
        assert event is not None and event.status == "running"
        stage = uow.events.stages_of_event(event.id or 0)[0]
        assert stage.id == stage_id and stage.status == "running"
    dashboard = client.get(f"/staff/events/{SLUG}").text
    assert '<span class="tag">In progress</span>' in dashboard
    assert '<span class="tag">running</span>' not in dashboard
    assert "<li>Result held: <strong>0</strong></li>" in dashboard
    pools = client.get(f"/staff/stages/{stage_id}/pools").text
    assert '<span class="tag">In progress</span>' in pools
    assert '<span class="tag">running</span>' not in pools
    event_page = client.get(f"/staff/events/{SLUG}/setup").text
    assert "<td>Pools</td>" in event_page and "<td>pools</td>" not in event_page
    public = TestClient(app).get(f"/events/{SLUG}").text
    assert '<span class="status status-running">In progress</span>' in public


def test_a_portuguese_reader_sees_the_statuses_in_portuguese(web: tuple[FastAPI, int]) -> None:
    app, stage_id = web
    client, _ = login(app, "arb")
    client.cookies.set("lang", "pt")
    with speaking("pt"):
        words = gettext("In progress")
    assert words != "In progress"
    assert f'<span class="tag">{words}</span>' in client.get(f"/staff/events/{SLUG}").text
    assert f'<span class="tag">{words}</span>' in client.get(f"/staff/stages/{stage_id}/pools").text
