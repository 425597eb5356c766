"""The rating file: TRF-2026 with the real players of a pool, a Swiss stage's pool or a duel
(``domain.trf.players``; docs/ratings.md, "The rating file"). Staff download it; it carries the players'
birth years and FIDE ids, which no public page shows.

A pool is written as its standings read it (``results.standings.pool_records``: counted matches,
annulments applied, the standings' own ranks and lots); a duel as its two legs, rounds 1 and 2 (the
Armageddon game is not rated and is left out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orchestrator.adapters.tables import Duel, Event, Player, Pool, Stage, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.scoring import GameResult, MatchRecord, match_game_points
from orchestrator.domain.tiebreaks import TieBreakError
from orchestrator.domain.trf.players import Seat, TrfPlayer, write_players_trf
from orchestrator.errors import Conflict, NotFound
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results.standings import effective_result
from orchestrator.translation import gettext as _


def trf_player(player: Player, team: Team | None = None) -> TrfPlayer:
    return TrfPlayer(
        key=str(player.id),
        name=player.name,
        sex=player.sex,
        title=player.title or "",
        rating=player.rating,
        federation=player.federation or (team.federation if team else ""),
        fide_id=player.fide_id,
        birth_year=player.birth_year,
    )


def _rosters(uow: UnitOfWork, event_id: int, team_ids: Mapping[str, int]) -> dict[str, list[TrfPlayer]]:
    """Each team's list: main players by board, then the reserves."""
    names = {tid: name for name, tid in team_ids.items()}
    teams = {t.id: t for t in uow.teams.teams_of_event(event_id)}
    out: dict[str, list[TrfPlayer]] = {name: [] for name in team_ids}
    for player in uow.read.players_of_teams(names):
        out[names[player.team_id]].append(trf_player(player, teams.get(player.team_id)))
    return out


def _local_day(moment: datetime | None, zone: tzinfo) -> date | None:
    return moment.astimezone(zone).date() if moment is not None else None


def _zone(event: Event) -> tzinfo:
    definition = definition_or_none(event)
    try:
        return ZoneInfo(definition.timezone) if definition else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _stage_round_days(uow: UnitOfWork, stage: Stage, event: Event) -> list[date | None]:
    """The day of each round of the stage (in the event's zone), round 1 first."""
    by_number = {r.number: r.scheduled_at for r in uow.read.rounds_of_stages([stage.id or 0])}
    zone = _zone(event)
    return [_local_day(by_number.get(n), zone) for n in range(1, max(by_number, default=0) + 1)]


def _seat(white: int | None, black: int | None, first_white: bool) -> Seat:
    """(first team's player, second team's) from a board's White and Black."""
    first, second = (white, black) if first_white else (black, white)
    return (str(first) if first else None, str(second) if second else None)


def _seats(
    rows: Iterable[tuple[int, str, Sequence[tuple[int, int | None, int | None]]]],
) -> dict[tuple[int, str], list[Seat]]:
    """By (round, first team): each board's seat, White on the odd boards for the first team."""
    out: dict[tuple[int, str], list[Seat]] = {}
    for number, first, boards in rows:
        out[(number, first)] = [_seat(w, b, board_no % 2 == 1) for board_no, w, b in sorted(boards)]
    return out


