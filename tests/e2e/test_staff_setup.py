"""An owner sets an event up over real HTTP with the forms only (no JavaScript): upload, draft, swap,
publish, start; each page read back as a browser would."""

from __future__ import annotations

import re

import httpx
import pytest

from orchestrator.services.accounts.users import create_user
from tests.support.factories import SMALL_EVENT
from tests.support.server import LiveServer

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"
TWO_POOLS = (
    SMALL_EVENT.replace("pool_count: 1\n    pool_size: 4", "pool_count: 2\n    pool_size: 2")
    .replace("advance: 2", "advance: 1")
    .replace("{from: group, top: 2}", "{from: group, top: 1}")
    .replace("advance: 0", "advance: 0\n    winners_apart: false")
    .replace("slug: small-test-cup", "slug: e2e-two-pools")
)


def csrf_field(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


def pool_members(html: str) -> list[set[str]]:
    sections = html.split('<section class="pool-card">')[1:]
    return [{t for t in ("Norway", "Sweden", "Denmark", "Finland") if f"<td>{t} " in s} for s in sections]


def test_an_owner_sets_up_a_stage_with_the_forms_only(live_server: LiveServer) -> None:
    with live_server.uow_factory() as uow:
        create_user(uow, username="owner.e2e", password=PASSWORD, role="owner")
    with httpx.Client(base_url=live_server.base_url, follow_redirects=True) as browser:
        login = browser.get("/login")
        browser.post(
            "/login",
            data={"username": "owner.e2e", "password": PASSWORD, "csrf_token": csrf_field(login.text)},
        )
        form = browser.get("/staff/events/new")
        assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.text
        event = browser.post(
            "/staff/events",
            data={"csrf_token": csrf_field(form.text)},
            files={"definition_file": ("two-pools.yaml", TWO_POOLS.encode(), "text/yaml")},
        )
        assert event.status_code == 200 and "The event was created." in event.text
        stage_link = re.search(r'href="(/staff/stages/\d+/pools)"', event.text)
        assert stage_link is not None
        pools_url = stage_link.group(1)
        page = browser.get(pools_url)
        drafted = browser.post(pools_url + "/draft", data={"csrf_token": csrf_field(page.text)})
        assert "Draft pools were made." in drafted.text
        before = pool_members(drafted.text)
        assert len(before) == 2 and all(len(p) == 2 for p in before)
        ids = dict(re.findall(r'<option value="(\d+)">(\w+) \(', drafted.text))
        by_name = {name: team_id for team_id, name in ids.items()}
        a, b = sorted(before[0])[0], sorted(before[1])[0]
        swapped = browser.post(
            pools_url + "/swap",
            data={"csrf_token": csrf_field(drafted.text), "team_a_id": by_name[a], "team_b_id": by_name[b]},
        )
        assert "The two teams were swapped." in swapped.text
        after = pool_members(swapped.text)
        assert after == [(before[0] - {a}) | {b}, (before[1] - {b}) | {a}]
        published = browser.post(pools_url + "/publish", data={"csrf_token": csrf_field(swapped.text)})
        assert "The pools are published." in published.text and "Start Group" in published.text
        started = browser.post(
            pools_url.replace("/pools", "/start"), data={"csrf_token": csrf_field(published.text)}
        )
        assert "The stage has started" in started.text
        lots = browser.get("/api/v1/events/e2e-two-pools/lots").json()
        assert sorted(lot["purpose"] for lot in lots) == [
            "Group pool A pairing numbers",
            "Group pool B pairing numbers",
        ]
