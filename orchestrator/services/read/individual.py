"""Every player's games of an event, or of one stage, as the individual pages need them: board prizes
(docs/board-prizes.md), rating changes (docs/ratings.md) and the player page.

Published work only (matches of published pools and of duels); Armageddon games are left out (a different
time control, docs/playoff.md): they count neither for a board prize nor for the rating. A result counts
once final; annulled players' results are read as losses (docs/rules.md §2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.adapters.tables import Board, Match, Player, Stage, StageKind, Team
from orchestrator.domain.performance import PlayedGame
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG
from orchestrator.services.read.context import EventData, is_public, require_id, teams_by_id
from orchestrator.services.read.formatting import game_text
from orchestrator.services.read.matches import boards_of
from orchestrator.services.results.standings import effective_result

INDIVIDUAL_KINDS = (StageKind.SWISS.value, StageKind.POOLS.value)  # stages with board prizes


@dataclass(frozen=True, slots=True)
class IndividualGame:
    """One side of one board: the player's colour, opponent (None: no player seated), half-points once
    final, whether it was played over the board and whether it was a forfeit."""

    stage_key: str
    stage_name: str
    round_number: int
    match_id: int
    board: int
    colour: str  # "white" | "black"
    opponent_id: int | None
    half_points: int | None
    played: bool
    forfeit: bool

    @property
    def text(self) -> str:
        return game_text(self.half_points, forfeit=self.forfeit)

    @property
    def counted(self) -> bool:
        """Final and played over the board against a seated opponent (C.07 10.1, B.02 5.1)."""
        return self.played and self.half_points is not None and self.opponent_id is not None


@dataclass(frozen=True, slots=True)
class EventGames:
    data: EventData
    stages: tuple[Stage, ...]
    players: dict[int, Player]
    teams: dict[int, Team]
    games: dict[int, tuple[IndividualGame, ...]]  # by player id, in playing order
    team_ids: frozenset[int]  # the teams entered in the stages (or that played in them)

    @property
    def topics(self) -> tuple[str, ...]:
        """Every result, annulment and closing announces the event (services/results)."""
        return (f"event:{self.data.ref.slug}", *(f"stage:{s.id}" for s in self.stages))

    def played_games(self, player_id: int) -> tuple[PlayedGame, ...]:
        """The player's final games played over the board, with the opponent's rating as listed for the
        event: what a performance rating counts (C.07 10.1-10.2)."""
        return tuple(
            PlayedGame(self.players[g.opponent_id].rating, g.half_points or 0)
            for g in self.games.get(player_id, ())
            if g.counted and g.opponent_id in self.players
        )

    def board_of(self, player: Player) -> int:
        """The player's board number of the team list; a reserve after the last main board."""
        return player.main_board if player.main_board is not None else self.data.boards + 1


def stage_matches(data: EventData, stage: Stage) -> list[Match]:
    """The stage's published matches (pools) or duel legs, Armageddon games left out."""
    stage_id = require_id(stage.id)
    if stage.kind == StageKind.KNOCKOUT.value:
        duels = [require_id(d.id) for d in data.duels if d.stage_id == stage_id]
        found = data.uow.read.matches_of_duels(duels)
        return [m for m in found if m.leg != ARMAGEDDON_LEG]
    pools = [require_id(p.id) for p in data.pools if p.stage_id == stage_id and is_public(p)]
    return list(data.uow.read.matches_of_pools(pools))


def event_games(data: EventData, stages: Sequence[Stage]) -> EventGames:
    """The games of ``stages`` (in stage order), by player, with the players and teams of the event."""
    ordered = sorted(stages, key=lambda s: s.position)
    rounds = {r.id: r for r in data.rounds}
    matches: list[tuple[Stage, Match]] = [(s, m) for s in ordered for m in stage_matches(data, s)]
    matches.sort(key=lambda x: (x[0].position, rounds[x[1].round_id].number, x[1].leg or 0, x[1].match_no))
    boards = boards_of(data.uow, [m for _, m in matches])
    teams = teams_by_id(data.uow, data.id)
    players = {require_id(p.id): p for p in data.uow.read.players_of_teams(list(teams))}
    stage_ids = {s.id for s in ordered}
    pool_ids = {p.id for p in data.pools if p.stage_id in stage_ids and is_public(p)}
    entered = {e.team_id for e in data.entries if e.pool_id in pool_ids}
    entered |= {tid for _, m in matches for tid in (m.first_team_id, m.second_team_id)}
    games: dict[int, list[IndividualGame]] = defaultdict(list)
    for stage, match in matches:
        number = rounds[match.round_id].number
        for board in sorted(boards[require_id(match.id)], key=lambda b: b.board_no):
            for player_id, game in _sides(data, stage, number, match, board):
                games[player_id].append(game)
    return EventGames(
        data=data,
        stages=tuple(ordered),
        players=players,
        teams=teams,
        games={pid: tuple(found) for pid, found in games.items()},
        team_ids=frozenset(entered),
    )


def _sides(
    data: EventData, stage: Stage, number: int, match: Match, board: Board
) -> list[tuple[int, IndividualGame]]:
    result = effective_result(board, data.annulled)
    out = []
    for player_id, colour, opponent_id in (
        (board.white_player_id, "white", board.black_player_id),
        (board.black_player_id, "black", board.white_player_id),
    ):
        if player_id is None:
            continue
        half = result.white_half if colour == "white" else result.black_half
        game = IndividualGame(
            stage_key=stage.key,
            stage_name=stage.name,
            round_number=number,
            match_id=require_id(match.id),
            board=board.board_no,
            colour=colour,
            opponent_id=opponent_id,
            half_points=half if result.is_final else None,
            played=result.is_played and opponent_id is not None,
            forfeit=result.is_forfeit,
        )
        out.append((player_id, game))
    return out


def individual_stages(data: EventData) -> list[Stage]:
    """The event's stages whose players compete for board prizes: pools and Swiss stages."""
    return [s for s in data.stages if s.kind in INDIVIDUAL_KINDS]
