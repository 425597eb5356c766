"""Loading an event and its parsed definition, as every job and page does, with the file's text deferred
(now) and read with the row (before): docs/performance.md, "An event row without its file".

    .venv/bin/python bench/event_load.py [--event events/olympiad-2026.yaml] [--repeat 300] [--sqlite]

A scratch database (PostgreSQL: created and dropped; SQLite: a temporary file) holds the event of
``--event``. Each load is a unit of work of its own: ``get_or_raise(Event, id)`` then ``definition_of``,
whose parse is already cached, so what is timed is what a cached read costs. "before" reads the text with
the row (``undefer``) and takes the cache's key from the text (a blake2b of it), as the code did before the
digest column; the two alternate in rounds of 20 so that the machine's drift touches both alike. Printed:
median and fastest of each, and their ratio.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import undefer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orchestrator.adapters.tables import Event, definition_digest  # noqa: E402
from orchestrator.adapters.uow import UnitOfWork  # noqa: E402
from orchestrator.db import init_db, make_engine, make_session_factory  # noqa: E402
from orchestrator.services import definitions  # noqa: E402
from orchestrator.services.setup.event_setup import create_event  # noqa: E402

ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def now_load(factory: Callable[[], UnitOfWork], event_id: int) -> None:
    with factory() as uow:
        definitions.definition_of(uow.events.get_or_raise(Event, event_id))


def before_load(factory: Callable[[], UnitOfWork], event_id: int) -> None:
    with factory() as uow:
        event = uow.session.get(Event, event_id, options=[undefer(Event.definition_text)])
        assert event is not None
        found = definitions._cache.get(event_id, definition_digest(event.definition_text))
        assert found is not None  # parsed by the warm-up


def run(url: str, event_file: Path, repeat: int) -> None:
    engine = make_engine(url)
    init_db(engine=engine)
    factory = make_session_factory(engine)

    def uow() -> UnitOfWork:
        return UnitOfWork(factory)

    with uow() as work:
        event_id = create_event(
            work, definition_text=event_file.read_text(), source=event_file.name, actor="bench"
        )
    for load in (now_load, before_load):  # parse once, prepare the statements
        for _ in range(10):
            load(uow, event_id)
    times: dict[str, list[float]] = {"now": [], "before": []}
    for _ in range(max(1, repeat // 20)):
        for name, load in (("now", now_load), ("before", before_load)):
            for _ in range(20):
                started = time.perf_counter()
                load(uow, event_id)
                times[name].append(time.perf_counter() - started)
    size = len(event_file.read_bytes())
    print(f"{engine.dialect.name}, {event_file.name} ({size / 1000:.0f} kB), {len(times['now'])} loads each")
    for name, label in (("before", "text read with the row"), ("now", "text deferred, digest")):
        values = times[name]
        median, fastest = statistics.median(values) * 1000, min(values) * 1000
        print(f"  {label:<24} median {median:6.3f} ms, fastest {fastest:6.3f} ms")
    ratio = statistics.median(times["before"]) / statistics.median(times["now"])
    print(f"  before / now (medians): {ratio:.2f}x")
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--event", type=Path, default=ROOT / "events" / "olympiad-2026.yaml")
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--sqlite", action="store_true")
    args = parser.parse_args()
    if args.sqlite:
        with tempfile.TemporaryDirectory() as folder:
            run(f"sqlite:///{Path(folder) / 'bench.sqlite3'}", args.event, args.repeat)
        return
    name = f"olympiad_bench_{secrets.token_hex(4)}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        run(
            make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False),
            args.event,
            args.repeat,
        )
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    main()
