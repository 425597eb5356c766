"""A team's withdrawal from a pool stage as a service on SQLite (docs/rules.md §6, "Withdrawals")."""

from __future__ import annotations

import pytest

from orchestrator.adapters.tables import Board, Match, PoolEntry, Stage, StageStatus
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services import live
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results import withdrawals
from tests.support.pool_builder import BuiltPool, build_pool
from tests.support.results import audit, enter, winning_codes


@pytest.fixture
def pool(uowf: UnitOfWorkFactory) -> BuiltPool:
    """Four teams, four boards, three rounds; nothing played yet."""
    with uowf() as uow:
        return build_pool(uow)


def withdraw(
    uowf: UnitOfWorkFactory, built: BuiltPool, team: str, reason: str = "travel ban"
) -> withdrawals.WithdrawalPlan:
    with uowf() as uow:
        return withdrawals.withdraw_from_pool_stage(
            uow, stage_id=built.stage_id, team_id=built.teams[team], reason=reason, actor="ann"
        )


def forfeits(uowf: UnitOfWorkFactory, built: BuiltPool, team: str) -> dict[int, str]:
    """The team's matches by round, with their whole-match forfeit code ("" for none)."""
    with uowf() as uow:
        return {
            rnd: uow.rounds.get_or_raise(Match, match_id).forfeit
            for (rnd, a, b), match_id in built.matches.items()
            if team in (a, b)
        }


