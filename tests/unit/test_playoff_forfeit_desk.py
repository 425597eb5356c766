"""The play-off desk offers "Record forfeit" only on duels still undecided, and the page and the API
refuse a forfeit on a decided duel with a clear 409 (docs/playoff.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import DuelStatus, Role
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user
from orchestrator.web.app import create_app
from tests.support.databases import schema_at_head
from tests.support.playoff import PlayoffSetup, duel, duel_match, play_duel, playoff_with_bracket
from tests.support.web import PASSWORD, login


@pytest.fixture
def decided(tmp_path: Path) -> Iterator[tuple[FastAPI, PlayoffSetup]]:
    """The 2020 play-off with duel I decided (the first team wins both matches 6–0) and duel II unplayed."""
    settings = Settings(data_dir=tmp_path, environment="test", login_max_failures=1000)
    schema_at_head(settings.sqlalchemy_url)
    app = create_app(settings)
    with TestClient(app):
        factory = app.state.uow_factory
        setup = playoff_with_bracket(factory)
        play_duel(factory, setup, "I", "WWWWWW", "WWWWWW")
        with factory() as uow:
            create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
        yield app, setup


def test_the_desk_offers_forfeits_only_on_undecided_duels_and_both_doors_refuse_a_decided_one(
    decided: tuple[FastAPI, PlayoffSetup],
) -> None:
    app, setup = decided
    with app.state.uow_factory() as uow:
        assert duel(uow, setup, "I").status == DuelStatus.DECIDED.value
        assert duel(uow, setup, "II").status != DuelStatus.DECIDED.value
        decided_legs = [duel_match(uow, setup, "I", leg) for leg in (1, 2)]
        open_leg = duel_match(uow, setup, "II", 1)
    client, csrf = login(app, "arb")
    desk = client.get(f"/staff/playoff/{setup.playoff_stage_id}")
    assert desk.status_code == 200
    for match in decided_legs:
        assert f"/staff/playoff/matches/{match.id}/forfeit" not in desk.text
    assert f"/staff/playoff/matches/{open_leg.id}/forfeit" in desk.text
    match = decided_legs[0]
    body = {"absent_team_id": match.first_team_id, "reason": "no show"}
    answer = client.post(
        f"/api/v1/playoff/matches/{match.id}/forfeit", json=body, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 409
    assert "Duel I is already decided" in answer.json()["detail"]
    page = client.post(f"/staff/playoff/matches/{match.id}/forfeit", data={**body, "csrf_token": csrf})
    assert page.status_code == 409 and "already decided" in page.text
    with app.state.uow_factory() as uow:
        assert duel_match(uow, setup, "I", 1).forfeit == match.forfeit  # nothing written
        assert not [a for a in uow.audit.for_entity("match", match.id or 0) if a.action == "match.forfeit"]
