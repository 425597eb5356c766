"""The public record page and its JSON (docs/record.md): newest first, paged, the head hash on the event
page, no private data, a sealed Armageddon nomination withheld until the nominations are revealed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Role
from orchestrator.config import Settings
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.playoff.armageddon import nominate
from orchestrator.services.read import record as record_read
from orchestrator.web.app import create_app
from tests.support.playoff import draw_category, eligible_accounts, play_duel, playoff_with_bracket
from tests.support.pools import FIRST_WINS_6_0, SeededPool, play, seed_small_pool

STAFF = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)


@pytest.fixture
def seeded(app: FastAPI) -> SeededPool:
    return seed_small_pool(app.state.uow_factory)


def test_the_json_lists_entries_newest_first_with_the_head_hash(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    play(app.state.uow_factory, seeded.match_of(1, "Norway"), FIRST_WINS_6_0)
    answer = client.get(f"/api/v1/events/{seeded.slug}/record")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    document = answer.json()
    seqs = [e["seq"] for e in document["entries"]]
    assert seqs == sorted(seqs, reverse=True) and seqs[0] == document["count"] == 9
    assert document["head"] == document["entries"][0]["hash"]
    assert document["entries"][0]["prev"] == document["entries"][1]["hash"]
    assert [e["kind"] for e in document["entries"][:6]] == ["board.result"] * 6
    assert document["next"] is None and document["pages"] == 1


def test_the_page_shows_each_entry_and_the_event_page_prints_the_head_hash(
    client: TestClient, seeded: SeededPool
) -> None:
    head = client.get(f"/api/v1/events/{seeded.slug}/record").json()["head"]
    page = client.get(f"/events/{seeded.slug}/record")
    assert page.status_code == 200
    assert "stage.start" in page.text and "lot.commit" in page.text and head in page.text
    event_page = client.get(f"/events/{seeded.slug}")
    assert f'href="/events/{seeded.slug}/record"' in event_page.text
    assert f'<code class="hash">{head}</code>' in event_page.text


def test_the_record_is_paged_and_a_page_past_the_end_or_below_one_is_refused_clearly(
    app: FastAPI, client: TestClient, seeded: SeededPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record_read, "PER_PAGE", 2)
    first = client.get(f"/api/v1/events/{seeded.slug}/record").json()
    assert [e["seq"] for e in first["entries"]] == [3, 2] and first["pages"] == 2
    assert first["next"] == f"/api/v1/events/{seeded.slug}/record?page=2"
    second = client.get(first["next"]).json()
    assert [e["seq"] for e in second["entries"]] == [1] and second["next"] is None
    assert "Older entries" in client.get(f"/events/{seeded.slug}/record").text
    assert client.get(f"/api/v1/events/{seeded.slug}/record?page=3").status_code == 404
    for bad in ("0", "-1", "abc", "²"):
        answer = client.get(f"/api/v1/events/{seeded.slug}/record?page={bad}")
        assert answer.status_code == 422 and "page" in answer.text
    assert client.get(f"/events/{seeded.slug}/record?page=0").status_code == 422
    assert client.get("/api/v1/events/nope/record").status_code == 404


def test_no_e_mail_address_reaches_the_record(app: FastAPI, client: TestClient, seeded: SeededPool) -> None:
    with app.state.uow_factory() as uow:
        for player in uow.teams.players_of_team(seeded.teams["Norway"]):
            player.email = f"{player.account}@example.org"
            uow.teams.add(player)
    play(app.state.uow_factory, seeded.match_of(1, "Norway"), FIRST_WINS_6_0)
    for path in (f"/api/v1/events/{seeded.slug}/record", f"/events/{seeded.slug}/record"):
        assert "@example.org" not in client.get(path).text


def test_a_nomination_is_sealed_on_the_record_until_both_are_in(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path, environment="test"))
    with TestClient(app) as client:
        factory = app.state.uow_factory
        setup = playoff_with_bracket(factory)
        play_duel(factory, setup, "III", "WWWWDD", "LLLLDD")
        duel_id, _category = draw_category(factory, setup, "III")
        names = []
        for place in ("C2", "D3"):
            team = setup.place_team[place]
            with factory() as uow:
                account = eligible_accounts(uow, setup, "III", team)[0]
                names.append(
                    next(
                        p.name
                        for p in uow.teams.players_of_team(setup.team_ids[team])
                        if p.account == account
                    )
                )
                nominate(uow, duel_id=duel_id, team_id=setup.team_ids[team], account=account, actor=STAFF)
            document = client.get(f"/api/v1/events/{setup.slug}/record").json()
            nominations = [e for e in document["entries"] if e["kind"] == "armageddon.nominate"]
            if place == "C2":  # one nomination in: sealed, its hash only
                assert (
                    len(nominations) == 1 and nominations[0]["sealed"] and nominations[0]["payload"] is None
                )
                assert names[0] not in client.get(f"/api/v1/events/{setup.slug}/record").text
                assert names[0] not in client.get(f"/events/{setup.slug}/record").text
                assert (
                    "sealed until the nominations are revealed"
                    in client.get(f"/events/{setup.slug}/record").text
                )
        # both in: the nominations are revealed, on the record too
        assert [e["payload"]["player"] for e in reversed(nominations)] == names
        assert not any(e["sealed"] for e in nominations)
