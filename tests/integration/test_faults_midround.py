"""Faults in the middle of a round, through the real stack: nothing lost, nothing created twice.

The small event's group stage (4 teams, 3 rounds, 36 games) runs through a real Celery worker and beat, the
stand-in over HTTP, and a PostgreSQL cluster and a Redis of the test's own (tests/support/private_services.py:
the machine's shared ones are never stopped). While it runs, one fault each: PostgreSQL restarted (5 s
down), Redis restarted, the worker SIGKILLed and started again, the game server unreachable 20 s during the
games' creation and during a pull. The stage must close by itself with every board's game, result and
audit rows, the standings and the pool winner identical to an undisturbed run with the same seed, no game
created twice on the game server, and no traceback in the logs other than the fault's own warning.

Each test prints its extra time against the undisturbed run (docs/workers.md, "Outages", quotes them).
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from orchestrator.adapters.tables import RoundStatus
from tests.support.private_services import PrivatePostgres, PrivateRedis, private_postgres, private_redis
from tests.support.workers import (
    BoardOutcome,
    Run,
    Standin,
    automated_run,
    outcomes,
    stage_closed,
    standin_process,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

SEED = 23
GAMES = 36
ROUNDS = 3


@dataclass(frozen=True)
class Services:
    postgres: PrivatePostgres
    redis: PrivateRedis


@dataclass(frozen=True)
class Played:
    boards: list[BoardOutcome]
    standings: list[tuple[str, int]]  # team name, rank, in rank order
    seconds: float
    games_on_server: int
    bulks_on_server: int
    logs: str


@dataclass(frozen=True)
class Scene:
    run: Run
    standin: Standin
    services: Services
    stage_id: int


@pytest.fixture(scope="module")
def services() -> Iterator[Services]:
    with private_postgres() as postgres, private_redis() as redis_server:
        yield Services(postgres, redis_server)


@pytest.fixture(scope="module")
def undisturbed(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Played:
    played = _play(tmp_path_factory.mktemp("undisturbed"), services, None)
    print(f"\nundisturbed run: {played.seconds:.1f} s")
    return played


def _quietly(check: Callable[[], Any]) -> Any:
    """A check of the test's own that reads the database: False while the database is restarting."""
    try:
        return check()
    except OperationalError:
        return False


def _round_status(scene: Scene, number: int) -> str:
    with scene.run.uow_factory() as uow:
        return uow.rounds.rounds_of_stage(scene.stage_id)[number - 1].status


def _standings(run: Run, stage_id: int) -> list[tuple[str, int]]:
    with run.uow_factory() as uow:
        rows = uow.session.execute(
            text(
                "SELECT t.name, s.rank FROM standing s JOIN team t ON t.id = s.team_id"
                " WHERE s.stage_id = :s ORDER BY s.pool_id, s.rank, t.name"
            ),
            {"s": stage_id},
        ).all()
    return [(str(name), int(rank)) for name, rank in rows]


def _play(tmp: Path, services: Services, fault: Callable[[Scene], None] | None) -> Played:
    with (
        standin_process(seed=SEED, speed="1000", log=tmp / "standin.log") as standin,
        automated_run(
            tmp,
            standin,
            round_gap_s=10,
            admin_url=services.postgres.admin_url,
            redis_url=services.redis.url,
        ) as (run, stage_id),
    ):
        started = time.monotonic()
        run.start_worker()
        run.start_beat()
        if fault is not None:
            fault(Scene(run, standin, services, stage_id))
        try:
            wait_for(
                lambda: _quietly(lambda: stage_closed(run, stage_id)),
                timeout=300,
                what="the stage to close",
                every=0.5,
            )
        except AssertionError:
            print(run.logs())
            print(run.worker_stacks())  # where a worker that stopped consuming is waiting
            raise
        seconds = time.monotonic() - started
        state = standin.http.get("/_standin/state").raise_for_status().json()
        logs = "".join(p.read_text(errors="replace") for p in sorted(tmp.glob("*.log")))
        return Played(
            outcomes(run, stage_id),
            _standings(run, stage_id),
            seconds,
            int(state["games"]),
            int(state["bulks"]),
            logs,
        )


FAULT_WARNING = re.compile(
    r"connection lost|Connection to broker lost|Cannot connect to redis|Error while reading from|"
    r"Connection refused|timed out|freezing before|consumer: |redis\.exceptions|kombu|amqp",
    re.IGNORECASE,
)


