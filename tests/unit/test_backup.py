"""Backup and restore of a whole event (docs/backup.md) on SQLite: every table is exported or excluded with a
reason, the archive holds no password hash or token, a restore gives the same public documents and can
still draw a sealed lot, and a bad archive is refused whole with nothing written."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from orchestrator.adapters.event_archive import MANIFEST, member_name
from orchestrator.adapters.repo_backup import (
    EXCLUDED_TABLES,
    MERGED_BY,
    SECRET_COLUMNS,
    event_plan,
    unplanned_tables,
)
from orchestrator.adapters.tables import Event, User, definition_digest
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.cli import app as cli_app
from orchestrator.config import Settings, get_settings
from orchestrator.db import dispose_engines, make_session_factory, metadata
from orchestrator.errors import ValidationFailed
from orchestrator.services.accounts.users import accept_invitation
from orchestrator.services.backup.event_backup import export_event, import_event
from orchestrator.services.playoff.armageddon import reveal_armageddon_lot
from orchestrator.web.app import create_app
from tests.support.backup import (
    TOKEN_CIPHERTEXT,
    damaged_archive,
    documents,
    full_event,
    match_and_team_ids,
    rewritten_archive,
    row_counts,
    sealed_duel_id,
)
from tests.support.databases import migrated_engine
from tests.support.factories import make_event
from tests.support.playoff import PlayoffSetup

SLUG = "backup-cup"


def _factory(path: Path) -> UnitOfWorkFactory:
    engine = migrated_engine(f"sqlite:///{path}")
    session_factory = make_session_factory(engine)
    return lambda: UnitOfWork(session_factory)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, PlayoffSetup, Path]]:
    """The busy event on a SQLite file, and its archive (built once for the module)."""
    folder = tmp_path_factory.mktemp("source")
    factory = _factory(folder / "olympiad.sqlite3")
    setup = full_event(factory, slug=SLUG)
    archive = folder / "event.zip"
    with factory() as uow:
        export_event(uow, slug=SLUG, path=archive)
    yield folder, setup, archive


@pytest.fixture
def target(tmp_path: Path) -> UnitOfWorkFactory:
    return _factory(tmp_path / "olympiad.sqlite3")


def test_every_table_is_exported_or_excluded_with_a_reason() -> None:
    """A table added to the schema joins the export through its foreign keys, or must be listed."""
    assert unplanned_tables() == []
    assert all(reason.strip() for reason in EXCLUDED_TABLES.values())
    assert set(EXCLUDED_TABLES) <= set(metadata.tables)
    planned = {plan.name: plan for plan in event_plan()}
    for table, columns in SECRET_COLUMNS.items():
        assert set(columns) <= set(metadata.tables[table].c.keys()), table
        assert not set(columns) & set(planned[table].columns)


def test_no_table_refers_to_a_table_whose_ids_are_not_kept() -> None:
    """Imported users get fresh ids: that is right only while nothing refers to a user by id."""
    referring = [
        f"{fk.parent.table.name}.{fk.parent.name}"
        for table in metadata.sorted_tables
        for fk in table.foreign_keys
        if fk.column.table.name in MERGED_BY
    ]
    assert referring == []


def test_the_archive_holds_no_password_hash_and_no_token(
    source: tuple[Path, PlayoffSetup, Path],
) -> None:
    folder, _setup, archive = source
    with _factory(folder / "olympiad.sqlite3")() as uow:
        users = uow.session.exec(select(User)).all()
        secrets = [u.password_hash for u in users if u.password_hash]
        secrets += [u.invitation_token_hash for u in users if u.invitation_token_hash]
    assert len(secrets) >= 4  # owner, arbiter, captain passwords, captain-two invitation
    raw = archive.read_bytes()
    with zipfile.ZipFile(archive) as opened:
        unpacked = b"".join(opened.read(name) for name in opened.namelist())
    for secret in [*secrets, TOKEN_CIPHERTEXT, "$argon2"]:
        assert secret.encode() not in raw and secret.encode() not in unpacked
    rows = [json.loads(line) for line in opened_member(archive, "user").splitlines()]
    assert {r["username"] for r in rows} == {"owner", "arbiter", "captain", "captain-two"}
    assert all("password_hash" not in r and "invitation_token_hash" not in r for r in rows)


def opened_member(archive: Path, table: str) -> bytes:
    with zipfile.ZipFile(archive) as opened:
        return opened.read(member_name(table))


def test_the_manifest_comes_first_and_describes_every_member(source: tuple[Path, PlayoffSetup, Path]) -> None:
    _folder, _setup, archive = source
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        manifest = json.loads(opened.read(MANIFEST))
    assert names[0] == MANIFEST
    assert manifest["format"] == "olympiad-event-archive" and manifest["format_version"] == 1
    assert manifest["event_slug"] == SLUG and manifest["schema_revision"]
    assert manifest["confidential"] is True and manifest["sealed_lots"] == 1
    listed = {entry["member"]: entry for entry in manifest["tables"]}
    assert set(names[1:]) == set(listed)
    assert [entry["name"] for entry in manifest["tables"]] == [plan.name for plan in event_plan()]
    assert listed[member_name("armageddon")]["rows"] == 1
    assert listed[member_name("appeal")]["rows"] == 2


def test_a_restore_shows_the_same_public_documents_and_draws_the_sealed_lot(
    source: tuple[Path, PlayoffSetup, Path], tmp_path: Path
) -> None:
    folder, setup, archive = source
    restored = Settings(data_dir=tmp_path, environment="test")
    factory = _factory(tmp_path / "olympiad.sqlite3")
    with factory() as uow:
        report = import_event(uow, path=archive, actor="test", settings=restored)
    assert report.slug == SLUG and report.kept_users == ()
    assert {i.username for i in report.invitations} == {"owner", "arbiter"}
    ids = match_and_team_ids(factory, setup.event_id)
    before = documents(create_app(Settings(data_dir=folder, environment="test")), SLUG, *ids)
    assert documents(create_app(restored), SLUG, *ids) == before
    with factory() as uow:  # the invitation sets the password of a restored staff account
        accept_invitation(uow, token=report.invitations[0].token, password="a long new password 1")
    duel_id = sealed_duel_id(factory, setup)
    with factory() as uow:  # the seed committed before the backup draws the lot after the restore
        drawn = reveal_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter")
    assert drawn


def test_an_existing_staff_account_is_kept_and_a_second_import_is_refused(
    source: tuple[Path, PlayoffSetup, Path], target: UnitOfWorkFactory
) -> None:
    _folder, _setup, archive = source
    with target() as uow:
        uow.accounts.insert(User(username="owner", role="owner", password_hash="kept"))
    with target() as uow:
        report = import_event(uow, path=archive, actor="test")
    assert report.kept_users == ("owner",)
    with target() as uow:
        users = {u.username: u for u in uow.session.exec(select(User)).all()}
    assert users["owner"].password_hash == "kept"
    restored = [users[name] for name in ("arbiter", "captain", "captain-two")]
    assert all(u.password_hash is None and u.invitation_token_hash is None for u in restored[1:])
    assert all(u.session_generation >= 2 for u in restored)  # no old session cookie names them
    counts = row_counts(target)
    with pytest.raises(ValidationFailed) as refused, target() as uow:
        import_event(uow, path=archive, actor="test")
    assert any("already exists" in p for p in refused.value.problems)
    assert row_counts(target) == counts


@pytest.mark.parametrize(
    ("how", "says"),
    [
        ("truncated", "not a readable zip archive"),
        ("flipped", "member tables/board.jsonl"),
        ("not-a-zip", "not a readable zip archive"),
        ("newer-format", "format version 2 is not supported"),
        ("newer-schema", "schema revision 'ffffffffffff'"),
        ("missing-member", "member tables/match.jsonl is missing"),
        ("unknown-column", "table team: unknown column(s) colour"),
        ("no-players", "player"),
        ("unknown-table", "table mystery: not a table of an event in this database's schema"),
        ("bad-values", "table team row 1 column seed: 'one' is not of the column's type"),
        ("bad-values", "table team row 1 column withdrawn_at: '2020-08-27T10:00:00' has no time zone"),
    ],
)
def test_a_bad_archive_is_refused_whole_and_nothing_is_written(
    source: tuple[Path, PlayoffSetup, Path], target: UnitOfWorkFactory, tmp_path: Path, how: str, says: str
) -> None:
    _folder, _setup, archive = source
    if how in ("truncated", "flipped", "not-a-zip"):
        bad = damaged_archive(archive, tmp_path, how)
    else:
        bad = rewritten_archive(archive, tmp_path, how)
    counts = row_counts(target)
    with pytest.raises(ValidationFailed) as refused, target() as uow:
        import_event(uow, path=bad, actor="test")
    assert any(says in problem for problem in refused.value.problems), refused.value.problems
    assert row_counts(target) == counts
    with target() as uow:
        assert uow.session.exec(select(Event)).all() == []


def test_ids_already_used_by_another_event_are_listed_and_nothing_is_written(
    source: tuple[Path, PlayoffSetup, Path], target: UnitOfWorkFactory
) -> None:
    _folder, _setup, archive = source
    with target() as uow:
        make_event(uow)
    counts = row_counts(target)
    with pytest.raises(ValidationFailed) as refused, target() as uow:
        import_event(uow, path=archive, actor="test")
    assert "table event: ids already used in this database: 1" in refused.value.problems
    assert any(
        p.startswith("table player: ids already used in this database: 1, 2, 3")
        for p in refused.value.problems
    )
    assert row_counts(target) == counts


def test_the_commands_export_and_import_and_say_why_they_refuse(
    source: tuple[Path, PlayoffSetup, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, _setup, _archive = source
    runner = CliRunner()
    archive = tmp_path / "cli.zip"
    try:
        monkeypatch.setenv("OLYMPIAD_DATA_DIR", str(folder))
        get_settings.cache_clear()
        exported = runner.invoke(cli_app, ["export-event", SLUG, str(archive)])
        unknown = runner.invoke(cli_app, ["export-event", "no-such-event", str(tmp_path / "x.zip")])
        monkeypatch.setenv("OLYMPIAD_DATA_DIR", str(tmp_path / "target"))
        get_settings.cache_clear()
        imported = runner.invoke(cli_app, ["import-event", str(archive)])
        again = runner.invoke(cli_app, ["import-event", str(archive)])
        missing = runner.invoke(cli_app, ["import-event", str(tmp_path / "missing.zip")])
    finally:
        dispose_engines()
        get_settings.cache_clear()
    assert exported.exit_code == 0, exported.output
    assert "confidential" in exported.output
    assert unknown.exit_code == 2 and "does not exist" in unknown.output
    assert not (tmp_path / "x.zip").exists() and not (tmp_path / "x.zip.partial").exists()
    assert missing.exit_code == 2 and "no such file" in missing.output
    assert imported.exit_code == 0, imported.output
    assert "/invitation/" in imported.output and "rows restored" in imported.output
    assert again.exit_code == 2
    assert "refused, nothing was written" in again.output and "already exists" in again.output


def _with_member(
    archive: Path, tmp_path: Path, table: str, body: bytes, columns: list[str] | None = None
) -> Path:
    """The archive written again with ``table``'s member replaced by ``body`` (checksum and count agree)."""
    out_path = tmp_path / f"changed-{table}.zip"
    with zipfile.ZipFile(archive) as opened, zipfile.ZipFile(out_path, "w", zipfile.ZIP_DEFLATED) as out:
        manifest = json.loads(opened.read(MANIFEST))
        members = {name: opened.read(name) for name in opened.namelist()[1:]}
        members[member_name(table)] = body
        entry = next(e for e in manifest["tables"] if e["name"] == table)
        entry["rows"] = body.count(b"\n")
        entry["sha256"] = hashlib.sha256(body).hexdigest()
        if columns is not None:
            entry["columns"] = columns
        out.writestr(MANIFEST, json.dumps(manifest))
        for name, member in members.items():
            out.writestr(name, member)
    return out_path


