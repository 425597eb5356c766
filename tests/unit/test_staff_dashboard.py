"""The staff dashboard (services/read/dashboard.py, /staff/events/{slug} and its JSON twin): each kind of
item appears, with the link to the page to act on it, exactly when its condition holds.

The base state is the small test event with its group stage started and every player linked: nothing
waits for a decision. Each case changes one thing and expects exactly one item of one kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import select

from orchestrator.adapters.tables import (
    Board,
    BulkStatus,
    EventStatus,
    GameserverBulk,
    LateChange,
    LateChangeCause,
    LinkStatus,
    Match,
    PlayerLink,
    Role,
    Round,
    RoundStatus,
    Stage,
)
from orchestrator.adapters.tables_accounts import Outbox
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.gameresults import map_status
from orchestrator.services.accounts.users import create_user
from orchestrator.services.gameserver.ingestion import GameUpdate, ingest_games
from orchestrator.services.read import dashboard as dashboard_service
from orchestrator.services.results import appeals, results
from orchestrator.services.setup import draws
from tests.support.factories import running_stage
from tests.support.web import PASSWORD, login

SLUG = "small-test-cup"


@pytest.fixture
def web(app: FastAPI, sent: list[tuple[str, tuple[int, ...]]]) -> FastAPI:
    """The app with the small event's group stage running, every player linked, and one arbiter."""
    with app.state.uow_factory() as uow:
        running_stage(uow)
        event = uow.events.get_by_slug(SLUG)
        assert event is not None
        for player in uow.teams.players_of_event(event.id or 0):
            uow.teams.insert(PlayerLink(player_id=player.id or 0, status=LinkStatus.LINKED.value))
        create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
    return app


def rounds_of(uow: UnitOfWork) -> list[Round]:
    event = uow.events.get_by_slug(SLUG)
    assert event is not None
    stage = uow.events.stages_of_event(event.id or 0)[0]
    return list(uow.rounds.rounds_of_stage(stage.id or 0))


def first_match(uow: UnitOfWork) -> Match:
    return uow.rounds.matches_of_round(rounds_of(uow)[0].id or 0)[0]


# --- one builder per kind: (make the condition hold) -> the link the item must carry ---------------------


def held(uow: UnitOfWork) -> str:
    """The game server reports a fair-play violation on board 1: the ingestion holds the result."""
    match = first_match(uow)
    board = uow.boards.for_match(match.id or 0)[0]
    board.game_id = "cheat0001"
    uow.session.add(board)
    uow.flush()
    ingest_games(uow, games=[GameUpdate("cheat0001", map_status("cheat", "white"))])
    return f"/staff/matches/{match.id}/results#match-{match.id}"


def creation_failed(uow: UnitOfWork) -> str:
    rnd = rounds_of(uow)[0]
    uow.rounds.insert(GameserverBulk(round_id=rnd.id or 0, status=BulkStatus.FAILED.value, error="timeout"))
    return f"/staff/events/{SLUG}/links"


def appeal(uow: UnitOfWork) -> str:
    opened = appeals.open_appeal(uow, match_id=first_match(uow).id or 0, actor="arb", grounds="clock")
    return f"/staff/events/{SLUG}/appeals#appeal-{opened.appeal_id}"


def lineups(uow: UnitOfWork) -> str:
    rnd = rounds_of(uow)[1]
    rnd.scheduled_at = utcnow() + timedelta(hours=3)
    rnd.lineup_deadline_at = utcnow() + timedelta(hours=1)
    uow.session.add(rnd)
    return f"/staff/rounds/{rnd.id}/lineups"


def stale_pull(uow: UnitOfWork) -> str:
    rnd = rounds_of(uow)[0]
    rnd.status = RoundStatus.PLAYING.value
    uow.session.add(rnd)
    for match in uow.rounds.matches_of_round(rnd.id or 0):
        for board in uow.boards.for_match(match.id or 0):
            board.updated_at = utcnow() - dashboard_service.STALE_AFTER - timedelta(minutes=1)
            uow.session.add(board)
    return f"/staff/rounds/{rnd.id}/results"


