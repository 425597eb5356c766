"""``olympiad verify-record`` (orchestrator/cli_record.py, docs/record.md): a sound record exits 0 with a
summary; a row edited in the database behind the application's back exits 1 naming the entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from orchestrator import cli_record
from orchestrator.cli import app as cli_app
from orchestrator.config import Settings
from orchestrator.db import get_engine
from orchestrator.services.read import record as record_read
from tests.support.pools import FIRST_WINS_6_0, SeededPool, play, seed_small_pool

runner = CliRunner()


@pytest.fixture
def seeded(app: FastAPI) -> SeededPool:
    seeded = seed_small_pool(app.state.uow_factory)
    play(app.state.uow_factory, seeded.match_of(1, "Norway"), FIRST_WINS_6_0)
    return seeded


def saved(client: TestClient, slug: str, path: Path) -> Path:
    path.write_text(client.get(f"/api/v1/events/{slug}/record").text, encoding="utf-8")
    return path


def test_a_sound_record_exits_0_with_a_summary(
    client: TestClient, seeded: SeededPool, tmp_path: Path
) -> None:
    result = runner.invoke(cli_app, ["verify-record", str(saved(client, seeded.slug, tmp_path / "r.json"))])
    assert result.exit_code == 0, result.output
    assert f"record of {seeded.slug}: 9 entries hold" in result.output
    assert "1 lot draw(s) match their commitments" in result.output


def test_a_result_edited_in_the_database_exits_1_naming_the_entry(
    app: FastAPI, client: TestClient, seeded: SeededPool, settings: Settings, tmp_path: Path
) -> None:
    with get_engine(settings).begin() as connection:  # behind the application's back
        row = connection.execute(text("SELECT id, seq, payload FROM record_entry WHERE seq = 5")).one()
        payload = json.loads(row.payload) if isinstance(row.payload, str) else row.payload
        payload["result"] = "½-½"  # it was 0-1
        connection.execute(
            text("UPDATE record_entry SET payload = :p WHERE id = :id"),
            {"p": json.dumps(payload), "id": row.id},
        )
    result = runner.invoke(cli_app, ["verify-record", str(saved(client, seeded.slug, tmp_path / "r.json"))])
    assert result.exit_code == 1
    assert "MISMATCH entry 5 (board.result," in result.output and "its content hashes to" in result.output


def test_a_deleted_entry_breaks_the_chain_at_the_next_one(
    client: TestClient, seeded: SeededPool, settings: Settings, tmp_path: Path
) -> None:
    with get_engine(settings).begin() as connection:
        connection.execute(text("DELETE FROM record_entry WHERE seq = 4"))
    result = runner.invoke(cli_app, ["verify-record", str(saved(client, seeded.slug, tmp_path / "r.json"))])
    assert result.exit_code == 1 and "entry 5" in result.output and "where 4 was expected" in result.output


def test_a_forged_head_is_named(client: TestClient, seeded: SeededPool, tmp_path: Path) -> None:
    path = saved(client, seeded.slug, tmp_path / "r.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**document, "head": "f" * 64}), encoding="utf-8")
    result = runner.invoke(cli_app, ["verify-record", str(path)])
    assert result.exit_code == 1 and "the record's head is ffff" in result.output


def test_every_page_of_an_address_is_read_and_can_be_saved(
    app: FastAPI, seeded: SeededPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record_read, "PER_PAGE", 4)
    pages = cli_record.read_pages(
        f"http://testserver/api/v1/events/{seeded.slug}/record", client=TestClient(app)
    )
    assert len(pages) == 3
    entries = cli_record.entries_of(pages)
    assert [e.seq for e in entries] == list(range(1, 10))
    spectator = TestClient(app)
    monkeypatch.setattr(cli_record.httpx, "Client", lambda **_options: spectator)
    copy = tmp_path / "copy.json"
    address = f"http://testserver/api/v1/events/{seeded.slug}/record"
    result = runner.invoke(cli_app, ["verify-record", address, "--save", str(copy)])
    assert result.exit_code == 0, result.output
    offline = runner.invoke(cli_app, ["verify-record", str(copy)])
    assert offline.exit_code == 0 and "9 entries hold" in offline.output
    assert len(json.loads(copy.read_text(encoding="utf-8"))["entries"]) == 9


@pytest.mark.parametrize(
    ("content", "message"),
    [("not json", "not JSON"), ('{"entries": 3}', "not a record"), ('{"entries": [{"seq": 1}]}', "lacks")],
)
def test_a_source_that_is_not_a_record_exits_2_with_its_reason(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    result = runner.invoke(cli_app, ["verify-record", str(path)])
    assert result.exit_code == 2 and message in result.output
    missing = runner.invoke(cli_app, ["verify-record", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "none.json" in missing.output
