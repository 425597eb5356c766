"""Result entry, standings, closing, corrections, appeals and fair play as services on SQLite."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from orchestrator.adapters.tables import Board, Event, Lot, Match, Stage, Standing
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain import lots as lot_rules
from orchestrator.errors import Conflict, StaleEdit, ValidationFailed
from orchestrator.services.results import appeals, fairplay, results
from orchestrator.services.results import standings as standings_service
from tests.support.factories import stored_board as board
from tests.support.pool_builder import BuiltPool, build_pool
from tests.support.results import LATER, audit, enter, play_all, stored, winning_codes


@pytest.fixture
def pool(uowf: UnitOfWorkFactory) -> BuiltPool:
    with uowf() as uow:
        return build_pool(uow, later_stage=True)


def names(uowf: UnitOfWorkFactory, built: BuiltPool, rows: list[Standing]) -> list[str]:
    by_id = {v: k for k, v in built.teams.items()}
    return [by_id[row.team_id] for row in rows]


# --- record_result ---------------------------------------------------------------------------------------


def test_a_saved_result_bumps_the_version_marks_the_arbiter_and_stores_provisional_standings(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    board_id = pool.boards[pool.match(1, "Norway")][0]
    with uowf() as uow:
        state = results.record_result(
            uow, board_id=board_id, result="1/2-1/2", expected_version=1, actor="ann"
        )
    assert (state.result, state.version, state.result_source, state.updated_by) == (
        "½-½",
        2,
        "arbiter",
        "ann",
    )
    rows = stored(uowf, pool.pool_id)
    assert len(rows) == 4 and all(row.provisional for row in rows)


def test_a_stale_version_saves_nothing_and_says_who_changed_the_board_and_what_it_holds(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    board_id = pool.boards[pool.match(1, "Norway")][0]
    with uowf() as uow:
        results.record_result(uow, board_id=board_id, result="1-0", expected_version=1, actor="ann")
    with pytest.raises(StaleEdit) as caught, uowf() as uow:
        results.record_result(uow, board_id=board_id, result="0-1", expected_version=1, actor="bob")
    current = caught.value.current[0]
    assert (current.value, current.version, current.changed_by) == ("1-0", 2, "ann")
    assert "changed by someone else" in caught.value.message and "ann" in caught.value.message
    after = board(uowf, board_id)
    assert (after.result, after.version, after.updated_by) == ("1-0", 2, "ann")
    assert [entry[0] for entry in audit(uowf, board_ids=[board_id])] == ["board.result"]


def test_every_change_after_the_first_result_is_audited_with_old_new_and_reason(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    board_id = pool.boards[pool.match(1, "Norway")][1]
    with uowf() as uow:
        results.ingest_server_result(uow, board_id=board_id, result="1-0", game_id="g1", game_status="mate")
    assert audit(uowf, board_ids=[board_id]) == []  # the game server's first result is on the board itself
    with uowf() as uow:
        results.record_result(
            uow, board_id=board_id, result="0-1", expected_version=2, actor="ann", reason="wrong flag"
        )
    entries = audit(uowf, board_ids=[board_id])
    assert len(entries) == 1
    action, old, new, reason = entries[0]
    assert action == "board.result" and reason == "wrong flag"
    assert old == {"result": "1-0", "source": "server", "version": 2}
    assert new == {"result": "0-1", "source": "arbiter", "version": 3}


def test_an_arbiters_result_wins_over_a_later_game_server_poll(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    board_id = pool.boards[pool.match(1, "Norway")][0]
    with uowf() as uow:
        results.record_result(uow, board_id=board_id, result="½-½", expected_version=1, actor="ann")
    with uowf() as uow:
        assert not results.may_server_overwrite(uow.boards.get_or_raise(Board, board_id))
        assert results.ingest_server_result(uow, board_id=board_id, result="1-0", game_id="g2") is None
    assert board(uowf, board_id).result == "½-½"


def test_the_game_server_fills_a_board_once_and_repeating_the_same_result_changes_nothing(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    board_id = pool.boards[pool.match(1, "Norway")][0]
    for _ in range(2):
        with uowf() as uow:
            state = results.ingest_server_result(uow, board_id=board_id, result="0-1", game_status="resign")
            assert state is not None
    after = board(uowf, board_id)
    assert (after.result, after.result_source, after.version, after.game_status) == (
        "0-1",
        "server",
        2,
        "resign",
    )


def test_an_unknown_result_code_is_refused(uowf: UnitOfWorkFactory, pool: BuiltPool) -> None:
    board_id = pool.boards[pool.match(1, "Norway")][0]
    with pytest.raises(ValidationFailed), uowf() as uow:
        results.record_result(uow, board_id=board_id, result="2-0", expected_version=1, actor="ann")


def test_a_finished_match_is_marked_finished_with_its_time(uowf: UnitOfWorkFactory, pool: BuiltPool) -> None:
    match_id = pool.match(1, "Norway")
    enter(uowf, pool, match_id, winning_codes(pool, match_id, "Norway"))
    with uowf() as uow:
        match = uow.rounds.get_or_raise(Match, match_id)
        assert match.status == "finished" and match.finished_at is not None


# --- save_results ------------------------------------------------------------------------------------------


def test_save_results_saves_only_the_boards_the_user_changed(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    match_id = pool.match(1, "Norway")
    b1, b2, b3, b4 = pool.boards[match_id]
    with uowf() as uow:
        saved = results.save_results(
            uow,
            match_id=match_id,
            entries=[(b1, "1-0", 1), (b2, "*", 1), (b3, "-/+", 1), (b4, "–", 1)],
            actor="ann",
        )
    assert sorted(s.board_id for s in saved) == [b1, b3]
    assert board(uowf, b2).version == 1 and board(uowf, b4).version == 1


def test_save_results_saves_nothing_when_one_board_was_changed_by_someone_else(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    match_id = pool.match(1, "Norway")
    b1, b2, b3, _ = pool.boards[match_id]
    with uowf() as uow:
        results.record_result(uow, board_id=b2, result="0-1", expected_version=1, actor="bob")
        results.record_result(uow, board_id=b3, result="½-½", expected_version=1, actor="bob")
    with pytest.raises(results.ResultsConflict) as caught, uowf() as uow:
        results.save_results(
            uow, match_id=match_id, entries=[(b1, "1-0", 1), (b2, "1-0", 1), (b3, "0-1", 1)], actor="ann"
        )
    conflict = caught.value
    assert {(c.entity_id, c.value, c.changed_by) for c in conflict.current} == {
        (b2, "0-1", "bob"),
        (b3, "½-½", "bob"),
    }
    assert conflict.mine[b2] == "1-0" and conflict.mine[b3] == "0-1"
    assert "yours was 1-0" in conflict.message
    assert board(uowf, b1).result == "*"  # nothing saved, not even the board without a conflict


def test_save_results_ignores_a_board_the_user_left_alone_even_if_someone_else_changed_it(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    match_id = pool.match(1, "Norway")
    b1, b2, _, _ = pool.boards[match_id]
    with uowf() as uow:
        results.record_result(uow, board_id=b2, result="0-1", expected_version=1, actor="bob")
    with uowf() as uow:
        saved = results.save_results(
            uow,
            match_id=match_id,
            entries=[results.ResultEntry(b1, "1-0", 1, "*"), results.ResultEntry(b2, "*", 1, "*")],
            actor="ann",
        )
    assert [s.board_id for s in saved] == [b1]
    assert board(uowf, b2).result == "0-1"


# --- standings -------------------------------------------------------------------------------------------


def test_only_complete_matches_and_whole_match_forfeits_count_in_the_standings(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    norway_r1 = pool.match(1, "Norway")
    enter(uowf, pool, norway_r1, [*winning_codes(pool, norway_r1, "Norway")[:3], "*"])
    with uowf() as uow:
        assert uow.rounds.get_or_raise(Match, norway_r1).status != "finished"
        assert standings_service.pool_standings(uow, pool_id=pool.pool_id).rows[0].values["MP"] == 0
    other = next(m for (r, a, b), m in pool.matches.items() if r == 1 and "Norway" not in (a, b))
    _, first, second = pool.pairing(other)
    with uowf() as uow:
        results.set_match_forfeit(uow, match_id=other, forfeit="-+", actor="ann", reason="no show")
    with uowf() as uow:
        table = standings_service.pool_standings(uow, pool_id=pool.pool_id)
    winner = next(row for row in table.rows if row.team == second)
    loser = next(row for row in table.rows if row.team == first)
    assert (winner.values["MP"], winner.values["GP"], winner.rank) == (2, 4, 1)
    assert (loser.values["MP"], loser.values["GP"]) == (0, 0)


def test_close_stage_refuses_and_names_the_board_without_a_result(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    play_all(uowf, pool)
    last = pool.match(3, "Norway")
    board_id = pool.boards[last][3]
    with uowf() as uow:
        results.record_result(uow, board_id=board_id, result="*", expected_version=2, actor="ann")
    with pytest.raises(Conflict) as caught, uowf() as uow:
        standings_service.close_stage(uow, stage_id=pool.stage_id, actor="boss", now=utcnow() + LATER)
    assert "board 4 has no result" in caught.value.message and "Round 3 is still open" in caught.value.message
    with uowf() as uow:
        assert uow.events.get_or_raise(Stage, pool.stage_id).status == "running"


def test_close_stage_refuses_while_an_appeal_window_is_running(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    play_all(uowf, pool)
    with pytest.raises(Conflict, match="appeal window is open until"), uowf() as uow:
        standings_service.close_stage(uow, stage_id=pool.stage_id, actor="boss")


def test_closing_stores_final_standings_with_every_tie_break_value(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    play_all(uowf, pool)
    with uowf() as uow:
        closed = standings_service.close_stage(
            uow, stage_id=pool.stage_id, actor="boss", now=utcnow() + LATER
        )
    rows = stored(uowf, pool.pool_id)
    assert not any(row.provisional for row in rows)
    assert names(uowf, pool, rows)[0] == "Norway"
    norway = rows[0]
    assert set(norway.values) >= {"MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB"}
    assert Fraction(norway.values["MP"]) == 6 and Fraction(norway.values["GP"]) == 12
    # the other three drew every match among themselves 2-2: a lot decided their order
    assert [row.rank for row in rows] == [1, 2, 3, 4]
    assert rows[1].separated_by == "MP" and rows[2].separated_by == "LOT" and "LOT" in rows[1].values
    assert closed.pools[0].lots
    with uowf() as uow:
        assert uow.events.get_or_raise(Stage, pool.stage_id).status == "closed"
        lot = uow.lots.lots_with_purpose(pool.event_id, f"tie-break LOT pool {pool.pool_id}")[0]
        record = lot_rules.Lot(
            lot.purpose,
            lot_rules.LotKind.ORDER,
            tuple(lot.candidates),
            lot.commitment,
            lot.seed_hex or "",
            tuple(lot.outcome or ()),
        )
    assert lot_rules.check_lot(record)  # anyone can recompute the draw from the published seed
    # committed when the pool's last match was complete (its hash public), drawn by the closing
    assert [entry[0] for entry in audit(uowf, action_prefix="lot.")] == ["lot.draw", "lot.commit"]


def test_a_pool_without_lot_in_its_chain_keeps_teams_tied_and_draws_no_lot(uowf: UnitOfWorkFactory) -> None:
    with uowf() as uow:
        built = build_pool(uow, chain=("MP", "GP"), slug="nolot")
    play_all(uowf, built)
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER)
    assert [row.rank for row in stored(uowf, built.pool_id)] == [1, 2, 2, 2]
    with uowf() as uow:
        assert list(uow.lots.lots_with_purpose(built.event_id, f"tie-break LOT pool {built.pool_id}")) == []


def test_closing_the_last_stage_closes_the_event_with_an_audit_entry(uowf: UnitOfWorkFactory) -> None:
    with uowf() as uow:
        built = build_pool(uow, slug="single")  # the event's only stage
    play_all(uowf, built)
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER)
    with uowf() as uow:
        assert uow.events.get_or_raise(Event, built.event_id).status == "closed"
    entries = audit(uowf, action_prefix="event.")
    assert [(action, old, new) for action, old, new, _reason in entries] == [
        ("event.close", {"status": "running"}, {"status": "closed", "last_stage_id": built.stage_id})
    ]


def test_closing_a_stage_before_the_last_leaves_the_event_running(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    play_all(uowf, pool)
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=pool.stage_id, actor="boss", now=utcnow() + LATER)
    with uowf() as uow:
        assert uow.events.get_or_raise(Event, pool.event_id).status == "running"
    assert audit(uowf, action_prefix="event.") == []


def test_closing_finishes_every_match_of_the_stage_keeping_a_finish_time_already_set(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    play_all(uowf, pool)
    earlier = utcnow() - timedelta(hours=1)
    with uowf() as uow:
        ids = [m.id or 0 for m in uow.rounds.matches_of_stage(pool.stage_id)]
        unset, kept, *_ = ids
        for match_id, finished_at in ((unset, None), (kept, earlier)):
            uow.session.execute(
                update(Match)
                .where(col(Match.id) == match_id)
                .values(status="scheduled", finished_at=finished_at)
            )
    closing = utcnow() + LATER
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=pool.stage_id, actor="boss", now=closing)
    with uowf() as uow:
        matches = {m.id: m for m in uow.rounds.matches_of_stage(pool.stage_id)}
        assert {m.status for m in matches.values()} == {"finished"}
        assert matches[unset].finished_at == closing.replace(tzinfo=matches[unset].finished_at.tzinfo)
        assert matches[kept].finished_at == earlier.replace(tzinfo=matches[kept].finished_at.tzinfo)


# --- corrections --------------------------------------------------------------------------------------


def closed_pool(uowf: UnitOfWorkFactory, built: BuiltPool) -> None:
    play_all(uowf, built)
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER)


def test_result_entry_on_a_closed_stage_is_refused(uowf: UnitOfWorkFactory, pool: BuiltPool) -> None:
    closed_pool(uowf, pool)
    board_id = pool.boards[pool.match(1, "Norway")][0]
    with pytest.raises(Conflict, match="Save corrections"), uowf() as uow:
        results.record_result(
            uow, board_id=board_id, result="½-½", expected_version=board(uowf, board_id).version, actor="ann"
        )


def test_a_late_correction_needs_a_reason_keeps_a_result_and_stores_the_final_standings_again(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    closed_pool(uowf, pool)
    match_id = pool.match(1, "Norway")
    board_id = pool.boards[match_id][0]
    version = board(uowf, board_id).version
    with pytest.raises(ValidationFailed, match="reason"), uowf() as uow:
        results.correct_result(
            uow, board_id=board_id, result="0-1", expected_version=version, actor="boss", reason=""
        )
    with pytest.raises(ValidationFailed, match="always keeps a result"), uowf() as uow:
        results.correct_result(
            uow, board_id=board_id, result="*", expected_version=version, actor="boss", reason="x"
        )
    before = {row.team_id: row.values["GP"] for row in stored(uowf, pool.pool_id)}
    # turn Norway's round-1 match into 0-4: every board won by the opponent
    _, first, second = pool.pairing(match_id)
    opponent = second if first == "Norway" else first
    with uowf() as uow:
        results.save_corrections(
            uow,
            match_id=match_id,
            entries=[
                (b, code, board(uowf, b).version)
                for b, code in zip(
                    pool.boards[match_id], winning_codes(pool, match_id, opponent), strict=True
                )
            ],
            actor="boss",
            reason="committee ruling",
        )
    # Norway's opponent now leads the other two, still tied: their lot is committed now, not drawn, so the
    # standings wait for it; closing again draws it and stores the final standings again.
    assert all(row.provisional for row in stored(uowf, pool.pool_id))
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=pool.stage_id, actor="boss").raise_refusal()
    rows = stored(uowf, pool.pool_id)
    assert not any(row.provisional for row in rows)
    after = {row.team_id: row.values["GP"] for row in rows}
    assert Fraction(after[pool.teams["Norway"]]) == Fraction(before[pool.teams["Norway"]]) - 4
    corrections = audit(uowf, action_prefix="board.correction")
    assert len(corrections) == 4 and all(entry[3] == "committee ruling" for entry in corrections)


# --- appeals -----------------------------------------------------------------------------------------------


def test_an_open_appeal_keeps_standings_provisional_and_blocks_closing_until_decided(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    play_all(uowf, pool)
    match_id = pool.match(3, "Norway")
    with uowf() as uow:
        appeal = appeals.open_appeal(uow, match_id=match_id, actor="ann", grounds="disconnection")
    assert appeal.deadline_at - appeal.opened_at == timedelta(minutes=15)
    with pytest.raises(Conflict, match=f"Appeal {appeal.appeal_id} on .* is open"), uowf() as uow:
        standings_service.close_stage(uow, stage_id=pool.stage_id, actor="boss", now=utcnow() + LATER)
    with uowf() as uow:
        decided = appeals.decide_appeal(
            uow, appeal_id=appeal.appeal_id, decision="result stands", upheld=False, actor="boss"
        )
    assert decided.status == "rejected" and decided.decided_by == "boss"
    with pytest.raises(Conflict, match="already decided"), uowf() as uow:
        appeals.decide_appeal(uow, appeal_id=appeal.appeal_id, decision="again", upheld=True, actor="boss")
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=pool.stage_id, actor="boss", now=utcnow() + LATER)
    actions = [entry[0] for entry in audit(uowf, action_prefix="appeal.")]
    assert actions == ["appeal.decide", "appeal.open"]


# --- fair play ------------------------------------------------------------------------------------------


def test_annulling_a_player_scores_their_games_as_forfeit_losses_and_keeps_the_originals_in_the_audit(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    play_all(uowf, pool)
    player_id = pool.players[("Norway", 1)]
    with uowf() as uow:
        report = fairplay.annul_player(uow, player_id=player_id, reason="engine use", actor="boss")
    assert len(report.boards) == 3 and report.pools == (pool.pool_id,)
    with uowf() as uow:
        table = standings_service.pool_standings(uow, pool_id=pool.pool_id)
    norway = next(row for row in table.rows if row.team == "Norway")
    assert norway.values["GP"] == 9  # 12 game points less the three games of board 1
    entries = audit(uowf, action_prefix="board.annulled")
    assert len(entries) == 3
    assert all(old == {"result": "1-0"} or old == {"result": "0-1"} for _, old, _, _ in entries)
    assert {new["counted_as"] for _, _, new, _ in entries if new} <= {"+/-", "-/+"}
    for board_id in report.boards:  # the boards keep the game's own result
        assert board(uowf, board_id).result in ("1-0", "0-1")
    with pytest.raises(Conflict), uowf() as uow:
        fairplay.annul_player(uow, player_id=player_id, reason="again", actor="boss")


def test_a_fair_play_ruling_needs_a_reason(uowf: UnitOfWorkFactory, pool: BuiltPool) -> None:
    with pytest.raises(ValidationFailed), uowf() as uow:
        fairplay.annul_player(uow, player_id=pool.players[("Norway", 1)], reason=" ", actor="boss")


def test_stored_lot_numbers_are_reused_when_a_closed_pool_is_recomputed(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    closed_pool(uowf, pool)
    order = names(uowf, pool, stored(uowf, pool.pool_id))
    with uowf() as uow:
        standings_service.recompute_pool(uow, pool_id=pool.pool_id, actor="boss")
        assert len(uow.session.exec(select(Lot)).all()) == 1
    assert names(uowf, pool, stored(uowf, pool.pool_id)) == order


def test_a_recompute_rewrites_only_changed_rows_and_a_row_loaded_before_reads_the_new_values(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    opening = pool.match(1, "Norway")
    enter(uowf, pool, opening, winning_codes(pool, opening, "Norway"))
    first = {row.team_id: (row.values, row.computed_at) for row in stored(uowf, pool.pool_id)}
    with uowf() as uow:
        standings_service.recompute_pool(uow, pool_id=pool.pool_id)
    assert {row.team_id: (row.values, row.computed_at) for row in stored(uowf, pool.pool_id)} == first

    _, home, away = pool.pairing(opening)
    loser = away if home == "Norway" else home
    second = pool.match(2, loser)
    with uowf() as uow:
        uow.locks.lock_pool(
            pool.pool_id
        )  # held before the row is read: the recompute's own lock expires nothing
        loaded = next(r for r in uow.rounds.standings_of_pool(pool.pool_id) if r.team_id == pool.teams[loser])
        assert loaded.values["MP"] == "0"
        for board_id, code in zip(pool.boards[second], winning_codes(pool, second, loser), strict=True):
            uow.session.execute(update(Board).where(col(Board.id) == board_id).values(result=code))
        standings_service.recompute_pool(uow, pool_id=pool.pool_id)
        assert loaded.values["MP"] == "2"
    after = {row.team_id: (row.rank, row.values, row.computed_at) for row in stored(uowf, pool.pool_id)}
    assert after[pool.teams[loser]][2] > first[pool.teams[loser]][1]
