"""Schema, migrations, unit of work, row locks and optimistic concurrency on real PostgreSQL (and SQLite)."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, bindparam, insert, inspect, text, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

from orchestrator.adapters.repositories import among, insert_rows, update_rows
from orchestrator.adapters.tables import (
    ALL_TABLES,
    Annulment,
    AuditLog,
    Board,
    Event,
    Match,
    Player,
    Pool,
    Round,
    Stage,
    Team,
    definition_digest,
)
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import alembic_config, init_db, make_engine, make_session_factory, metadata, utcnow
from orchestrator.errors import StaleEdit
from orchestrator.services.boards import update_boards_or_stale
from tests.support.factories import add_match

pytestmark = pytest.mark.integration


def schema_drift(engine: Engine) -> list[object]:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


@dataclass
class MatchIds:
    event: int
    pool: int
    match: int
    boards: list[int]


def _player(event_id: int, team_id: int, name: str, account: str, main_board: int | None) -> Player:
    return Player(
        event_id=event_id,
        team_id=team_id,
        name=name,
        account=account,
        sex="m",
        birth_year=1990,
        rating=2500,
        main_board=main_board,
        category="open",
    )


def seed_match(uow: UnitOfWork) -> MatchIds:
    """An event with one pool stage, two teams of two players, one round and one two-board match."""
    tag = secrets.token_hex(4)
    event = uow.events.insert(Event(slug=f"ev-{tag}", name=f"Event {tag}"))
    assert event.id is not None
    stage = uow.events.insert(Stage(event_id=event.id, key="top", name="Top", kind="pools"))
    assert stage.id is not None
    pool = uow.rounds.insert(Pool(stage_id=stage.id, letter="A"))
    teams = [
        uow.teams.insert(Team(event_id=event.id, name=f"Team {n}", federation="FID", seed=n)) for n in (1, 2)
    ]
    players = [
        uow.teams.insert(
            _player(event.id, team.id or 0, f"P{team.seed}{board}", f"p{team.seed}{board}-{tag}", board)
        )
        for team in teams
        for board in (1, 2)
    ]
    rnd = uow.rounds.insert(Round(stage_id=stage.id, number=1))
    match, boards = add_match(
        uow,
        round_id=rnd.id or 0,
        pool_id=pool.id,
        teams=(teams[0], teams[1]),
        lineups=(players[:2], players[2:]),
    )
    return MatchIds(event.id, pool.id or 0, match.id or 0, [b.id or 0 for b in boards])


# --- migrations ---------------------------------------------------------------------------------------


def test_upgrade_head_on_a_fresh_postgresql_database_creates_every_table_without_drift(
    pg_empty_url: str,
) -> None:
    engine = make_engine(pg_empty_url)
    try:
        init_db(engine=engine)
        tables = set(inspect(engine).get_table_names())
        assert {t.__tablename__ for t in ALL_TABLES} <= tables  # type: ignore[attr-defined]
        assert current_revision(engine) == head_revision()
        assert schema_drift(engine) == []
        init_db(engine=engine)  # running it again is harmless
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_upgrade_head_on_a_fresh_sqlite_file_creates_its_directory_and_shows_no_drift(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nested' / 'dir' / 'olympiad.sqlite3'}"
    engine = make_engine(url)
    try:
        init_db(engine=engine)
        assert current_revision(engine) == head_revision()
        assert schema_drift(engine) == []
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
            assert connection.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
    finally:
        engine.dispose()


def test_downgrade_to_base_and_upgrade_again_round_trips_on_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        init_db(engine=engine)
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        init_db(engine=engine)
        assert schema_drift(engine) == []
    finally:
        engine.dispose()


def _digest_backfilled(engine: Engine) -> None:
    """Upgrade to the revision before the event digest, store two events, upgrade to head: each event's
    digest is its text's."""
    texts = {"with-file": "slug: with-file\nname: A Cup\n", "without-file": ""}
    with engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "f61c4cc0d274")
        for slug, definition in texts.items():
            connection.execute(
                text(
                    "INSERT INTO event (slug, name, definition_text, status, created_at, updated_at)"
                    " VALUES (:slug, :slug, :text, 'draft', :now, :now)"
                ),
                {"slug": slug, "text": definition, "now": datetime(2026, 1, 1)},
            )
    init_db(engine=engine)
    with engine.connect() as connection:
        stored = dict(connection.execute(text("SELECT slug, definition_digest FROM event")).all())
    assert stored == {slug: definition_digest(definition) for slug, definition in texts.items()}
    assert len(set(stored.values())) == 2 and all(len(value) == 32 for value in stored.values())


