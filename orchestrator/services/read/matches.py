"""Matches and rounds as spectators see them: match lines with their score, and one match board by board."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import Board, Match, Player, Round, RoundStatus, Stage, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.knockout import ArmageddonClock
from orchestrator.domain.scoring import MatchForfeit
from orchestrator.errors import NotFound
from orchestrator.services.boards import is_held
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG
from orchestrator.services.read.context import (
    EventData,
    EventRef,
    PlayerRef,
    StageItem,
    TeamRef,
    is_public,
    ref_player,
    ref_team,
    require_id,
    teams_by_id,
)
from orchestrator.services.read.documents import JsonDocument, Topics
from orchestrator.services.read.events import ClockItem, clock_item
from orchestrator.services.read.formatting import format_score, game_text
from orchestrator.services.results.standings import effective_result
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class MatchLine:
    id: int
    round_number: int
    match_no: int
    first: TeamRef
    second: TeamRef
    first_half: int
    second_half: int
    status: str
    forfeit: str
    boards_final: int
    boards: int

    @property
    def final(self) -> bool:
        return self.forfeit != "" or (self.boards > 0 and self.boards_final == self.boards)

    @property
    def started(self) -> bool:
        return self.forfeit != "" or self.boards_final > 0

    @property
    def score_text(self) -> str:
        if self.forfeit == MatchForfeit.DOUBLE.value:
            return "−/− (double forfeit)"
        if not self.started:
            return "–"
        return f"{format_score(self.first_half)}–{format_score(self.second_half)}"


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    name: str
    scheduled_at: datetime | None
    status: str
    matches: tuple[MatchLine, ...]


@dataclass(frozen=True, slots=True)
class BoardLine:
    number: int
    first_colour: str  # "white" or "black": the first-named team's colour on this board
    first_player: PlayerRef | None
    second_player: PlayerRef | None
    result: str  # from White's side, e.g. "1-0", "*"
    first_half: int
    second_half: int
    final: bool
    forfeit: bool
    game_url: str | None
    has_pgn: bool
    annulled: bool = False  # a fair-play ruling turned this game into a loss (docs/rules.md §2)
    played_result: str = ""  # the result on the board before the ruling
    held: bool = False  # a result held for the arbiter (spectators see that, never why)

    @property
    def first_score(self) -> str:
        return game_text(self.first_half if self.final else None, forfeit=self.forfeit)

    @property
    def second_score(self) -> str:
        return game_text(self.second_half if self.final else None, forfeit=self.forfeit)


@dataclass(frozen=True, slots=True)
class MatchView(JsonDocument):
    event: EventRef
    stage: StageItem
    pool_letter: str | None
    duel_key: str | None
    round: RoundView
    match: MatchLine
    boards: tuple[BoardLine, ...]
    topics: Topics
    armageddon_clock: str | None = None  # an Armageddon game: the event's clocks ("White 5 min, ...")
    clock: ClockItem | None = None  # the round's time control in full (not for an Armageddon game)


def boards_of(uow: UnitOfWork, matches: Iterable[Match]) -> dict[int, list[Board]]:
    """The boards of each match, by match id (a match without boards yet maps to an empty list)."""
    boards: dict[int, list[Board]] = defaultdict(list)
    for board in uow.read.boards_of_matches(require_id(m.id) for m in matches):
        boards[board.match_id].append(board)
    return boards


def match_line(
    match: Match,
    round_number: int,
    teams: Mapping[int, Team],
    boards: Sequence[Board],
    board_count: int,
    annulled: set[int] | None = None,
) -> MatchLine:
    """A match with its score from the boards, or from the match forfeit that replaces them."""
    first_half = second_half = final = 0
    for board in boards:
        result = effective_result(board, annulled or set())
        if result.is_final:
            final += 1
        if board.board_no % 2 == 1:  # the first-named team has White on odd boards (docs/rules.md §1)
            first_half += result.white_half
            second_half += result.black_half
        else:
            first_half += result.black_half
            second_half += result.white_half
    forfeit = MatchForfeit(match.forfeit)
    if forfeit is not MatchForfeit.NONE:
        first_half, second_half = forfeit.game_points(board_count)
    return MatchLine(
        id=require_id(match.id),
        round_number=round_number,
        match_no=match.match_no,
        first=ref_team(teams[match.first_team_id]),
        second=ref_team(teams[match.second_team_id]),
        first_half=first_half,
        second_half=second_half,
        status=match.status,
        forfeit=match.forfeit,
        boards_final=final,
        boards=len(boards) or board_count,
    )


def round_views(pool_rounds: Sequence[Round], matches: Sequence[MatchLine]) -> tuple[RoundView, ...]:
    """The rounds in order, each with its matches in pairing order."""
    by_round: dict[int, list[MatchLine]] = defaultdict(list)
    for line in matches:
        by_round[line.round_number].append(line)
    out = []
    for r in sorted(pool_rounds, key=lambda r: r.number):
        lines = tuple(sorted(by_round.get(r.number, []), key=lambda m: m.match_no))
        out.append(
            RoundView(r.number, r.name or f"Round {r.number}", r.scheduled_at, _round_status(r, lines), lines)
        )
    return tuple(out)


def _round_status(rnd: Round, matches: Sequence[MatchLine]) -> str:
    """The round's status as spectators see it: the boards tell when it is being played or over."""
    if matches and all(m.final for m in matches):
        return RoundStatus.FINISHED.value
    if any(m.started for m in matches) and rnd.status != RoundStatus.FINISHED.value:
        return RoundStatus.PLAYING.value
    return rnd.status


