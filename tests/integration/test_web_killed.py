"""The web process SIGKILLed while staff enter results, started again, and the rest entered.

``olympiad serve`` runs as a real process on the session's fresh PostgreSQL database (tests/integration/
conftest.py); its in-process scheduler is kept idle (a one-hour period), so only the staff write. Four
arbiter threads, logged in over HTTP (JSON login, CSRF header), enter three results one after the other on
each of round 1's twelve boards through ``PUT /api/v1/boards/{id}/result``. Part-way, the test holds the
event's row lock: the next save blocks inside its transaction after its board row is updated and before
its audit entry is written (the audit row's reference to its event, and the public record's lock of the
event row, orchestrator/adapters/repo_record.py, both wait for it), and the test SIGKILLs the web process
there. It starts the process again; a client that got no answer reads the board back and sends its result
again with the version it read, as staff would after a reload.

Then: every board holds the result entered last for it; one audit entry per stored change, their chain
unbroken and ending at the board's result and version (nothing half-written: no result without its audit,
no audit without its result); one public record entry per audited result, the record's hash chain whole;
the stored standings equal those computed from the stored results; the match statuses follow their
boards; and the web logs hold no traceback or error (the kill itself leaves none).

Written in two transactions, a result and its audit entry fail the audit check: the held save's board row
is then stored without its entry (tried on a scratch change, docs/workers.md, "Outages").
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlmodel import col, select

from orchestrator.adapters.repo_record import as_entry
from orchestrator.adapters.tables import Board, Event, Match, MatchStatus, Role
from orchestrator.adapters.tables_record import RecordEntry
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain import record
from orchestrator.ports import free_port
from orchestrator.services.accounts.users import create_user
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results.standings import value_text
from tests.support.pools import SeededPool, seed_small_pool
from tests.support.workers import VENV_BIN, stop, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

PASSWORD = "correct horse battery"
CODES = ("1-0", "½-½", "0-1")
STEPS = 3  # results entered one after the other on each board; each differs from the one before
WRITERS = 4
KILL_AFTER = 10  # saves answered before the kill (of 36)
TIMEOUT_S = 30.0  # a bound on each wait, not a timed assertion
RESTART_S = 90.0  # a bound on the wait for the restarted process (its start-up took 10-12 s here)


@dataclass
class Web:
    """``olympiad serve`` on one port, started again on the same port after a kill."""

    port: int
    env: dict[str, str]
    logs: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.starts += 1
        command = [str(VENV_BIN / "olympiad"), "serve", "--port", str(self.port)]
        with (self.logs / f"web{self.starts}.log").open("wb") as out:
            self.process = subprocess.Popen(command, env=self.env, stdout=out, stderr=subprocess.STDOUT)

        def up() -> bool:
            assert self.process is not None and self.process.poll() is None, self.log_text()
            with contextlib.suppress(httpx.TransportError):
                return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
            return False

        wait_for(up, timeout=RESTART_S, what="olympiad serve to answer", every=0.1)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def log_text(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.logs.glob("web*.log")))


@pytest.fixture
def web(pg_url: str, tmp_path: Path) -> Iterator[Web]:
    env = {
        **os.environ,
        "DATABASE_URL": pg_url,
        "OLYMPIAD_TASK_MODE": "eager",
        "OLYMPIAD_EAGER_SCHEDULER_S": "3600",  # no periodic job runs during the test: only staff write
        "OLYMPIAD_ENVIRONMENT": "test",
        "OLYMPIAD_DATA_DIR": str(tmp_path),
        "OLYMPIAD_SECRET_KEY": secrets.token_urlsafe(48),  # the same key after the restart: sessions hold
        "OLYMPIAD_LOGIN_MAX_FAILURES": "1000",
    }
    server = Web(free_port(), env, tmp_path)
    try:
        server.start()
        yield server
    finally:
        stop(server.process, hard=True)


@dataclass
class Arbiter:
    """One member of staff entering results over HTTP from a thread of its own."""

    web: Web
    username: str
    boards: list[tuple[int, int, list[str]]]  # board id, match id, the results to enter in order
    versions: dict[int, int]
    answered: list[int]  # shared count of answered saves (one list for every arbiter)
    lock: threading.Lock
    unanswered: int = 0
    failures: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.web.url, timeout=TIMEOUT_S)
        self.headers: dict[str, str] = {}

    def login(self) -> None:
        answer = self.http.post("/api/v1/auth/login", json={"username": self.username, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        self.headers = {"X-CSRF-Token": answer.json()["csrf_token"]}

    def read_back(self, board_id: int, match_id: int) -> int:
        """The board's stored version, read as the results page does once the server answers again."""
        deadline = time.monotonic() + RESTART_S
        while True:
            try:
                answer = self.http.get(f"/api/v1/matches/{match_id}/results")
                if answer.status_code in (401, 403):
                    self.login()
                    continue
                assert answer.status_code == 200, answer.text
                return next(b["version"] for b in answer.json()["boards"] if b["board_id"] == board_id)
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the web process did not answer again"
                time.sleep(0.1)

    def enter(self, board_id: int, match_id: int, result: str) -> None:
        while True:
            body = {"result": result, "expected_version": self.versions[board_id]}
            try:
                answer = self.http.put(f"/api/v1/boards/{board_id}/result", json=body, headers=self.headers)
            except httpx.TransportError:  # no answer: the process died with the request
                self.unanswered += 1
                self.versions[board_id] = self.read_back(board_id, match_id)
                continue
            if answer.status_code in (401, 403):
                self.login()
                continue
            assert answer.status_code == 200, answer.text
            self.versions[board_id] = answer.json()["version"]
            with self.lock:
                self.answered[0] += 1
            return

    def run(self) -> None:
        try:
            self.login()
            for step in range(STEPS):
                for board_id, match_id, plan in self.boards:
                    self.enter(board_id, match_id, plan[step])
        except BaseException as error:  # reported by the test: a thread cannot fail it
            self.failures.append(error)
        finally:
            self.http.close()