def late_change(uow: UnitOfWork) -> str:
    event = uow.events.get_by_slug(SLUG)
    assert event is not None
    stages = uow.events.stages_of_event(event.id or 0)
    uow.rounds.insert(
        LateChange(
            event_id=event.id or 0,
            source_stage_id=stages[0].id or 0,
            affected_stage_id=stages[1].id or 0,
            cause=LateChangeCause.CORRECTION.value,
            cause_text="board 3 corrected",
            detected_by="arb",
        )
    )
    return f"/staff/events/{SLUG}/results"


def unlinked(uow: UnitOfWork) -> str:
    link = uow.session.get(PlayerLink, 1)
    assert link is not None
    link.status = LinkStatus.REFUSED.value
    uow.session.add(link)
    return f"/staff/events/{SLUG}/links"


def close_stage(uow: UnitOfWork) -> str:
    """Every board of the group has a result and every appeal window has passed. The better seed wins
    each match 6-0 (no tie in the standings, so no tie lot is committed)."""
    rnds = rounds_of(uow)
    for rnd in rnds:
        for match in uow.rounds.matches_of_round(rnd.id or 0):
            teams = uow.teams.teams_by_id([match.first_team_id, match.second_team_id])
            first_wins = teams[match.first_team_id].seed < teams[match.second_team_id].seed
            for board in uow.boards.for_match(match.id or 0):
                first_white = board.board_no % 2 == 1  # the first team has White on odd boards
                code = "1-0" if first_white == first_wins else "0-1"
                results.record_result(
                    uow, board_id=board.id or 0, result=code, expected_version=board.version, actor="arb"
                )
    for rnd in rnds:
        for match in uow.rounds.matches_of_round(rnd.id or 0):
            match.finished_at = utcnow() - timedelta(hours=1)
            uow.session.add(match)
    return f"/staff/stages/{rnds[0].stage_id}/close"


def lot(uow: UnitOfWork) -> str:
    event = uow.events.get_by_slug(SLUG)
    assert event is not None
    draws.commit_lot(
        uow, event_id=event.id or 0, purpose="Board prize tie", candidates=["A", "B"], actor="arb"
    )
    return f"/staff/events/{SLUG}/lots"


BUILDERS: dict[str, Callable[[UnitOfWork], str]] = {
    "held": held,
    "creation-failed": creation_failed,
    "appeal": appeal,
    "lineups": lineups,
    "stale-pull": stale_pull,
    "late-change": late_change,
    "unlinked": unlinked,
    "close-stage": close_stage,
    "lot": lot,
}


def test_every_kind_has_a_builder() -> None:
    # A Swiss stage's rounds have their own test (test_staff_dashboard_swiss.py): the base event has none.
    assert set(BUILDERS) | {"swiss-round"} == set(dashboard_service.KINDS)


def test_nothing_waits_in_the_base_state_and_the_page_says_so(web: FastAPI) -> None:
    client, _ = login(web, "arb")
    assert client.get(f"/api/v1/staff/events/{SLUG}/dashboard").json()["items"] == []
    page = client.get(f"/staff/events/{SLUG}")
    assert page.status_code == 200 and "Nothing waits for a decision." in page.text


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_each_kind_appears_with_its_link_when_its_condition_holds(web: FastAPI, kind: str) -> None:
    with web.state.uow_factory() as uow:
        link = BUILDERS[kind](uow)
    client, _ = login(web, "arb")
    items = client.get(f"/api/v1/staff/events/{SLUG}/dashboard").json()["items"]
    assert [(i["kind"], i["link"]) for i in items] == [(kind, link)]
    page = client.get(f"/staff/events/{SLUG}").text
    assert f'data-kind="{kind}"' in page and f'href="{link}"' in page
    assert "Nothing waits for a decision." not in page