def _match_and_context(data: EventData, match_id: int) -> tuple[Match, Stage, Round]:
    match = data.uow.rounds.get(Match, match_id)
    round_by_id = {r.id: r for r in data.rounds}
    if match is None or match.round_id not in round_by_id:
        raise NotFound(_("There is no match %(id)s in this event.") % {"id": match_id})
    if match.pool_id is not None:
        pool = next((p for p in data.pools if p.id == match.pool_id), None)
        if pool is None or not is_public(pool):
            raise NotFound(_("There is no match %(id)s in this event.") % {"id": match_id})
    rnd = round_by_id[match.round_id]
    return match, data.stage_by_id(rnd.stage_id), rnd


def _player_ref(players: Mapping[int, Player], player_id: int | None) -> PlayerRef | None:
    player = players.get(player_id) if player_id is not None else None
    return ref_player(player) if player is not None else None


def _board_line(board: Board, players: Mapping[int, Player], annulled: set[int]) -> BoardLine:
    result = effective_result(board, annulled)
    first_white = board.board_no % 2 == 1
    white = _player_ref(players, board.white_player_id)
    black = _player_ref(players, board.black_player_id)
    return BoardLine(
        number=board.board_no,
        first_colour="white" if first_white else "black",
        first_player=white if first_white else black,
        second_player=black if first_white else white,
        result=result.value,
        first_half=result.white_half if first_white else result.black_half,
        second_half=result.black_half if first_white else result.white_half,
        final=result.is_final,
        forfeit=result.is_forfeit,
        game_url=board.game_url if board.game_url and board.game_url.startswith("http") else None,
        has_pgn=bool(board.pgn),
        annulled=result.value != board.result,
        played_result=board.result,
        held=is_held(board),
    )


def match_view(uow: UnitOfWork, *, slug: str, match_id: int) -> MatchView:
    """One match board by board, with players, colours, results and links to the games."""
    data = EventData(uow, slug)
    match, stage, rnd = _match_and_context(data, match_id)
    boards = list(uow.read.boards_of_matches([match_id]))
    players = uow.teams.players_by_id(
        [b.white_player_id for b in boards] + [b.black_player_id for b in boards]
    )
    line = match_line(match, rnd.number, teams_by_id(uow, data.id), boards, data.boards, data.annulled)
    pool_letter = None
    if match.pool_id is not None:
        pool_letter = next(p.letter for p in data.pools if p.id == match.pool_id)
    duel_key = None
    if match.duel_id is not None:
        duel_key = next((d.key for d in data.duels if d.id == match.duel_id), None)
    topics = (f"match:{match_id}", *([f"pool:{match.pool_id}"] if match.pool_id else []))
    round_view = RoundView(rnd.number, rnd.name or f"Round {rnd.number}", rnd.scheduled_at, rnd.status, ())
    return MatchView(
        event=data.ref,
        stage=data.items[require_id(stage.id)],
        pool_letter=pool_letter,
        duel_key=duel_key,
        round=round_view,
        match=line,
        boards=tuple(_board_line(board, players, data.annulled) for board in boards),
        topics=topics,
        armageddon_clock=_armageddon_clock(data) if match.leg == ARMAGEDDON_LEG else None,
        clock=(
            clock_item(data.definition.time_control_of(stage.key, rnd.number))
            if data.definition is not None and match.leg != ARMAGEDDON_LEG
            else None
        ),
    )


def _armageddon_clock(data: EventData) -> str:
    """The event's own Armageddon clocks (its definition file), else the default ones."""
    return (data.definition.armageddon if data.definition else ArmageddonClock()).describe()


def board_pgn(uow: UnitOfWork, *, slug: str, match_id: int, board_no: int) -> str:
    """The stored PGN of one board's game."""
    data = EventData(uow, slug)
    _match_and_context(data, match_id)
    for board in uow.read.boards_of_matches([match_id]):
        if board.board_no == board_no and board.pgn:
            return board.pgn
    raise NotFound(
        _("Board %(board)s of match %(match)s has no game record yet.")
        % {
            "board": board_no,
            "match": match_id,
        }
    )
