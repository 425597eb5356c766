"""A PostgreSQL cluster and a Redis of the test's own, on free ports, that a fault test may stop, kill and
start again. The machine's shared PostgreSQL (5432) and Redis (6379) are never touched.

PostgreSQL: ``initdb`` + ``pg_ctl`` from /usr/lib/postgresql/15/bin (or OLYMPIAD_TEST_PG_BIN) into a
temporary directory (run as the ``postgres`` account when the tests run as root: initdb refuses root).
Redis: ``redis-server --port N`` with an append-only file, so a restart keeps the queued jobs as a
production Redis with persistence does. A missing program fails the test under CI=true and skips it
elsewhere (tests/support/ci.py).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import redis

from orchestrator.ports import free_port
from tests.support.ci import missing

PG_BIN = Path(os.environ.get("OLYMPIAD_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
INITDB_OPTIONS = ("-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")


def _as_postgres() -> list[str]:
    """The command prefix that runs a server program as an unprivileged account when we are root."""
    if os.geteuid() != 0:
        return []
    return ["runuser", "-u", "postgres", "--"]


@dataclass
class PrivatePostgres:
    root: Path
    port: int

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "postgres.log"

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off"
        command = [*_as_postgres(), str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log)]
        subprocess.run([*command, "-o", options, "-w", "-t", "60", *args], check=True, capture_output=True)

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        """A fast shutdown: open connections are cut, as when the server restarts."""
        self._ctl("-m", "fast", "stop")


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    if not (PG_BIN / "initdb").exists():
        missing(f"PostgreSQL server programs not found in {PG_BIN} (OLYMPIAD_TEST_PG_BIN)")
    root = Path(tempfile.mkdtemp(prefix="olympiad-pg-"))
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(root, entry.pw_uid, entry.pw_gid)
    server = PrivatePostgres(root, free_port())
    try:
        subprocess.run(
            [*_as_postgres(), str(PG_BIN / "initdb"), "-D", str(server.data), *INITDB_OPTIONS],
            check=True,
            capture_output=True,
        )
        server.start()
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server._ctl("-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class PrivateRedis:
    root: Path
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.root)]
        args += ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
        with (self.root / "redis.log").open("ab") as out:
            self.process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        """SIGTERM: Redis writes its append-only file and exits, as when it restarts."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(20)


@contextlib.contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        missing("redis-server not found on PATH")
    root = Path(tempfile.mkdtemp(prefix="olympiad-redis-"))
    server = PrivateRedis(root, free_port())
    try:
        server.start()
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.process.kill()
            server.process.wait(10)
        shutil.rmtree(root, ignore_errors=True)