def test_the_player_links_page_lists_a_failed_round_in_its_table_not_as_a_form_error(web: FastAPI) -> None:
    with web.state.uow_factory() as uow:
        link = creation_failed(uow)
    client, _ = login(web, "arb")
    page = client.get(link).text
    assert "<td>timeout</td>" in page and "Please correct the following" not in page


def test_a_held_game_shows_its_reason_to_staff_and_only_a_neutral_word_to_spectators(web: FastAPI) -> None:
    with web.state.uow_factory() as uow:
        held(uow)
        match_id = first_match(uow).id
        event = uow.events.get_by_slug(SLUG)
        assert event is not None
        event.status = EventStatus.RUNNING.value  # spectators see it
        uow.session.add(event)
    reason = "game server reports a fair-play violation: result held for an arbiter; the server proposed 1-0"
    client, _ = login(web, "arb")
    item = client.get(f"/api/v1/staff/events/{SLUG}/dashboard").json()["items"][0]
    assert item["detail"] == reason
    sheet = client.get(f"/staff/matches/{match_id}/results").text
    assert "Held for the arbiter:" in sheet and "fair-play violation" in sheet
    anonymous = TestClient(web).get(f"/events/{SLUG}/matches/{match_id}")
    assert anonymous.status_code == 200
    assert "held by the arbiter" in anonymous.text and "fair-play" not in anonymous.text


def test_items_come_most_urgent_first_then_by_deadline(web: FastAPI) -> None:
    with web.state.uow_factory() as uow:
        lot(uow)
        appeal(uow)
        held(uow)
        later = appeals.open_appeal(uow, match_id=first_match(uow).id or 0, actor="arb", deadline_minutes=90)
        sooner = appeals.open_appeal(uow, match_id=first_match(uow).id or 0, actor="arb", deadline_minutes=5)
    with web.state.uow_factory() as uow:
        board = dashboard_service.dashboard(uow, slug=SLUG)
    kinds = [i.kind for i in board.items]
    assert kinds == ["held", "appeal", "appeal", "appeal", "lot"]
    appeal_links = [i.link for i in board.items if i.kind == "appeal"]
    # deadlines: 5 minutes, the event's 15-minute window (appeal_window_minutes: 15), 90 minutes
    assert appeal_links[0].endswith(f"#appeal-{sooner.appeal_id}") and appeal_links[2].endswith(
        f"#appeal-{later.appeal_id}"
    )


def test_a_board_with_a_result_is_not_held_and_a_past_lineup_deadline_is_not_listed(web: FastAPI) -> None:
    with web.state.uow_factory() as uow:
        held(uow)
        lineups(uow)
    with web.state.uow_factory() as uow:
        board = uow.boards.for_match(first_match(uow).id or 0)[0]
        results.record_result(
            uow, board_id=board.id or 0, result="1-0", expected_version=board.version, actor="a"
        )
        rnd = rounds_of(uow)[1]
        rnd.lineup_deadline_at = utcnow() - timedelta(minutes=1)
        uow.session.add(rnd)
    with web.state.uow_factory() as uow:
        assert dashboard_service.dashboard(uow, slug=SLUG).items == ()


def test_the_dashboard_is_for_staff_only_and_an_unknown_event_is_a_404(web: FastAPI) -> None:
    anonymous, _ = login(web, None)
    assert anonymous.get(f"/staff/events/{SLUG}").status_code == 303  # to the login page
    assert anonymous.get(f"/api/v1/staff/events/{SLUG}/dashboard").status_code == 401
    client, _ = login(web, "arb")
    assert client.get("/staff/events/no-such-cup").status_code == 404
    assert client.get("/api/v1/staff/events/no-such-cup/dashboard").status_code == 404
    assert client.get("/staff/events/no-such-cup/live").status_code == 404  # the live stream too
    assert anonymous.get(f"/staff/events/{SLUG}/live").status_code == 303