def _round_one(uow_factory: UnitOfWorkFactory, seeded: SeededPool) -> list[tuple[int, int]]:
    """Round 1's boards (board id, match id), in match and board order."""
    match_ids = sorted(m for (r, _a, _b), m in seeded.matches.items() if r == 1)
    with uow_factory() as uow:
        return [(b.id or 0, b.match_id) for b in uow.read.boards_of_matches(match_ids)]


def _save_held_at_its_audit_entry(pg_url: str) -> bool:
    """A save waits for the event's row lock at its audit entry: the audit row's insert (its reference to
    the event waits for the lock) or the public record's lock of the event row. Both come after the save
    updated its board row (services/results/results.py, ``_apply``)."""
    engine = create_engine(pg_url)
    try:
        with engine.connect() as probe:
            waiting = probe.execute(
                text(
                    "SELECT query FROM pg_stat_activity WHERE datname = current_database()"
                    " AND wait_event_type = 'Lock'"
                )
            ).scalars()
            return any(
                query.startswith("INSERT INTO audit_log")
                or ("FROM event" in query and "FOR NO KEY UPDATE" in query)
                for query in waiting
            )
    finally:
        engine.dispose()


def test_web_process_killed_while_staff_enter_results(
    web: Web, pg_url: str, uow_factory: UnitOfWorkFactory
) -> None:
    started = time.monotonic()
    tag = secrets.token_hex(4)
    seeded = seed_small_pool(uow_factory, slug=f"webkill-{tag}")
    with uow_factory() as uow:
        for n in range(WRITERS):
            create_user(uow, username=f"arb{n}{tag}", password=PASSWORD, role=Role.ARBITER)
    boards = _round_one(uow_factory, seeded)
    assert len(boards) == 12
    plans = {
        board_id: [CODES[(i + s) % len(CODES)] for s in range(STEPS)]
        for i, (board_id, _m) in enumerate(boards)
    }
    answered = [0]
    lock = threading.Lock()
    arbiters = [
        Arbiter(
            web,
            f"arb{n}{tag}",
            [(b, m, plans[b]) for i, (b, m) in enumerate(boards) if i % WRITERS == n],
            {b: 1 for b, _m in boards},
            answered,
            lock,
        )
        for n in range(WRITERS)
    ]
    threads = [threading.Thread(target=a.run) for a in arbiters]
    for thread in threads:
        thread.start()

    # Part-way: hold the event's row lock, so that the next save stops after writing its board row and
    # before its audit entry; kill the web process there, let go of the lock, start the process again.
    wait_for(
        lambda: answered[0] >= KILL_AFTER, timeout=TIMEOUT_S, what=f"{KILL_AFTER} answered saves", every=0.01
    )
    holder = create_engine(pg_url)
    try:
        with holder.connect() as connection:
            connection.execute(text("SELECT id FROM event WHERE slug = :s FOR UPDATE"), {"s": seeded.slug})
            wait_for(
                lambda: _save_held_at_its_audit_entry(pg_url),
                timeout=TIMEOUT_S,
                what="a save blocked between its board row and its audit entry",
                every=0.02,
            )
            answered_at_kill = answered[0]
            killed_at = time.monotonic()
            web.kill()
            connection.rollback()
    finally:
        holder.dispose()
    web.start()
    down_s = time.monotonic() - killed_at
    for thread in threads:
        thread.join(RESTART_S)
    assert not any(thread.is_alive() for thread in threads)
    assert [f for a in arbiters for f in a.failures] == []
    unanswered = sum(a.unanswered for a in arbiters)
    print(
        f"\nweb killed after {answered_at_kill} of {len(boards) * STEPS} saves; {unanswered} save(s) got no"
        f" answer and were sent again; the web process answered again {down_s:.1f} s after the kill;"
        f" {time.monotonic() - started:.1f} s in all"
    )
    assert KILL_AFTER <= answered_at_kill < len(boards) * STEPS  # the kill came part-way
    assert unanswered >= 1  # at least the save held between its board row and its audit entry

    with uow_factory() as uow:
        for board_id, _match in boards:
            board = uow.session.get_one(Board, board_id)
            trail = list(uow.audit.for_entity("board", board_id))
            plan = plans[board_id]
            # the result entered last, and one audit entry per stored change (each step was a change)
            assert board.result == plan[-1], board_id
            assert [(e.action, e.new["result"] if e.new else None) for e in trail] == [
                ("board.result", code) for code in plan
            ], board_id
            assert board.version == 1 + len(trail)
            # an unbroken chain from the empty board to what the board holds: nothing half-written
            assert [e.old["version"] if e.old else None for e in trail] == list(range(1, len(trail) + 1))
            assert [e.new["version"] if e.new else None for e in trail] == list(range(2, len(trail) + 2))
            olds = [e.old["result"] if e.old else None for e in trail]
            assert olds == ["*", *[e.new["result"] if e.new else None for e in trail[:-1]]]
            assert board.updated_by == trail[-1].actor
        # the public record: its chain whole, and one entry per audited result (written in the same save)
        event_id = uow.session.exec(select(Event.id).where(Event.slug == seeded.slug)).one()
        entries = uow.session.exec(
            select(RecordEntry).where(RecordEntry.event_id == event_id).order_by(col(RecordEntry.seq))
        ).all()
        assert record.check_chain([as_entry(e) for e in entries]) is None
        in_record = Counter(e.payload["board"] for e in entries if e.kind == "board.result")
        assert in_record == Counter({board_id: STEPS for board_id, _m in boards})
        for match_id in sorted({m for _b, m in boards}):
            match = uow.session.get_one(Match, match_id)
            assert match.status == MatchStatus.FINISHED.value  # every board holds a final result
        stored = [
            (row.rank, row.team_id, dict(row.values))
            for row in sorted(uow.rounds.standings_of_pool(seeded.pool_id), key=lambda r: (r.rank, r.team_id))
        ]
        computed = standings_service.pool_standings(uow, pool_id=seeded.pool_id)
        expected = sorted(
            (row.rank, seeded.teams[row.team], {c: value_text(v) for c, v in row.values.items()})
            for row in computed.rows
        )
        assert stored == expected and len(stored) == len(seeded.teams)

    logs = web.log_text()
    assert "Traceback" not in logs, logs
    assert [line for line in logs.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b", line)] == []
