"""A round's audit entries inserted as executemany against ``insert_rows`` (one INSERT ... SELECT FROM
unnest(arrays)), on PostgreSQL; the same for the standings rows' ``update_rows``.

Run: .venv/bin/python bench/insert_rows.py [--rows 380] [--repeats 30]
Needs PostgreSQL (OLYMPIAD_BENCH_PG_ADMIN_URL, default postgresql+psycopg://postgres@127.0.0.1:5432/postgres):
a scratch database is created, migrated and dropped after. Each way runs in its own transaction, rolled
back, alternating with the other (so both share the machine's mood); printed: the median wall time of one
batch, this process's CPU per batch, and the ratio. The executemany is the yardstick (the way before).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from sqlalchemy import Connection, bindparam, insert, text, update  # noqa: E402
from whole_event import create_database, drop_database  # noqa: E402

from orchestrator.adapters.repositories import insert_rows, update_rows  # noqa: E402
from orchestrator.adapters.tables import AuditLog  # noqa: E402
from orchestrator.db import init_db, make_engine, utcnow  # noqa: E402


def timed(connection: Connection, run: Callable[[], None], repeats: int) -> tuple[list[float], float]:
    walls: list[float] = []
    cpu = 0.0
    for _ in range(repeats):
        started, cpu_started = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - started)
        cpu += time.process_time() - cpu_started
        connection.rollback()
    return walls, cpu / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=380)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    url = create_database()
    engine = make_engine(url)
    try:
        init_db(engine=engine)
        table: Any = AuditLog.__table__  # type: ignore[attr-defined]
        now = utcnow()
        rows = [
            {
                "at": now,
                "actor": "worker",
                "action": "board.result",
                "entity": "board",
                "entity_id": n,
                "event_id": None,
                "old": {"result": "*", "source": None, "game_status": "started"},
                "new": {"result": "1-0", "source": "server", "game_status": "mate", "game_id": f"g{n:07d}"},
                "reason": "game server: mate",
            }
            for n in range(args.rows)
        ]
        with engine.connect() as connection:
            connection.execute(insert(table), rows)  # rows to update by id
            connection.commit()
            ids = [r[0] for r in connection.execute(text("SELECT id FROM audit_log ORDER BY id"))]
            changes = [{"id": i, "reason": "corrected", "new": {"result": "0-1"}} for i in ids]
            ways: dict[str, Callable[[], None]] = {
                "insert, executemany": lambda: connection.execute(insert(table), rows) and None,
                "insert, insert_rows": lambda: insert_rows(connection, table, rows),
                "update, executemany": lambda: (
                    connection.execute(
                        update(table).where(table.c.id == bindparam("row_id")),
                        [{"reason": c["reason"], "new": c["new"], "row_id": c["id"]} for c in changes],
                    )
                    and None
                ),
                "update, update_rows": lambda: update_rows(connection, table, changes),
            }
            for run in ways.values():  # warm: statements prepared, caches filled
                timed(connection, run, 3)
            results: dict[str, tuple[list[float], float]] = {way: ([], 0.0) for way in ways}
            for _ in range(args.repeats):
                for way, run in ways.items():
                    walls, cpu = timed(connection, run, 1)
                    results[way] = (results[way][0] + walls, results[way][1] + cpu / args.repeats)
        print(f"{args.rows} audit rows a batch, median of {args.repeats}, alternating:")
        for way, (walls, cpu) in results.items():
            print(f"  {way:22s} {1000 * statistics.median(walls):7.2f} ms wall {1000 * cpu:7.2f} ms CPU here")
        for kind in ("insert", "update"):
            before, after = results[f"{kind}, executemany"], results[f"{kind}, {kind}_rows"]
            print(
                f"  {kind}: {statistics.median(before[0]) / statistics.median(after[0]):.1f}x wall,"
                f" {before[1] / max(after[1], 1e-9):.1f}x CPU"
            )
    finally:
        engine.dispose()
        drop_database(url)


if __name__ == "__main__":
    main()
