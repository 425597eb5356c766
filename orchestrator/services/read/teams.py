"""The team page: roster with each player's games and performance rating, and the team's matches."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from orchestrator.adapters.tables import Board, Match, Player, Round, StageKind, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.performance import Performance, PlayedGame, performance
from orchestrator.errors import NotFound
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
    team_strength,
    teams_by_id,
)
from orchestrator.services.read.documents import JsonDocument, Topics
from orchestrator.services.read.formatting import format_score, game_text
from orchestrator.services.read.matches import MatchLine, boards_of, match_line, round_views
from orchestrator.services.read.swiss import SwissPathStep, team_steps
from orchestrator.services.results.standings import effective_result
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class PlayerGame:
    stage_key: str
    round_number: int
    match_id: int
    board: int
    colour: str  # "white" | "black"
    opponent: PlayerRef | None
    opponent_team: TeamRef
    half_points: int | None  # None until final
    played: bool  # over the board (not a forfeit)
    forfeit: bool

    @property
    def text(self) -> str:
        return game_text(self.half_points, forfeit=self.forfeit)


@dataclass(frozen=True, slots=True)
class PlayerLine:
    player: PlayerRef
    main_board: int | None
    category: str
    games: tuple[PlayerGame, ...]
    half_points: int
    games_counted: int
    performance: Performance | None

    @property
    def points_text(self) -> str:
        return format_score(self.half_points) if self.games_counted else ""

    def game_in(self, match_id: int) -> PlayerGame | None:
        return next((g for g in self.games if g.match_id == match_id), None)


@dataclass(frozen=True, slots=True)
class TeamMatchLine:
    stage: StageItem
    pool_letter: str | None
    match: MatchLine
    opponent: TeamRef
    own_half: int
    other_half: int
    round_label: str = ""  # "3" in a pool; the play-off round's name ("Final, match 1"), or "Armageddon"
    in_duel: bool = False

    @property
    def score_text(self) -> str:
        if not self.match.started:
            return "–"
        return f"{format_score(self.own_half)}–{format_score(self.other_half)}"

    @property
    def outcome(self) -> str:
        if self.own_half == self.other_half:
            return "draw"
        return "win" if self.own_half > self.other_half else "loss"


@dataclass(frozen=True, slots=True)
class TeamSwissPath:
    """The team's rounds in one Swiss stage (services/read/swiss.py, "A team's path")."""

    stage: StageItem
    steps: tuple[SwissPathStep, ...]


@dataclass(frozen=True, slots=True)
class TeamView(JsonDocument):
    event: EventRef
    team: TeamRef
    strength: int | None
    pools: tuple[tuple[StageItem, str], ...]  # (stage, pool letter)
    players: tuple[PlayerLine, ...]
    matches: tuple[TeamMatchLine, ...]
    topics: Topics
    swiss: tuple[TeamSwissPath, ...] = ()  # the team's path through each Swiss stage it plays in


@dataclass(frozen=True, slots=True)
class _PlayedMatch:
    """One of the team's matches with its round, stage and boards, as the steps below need it."""

    match: Match
    round: Round
    stage_key: str
    boards: Sequence[Board]
    line: TeamMatchLine


def team_view(uow: UnitOfWork, *, slug: str, team_id: int) -> TeamView:
    """One team: roster with each player's games and performance, and the team's matches."""
    data = EventData(uow, slug)
    team = _team_of(data, team_id)
    matches = _public_matches(data, team_id)
    played = _played_matches(data, team_id, matches)
    roster = list(uow.read.players_of_teams([team_id]))
    games = _games_by_player(data, team_id, played)
    return TeamView(
        event=data.ref,
        team=ref_team(team),
        strength=team_strength(roster),
        pools=_team_pools(data, team_id),
        players=tuple(_player_line(player, games.get(require_id(player.id), [])) for player in roster),
        matches=tuple(p.line for p in played),
        topics=_topics(slug, data, team_id, matches),
        swiss=_swiss_paths(data, team_id, played),
    )


def _swiss_paths(data: EventData, team_id: int, played: Sequence[_PlayedMatch]) -> tuple[TeamSwissPath, ...]:
    """The team's path through each Swiss stage whose (published) pool holds it."""
    out = []
    for pool in data.pools:
        stage = data.stage_by_id(pool.stage_id)
        entry = next((e for e in data.entries if e.pool_id == pool.id and e.team_id == team_id), None)
        if stage.kind != StageKind.SWISS.value or entry is None:
            continue
        rounds = round_views(
            [r for r in data.rounds if r.stage_id == stage.id],
            [p.line.match for p in played if p.match.pool_id == pool.id],
        )
        extra = data.uow.rounds.round_teams_of_stage(require_id(stage.id))
        steps = team_steps(entry, rounds, extra, data.scoring)
        out.append(TeamSwissPath(data.items[require_id(stage.id)], steps))
    return tuple(out)


def _team_of(data: EventData, team_id: int) -> Team:
    team = data.uow.teams.get(Team, team_id)
    if team is None or team.event_id != data.row.id:
        raise NotFound(_("There is no team %(id)s in this event.") % {"id": team_id})
    return team


def _public_matches(data: EventData, team_id: int) -> list[Match]:
    """The team's matches spectators may see: in a round of this event, and in a published pool if any."""
    public_pool_ids = {p.id for p in data.pools if is_public(p)}
    round_ids = {r.id for r in data.rounds}
    return [
        m
        for m in data.uow.read.matches_of_team(team_id)
        if m.round_id in round_ids and (m.pool_id is None or m.pool_id in public_pool_ids)
    ]


