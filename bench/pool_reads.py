"""The reads a Swiss round repeats, timed on a played event's database: a pool's whole history, its teams,
the event's annulled players and the pairing's player accounts (docs/performance.md, "Arrays as
parameters"), then what a recompute and a pairing make of them: the pool's records, its standings computed
afresh and the Swiss state (docs/performance.md, "A round's reads and standings").

    .venv/bin/python bench/whole_event_2026.py --event events/olympiad-2026.yaml --no-celery --keep-database
    .venv/bin/python bench/pool_reads.py postgresql+psycopg://postgres@127.0.0.1:5432/<kept database>
    dropdb -h 127.0.0.1 -U postgres <kept database>

Each read runs ``--repeat`` times on one unit of work (psycopg prepares a statement from its fifth run, as in
a worker); printed: median and fastest. Then PostgreSQL's own time for the history's statement with and
without the four-key ORDER BY it had before (server-side, ``EXPLAIN ANALYZE`` of the generic plan). To
compare two commits, run this with ``PYTHONPATH`` on a worktree of each, alternating.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable

from sqlalchemy import text

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import make_engine, make_session_factory
from orchestrator.services.results.standings import PoolRecords, _computed, _standings, pool_records
from orchestrator.services.swiss.state import swiss_state_of

HISTORY = (
    "SELECT match.id, match.round_id, match.first_team_id, match.second_team_id, match.forfeit, round.number,"
    " match.match_no, board.match_id, board.board_no, board.result, board.white_player_id,"
    " board.black_player_id FROM match JOIN round ON round.id = match.round_id"
    " LEFT OUTER JOIN board ON board.match_id = match.id WHERE match.pool_id = $1"
)
SORTED = " ORDER BY round.number, match.match_no, match.id, board.board_no"


def timed(what: str, repeat: int, call: Callable[[], object]) -> None:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    print(f"{what:<44} median {statistics.median(times) * 1000:7.2f} ms, fastest {min(times) * 1000:7.2f} ms")


def fresh_standings(data: PoolRecords) -> None:
    _computed.cache_clear()
    _standings(data)


def server_ms(connection: object, sql: str, pool_id: int, repeat: int) -> float:
    connection.execute(text("SET plan_cache_mode = force_generic_plan"))  # type: ignore[attr-defined]
    connection.execute(text(f"PREPARE history(integer) AS {sql}"))  # type: ignore[attr-defined]
    times = []
    for _ in range(repeat):
        plan = connection.execute(text(f"EXPLAIN ANALYZE EXECUTE history({pool_id})")).all()  # type: ignore[attr-defined]
        found = re.search(r"Execution Time: ([0-9.]+) ms", "\n".join(row[0] for row in plan))
        assert found is not None
        times.append(float(found.group(1)))
    connection.execute(text("DEALLOCATE history"))  # type: ignore[attr-defined]
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("database_url")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    engine = make_engine(args.database_url)
    factory = make_session_factory(engine)
    with engine.connect() as connection:
        pool_id, matches = connection.execute(
            text("SELECT pool_id, count(*) FROM match GROUP BY pool_id ORDER BY 2 DESC LIMIT 1")
        ).one()
        event_id = connection.execute(text("SELECT min(id) FROM event")).scalar_one()
        player_ids = (
            connection.execute(
                text("SELECT id FROM player WHERE event_id = :e ORDER BY id LIMIT 240 OFFSET 500"),
                {"e": event_id},
            )
            .scalars()
            .all()
        )
    print(f"pool {pool_id} ({matches} matches), event {event_id}, {len(player_ids)} player ids")
    with UnitOfWork(factory) as uow:
        timed(
            "RoundRepository.matches_and_boards_of_pool",
            args.repeat,
            lambda: uow.rounds.matches_and_boards_of_pool(pool_id),
        )
        timed("RoundRepository.teams_of_pool", args.repeat, lambda: uow.rounds.teams_of_pool(pool_id))
        timed(
            "TeamRepository.annulled_player_ids", args.repeat, lambda: uow.teams.annulled_player_ids(event_id)
        )
        timed(
            "TeamRepository.pairing_accounts (240 ids)",
            args.repeat,
            lambda: uow.teams.pairing_accounts(player_ids),
        )
        # What a recompute and a Swiss pairing make of those reads: the pool's records, its standings
        # computed afresh (the cache of identical reads emptied first) and the Swiss state.
        data = pool_records(uow, pool_id=pool_id)
        timed("standings.pool_records", args.repeat, lambda: pool_records(uow, pool_id=pool_id))
        timed("standings computed (uncached)", args.repeat, lambda: fresh_standings(data))
        if data.swiss:
            stage_id = data.stage.id or 0
            timed("swiss.state.swiss_state_of", args.repeat, lambda: swiss_state_of(uow, stage_id))
    with engine.connect() as connection:
        for label, sql in (("unsorted", HISTORY), ("sorted as before", HISTORY + SORTED)):
            median = server_ms(connection, sql, pool_id, 10)
            print(f"history statement in PostgreSQL, {label}: median {median:.2f} ms")
    engine.dispose()


if __name__ == "__main__":
    main()
