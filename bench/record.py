"""What the public record costs (docs/record.md): checking a whole event's record, and appending an entry.

Run: PYTHONPATH=. .venv/bin/python bench/record.py [--pools 40] [--teams 12] [--boards 6] [--appends 300]

1. ``verify``: a synthetic record of ``pools`` round-robin pools of ``teams`` teams (every pairing, every
   board's result, one stage closing publishing each team's MP and GP, two lots), checked by
   ``orchestrator.domain.record.verify`` as ``olympiad verify-record`` does. Printed: entries, seconds,
   entries a second.
2. ``append``: units of work on a fresh SQLite file, each queuing one audit entry of a change the record
   keeps (``lot.commit``: the entry is appended in the same transaction) against the same with a change it
   does not keep (``round.lineup_deadline``). Printed: milliseconds a unit of work, both ways, and the
   ratio: the record's share of a committing use case.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from orchestrator.adapters.tables import Event, Lot
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import init_db, make_engine, make_session_factory
from orchestrator.domain import lots, record
from orchestrator.domain.round_robin import berger_table


def synthetic(pools: int, teams: int, boards: int) -> list[record.Entry]:
    seed = bytes(range(32))
    names = [f"T{i}" for i in range(teams)]
    drawn = lots.run_lot(seed, names, purpose="pairing numbers", kind=lots.LotKind.ORDER)
    items: list[tuple[str, dict[str, Any]]] = [
        (
            "lot.commit",
            {
                "lot": 1,
                "purpose": "pairing numbers",
                "kind": "order",
                "candidates": names,
                "commitment": drawn.commitment,
            },
        ),
        (
            "lot.draw",
            {"lot": 1, "purpose": "pairing numbers", "seed_hex": seed.hex(), "outcome": list(drawn.outcome)},
        ),
    ]
    matches: list[dict[str, Any]] = []
    results: list[tuple[str, dict[str, Any]]] = []
    standings: dict[str, list[dict[str, Any]]] = {}
    match_id = 0
    for pool in range(pools):
        mp = dict.fromkeys(names, 0)
        gp = dict.fromkeys(names, 0)
        for rnd in berger_table(teams):
            round_no = rnd.number
            for pairing in rnd.pairings:
                a, b = names[pairing.first - 1], names[pairing.second - 1]
                match_id += 1
                matches.append(
                    {
                        "match": match_id,
                        "pool": str(pool),
                        "round": round_no,
                        "a": a,
                        "b": b,
                        "boards": boards,
                    }
                )
                for board_no in range(1, boards + 1):  # White wins every board: boards/2 each
                    results.append(
                        ("board.result", {"match": match_id, "board_no": board_no, "result": "1-0"})
                    )
                for team in (a, b):
                    mp[team] += 1
                    gp[team] += boards
        standings[str(pool)] = [{"team": t, "MP": str(mp[t]), "GP": str(gp[t] // 2)} for t in names]
    items.append(("stage.start", {"stage": 1, "stage_kind": "pools", "matches": matches}))
    items += results
    items.append(
        (
            "stage.close",
            {
                "stage": 1,
                "stage_kind": "pools",
                "scoring": {"win": 2, "draw": 1, "loss": 0},
                "pools": standings,
            },
        )
    )
    chain: list[record.Entry] = []
    for kind, payload in items:
        chain.append(
            record.next_entry(
                chain[-1] if chain else None, at="2026-12-06T09:00:00Z", kind=kind, payload=payload
            )
        )
    return chain


def bench_verify(pools: int, teams: int, boards: int) -> None:
    chain = synthetic(pools, teams, boards)
    start = time.perf_counter()
    verdict = record.verify(chain)
    seconds = time.perf_counter() - start
    assert verdict.mismatch is None, verdict.mismatch
    print(
        f"verify: {len(chain)} entries ({pools} pools of {teams}, {boards} boards) in {seconds:.2f} s, "
        f"{len(chain) / seconds:,.0f} entries/s"
    )


def bench_append(appends: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
        init_db(engine=engine)
        sessions = make_session_factory(engine)
        with UnitOfWork(sessions) as uow:
            event = uow.events.insert(Event(slug="bench", name="Bench", definition_text="", status="running"))
            lot = uow.lots.insert(
                Lot(
                    event_id=event.id or 0,
                    purpose="p",
                    commitment="c" * 64,
                    drawn_by="b",
                    candidates=["A", "B"],
                )
            )
            event_id, lot_id = event.id or 0, lot.id or 0
        timings = {}
        for action in ("round.lineup_deadline", "lot.commit"):
            start = time.perf_counter()
            for _ in range(appends):
                with UnitOfWork(sessions) as uow:
                    uow.audit.record(
                        actor="bench", action=action, entity="lot", entity_id=lot_id, event_id=event_id
                    )
            timings[action] = (time.perf_counter() - start) / appends * 1000
        with UnitOfWork(sessions) as uow:
            count = uow.record.count(event_id)
        assert count == appends
    base, recorded = timings["round.lineup_deadline"], timings["lot.commit"]
    print(
        f"append (SQLite, {appends} units of work each): without a record entry {base:.2f} ms, "
        f"with one {recorded:.2f} ms, ratio {recorded / base:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pools", type=int, default=40)
    parser.add_argument("--teams", type=int, default=12)
    parser.add_argument("--boards", type=int, default=6)
    parser.add_argument("--appends", type=int, default=300)
    args = parser.parse_args()
    bench_verify(args.pools, args.teams, args.boards)
    bench_append(args.appends)


if __name__ == "__main__":
    main()
