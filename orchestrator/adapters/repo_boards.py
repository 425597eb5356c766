"""The boards of matches and their games (``uow.boards``): by match, round or game id,
and the compare-and-set of a result (docs/architecture.md, habit 5).

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Integer, bindparam, delete, func, or_, update
from sqlalchemy import select as sa_select
from sqlalchemy.orm import defer
from sqlmodel import col, select

from orchestrator.adapters.repositories import (
    Repository,
    among,
    constants,
    insert_rows,
    known_ids,
    unnest_arrays,
    versioned_update,
)
from orchestrator.adapters.tables import OPEN_ROUND_STATUSES, Board, Match, Round, Stage, StageStatus
from orchestrator.db import utcnow
from orchestrator.domain.scoring import GameResult
from orchestrator.errors import CurrentValue, StaleEdit


class BoardScore(NamedTuple):
    """A board as standings and closing checks read it: no ORM object (a pool's 270 boards per recompute)."""

    match_id: int
    board_no: int
    result: str
    white_player_id: int | None
    black_player_id: int | None


BOARD_SCORE_COLUMNS = (
    col(Board.match_id),
    col(Board.board_no),
    col(Board.result),
    col(Board.white_player_id),
    col(Board.black_player_id),
)


class RoundBoard(NamedTuple):
    """A round's board as pairing reads it (plain values; writes go through compare-and-set updates)."""

    id: int
    board_no: int
    white_player_id: int | None
    black_player_id: int | None
    result: str
    result_source: str | None
    game_id: str | None
    version: int
    updated_by: str


@dataclass(frozen=True, slots=True)
class BoardInMatch:
    """A round's board and its match's id."""

    board: RoundBoard
    match_id: int


@dataclass(frozen=True, slots=True)
class GameBoard:
    """A board holding a game, as ingestion reads it: its state, and its match's place (plain values)."""

    id: int
    version: int
    result: str
    result_source: str | None
    game_status: str | None
    pgn: str | None
    match_id: int
    round_id: int
    pool_id: int | None
    duel_id: int | None
    event_id: int
    stage_closed: bool = False


class BoardRepository(Repository):
    """The boards of matches and their games (``uow.boards``): by match, round or game id,
    and the compare-and-set of a result (docs/architecture.md, habit 5)."""

    # --- boards of matches ----------------------------------------------------------------------------------

    def for_match(self, match_id: int) -> Sequence[Board]:
        return self.session.exec(
            select(Board).where(Board.match_id == match_id).order_by(col(Board.board_no))
        ).all()

    def boards_by_match(
        self, match_ids: Iterable[int | None], *, with_pgn: bool = True
    ) -> dict[int, list[Board]]:
        """Boards of these matches by board number, keyed by match id in ascending order (one query).

        ``with_pgn=False`` leaves the games' PGN unread (it loads on first access if someone reads it).
        """
        ids = known_ids(match_ids)
        out: dict[int, list[Board]] = {i: [] for i in ids}
        if not ids:
            return out
        statement = (
            select(Board)
            .where(among(self.session, col(Board.match_id), ids))
            .order_by(col(Board.match_id), col(Board.board_no))
        )
        if not with_pgn:
            statement = statement.options(defer(Board.pgn))  # type: ignore[arg-type]
        rows = self.session.exec(statement).all()
        for board in rows:
            out[board.match_id].append(board)
        return out

    def boards_of_matches(self, match_ids: Iterable[int | None]) -> dict[int, list[Board]]:
        """``boards_by_match`` without loading the games' PGN (the play-off never reads it)."""
        return self.boards_by_match(match_ids, with_pgn=False)

    def board_scores_by_match(self, match_ids: Iterable[int | None]) -> dict[int, list[BoardScore]]:
        """``boards_by_match`` as plain ``BoardScore`` rows (result and players only; one query)."""
        ids = known_ids(match_ids)
        out: dict[int, list[BoardScore]] = {i: [] for i in ids}
        if not ids:
            return out
        statement = (
            sa_select(*BOARD_SCORE_COLUMNS)
            .where(among(self.session, col(Board.match_id), ids))
            .order_by(col(Board.match_id), col(Board.board_no))
        )
        for row in self.session.execute(statement):
            out[row[0]].append(BoardScore(*row))
        return out

    def boards_of_player(self, player_id: int) -> Sequence[Board]:
        return self.session.exec(
            select(Board)
            .where(or_(col(Board.white_player_id) == player_id, col(Board.black_player_id) == player_id))
            .order_by(col(Board.match_id), col(Board.board_no))
        ).all()

    def count_boards_of_pool(self, pool_id: int) -> int:
        statement = (
            select(func.count())
            .select_from(Board)
            .join(Match, col(Match.id) == col(Board.match_id))
            .where(Match.pool_id == pool_id)
        )
        return int(self.session.exec(statement).one())

    # --- writing boards -------------------------------------------------------------------------------------

    def insert_boards(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert boards (column values, every row with the same keys) in one statement (``insert_rows``).

        A stage's 1,350 boards as ORM objects cost ~0.2 s to build and flush; as rows, a few ms.
        """
        insert_rows(self.session.connection(), Board.__table__, rows)  # type: ignore[attr-defined]

    def update_versioned(
        self,
        board_id: int,
        *,
        expected_version: int,
        values: Mapping[str, Any],
        actor: str,
        at: datetime | None = None,
    ) -> Board:
        """Change a board only if nobody else did since ``expected_version`` was read.

        Raises ``StaleEdit`` naming who changed it and what it holds now; nothing is written then.
        """
        stamped = {**values, "updated_by": actor, "updated_at": at or utcnow()}
        if not versioned_update(self.session, Board, board_id, expected_version, stamped):
            current = self.get_or_raise(Board, board_id)
            self.session.refresh(current)
            raise StaleEdit(
                [
                    CurrentValue(
                        entity="board",
                        entity_id=board_id,
                        field="result",
                        value=current.result,
                        version=current.version,
                        changed_by=current.updated_by,
                        changed_at=current.updated_at,
                    )
                ]
            )
        board = self.get_or_raise(Board, board_id)
        self.session.refresh(board)
        return board

    def update_boards_versioned(self, changes: Sequence[Mapping[str, Any]]) -> int:
        """Compare-and-set many boards in one statement (executemany); returns the rows changed.

        Each change has ``b_id``, ``b_version`` and the new values under the column names; every
        change must carry the same set of columns.
        """
        if not changes:
            return 0
        self.session.flush()  # pending ORM changes go first: expiring the boards below would drop them
        table: Any = Board.__table__  # type: ignore[attr-defined]
        columns = [key for key in changes[0] if key not in ("b_id", "b_version")]
        connection = self.session.connection()
        if connection.dialect.name == "postgresql":
            # One statement for every row: UPDATE ... FROM unnest(arrays). As executemany, PostgreSQL ran one
            # UPDATE per board (150 a round); a VALUES list instead cost SQLAlchemy ~70 ms to compile each
            # time.
            quote = connection.dialect.identifier_preparer.quote
            types = {
                "b_id": Integer(),
                "b_version": Integer(),
                **{name: table.c[name].type for name in columns},
            }
            arrays, params = unnest_arrays(connection.dialect, types, changes)
            assignments = ", ".join(f"{quote(name)} = given.{quote(name)}" for name in columns)
            statement = (
                f"UPDATE board SET {assignments}, version = board.version + 1"
                f" FROM unnest({arrays}) AS given({', '.join(quote(key) for key in types)})"
                " WHERE board.id = given.b_id AND board.version = given.b_version"
            )
            result: Any = connection.exec_driver_sql(statement, params)
        else:
            many = (
                update(table)
                .where(table.c.id == bindparam("b_id"), table.c.version == bindparam("b_version"))
                .values({name: bindparam(name) for name in columns} | {"version": table.c.version + 1})
            )
            result = connection.execute(many, list(changes))
        # Only the boards written are out of date in the session (expiring everything made the round and
        # bulk records of the same unit of work load again).
        for change in changes:
            board = self.session.identity_map.get(self.session.identity_key(Board, int(change["b_id"])))
            if board is not None:
                self.session.expire(board)
        return int(result.rowcount or 0)

    def delete_boards_of_matches(self, match_ids: Sequence[int]) -> None:
        if match_ids:
            self.session.execute(delete(Board).where(col(Board.match_id).in_(match_ids)))

    # --- games on the game server ---------------------------------------------------------------------------

    def get_by_game_id(self, game_id: str) -> Board | None:
        return self.session.exec(select(Board).where(Board.game_id == game_id)).first()

    def boards_of_round(self, round_id: int) -> list[BoardInMatch]:
        """The round's boards in match and board order: one query of plain rows (no ORM objects)."""
        rows = self.session.execute(
            sa_select(
                col(Board.id),
                col(Board.board_no),
                col(Board.white_player_id),
                col(Board.black_player_id),
                col(Board.result),
                col(Board.result_source),
                col(Board.game_id),
                col(Board.version),
                col(Board.updated_by),
                col(Board.match_id),
            )
            .join(Match, col(Match.id) == col(Board.match_id))
            .where(col(Match.round_id) == round_id)
            .order_by(col(Match.match_no), col(Board.board_no))
        ).all()
        return [BoardInMatch(RoundBoard(*row[:9]), row[9]) for row in rows]

    def boards_by_game_ids(self, game_ids: Iterable[str]) -> dict[str, GameBoard]:
        """Boards holding these game ids, keyed by game id: one query of plain rows (no ORM objects).

        A round's 150 boards and matches as ORM objects took longer to build than the query took to run.
        """
        wanted = list(dict.fromkeys(game_ids))
        if not wanted:
            return {}
        rows = self.session.execute(
            sa_select(
                col(Board.game_id),
                col(Board.id),
                col(Board.version),
                col(Board.result),
                col(Board.result_source),
                col(Board.game_status),
                col(Board.pgn),
                col(Match.id),
                col(Match.round_id),
                col(Match.pool_id),
                col(Match.duel_id),
                col(Stage.event_id),
                col(Stage.status),
            )
            .join(Match, col(Match.id) == Board.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(among(self.session, col(Board.game_id), wanted))
        ).all()
        return {
            game_id: GameBoard(
                id=board_id,
                version=version,
                result=result,
                result_source=source,
                game_status=game_status,
                pgn=pgn,
                match_id=match_id,
                round_id=round_id,
                pool_id=pool_id,
                duel_id=duel_id,
                event_id=event_id,
                stage_closed=status == StageStatus.CLOSED.value,
            )
            for (
                game_id,
                board_id,
                version,
                result,
                source,
                game_status,
                pgn,
                match_id,
                round_id,
                pool_id,
                duel_id,
                event_id,
                status,
            ) in rows
        }

    def pools_and_duels_of_games(self, game_ids: Iterable[str]) -> tuple[list[int], list[int]]:
        """The pools and duels whose boards hold these game ids, each sorted (the locks to take)."""
        wanted = list(dict.fromkeys(game_ids))
        if not wanted:
            return [], []
        rows = self.session.execute(
            sa_select(col(Match.pool_id), col(Match.duel_id))
            .join(Board, col(Board.match_id) == Match.id)
            .where(among(self.session, col(Board.game_id), wanted))
            .distinct()
        ).all()
        pools = sorted({pool for pool, _duel in rows if pool is not None})
        duels = sorted({duel for _pool, duel in rows if duel is not None})
        return pools, duels

    def open_game_ids_of_stage(self, stage_id: int) -> dict[int, list[str]]:
        """Game ids of the boards with no final result yet of each of the stage's open rounds (paired or
        playing) that has any, by round id, in one query: a round's pull and what it takes along
        (``gameserver.pull_round_results``)."""
        rows = self.session.execute(
            sa_select(col(Match.round_id), col(Board.game_id))
            .join(Board, col(Board.match_id) == col(Match.id))
            .join(Round, col(Round.id) == col(Match.round_id))
            .where(
                col(Round.stage_id) == stage_id,
                col(Round.status).in_(constants(OPEN_ROUND_STATUSES)),
                col(Board.game_id).is_not(None),
                col(Board.result) == GameResult.PENDING.value,
            )
            .order_by(col(Match.round_id), col(Board.id))
        ).all()
        found: dict[int, list[str]] = {}
        for round_id, game_id in rows:
            if game_id:
                found.setdefault(round_id, []).append(game_id)
        return found
