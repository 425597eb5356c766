"""Staff setup pages and their JSON API over the ASGI app (SQLite in a temporary directory)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.domain import lots
from orchestrator.services.accounts.users import create_user
from orchestrator.web.auth import iter_routes
from tests.support.factories import SMALL_EVENT
from tests.support.staff_setup import create_small_event, stage_ids
from tests.support.web import PASSWORD, login


@pytest.fixture
def app(app: FastAPI) -> FastAPI:
    """The shared app with an owner, an admin and an arbiter."""
    with app.state.uow_factory() as uow:
        for role in (Role.OWNER, Role.ADMIN, Role.ARBITER):
            create_user(uow, username=role.value, password=PASSWORD, role=role)
    return app


def test_an_invalid_event_file_is_shown_again_with_every_problem_and_its_line(app: FastAPI) -> None:
    client, csrf = login(app, "owner")
    broken = SMALL_EVENT.replace("pool_size: 4", "pool_size: 5").replace(
        "sex: f, born: 2006", "sex: x, born: 2006"
    )
    answer = client.post(
        "/staff/events",
        data={"csrf_token": csrf},
        files={"definition_file": ("cup.yaml", broken.encode(), "text/yaml")},
    )
    assert answer.status_code == 422
    items = re.findall(r"<li>(cup\.yaml:\d+: [^<]+)</li>", answer.text)
    assert len(items) >= 2, answer.text
    assert any("pools of 5" in item for item in items)
    assert any("sex must be m or f" in item for item in items)
    assert "Small Test Cup" in answer.text  # the text is kept in the form to fix it


def test_an_owner_creates_drafts_publishes_and_starts_a_stage_through_the_pages(app: FastAPI) -> None:
    client, csrf = login(app, "owner")
    event_id = create_small_event(client, csrf)
    page = client.get("/staff/events/small-test-cup/setup?done=created")
    assert page.status_code == 200 and "The event was created." in page.text and "Group" in page.text
    group = stage_ids(client, event_id)["group"]
    answer = client.post(f"/staff/stages/{group}/pools/draft", data={"csrf_token": csrf})
    assert answer.status_code == 303
    pools = client.get(f"/staff/stages/{group}/pools")
    assert "Pool A" in pools.text and "pool-average" in pools.text and 'class="spread"' in pools.text
    for team in ("Norway", "Sweden", "Denmark", "Finland"):
        assert team in pools.text
    assert client.post(f"/staff/stages/{group}/pools/publish", data={"csrf_token": csrf}).status_code == 303
    assert client.post(f"/staff/stages/{group}/start", data={"csrf_token": csrf}).status_code == 303
    assert client.get(f"/api/v1/staff/events/{event_id}").json()["stages"][0] == {
        "id": group,
        "key": "group",
        "name": "Group",
        "kind": "pools",
        "position": 1,
        "status": "running",
        "pools": 1,
        "rounds": 3,
    }


def test_a_step_out_of_order_is_explained_on_the_page(app: FastAPI) -> None:
    client, csrf = login(app, "owner")
    group = stage_ids(client, create_small_event(client, csrf))["group"]
    answer = client.post(f"/staff/stages/{group}/start", data={"csrf_token": csrf})
    assert answer.status_code == 409 and "only a stage with published pools can start" in answer.text


def test_arbiters_see_the_setup_pages_but_cannot_change_the_pools(app: FastAPI) -> None:
    owner, owner_csrf = login(app, "owner")
    group = stage_ids(owner, create_small_event(owner, owner_csrf))["group"]
    owner.post(f"/staff/stages/{group}/pools/draft", data={"csrf_token": owner_csrf})
    arbiter, csrf = login(app, "arbiter")
    page = arbiter.get(f"/staff/stages/{group}/pools")
    assert page.status_code == 200 and "Norway" in page.text and "Publish the pools" not in page.text
    assert arbiter.post(f"/staff/stages/{group}/pools/publish", data={"csrf_token": csrf}).status_code == 403
    assert (
        arbiter.post(
            "/api/v1/staff/events", json={"definition_text": SMALL_EVENT}, headers={"X-CSRF-Token": csrf}
        ).status_code
        == 403
    )
    anonymous, _ = login(app, None)
    assert anonymous.get(f"/staff/stages/{group}/pools").headers["location"].startswith("/login")


def test_a_bad_roster_file_lists_every_bad_line_on_the_page(app: FastAPI) -> None:
    client, csrf = login(app, "owner")
    event_id = create_small_event(client, csrf)
    bad = (
        "team,federation,seed,name,account,sex,birth_year,rating,role\n"
        "Iceland,ISL,5,A B,ab_isl,m,1990,2400,1\n"
        "Iceland,ISL,5,C D,cd_isl,m,1990,2400,reserve:veteran\n"
        "Iceland,ISL,5,E F,ab_isl,m,1990,2400,2\n"
    )
    answer = client.post(f"/staff/events/{event_id}/rosters", data={"csrf_token": csrf, "csv_text": bad})
    assert answer.status_code == 422
    assert "line 3: unknown category &#39;veteran&#39;" in answer.text
    assert "line 4: duplicate account &#39;ab_isl&#39;" in answer.text
    page = client.get(f"/staff/events/{event_id}/rosters", follow_redirects=True)  # the old URL redirects
    assert "Iceland" not in page.text.split("<h2>Teams")[1]


def test_a_lot_shows_its_hash_first_and_its_seed_after_the_draw(app: FastAPI) -> None:
    client, csrf = login(app, "arbiter")
    owner, owner_csrf = login(app, "owner")
    event_id = create_small_event(owner, owner_csrf)
    answer = client.post(
        f"/staff/events/{event_id}/lots",
        data={
            "csrf_token": csrf,
            "purpose": "Order of the team photos",
            "candidates": "open\nwomen\njunior\ngirl",
            "kind": "one",
        },
    )
    assert answer.status_code == 303
    public, _ = login(app, None)
    [sealed] = public.get("/api/v1/events/small-test-cup/lots").json()
    assert sealed["seed_hex"] is None and sealed["outcome"] is None and len(sealed["commitment"]) == 64
    assert sealed["commitment"] in client.get(f"/staff/events/{event_id}/lots", follow_redirects=True).text
    assert client.post(f"/staff/lots/{sealed['id']}/reveal", data={"csrf_token": csrf}).status_code == 303
    revealed = public.get(f"/api/v1/lots/{sealed['id']}").json()
    seed = bytes.fromhex(revealed["seed_hex"])
    assert lots.commitment(seed) == sealed["commitment"]
    assert revealed["outcome"] == [lots.draw_one(seed, sealed["candidates"], purpose=sealed["purpose"])]
    assert revealed["drawn_by"] == "arbiter"
    again = client.post(f"/staff/lots/{sealed['id']}/reveal", data={"csrf_token": csrf})
    assert again.status_code == 409 and "already drawn" in again.text


def test_the_json_api_runs_the_whole_setup_and_reports_problems_as_a_list(app: FastAPI) -> None:
    client, csrf = login(app, "admin")
    headers = {"X-CSRF-Token": csrf}
    refused = client.post("/api/v1/staff/events", json={"definition_text": "name: x\n"}, headers=headers)
    assert refused.status_code == 422 and len(refused.json()["problems"]) >= 2
    created = client.post(
        "/api/v1/staff/events", json={"definition_text": SMALL_EVENT, "source": "small.yaml"}, headers=headers
    )
    assert created.status_code == 201
    group = stage_ids(client, created.json()["id"])["group"]
    drafted = client.post(f"/api/v1/staff/stages/{group}/pools/draft", headers=headers).json()
    assert drafted["stage_status"] == "draft" and len(drafted["pools"][0]["teams"]) == 4
    assert re.fullmatch(r"\d+/\d+", drafted["pools"][0]["average"])
    published = client.post(f"/api/v1/staff/stages/{group}/pools/publish", headers=headers).json()
    assert published["stage_status"] == "published"
    started = client.post(f"/api/v1/staff/stages/{group}/start", headers=headers)
    assert started.status_code == 200 and len(started.json()["round_ids"]) == 3
    lots_json = client.get("/api/v1/events/small-test-cup/lots").json()
    assert [lot["purpose"] for lot in lots_json] == ["Group pool A pairing numbers"]
    assert lots_json[0]["seed_hex"] is not None  # pairing numbers are drawn when the stage starts


def test_setup_routes_declare_the_expected_rules(app: FastAPI) -> None:
    rules = {(r.path, m): r.rule.name for r in iter_routes(app) for m in r.methods if r.rule is not None}
    staff_only = "staff"
    admins = "roles: admin, owner"
    expected = {
        ("/staff/events", "GET"): staff_only,
        ("/staff/events", "POST"): admins,
        ("/staff/events/{slug}/rosters", "POST"): admins,
        ("/staff/stages/{stage_id}/pools", "GET"): staff_only,
        ("/staff/stages/{stage_id}/pools/swap", "POST"): admins,
        ("/staff/stages/{stage_id}/start", "POST"): admins,
        ("/staff/events/{slug}/lots", "POST"): staff_only,
        ("/api/v1/staff/stages/{stage_id}/start", "POST"): admins,
        ("/api/v1/events/{slug}/lots", "GET"): "public",
        ("/api/v1/lots/{lot_id}", "GET"): "public",
    }
    assert {key: rules.get(key) for key in expected} == expected
