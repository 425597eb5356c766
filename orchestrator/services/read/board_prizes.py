"""Board prizes of a stage (docs/board-prizes.md): per board number of the team lists, the players ranked
by performance rating over games played over the board, with the ones not yet eligible listed below, and
the recorded lots that order tied players (docs/lots.md). Page, JSON and CSV read the same view.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.adapters.csv_files import write_csv
from orchestrator.adapters.tables import Player, Stage
from orchestrator.adapters.tables import Pool as PoolRow
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.board_prizes import BoardPlayer, BoardPrizeRow, board_table
from orchestrator.domain.names import MAX_PLAYER_NAME
from orchestrator.errors import NotFound
from orchestrator.services.read.context import EventData, EventRef, TeamRef, is_public, ref_team, require_id
from orchestrator.services.read.individual import INDIVIDUAL_KINDS, EventGames, event_games
from orchestrator.services.setup.draws import LotView, list_lots
from orchestrator.translation import gettext as _

DEFAULT_MIN_GAMES = 8  # Olympiad 2026 regulations 4.6.3.1
_CANDIDATE = re.compile(r"^#(\d+) ")


def lot_purpose(stage: Stage, board: int) -> str:
    """The purpose of a board-prize lot: the stage and the board number (the group is its candidates)."""
    return f"board prize {stage.key} board {board}"


def lot_candidate(player: Player, team_name: str) -> str:
    """A player as a lot candidate: ``#<id> Name (Team)``, unique, readable, and read back by its id; cut
    to the length a lot candidate may have (a long name and team would not fit)."""
    return f"#{player.id} {player.name} ({team_name})"[:MAX_PLAYER_NAME]


def candidate_id(candidate: str) -> int | None:
    found = _CANDIDATE.match(candidate)
    return int(found.group(1)) if found else None


@dataclass(frozen=True, slots=True)
class PrizeLine:
    place: int | None
    medal: str | None
    player_id: int
    name: str
    title: str | None
    rating: int
    team: TeamRef
    eligible: bool
    games: int
    half_points: int
    average_opponent: int | None
    performance: int | None
    games_needed: int
    tied: bool  # shares its place until a lot is drawn


@dataclass(frozen=True, slots=True)
class BoardSection:
    board: int
    label: str  # "Board 1", "Reserve", in the reader's language
    lines: tuple[PrizeLine, ...]
    lots: tuple[LotView, ...]  # drawn or committed lots of this board's ties
    ties_pending: tuple[tuple[str, ...], ...]  # names of tied groups whose lot is not drawn yet
    reserve: bool = False  # the reserves' table (a board number after the main boards)


@dataclass(frozen=True, slots=True)
class BoardPrizesView:
    event: EventRef
    stage_key: str
    stage_name: str
    min_games: int
    boards: tuple[BoardSection, ...]
    topics: tuple[str, ...]
    rated: bool = False  # the event has a rating-change page (docs/ratings.md)
    pools: tuple[tuple[str, int], ...] = ()  # (letter, id) of the stage's published pools: staff rating files

    def as_json(self) -> bytes:
        body = {
            "event": {"slug": self.event.slug, "name": self.event.name},
            "stage": {"key": self.stage_key, "name": self.stage_name},
            "min_games": self.min_games,
            "boards": [
                {
                    "board": section.board,
                    "label": section.label,
                    "lines": [_line_json(line) for line in section.lines],
                    "lots": [lot.public() for lot in section.lots],
                    "ties_pending": [list(group) for group in section.ties_pending],
                }
                for section in self.boards
            ],
        }
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()

    def as_csv(self) -> str:
        rows: list[list[object]] = [
            ["board", "place", "medal", "player", "title", "rating", "team", "federation", "games",
             "points", "average_opponent", "performance", "eligible", "games_needed", "tied"],
        ]  # fmt: skip
        for section in self.boards:
            for line in section.lines:
                rows.append(
                    [section.board, line.place or "", line.medal or "", line.name, line.title or "",
                     line.rating, line.team.name, line.team.federation, line.games,
                     _points(line.half_points), line.average_opponent or "", line.performance or "",
                     "yes" if line.eligible else "no", line.games_needed, "yes" if line.tied else "no"]
                )  # fmt: skip
        return write_csv(rows)


def _points(half: int) -> str:
    return f"{half // 2}.5" if half % 2 else f"{half // 2}"


def _line_json(line: PrizeLine) -> dict[str, object]:
    return {
        "place": line.place,
        "medal": line.medal,
        "player_id": line.player_id,
        "name": line.name,
        "title": line.title,
        "rating": line.rating,
        "team": {"id": line.team.id, "name": line.team.name, "federation": line.team.federation},
        "eligible": line.eligible,
        "games": line.games,
        "points_half": line.half_points,
        "average_opponent": line.average_opponent,
        "performance": line.performance,
        "games_needed": line.games_needed,
        "tied": line.tied,
    }


def prize_stage(data: EventData, stage_key: str) -> Stage:
    stage = data.stage_by_key(stage_key)
    if stage.kind not in INDIVIDUAL_KINDS:
        raise NotFound(
            _("%(stage)s is a knockout stage: board prizes are for pools and Swiss stages.")
            % {
                "stage": stage.name,
            }
        )
    return stage


def min_games_of(data: EventData) -> int:
    return data.definition.board_prize_min_games if data.definition else DEFAULT_MIN_GAMES


def board_players(games: EventGames) -> list[BoardPlayer]:
    """Every player of the teams that played in the stages, at their board number, with the games played
    over the board (the opponent's rating as listed for the event)."""
    out = []
    for pid, player in games.players.items():
        if player.team_id not in games.team_ids:
            continue
        team = games.teams[player.team_id]
        out.append(
            BoardPlayer(str(pid), player.name, team.name, games.board_of(player), games.played_games(pid))
        )
    return out


def board_lots(lots: Sequence[LotView], stage: Stage, board: int) -> list[LotView]:
    """The lots committed for this stage's board (void ones left out)."""
    purpose = lot_purpose(stage, board)
    return [lot for lot in lots if lot.purpose == purpose and not lot.void]


def lot_orders(lots: Sequence[LotView]) -> dict[frozenset[str], tuple[str, ...]]:
    """The order each drawn lot gave, keyed by its group of player keys."""
    out: dict[frozenset[str], tuple[str, ...]] = {}
    for lot in lots:
        if lot.outcome is None:
            continue
        keys = tuple(str(candidate_id(c)) for c in lot.outcome)
        out[frozenset(keys)] = keys
    return out


def board_prizes_view(uow: UnitOfWork, *, slug: str, stage_key: str) -> BoardPrizesView:
    data = EventData(uow, slug)
    stage = prize_stage(data, stage_key)
    games = event_games(data, [stage])
    min_games = min_games_of(data)
    lots = list_lots(uow, event_id=data.id)
    players = board_players(games)
    sections = []
    for board in sorted({p.board for p in players}):
        own_lots = board_lots(lots, stage, board)
        orders = lot_orders(own_lots)
        table = board_table(board, players, min_games=min_games, lot_order=orders)
        tied = {key for group in table.ties for key in group}
        lines = tuple(_prize_line(games, row, row.player.key in tied) for row in table.rows)
        names = tuple(tuple(games.players[int(k)].name for k in group) for group in table.ties)
        reserve = board > data.boards
        label = _("Reserve") if reserve else _("Board %(board)s") % {"board": board}
        current = tuple(lot for lot in own_lots if _is_current(lot, lines))
        sections.append(BoardSection(board, label, lines, current, names, reserve))
    return BoardPrizesView(
        event=data.ref,
        stage_key=stage.key,
        stage_name=stage.name,
        min_games=min_games,
        boards=tuple(sections),
        topics=games.topics,
        rated=bool(data.definition and data.definition.rated),
        pools=tuple((p.letter, require_id(p.id)) for p in _stage_pools(data, stage)),
    )


def _is_current(lot: LotView, lines: Sequence[PrizeLine]) -> bool:
    """Whether the lot's candidates are exactly one group of eligible players with equal performance and
    games now (a lot committed for a tie that later changed is kept on record, not shown here)."""
    ids = {candidate_id(c) for c in lot.candidates}
    group = [line for line in lines if line.player_id in ids]
    if len(group) != len(ids) or len(ids) < 2 or not all(line.eligible for line in group):
        return False
    key = {(line.performance, line.games) for line in group}
    if len(key) != 1:
        return False
    return sum(1 for line in lines if line.eligible and (line.performance, line.games) in key) == len(ids)


def _stage_pools(data: EventData, stage: Stage) -> list[PoolRow]:
    return [p for p in data.pools if p.stage_id == stage.id and is_public(p)]


def _prize_line(games: EventGames, row: BoardPrizeRow, tied: bool) -> PrizeLine:
    player = games.players[int(row.player.key)]
    perf = row.performance
    return PrizeLine(
        place=row.place,
        medal=row.medal,
        player_id=require_id(player.id),
        name=player.name,
        title=player.title,
        rating=player.rating,
        team=ref_team(games.teams[player.team_id]),
        eligible=row.eligible,
        games=perf.games if perf else 0,
        half_points=perf.half_points if perf else 0,
        average_opponent=perf.average_opponent if perf else None,
        performance=perf.rating if perf else None,
        games_needed=row.games_needed,
        tied=tied,
    )
