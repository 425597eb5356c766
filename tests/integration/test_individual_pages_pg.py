"""Board prizes, the player page and the rating file on PostgreSQL (the queries of the individual read
models: every player's boards of a stage, the lots of an event)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.read import rating_trf
from orchestrator.web.app import create_app
from tests.support.pools import FIRST_WINS_6_0, SeededPool, play

pytestmark = pytest.mark.integration


@pytest.fixture
def app(pg_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[FastAPI]:
    application = create_app(Settings(database_url=pg_url, environment="test"), uow_factory=uow_factory)
    with TestClient(application):
        yield application


def test_board_prizes_player_page_and_rating_file_on_postgresql(
    app: FastAPI, uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    first = sorted(k for k in seeded.matches if k[0] == 1)[0]
    play(uow_factory, seeded.matches[first], FIRST_WINS_6_0)
    client = TestClient(app)
    body = client.get(f"/api/v1/events/{seeded.slug}/stages/{seeded.stage_key}/board-prizes").json()
    board_1 = next(b for b in body["boards"] if b["board"] == 1)["lines"]
    played = [line for line in board_1 if line["games"] == 1]
    assert len(played) == 2 and body["min_games"] == 8
    winner = next(line for line in played if line["points_half"] == 2)
    loser = next(line for line in played if line["points_half"] == 0)
    # One game each: TPR = the opponent's rating ± 800 (C.07 10.2, B.02 8.1.1: p = 1 or 0).
    assert winner["performance"] == loser["rating"] + 800 and loser["performance"] == winner["rating"] - 800
    assert (winner["eligible"], winner["games_needed"]) == (False, 7)
    page = client.get(f"/events/{seeded.slug}/players/{winner['player_id']}")
    assert page.status_code == 200 and loser["name"] in page.text
    with uow_factory() as uow:
        _, text = rating_trf.pool_rating_trf(uow, pool_id=seeded.pool_id)
    assert sum(1 for line in text.splitlines() if line.startswith("310")) == len(seeded.teams)
