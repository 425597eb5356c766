"""The stored event definition is read in one place (services/definitions.py): parsed once per event and
text, re-read when the stored text changes, a file that no longer validates refused with one error, the
cache bounded; public pages read it without parsing it again."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Event, EventStatus, definition_digest
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_session_factory
from orchestrator.errors import Conflict
from orchestrator.services import definitions
from orchestrator.services.definitions import (
    DefinitionUnavailable,
    cache_stats,
    definition_of,
    event_definition,
)
from orchestrator.web.app import create_app
from tests.support.databases import migrated_engine
from tests.support.factories import SMALL_EVENT, make_event
from tests.support.pools import seed_small_pool


@pytest.fixture
def uow_factory(tmp_path: Path) -> UnitOfWorkFactory:
    engine = migrated_engine(Settings(data_dir=tmp_path, environment="test").sqlalchemy_url)
    factory = make_session_factory(engine)
    return lambda: UnitOfWork(factory)


def unique_slug() -> str:
    """A slug no other test used: the cache lives as long as the process, so a new text is parsed."""
    return f"cache-{uuid.uuid4().hex[:12]}"


def with_slug(text: str, slug: str) -> str:
    return "".join(f"slug: {slug}\n" if line.startswith("slug:") else line for line in text.splitlines(True))


def test_a_second_read_of_an_unchanged_event_does_not_parse_again(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow, slug=unique_slug())
    before = cache_stats()
    with uow_factory() as uow:
        first = event_definition(uow, event_id)
    with uow_factory() as uow:
        second = event_definition(uow, event_id)
    after = cache_stats()
    assert after.parses - before.parses == 1
    assert after.hits - before.hits == 1
    assert second is first


def test_an_edited_definition_is_read_again(uow_factory: UnitOfWorkFactory) -> None:
    slug = unique_slug()
    with uow_factory() as uow:
        event_id = make_event(uow, slug=slug)
        assert event_definition(uow, event_id).name == "Small Test Cup"
    with uow_factory() as uow:
        event = uow.events.get_or_raise(Event, event_id)
        event.definition_text = event.definition_text.replace("name: Small Test Cup", "name: Renamed Cup", 1)
        uow.events.insert(event)
    before = cache_stats()
    with uow_factory() as uow:
        assert event_definition(uow, event_id).name == "Renamed Cup"
    assert cache_stats().parses - before.parses == 1


def test_an_event_whose_digest_is_known_is_read_without_its_text(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow, slug=unique_slug())
        first = event_definition(uow, event_id)
    with uow_factory() as uow:
        event = uow.events.get_or_raise(Event, event_id)
        assert event.definition_digest == definition_digest(event.definition_text)
    with uow_factory() as uow:
        event = uow.events.get_or_raise(Event, event_id)
        assert definition_of(event) is first
        assert "definition_text" not in event.__dict__  # the deferred text was never loaded


def test_setting_the_text_sets_the_digest_so_the_cache_never_serves_the_old_definition(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow, slug=unique_slug())
        event = uow.events.get_or_raise(Event, event_id)
        old_digest = event.definition_digest
        assert definition_of(event).name == "Small Test Cup"
        event.definition_text = event.definition_text.replace("name: Small Test Cup", "name: Set Cup", 1)
        assert event.definition_digest == definition_digest(event.definition_text) != old_digest
        assert definition_of(event).name == "Set Cup"  # same unit of work, nothing flushed yet


def test_an_event_with_an_empty_digest_has_its_text_read_and_parsed(uow_factory: UnitOfWorkFactory) -> None:
    # The column's default: a row written by something else than the model (neither listener ran).
    with uow_factory() as uow:
        event_id = make_event(uow, slug=unique_slug())
        event = uow.events.get_or_raise(Event, event_id)
        event.definition_text = event.definition_text.replace("name: Small Test Cup", "name: Restored Cup", 1)
        event.definition_digest = ""
        uow.events.insert(event)
    with uow_factory() as uow:
        event = uow.events.get_or_raise(Event, event_id)
        assert event.definition_digest == ""
        assert definition_of(event).name == "Restored Cup"


def test_a_starting_worker_reads_the_files_of_the_newest_events_in_play_and_not_of_closed_ones(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        playing = make_event(uow, slug=unique_slug())
        closed = make_event(uow, slug=unique_slug())
        event = uow.events.get_or_raise(Event, closed)
        event.status = EventStatus.CLOSED.value
        uow.events.add(event)
        bare = uow.events.insert(Event(slug=unique_slug(), name="No file yet", definition_text="")).id
    before = cache_stats()
    with uow_factory() as uow:
        assert definitions.warm_definitions(uow) == 1  # not the closed one, not the one without a file
    assert cache_stats().parses - before.parses == 1
    with uow_factory() as uow:
        event_definition(uow, playing)  # the first job's read: already parsed
        event_definition(uow, closed)  # a closed event is still read when asked for
    after = cache_stats()
    assert (after.parses - before.parses, after.hits - before.hits) == (2, 1)
    with uow_factory() as uow:
        newest = make_event(uow, slug=unique_slug())
    before = cache_stats()
    with uow_factory() as uow:
        assert [e.id for e in uow.events.events_in_play(5)] == [newest, bare, playing]
        assert definitions.warm_definitions(uow, limit=2) == 1  # the newest two: one has no file
    assert cache_stats().parses - before.parses == 1  # the newest only


def test_a_stored_file_that_no_longer_validates_is_refused_with_its_problems_and_not_parsed_twice() -> None:
    slug = unique_slug()
    broken = with_slug(SMALL_EVENT, slug).replace("pool_size: 4", "pool_size: four", 1)
    event = Event(id=10_000, slug=slug, name="Broken", definition_text=broken)
    before = cache_stats()
    with pytest.raises(DefinitionUnavailable) as first:
        definition_of(event)
    with pytest.raises(DefinitionUnavailable):
        definition_of(event)
    assert isinstance(first.value, Conflict)  # a 409 for staff, never a 500
    assert any("pool_size" in problem.path for problem in first.value.problems)
    assert f"{slug}.yaml" in str(first.value)
    assert cache_stats().parses - before.parses == 1


def test_an_event_without_a_definition_file_has_none() -> None:
    event = Event(id=10_001, slug=unique_slug(), name="Bare", definition_text="  \n")
    with pytest.raises(DefinitionUnavailable, match="no event definition"):
        definition_of(event)
    assert definitions.definition_or_none(event) is None


def test_the_cache_keeps_a_bounded_number_of_definitions_and_reads_an_evicted_one_again() -> None:
    events = [
        Event(
            id=20_000 + n,
            slug=(slug := unique_slug()),
            name=slug,
            definition_text=with_slug(SMALL_EVENT, slug),
        )
        for n in range(definitions.CACHE_SIZE + 1)
    ]
    for event in events:
        definition_of(event)
    assert cache_stats().size <= definitions.CACHE_SIZE
    before = cache_stats()
    assert definition_of(events[0]).slug == events[0].slug  # the least recently read went first
    assert cache_stats().parses - before.parses == 1


@pytest.fixture
def app(tmp_path: Path) -> Iterator[FastAPI]:
    application = create_app(Settings(data_dir=tmp_path, environment="test"))
    with TestClient(application):
        yield application


def test_public_pages_read_the_definition_without_parsing_it_on_every_request(app: FastAPI) -> None:
    seeded = seed_small_pool(app.state.uow_factory, slug=unique_slug())
    client = TestClient(app)
    path = seeded.pool_path
    assert client.get(path).status_code == 200
    before = cache_stats()
    for n in range(3):  # a new query string each time: the page is built again (not the page cache's copy)
        assert client.get(f"{path}?n={n}").status_code == 200
    after = cache_stats()
    assert after.parses == before.parses
    assert after.hits > before.hits
