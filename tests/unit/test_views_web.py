"""Spectator pages and the public API over ASGI (SQLite): content, conditional requests, errors."""

from __future__ import annotations

import itertools
import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import RoundStatus
from orchestrator.web.http.caching import CACHE_CONTROL_PUBLIC
from tests.support.pools import DRAW_3_3, FIRST_WINS_6_0, SeededPool, play, seed_small_pool


@pytest.fixture
def seeded(app: FastAPI) -> SeededPool:
    return seed_small_pool(app.state.uow_factory)


@pytest.fixture
def round_one(app: FastAPI, seeded: SeededPool) -> list[tuple[int, str, str]]:
    """Round 1 played: its first pairing 6–0 to the first team, its second 3–3; its pairings in order."""
    r1 = sorted(k for k in seeded.matches if k[0] == 1)
    play(app.state.uow_factory, seeded.matches[r1[0]], FIRST_WINS_6_0)
    play(app.state.uow_factory, seeded.matches[r1[1]], DRAW_3_3)
    return r1


def test_the_pool_page_shows_every_tiebreak_column_and_the_separating_criterion(
    client: TestClient, seeded: SeededPool, round_one: list[tuple[int, str, str]]
) -> None:
    r1 = round_one
    page = client.get(seeded.pool_path)
    assert page.status_code == 200
    head = page.text.split('class="standings standings-full"')[1].split("</thead>")[0]
    for short in ("MP", "GP", "DE-MP", "DE-GP", "SB-MP", "SB-GP", "Separated by"):
        assert f">{short}<" in head
    # 6-0 winner first, then the two drawn teams (tied on MP and GP...), then the 0-6 loser
    body = page.text.split('class="standings standings-full"')[1].split("</table>")[0]
    rows = re.findall(r"<tr class=\"[^\"]*\">(.*?)</tr>", body, re.S)
    assert r1[0][1] in rows[0] and r1[0][2] in rows[3]
    assert 'class="sep-label">MP<' in rows[1]  # 1 MP below 2 MP
    assert 'class="sep-label">MP<' in rows[3]
    assert "Cross table" in page.text and "Rounds" in page.text
    assert f'data-live-src="/events/{seeded.slug}/live?' in page.text
    assert f"pool%3A{seeded.pool_id}" in page.text