def _unexpected_tracebacks(logs: str) -> list[str]:
    """Tracebacks not announced by a line about the fault (a lost connection, a timeout)."""
    lines = logs.splitlines()
    found = []
    for index, line in enumerate(lines):
        if line.startswith("Traceback"):
            context = "\n".join(lines[max(0, index - 3) : index + 40])
            if not FAULT_WARNING.search(context):
                found.append(context)
    return found


def _assert_same_event(played: Played, undisturbed: Played, fault: str) -> None:
    print(
        f"\n{fault}: {played.seconds:.1f} s against {undisturbed.seconds:.1f} s undisturbed"
        f" (extra {played.seconds - undisturbed.seconds:+.1f} s)"
    )
    assert len(undisturbed.boards) == GAMES and all(b.result != "*" for b in undisturbed.boards)
    assert played.boards == undisturbed.boards  # same games, results, sources and audit rows per board
    assert played.standings == undisturbed.standings and played.standings  # the same pool winner
    assert played.games_on_server == undisturbed.games_on_server == GAMES  # no game created twice
    assert played.bulks_on_server == undisturbed.bulks_on_server == ROUNDS
    assert _unexpected_tracebacks(played.logs) == []
    errors = [line for line in played.logs.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b", line)]
    assert [line for line in errors if not FAULT_WARNING.search(line)] == []  # only the outage's own


def _when_round_one_is_paired(scene: Scene) -> None:
    wait_for(
        lambda: (
            _quietly(lambda: _round_status(scene, 1)) in (RoundStatus.PAIRED.value, RoundStatus.PLAYING.value)
        ),
        timeout=60,
        what="round 1 to be paired",
    )


def test_postgresql_restarted_mid_round(tmp_path: Path, services: Services, undisturbed: Played):
    def restart_postgres(scene: Scene) -> None:
        _when_round_one_is_paired(scene)
        scene.services.postgres.stop()
        time.sleep(5)
        scene.services.postgres.start()

    played = _play(tmp_path, services, restart_postgres)
    assert "connection lost" in played.logs  # the fault happened and was told, once per attempt
    _assert_same_event(played, undisturbed, "PostgreSQL restarted (5 s down)")


def test_redis_restarted_mid_round(tmp_path: Path, services: Services, undisturbed: Played):
    def restart_redis(scene: Scene) -> None:
        _when_round_one_is_paired(scene)
        scene.services.redis.stop()
        time.sleep(2)
        scene.services.redis.start()

    played = _play(tmp_path, services, restart_redis)
    _assert_same_event(played, undisturbed, "Redis restarted")


def test_worker_killed_and_started_again_mid_round(tmp_path: Path, services: Services, undisturbed: Played):
    def kill_worker(scene: Scene) -> None:
        _when_round_one_is_paired(scene)
        assert scene.run.worker is not None
        scene.run.worker.send_signal(signal.SIGKILL)
        scene.run.worker.wait(10)
        scene.run.start_worker()

    played = _play(tmp_path, services, kill_worker)
    _assert_same_event(played, undisturbed, "worker SIGKILLed and started again")


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "T"


def _freeze_for(scene: Scene, method: str, path: str, seconds: float) -> None:
    """The game server stops when the next ``method path`` arrives, and answers again ``seconds`` later."""
    scene.standin.http.post("/_standin/freeze", json={"method": method, "path": path}).raise_for_status()
    pid = scene.standin.process.pid
    wait_for(lambda: _stopped(pid), timeout=120, what=f"the game server to freeze on {path}", every=0.05)
    time.sleep(seconds)
    os.kill(pid, signal.SIGCONT)


def test_game_server_unreachable_20_s_while_creating_games(
    tmp_path: Path, services: Services, undisturbed: Played
):
    def freeze_on_bulk(scene: Scene) -> None:
        # The bulk request reaches the server, which stops before handling it; the worker's request times
        # out, and the server carries it out when it resumes (after the round's pairAt and startClocksAt).
        _freeze_for(scene, "POST", "/api/bulk-pairing", 20)

    played = _play(tmp_path, services, freeze_on_bulk)
    assert "freezing before POST /api/bulk-pairing" in played.logs
    _assert_same_event(played, undisturbed, "game server unreachable 20 s during game creation")


def test_game_server_unreachable_20_s_during_a_pull(tmp_path: Path, services: Services, undisturbed: Played):
    def freeze_on_export(scene: Scene) -> None:
        _when_round_one_is_paired(scene)
        _freeze_for(scene, "POST", "/api/games/export/_ids", 20)

    played = _play(tmp_path, services, freeze_on_export)
    assert "freezing before POST /api/games/export/_ids" in played.logs
    _assert_same_event(played, undisturbed, "game server unreachable 20 s during a pull")
