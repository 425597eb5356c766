"""Real processes for the worker tests: the stand-in under uvicorn, a Celery worker and beat (subprocesses).

Every process is started by the test with ``subprocess.Popen`` and ended in ``finally`` by its own pid.
Redis must answer at REDIS_URL (default 127.0.0.1:6379): without it the tests fail when CI=true and are
skipped otherwise. Each run gets its own Celery queue, its own PostgreSQL database and its own stand-in.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import redis
from cryptography.fernet import Fernet
from sqlalchemy import text
from sqlmodel import col, select

from orchestrator.adapters.tables import AuditLog, Stage
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_engine, make_session_factory, utcnow
from orchestrator.domain.gameresults import map_status
from orchestrator.ports import free_port
from orchestrator.services.gameserver.player_links import store_link
from orchestrator.services.queue import background_queue
from orchestrator.standin.app import ADMIN_HEADER
from tests.integration.conftest import _require_postgres, create_migrated_database, drop_database
from tests.support.ci import missing
from tests.support.factories import SMALL_EVENT, make_event, running_stage, stage_id_of

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = REPO / ".venv" / "bin"
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def require_redis() -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as error:
        reason = f"Redis is not reachable at {REDIS_URL}: {error}"
        missing(reason)


def wait_for(predicate: Callable[[], Any], *, timeout: float, what: str, every: float = 0.25) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def stop(process: subprocess.Popen[bytes] | None, *, hard: bool = False) -> None:
    """End a process this test started (by its pid), and reap it."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@dataclass
class Standin:
    url: str
    process: subprocess.Popen[bytes]
    http: httpx.Client

    def user(self, username: str, rating: int, scopes: list[str]) -> str:
        body = {"username": username, "rating": rating, "scopes": scopes}
        return str(self.http.post("/_standin/users", json=body).raise_for_status().json()["token"])

    def truth(self, game_id: str) -> dict[str, Any]:
        return dict(self.http.get(f"/_standin/games/{game_id}").raise_for_status().json())


@contextlib.contextmanager
def standin_process(
    *, seed: int, speed: str = "1000", faults: str = "", fault_rate: float = 0.0, log: Path
) -> Iterator[Standin]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args = [sys.executable, "-m", "orchestrator.standin", "--port", str(port), "--speed", speed]
    args += ["--seed", str(seed)]
    if faults:
        args += ["--faults", faults, "--fault-rate", str(fault_rate)]
    admin_token = secrets.token_urlsafe(32)  # the /_standin/ admin routes need it
    env = {
        **os.environ,
        "OLYMPIAD_GAMESERVER_URL": url,
        "OLYMPIAD_STANDIN_SLOW_S": "2.5",
        "OLYMPIAD_STANDIN_ADMIN_TOKEN": admin_token,
    }
    with log.open("wb") as out:
        process = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    http = httpx.Client(base_url=url, timeout=10, headers={ADMIN_HEADER: admin_token})
    try:

        def up() -> bool:
            assert process.poll() is None, f"stand-in exited: {log.read_text()[-2000:]}"
            try:
                return http.get("/_standin/state").status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(up, timeout=30, what="the stand-in")
        yield Standin(url, process, http)
    finally:
        http.close()
        stop(process)


