"""``olympiad serve --workers N``: several processes only where their live updates and writes can meet."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.config import Settings, get_settings
from orchestrator.web.http import serving

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/olympiad"


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    monkeypatch.setenv("OLYMPIAD_DATA_DIR", str(tmp_path))
    for name in ("DATABASE_URL", "OLYMPIAD_TASK_MODE"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    return monkeypatch


def test_the_embedded_default_refuses_several_workers_and_says_why(
    environment: pytest.MonkeyPatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    monkeypatch.setattr(serving, "run", lambda *_a, **kw: started.append(kw["workers"]))
    result = CliRunner().invoke(app, ["serve", "--workers", "2"])
    assert result.exit_code == 2
    assert "OLYMPIAD_TASK_MODE=celery" in result.output and "scheduler" in result.output
    assert "PostgreSQL" in result.output and "SQLite" in result.output
    assert "Traceback" not in result.output
    assert started == []


def test_one_worker_is_the_embedded_default(
    environment: pytest.MonkeyPatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    monkeypatch.setattr(serving, "run", lambda *_a, **kw: started.append(kw["workers"]))
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    assert started == [1]


def test_several_workers_need_celery_and_postgresql() -> None:
    assert serving.workers_refusal(Settings(task_mode="celery", database_url=PG), 4) == []
    assert len(serving.workers_refusal(Settings(task_mode="eager", database_url=PG), 2)) == 1
    assert len(serving.workers_refusal(Settings(task_mode="celery", database_url=""), 2)) == 1
    assert serving.workers_refusal(Settings(task_mode="celery", database_url=PG), 0) != []


def test_each_web_process_socket_gets_connections_without_nagles_delay() -> None:
    """asyncio sets TCP_NODELAY on accepted connections only when the listening socket names IPPROTO_TCP;
    without it a page's head and body wait for the client's delayed acknowledgement."""
    if not hasattr(socket, "SO_REUSEPORT"):
        pytest.skip("SO_REUSEPORT is not available here (one shared socket is used instead)")

    async def nodelay_of_accepted() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        sock = serving.reuseport_socket("127.0.0.1", 0)
        server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
        _reader, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        try:
            return await asyncio.wait_for(accepted, 10)
        finally:
            writer.close()
            server.close()

    assert asyncio.run(nodelay_of_accepted()) != 0


@pytest.mark.parametrize("setting, expected", [("false", False), ("true", True)])
def test_serve_passes_the_access_log_setting_and_asyncios_loop_to_uvicorn(
    environment: pytest.MonkeyPatch, monkeypatch: pytest.MonkeyPatch, setting: str, expected: bool
) -> None:
    environment.setenv("OLYMPIAD_ACCESS_LOG", setting)
    get_settings.cache_clear()
    given: dict[str, object] = {}
    monkeypatch.setattr(serving.uvicorn, "run", lambda _app, **kw: given.update(kw))
    monkeypatch.setattr(serving, "create_app", lambda settings: object())
    monkeypatch.setattr(serving, "frozen", lambda app: app)  # no gc.freeze of the test process
    serving.run(get_settings(), host="127.0.0.1", port=8000, workers=1)
    assert given["access_log"] is expected
    assert (given["loop"], given["http"]) == ("asyncio", "httptools")