def test_a_withdrawal_forfeits_the_remaining_matches_and_keeps_the_complete_ones(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    r1 = pool.match(1, "Sweden")
    enter(uowf, pool, r1, winning_codes(pool, r1, "Sweden"))  # round 1 complete: Sweden wins 4-0
    r2 = pool.match(2, "Sweden")
    enter(uowf, pool, r2, ["1-0", "½-½", "*", "*"])  # round 2 half played
    done = withdraw(uowf, pool, "Sweden")
    assert [(m.round_number, m.match_id) for m in done.remaining] == [(2, r2), (3, pool.match(3, "Sweden"))]
    assert done.remaining[0].boards_final == 2 and done.complete == 1
    assert (done.withdrawn_round, done.withdrawn_by) == (2, "ann")
    codes = forfeits(uowf, pool, "Sweden")
    assert codes[1] == ""  # the played match keeps its result
    for rnd in (2, 3):
        _, first, _ = pool.pairing(pool.match(rnd, "Sweden"))
        assert codes[rnd] == ("-+" if first == "Sweden" else "+-")  # the opponent wins by forfeit
    with uowf() as uow:
        entry = uow.session.get(PoolEntry, _entry_id(uow, pool, "Sweden"))
        assert entry is not None and entry.withdrawn_round == 2 and entry.withdrawn_by == "ann"
        for rnd in (2, 3):
            assert uow.rounds.get_or_raise(Match, pool.match(rnd, "Sweden")).status == "finished"
        # The boards already decided keep their games; the forfeit decides the match.
        kept = [uow.boards.get_or_raise(Board, b).result for b in pool.boards[r2]]
        assert kept == ["1-0", "½-½", "*", "*"]


def _entry_id(uow: UnitOfWork, built: BuiltPool, team: str) -> int:
    found = next(e for e in uow.rounds.entries_of_stage(built.stage_id) if e.team.name == team)
    return found.entry.id or 0


def opponent(built: BuiltPool, round_no: int, team: str) -> str:
    _, first, second = built.pairing(built.match(round_no, team))
    return second if first == team else first


def test_the_standings_count_the_forfeits_for_the_opponents_and_the_played_match_as_played(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    r1 = pool.match(1, "Sweden")
    enter(uowf, pool, r1, winning_codes(pool, r1, "Sweden"))
    withdraw(uowf, pool, "Sweden")
    with uowf() as uow:
        rows = {row.team: row for row in standings_service.pool_standings(uow, pool_id=pool.pool_id).rows}
        stored = {row.team_id: row.values for row in uow.rounds.standings_of_pool(pool.pool_id)}
    # Sweden: its round-1 win 4–0 (2 MP, 4 GP), then two 0–4 forfeit losses.
    assert (rows["Sweden"].values["MP"], rows["Sweden"].values["GP"]) == (2, 4)
    assert stored[pool.teams["Sweden"]]["MP"] == "2" and stored[pool.teams["Sweden"]]["GP"] == "4"
    # Its round-1 opponent keeps its 0–4 loss; its round-2 and round-3 opponents win 4–0 by forfeit.
    assert (
        rows[opponent(pool, 1, "Sweden")].values["MP"],
        rows[opponent(pool, 1, "Sweden")].values["GP"],
    ) == (0, 0)
    for rnd in (2, 3):
        row = rows[opponent(pool, rnd, "Sweden")]
        assert (row.values["MP"], row.values["GP"]) == (2, 4), row.team


def test_a_second_withdrawal_is_refused_saying_when_and_by_whom(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    withdraw(uowf, pool, "Denmark")
    with pytest.raises(Conflict) as caught:
        withdraw(uowf, pool, "Denmark", reason="again")
    assert "already withdrew" in caught.value.message and "by ann" in caught.value.message
    assert "from round 1" in caught.value.message and " UTC" in caught.value.message
    assert [entry[0] for entry in audit(uowf, action_prefix="team.withdraw")] == ["team.withdraw"]


def test_one_audit_row_records_the_withdrawal_with_its_reason_and_each_forfeit_is_audited(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    done = withdraw(uowf, pool, "Finland", reason="illness")
    entries = audit(uowf, action_prefix="team.withdraw")
    assert len(entries) == 1
    _action, _old, new, reason = entries[0]
    assert reason == "illness" and new is not None
    assert new["round"] == 1 and new["forfeited_match_ids"] == [m.match_id for m in done.remaining]
    forfeit_rows = audit(uowf, action_prefix="match.forfeit")
    assert len(forfeit_rows) == 3 and all(r[3] == "Finland withdrew: illness" for r in forfeit_rows)


def test_a_withdrawal_needs_a_reason_a_running_pool_stage_and_a_team_of_that_stage(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    with pytest.raises(ValidationFailed, match="reason"):
        withdraw(uowf, pool, "Norway", reason="  ")
    with uowf() as uow:
        stranger = build_pool(uow, slug="other").teams["Norway"]
    with pytest.raises(ValidationFailed, match="does not play in"), uowf() as uow:
        withdrawals.withdraw_from_pool_stage(
            uow, stage_id=pool.stage_id, team_id=stranger, reason="x", actor="ann"
        )
    with pytest.raises(NotFound), uowf() as uow:
        withdrawals.withdraw_from_pool_stage(uow, stage_id=999, team_id=stranger, reason="x", actor="ann")
    for status, words in ((StageStatus.PUBLISHED, "has not started"), (StageStatus.CLOSED, "is closed")):
        with uowf() as uow:
            stage = uow.events.get_or_raise(Stage, pool.stage_id)
            stage.status = status.value
            uow.session.add(stage)
        with pytest.raises(Conflict, match=words):
            withdraw(uowf, pool, "Norway")
    assert forfeits(uowf, pool, "Norway") == {1: "", 2: "", 3: ""}  # nothing was forfeited
    assert audit(uowf, action_prefix="team.withdraw") == []


def test_a_team_whose_matches_all_have_results_has_nothing_to_withdraw_from(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    for rnd in (1, 2, 3):
        match_id = pool.match(rnd, "Norway")
        enter(uowf, pool, match_id, winning_codes(pool, match_id, "Norway"))
    with pytest.raises(Conflict, match="nothing left to forfeit"):
        withdraw(uowf, pool, "Norway")


def test_the_withdrawal_is_announced_to_the_pool_the_stage_and_each_forfeited_match(
    uowf: UnitOfWorkFactory, pool: BuiltPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    published: list[tuple[str, dict[str, object]]] = []
    monkeypatch.setattr(live, "publish", lambda topic, **data: published.append((topic, data)))
    withdraw(uowf, pool, "Sweden")
    topics = {topic for topic, data in published if data.get("kind") == "withdrawal"}
    assert topics == {f"pool:{pool.pool_id}", f"stage:{pool.stage_id}"}
    assert {f"match:{pool.match(r, 'Sweden')}" for r in (1, 2, 3)} <= {topic for topic, _ in published}


def test_the_plan_lists_what_a_withdrawal_would_forfeit_and_changes_nothing(
    uowf: UnitOfWorkFactory, pool: BuiltPool
) -> None:
    with uowf() as uow:
        plan = withdrawals.withdrawal_plan(uow, stage_id=pool.stage_id, team_id=pool.teams["Norway"])
    assert [m.round_number for m in plan.remaining] == [1, 2, 3] and plan.withdrawn_at is None
    assert forfeits(uowf, pool, "Norway") == {1: "", 2: "", 3: ""}