def test_board_rows_are_untouched_by_reading_the_dashboard(web: FastAPI) -> None:
    with web.state.uow_factory() as uow:
        held(uow)
        before = [(b.id, b.version, b.result) for b in uow.session.exec(select(Board)).all()]
    client, _ = login(web, "arb")
    client.get(f"/staff/events/{SLUG}")
    with web.state.uow_factory() as uow:
        after = [(b.id, b.version, b.result) for b in uow.session.exec(select(Board)).all()]
    assert before == after


def test_the_last_pull_age_shows_while_a_round_is_under_way_and_grows_when_pulls_stop(web: FastAPI) -> None:
    client, _ = login(web, "arb")
    api = f"/api/v1/staff/events/{SLUG}/dashboard"
    assert client.get(api).json()["last_pull_age_s"] is None  # no round under way: nothing to show
    assert "Last pull of results" not in client.get(f"/staff/events/{SLUG}").text
    with web.state.uow_factory() as uow:
        rnd = rounds_of(uow)[0]
        rnd.status = RoundStatus.PLAYING.value
        rnd.last_pull_at = utcnow() - timedelta(seconds=90)
        uow.session.add(rnd)
    assert 90 <= client.get(api).json()["last_pull_age_s"] < 150
    page = client.get(f"/staff/events/{SLUG}").text
    assert re.search(r"Last pull of results from the game server: (9\d|1[0-4]\d) seconds ago", page)
    with web.state.uow_factory() as uow:
        rnd = rounds_of(uow)[0]
        rnd.status = RoundStatus.FINISHED.value
        uow.session.add(rnd)
    assert client.get(api).json()["last_pull_age_s"] is None


def test_a_round_is_not_stale_while_its_games_may_still_be_running(web: FastAPI) -> None:
    with web.state.uow_factory() as uow:
        stale_pull(uow)
        rnd = rounds_of(uow)[0]
        # 15+5 (tests/fixtures/events/small.yaml): 2 x (15 x 60 + 60 x 5) s = 2400 s = 40 minutes
        rnd.scheduled_at = utcnow() - timedelta(minutes=39)
        uow.session.add(rnd)
    with web.state.uow_factory() as uow:
        event = uow.events.get_by_slug(SLUG)
        assert event is not None
        assert dashboard_service.longest_game(event) == timedelta(minutes=40)
        assert dashboard_service.dashboard(uow, slug=SLUG).items == ()
        later = utcnow() + timedelta(minutes=2)  # the round's games are due by then
        items = dashboard_service.dashboard(uow, slug=SLUG, now=later).items
        assert [i.kind for i in items] == ["stale-pull"]


def test_the_dashboard_shows_the_failed_logins_of_the_last_hour_per_account_and_per_address(
    web: FastAPI,
) -> None:
    """docs/security.md, "Login throttling": someone slowing an account down shows up for staff."""
    stranger = TestClient(web)
    for _ in range(2):
        answer = stranger.post("/api/v1/auth/login", json={"username": "arb", "password": "not the password"})
        assert answer.status_code == 401
    client, _ = login(web, "arb")
    page = client.get(f"/staff/events/{SLUG}").text
    assert "Failed logins in the last hour" in page
    assert '<td>arb</td><td class="num">2</td>' in page
    assert '<td>testclient</td><td class="num">2</td>' in page
    assert "not the password" not in page


def playing_round_with_a_game(
    uow: UnitOfWork, *, started_ago: timedelta, pulled_ago: timedelta | None
) -> Round:
    """Round 1 under way: started ``started_ago``, its first board's game on the server without a result,
    last pulled ``pulled_ago`` (None: never)."""
    rnd = rounds_of(uow)[0]
    rnd.status = RoundStatus.PLAYING.value
    rnd.scheduled_at = utcnow() - started_ago
    rnd.last_pull_at = None if pulled_ago is None else utcnow() - pulled_ago
    uow.session.add(rnd)
    board = uow.boards.for_match(first_match(uow).id or 0)[0]
    board.game_id = "lag00001"
    uow.session.add(board)
    return rnd


