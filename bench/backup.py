"""Seconds to export an event and to import it (SQLite, and PostgreSQL when reachable), against a yardstick.

Run: PYTHONPATH=. .venv/bin/python bench/backup.py [--data-dir DIR --slug SLUG] [--runs 3]

Without ``--data-dir`` the event is the backup tests' busy play-off (tests/support/backup.py: the 2020
event, 163 teams, duels played, an Armageddon, appeals) built on a fresh SQLite file; with it, the SQLite
database in DIR (e.g. one ``olympiad demo`` or bench/pages.py played to the end) and its event SLUG.
The yardstick is reading every public JSON document of the event once through the app (the event, its
stages and pools, the bracket, every match and team): the same rows the export reads, on the same machine
in the same run. Printed: best-of-``runs`` seconds for each step and its ratio to the yardstick.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import init_db, make_engine, make_session_factory
from orchestrator.services.backup.event_backup import export_event, import_event
from orchestrator.web.app import create_app
from tests.support.backup import documents, full_event, match_and_team_ids

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def factory(url: str) -> UnitOfWorkFactory:
    engine = make_engine(url)
    init_db(engine=engine)
    sessions = make_session_factory(engine)
    return lambda: UnitOfWork(sessions)


def best(runs: int, step: Callable[[int], object]) -> float:
    times = []
    for run in range(runs):
        started = time.perf_counter()
        step(run)
        times.append(time.perf_counter() - started)
    return min(times)


def drop_pg_database(name: str) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def pg_database(name: str) -> str | None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    try:
        admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
    except Exception as error:  # no PostgreSQL: the SQLite figures are still worth printing
        print(f"PostgreSQL not measured: {error}")
        return None
    return make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--slug", default="backup-cup")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-backup-"))
    settings = Settings(data_dir=args.data_dir or work / "source", environment="test")
    source = factory(settings.sqlalchemy_url)
    if args.data_dir is None:
        full_event(source, slug=args.slug)
    with source() as uow:
        event_id = uow.backup.event_id(args.slug)
    assert event_id is not None, f"no event {args.slug!r}"
    ids = match_and_team_ids(source, event_id)
    app = create_app(settings)
    yardstick = best(args.runs, lambda _run: documents(app, args.slug, *ids))
    archive = work / "event.zip"

    def export(_run: int) -> None:
        with source() as uow:
            export_event(uow, slug=args.slug, path=archive)

    def restore(url_of: Callable[[int], str | None]) -> Callable[[int], None]:
        def step(run: int) -> None:
            url = url_of(run)
            assert url is not None
            with factory(url)() as uow:
                import_event(uow, path=archive, actor="bench")

        return step

    figures = {"export": best(args.runs, export)}
    figures["import into SQLite (with migrating the new file)"] = best(
        args.runs, restore(lambda run: f"sqlite:///{work}/restored-{run}.sqlite3")
    )
    pg_urls = [pg_database(f"bench_backup_{run}") for run in range(args.runs)]
    if None not in pg_urls:
        figures["import into PostgreSQL (with migrating the new database)"] = best(
            args.runs, restore(lambda run: pg_urls[run])
        )
        for run in range(args.runs):
            drop_pg_database(f"bench_backup_{run}")
    print(f"archive: {archive.stat().st_size} bytes; {len(ids[0])} matches, {len(ids[1])} teams")
    print(f"yardstick (every public JSON document of the event once, best of {args.runs}): {yardstick:.2f} s")
    for label, seconds in figures.items():
        print(f"{label}: {seconds:.2f} s = {seconds / yardstick:.2f} x yardstick")


if __name__ == "__main__":
    main()