def test_the_event_digest_migration_fills_the_digest_of_existing_events_on_postgresql(
    pg_scratch_url: str,
) -> None:
    engine = make_engine(pg_scratch_url)
    try:
        _digest_backfilled(engine)
    finally:
        engine.dispose()


def test_the_event_digest_migration_fills_the_digest_of_existing_events_on_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        _digest_backfilled(engine)
    finally:
        engine.dispose()


def test_migration_files_are_named_by_date_and_slug() -> None:
    versions = Path(__file__).resolve().parents[2] / "migrations" / "versions"
    names = sorted(p.name for p in versions.glob("*.py"))
    assert names, "no migration found"
    for name in names:
        stamp, _, slug = name.partition("_")
        datetime.strptime(stamp, "%Y-%m-%d-%H%M")
        assert slug.endswith(".py") and slug[:-3].replace("_", "").isalnum()


# --- constraints and types ----------------------------------------------------------------------------


def test_timestamps_come_back_timezone_aware_in_utc(uow_factory: UnitOfWorkFactory) -> None:
    moment = datetime(2020, 8, 20, 15, 30, tzinfo=timezone(timedelta(hours=3)))
    with uow_factory() as uow:
        ids = seed_match(uow)
        round_ = uow.rounds.get_or_raise(Match, ids.match)
        round_.finished_at = moment
    with uow_factory() as uow:
        stored = uow.rounds.get_or_raise(Match, ids.match).finished_at
    assert stored == moment
    assert stored is not None and stored.utcoffset() == timedelta(0)


def test_a_naive_timestamp_is_refused(uow_factory: UnitOfWorkFactory) -> None:
    with pytest.raises(Exception, match="naive datetime"), uow_factory() as uow:
        ids = seed_match(uow)
        uow.rounds.get_or_raise(Match, ids.match).finished_at = datetime(2020, 8, 20, 15, 30)
        uow.flush()