def test_a_second_request_with_the_etag_gets_304_and_a_new_result_changes_the_etag(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    for path in (seeded.pool_path, f"/api/v1/events/{seeded.slug}/stages/{seeded.stage_key}/pools/A"):
        first = client.get(path)
        etag = first.headers["etag"]
        assert first.headers["cache-control"] == CACHE_CONTROL_PUBLIC
        again = client.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    page_etag = client.get(seeded.pool_path).headers["etag"]
    play(app.state.uow_factory, seeded.matches[min(seeded.matches)], FIRST_WINS_6_0)
    changed = client.get(seeded.pool_path, headers={"If-None-Match": page_etag})
    assert changed.status_code == 200 and changed.headers["etag"] != page_etag


def test_every_public_page_answers_with_an_etag(app: FastAPI, client: TestClient, seeded: SeededPool) -> None:
    match_id = min(seeded.matches.values())
    team_id = next(iter(seeded.teams.values()))
    paths = [
        "/",
        f"/events/{seeded.slug}",
        f"/events/{seeded.slug}/stages/{seeded.stage_key}",
        seeded.pool_path,
        f"/events/{seeded.slug}/matches/{match_id}",
        f"/events/{seeded.slug}/teams/{team_id}",
        "/api/v1/events",
        f"/api/v1/events/{seeded.slug}",
        f"/api/v1/events/{seeded.slug}/stages/{seeded.stage_key}",
        f"/api/v1/events/{seeded.slug}/matches/{match_id}",
        f"/api/v1/events/{seeded.slug}/teams/{team_id}",
    ]
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["etag"].startswith('"'), path
        assert client.get(path, headers={"If-None-Match": answer.headers["etag"]}).status_code == 304, path


def test_the_pool_api_gives_exact_values_separated_by_and_the_cross_table(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    play(app.state.uow_factory, seeded.matches[min(seeded.matches)], FIRST_WINS_6_0)
    data = client.get(f"/api/v1/events/{seeded.slug}/stages/{seeded.stage_key}/pools/A").json()
    assert [c["code"] for c in data["chain"]] == ["MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB"]
    top = data["standings"][0]
    assert top["mp"] == 2 and top["gp_half"] == 12 and top["separated_by"] is None
    assert {"code": "GP", "text": "6", "exact": "6/1"} in top["values"]
    assert data["standings"][1]["separated_by"] == "MP"
    assert len(data["crosstable"]) == 4 and len(data["crosstable"][0]["cells"]) == 4
    assert len(data["rounds"]) == 3 and data["rounds"][0]["matches"][0]["first"]["name"]


def test_the_openapi_document_describes_the_public_answers(client: TestClient) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    pool = schema["paths"]["/api/v1/events/{slug}/stages/{stage_key}/pools/{letter}"]["get"]
    ref = pool["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/PoolView")
    assert "separated_by" in schema["components"]["schemas"]["StandingLine"]["properties"]


def test_unknown_things_are_404_pages_and_json_404s(client: TestClient, seeded: SeededPool) -> None:
    assert client.get("/events/nope").status_code == 404
    assert client.get(f"/events/{seeded.slug}/stages/group/pools/Z").status_code == 404
    assert client.get(f"/events/{seeded.slug}/matches/99999").status_code == 404
    answer = client.get("/api/v1/events/nope")
    assert answer.status_code == 404 and "nope" in answer.json()["detail"]


def test_the_live_stream_refuses_bad_topics_and_unknown_events(
    client: TestClient, seeded: SeededPool
) -> None:
    assert client.get(f"/events/{seeded.slug}/live?topic=not-a-topic").status_code == 422
    assert client.get("/events/nope/live?topic=pool:1").status_code == 404


def test_a_pgn_downloads_as_a_file(app: FastAPI, client: TestClient, seeded: SeededPool) -> None:
    match_id = min(seeded.matches.values())
    with app.state.uow_factory() as uow:
        board = uow.read.boards_of_matches([match_id])[0]
        board.pgn = '[Event "Small Test Cup"]\n\n1. d4 d5 *\n'
        uow.session.add(board)
    answer = client.get(f"/events/{seeded.slug}/matches/{match_id}/boards/1.pgn")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/x-chess-pgn")
    assert "attachment" in answer.headers["content-disposition"]
    assert answer.text.startswith('[Event "Small Test Cup"]')
    page = client.get(f"/events/{seeded.slug}/matches/{match_id}")
    assert f"/matches/{match_id}/boards/1.pgn" in page.text


def test_the_start_page_lists_published_events(client: TestClient, seeded: SeededPool) -> None:
    page = client.get("/")
    assert f'href="/events/{seeded.slug}"' in page.text and "Small Test Cup" in page.text


def test_the_event_page_says_what_is_on_now_and_links_the_pools_playing(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    fresh = itertools.count()

    def now_text() -> str:
        # The round's status is set below without the announcement a service makes, so each read asks for
        # a new address (the page cache keeps a page until its topics are announced, up to 5 s).
        page = client.get(f"/events/{seeded.slug}?read={next(fresh)}")
        assert page.status_code == 200
        section = page.text.split('id="now"')[1].split("</section>")[0]
        assert f'href="{seeded.pool_path}"' in section
        return " ".join(re.sub(r"<[^>]+>", "", section.split(">", 1)[1]).split())

    assert "Now" in now_text() and "Round 1 of 3 starts" in now_text()
    with app.state.uow_factory() as uow:
        first = min(uow.read.rounds_of_stages([seeded.stage_id]), key=lambda r: r.number)
        first.status = RoundStatus.PLAYING.value
        uow.rounds.insert(first)
    assert "Round 1 of 3 is being played; pools A." in now_text()


def test_on_a_phone_the_team_cell_keeps_what_separates_it_and_a_wide_table_says_it_scrolls(
    client: TestClient, seeded: SeededPool, round_one: list[tuple[int, str, str]]
) -> None:
    page = client.get(seeded.pool_path).text
    body = page.split('class="standings standings-full"')[1].split("</table>")[0]
    team_cells = re.findall(r'<th scope="row" class="sticky-2 team-cell">(.*?)</th>', body, re.S)
    inline = [re.sub(r"<[^>]+>", "", c.split('class="sep-inline">')[1]) for c in team_cells[1:]]
    assert inline == ["separated by MP", "tied with the team above", "separated by MP"]
    assert 'class="scroll-hint"' in page.split("</table>")[1].split("</section>")[0]
    css = client.get("/static/public.css").text
    phone = css.split("@media (max-width: 40rem)")[1].split("\n}\n")[0]
    assert ".standings-full .sep-inline { display: block" in phone
    assert ".scroll-hint { display: block" in phone
    assert ".team-matches .fed" in phone  # the team page's matches: the score comes into view sooner
    assert ".sticky-1, .sticky-2 { position: sticky" in css and "no-repeat local" in css
