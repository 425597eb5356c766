"""Event setup on PostgreSQL: the 2020 Base stage from definition to running rounds (docs/rules.md §1, §3)."""

from __future__ import annotations

from collections import Counter

from sqlmodel import select

from orchestrator.adapters.tables import Board, Lot, Match, Player, Stage
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain import lots
from orchestrator.services.setup import draws, pool_draft, stage_start
from tests.support.factories import EVENT_2020, make_event, running_stage, stage_id_of


def test_the_2020_base_stage_goes_from_definition_to_nine_rounds_of_three_pools(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow, EVENT_2020, slug="olympiad-2020-base-pg")
    with uow_factory() as uow:
        base = stage_id_of(uow, event_id, "base")
        pool_ids = pool_draft.draft_pools(uow, stage_id=base, actor="owner")
    with uow_factory() as uow:
        view = pool_draft.describe_pools(uow, stage_id=base)
        assert [p.letter for p in view.pools] == ["A", "B", "C"] and [p.id for p in view.pools] == pool_ids
        assert all(len(p.teams) == 10 for p in view.pools)
        seeds = sorted(t.seed for p in view.pools for t in p.teams)
        assert seeds == list(range(134, 164))
        assert view.spread is not None and view.spread == max(p.average for p in view.pools) - min(
            p.average for p in view.pools
        )
        pool_draft.publish_pools(uow, stage_id=base, actor="owner")
    with uow_factory() as uow:
        started = stage_start.start_stage(uow, stage_id=base, actor="owner")
    assert started.refusal is None and len(started.round_ids) == 9
    with uow_factory() as uow:
        assert uow.events.get_or_raise(Stage, base).status == "running"
        players = {p.id: p for p in uow.session.exec(select(Player).where(Player.event_id == event_id)).all()}
        round_rows = uow.rounds.rounds_of_stage(base)
        assert [r.scheduled_at.isoformat() for r in round_rows[:4] if r.scheduled_at] == [
            "2020-07-25T10:00:00+00:00",
            "2020-07-25T11:30:00+00:00",
            "2020-07-25T13:00:00+00:00",
            "2020-07-26T10:00:00+00:00",
        ]
        for pool_id in pool_ids:
            matches = uow.rounds.matches_of_pool(pool_id)
            assert len(matches) == 45
            assert uow.boards.count_boards_of_pool(pool_id) == 270
            meetings = Counter(frozenset((m.first_team_id, m.second_team_id)) for m in matches)
            assert len(meetings) == 45 and set(meetings.values()) == {1}  # everyone meets everyone once
            per_round = Counter(m.round_id for m in matches)
            assert set(per_round.values()) == {5}
            for match in matches[:9]:
                boards = uow.session.exec(select(Board).where(Board.match_id == match.id)).all()
                for board in boards:
                    white = players[board.white_player_id]
                    expected_team = match.first_team_id if board.board_no % 2 == 1 else match.second_team_id
                    assert white.team_id == expected_team and white.main_board == board.board_no
        stage_lots = uow.session.exec(select(Lot).where(Lot.event_id == event_id)).all()
        assert sorted(lot.purpose for lot in stage_lots) == [f"Base pool {x} pairing numbers" for x in "ABC"]
        assert all(draws.view_of(lot).verifies() for lot in stage_lots)
        assert uow.session.exec(select(Match)).first() is not None


def test_a_lot_committed_now_and_revealed_later_reproduces_its_outcome(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow, slug="lots-later-pg")
        lot_id = draws.commit_lot(
            uow,
            event_id=event_id,
            purpose="Armageddon category, duel XI",
            candidates=["open", "women", "junior", "girl"],
            actor="arbiter",
            kind="one",
        )
    with uow_factory() as uow:
        sealed = draws.get_lot(uow, lot_id=lot_id)
        assert sealed.seed_hex is None and sealed.outcome is None and not sealed.verifies()
    with uow_factory() as uow:
        revealed = draws.reveal_lot(uow, lot_id=lot_id, actor="arbiter")
    assert revealed.verifies()
    seed = bytes.fromhex(revealed.seed_hex or "")
    assert lots.commitment(seed) == sealed.commitment
    again = lots.draw_one(seed, ["girl", "junior", "open", "women"], purpose="Armageddon category, duel XI")
    assert revealed.outcome == (again,)


def test_the_small_event_runs_on_postgresql_for_other_tests(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = running_stage(uow, event_id=make_event(uow, slug="small-pg"))
    with uow_factory() as uow:
        assert len(uow.rounds.rounds_of_stage(stage_id)) == 3
