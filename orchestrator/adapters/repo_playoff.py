"""Play-off duels and their Armageddons (``uow.playoff``): the bracket's rows and state,
the duels' matches.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, or_
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased, defer
from sqlmodel import col, select

from orchestrator.adapters.repo_teams import TeamRepository
from orchestrator.adapters.repositories import Repository, constant, known_ids
from orchestrator.adapters.tables import (
    Appeal,
    AppealStatus,
    Armageddon,
    ArmageddonStatus,
    Board,
    Duel,
    DuelStatus,
    Event,
    Match,
    Stage,
    StageKind,
    StageStatus,
    Team,
)


@dataclass(frozen=True, slots=True)
class BracketState:
    """What the bracket advance reads of a knockout stage, as plain values (``bracket_state``).

    ``duels``: per duel, its columns, its Armageddon's columns (None without one), its two teams'
    withdrawal times, and the event's id; ``boards``: per match, its columns, then
    per board its id, version, result and game id, and the match's open appeals. Equal states mean the
    advance finds the same bracket (an event's file never changes once the event exists).
    """

    duels: tuple[tuple[Any, ...], ...]
    boards: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True, slots=True)
class BracketRows:
    """A knockout stage's duels with what deciding them reads, as ORM rows (``bracket_rows``)."""

    duels: list[Duel]  # by id
    armageddons: dict[int, Armageddon]  # by duel id
    teams: dict[int, Team]  # the teams the duels name
    matches: dict[int, list[Match]]  # by duel id (every duel), by leg
    boards: dict[int, list[Board]]  # by match id (every match), by board number; no PGN loaded
    open_appeals: set[int]  # match ids with an open appeal


_FIRST_TEAM = aliased(Team, name="first_team")


_SECOND_TEAM = aliased(Team, name="second_team")


@functools.cache
def _bracket_rows_queries(one_duel: bool = False) -> tuple[Any, Any]:
    """``bracket_rows``' two statements, built once: the stage's every duel, or with ``one_duel`` only the
    duel bound as ``duel_id`` (an Armageddon's moves read no other duel: ``load_duel``)."""
    stage_id: Any = bindparam("stage_id")
    duel_id: Any = bindparam("duel_id")
    of_duels: Any = col(Duel.stage_id) == stage_id
    of_matches: Any = col(Match.duel_id).in_(sa_select(col(Duel.id)).where(col(Duel.stage_id) == stage_id))
    if one_duel:
        of_duels = of_duels & (col(Duel.id) == duel_id)
        of_matches = col(Match.duel_id) == duel_id
    duels = (
        select(Duel, Armageddon, _FIRST_TEAM, _SECOND_TEAM)
        .outerjoin(Armageddon, col(Armageddon.duel_id) == col(Duel.id))
        .outerjoin(_FIRST_TEAM, col(_FIRST_TEAM.id) == col(Duel.first_team_id))
        .outerjoin(_SECOND_TEAM, col(_SECOND_TEAM.id) == col(Duel.second_team_id))
        .where(of_duels)
        .order_by(col(Duel.id))
    )
    open_appeals = (
        sa_select(func.count())
        .where(col(Appeal.match_id) == col(Match.id), col(Appeal.status) == AppealStatus.OPEN.value)
        .correlate(Match)
        .scalar_subquery()
    )
    matches = (
        select(Match, Board, open_appeals)
        .outerjoin(Board, col(Board.match_id) == col(Match.id))
        .where(of_matches)
        .order_by(col(Match.duel_id), col(Match.leg), col(Match.id), col(Board.board_no))
        .options(defer(Board.pgn))  # type: ignore[arg-type]
    )
    return duels, matches


@functools.cache
def _bracket_state_queries() -> tuple[Any, Any]:
    """``bracket_state``'s two statements, built once (plain Core: no ORM entities to set up per call)."""
    duel: Any = Duel.__table__  # type: ignore[attr-defined]
    arm: Any = Armageddon.__table__  # type: ignore[attr-defined]
    stage: Any = Stage.__table__  # type: ignore[attr-defined]
    match: Any = Match.__table__  # type: ignore[attr-defined]
    board: Any = Board.__table__  # type: ignore[attr-defined]
    appeal: Any = Appeal.__table__  # type: ignore[attr-defined]
    team: Any = Team.__table__  # type: ignore[attr-defined]
    first, second = team.alias("first_team"), team.alias("second_team")
    stage_id: Any = bindparam("stage_id")
    duels = (
        sa_select(duel, arm, first.c.withdrawn_at, second.c.withdrawn_at, stage.c.event_id)
        .select_from(duel)
        .join(stage, stage.c.id == duel.c.stage_id)
        .outerjoin(arm, arm.c.duel_id == duel.c.id)
        .outerjoin(first, first.c.id == duel.c.first_team_id)
        .outerjoin(second, second.c.id == duel.c.second_team_id)
        .where(duel.c.stage_id == stage_id)
        .order_by(duel.c.id)
    )
    open_appeals = (
        sa_select(func.count())
        .where(appeal.c.match_id == match.c.id, appeal.c.status == AppealStatus.OPEN.value)
        .scalar_subquery()
    )
    matches = (
        sa_select(match, board.c.id, board.c.version, board.c.result, board.c.game_id, open_appeals)
        .select_from(match)
        .outerjoin(board, board.c.match_id == match.c.id)
        .where(match.c.duel_id.in_(sa_select(duel.c.id).where(duel.c.stage_id == stage_id)))
        .order_by(match.c.id, board.c.board_no)
    )
    return duels, matches


class PlayoffRepository(Repository):
    """Play-off duels and their Armageddons (``uow.playoff``): the bracket's rows and state,
    the duels' matches."""

    def nominating_armageddons(self, now: datetime) -> Sequence[tuple[Armageddon, Duel, Stage, Event]]:
        return self.session.exec(
            select(Armageddon, Duel, Stage, Event)
            .join(Duel, col(Duel.id) == Armageddon.duel_id)
            .join(Stage, col(Stage.id) == Duel.stage_id)
            .join(Event, col(Event.id) == Stage.event_id)
            .where(
                Armageddon.status == ArmageddonStatus.NOMINATING.value,
                col(Armageddon.deadline_at).is_not(None),
                col(Armageddon.deadline_at) > now,
            )
            .order_by(col(Armageddon.id))
        ).all()

    def team_armageddons(self, team_id: int) -> Sequence[tuple[Armageddon, Duel]]:
        return self.session.exec(
            select(Armageddon, Duel)
            .join(Duel, col(Duel.id) == Armageddon.duel_id)
            .where((Duel.first_team_id == team_id) | (Duel.second_team_id == team_id))
            .order_by(col(Armageddon.id))
        ).all()

    def duels_of_stage(self, stage_id: int) -> Sequence[Duel]:
        return self.session.exec(select(Duel).where(Duel.stage_id == stage_id).order_by(col(Duel.id))).all()

    def armageddon_duels(self) -> list[tuple[int, int]]:
        """(stage id, duel id) of every duel level on match points in a running knockout stage (one query)."""
        rows = self.session.execute(
            sa_select(col(Duel.stage_id), col(Duel.id))
            .join(Stage, col(Stage.id) == col(Duel.stage_id))
            .where(
                col(Stage.kind) == constant(StageKind.KNOCKOUT.value),
                col(Stage.status) == constant(StageStatus.RUNNING.value),
                col(Duel.status) == constant(DuelStatus.ARMAGEDDON.value),
            )
            .order_by(col(Duel.stage_id), col(Duel.id))
        ).all()
        return [(stage_id, duel_id or 0) for stage_id, duel_id in rows]

    def bracket_rows(self, stage_id: int, duel_id: int | None = None) -> BracketRows:
        """The stage's duels, Armageddons, teams, matches, boards and open appeals in two queries; with
        ``duel_id`` only that duel's (an empty bracket when it is not the stage's)."""
        duel_query, match_query = _bracket_rows_queries(duel_id is not None)
        params = {"stage_id": stage_id} if duel_id is None else {"stage_id": stage_id, "duel_id": duel_id}
        duels: list[Duel] = []
        armageddons: dict[int, Armageddon] = {}
        teams: dict[int, Team] = {}
        for duel, arm, first, second in self.session.exec(duel_query, params=params).all():
            duels.append(duel)
            if arm is not None:
                armageddons[arm.duel_id] = arm
            teams.update({t.id or 0: t for t in (first, second) if t is not None})
        missing = {d.winner_team_id for d in duels} - teams.keys() - {None}  # a winner is one of the two
        if missing:
            teams.update(TeamRepository(self.session).teams_by_id(missing))
        matches: dict[int, list[Match]] = {d.id or 0: [] for d in duels}
        boards: dict[int, list[Board]] = {}
        open_appeals: set[int] = set()
        for match, board, appeals in self.session.exec(match_query, params=params).all():
            if match.id not in boards:
                boards[match.id or 0] = []
                matches.setdefault(match.duel_id or 0, []).append(match)
                if appeals:
                    open_appeals.add(match.id or 0)
            if board is not None:
                boards[match.id or 0].append(board)
        return BracketRows(duels, armageddons, teams, matches, boards, open_appeals)

    def bracket_state(self, stage_id: int) -> BracketState:
        """The stage's bracket as the advance reads it, in two queries of plain rows (no ORM objects)."""
        self.session.flush()  # this transaction's own changes count
        duels_of_stage, matches_of_stage = _bracket_state_queries()
        duels = self.session.execute(duels_of_stage, {"stage_id": stage_id}).all()
        if not duels:
            return BracketState((), ())
        boards = self.session.execute(matches_of_stage, {"stage_id": stage_id}).all()
        return BracketState(tuple(tuple(r) for r in duels), tuple(tuple(r) for r in boards))

    def duel_by_key(self, stage_id: int, key: str) -> Duel | None:
        return self.session.exec(select(Duel).where(Duel.stage_id == stage_id, Duel.key == key)).first()

    def duels_of_team(self, team_id: int) -> Sequence[Duel]:
        return self.session.exec(
            select(Duel)
            .where(or_(col(Duel.first_team_id) == team_id, col(Duel.second_team_id) == team_id))
            .order_by(col(Duel.id))
        ).all()

    def matches_of_duels(self, duel_ids: Iterable[int | None]) -> dict[int, list[Match]]:
        ids = known_ids(duel_ids)
        out: dict[int, list[Match]] = {i: [] for i in ids}
        if not ids:
            return out
        rows = self.session.exec(
            select(Match).where(col(Match.duel_id).in_(ids)).order_by(col(Match.duel_id), col(Match.leg))
        ).all()
        for match in rows:
            out[match.duel_id or 0].append(match)
        return out

    def armageddon_of_duel(self, duel_id: int) -> Armageddon | None:
        return self.session.exec(select(Armageddon).where(Armageddon.duel_id == duel_id)).first()

    def armageddons_of_duels(self, duel_ids: Iterable[int | None]) -> dict[int, Armageddon]:
        ids = known_ids(duel_ids)
        if not ids:
            return {}
        rows = self.session.exec(select(Armageddon).where(col(Armageddon.duel_id).in_(ids))).all()
        return {a.duel_id: a for a in rows}

    def due_armageddons(self, now: datetime) -> Sequence[Armageddon]:
        """Armageddons still sealed whose nomination deadline has passed."""
        return self.session.exec(
            select(Armageddon).where(
                col(Armageddon.status) == constant(ArmageddonStatus.NOMINATING.value),
                col(Armageddon.deadline_at).is_not(None),
                col(Armageddon.deadline_at) <= now,
            )
        ).all()
