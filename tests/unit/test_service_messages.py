"""Refusals written for the person at the screen (docs/translations.md): their English text is the one the
catalogues translate, they go through the reader's catalogue with named placeholders, and a time in them is
said in the event's zone (``times.said``), never in bare UTC."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.support import NullTranslations, Translations

from orchestrator import translation
from orchestrator.adapters.tables import Lot
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.errors import Conflict, CurrentValue, StaleEdit
from orchestrator.services.accounts import users
from orchestrator.services.setup import draws, stage_start
from tests.support.factories import drafted_stage, make_event

FAKE_PT = {
    "%(stage)s is %(status)s: only a stage with published pools can start": (
        "%(stage)s está %(status)s: só uma fase com grupos publicados pode começar"
    ),
}


@pytest.fixture
def fake_portuguese(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A Portuguese catalogue holding only ``FAKE_PT``: the shipped one is translated after the merge."""
    catalog = Catalog(locale="pt")
    for msgid, msgstr in FAKE_PT.items():
        catalog.add(msgid, msgstr)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    fake = Translations(buffer)

    def translations(lang: str) -> NullTranslations:
        return fake if lang == "pt" else NullTranslations()

    monkeypatch.setattr(translation, "translations", translations)
    with translation.speaking("pt"):
        yield


def _start_drafted(uow_factory: UnitOfWorkFactory) -> Conflict:
    with uow_factory() as uow:
        stage_id = drafted_stage(uow)
    with uow_factory() as uow, pytest.raises(Conflict) as refused:
        stage_start.start_stage(uow, stage_id=stage_id, actor="arb")
    return refused.value


def test_a_refusal_keeps_its_english_text(uow_factory: UnitOfWorkFactory) -> None:
    refused = _start_drafted(uow_factory)
    assert refused.message == "Group is draft: only a stage with published pools can start"


def test_a_refusal_is_said_in_the_readers_language_with_its_values_in_place(
    uow_factory: UnitOfWorkFactory, fake_portuguese: None
) -> None:
    refused = _start_drafted(uow_factory)
    assert refused.message == "Group está draft: só uma fase com grupos publicados pode começar"


def test_form_problems_keep_their_english_text() -> None:
    assert users.password_problems("short") == [
        "The password must have at least 10 characters other than spaces."
    ]


def test_a_lot_drawn_again_names_its_draw_time_in_the_events_zone(uow_factory: UnitOfWorkFactory) -> None:
    drawn_at = datetime(2024, 7, 1, 10, 0, tzinfo=UTC)  # 12:00 in Oslo (CEST, UTC+2)
    with uow_factory() as uow:
        event_id = make_event(uow)  # the small event keeps Europe/Oslo
        lot_id = draws.commit_lot(
            uow, event_id=event_id, purpose="Board prize tie", candidates=["A", "B"], actor="arb"
        )
        draws.reveal_lot(uow, lot_id=lot_id, actor="arb")
    with uow_factory() as uow:
        lot = uow.lots.get_or_raise(Lot, lot_id)
        lot.revealed_at = drawn_at
        uow.lots.insert(lot)
    with uow_factory() as uow, pytest.raises(Conflict) as refused:
        draws.reveal_lot(uow, lot_id=lot_id, actor="arb")
    assert refused.value.message == (
        f"lot {lot_id} (Board prize tie) was already drawn on 1 Jul 2024, 12:00 CEST (Europe/Oslo)"
    )


def test_a_stale_edit_says_who_and_when_without_a_bare_utc_format() -> None:
    changed_at = datetime(2026, 12, 4, 14, 0, tzinfo=UTC)
    stale = StaleEdit([CurrentValue("board", 5, "result", "1-0", 3, "ann", changed_at)])
    assert (
        stale.message == "board 5 was changed by someone else (ann, 4 Dec 2026, 14:00 UTC): result is now 1-0"
    )
