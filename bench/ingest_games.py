"""Games ingested per second through the real stack: stand-in export -> map_game -> ingestion in PostgreSQL.

Run: .venv/bin/python bench/ingest_games.py [--games 3000] [--batch 300] [--pgn]
Needs PostgreSQL (OLYMPIAD_BENCH_PG_ADMIN_URL, default postgresql+psycopg://postgres@127.0.0.1:5432/postgres).
Target (issue: game server integration): >= 2,000 games/s in batch.

Starts the stand-in (``python -m orchestrator.standin --speed instant``) on a free port, creates the games
with bulk pairings (not timed), stores one board per game in a scratch database, then times, per batch of
``--batch`` ids: one export call, the mapping, and ``ingest_games`` in one transaction (one board query, pool
locks, one executemany compare-and-set, the audit rows). A second pass re-ingests the same games (nothing
changes: the idempotent path). The standings recompute that ingestion queues is not run here (it is a
separate task); the figures are ingestion alone.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import httpx
from pydantic import SecretStr
from sqlalchemy import create_engine, insert, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orchestrator.adapters.lichess import BulkSpec, LichessClient, Pairing, PlayerLink  # noqa: E402
from orchestrator.adapters.tables import Board, Event, Match, Pool, Round, Stage, Team  # noqa: E402
from orchestrator.adapters.uow import UnitOfWork  # noqa: E402
from orchestrator.db import init_db, make_engine, make_session_factory  # noqa: E402
from orchestrator.domain.gameresults import map_game  # noqa: E402
from orchestrator.jobs import dispatch  # noqa: E402
from orchestrator.ports import free_port  # noqa: E402
from orchestrator.services.gameserver.ingestion import GameUpdate, ingest_games  # noqa: E402
from orchestrator.standin.app import ADMIN_HEADER  # noqa: E402

ADMIN_URL = os.environ.get(
    "OLYMPIAD_BENCH_PG_ADMIN_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
BULK_GAMES = 500
ADMIN_TOKEN = secrets.token_urlsafe(32)  # the stand-in's /_standin/ routes need it
ADMIN = {ADMIN_HEADER: ADMIN_TOKEN}


def start_standin(port: int) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "orchestrator.standin", "--port", str(port), "--speed", "instant"]
    env = {
        **os.environ,
        "OLYMPIAD_GAMESERVER_URL": f"http://127.0.0.1:{port}",
        "OLYMPIAD_STANDIN_ADMIN_TOKEN": ADMIN_TOKEN,
    }
    process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            state = httpx.get(f"http://127.0.0.1:{port}/_standin/state", timeout=1, headers=ADMIN)
            if state.status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            sys.exit("the stand-in did not start")
        time.sleep(0.2)


def create_games(url: str, count: int) -> list[str]:
    admin = httpx.Client(base_url=url, timeout=60, headers=ADMIN)

    def user(name: str, scopes: list[str]) -> str:
        body = {"username": name, "rating": 1500 + (hash(name) % 800), "scopes": scopes}
        return str(admin.post("/_standin/users", json=body).raise_for_status().json()["token"])

    organiser = user("bench-organiser", ["challenge:bulk"])
    links = [
        PlayerLink(str(n), f"bench{n}", SecretStr(user(f"bench{n}", ["challenge:write"])))
        for n in range(1000)
    ]
    ids: list[str] = []
    with LichessClient(url, organiser, timeout_s=120) as client:
        while len(ids) < count:
            size = min(BULK_GAMES, count - len(ids))
            pairings = [Pairing(links[2 * i], links[2 * i + 1]) for i in range(size)]
            ids += [game.id for game in client.create_bulk(pairings, BulkSpec(900, 10)).games]
    admin.close()
    return ids


def store_boards(engine_url: str, game_ids: list[str]) -> None:
    engine = make_engine(engine_url)
    init_db(engine=engine)
    factory = make_session_factory(engine)
    with UnitOfWork(factory) as uow:
        event = uow.events.insert(Event(slug="bench", name="Bench"))
        stage = uow.events.insert(
            Stage(event_id=event.id or 0, key="base", name="Base", kind="pools", status="running")
        )
        pool = uow.rounds.insert(Pool(stage_id=stage.id or 0, letter="A", status="published"))
        teams = [
            uow.teams.insert(Team(event_id=event.id or 0, name=f"T{n}", federation="XXX", seed=n))
            for n in (1, 2)
        ]
        rnd = uow.rounds.insert(Round(stage_id=stage.id or 0, number=1, status="playing"))
        rows = []
        for start in range(0, len(game_ids), BULK_GAMES):
            match = uow.rounds.insert(
                Match(
                    round_id=rnd.id or 0,
                    pool_id=pool.id,
                    match_no=start // BULK_GAMES + 1,
                    first_team_id=teams[0].id or 0,
                    second_team_id=teams[1].id or 0,
                )
            )
            for offset, game_id in enumerate(game_ids[start : start + BULK_GAMES]):
                rows.append({"match_id": match.id, "board_no": offset + 1, "game_id": game_id})
        uow.session.execute(insert(Board), rows)
    engine.dispose()


def ingest_pass(
    factory, url: str, game_ids: list[str], batch: int, pgn: bool
) -> tuple[float, dict[str, float], int]:  # type: ignore[no-untyped-def]
    parts = {"export": 0.0, "map": 0.0, "ingest": 0.0}
    changed = 0
    start = time.perf_counter()
    with LichessClient(url, "") as client:
        for offset in range(0, len(game_ids), batch):
            ids = game_ids[offset : offset + batch]
            t0 = time.perf_counter()
            export = client.export_games(ids, pgn_in_json=pgn)
            t1 = time.perf_counter()
            updates = [GameUpdate(g["id"], map_game(g), g.get("pgn")) for g in export.games]
            t2 = time.perf_counter()
            with UnitOfWork(factory) as uow:
                report = ingest_games(uow, games=updates)
            t3 = time.perf_counter()
            if export.missing:
                sys.exit(f"{len(export.missing)} games missing from the export")
            changed += len(report.changed) + len(report.held)
            parts["export"] += t1 - t0
            parts["map"] += t2 - t1
            parts["ingest"] += t3 - t2
    return time.perf_counter() - start, parts, changed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=300)
    parser.add_argument("--pgn", action="store_true", help="export and store each game's PGN too")
    args = parser.parse_args()
    dispatch.send = lambda name, *ids, countdown=None: None  # type: ignore[assignment]  # recompute not timed

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"olympiad_bench_{secrets.token_hex(4)}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    db_url = make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    standin = start_standin(port)
    try:
        t0 = time.perf_counter()
        game_ids = create_games(url, args.games)
        store_boards(db_url, game_ids)
        elapsed = time.perf_counter() - t0
        print(f"set-up: {len(game_ids)} games on the stand-in and their boards ({elapsed:.1f} s)")
        engine = make_engine(db_url)
        factory = make_session_factory(engine)
        for label in ("first ingestion (every board changes)", "second ingestion (nothing changes)"):
            total, parts, changed = ingest_pass(factory, url, game_ids, args.batch, args.pgn)
            detail = ", ".join(f"{k} {v:.2f} s" for k, v in parts.items())
            print(
                f"{label}: {len(game_ids)} games in {total:.2f} s = {len(game_ids) / total:,.0f} games/s "
                f"({detail}; {changed} boards changed; batch {args.batch}, pgn {'on' if args.pgn else 'off'})"
            )
        engine.dispose()
    finally:
        standin.terminate()
        standin.wait(10)
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    main()