@pytest.mark.parametrize("digest", ["forged", "absent"])
def test_an_imported_event_gets_the_digest_of_its_own_text_whatever_the_archive_says(
    source: tuple[Path, PlayoffSetup, Path], tmp_path: Path, digest: str
) -> None:
    """A forged digest would name another text's cached parse; an archive of the schema before the digest
    column has none (docs/backup.md, "Import")."""
    _folder, _setup, archive = source
    with zipfile.ZipFile(archive) as opened:
        manifest = json.loads(opened.read(MANIFEST))
        [event] = [json.loads(line) for line in opened.read(member_name("event")).splitlines()]
    columns = next(e["columns"] for e in manifest["tables"] if e["name"] == "event")
    if digest == "forged":
        event["definition_digest"] = "0" * 32
    else:
        del event["definition_digest"]
        columns = [c for c in columns if c != "definition_digest"]
    changed = _with_member(archive, tmp_path, "event", (json.dumps(event) + "\n").encode(), columns)
    target = _factory(tmp_path / "olympiad.sqlite3")
    with target() as uow:
        import_event(uow, path=changed, actor="test")
    with target() as uow:
        stored = uow.events.get_by_slug(SLUG)
        assert stored is not None
        assert stored.definition_digest == definition_digest(event["definition_text"]) != "0" * 32


