"""The staff dashboard of a Swiss stage (services/read/dashboard.py, kind ``swiss-round``): the next round
appears once the round before is finished ("Pair it"), a drafted pairing appears until it is published
("Review and publish"), and nothing appears while a published round is being played."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.swiss import ACTOR, play_round, running_swiss
from tests.support.web import PASSWORD, login

SLUG = "swiss-test-cup"


def swiss_items(app: FastAPI) -> list[dict[str, Any]]:
    client, _ = login(app, "arb")
    answer = client.get(f"/api/v1/staff/events/{SLUG}/dashboard")
    assert answer.status_code == 200, answer.text
    return [i for i in answer.json()["items"] if i["kind"] == "swiss-round"]


def test_a_swiss_round_asks_to_be_paired_then_published_and_is_quiet_while_played(app: FastAPI) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        stage_id = running_swiss(uow)
        create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
    desk = f"/staff/swiss/{stage_id}"

    [first] = swiss_items(app)
    assert (first["title"], first["action"], first["link"]) == ("Open round 1", "Pair it", desk)

    with factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    [review] = swiss_items(app)
    assert (review["title"], review["action"], review["link"]) == ("Open round 1", "Review and publish", desk)

    with factory() as uow:
        swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
    assert swiss_items(app) == []  # round 1 is being played: round 2 cannot be paired yet

    play_round(factory, draft.round_id, leave=[(1, 1)])
    assert swiss_items(app) == []  # one board of round 1 still has no result

    play_round(factory, draft.round_id)
    [second] = swiss_items(app)
    assert (second["title"], second["action"]) == ("Open round 2", "Pair it")
    page = login(app, "arb")[0].get(f"/staff/events/{SLUG}").text
    assert 'data-kind="swiss-round"' in page and f'href="{desk}"' in page
