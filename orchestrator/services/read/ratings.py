"""Rating changes of a rated event (docs/ratings.md, FIDE B.02 8.3): the event's table, each player's
page with every round's opponent, expected score and change, and the CSV export.

The rating period is the event: every game of every stage (Armageddon games left out). The K of a player
is the one given with the player (the FIDE list's); without it K follows B.02 8.3.3 from the rating and
the birth year, taking the player as having completed 30 rated games. Ratings of 0 are read as unrated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

from orchestrator.adapters.csv_files import write_csv
from orchestrator.adapters.tables import Player
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.performance import Performance, performance
from orchestrator.domain.ratings import (
    Game,
    GameChange,
    RatedPlayer,
    RatingChange,
    RatingError,
    rating_change,
)
from orchestrator.errors import Conflict, NotFound
from orchestrator.services.read.context import EventData, EventRef, TeamRef, ref_team, require_id
from orchestrator.services.read.individual import EventGames, IndividualGame, event_games
from orchestrator.services.row_views import row_view
from orchestrator.translation import gettext as _


def _rating(value: int) -> int | None:
    return value if value > 0 else None


@dataclass(frozen=True, slots=True)
class RoundLine:
    stage_name: str
    round_number: int
    match_id: int
    board: int
    colour: str
    opponent_id: int | None
    opponent_name: str | None
    opponent_rating: int | None
    result: str  # "1", "½", "0", "+", "−", "…"
    rated: bool
    note: str  # why the game is not rated ("forfeit", "unrated opponent", "not finished"), else ""
    expected: Fraction | None
    change: Fraction | None  # K × (score − PD), unrounded


@dataclass(frozen=True, slots=True)
class PlayerRating:
    player_id: int
    name: str
    title: str | None
    federation: str
    team: TeamRef
    board: int | None
    rating: int | None
    k: int | None
    rounds: tuple[RoundLine, ...]
    result: RatingChange | None  # None: unrated, or K could not be worked out

    @property
    def change(self) -> int | None:
        return self.result.change if self.result else None

    @property
    def rated_games(self) -> int:
        return len(self.result.games) if self.result else 0


@dataclass(frozen=True, slots=True)
class RatingsView:
    event: EventRef
    rated: bool
    year: int
    players: tuple[PlayerRating, ...]
    topics: tuple[str, ...]

    def as_json(self) -> bytes:
        body = {
            "event": {"slug": self.event.slug, "name": self.event.name},
            "rated": self.rated,
            "year": self.year,
            "players": [player_json(p, with_rounds=False) for p in self.players],
        }
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()

    def as_csv(self) -> str:
        rows: list[list[object]] = [
            ["player", "title", "federation", "team", "fide_rating", "k", "rated_games", "score",
             "expected", "rating_change", "new_rating"],
        ]  # fmt: skip
        for p in self.players:
            r = p.result
            rows.append(
                [p.name, p.title or "", p.federation, p.team.name, p.rating or "", p.k or "", p.rated_games,
                 _exact(r.score) if r else "", _exact(r.expected) if r else "",
                 f"{r.change:+d}" if r else "", r.new_rating if r else ""]
            )  # fmt: skip
        return write_csv(rows)


def _exact(value: Fraction) -> str:
    return f"{float(value):.2f}"


def player_json(p: PlayerRating, *, with_rounds: bool = True) -> dict[str, object]:
    r = p.result
    out: dict[str, object] = {
        "player_id": p.player_id,
        "name": p.name,
        "title": p.title,
        "federation": p.federation,
        "team": {"id": p.team.id, "name": p.team.name},
        "board": p.board,
        "rating": p.rating,
        "k": p.k,
        "rated_games": p.rated_games,
        "score": str(r.score) if r else None,
        "expected": str(r.expected) if r else None,
        "delta": str(r.delta) if r else None,
        "change": r.change if r else None,
        "new_rating": r.new_rating if r else None,
    }
    if with_rounds:
        out["rounds"] = [
            {
                "stage": line.stage_name,
                "round": line.round_number,
                "match_id": line.match_id,
                "board": line.board,
                "colour": line.colour,
                "opponent": _opponent_json(line),
                "result": line.result,
                "rated": line.rated,
                "note": line.note,
                "expected": str(line.expected) if line.expected is not None else None,
                "change": str(line.change) if line.change is not None else None,
            }
            for line in p.rounds
        ]
    return out


def _opponent_json(line: RoundLine) -> dict[str, object] | None:
    if line.opponent_id is None:
        return None
    return {"id": line.opponent_id, "name": line.opponent_name, "rating": line.opponent_rating}


def rating_year(data: EventData) -> int:
    """The year the rating period ends in: the event's last scheduled round, else this year."""
    times = [item.last_round_at for item in data.items.values() if item.last_round_at is not None]
    return max(times).year if times else utcnow().year


def is_rated(data: EventData) -> bool:
    return bool(data.definition and data.definition.rated)


def require_rated(data: EventData) -> None:
    if not is_rated(data):
        raise NotFound(
            _("%(event)s is not a rated event: it has no rating changes.")
            % {
                "event": data.ref.name,
            }
        )