def test_the_database_refuses_an_unknown_result_code(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        ids = seed_match(uow)
    with pytest.raises(IntegrityError, match="ck_board_result"), uow_factory() as uow:
        uow.boards.get_or_raise(Board, ids.boards[0]).result = "2-0"
        uow.flush()


def test_a_game_server_account_is_unique_within_an_event(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        ids = seed_match(uow)
        player = uow.boards.get_or_raise(Board, ids.boards[0]).white_player_id
        existing = uow.teams.get_or_raise(Player, player or 0)
        account, team_id = existing.account, existing.team_id
    with pytest.raises(IntegrityError, match="uq_player_event_id_account"), uow_factory() as uow:
        uow.teams.insert(
            Player(
                event_id=ids.event,
                team_id=team_id,
                name="Copy",
                account=account,
                sex="f",
                birth_year=2001,
                rating=2000,
                category="women",
            )
        )


def test_deleting_an_event_deletes_its_structure_with_it(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        ids = seed_match(uow)
    with uow_factory() as uow:
        uow.session.delete(uow.events.get_or_raise(Event, ids.event))
    with uow_factory() as uow:
        assert uow.boards.get(Board, ids.boards[0]) is None
        assert uow.rounds.get(Pool, ids.pool) is None


# --- unit of work -------------------------------------------------------------------------------------


def test_the_unit_of_work_commits_on_leaving_and_runs_queued_calls_after_the_commit(
    uow_factory: UnitOfWorkFactory,
) -> None:
    seen: list[str | None] = []
    slug = f"commit-{secrets.token_hex(4)}"

    def look_from_another_session() -> None:
        with uow_factory() as other:
            event = other.events.get_by_slug(slug)
            seen.append(event.name if event else None)

    with uow_factory() as uow:
        uow.events.insert(Event(slug=slug, name="Committed"))
        uow.after_commit(look_from_another_session)
        assert seen == []  # queued, not run
    assert seen == ["Committed"]


def test_an_error_rolls_back_and_drops_queued_calls(uow_factory: UnitOfWorkFactory) -> None:
    sent: list[int] = []
    slug = f"rollback-{secrets.token_hex(4)}"
    with pytest.raises(RuntimeError), uow_factory() as uow:
        uow.events.insert(Event(slug=slug, name="Never"))
        uow.after_commit(sent.append, 1)
        raise RuntimeError("boom")
    assert sent == []
    with uow_factory() as uow:
        assert uow.events.get_by_slug(slug) is None


def test_a_failed_commit_drops_queued_calls(uow_factory: UnitOfWorkFactory) -> None:
    sent: list[int] = []
    slug = f"dup-{secrets.token_hex(4)}"
    with uow_factory() as uow:
        uow.events.insert(Event(slug=slug, name="First"))
    with pytest.raises(IntegrityError), uow_factory() as uow:
        uow.session.add(Event(slug=slug, name="Second"))  # not flushed: fails at the commit
        uow.after_commit(sent.append, 1)
    assert sent == []


def test_a_failing_queued_call_does_not_undo_the_commit_or_stop_the_others(
    uow_factory: UnitOfWorkFactory,
) -> None:
    sent: list[int] = []
    slug = f"after-{secrets.token_hex(4)}"

    def broken() -> None:
        raise ValueError("broker down")

    with uow_factory() as uow:
        uow.events.insert(Event(slug=slug, name="Kept"))
        uow.after_commit(broken)
        uow.after_commit(sent.append, 2)
    assert sent == [2]
    with uow_factory() as uow:
        assert uow.events.get_by_slug(slug) is not None


# --- optimistic concurrency and row locks ------------------------------------------------------------


def test_a_board_edit_based_on_an_old_version_is_refused_and_names_who_changed_it(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        board_id = seed_match(uow).boards[0]
        version = uow.boards.get_or_raise(Board, board_id).version
    with uow_factory() as uow:
        saved = uow.boards.update_versioned(
            board_id,
            expected_version=version,
            values={"result": "1-0", "result_source": "arbiter"},
            actor="alice",
        )
        assert saved.version == version + 1
    with pytest.raises(StaleEdit) as raised, uow_factory() as uow:
        uow.boards.update_versioned(
            board_id,
            expected_version=version,
            values={"result": "0-1", "result_source": "arbiter"},
            actor="bob",
        )
    current = raised.value.current[0]
    assert (current.value, current.changed_by, current.version) == ("1-0", "alice", version + 1)
    assert "alice" in raised.value.message
    with uow_factory() as uow:
        board = uow.boards.get_or_raise(Board, board_id)
        assert (board.result, board.updated_by) == ("1-0", "alice")


def _bulk_compare_and_set(factory: UnitOfWorkFactory) -> None:
    """Two boards in one statement: the current version is written, the stale one is left as it was."""
    at = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
    with factory() as uow:
        first, second = seed_match(uow).boards
    with factory() as uow:
        stale = uow.boards.get_or_raise(Board, second).version - 1
        changes = [
            {
                "b_id": board_id,
                "b_version": version,
                "result": "0-1",
                "game_status": None,
                "pgn": pgn,
                "updated_by": "worker",
                "updated_at": at,
            }
            for board_id, version, pgn in ((first, 1, "1. e4 e5 0-1"), (second, stale, None))
        ]
        assert uow.boards.update_boards_versioned(changes) == 1
        board = uow.boards.get_or_raise(Board, first)  # read again, not the copy from before the update
        assert (board.result, board.version, board.pgn, board.updated_at) == ("0-1", 2, "1. e4 e5 0-1", at)
    with factory() as uow:
        untouched = uow.boards.get_or_raise(Board, second)
        assert (untouched.result, untouched.version) == ("*", 1)
        assert untouched.updated_by != "worker"
    # Through the service: the stale board is named (who changed it, what it holds), the board the statement
    # did write is not, and the rollback leaves both as they were.
    with factory() as uow:
        versions = {b: uow.boards.get_or_raise(Board, b).version for b in (first, second)}
    changes[0]["b_version"], changes[1]["b_version"] = versions[first], versions[second] - 1
    with pytest.raises(StaleEdit) as raised, factory() as uow:
        update_boards_or_stale(uow, changes)
    assert [(c.entity_id, c.version) for c in raised.value.current] == [(second, versions[second])]
    with factory() as uow:
        assert uow.boards.get_or_raise(Board, first).version == versions[first]


def test_many_boards_are_compared_and_set_in_one_statement_on_postgresql(
    uow_factory: UnitOfWorkFactory,
) -> None:
    _bulk_compare_and_set(uow_factory)


@contextmanager
def _sqlite_factory(path: Path) -> Iterator[UnitOfWorkFactory]:
    """Units of work on a new SQLite file migrated to head (the engine closed after)."""
    engine = make_engine(f"sqlite:///{path}")
    try:
        init_db(engine=engine)
        factory = make_session_factory(engine)
        yield lambda: UnitOfWork(factory)
    finally:
        engine.dispose()


def test_many_boards_are_compared_and_set_on_sqlite_too(tmp_path: Path) -> None:
    with _sqlite_factory(tmp_path / "cas.sqlite3") as factory:
        _bulk_compare_and_set(factory)


def _rows_stored_both_ways(factory: UnitOfWorkFactory) -> None:
    """The same audit rows inserted as executemany and with ``insert_rows`` read back the same, column for
    column (JSON null and SQL NULL, quotes, backslashes, accents, time zones); rows whose keys differ go in
    an executemany, and a naive timestamp is refused as there."""
    at = datetime(2026, 12, 7, 6, 30, 15, 123456, tzinfo=timezone(timedelta(hours=5)))
    rows = [
        {
            "at": at + timedelta(seconds=n),
            "actor": "worker",
            "action": "result.import",
            "entity": "board",
            "entity_id": n if n % 3 else None,
            "event_id": None,
            "old": None if n % 2 else {"result": "*", "quote": 'it\'s \\ "x"'},
            "new": {"result": "1-0", "name": "Zoë Łukasz", "n": n, "list": [1, None, {"a": []}]},
            "reason": None if n % 2 else "Ein Grund: «ok»",
        }
        for n in range(7)
    ]
    table = AuditLog.__table__  # type: ignore[attr-defined]
    with factory() as uow:
        connection = uow.session.connection()
        connection.execute(insert(table), [{**row, "action": "by.executemany"} for row in rows])
        insert_rows(connection, table, [{**row, "action": "by.unnest"} for row in rows])
        insert_rows(connection, table, [])
        insert_rows(
            connection,
            table,
            [
                {"at": at, "actor": "a", "action": "by.mixed", "entity": "e"},
                {"at": at, "actor": "b", "action": "by.mixed", "entity": "e", "reason": "r"},
            ],
        )
    with factory() as uow:
        stored = {
            action: uow.session.execute(
                text(
                    "SELECT at, actor, entity, entity_id, event_id, CAST(old AS TEXT), CAST(new AS TEXT),"
                    " reason FROM audit_log WHERE action = :action ORDER BY id"
                ),
                {"action": action},
            ).all()
            for action in ("by.executemany", "by.unnest", "by.mixed")
        }
    assert len(stored["by.unnest"]) == 7 and stored["by.unnest"] == stored["by.executemany"]
    assert [row[1] for row in stored["by.mixed"]] == ["a", "b"]  # an executemany, as before
    with pytest.raises(Exception, match="naive datetime"), factory() as uow:
        insert_rows(uow.session.connection(), table, [{**rows[0], "at": datetime(2026, 12, 7)}])


def _rows_updated_both_ways(factory: UnitOfWorkFactory) -> None:
    """The same changes written by id as executemany and with ``update_rows`` read back the same."""
    at = datetime(2026, 12, 7, 7, 0, tzinfo=UTC)
    table = AuditLog.__table__  # type: ignore[attr-defined]
    with factory() as uow:
        connection = uow.session.connection()
        for action in ("set.executemany", "set.unnest"):
            insert_rows(
                connection,
                table,
                [{"at": at, "actor": "w", "action": action, "entity": "e", "entity_id": n} for n in range(5)],
            )
    with factory() as uow:
        ids = {
            action: [
                row[0]
                for row in uow.session.execute(
                    text("SELECT id FROM audit_log WHERE action = :a ORDER BY id"), {"a": action}
                )
            ]
            for action in ("set.executemany", "set.unnest")
        }

    def changes(row_ids: list[int]) -> list[dict[str, object]]:
        return [
            {
                "id": row_id,
                "new": None if n == 2 else {"rank": n, "tb": [n, "½"]},
                "reason": f"it's {n}",
                "at": at + timedelta(minutes=n),
            }
            for n, row_id in enumerate(row_ids)
            if n != 3  # one row left alone
        ]

    with factory() as uow:
        connection = uow.session.connection()
        connection.execute(
            update(table).where(table.c.id == bindparam("row_id")),
            [
                {**{k: v for k, v in c.items() if k != "id"}, "row_id": c["id"]}
                for c in changes(ids["set.executemany"])
            ],
        )
        update_rows(connection, table, changes(ids["set.unnest"]))
        update_rows(connection, table, [])
    with factory() as uow:
        stored = {
            action: uow.session.execute(
                text(
                    "SELECT at, entity_id, CAST(new AS TEXT), reason FROM audit_log"
                    " WHERE action = :a ORDER BY id"
                ),
                {"a": action},
            ).all()
            for action in ("set.executemany", "set.unnest")
        }
    assert stored["set.unnest"] == stored["set.executemany"]
    assert [row[3] for row in stored["set.unnest"]] == ["it's 0", "it's 1", "it's 2", None, "it's 4"]


def test_rows_updated_from_arrays_on_postgresql_read_back_as_an_executemany_wrote_them(
    uow_factory: UnitOfWorkFactory,
) -> None:
    _rows_updated_both_ways(uow_factory)


def test_rows_updated_on_sqlite_read_back_as_an_executemany_wrote_them(tmp_path: Path) -> None:
    with _sqlite_factory(tmp_path / "rows.sqlite3") as factory:
        _rows_updated_both_ways(factory)


def test_rows_inserted_from_arrays_on_postgresql_read_back_as_an_executemany_wrote_them(
    uow_factory: UnitOfWorkFactory,
) -> None:
    _rows_stored_both_ways(uow_factory)


def test_rows_inserted_on_sqlite_read_back_as_an_executemany_wrote_them(tmp_path: Path) -> None:
    with _sqlite_factory(tmp_path / "rows.sqlite3") as factory:
        _rows_stored_both_ways(factory)


@contextmanager
def holding(uow_factory: UnitOfWorkFactory, take: Callable[[UnitOfWork], object]) -> Iterator[None]:
    """Run ``take`` in a unit of work on another thread and keep that transaction open inside the block."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        with uow_factory() as uow:
            take(uow)
            locked.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(30)
        yield
    finally:
        release.set()
        holder.join(30)


def test_a_locked_pool_cannot_be_locked_by_a_second_transaction_until_the_first_ends(
    uow_factory: UnitOfWorkFactory, pg_engine: Engine
) -> None:
    with uow_factory() as uow:
        pool_id = seed_match(uow).pool
    with (
        holding(uow_factory, lambda uow: uow.locks.lock_pool(pool_id)),
        pg_engine.connect() as other,
        pytest.raises(OperationalError, match="could not obtain lock"),
    ):
        other.execute(text("SELECT id FROM pool WHERE id = :id FOR UPDATE NOWAIT"), {"id": pool_id})
    with pg_engine.connect() as other:
        assert other.execute(
            text("SELECT id FROM pool WHERE id = :id FOR UPDATE NOWAIT"), {"id": pool_id}
        ).one()


def test_a_locked_row_still_lets_other_transactions_insert_rows_that_refer_to_it(
    uow_factory: UnitOfWorkFactory, pg_engine: Engine
) -> None:
    """A row lock is FOR NO KEY UPDATE: a foreign-key check (FOR KEY SHARE) of another transaction passes.

    With FOR UPDATE, closing a stage (stage locked, then each pool) and a pool's recomputation (pool locked,
    then standings rows inserted, whose foreign key checks the stage) waited for each other until
    PostgreSQL's deadlock detection aborted one, a second later.
    """
    with uow_factory() as uow:
        pool_id = seed_match(uow).pool
        stage_id = uow.rounds.get_or_raise(Pool, pool_id).stage_id

    def lock_both(uow: UnitOfWork) -> None:
        uow.locks.lock(Stage, stage_id)
        uow.locks.lock_pools([pool_id])

    with holding(uow_factory, lock_both):
        for table, row_id in (("stage", stage_id), ("pool", pool_id)):
            with pg_engine.connect() as other:  # what the foreign key check of an INSERT takes
                assert other.execute(
                    text(f"SELECT id FROM {table} WHERE id = :id FOR KEY SHARE NOWAIT"), {"id": row_id}
                ).one()
            with pg_engine.connect() as other, pytest.raises(OperationalError, match="could not obtain"):
                other.execute(  # a second writer still waits
                    text(f"SELECT id FROM {table} WHERE id = :id FOR NO KEY UPDATE NOWAIT"), {"id": row_id}
                )


def test_row_locks_are_a_plain_read_on_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'lock.sqlite3'}")
    try:
        init_db(engine=engine)
        factory = make_session_factory(engine)
        with UnitOfWork(factory) as uow:
            pool_id = seed_match(uow).pool
        with UnitOfWork(factory) as uow:
            assert uow.locks.lock_pool(pool_id).letter == "A"
    finally:
        engine.dispose()


def test_an_event_created_now_stores_a_utc_creation_time(uow_factory: UnitOfWorkFactory) -> None:
    before = datetime.now(UTC)
    with uow_factory() as uow:
        event = uow.events.insert(Event(slug=f"t-{secrets.token_hex(4)}", name="Timed"))
        event_id = event.id or 0
    with uow_factory() as uow:
        created = uow.events.get_or_raise(Event, event_id).created_at
    assert created.tzinfo is not None and before <= created <= datetime.now(UTC)


def test_values_among_an_array_are_unnested_so_a_generic_plan_never_scans_the_array_per_row(
    uow_factory: UnitOfWorkFactory, pg_engine: Engine
) -> None:
    # psycopg prepares a statement after a few runs; PostgreSQL's generic plan of ``id = ANY($1)`` cannot
    # hash the array, and on a table whose statistics lag it compared every row with every value
    # (docs/performance.md, "Arrays as parameters"). The unnested form joins the values instead.
    with uow_factory() as uow:
        ids = seed_match(uow)
        team_id = uow.session.exec(select(Team.id).where(Team.event_id == ids.event)).first() or 0
        extra = [
            uow.teams.insert(_player(ids.event, team_id, f"R{n}", f"r{n}-e{ids.event}", None)).id or 0
            for n in range(40)
        ]
    wanted = [*extra[::3], 10**9]  # one id that is no player
    with uow_factory() as uow:
        found = uow.teams.pairing_accounts(wanted)
    assert sorted(found) == sorted(extra[::3])
    assert {account.name for account in found.values()} == {f"R{n}" for n in range(0, 40, 3)}

    statement = text(
        "PREPARE among_plan(integer[]) AS "
        + str(
            select(col(Player.id)).where(among(Session(pg_engine), col(Player.id), wanted)).compile(pg_engine)
        ).replace("%(param_1)s", "$1")
    )
    with pg_engine.connect() as connection:
        connection.execute(text("SET plan_cache_mode = force_generic_plan"))
        connection.execute(statement)
        literal = "{" + ",".join(str(n) for n in wanted) + "}"  # EXPLAIN EXECUTE takes no bound parameter
        plan = "\n".join(
            row[0] for row in connection.execute(text(f"EXPLAIN EXECUTE among_plan('{literal}')"))
        )
        connection.execute(text("DEALLOCATE among_plan"))
    assert "unnest" in plan
    assert "ANY" not in plan


def test_an_events_annulled_players_are_read_from_the_annulments_of_every_event(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        first, second = seed_match(uow), seed_match(uow)
        players = {
            ids.event: sorted(uow.session.exec(select(Player.id).where(Player.event_id == ids.event)).all())
            for ids in (first, second)
        }
        for player_id in (players[first.event][0], players[first.event][3], players[second.event][1]):
            uow.session.add(
                Annulment(
                    player_id=player_id, reason="engine use", annulled_by="arbiter", annulled_at=utcnow()
                )
            )
    with uow_factory() as uow:
        assert uow.teams.annulled_player_ids(first.event) == {
            players[first.event][0],
            players[first.event][3],
        }
        assert uow.teams.annulled_player_ids(second.event) == {players[second.event][1]}
        assert uow.teams.annulled_player_ids(10**9) == set()


def _history_stored_out_of_order(factory: UnitOfWorkFactory) -> None:
    with factory() as uow:
        ids = seed_match(uow)  # round 1, table 1, boards 1 and 2
        stage_id = uow.session.exec(select(Round.stage_id).join(Match).where(Match.id == ids.match)).one()
        first, second = uow.session.exec(select(Team.id).where(Team.event_id == ids.event)).all()
        later = [uow.rounds.insert(Round(stage_id=stage_id, number=n)) for n in (3, 2)]  # round 3 first
        stored: dict[tuple[int, int], int] = {}
        for rnd, table in ((later[0], 2), (later[0], 1), (later[1], 1)):
            match = uow.rounds.insert(
                Match(
                    round_id=rnd.id or 0,
                    pool_id=ids.pool,
                    match_no=table,
                    first_team_id=first or 0,
                    second_team_id=second or 0,
                )
            )
            stored[rnd.number, table] = match.id or 0
            if rnd.number == 3:  # round 2's match has no board (a forfeit without lineups)
                for board_no in (2, 1):
                    uow.boards.insert(Board(match_id=match.id or 0, board_no=board_no))
    with factory() as uow:
        matches, boards = uow.rounds.matches_and_boards_of_pool(ids.pool)
    assert [(m.round_number, m.match.id) for m in matches] == [
        (1, ids.match),
        (2, stored[2, 1]),
        (3, stored[3, 1]),
        (3, stored[3, 2]),
    ]
    assert list(boards) == sorted(boards)
    assert boards[stored[2, 1]] == []
    for match_id in (ids.match, stored[3, 1], stored[3, 2]):
        assert [b.board_no for b in boards[match_id]] == [1, 2]


def test_a_pools_history_comes_in_round_and_table_order_whatever_order_it_was_stored_in(
    uow_factory: UnitOfWorkFactory,
) -> None:
    _history_stored_out_of_order(uow_factory)


def test_a_pools_history_comes_in_round_and_table_order_on_sqlite_too(tmp_path: Path) -> None:
    with _sqlite_factory(tmp_path / "history.sqlite3") as factory:
        _history_stored_out_of_order(factory)
