"""The reads a play-off step repeats, timed on a played event's database: the knockout stage loaded as every
Armageddon move and advance loads it (``load_stage``, and ``load_duel`` with its duel's lock), two of its
parts (``bracket_rows``, the event and stage), and the plain-row state the workers' advance compares
(``bracket_state``) (docs/performance.md, "A play-off step's reads").

    .venv/bin/python bench/whole_event.py --keep-database
    .venv/bin/python bench/playoff_reads.py postgresql+psycopg://postgres@127.0.0.1:5432/<kept database>
    dropdb -h 127.0.0.1 -U postgres <kept database>

Each read runs ``--repeat`` times, each in a unit of work of its own as in a job (a new session: no object
is already in its identity map); printed: median and fastest. A unit of work's first statement, ``SELECT
1``, is timed too, as the yardstick of the same run (it begins the transaction, as each read below does). To
compare two commits, run this with ``PYTHONPATH`` on a worktree of each, alternating.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from sqlalchemy import text

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import make_engine, make_session_factory
from orchestrator.services.playoff._context import load_duel, load_stage


def timed(what: str, repeat: int, factory: object, call: Callable[[UnitOfWork], object]) -> None:
    times = []
    for _ in range(repeat):
        with UnitOfWork(factory) as uow:  # type: ignore[arg-type]
            started = time.perf_counter()
            call(uow)
            times.append(time.perf_counter() - started)
    print(f"{what:<44} median {statistics.median(times) * 1000:7.2f} ms, fastest {min(times) * 1000:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("database_url")
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    engine = make_engine(args.database_url)
    factory = make_session_factory(engine)
    with engine.connect() as connection:
        stage_id, duels, matches, boards = connection.execute(
            text(
                "SELECT d.stage_id, count(DISTINCT d.id), count(DISTINCT m.id), count(b.id) FROM duel d"
                " LEFT JOIN match m ON m.duel_id = d.id LEFT JOIN board b ON b.match_id = m.id"
                " GROUP BY d.stage_id ORDER BY 4 DESC LIMIT 1"
            )
        ).one()
        duel_id = connection.execute(
            text(
                "SELECT min(duel_id) FROM armageddon a JOIN duel d ON d.id = a.duel_id WHERE d.stage_id = :s"
            ),
            {"s": stage_id},
        ).scalar_one()
    print(f"knockout stage {stage_id}: {duels} duels, {matches} matches, {boards} boards; duel {duel_id}")
    timed("SELECT 1 (yardstick)", args.repeat, factory, lambda uow: uow.session.execute(text("SELECT 1")))
    timed(
        "EventRepository.event_and_stage",
        args.repeat,
        factory,
        lambda uow: uow.events.event_and_stage(stage_id),
    )
    timed(
        "PlayoffRepository.bracket_rows", args.repeat, factory, lambda uow: uow.playoff.bracket_rows(stage_id)
    )
    timed(
        "PlayoffRepository.bracket_state",
        args.repeat,
        factory,
        lambda uow: uow.playoff.bracket_state(stage_id),
    )
    timed("_context.load_stage", args.repeat, factory, lambda uow: load_stage(uow, stage_id))
    timed("_context.load_duel (locked)", args.repeat, factory, lambda uow: load_duel(uow, duel_id, lock=True))
    engine.dispose()


if __name__ == "__main__":
    main()