def pool_rating_trf(uow: UnitOfWork, *, pool_id: int) -> tuple[str, str]:
    """(file name, TRF-2026 text) of a pool or a Swiss stage's pool, with the real players."""
    if uow.rounds.get(Pool, pool_id) is None:
        raise NotFound(_("pool %(id)s does not exist") % {"id": pool_id})
    data = standings_service.pool_records(uow, pool_id=pool_id)
    table = standings_service.pool_standings(uow, pool_id=pool_id)
    in_rounds, boards = uow.rounds.matches_and_boards_of_pool(pool_id)
    names = {tid: name for name, tid in data.team_ids.items()}
    seats = _seats(
        (
            item.round_number,
            names[item.match.first_team_id],
            [(b.board_no, b.white_player_id, b.black_player_id) for b in boards.get(item.match.id or 0, [])],
        )
        for item in in_rounds
    )
    label = f"{data.event.name} – {data.stage.name}" + ("" if data.swiss else f" – Pool {data.pool.letter}")
    try:
        text = write_players_trf(
            data.teams,
            data.records,
            rosters=_rosters(uow, data.event.id or 0, data.team_ids),
            seats=seats,
            name=label,
            boards=data.boards,
            chain=data.chain,
            games=data.games,
            scoring=data.rules.scoring,
            round_robin=not data.swiss,
            bye_mp=data.bye_mp,
            standings=table,
            round_dates=_stage_round_days(uow, data.stage, data.event),
            adjustments=data.adjustments,
        )
    except TieBreakError as exc:
        raise _unwritable(exc) from None
    suffix = data.stage.key if data.swiss else f"{data.stage.key}-{data.pool.letter.lower()}"
    return f"{data.event.slug}-{suffix}-rating.trf", text


def duel_rating_trf(uow: UnitOfWork, *, duel_id: int) -> tuple[str, str]:
    """(file name, TRF-2026 text) of a duel's two legs, with the real players."""
    duel = uow.playoff.get(Duel, duel_id)
    if duel is None:
        raise NotFound(_("duel %(id)s does not exist") % {"id": duel_id})
    stage = uow.events.get_or_raise(Stage, duel.stage_id)
    event = uow.events.get_or_raise(Event, stage.event_id)
    annulled = uow.teams.annulled_player_ids(event.id or 0)
    legs = sorted(
        (m for m in uow.read.matches_of_duels([duel_id]) if m.leg != ARMAGEDDON_LEG),
        key=lambda m: m.leg or 0,
    )
    if not legs:
        raise Conflict(_("duel %(id)s has no match yet") % {"id": duel_id})
    team_rows = {t.id: t for t in uow.teams.teams_of_event(event.id or 0)}
    rounds_by_id = {r.id: r.scheduled_at for r in uow.read.rounds_of_stages([stage.id or 0])}
    first = legs[0]
    team_ids = {team_rows[tid].name: tid for tid in (first.first_team_id, first.second_team_id)}
    names = {tid: name for name, tid in team_ids.items()}
    all_boards = uow.read.boards_of_matches([m.id or 0 for m in legs])
    records: list[MatchRecord] = []
    games: dict[tuple[int, str], tuple[GameResult, ...]] = {}
    seat_rows = []
    for number, match in enumerate(legs, 1):
        own = sorted((b for b in all_boards if b.match_id == match.id), key=lambda b: b.board_no)
        results = tuple(effective_result(b, annulled) for b in own)
        if not own or not all(r.is_final for r in results):
            continue
        a, b = names[match.first_team_id], names[match.second_team_id]
        gp_a, gp_b = match_game_points(results)
        records.append(MatchRecord(number, a, b, gp_a, gp_b))
        games[(number, a)] = results
        seat_rows.append((number, a, [(x.board_no, x.white_player_id, x.black_player_id) for x in own]))
    boards = max((len([b for b in all_boards if b.match_id == m.id]) for m in legs), default=0)
    try:
        text = write_players_trf(
            tuple(team_ids),
            records,
            rosters=_rosters(uow, event.id or 0, team_ids),
            seats=_seats(seat_rows),
            name=f"{event.name} – {stage.name} – duel {duel_id}",
            boards=boards,
            chain=("MP", "GP"),
            games=games,
            round_robin=False,
            round_dates=[_local_day(rounds_by_id.get(m.round_id), _zone(event)) for m in legs],
        )
    except TieBreakError as exc:
        raise _unwritable(exc) from None
    return f"{event.slug}-{stage.key}-duel-{duel_id}-rating.trf", text


def _unwritable(exc: TieBreakError) -> Conflict:
    """A stored name the format cannot hold, or too many players (docs/input-limits.md)."""
    return Conflict(_("The rating file cannot be written as TRF-2026: %(problem)s.") % {"problem": exc})
