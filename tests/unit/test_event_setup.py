"""Event setup services on SQLite: create an event, draft, adjust and publish pools, start a stage."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from orchestrator.adapters.tables import AuditLog, Board, Event, Lot, Match, Round, Stage, Team
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.domain import lots
from orchestrator.domain.round_robin import berger_table
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services.setup import event_setup, pool_draft, stage_start
from tests.support.factories import (
    SMALL_EVENT,
    TEST_PAIRING_SEED,
    make_event,
    published_stage,
    running_stage,
    stage_id_of,
    store_final_standings,
)


def rows(uow: UnitOfWork, model: type) -> list:  # type: ignore[type-arg]
    from sqlmodel import select

    return list(uow.session.exec(select(model)).all())


def test_creating_an_event_stores_its_definition_stages_teams_and_players(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
    with uow_factory() as uow:
        event = uow.events.get_or_raise(Event, event_id)
        assert event.slug == "small-test-cup" and event.status == "draft"
        assert event.definition_text == SMALL_EVENT
        stages = uow.events.stages_of_event(event_id)
        assert [(s.position, s.key, s.kind, s.status) for s in stages] == [
            (1, "group", "pools", "draft"),
            (2, "final", "pools", "draft"),
        ]
        assert stages[0].tiebreaks == ["MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB", "LOT"]
        assert stages[1].tiebreaks == ["MP", "GP", "LOT"]
        assert [t.name for t in uow.teams.teams_of_event(event_id)] == [
            "Norway",
            "Sweden",
            "Denmark",
            "Finland",
        ]
        players = uow.teams.players_of_event(event_id)
        assert len(players) == 8 + 6 + 6 + 6
        reserve = next(p for p in players if p.account == "abakke_nor")
        assert reserve.main_board is None and reserve.category == "women"
        audit = [a for a in rows(uow, AuditLog) if a.action == "event.create"]
        assert len(audit) == 1 and audit[0].actor == "test" and audit[0].event_id == event_id


def test_an_invalid_definition_is_refused_with_every_problem_and_its_line(
    uow_factory: UnitOfWorkFactory,
) -> None:
    broken = SMALL_EVENT.replace("pool_size: 4", "pool_size: 5").replace("rating: 2600", "rating: lots")
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        event_setup.create_event(uow, definition_text=broken, source="small.yaml", actor="test")
    problems = refused.value.problems
    assert len(problems) >= 2
    assert any("pools of 5" in p for p in problems)
    assert any("rating" in p and "whole number" in p for p in problems)
    assert all(p.startswith("small.yaml:") and p.split(":")[1].isdigit() for p in problems)
    with uow_factory() as uow:
        assert rows(uow, Event) == []


def test_an_event_slug_can_only_be_used_once(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        make_event(uow)
    with uow_factory() as uow, pytest.raises(Conflict):
        make_event(uow)


def test_drafting_puts_every_entrant_in_one_draft_pool_with_provisional_numbers(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow))
        pool_ids = pool_draft.draft_pools(uow, stage_id=stage_id, actor="anna")
    with uow_factory() as uow:
        view = pool_draft.describe_pools(uow, stage_id=stage_id)
        assert [p.id for p in view.pools] == pool_ids and view.pools[0].status == "draft"
        assert sorted(t.name for t in view.pools[0].teams) == ["Denmark", "Finland", "Norway", "Sweden"]
        assert [t.pairing_number for t in view.pools[0].teams] == [1, 2, 3, 4]
        assert view.spread == 0  # one pool


def test_drafting_a_later_stage_waits_for_the_final_standings_of_the_earlier_one(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
        running_stage(uow, event_id=event_id)
        with pytest.raises(Conflict, match="no final standings"):
            pool_draft.draft_pools(uow, stage_id=stage_id_of(uow, event_id, "final"), actor="anna")


def test_a_later_stage_takes_the_top_places_of_the_final_standings(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
        group = running_stage(uow, event_id=event_id)
        store_final_standings(uow, stage_id=group, orders={"A": ["Finland", "Denmark", "Norway", "Sweden"]})
    with uow_factory() as uow:
        final = stage_id_of(uow, event_id, "final")
        pool_draft.draft_pools(uow, stage_id=final, actor="anna")
        view = pool_draft.describe_pools(uow, stage_id=final)
        assert sorted(t.name for t in view.pools[0].teams) == ["Denmark", "Finland"]


def test_swapping_two_teams_between_draft_pools_moves_them_and_reports_new_averages(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = (
        SMALL_EVENT.replace("pool_count: 1\n    pool_size: 4", "pool_count: 2\n    pool_size: 2")
        .replace("advance: 2", "advance: 1")
        .replace("{from: group, top: 2}", "{from: group, top: 1}")
        .replace("advance: 0", "advance: 0\n    winners_apart: false")
    )
    with uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow, text))
        pool_draft.draft_pools(uow, stage_id=stage_id, actor="anna")
        before = pool_draft.describe_pools(uow, stage_id=stage_id)
    a, b = before.pools[0].teams[0], before.pools[1].teams[0]
    with uow_factory() as uow:
        split = pool_draft.swap_teams(
            uow, stage_id=stage_id, team_a_id=a.team_id, team_b_id=b.team_id, actor="anna"
        )
    with uow_factory() as uow:
        after = pool_draft.describe_pools(uow, stage_id=stage_id)
    assert b.name in [t.name for t in after.pools[0].teams] and a.name in [
        t.name for t in after.pools[1].teams
    ]
    assert [p.average for p in split.pools] == [p.average for p in after.pools]
    assert split.spread == after.spread


def test_swapping_two_teams_of_the_same_pool_is_refused(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow))
        pool_draft.draft_pools(uow, stage_id=stage_id, actor="anna")
        teams = pool_draft.describe_pools(uow, stage_id=stage_id).pools[0].teams
        with pytest.raises(ValidationFailed, match="same pool"):
            pool_draft.swap_teams(
                uow, stage_id=stage_id, team_a_id=teams[0].team_id, team_b_id=teams[1].team_id, actor="anna"
            )


def test_published_pools_can_no_longer_be_drafted_or_swapped(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = published_stage(uow)
        assert uow.events.get_or_raise(Stage, stage_id).status == "published"
        assert all(p.status == "published" and p.published_at for p in uow.rounds.pools_of_stage(stage_id))
        with pytest.raises(Conflict):
            pool_draft.draft_pools(uow, stage_id=stage_id, actor="anna")
        with pytest.raises(Conflict):
            pool_draft.publish_pools(uow, stage_id=stage_id, actor="anna")


def test_a_stage_cannot_start_before_its_pools_are_published(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow))
        pool_draft.draft_pools(uow, stage_id=stage_id, actor="anna")
        with pytest.raises(Conflict, match="published"):
            stage_start.start_stage(uow, stage_id=stage_id, actor="anna")


def test_starting_a_stage_creates_berger_rounds_matches_and_boards_with_default_lineups(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_stage(uow)
    with uow_factory() as uow:
        stage = uow.events.get_or_raise(Stage, stage_id)
        assert stage.status == "running"
        assert uow.events.get_or_raise(Event, stage.event_id).status == "running"
        rounds = uow.rounds.rounds_of_stage(stage_id)
        assert [r.number for r in rounds] == [1, 2, 3]
        # 10:00, 11:30, 13:00 in Oslo (UTC+1 in March) are 09:00, 10:30, 12:00 UTC
        assert [r.scheduled_at.strftime("%H:%M") for r in rounds if r.scheduled_at] == [
            "09:00",
            "10:30",
            "12:00",
        ]
        assert all(r.scheduled_at and r.scheduled_at.utcoffset().total_seconds() == 0 for r in rounds)  # type: ignore[union-attr]
        pool = uow.rounds.pools_of_stage(stage_id)[0]
        number_of = {e.team_id: e.pairing_number for e in uow.rounds.entries_of_pool(pool.id or 0)}
        assert sorted(number_of.values()) == [1, 2, 3, 4]
        matches = uow.rounds.matches_of_pool(pool.id or 0)
        round_no = {r.id: r.number for r in rounds}
        got = [
            (round_no[m.round_id], m.match_no, number_of[m.first_team_id], number_of[m.second_team_id])
            for m in matches
        ]
        expected = [(r.number, p.table, p.first, p.second) for r in berger_table(4) for p in r.pairings]
        assert got == expected
        players = {p.id: p for p in uow.teams.players_of_event(stage.event_id)}
        for match in matches:
            boards = uow.boards.for_match(match.id or 0)
            assert [b.board_no for b in boards] == [1, 2, 3, 4, 5, 6]
            for board in boards:
                first_is_white = board.board_no % 2 == 1  # docs/rules.md §1
                white, black = players[board.white_player_id], players[board.black_player_id]  # type: ignore[index]
                first, second = (white, black) if first_is_white else (black, white)
                assert first.team_id == match.first_team_id and second.team_id == match.second_team_id
                assert white.main_board == black.main_board == board.board_no
                assert board.result == "*" and board.result_source is None


def test_a_stage_started_from_a_file_with_a_lineup_deadline_closes_each_rounds_lineups_before_it_starts(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = SMALL_EVENT.replace(
        "appeal_window_minutes: 15\n", "appeal_window_minutes: 15\nlineup_deadline_minutes: 45\n"
    )
    assert text != SMALL_EVENT
    with uow_factory() as uow:
        stage_id = running_stage(uow, event_id=make_event(uow, text))
    with uow_factory() as uow:
        rounds = uow.rounds.rounds_of_stage(stage_id)
        # 09:00, 10:30 and 12:00 UTC starts; lineups close 45 minutes before each
        assert [(r.scheduled_at, r.lineup_deadline_at) for r in rounds] == [
            (r.scheduled_at, r.scheduled_at - timedelta(minutes=45)) for r in rounds if r.scheduled_at
        ]
        assert [r.lineup_deadline_at.strftime("%H:%M") for r in rounds if r.lineup_deadline_at] == [
            "08:15",
            "09:45",
            "11:15",
        ]


def test_pairing_numbers_come_from_a_revealed_lot_that_anyone_can_recompute(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_stage(uow, pairing_seed=TEST_PAIRING_SEED)
    with uow_factory() as uow:
        [lot] = rows(uow, Lot)
        assert lot.purpose == "Group pool A pairing numbers" and lot.seed_hex and lot.sealed_seed_hex is None
        record = lots.Lot(
            lot.purpose,
            lots.LotKind.ORDER,
            tuple(lot.candidates),
            lot.commitment,
            lot.seed_hex,
            tuple(lot.outcome or ()),
        )
        assert lots.check_lot(record)
        pool = uow.rounds.pools_of_stage(stage_id)[0]
        teams = {t.id: t.name for t in rows(uow, Team)}
        by_number = [teams[e.team_id] for e in uow.rounds.entries_of_pool(pool.id or 0)]
        assert by_number == list(lot.outcome or ())


def test_a_stage_starts_only_once(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = running_stage(uow)
        with pytest.raises(Conflict):
            stage_start.start_stage(uow, stage_id=stage_id, actor="anna")
    with uow_factory() as uow:
        assert len(rows(uow, Round)) == 3 and len(rows(uow, Match)) == 6 and len(rows(uow, Board)) == 36


def test_a_team_missing_a_main_player_gets_an_empty_seat_on_that_board(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
        finland = next(t for t in uow.teams.teams_of_event(event_id) if t.name == "Finland")
        for player in uow.teams.players_of_team(finland.id or 0):
            if player.main_board == 6:
                uow.session.delete(player)
        stage_id = running_stage(uow, event_id=event_id)
        pool = uow.rounds.pools_of_stage(stage_id)[0]
        seats: Counter[bool] = Counter()
        for match in uow.rounds.matches_of_pool(pool.id or 0):
            if finland.id in (match.first_team_id, match.second_team_id):
                board6 = uow.boards.for_match(match.id or 0)[5]
                seats[(board6.white_player_id is None) or (board6.black_player_id is None)] += 1
        assert seats == Counter({True: 3})


def test_two_events_started_with_the_same_test_seed_get_different_lots(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        running_stage(uow, event_id=make_event(uow, slug="first-cup"), pairing_seed=TEST_PAIRING_SEED)
        running_stage(uow, event_id=make_event(uow, slug="second-cup"), pairing_seed=TEST_PAIRING_SEED)
    with uow_factory() as uow:
        commitments = [lot.commitment for lot in rows(uow, Lot)]
        assert len(commitments) == 2 and len(set(commitments)) == 2


def test_an_event_with_a_swiss_stage_stores_it_as_a_swiss_stage_not_a_knockout(
    uow_factory: UnitOfWorkFactory,
) -> None:
    text = (Path(__file__).resolve().parents[2] / "events" / "olympiad-2026-small.yaml").read_text()
    with uow_factory() as uow:
        event_id = event_setup.create_event(
            uow, definition_text=text, source="olympiad-2026-small.yaml", actor="owner"
        )
        stages = uow.events.stages_of_event(event_id)
    assert [(s.key, s.kind, s.tiebreaks) for s in stages] == [
        ("open", "swiss", ["MP", "OLY-TB1", "GP", "OLY-TB3"])
    ]


def test_matches_inserted_as_column_values_are_the_rows_a_model_object_makes_with_their_ids_in_order(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """``insert_matches`` (a stage's start, a Swiss round's publication) writes what ``Match()`` would, and
    gives each row its own id back, in the order given."""
    with uow_factory() as uow:
        stage_id = running_stage(uow, event_id=make_event(uow))
        rnd = uow.rounds.rounds_of_stage(stage_id)[0]
        pool_id = uow.rounds.pools_of_stage(stage_id)[0].id
        teams = [
            t.id or 0 for t in uow.teams.teams_of_event(uow.events.get_or_raise(Stage, stage_id).event_id)
        ]
        model = uow.rounds.insert(
            Match(
                round_id=rnd.id or 0,
                pool_id=pool_id,
                match_no=90,
                first_team_id=teams[0],
                second_team_id=teams[1],
            )
        )
        rows = [
            stage_start.new_match_row(rnd.id or 0, pool_id, 92, teams[2], teams[3]),
            stage_start.new_match_row(rnd.id or 0, pool_id, 91, teams[1], teams[0]),
        ]
        inserted = uow.rounds.insert_matches(rows)
        assert [(m.first_team_id, m.second_team_id) for m in inserted] == [
            (teams[2], teams[3]),
            (teams[1], teams[0]),
        ]
        stored = {m.id: m for m in uow.rounds.matches_of_round(rnd.id or 0)}
        assert [stored[m.id].match_no for m in inserted] == [92, 91]
        columns = [
            c.name
            for c in Match.__table__.columns  # type: ignore[attr-defined]
            if c.name not in ("id", "match_no", "first_team_id", "second_team_id")
        ]
        for match in inserted:
            assert {c: getattr(stored[match.id], c) for c in columns} == {
                c: getattr(model, c) for c in columns
            }