def _played_matches(data: EventData, team_id: int, matches: Sequence[Match]) -> list[_PlayedMatch]:
    """The matches in playing order (stage, then round), each with the team's line."""
    teams = teams_by_id(data.uow, data.id)
    boards = boards_of(data.uow, matches)
    pool_letters = {p.id: p.letter for p in data.pools}
    round_by_id = {r.id: r for r in data.rounds}

    # An Armageddon round's number is 1000 + the duel's id: it is played right after its duel's match 2.
    match_2_round = {m.duel_id: round_by_id[m.round_id].number for m in matches if m.duel_id and m.leg == 2}

    def order(match: Match) -> tuple[int, int, int]:
        rnd = round_by_id[match.round_id]
        number = (
            match_2_round.get(match.duel_id or 0, rnd.number) if match.leg == ARMAGEDDON_LEG else rnd.number
        )
        return data.stage_by_id(rnd.stage_id).position, number, match.leg or 0

    out = []
    for match in sorted(matches, key=order):
        rnd = round_by_id[match.round_id]
        stage = data.stage_by_id(rnd.stage_id)
        own_boards = boards[require_id(match.id)]
        line = match_line(match, rnd.number, teams, own_boards, data.boards, data.annulled)
        pool_letter = pool_letters.get(match.pool_id) if match.pool_id else None
        team_line = replace(
            _team_match_line(
                data.items[require_id(stage.id)], pool_letter, line, match.first_team_id == team_id
            ),
            round_label=_round_label(match, rnd),
            in_duel=match.duel_id is not None,
        )
        out.append(_PlayedMatch(match, rnd, stage.key, own_boards, team_line))
    return out


def _round_label(match: Match, rnd: Round) -> str:
    if match.duel_id is None:
        return str(rnd.number)
    if match.leg == ARMAGEDDON_LEG:
        return "Armageddon"
    return rnd.name or f"Match {match.leg}"


def _team_match_line(
    stage: StageItem, pool_letter: str | None, line: MatchLine, is_first: bool
) -> TeamMatchLine:
    return TeamMatchLine(
        stage,
        pool_letter,
        line,
        line.second if is_first else line.first,
        line.first_half if is_first else line.second_half,
        line.second_half if is_first else line.first_half,
    )


def _games_by_player(
    data: EventData, team_id: int, played: Sequence[_PlayedMatch]
) -> dict[int, list[PlayerGame]]:
    """Each of the team's players' games, by player id, in playing order."""
    all_boards = [b for p in played for b in p.boards]
    players = data.uow.teams.players_by_id(
        [b.white_player_id for b in all_boards] + [b.black_player_id for b in all_boards]
    )
    games: dict[int, list[PlayerGame]] = defaultdict(list)
    for entry in played:
        for board in entry.boards:
            for player_id, game in _board_games(data, entry, board, players):
                if players[player_id].team_id == team_id:
                    games[player_id].append(game)
    return games


def _board_games(
    data: EventData, entry: _PlayedMatch, board: Board, players: Mapping[int, Player]
) -> list[tuple[int, PlayerGame]]:
    """The game of each side of one board whose player is known, by that player's id."""
    result = effective_result(board, data.annulled)
    out = []
    for player_id, colour, opp_id in (
        (board.white_player_id, "white", board.black_player_id),
        (board.black_player_id, "black", board.white_player_id),
    ):
        if player_id is None or player_id not in players:
            continue
        half = result.white_half if colour == "white" else result.black_half
        opponent = players.get(opp_id) if opp_id is not None else None
        game = PlayerGame(
            stage_key=entry.stage_key,
            round_number=entry.round.number,
            match_id=require_id(entry.match.id),
            board=board.board_no,
            colour=colour,
            opponent=ref_player(opponent) if opponent else None,
            opponent_team=entry.line.opponent,
            half_points=half if result.is_final else None,
            played=result.is_played and opponent is not None,
            forfeit=result.is_forfeit,
        )
        out.append((player_id, game))
    return out


def _player_line(player: Player, games: Sequence[PlayerGame]) -> PlayerLine:
    final = [g for g in games if g.half_points is not None]
    # C.07 10.1-10.2: only games played over the board count for the performance rating.
    otb = [PlayedGame(g.opponent.rating, g.half_points) for g in final if g.played and g.opponent
           and g.half_points is not None]  # fmt: skip
    return PlayerLine(
        player=ref_player(player),
        main_board=player.main_board,
        category=player.category,
        games=tuple(games),
        half_points=sum(g.half_points or 0 for g in final),
        games_counted=len(final),
        performance=performance(otb),
    )


def _in_pool(data: EventData, pool_id: int | None, team_id: int) -> bool:
    return any(e.pool_id == pool_id and e.team_id == team_id for e in data.entries)


def _team_pools(data: EventData, team_id: int) -> tuple[tuple[StageItem, str], ...]:
    return tuple(
        (data.items[require_id(p.stage_id)], p.letter)
        for p in data.pools
        if is_public(p) and _in_pool(data, p.id, team_id)
    )


def _topics(slug: str, data: EventData, team_id: int, matches: Sequence[Match]) -> tuple[str, ...]:
    return (
        f"event:{slug}",
        *(f"pool:{p.id}" for p in data.pools if _in_pool(data, p.id, team_id)),
        *(f"match:{m.id}" for m in matches),
    )