def player_rating(games: EventGames, player: Player, year: int) -> PlayerRating:
    own = games.games.get(require_id(player.id), ())
    finals = [(i, g) for i, g in enumerate(own) if g.half_points is not None]
    rated_player = RatedPlayer(
        rating=_rating(player.rating),
        reached_2400=player.rating >= 2400,
        birth_year=player.birth_year,
        k=player.k_factor,
    )
    try:
        result = rating_change(
            rated_player,
            [Game(i, _opponent_rating(games, g), g.half_points or 0, g.played) for i, g in finals],
            year=year,
        )
    except RatingError as error:
        raise Conflict(
            _("The rating change of %(player)s cannot be computed: %(problem)s.")
            % {"player": player.name, "problem": error}
        ) from None
    by_index = {change.round: change for change in result.games} if result else {}
    rounds = tuple(_round_line(games, g, by_index.get(i), rated_player.rating) for i, g in enumerate(own))
    team = games.teams[player.team_id]
    return PlayerRating(
        player_id=require_id(player.id),
        name=player.name,
        title=player.title,
        federation=player.federation or team.federation,
        team=ref_team(team),
        board=player.main_board,
        rating=rated_player.rating,
        k=result.k if result else None,
        rounds=rounds,
        result=result,
    )


def _opponent_rating(games: EventGames, game: IndividualGame) -> int | None:
    opponent = games.players.get(game.opponent_id) if game.opponent_id is not None else None
    return _rating(opponent.rating) if opponent is not None else None


def _round_line(
    games: EventGames, game: IndividualGame, change: GameChange | None, own_rating: int | None
) -> RoundLine:
    opponent = games.players.get(game.opponent_id) if game.opponent_id is not None else None
    opponent_rating = _rating(opponent.rating) if opponent else None
    if game.half_points is None:
        note = "not finished"
    elif not game.played:
        note = "forfeit" if game.forfeit else "not played"
    elif own_rating is None:
        note = "unrated player"
    elif opponent_rating is None:
        note = "unrated opponent"
    else:
        note = ""
    return row_view(  # the game's stage_name, round_number, match_id, board, colour and opponent_id
        RoundLine,
        game,
        opponent_name=opponent.name if opponent else None,
        opponent_rating=opponent_rating,
        result=game.text,
        rated=change is not None,
        note=note,
        expected=change.expected if change else None,
        change=change.change if change else None,
    )


def ratings_view(uow: UnitOfWork, *, slug: str) -> RatingsView:
    """The event's table of rating changes (rated events only), players ordered by team seed and board."""
    data = EventData(uow, slug)
    require_rated(data)
    games = event_games(data, data.stages)
    year = rating_year(data)
    played = [p for pid, p in games.players.items() if pid in games.games]
    played.sort(key=lambda p: (games.teams[p.team_id].seed, games.board_of(p), p.name))
    return RatingsView(
        event=data.ref,
        rated=True,
        year=year,
        players=tuple(player_rating(games, p, year) for p in played),
        topics=games.topics,
    )


@dataclass(frozen=True, slots=True)
class PlayerView:
    event: EventRef
    rated: bool
    year: int
    player: PlayerRating
    topics: tuple[str, ...]
    performance: Performance | None = None  # over the games played over the board (C.07 10.2)

    def as_json(self) -> bytes:
        body = {
            "event": {"slug": self.event.slug, "name": self.event.name},
            "rated": self.rated,
            "year": self.year,
            "player": player_json(self.player),
            "performance": _performance_json(self.performance),
        }
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def player_view(uow: UnitOfWork, *, slug: str, player_id: int) -> PlayerView:
    """One player's games round by round; in a rated event with expected scores and rating changes."""
    data = EventData(uow, slug)
    games = event_games(data, data.stages)
    player = games.players.get(player_id)
    if player is None:
        raise NotFound(_("There is no player %(id)s in this event.") % {"id": player_id})
    year = rating_year(data)
    rated = is_rated(data)
    line = player_rating(games, player, year)
    if not rated:
        line = PlayerRating(
            line.player_id, line.name, line.title, line.federation, line.team, line.board, line.rating,
            None, tuple(_unrated_line(r) for r in line.rounds), None,
        )  # fmt: skip
    return PlayerView(
        event=data.ref,
        rated=rated,
        year=year,
        player=line,
        topics=games.topics,
        performance=performance(games.played_games(player_id)),
    )


def _performance_json(perf: Performance | None) -> dict[str, int] | None:
    if perf is None:
        return None
    return {
        "games": perf.games,
        "points_half": perf.half_points,
        "average_opponent": perf.average_opponent,
        "rating_difference": perf.rating_difference,
        "rating": perf.rating,
    }


def _unrated_line(line: RoundLine) -> RoundLine:
    return RoundLine(
        line.stage_name, line.round_number, line.match_id, line.board, line.colour, line.opponent_id,
        line.opponent_name, line.opponent_rating, line.result, False, "", None, None,
    )  # fmt: skip
