"""The Swiss stage page and its JSON twin build one round and one table per address (services/read/swiss.py):
``?round=N`` carries round N's matches only, ``?after=N`` the standings after round N only; a result stored
in a round refreshes that round's kept page and the standings (docs/caching.md)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.services.results import results
from tests.support.swiss import (
    ACTOR,
    board_result,
    pair_and_publish,
    pair_publish_play,
    play_round,
    running_swiss,
)

SLUG = "swiss-test-cup"
PAGE = f"/events/{SLUG}/stages/open"
JSON = f"/api/v1/events/{SLUG}/stages/open/swiss"


@pytest.fixture
def stage_id(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        return running_swiss(uow)


def _match_ids(client: TestClient, number: int) -> set[int]:
    body = client.get(f"{JSON}?round={number}").json()
    return {m["id"] for r in body["pool"]["rounds"] for m in r["matches"]}


def _linked_matches(page: str) -> set[int]:
    return {int(n) for n in re.findall(rf'href="/events/{SLUG}/matches/(\d+)"', page)}


def test_the_page_of_round_3_shows_round_3s_pairings_and_not_round_4s(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    for _ in range(3):
        pair_publish_play(factory, stage_id)
    pair_and_publish(factory, stage_id)  # round 4 paired: the page's default
    client = TestClient(app)
    third, fourth = _match_ids(client, 3), _match_ids(client, 4)
    assert third and fourth and not third & fourth
    page_3 = client.get(f"{PAGE}?round=3")
    assert page_3.status_code == 200
    assert _linked_matches(page_3.text) == third
    assert "Round 3 pairings" in page_3.text and "Round 4 pairings" not in page_3.text
    assert "Standings after round 3" in page_3.text  # round 3 is complete: the table after it
    default = client.get(PAGE).text
    assert _linked_matches(default) == fourth and "Standings after round 3" in default
    assert _linked_matches(client.get(f"{PAGE}?round=3&after=1").text) == third


def test_the_json_of_round_n_carries_round_n_matches_and_one_table(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    for _ in range(3):
        pair_publish_play(factory, stage_id)
    pair_and_publish(factory, stage_id)
    client = TestClient(app)
    default = client.get(JSON).json()
    assert (default["round"], default["current_round"], default["after"]) == (4, 4, 3)
    for number in (1, 2, 3, 4):
        body = client.get(f"{JSON}?round={number}").json()
        rounds = body["pool"]["rounds"]
        assert [r["number"] for r in rounds] == [1, 2, 3, 4, 5]  # every round listed, with its state
        assert [r["number"] for r in rounds if r["matches"]] == [number]
        assert {m["round_number"] for m in rounds[number - 1]["matches"]} == {number}
        assert body["round"] == number and body["current_round"] == 4
        after = number if number <= 3 else 3  # the round shown when complete, else the last complete one
        assert [t["round"] for t in body["standings_after"]] == [after] and body["after"] == after
        assert body["pool"]["crosstable"] == [] and "paths" not in body
    assert [t["round"] for t in client.get(f"{JSON}?round=4&after=2").json()["standings_after"]] == [2]
    for bad in ("0", "6", "x", "99999999", "-1"):
        refused = client.get(f"{JSON}?round={bad}")
        assert refused.status_code == 422 and "choose a round from 1 to 5" in refused.text
    refused = client.get(f"{JSON}?after=4")
    assert refused.status_code == 422 and "complete rounds: 1, 2, 3" in refused.text


def test_the_json_before_any_round_is_paired_has_no_round_and_no_table(app: FastAPI, stage_id: int) -> None:
    body = TestClient(app).get(JSON).json()
    assert (body["round"], body["after"], body["standings_after"]) == (None, None, [])
    assert [r["status"] for r in body["rounds"]] == ["unpaired"] * 5


def test_a_result_refreshes_the_kept_page_of_its_round_and_the_standings(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    pair_publish_play(factory, stage_id)
    second = pair_and_publish(factory, stage_id)
    (left,) = play_round(factory, second.round_id, leave=[(1, 4)])  # round 2: one board still playing
    client = TestClient(app)
    cache = app.state.page_cache
    round_2, standings = client.get(f"{PAGE}?round=2"), client.get(f"{PAGE}?round=1")
    assert "Standings after round 1" in round_2.text and "Standings after round 2" not in round_2.text
    builds = cache.builds
    assert client.get(f"{PAGE}?round=2").text == round_2.text and cache.builds == builds  # kept
    with factory() as uow:  # the arbiter enters the last board of round 2: the results service announces
        results.record_result(
            uow,
            board_id=left.id or 0,
            result=board_result(2, 1, 4).value,
            expected_version=left.version,
            actor=ACTOR,
        )
    again = client.get(f"{PAGE}?round=2")
    assert cache.builds == builds + 1 and again.text != round_2.text
    assert "Standings after round 2" in again.text  # round 2 complete: its table, and the tab after it
    assert "Round 2 of 5 is complete" in again.text
    # Another round's kept page follows the same stage and pool: its summary and tabs are new too.
    other = client.get(f"{PAGE}?round=1")
    assert cache.builds == builds + 2 and other.text != standings.text
    assert f'href="{PAGE}?after=2"' in other.text
    body = client.get(f"{JSON}?round=2").json()
    assert body["after"] == 2 and all(m["status"] == "finished" for m in body["pool"]["rounds"][1]["matches"])
