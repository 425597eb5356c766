"""Two stages of the small event for the late-change tests (docs/rules.md §6): the group stage played (the
team earlier in the order wins each match 3½–2½) and closed, the final drafted from its top 2; and
corrections saved on the closed stage afterwards.

    with uow_factory() as uow:
        correct_winner(uow, the_match(uow, stages.group, "Denmark", "Sweden"), "Denmark")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from orchestrator.adapters.tables import Match
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.services.results import results
from orchestrator.services.results import standings as standings_service
from orchestrator.services.setup import pool_draft
from tests.support.factories import make_event, running_stage, stage_id_of

LATER = timedelta(minutes=16)  # past the 15-minute appeal window
NARROW_WIN = "WWWLLD"  # 3½–2½ for the winner, from the winner's side


def board_code(board_no: int, winner_is_first: bool, outcome: str) -> str:
    if outcome == "D":
        return "½-½"
    winner_white = (board_no % 2 == 1) == winner_is_first  # the first team has White on odd boards
    return "1-0" if (outcome == "W") == winner_white else "0-1"


def names_of(uow: UnitOfWork, ids: Sequence[int]) -> dict[int, str]:
    return {tid: team.name for tid, team in uow.teams.teams_by_id(ids).items()}


def play_stage(uow: UnitOfWork, stage_id: int, order: Sequence[str]) -> None:
    """Every match of the stage: the team earlier in ``order`` wins 3½–2½."""
    for match in uow.rounds.matches_of_stage(stage_id):
        names = names_of(uow, [match.first_team_id, match.second_team_id])
        first, second = names[match.first_team_id], names[match.second_team_id]
        winner_is_first = order.index(first) < order.index(second)
        for board in uow.boards.for_match(match.id or 0):
            code = board_code(board.board_no, winner_is_first, NARROW_WIN[board.board_no - 1])
            results.record_result(
                uow, board_id=board.id or 0, result=code, expected_version=board.version, actor="ann"
            )


def the_match(uow: UnitOfWork, stage_id: int, a: str, b: str) -> int:
    for match in uow.rounds.matches_of_stage(stage_id):
        if set(names_of(uow, [match.first_team_id, match.second_team_id]).values()) == {a, b}:
            return match.id or 0
    raise AssertionError(f"no match {a} – {b}")


def correct_winner(
    uow: UnitOfWork, match_id: int, winner: str, *, reason: str = "wrong result keyed"
) -> None:
    """Save corrections on a closed stage: ``winner`` now wins the match 3½–2½."""
    match = uow.rounds.get_or_raise(Match, match_id)
    winner_is_first = names_of(uow, [match.first_team_id])[match.first_team_id] == winner
    entries = [
        results.ResultEntry(
            board.id or 0,
            board_code(board.board_no, winner_is_first, NARROW_WIN[board.board_no - 1]),
            board.version,
        )
        for board in uow.boards.for_match(match_id)
    ]
    results.save_corrections(uow, match_id=match_id, entries=entries, actor="boss", reason=reason)


@dataclass(frozen=True)
class TwoStages:
    event_id: int
    group: int
    final: int


def build_two_stages(uowf: UnitOfWorkFactory) -> TwoStages:
    """The small event: Group closed (Norway, Sweden, Denmark, Finland), Final drafted with the top 2."""
    with uowf() as uow:
        event_id = make_event(uow)
        group = running_stage(uow, event_id=event_id)
        play_stage(uow, group, ["Norway", "Sweden", "Denmark", "Finland"])
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=group, actor="boss", now=utcnow() + LATER)
    with uowf() as uow:
        final = stage_id_of(uow, event_id, "final")
        pool_draft.draft_pools(uow, stage_id=final, actor="boss")
    return TwoStages(event_id, group, final)


def final_teams(uowf: UnitOfWorkFactory, stage_id: int) -> list[str]:
    with uowf() as uow:
        return sorted(
            t.name for pool in pool_draft.describe_pools(uow, stage_id=stage_id).pools for t in pool.teams
        )
