"""The result entry page of one match: its boards with players, results, versions and sources, and the
match score (docs/rules.md §6).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import Match, Round, RoundStatus, Stage, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.scoring import format_points, match_game_points
from orchestrator.services.boards import held_reason, is_held
from orchestrator.services.results import standings as standings_service

# A Swiss round in one of these states has its pairing made (a draft for review counts).
PAIRED_STATUSES = frozenset(
    status.value
    for status in (
        RoundStatus.DRAFT,
        RoundStatus.SCHEDULED,
        RoundStatus.PAIRED,
        RoundStatus.PLAYING,
        RoundStatus.FINISHED,
    )
)


def paired_after(uow: UnitOfWork, rnd: Round, stage: Stage) -> int | None:
    """The first round of a Swiss stage after ``rnd`` whose pairing is already made, or None (docs/rules.md
    §6, "Late corrections"): a result changed in ``rnd`` then is a late correction."""
    if stage.kind != StageKind.SWISS.value or stage.status == StageStatus.CLOSED.value:
        return None
    later = [
        r.number
        for r in uow.rounds.rounds_of_stage(stage.id or 0)
        if r.number > rnd.number and r.status in PAIRED_STATUSES
    ]
    return min(later, default=None)


@dataclass(frozen=True, slots=True)
class BoardLine:
    board_id: int
    board_no: int
    white: str
    black: str
    white_team: str
    result: str
    version: int
    source: str | None
    updated_by: str
    updated_at: datetime
    game_url: str | None
    has_pgn: bool
    held_reason: str | None = None  # a game-server result held for an arbiter: why (staff only)


@dataclass(frozen=True, slots=True)
class MatchSheet:
    match_id: int
    round_id: int
    round_number: int
    stage_id: int
    stage_name: str
    stage_closed: bool
    event_id: int
    event_slug: str
    pool_id: int | None
    first_team: str
    second_team: str
    forfeit: str
    score: str
    boards: tuple[BoardLine, ...]
    paired_after: int | None = None  # a later round already paired: a change is a late correction


def match_sheet(uow: UnitOfWork, *, match_id: int) -> MatchSheet:
    """Everything the result entry page shows for one match."""
    match = uow.rounds.get_or_raise(Match, match_id)
    rnd = uow.rounds.round_of_match(match)
    stage = uow.rounds.stage_of_match(match)
    event = uow.events.event_of_stage(stage)
    teams = uow.teams.teams_by_id([match.first_team_id, match.second_team_id])
    boards = list(uow.boards.for_match(match_id))
    players = uow.teams.players_by_id(pid for b in boards for pid in (b.white_player_id, b.black_player_id))
    first, second = teams[match.first_team_id].name, teams[match.second_team_id].name
    annulled = uow.teams.annulled_player_ids(event.id or 0)
    results = [standings_service.effective_result(b, annulled) for b in boards]
    held = uow.read.held_reasons(b.id or 0 for b in boards if is_held(b))
    gp_a, gp_b = match_game_points(results)
    lines = []
    for board in boards:
        white = players.get(board.white_player_id or 0)
        black = players.get(board.black_player_id or 0)
        lines.append(
            BoardLine(
                board_id=board.id or 0,
                board_no=board.board_no,
                white=white.name if white else "—",
                black=black.name if black else "—",
                white_team=first if board.board_no % 2 == 1 else second,
                result=board.result,
                version=board.version,
                source=board.result_source,
                updated_by=board.updated_by,
                updated_at=board.updated_at,
                game_url=board.game_url,
                has_pgn=bool(board.pgn),
                held_reason=held_reason(held.get(board.id or 0)) if is_held(board) else None,
            )
        )
    return MatchSheet(
        match_id=match.id or 0,
        round_id=rnd.id or 0,
        round_number=rnd.number,
        stage_id=stage.id or 0,
        stage_name=stage.name,
        stage_closed=stage.status == StageStatus.CLOSED.value,
        event_id=event.id or 0,
        event_slug=event.slug,
        pool_id=match.pool_id,
        first_team=first,
        second_team=second,
        forfeit=match.forfeit,
        score=f"{format_points(gp_a)}–{format_points(gp_b)}",
        boards=tuple(lines),
        paired_after=paired_after(uow, rnd, stage),
    )
