"""Board order (docs/rules.md §10, "Board order"; docs/event-file.md "Team format"): every lineup keeps the
team's fixed order and, when the event file asks, rating order within a tolerance; a lineup that breaks it is
refused naming both players, on the captain's form and through the JSON API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi import FastAPI
from sqlmodel import col, select

from orchestrator.adapters.tables import Match, Player, Role, Round, Team
from orchestrator.db import utcnow
from orchestrator.domain.teams import BoardOrder, Seated, board_order_breaches, team_ranks
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services.accounts.users import create_user
from tests.support.factories import SMALL_EVENT, make_event, running_stage
from tests.support.swiss_event_files import SMALL_TEXT
from tests.support.web import PASSWORD, login

A, B, C, D = (Seated("A", 1, 2600), Seated("B", 2, 2500), Seated("C", 3, 2450), Seated("R", 5, 2640))


def test_the_fixed_order_is_the_main_boards_then_the_reserves_in_roster_order() -> None:
    assert team_ranks([(10, 2), (11, None), (12, 1), (13, None), (14, 3)]) == {
        12: 1,
        10: 2,
        14: 3,
        11: 4,
        13: 5,
    }


def test_a_lineup_in_the_teams_order_keeps_it_even_with_a_player_left_out() -> None:
    assert board_order_breaches(BoardOrder(fixed=True), [A, C, None, D]) == []
    assert board_order_breaches(BoardOrder(fixed=True), [A, B, C, D]) == []


def test_every_pair_out_of_the_fixed_order_is_a_breach_naming_both_players() -> None:
    breaches = board_order_breaches(BoardOrder(fixed=True), [D, A, B, None])
    assert [(b.rule, b.above_board, b.above.name, b.below_board, b.below.name) for b in breaches] == [
        ("fixed", 1, "R", 2, "A"),
        ("fixed", 1, "R", 3, "B"),
    ]
    assert board_order_breaches(BoardOrder(), [D, A, B, C]) == []  # no rule: anything goes


def test_rating_order_allows_the_tolerance_and_no_more() -> None:
    order = BoardOrder(rating_tolerance=40)
    assert board_order_breaches(order, [A, D]) == []  # 2640 below 2600: 40 points, allowed
    tight = board_order_breaches(BoardOrder(rating_tolerance=39), [A, D])
    assert [(b.rule, b.above.name, b.below.name) for b in tight] == [("rating", "A", "R")]
    # Not only neighbours: 2400, 2480, 2560 climb 80 a board, 160 from board 1 to board 3.
    climb = [Seated("x", 1, 2400), Seated("y", 2, 2480), Seated("z", 3, 2560)]
    assert [
        (b.above.name, b.below.name) for b in board_order_breaches(BoardOrder(rating_tolerance=100), climb)
    ] == [("x", "z")]


def test_both_rules_together_report_each_breach() -> None:
    rules = [b.rule for b in board_order_breaches(BoardOrder(fixed=True, rating_tolerance=0), [B, A])]
    assert rules == ["fixed", "rating"]


FORMAT_LINE = "  reserves: {open: 1}\n  board_order: fixed"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("fixed", BoardOrder(fixed=True)),
        ("rating", BoardOrder(rating_tolerance=0)),
        ("{rating_tolerance: 100}", BoardOrder(rating_tolerance=100)),
        ("{fixed: true, rating_tolerance: 100}", BoardOrder(fixed=True, rating_tolerance=100)),
    ],
)
def test_the_event_file_gives_the_board_order(given: str, expected: BoardOrder) -> None:
    assert FORMAT_LINE in SMALL_TEXT
    text = SMALL_TEXT.replace(FORMAT_LINE, f"  reserves: {{open: 1}}\n  board_order: {given}")
    assert parse_event(text).team_format.board_order == expected


def test_a_wrong_board_order_is_reported_at_its_line() -> None:
    for given, said in (
        ("alphabetical", "board_order is 'fixed', 'rating' or a mapping"),
        ("{fixed: false}", "give 'fixed: true', a 'rating_tolerance', or both"),
        ("{rating_tolerance: -5}", "team_format.board_order.rating_tolerance"),
    ):
        text = SMALL_TEXT.replace(FORMAT_LINE, f"  reserves: {{open: 1}}\n  board_order: {given}")
        with pytest.raises(EventDefinitionError) as caught:
            parse_event(text)
        assert any(said in str(p) for p in caught.value.problems), caught.value.problems


# --- the captain's form and the API ------------------------------------------------------------------------

ORDERED = SMALL_EVENT.replace(
    "  reserves: {open: 2, women: 2, junior: 1, girl: 1}\n",
    "  reserves: {open: 2, women: 2, junior: 1, girl: 1}\n"
    "  board_order: {fixed: true, rating_tolerance: 150}\n",  # board 5 (2400) is 150 above board 4 (2250)
)


@pytest.fixture
def lineup_ids(app: FastAPI) -> dict[str, int]:
    """The small event with board order rules, its first stage running, round 1 in two hours; Norway's
    captain and players."""
    assert ORDERED != SMALL_EVENT
    with app.state.uow_factory() as uow:
        stage_id = running_stage(uow, event_id=make_event(uow, ORDERED))
        rnd = uow.session.exec(
            select(Round).where(Round.stage_id == stage_id).order_by(col(Round.number))
        ).first()
        assert rnd is not None and rnd.id is not None
        rnd.scheduled_at = utcnow() + timedelta(hours=2)  # the file's dates are past: lineups open
        uow.session.add(rnd)
        norway = uow.session.exec(select(Team).where(Team.name == "Norway")).one()
        match = uow.session.exec(
            select(Match).where(
                Match.round_id == rnd.id,
                (col(Match.first_team_id) == norway.id) | (col(Match.second_team_id) == norway.id),
            )
        ).one()
        create_user(uow, username="captain", password=PASSWORD, role=Role.CAPTAIN, team_id=norway.id)
        players = uow.session.exec(select(Player).where(Player.team_id == norway.id)).all()
        ids = {p.name: p.id or 0 for p in players}
        return {"match": match.id or 0, **ids}


def norway_boards(ids: dict[str, int], first: str, second: str) -> list[int]:
    """Norway's main players, with ``first`` and ``second`` on boards 1 and 2."""
    rest = ["Ingrid Lie", "Sigrid Moe", "Jon Haug", "Liv Strand"]
    return [ids[first], ids[second], *(ids[name] for name in rest)]