@dataclass
class Run:
    """One automated run: its database, its settings (as environment) and its processes."""

    db_url: str
    env: dict[str, str]
    tmp: Path
    uow_factory: UnitOfWorkFactory
    worker: subprocess.Popen[bytes] | None = None
    beat: subprocess.Popen[bytes] | None = None
    workers_started: int = 0
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start_worker(self, pool: str = "threads", queue: str | None = None) -> subprocess.Popen[bytes]:
        """A worker serving both of the run's queues, or only ``queue``: "main" (``worker_queue``) or
        "background" (its background queue, docs/workers.md "Queues")."""
        self.workers_started += 1
        n = self.workers_started
        args = [str(VENV_BIN / "celery"), "-A", "workers.app", "worker", f"--pool={pool}", "--loglevel=INFO"]
        args += ["-n", f"w{n}-{secrets.token_hex(3)}@%h", "--without-gossip", "--without-mingle"]
        if queue is not None:
            main = self.env["OLYMPIAD_WORKER_QUEUE"]
            args += ["-Q", {"main": main, "background": background_queue(main)}[queue]]
        if pool == "threads":
            args.append("--concurrency=4")
        with (self.tmp / f"worker{n}.log").open("wb") as out:
            self.worker = subprocess.Popen(args, cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        self.processes.append(self.worker)
        return self.worker

    def start_beat(self) -> subprocess.Popen[bytes]:
        args = [str(VENV_BIN / "celery"), "-A", "workers.app", "beat", "--loglevel=INFO"]
        args += ["--schedule", str(self.tmp / "beat-schedule")]
        with (self.tmp / "beat.log").open("wb") as out:
            self.beat = subprocess.Popen(args, cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        self.processes.append(self.beat)
        return self.beat

    def wait_started(self, timeout: float = 180) -> None:
        """Wait until the last worker started says it is ready and beat, if started, is running. Importing
        them can take a minute on a loaded machine: a later wait for what they do need not count that."""

        def started() -> bool:
            for process in (self.worker, self.beat):
                assert process is None or process.poll() is None, f"a process exited:\n{self.logs()}"
            worker = self.tmp / f"worker{self.workers_started}.log"
            ready = worker.exists() and " ready." in worker.read_text(errors="replace")
            beat = self.tmp / "beat.log"
            beating = self.beat is None or "beat: Starting..." in beat.read_text(errors="replace")
            return ready and beating

        wait_for(started, timeout=timeout, what="the worker and beat to start", every=0.5)

    def logs(self) -> str:
        parts = []
        for path in sorted(self.tmp.glob("*.log")):
            parts.append(f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)

    def worker_stacks(self, wait_s: float = 3.0) -> str:
        """Every thread's stack in each worker still running, for a test that timed out waiting for them:
        Celery's SIGUSR1 handler writes them to the worker's log (``celery.utils.debug.cry``)."""
        sizes = {path: path.stat().st_size for path in self.tmp.glob("worker*.log")}
        signalled = [p for p in self.processes if p.poll() is None and "worker" in " ".join(map(str, p.args))]
        for process in signalled:
            process.send_signal(signal.SIGUSR1)
        time.sleep(wait_s if signalled else 0)
        return "\n".join(
            f"--- {path.name} after SIGUSR1\n{path.read_bytes()[size:].decode(errors='replace')}"
            for path, size in sorted(sizes.items())
        )


def small_event_without_appeal_window(slug: str) -> str:
    return SMALL_EVENT.replace("appeal_window_minutes: 15", "appeal_window_minutes: 0").replace(
        "slug: small-test-cup", f"slug: {slug}"
    )


@contextlib.contextmanager
def automated_run(
    tmp: Path, standin: Standin, *, round_gap_s: float = 8.0, first_round_in_s: float = 4.0, **env: str
) -> Iterator[tuple[Run, int]]:
    """A fresh database with the small event's group stage running, every player linked on the stand-in,
    rounds scheduled ``round_gap_s`` apart from now; yields the run (no process started yet) and stage id."""
    with event_run(
        tmp,
        standin,
        database="olympiad_workers",
        event_text=small_event_without_appeal_window("workers-cup"),
        round_gap_s=round_gap_s,
        first_round_in_s=first_round_in_s,
        **env,
    ) as (run, _event_id, stage_id):
        yield run, stage_id


@contextlib.contextmanager
def event_run(
    tmp: Path,
    standin: Standin,
    *,
    database: str,
    event_text: str,
    slug: str | None = None,
    stage_key: str | None = None,
    round_gap_s: float,
    first_round_in_s: float,
    admin_url: str | None = None,
    redis_url: str | None = None,
    start: bool = True,
    **env: str,
) -> Iterator[tuple[Run, int, int]]:
    """A fresh database (name prefix ``database``) with ``event_text`` stored (as ``slug`` if given), its
    stage ``stage_key`` running (default: as ``running_stage``), every player linked on the stand-in, the
    stage's rounds ``round_gap_s`` apart from ``first_round_in_s`` from now; ``env`` is added to the
    processes' environment; ``admin_url``/``redis_url`` put the run on a PostgreSQL server and a Redis of
    the test's own (default: the machine's); ``start=False`` leaves the stage as stored (staff start it in
    the test). Yields the run (no process started yet), the event id and the stage id."""
    if admin_url is None:
        _require_postgres()
    if redis_url is None:
        require_redis()
    db_url = create_migrated_database(database, admin_url)
    engine = make_engine(db_url)
    run: Run | None = None
    try:
        factory = make_session_factory(engine)

        def uow_factory() -> UnitOfWork:
            return UnitOfWork(factory)

        key = Fernet.generate_key().decode()
        settings = Settings(token_encryption_key=key, database_url=db_url)  # type: ignore[arg-type]
        with uow_factory() as uow:
            event_id = make_event(uow, event_text, slug=slug)
            if start:
                stage_id = running_stage(uow, event_id=event_id, stage_key=stage_key)
            else:
                stage_id = stage_id_of(uow, event_id, stage_key)
        with uow_factory() as uow:
            start = utcnow() + timedelta(seconds=first_round_in_s)
            for rnd in uow.rounds.rounds_of_stage(stage_id):
                rnd.scheduled_at = start + timedelta(seconds=round_gap_s * (rnd.number - 1))
                uow.session.add(rnd)
            for player in uow.teams.players_of_event(event_id):
                token = standin.user(player.account, player.rating, ["challenge:write"])
                store_link(
                    uow,
                    player_id=player.id or 0,
                    account=player.account,
                    token=token,
                    settings=settings,
                    actor="test",
                )
        organiser = standin.user("organiser", 2000, ["challenge:bulk"])
        full_env = {
            **os.environ,
            "DATABASE_URL": db_url,
            "REDIS_URL": redis_url or REDIS_URL,
            "OLYMPIAD_ENVIRONMENT": "test",
            "OLYMPIAD_TASK_MODE": "celery",
            "OLYMPIAD_WORKER_QUEUE": f"test-{secrets.token_hex(6)}",
            "OLYMPIAD_WORKER_VISIBILITY_TIMEOUT_S": "6",
            "OLYMPIAD_GAMESERVER_URL": standin.url,
            "OLYMPIAD_GAMESERVER_ADMIN_TOKEN": organiser,
            "OLYMPIAD_TOKEN_ENCRYPTION_KEY": key,
            "OLYMPIAD_GAMESERVER_RETRY_SCALE": "0.01",
            "OLYMPIAD_GAMESERVER_TIMEOUT_S": "1.5",
            "OLYMPIAD_GAMESERVER_PAIR_LEAD_S": "2",
            "OLYMPIAD_GAMESERVER_CLOCK_DELAY_S": "1",
            "OLYMPIAD_BEAT_OPEN_DUE_S": "1",
            "OLYMPIAD_BEAT_RECONCILE_S": "1",
            **env,
        }
        run = Run(db_url, full_env, tmp, uow_factory)
        yield run, event_id, stage_id
    finally:
        if run is not None:
            for process in run.processes:
                stop(process, hard=True)
        engine.dispose()
        drop_database(db_url)


@contextlib.contextmanager
def swiss_run(tmp: Path, *, database: str, event_text: str, **env: str) -> Iterator[tuple[Run, int]]:
    """A Swiss event (``event_text``, stage ``open``) stored with its stage not started yet and every round
    due at once, on a stand-in of its own whose games end at once (seed 7); yields the run (no process
    started yet) and the stage id. ``env`` is added to the processes' environment."""
    with (
        standin_process(seed=7, speed="instant", log=tmp / "standin.log") as standin,
        event_run(
            tmp,
            standin,
            database=database,
            event_text=event_text,
            stage_key="open",
            start=False,
            round_gap_s=0,
            first_round_in_s=0,
            **env,
        ) as (run, _event_id, stage_id),
    ):
        yield run, stage_id


def stage_closed(run: Run, stage_id: int) -> bool:
    with run.uow_factory() as uow:
        return uow.events.get_or_raise(Stage, stage_id).status == "closed"


@dataclass(frozen=True)
class BoardOutcome:
    position: tuple[int, int, int]  # round, match, board
    game_id: str | None
    result: str
    source: str | None
    game_status: str | None
    audit: tuple[str, ...]


def outcomes(run: Run, stage_id: int) -> list[BoardOutcome]:
    """Every board of the stage with its result and the actions of its audit rows, in board order."""
    with run.uow_factory() as uow:
        rows = uow.session.execute(
            text(
                "SELECT r.number, m.match_no, b.board_no, b.id, b.game_id, b.result, b.result_source,"
                " b.game_status FROM board b JOIN match m ON m.id = b.match_id"
                " JOIN round r ON r.id = m.round_id WHERE r.stage_id = :s ORDER BY 1, 2, 3"
            ),
            {"s": stage_id},
        ).all()
        audit: dict[int, list[str]] = {}
        entries = uow.session.exec(
            select(AuditLog).where(AuditLog.entity == "board").order_by(col(AuditLog.id))
        )
        for entry in entries:
            audit.setdefault(entry.entity_id or 0, []).append(entry.action)
    return [
        BoardOutcome((r[0], r[1], r[2]), r[4], r[5], r[6], r[7], tuple(audit.get(r[3], []))) for r in rows
    ]


def expected_result(standin: Standin, game_id: str) -> str:
    planned = standin.truth(game_id)["planned"]
    return map_status(planned["status"], planned["winner"], moves=planned["moves"]).result.value
