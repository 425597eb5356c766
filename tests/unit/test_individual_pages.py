"""Board prizes, rating changes and the player page (orchestrator/web/pages/public/olympiad.py) on a played
Swiss stage: pages, JSON and CSV agree with values worked out by hand from round 1 of the small Swiss event.

Casimir Zurik's rating is set here to 2766, Yusuf Belgolas's, so that Emil Dendennov and Mira Visen tie on
board 1. Round 1 (C.04.6 pairing of that field, results from tests/support/swiss.py), board 1:
  Russia – Ukraine   Yusuf Belgolas 2766 (White) 0-1 Emil Dendennov 2708
  USA – Armenia      Anvar Shabronov 2722 (White) 0-1 Goran Mimarlan 2689
  India – China      Mira Visen 2713 (White) 1-0 Casimir Zurik 2766
  Azerbaijan has the pairing-allocated bye.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import select

from orchestrator.adapters.tables import AuditLog, Player, Role
from orchestrator.domain.names import MAX_PLAYER_NAME
from orchestrator.services.accounts.users import create_user
from orchestrator.services.read import board_prizes, ratings
from orchestrator.services.results import results
from orchestrator.services.setup.stage_start import start_stage
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import ACTOR, SWISS_EVENT, pair_publish_play
from tests.support.web import PASSWORD, login

SLUG = "swiss-test-cup"
EVENT = SWISS_EVENT.replace(
    "timezone: UTC\n", "timezone: UTC\nrated: true\nboard_prizes:\n  min_games: 1\n", 1
).replace(
    'account: "czurik_chn", sex: m, born: 2003, rating: 2753',
    'account: "czurik_chn", sex: m, born: 2003, rating: 2766',
)


@pytest.fixture
def played(app: FastAPI, sent: list[Any]) -> FastAPI:
    """The event stored, its Swiss stage started and round 1 paired, published and played."""
    assert "rating: 2766}" in EVENT.split("czurik_chn")[1].split("\n")[0]
    factory = app.state.uow_factory
    with factory() as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        stage_id = stage_id_of(uow, make_event(uow, EVENT), "open")
        start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    pair_publish_play(factory, stage_id)
    return app


def _board(body: dict[str, Any], number: int) -> list[dict[str, Any]]:
    return next(b for b in body["boards"] if b["board"] == number)["lines"]


def test_board_one_ranks_by_performance_and_leaves_the_tie_for_gold_to_a_lot(played: FastAPI) -> None:
    client = TestClient(played)
    body = client.get(f"/api/v1/events/{SLUG}/stages/open/board-prizes").json()
    assert body["min_games"] == 1
    lines = {line["name"]: line for line in _board(body, 1)}
    # TPR = ARO + dp (C.07 10.2); a 1/1 score has dp = +800, 0/1 has −800 (B.02 table 8.1.1).
    assert lines["Emil Dendennov"]["performance"] == 2766 + 800  # beat Yusuf Belgolas 2766
    assert lines["Mira Visen"]["performance"] == 2766 + 800  # beat Casimir Zurik, now 2766
    assert lines["Goran Mimarlan"]["performance"] == 2722 + 800  # beat Anvar Shabronov
    assert lines["Casimir Zurik"]["performance"] == 2713 - 800
    assert lines["Yusuf Belgolas"]["performance"] == 2708 - 800
    assert lines["Anvar Shabronov"]["performance"] == 2689 - 800
    assert [line["name"] for line in _board(body, 1)][2:6] == [
        "Goran Mimarlan", "Casimir Zurik", "Yusuf Belgolas", "Anvar Shabronov",
    ]  # fmt: skip
    # Equal TPR and games: places shared, no medal until the lot; bronze is not held back.
    assert (lines["Emil Dendennov"]["place"], lines["Emil Dendennov"]["tied"]) == (1, True)
    assert (lines["Mira Visen"]["place"], lines["Mira Visen"]["medal"]) == (1, None)
    assert (lines["Goran Mimarlan"]["place"], lines["Goran Mimarlan"]["medal"]) == (3, "bronze")
    # Azerbaijan had the bye: its board 1 has played no game and needs one more.
    azerbaijan = lines["Zoran Rutintor"]
    assert (azerbaijan["eligible"], azerbaijan["place"], azerbaijan["games_needed"]) == (False, None, 1)
    assert next(b for b in body["boards"] if b["board"] == 1)["ties_pending"] == [
        ["Emil Dendennov", "Mira Visen"]
    ]

    page = client.get(f"/events/{SLUG}/stages/open/board-prizes")
    assert page.status_code == 200
    assert "tied: a lot decides" in page.text and "not yet eligible (1 more game)" in page.text
    assert "Bronze medal" in page.text and 'tabindex="0"' in page.text
    assert "Commit a lot" not in page.text and "rating.trf" not in page.text  # no staff links
    assert f'href="/events/{SLUG}/ratings"' in page.text  # a rated event links its rating changes

    exported = client.get(f"/events/{SLUG}/stages/open/board-prizes.csv")
    assert exported.headers["content-disposition"].endswith('board-prizes.csv"')
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    emil = next(r for r in rows if r["player"] == "Emil Dendennov")
    assert (emil["board"], emil["place"], emil["performance"], emil["tied"]) == ("1", "1", "3566", "yes")


def test_staff_commit_then_draw_the_board_lot_and_the_page_shows_the_order_and_how_to_verify(
    played: FastAPI,
) -> None:
    arbiter, csrf = login(played, "arbiter")
    staff_page = arbiter.get(f"/events/{SLUG}/stages/open/board-prizes").text
    assert "Commit a lot for this tie" in staff_page and "/rating.trf" in staff_page
    path = f"/staff/events/{SLUG}/stages/open/board-prizes/1/lot"
    assert arbiter.post(path, data={"action": "commit"}).status_code in (400, 403)  # no CSRF token
    committed = arbiter.post(path, data={"action": "commit", "csrf_token": csrf}, follow_redirects=False)
    assert committed.status_code == 303
    again = arbiter.post(path, data={"action": "commit", "csrf_token": csrf})
    assert again.status_code == 409 and "already has a committed lot" in again.text
    anonymous = TestClient(played)
    sealed = anonymous.get(f"/api/v1/events/{SLUG}/stages/open/board-prizes").json()
    lot = next(b for b in sealed["boards"] if b["board"] == 1)["lots"][0]
    assert lot["seed_hex"] is None and len(lot["commitment"]) == 64
    drawn = arbiter.post(
        f"/api/v1/events/{SLUG}/stages/open/board-prizes/1/lot/draw", headers={"X-CSRF-Token": csrf}
    )
    assert drawn.status_code == 200, drawn.text
    order = drawn.json()["lot"]["outcome"]
    assert sorted(order) == sorted(lot["candidates"]) and len(order) == 2
    after = anonymous.get(f"/api/v1/events/{SLUG}/stages/open/board-prizes").json()
    lines = _board(after, 1)
    first, second = (line for line in lines if line["name"] in ("Emil Dendennov", "Mira Visen"))
    assert (first["place"], first["medal"], second["place"], second["medal"]) == (1, "gold", 2, "silver")
    assert order[0].split(" ", 1)[1].startswith(first["name"])  # "#<id> Name (Team)"
    page = anonymous.get(f"/events/{SLUG}/stages/open/board-prizes").text
    assert "Verify this draw" in page and "Drawn by lot:" in page
    with played.state.uow_factory() as uow:
        audit = uow.session.exec(select(AuditLog).where(AuditLog.actor == "arbiter")).all()
    assert {"lot.commit", "lot.draw"} <= {entry.action for entry in audit}
    nothing = arbiter.post(path, data={"action": "draw", "csrf_token": csrf})
    assert nothing.status_code == 409 and "no committed lot" in nothing.text


def test_rating_changes_per_game_and_per_player(played: FastAPI) -> None:
    client = TestClient(played)
    table = client.get(f"/api/v1/events/{SLUG}/ratings").json()
    assert table["rated"] and table["year"] == 2030
    by_name = {p["name"]: p for p in table["players"]}
    # Yusuf Belgolas 2766 lost to Emil Dendennov 2708: D = 58, band 54-61, the higher-rated PD = 0.58
    # (B.02 table 8.1.2). K = 10 (rated 2400 or more). Change = 10 × (0 − 0.58) = −5.8 → −6 (8.3.4).
    yusuf = by_name["Yusuf Belgolas"]
    assert (yusuf["k"], yusuf["expected"], yusuf["delta"], yusuf["change"], yusuf["new_rating"]) == (
        10, "29/50", "-29/50", -6, 2766 - 6,
    )  # fmt: skip
    # Emil: PD = 1 − 0.58 = 0.42, ΔR = +0.58, 10 × 0.58 = +5.8 → +6.
    assert (by_name["Emil Dendennov"]["change"], by_name["Emil Dendennov"]["new_rating"]) == (6, 2714)
    # Azerbaijan had the bye: no game, no change.
    assert (by_name.get("Zoran Rutintor") or {"rated_games": 0})["rated_games"] == 0

    document = client.get(f"/api/v1/events/{SLUG}/players/{yusuf['player_id']}").json()
    # One game, lost to a 2708: TPR = 2708 − 800 (C.07 10.2, B.02 8.1.1).
    assert (document["performance"]["games"], document["performance"]["rating"]) == (1, 2708 - 800)
    player = document["player"]
    game = player["rounds"][0]
    assert game["opponent"]["name"] == "Emil Dendennov" and game["opponent"]["rating"] == 2708
    assert (game["result"], game["expected"], game["change"], game["rated"]) == ("0", "29/50", "-29/5", True)

    page = client.get(f"/events/{SLUG}/players/{yusuf['player_id']}")
    assert page.status_code == 200 and "Emil Dendennov" in page.text and "-5.80" in page.text
    assert "performance rating <strong>1908</strong>" in page.text
    listing = client.get(f"/events/{SLUG}/ratings")
    assert listing.status_code == 200 and "Yusuf Belgolas" in listing.text and "-6" in listing.text
    rows = list(csv.DictReader(io.StringIO(client.get(f"/events/{SLUG}/ratings.csv").text)))
    row = next(r for r in rows if r["player"] == "Yusuf Belgolas")
    assert (row["rating_change"], row["new_rating"], row["expected"]) == ("-6", "2760", "0.58")


def test_a_forfeit_is_not_rated_and_an_unrated_event_has_no_rating_pages(played: FastAPI) -> None:
    factory = played.state.uow_factory
    with factory() as uow:
        event_id = uow.read.visible_event(SLUG).id  # type: ignore[union-attr]
        boards = [b for b in uow.read.boards_of_matches(m.id for m in _matches(uow, event_id))]
        first = min(boards, key=lambda b: (b.match_id, b.board_no))
        white = first.white_player_id
    with factory() as uow:
        results.record_result(
            uow, board_id=first.id or 0, result="+/-", expected_version=first.version, actor=ACTOR,
            reason="did not appear",
        )  # fmt: skip
    with factory() as uow:
        view = ratings.player_view(uow, slug=SLUG, player_id=white or 0)
        prizes = board_prizes.board_prizes_view(uow, slug=SLUG, stage_key="open")
    game = view.player.rounds[0]
    assert (game.rated, game.note, game.result) == (False, "forfeit", "+")
    assert view.player.result is not None and view.player.rated_games == 0 and view.player.change == 0
    line = next(x for s in prizes.boards for x in s.lines if x.player_id == white)
    assert (line.games, line.eligible) == (0, False)  # a forfeit is not a game over the board

    with factory() as uow:
        make_event(uow, SWISS_EVENT.replace("slug: swiss-test-cup", "slug: unrated-cup"))
        start_stage(uow, stage_id=stage_id_of(uow, uow.events.get_by_slug("unrated-cup").id or 0, "open"),  # type: ignore[union-attr]
                    actor=ACTOR, initial_colour="W")  # fmt: skip
    client = TestClient(played)
    missing = client.get("/events/unrated-cup/ratings")
    assert missing.status_code == 404 and "not a rated event" in missing.text
    assert client.get("/api/v1/events/unrated-cup/ratings").status_code == 404
    assert client.get("/events/unrated-cup/stages/open/board-prizes").status_code == 200
    assert 'href="/events/unrated-cup/ratings"' not in client.get("/events/unrated-cup").text
    assert client.get(f"/events/{SLUG}/players/999999").status_code == 404


def _matches(uow: Any, event_id: int) -> list[Any]:
    stages = uow.read.stages_of_events([event_id])
    pools = uow.read.pools_of_stages([s.id for s in stages])
    return list(uow.read.matches_of_pools([p.id for p in pools]))


def test_the_pages_are_built_once_per_change(played: FastAPI) -> None:
    cache = played.state.page_cache
    client = TestClient(played)
    path = f"/events/{SLUG}/stages/open/board-prizes"
    first = client.get(path)
    builds = cache.builds
    second = client.get(path)
    assert second.text == first.text and cache.builds == builds  # served from the cache
    assert "Swipe the table sideways" in first.text
    with played.state.uow_factory() as uow:
        stage_id = stage_id_of(uow, uow.read.visible_event(SLUG).id or 0, "open")  # type: ignore[union-attr]
    pair_publish_play(played.state.uow_factory, stage_id)  # round 2: every result is announced
    third = client.get(path)
    assert cache.builds > builds and third.headers["etag"] != first.headers["etag"]
    body = client.get(f"/api/v1/events/{SLUG}/stages/open/board-prizes").json()
    zoran = next(line for line in _board(body, 1) if line["name"] == "Zoran Rutintor")
    assert (zoran["games"], zoran["eligible"]) == (1, True)  # Azerbaijan, on a bye in round 1, has played


def test_the_stage_page_links_its_board_prizes(played: FastAPI) -> None:
    page = TestClient(played).get(f"/events/{SLUG}/stages/open")
    assert page.status_code == 200 and f'href="/events/{SLUG}/stages/open/board-prizes"' in page.text


def test_a_lot_candidate_names_the_player_by_id_and_fits_a_candidate_s_length() -> None:
    long = Player(id=12, name="N" * 100, team_id=1, event_id=1, account="a", sex="m", birth_year=1990,
                  rating=2000, category="open")  # fmt: skip
    candidate = board_prizes.lot_candidate(long, "T" * 60)
    assert len(candidate) == MAX_PLAYER_NAME and candidate.startswith("#12 NNN")
    assert board_prizes.candidate_id(candidate) == 12
    assert board_prizes.candidate_id("Someone") is None


def test_the_event_page_of_a_rated_event_links_its_rating_changes_and_each_swiss_stages_board_prizes(
    played: FastAPI,
) -> None:
    page = TestClient(played).get(f"/events/{SLUG}")
    assert page.status_code == 200
    assert f'href="/events/{SLUG}/ratings"' in page.text
    assert f'href="/events/{SLUG}/stages/open/board-prizes"' in page.text