def test_rows_naming_another_event_are_listed_and_the_whole_archive_is_refused(
    source: tuple[Path, PlayoffSetup, Path], target: UnitOfWorkFactory, tmp_path: Path
) -> None:
    """docs/backup.md, "Import": every row of an archive belongs to the event being imported."""
    _folder, _setup, archive = source
    with target() as uow:
        uow.events.insert(Event(id=500, slug="other-cup", name="Other cup"))
    with zipfile.ZipFile(archive) as opened:
        lots = [json.loads(line) for line in opened.read(member_name("lot")).splitlines()]
        audits = [json.loads(line) for line in opened.read(member_name("audit_log")).splitlines()]
    planted_lot = {**lots[0], "id": 90001, "event_id": 500, "commitment": "0" * 64}
    planted_audit = {**audits[0], "id": 90002, "event_id": 500}
    step = _with_member(
        archive, tmp_path, "lot", "".join(json.dumps(r) + "\n" for r in [*lots, planted_lot]).encode()
    )
    bad = _with_member(
        step, tmp_path, "audit_log", "".join(json.dumps(r) + "\n" for r in [*audits, planted_audit]).encode()
    )
    counts = row_counts(target)
    with pytest.raises(ValidationFailed) as refused, target() as uow:
        import_event(uow, path=bad, actor="test")
    problems = refused.value.problems
    assert any("table lot" in p and "90001" in p and "another event" in p for p in problems), problems
    assert any("table audit_log" in p and "90002" in p and "another event" in p for p in problems), problems
    assert row_counts(target) == counts


def test_a_member_of_millions_of_empty_rows_is_refused_at_the_row_cap_without_reading_it_all(
    source: tuple[Path, PlayoffSetup, Path], target: UnitOfWorkFactory, tmp_path: Path
) -> None:
    """docs/backup.md, "Limits": rows and unpacked bytes per member are capped, and read as a stream."""
    _folder, _setup, archive = source
    bomb = _with_member(archive, tmp_path, "lot", b"{}\n" * 200_000, columns=[])
    settings = Settings(data_dir=tmp_path, environment="test", archive_max_rows=1000)
    with pytest.raises(ValidationFailed) as refused, target() as uow:
        import_event(uow, path=bomb, actor="test", settings=settings)
    assert any("more than 1000 rows" in p for p in refused.value.problems), refused.value.problems
    tight = Settings(data_dir=tmp_path, environment="test", archive_max_member_bytes=10_000)
    with pytest.raises(ValidationFailed) as refused, target() as uow:
        import_event(uow, path=bomb, actor="test", settings=tight)
    assert any("more than 10000 bytes" in p for p in refused.value.problems), refused.value.problems
