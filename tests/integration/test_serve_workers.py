"""``olympiad serve --workers 2`` on PostgreSQL and Redis, as a real subprocess.

The test holds one connection to each worker process (found by which process owns the server end of the
connection, from /proc), then: both workers keep the pool page in their page cache; an arbiter saves a
result through worker B's JSON API; the live stream of each worker announces it; worker A, which only
heard of it through Redis, builds the page again, and both workers then serve the same new page.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlmodel import col, select

from orchestrator.adapters.tables import Board, Match, Role
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.ports import free_port
from orchestrator.services.accounts.users import create_user
from orchestrator.services.setup import event_setup, pool_draft
from tests.support import factories
from tests.support.processes import descendants
from tests.support.workers import REDIS_URL, VENV_BIN, require_redis, stop, wait_for

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to tell the workers apart"),
]

PASSWORD = "correct horse battery"
TIMEOUT_S = 20.0  # a bounded wait on each read, not a timed assertion


@dataclass
class Seeded:
    slug: str
    stage_key: str
    pool_id: int
    letter: str
    board_id: int
    board_version: int
    arbiter: str


def seed(uow_factory: UnitOfWorkFactory) -> Seeded:
    tag = secrets.token_hex(4)
    with uow_factory() as uow:
        event_id = factories.make_event(uow, slug=f"workers-{tag}")
        stage_id = factories.running_stage(uow, event_id=event_id)
        create_user(uow, username=f"arb{tag}", password=PASSWORD, role=Role.ARBITER)
    with uow_factory() as uow:
        pool = pool_draft.describe_pools(uow, stage_id=stage_id).pools[0]
        keys = event_setup.stage_ids_by_key(uow, event_id=event_id)
        stage_key = next(key for key, value in keys.items() if value == stage_id)
        matches = select(Match).where(Match.pool_id == pool.id).order_by(col(Match.id))
        match = uow.session.exec(matches).first()
        assert match is not None
        boards = select(Board).where(Board.match_id == match.id).order_by(col(Board.board_no))
        board = uow.session.exec(boards).first()
        assert board is not None
        return Seeded(
            f"workers-{tag}", stage_key, pool.id, pool.letter, board.id or 0, board.version, f"arb{tag}"
        )


def _server_inode(server_port: int, client_port: int) -> str | None:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local, remote = fields[1], fields[2]
                if (
                    int(local.rsplit(":", 1)[1], 16) == server_port
                    and int(remote.rsplit(":", 1)[1], 16) == client_port
                ):
                    return fields[9]
    return None


def owner_of(connection: http.client.HTTPConnection, parent: int, server_port: int) -> int | None:
    """The worker process holding the server end of ``connection`` (after it answered once)."""
    assert connection.sock is not None
    inode = _server_inode(server_port, connection.sock.getsockname()[1])
    if inode is None:
        return None
    for pid in descendants(parent):
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == f"socket:[{inode}]":
                        return pid
    return None


def get(
    connection: http.client.HTTPConnection, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection.request("GET", path, headers=headers or {})
    answer = connection.getresponse()
    return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()


@pytest.fixture
def served(pg_url: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    require_redis()
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": pg_url,
        "REDIS_URL": REDIS_URL,
        "OLYMPIAD_TASK_MODE": "celery",
        "OLYMPIAD_WORKER_QUEUE": f"test-serve-{secrets.token_hex(4)}",  # no other test's worker takes a job
        "OLYMPIAD_ENVIRONMENT": "test",
        "OLYMPIAD_DATA_DIR": str(tmp_path),
        "OLYMPIAD_SECRET_KEY": secrets.token_urlsafe(48),
    }
    command = [str(VENV_BIN / "olympiad"), "serve", "--port", str(port), "--workers", "2"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:

        def up() -> bool:
            with contextlib.suppress(OSError, http.client.HTTPException):
                return get(http.client.HTTPConnection("127.0.0.1", port, timeout=2), "/healthz")[0] == 200
            return False

        wait_for(up, timeout=60, what="olympiad serve --workers 2")
        yield process, port
    finally:
        stop(process)


def one_per_worker(process: subprocess.Popen[bytes], port: int) -> dict[int, http.client.HTTPConnection]:
    """A kept-alive connection to each of the two workers (new connections until both have answered)."""
    by_worker: dict[int, http.client.HTTPConnection] = {}
    for _ in range(200):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
        assert get(connection, "/healthz")[0] == 200
        pid = owner_of(connection, process.pid, port)
        if pid is not None and pid not in by_worker:
            by_worker[pid] = connection
        else:
            connection.close()
        if len(by_worker) == 2:
            return by_worker
    raise AssertionError(f"connections reached {len(by_worker)} worker(s), not 2")


class Stream:
    """A live stream (server-sent events) read line by line from one connection."""

    def __init__(self, connection: http.client.HTTPConnection, path: str) -> None:
        connection.request("GET", path, headers={"Accept": "text/event-stream"})
        self.answer = connection.getresponse()
        assert self.answer.status == 200

    def next_event(self) -> tuple[str, dict[str, object]]:
        name = ""
        while True:
            line = self.answer.readline().decode().rstrip("\r\n")
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and name:
                return name, json.loads(line.split(":", 1)[1])

    def until(self, topic: str) -> dict[str, object]:
        while True:
            name, data = self.next_event()
            if name == "change" and data.get("topic") == topic:
                return data


def test_a_change_made_through_one_worker_reaches_the_other_workers_stream_and_page_cache(
    served: tuple[subprocess.Popen[bytes], int], uow_factory: UnitOfWorkFactory
) -> None:
    process, port = served
    seeded = seed(uow_factory)
    (pid_a, page_a), (pid_b, page_b) = one_per_worker(process, port).items()
    streams = {}
    for pid, connection in one_per_worker(process, port).items():
        live = f"/events/{seeded.slug}/live?topic=pool:{seeded.pool_id}"
        streams[pid] = Stream(connection, live)
        assert streams[pid].next_event()[0] == "ready"

    # the arbiter logs in through worker B
    page_b.request(
        "POST", "/api/v1/auth/login", json.dumps({"username": seeded.arbiter, "password": PASSWORD}),
        {"Content-Type": "application/json"},
    )  # fmt: skip
    login = page_b.getresponse()
    csrf = json.loads(login.read())["csrf_token"]
    cookie = login.getheader("set-cookie", "").split(";", 1)[0]
    assert login.status == 200 and cookie

    pool_page = f"/events/{seeded.slug}/stages/{seeded.stage_key}/pools/{seeded.letter}"
    before = {pid: get(conn, pool_page) for pid, conn in ((pid_a, page_a), (pid_b, page_b))}
    assert {status for status, _h, _b in before.values()} == {200}
    assert before[pid_a][1]["etag"] == before[pid_b][1]["etag"]

    body = json.dumps({"result": "1-0", "expected_version": seeded.board_version})
    headers = {"Content-Type": "application/json", "Cookie": cookie, "X-CSRF-Token": csrf}
    page_b.request("PUT", f"/api/v1/boards/{seeded.board_id}/result", body, headers)
    saved = page_b.getresponse()
    assert saved.status == 200, saved.read()
    saved.read()

    # each worker's subscribers hear it; the event's message is the last one the result announces
    for stream in streams.values():
        assert stream.until(f"pool:{seeded.pool_id}")["kind"] == "standings"
        assert stream.until(f"event:{seeded.slug}")["kind"] == "result"

    after = {pid: get(conn, pool_page) for pid, conn in ((pid_a, page_a), (pid_b, page_b))}
    assert after[pid_a][1]["etag"] != before[pid_a][1]["etag"], "worker A served its old copy"
    assert after[pid_a][1]["etag"] == after[pid_b][1]["etag"]
    assert after[pid_a][2] == after[pid_b][2]
