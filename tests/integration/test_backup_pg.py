"""Backup and restore across databases (docs/backup.md): an event built on SQLite, exported, imported into a
fresh PostgreSQL database, serves the same public JSON documents; exported again from PostgreSQL and
imported into a fresh SQLite file it still does, and both archives hold the same rows. PostgreSQL's id
sequences continue after the restored ids, and a refused archive leaves the PostgreSQL database as it was."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.adapters.event_archive import member_name
from orchestrator.adapters.repo_backup import event_plan
from orchestrator.adapters.tables import Team
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_session_factory
from orchestrator.errors import ValidationFailed
from orchestrator.services.backup.event_backup import export_event, import_event
from orchestrator.services.playoff.armageddon import reveal_armageddon_lot
from orchestrator.web.app import create_app
from tests.integration.conftest import scratch_database
from tests.support.backup import (
    damaged_archive,
    documents,
    full_event,
    match_and_team_ids,
    rewritten_archive,
    row_counts,
    sealed_duel_id,
)
from tests.support.databases import migrated_engine

SLUG = "backup-cup"
NOT_COMPARED = {"audit_log", "user"}  # the import adds its own audit entry; users get fresh ids


def _factory(url: str) -> UnitOfWorkFactory:
    engine = migrated_engine(url)
    session_factory = make_session_factory(engine)
    return lambda: UnitOfWork(session_factory)


@pytest.fixture
def scratch_pg() -> Iterator[str]:
    """A fresh PostgreSQL database for one test, migrated to head, dropped afterwards."""
    with scratch_database("olympiad_test_backup", migrated=True) as url:
        yield url


def _rows(archive: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(archive) as opened:
        return {
            plan.name: sorted(opened.read(member_name(plan.name)).decode().splitlines())
            for plan in event_plan()
            if plan.name not in NOT_COMPARED
        }


def test_an_event_moves_from_sqlite_to_postgresql_and_back_unchanged(scratch_pg: str, tmp_path: Path) -> None:
    sqlite = Settings(data_dir=tmp_path / "sqlite", environment="test")
    source = _factory(sqlite.sqlalchemy_url)
    setup = full_event(source, slug=SLUG)
    first = tmp_path / "from-sqlite.zip"
    with source() as uow:
        export_event(uow, slug=SLUG, path=first)

    postgres = Settings(data_dir=tmp_path / "pg", environment="test", database_url=scratch_pg)
    target = _factory(scratch_pg)
    with target() as uow:
        report = import_event(uow, path=first, actor="test", settings=postgres)
    assert report.rows["armageddon"] == 1 and report.rows["appeal"] == 2
    ids = match_and_team_ids(source, setup.event_id)
    expected = documents(create_app(sqlite), SLUG, *ids)
    assert documents(create_app(postgres), SLUG, *ids) == expected

    second = tmp_path / "from-postgresql.zip"
    with target() as uow:
        export_event(uow, slug=SLUG, path=second)
    assert _rows(second) == _rows(first)
    back = Settings(data_dir=tmp_path / "back", environment="test")
    with _factory(back.sqlalchemy_url)() as uow:
        import_event(uow, path=second, actor="test", settings=back)
    assert documents(create_app(back), SLUG, *ids) == expected

    # New rows after the restore get ids past the restored ones (the sequences were moved on).
    with target() as uow:
        team = uow.teams.insert(Team(event_id=setup.event_id, name="Late entry", federation="XXX", seed=999))
        assert (team.id or 0) > max(ids[1])
    duel_id = sealed_duel_id(target, setup)
    with target() as uow:
        assert reveal_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter")


def test_a_refused_archive_leaves_postgresql_as_it_was(scratch_pg: str, tmp_path: Path) -> None:
    source = _factory(Settings(data_dir=tmp_path / "sqlite", environment="test").sqlalchemy_url)
    full_event(source, slug=SLUG)
    archive = tmp_path / "event.zip"
    with source() as uow:
        export_event(uow, slug=SLUG, path=archive)
    target = _factory(scratch_pg)
    empty = row_counts(target)
    bad = {
        "truncated": damaged_archive(archive, tmp_path, "truncated"),
        "flipped": damaged_archive(archive, tmp_path, "flipped"),
        "no-players": rewritten_archive(archive, tmp_path, "no-players"),  # fails while inserting
    }
    for how, path in bad.items():
        with pytest.raises(ValidationFailed), target() as uow:
            import_event(uow, path=path, actor="test")
        assert row_counts(target) == empty, how
    with target() as uow:
        import_event(uow, path=archive, actor="test")
    restored = row_counts(target)
    with pytest.raises(ValidationFailed) as refused, target() as uow:
        import_event(uow, path=archive, actor="test")
    assert any(f"event {SLUG!r} already exists" in p for p in refused.value.problems)
    assert row_counts(target) == restored
    manifest = json.loads(zipfile.ZipFile(archive).read("manifest.json"))
    assert {e["name"]: e["rows"] for e in manifest["tables"]}["board"] > 0