def test_the_jobs_lag_shows_when_a_round_under_way_has_not_been_pulled_for_over_a_minute(
    web: FastAPI,
) -> None:
    """docs/workers.md, "Lag": a result that reached the game server after the round's last pull waits."""
    client, _ = login(web, "arb")
    api = f"/api/v1/staff/events/{SLUG}/dashboard"
    with web.state.uow_factory() as uow:
        playing_round_with_a_game(uow, started_ago=timedelta(minutes=30), pulled_ago=timedelta(seconds=20))
    assert client.get(api).json()["lag"] is None  # pulled 20 s ago: the jobs keep up
    assert "data-lag" not in client.get(f"/staff/events/{SLUG}").text
    with web.state.uow_factory() as uow:
        rnd = playing_round_with_a_game(
            uow, started_ago=timedelta(minutes=30), pulled_ago=timedelta(minutes=3)
        )
        title = dashboard_service._round_title(uow.events.get_or_raise(Stage, rnd.stage_id).name, rnd.number)
    lag = client.get(api).json()["lag"]
    assert lag["kind"] == "results" and lag["round"] == title
    assert 180 <= lag["seconds"] < 240
    page = client.get(f"/staff/events/{SLUG}").text
    assert re.search(r"Jobs are 3 min behind: the oldest unprocessed result may date from", page)
    assert f"/staff/rounds/{rnd.id}/results" in page
    with web.state.uow_factory() as uow:  # its last result stored: nothing waits any more
        board = uow.boards.for_match(first_match(uow).id or 0)[0]
        board.result = "1-0"
        uow.session.add(board)
    assert client.get(api).json()["lag"] is None


def test_a_round_never_pulled_lags_from_its_start_not_from_its_pairing(web: FastAPI) -> None:
    with web.state.uow_factory() as uow:
        playing_round_with_a_game(uow, started_ago=timedelta(minutes=5), pulled_ago=None)
    with web.state.uow_factory() as uow:
        lag = dashboard_service.dashboard(uow, slug=SLUG).lag
        assert lag is not None and lag.kind == "results" and lag.minutes == 5
        # pulled before its start (paired ahead): no result can be older than the start
        playing_round_with_a_game(uow, started_ago=timedelta(seconds=30), pulled_ago=timedelta(minutes=5))
    with web.state.uow_factory() as uow:
        assert dashboard_service.dashboard(uow, slug=SLUG).lag is None


def test_a_mail_due_for_minutes_shows_as_lag_and_a_mail_waiting_for_its_retry_does_not(web: FastAPI) -> None:
    client, _ = login(web, "arb")
    with web.state.uow_factory() as uow:
        uow.outbox.insert(
            Outbox(
                key="lag-test",
                kind="lineup_due",
                recipient="captain@example.org",
                subject="s",
                body_text="b",
                created_at=utcnow() - timedelta(minutes=10),
                next_at=utcnow() + timedelta(minutes=1),
            )
        )
    assert client.get(f"/api/v1/staff/events/{SLUG}/dashboard").json()["lag"] is None
    with web.state.uow_factory() as uow:
        mail = uow.outbox.outbox_by_key("lag-test")
        assert mail is not None
        mail.next_at = utcnow() - timedelta(minutes=4, seconds=10)
        uow.session.add(mail)
    lag = client.get(f"/api/v1/staff/events/{SLUG}/dashboard").json()["lag"]
    assert lag["kind"] == "mail" and 240 <= lag["seconds"] < 300
    assert (
        "Jobs are 4 min behind: the oldest unsent mail has been due since"
        in client.get(f"/staff/events/{SLUG}").text
    )