def test_the_captains_form_refuses_a_lineup_out_of_order_naming_both_players(
    app: FastAPI, lineup_ids: dict[str, int]
) -> None:
    client, csrf = login(app, "captain")
    form_page = client.get(f"/captain/matches/{lineup_ids['match']}/lineup").text.replace("&#39;", "'")
    assert "Keep the team's board order" in form_page and "more than 150 points above" in form_page
    # Per Lund, the open reserve (no. 7 in Norway's order, 2350), above Nils Berg (no. 1, 2600).
    boards = norway_boards(lineup_ids, "Per Lund", "Nils Berg")
    form = {"csrf_token": csrf, **{f"board_{n}": str(pid) for n, pid in enumerate(boards, start=1)}}
    answer = client.post(f"/captain/matches/{lineup_ids['match']}/lineup", data=form)
    assert answer.status_code == 422, answer.text[:500]
    text = answer.text.replace("&#39;", "'")
    assert "Boards 1 and 2: Per Lund (no. 7 in the team's board order) plays above Nils Berg (no. 1)" in text
    assert "Nils Berg (2600) is rated more than 150 points above Per Lund (2350) on a higher board" in text
    # In order (Nils Berg, then Ola Dahl): saved.
    form = {
        "csrf_token": csrf,
        **{
            f"board_{n}": str(pid)
            for n, pid in enumerate(norway_boards(lineup_ids, "Nils Berg", "Ola Dahl"), start=1)
        },
    }
    assert client.post(f"/captain/matches/{lineup_ids['match']}/lineup", data=form).status_code == 303


def test_the_json_api_refuses_the_same_lineup_with_every_problem(
    app: FastAPI, lineup_ids: dict[str, int]
) -> None:
    client, csrf = login(app, "captain")
    form = client.get(f"/api/v1/matches/{lineup_ids['match']}/lineup").json()
    assert form["board_order"] == {"fixed": True, "rating_tolerance": 150}
    boards = norway_boards(lineup_ids, "Ola Dahl", "Nils Berg")  # the order swapped; 100 points apart
    answer = client.put(
        f"/api/v1/matches/{lineup_ids['match']}/lineup",
        json={"boards": boards},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 422, answer.text
    problems = answer.json()["problems"]
    # The fixed order only: 100 points is within the tolerance of 150.
    assert len(problems) == 1, problems
    assert "Ola Dahl (no. 2 in the team's board order) plays above Nils Berg (no. 1)" in problems[0]
