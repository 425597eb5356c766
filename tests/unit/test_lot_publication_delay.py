"""A lot's commitment is public for the event file's ``lot_publication_delay`` before it may be drawn
(docs/lots.md): an earlier draw is refused with the time it becomes possible; the lots page says when each
commitment became public and from when it may be drawn; the event files in events/ set 10 minutes and
``olympiad demo`` runs them with none, saying so."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Lot
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.demo.plan import demo_definition, lot_delay_said
from orchestrator.errors import Conflict
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services.setup import draws
from tests.support.factories import REPO_ROOT, SMALL_EVENT, make_event, published_stage

DELAYED = SMALL_EVENT + "lot_publication_delay: 10m\n"
EVENTS = REPO_ROOT / "events"


@pytest.mark.parametrize(("value", "seconds"), [("10m", 600), ("90s", 90), ("2h", 7200), ("0", 0)])
def test_the_setting_reads_seconds_minutes_and_hours(value: str, seconds: int) -> None:
    assert parse_event(SMALL_EVENT + f"lot_publication_delay: {value}\n").lot_publication_delay_s == seconds
    assert parse_event(SMALL_EVENT).lot_publication_delay_s == 0


def test_a_bad_delay_is_listed_with_the_other_problems() -> None:
    text = SMALL_EVENT.replace("appeal_window_minutes: 15", "appeal_window_minutes: -1")
    with pytest.raises(EventDefinitionError) as refused:
        parse_event(text + "lot_publication_delay: ten minutes\n")
    messages = [p.message for p in refused.value.problems]
    assert any(
        "expected a duration such as 10m, 90s or 1h (or 0), found 'ten minutes'" in m for m in messages
    )
    assert any("appeal_window_minutes" in p.path for p in refused.value.problems)
    for bad, message in (
        ("200h", r"at most a week \(168h\)"),
        ("[10m]", "found a list or mapping"),
        ("10", "'10'"),
    ):
        with pytest.raises(EventDefinitionError, match=message):
            parse_event(SMALL_EVENT + f"lot_publication_delay: {bad}\n")


def committed(uowf: UnitOfWorkFactory, text: str = DELAYED) -> tuple[int, int]:
    with uowf() as uow:
        event_id = make_event(uow, text)
        lot_id = draws.commit_lot(
            uow, event_id=event_id, purpose="Photo order", candidates=["A", "B"], actor="arb"
        )
    return event_id, lot_id


def test_a_draw_before_the_delay_is_refused_with_the_time_it_becomes_possible(
    uowf: UnitOfWorkFactory,
) -> None:
    _, lot_id = committed(uowf)
    with uowf() as uow:
        lot = uow.lots.get_or_raise(Lot, lot_id)
        ready = draws.drawable_from(uow, lot)
        assert ready == lot.committed_at + timedelta(minutes=10)
    with (
        pytest.raises(Conflict, match=r"cannot be drawn yet.*it can be drawn from .*") as refused,
        uowf() as uow,
    ):
        draws.reveal_lot(uow, lot_id=lot_id, actor="arb")
    assert (
        ready.astimezone(ZoneInfo("Europe/Oslo")).strftime("%H:%M") in refused.value.message
    )  # the event's zone
    with pytest.raises(Conflict), uowf() as uow:
        draws.reveal_lot(uow, lot_id=lot_id, actor="arb", now=ready - timedelta(seconds=1))
    with uowf() as uow:
        drawn = draws.reveal_lot(uow, lot_id=lot_id, actor="arb", now=ready)
    assert drawn.revealed


def test_without_a_delay_a_lot_is_drawn_at_once(uowf: UnitOfWorkFactory) -> None:
    _, lot_id = committed(uowf, SMALL_EVENT)
    with uowf() as uow:
        assert draws.reveal_lot(uow, lot_id=lot_id, actor="arb").revealed


def test_the_lots_page_says_when_each_commitment_became_public_and_when_it_can_be_drawn(
    app: FastAPI, client: TestClient
) -> None:
    event_id, lot_id = committed(app.state.uow_factory)
    with app.state.uow_factory() as uow:
        published_stage(uow, event_id=event_id)  # the event is public once its pools are
    with app.state.uow_factory() as uow:
        view = next(v for v in draws.list_lots(uow, event_id=event_id) if v.id == lot_id)
        slug = parse_event(DELAYED).slug
    assert view.drawable_at == view.committed_at + timedelta(minutes=10)
    page = client.get(f"/events/{slug}/lots")
    assert "public since" in page.text and "can be drawn from" in page.text
    assert view.public()["drawable_at"] == view.drawable_at.isoformat()
    assert lot_id == view.id


def test_without_a_delay_a_replayed_clock_earlier_than_the_commitment_still_draws(
    uowf: UnitOfWorkFactory,
) -> None:
    _, lot_id = committed(uowf, SMALL_EVENT)
    with uowf() as uow:
        lot = uow.lots.get_or_raise(Lot, lot_id)
        earlier = lot.committed_at - timedelta(days=400)
    with uowf() as uow:
        assert draws.reveal_lot(uow, lot_id=lot_id, actor="arb", now=earlier).revealed


# --- where the delay is set: the real-event files, the demo, a file without it (docs/lots.md) -----------


# seed-errors-2020.yaml is the 2020 file with seeding mistakes, for `olympiad validate` to list: not an event.
VALID_EVENT_FILES = sorted(p for p in EVENTS.glob("*.yaml") if p.name != "seed-errors-2020.yaml")


@pytest.mark.parametrize("path", sorted(EVENTS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_event_file_keeps_each_commitment_public_ten_minutes(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert re.search(r"^lot_publication_delay: 10m\b", text, flags=re.M)
    if path in VALID_EVENT_FILES:
        assert parse_event(text).lot_publication_delay_s == 600


@pytest.mark.parametrize("path", VALID_EVENT_FILES, ids=lambda p: p.name)
def test_the_demo_runs_a_shipped_file_with_no_delay_and_says_so(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    demo = parse_event(demo_definition(text, untimed_knockout=True))
    assert demo.lot_publication_delay_s == 0
    said = lot_delay_said(parse_event(text))
    assert "lot publication delay 0" in said and "10 min of a real event" in said


def test_the_demo_writes_no_delay_into_a_file_without_the_key_too() -> None:
    assert "lot_publication_delay" not in SMALL_EVENT
    demo = demo_definition(SMALL_EVENT)
    assert demo.count("lot_publication_delay: 0") == 1
    assert parse_event(demo).lot_publication_delay_s == 0
    assert parse_event(demo_definition(DELAYED)).lot_publication_delay_s == 0
    assert lot_delay_said(parse_event(SMALL_EVENT)) == (
        "lots are drawn as soon as committed (lot publication delay 0)"
    )
    assert "90 s of a real event" in lot_delay_said(parse_event(SMALL_EVENT + "lot_publication_delay: 90s\n"))


def test_the_lots_page_states_the_events_delay_and_the_json_when_each_lot_may_be_drawn(
    app: FastAPI, client: TestClient
) -> None:
    event_id, lot_id = committed(app.state.uow_factory)
    with app.state.uow_factory() as uow:
        published_stage(uow, event_id=event_id)
    slug = parse_event(DELAYED).slug
    page = client.get(f"/events/{slug}/lots").text
    assert "Each commitment is public for at least 10 minutes before its lot can be drawn" in page
    lots = client.get(f"/api/v1/events/{slug}/lots").json()
    mine = next(lot for lot in lots if lot["id"] == lot_id)
    committed_at = datetime.fromisoformat(mine["committed_at"])
    assert datetime.fromisoformat(mine["drawable_at"]) == committed_at + timedelta(minutes=10)


def test_a_drawn_lot_still_says_from_when_it_could_be_drawn_and_no_delay_is_said_in_words(
    app: FastAPI, client: TestClient
) -> None:
    event_id, lot_id = committed(app.state.uow_factory, SMALL_EVENT)
    with app.state.uow_factory() as uow:
        published_stage(uow, event_id=event_id)
    with app.state.uow_factory() as uow:
        draws.reveal_lot(uow, lot_id=lot_id, actor="arb")
    slug = parse_event(SMALL_EVENT).slug
    page = client.get(f"/events/{slug}/lots").text
    assert "This event sets no lot publication delay" in page
    assert "could be drawn from" in page and "public since" in page
    with app.state.uow_factory() as uow:
        assert draws.get_lot(uow, lot_id=lot_id).drawable_at is not None
