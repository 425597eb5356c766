"""Lineups: which eligible roster player plays each board of a match (docs/rules.md §1).

A captain submits a lineup for each match of their team (pool matches and duel matches) until the
round's lineup deadline (``round.lineup_deadline_at``, or the round's start without one) and while the
round's games are not created yet. Without a lineup the main players play their boards. At the deadline
``apply_lineups`` writes the players onto the boards; a board a team cannot fill is a forfeit loss for that
team on that board. Lineups stay private to their team and staff until they are applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from orchestrator.adapters.repo_teams import domain_player
from orchestrator.adapters.tables import (
    Board,
    Event,
    Lineup,
    Match,
    MatchStatus,
    Player,
    ResultSource,
    Round,
    RoundStatus,
    Stage,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import teams as domain_teams
from orchestrator.domain.event import EventDefinition
from orchestrator.domain.scoring import GameResult, MatchForfeit, board_colours
from orchestrator.domain.teams import Category, TeamFormat
from orchestrator.errors import Conflict, CurrentValue, NotFound, StaleEdit, ValidationFailed
from orchestrator.services import live, times
from orchestrator.services.accounts.users import AuthUser, ensure_team_access
from orchestrator.services.boards import ScoredBoard, update_boards_or_stale
from orchestrator.services.definitions import definition_or_none, event_zone
from orchestrator.translation import gettext as _

# The 2020 format (docs/rules.md §1), for events stored without a definition file.
DEFAULT_FORMAT = TeamFormat(
    board_categories=(
        Category.OPEN,
        Category.OPEN,
        Category.WOMEN,
        Category.WOMEN,
        Category.JUNIOR,
        Category.GIRL,
    ),
    cutoff_year=2000,
)
LINEUP_ACTOR = "lineup"  # boards' updated_by when apply_lineups writes a forfeit for an empty board


def definition_of(event: Event) -> EventDefinition | None:
    """The event's definition (services/definitions.py), or None when there is none or it is invalid."""
    return definition_or_none(event)


def team_format_of(event: Event) -> TeamFormat:
    definition = definition_of(event)
    return definition.team_format if definition else DEFAULT_FORMAT


def ineligibility(player: Player, category: Category, cutoff_year: int) -> str | None:
    """Why ``player`` may not play a board of ``category`` (docs/rules.md §1), or None when they may."""
    if domain_teams.is_eligible(domain_player(player), category, cutoff_year):
        return None
    female = player.sex == "f"
    if category is Category.WOMEN or (category is Category.GIRL and not female):
        return _("%(category)s boards are for female players") % {"category": category.value}
    return _("born %(year)s; %(category)s boards are for players born %(cutoff)s or later") % {
        "year": player.birth_year,
        "category": category.value,
        "cutoff": cutoff_year,
    }


def effective_deadline(rnd: Round) -> datetime | None:
    """The lineup deadline: the round's own, or its start."""
    return rnd.lineup_deadline_at or rnd.scheduled_at


def lineup_is_open(rnd: Round, now: datetime) -> bool:
    """Lineups may change until the deadline and while the round's games are not created."""
    deadline = effective_deadline(rnd)
    return rnd.status == RoundStatus.SCHEDULED.value and (deadline is None or now < deadline)


def default_lineup(players: Sequence[Player], boards: int) -> list[int | None]:
    """The main players on their boards (docs/rules.md §1); a board without a main player stays empty."""
    out: list[int | None] = [None] * boards
    for player in players:
        if player.main_board is not None and 1 <= player.main_board <= boards:
            out[player.main_board - 1] = player.id
    return out


@dataclass(frozen=True, slots=True)
class PlayerOption:
    id: int
    label: str  # "Nils Berg (2600), board 1" / "(reserve)"


@dataclass(frozen=True, slots=True)
class BoardChoice:
    board_no: int
    category: str
    colour: str  # "White" / "Black" for this team
    options: tuple[PlayerOption, ...]  # the eligible roster players
    selected: int | None


@dataclass(frozen=True, slots=True)
class LineupForm:
    match_id: int
    team_id: int
    team: str
    opponent: str
    round_name: str
    deadline: datetime | None
    open: bool
    boards: tuple[BoardChoice, ...]
    submitted_at: datetime | None  # None: no lineup yet, the default is shown
    submitted_by: str | None
    order: domain_teams.BoardOrder = field(default_factory=domain_teams.BoardOrder)  # what lineups keep


def _match_context(uow: UnitOfWork, match_id: int) -> tuple[Match, Round, Stage, Event]:
    match = uow.rounds.get(Match, match_id)
    if match is None:
        raise NotFound(_("match %(match)s does not exist") % {"match": match_id})
    rnd = uow.rounds.get_or_raise(Round, match.round_id)
    event, stage = uow.events.event_and_stage(rnd.stage_id)
    return match, rnd, stage, event


def _check_team_in_match(match: Match, team_id: int) -> None:
    if team_id not in (match.first_team_id, match.second_team_id):
        raise NotFound(
            _("team %(team)s does not play match %(match)s") % {"team": team_id, "match": match.id}
        )


def _lineup_match(uow: UnitOfWork, match_id: int, team_id: int, user: AuthUser) -> tuple[Match, Round, Event]:
    """The match a team's lineup is for, its round and event: the user's own team (or staff), a team of the
    match, and not the Armageddon game (nominated instead)."""
    ensure_team_access(user, team_id)
    match, rnd, _stage, event = _match_context(uow, match_id)
    _check_team_in_match(match, team_id)
    if match.leg == 3:
        raise NotFound(_("The Armageddon game has no lineup; nominate a player instead."))
    return match, rnd, event


def _player_label(player: Player) -> str:
    where = f"board {player.main_board}" if player.main_board else f"reserve, {player.category}"
    return f"{player.name} ({player.rating}), {where}"


def lineup_form(
    uow: UnitOfWork, *, match_id: int, team_id: int, user: AuthUser, now: datetime | None = None
) -> LineupForm:
    """The lineup form of one team for one match: eligible players per board, current choice, deadline."""
    now = now or utcnow()
    match, rnd, event = _lineup_match(uow, match_id, team_id, user)
    fmt = team_format_of(event)
    players = list(uow.teams.players_of_team(team_id))
    lineup = uow.teams.lineup_of(match_id, team_id)
    current = list(lineup.boards) if lineup else default_lineup(players, fmt.boards)
    current = (current + [None] * fmt.boards)[: fmt.boards]
    colours = board_colours(fmt.boards, first_named=match.first_team_id == team_id)
    choices = []
    for board_no, category in enumerate(fmt.board_categories, start=1):
        options = tuple(
            PlayerOption(p.id or 0, _player_label(p))
            for p in players
            if ineligibility(p, category, fmt.cutoff_year) is None
        )
        choices.append(
            BoardChoice(
                board_no=board_no,
                category=category.value,
                colour="White" if colours[board_no - 1] == "W" else "Black",
                options=options,
                selected=current[board_no - 1],
            )
        )
    teams = uow.teams.teams_by_id([match.first_team_id, match.second_team_id])
    other = match.second_team_id if match.first_team_id == team_id else match.first_team_id
    return LineupForm(
        match_id=match_id,
        team_id=team_id,
        team=teams[team_id].name,
        opponent=teams[other].name,
        round_name=rnd.name or f"Round {rnd.number}",
        deadline=effective_deadline(rnd),
        open=lineup_is_open(rnd, now),
        boards=tuple(choices),
        submitted_at=lineup.submitted_at if lineup else None,
        submitted_by=lineup.submitted_by if lineup else None,
        order=fmt.board_order,
    )


def lineup_problems(
    boards: Sequence[int | None], players: Sequence[Player], team: Team, fmt: TeamFormat
) -> list[str]:
    """Every reason a lineup cannot be accepted (all of them, board by board)."""
    problems: list[str] = []
    if len(boards) != fmt.boards:
        problems.append(
            _("A lineup has %(boards)s boards, not %(given)s.") % {"boards": fmt.boards, "given": len(boards)}
        )
        return problems
    roster = {p.id: p for p in players}
    seen: dict[int, int] = {}
    for board_no, player_id in enumerate(boards, start=1):
        if player_id is None:
            continue
        player = roster.get(player_id)
        if player is None:
            problems.append(
                _("Board %(board)s: player %(player)s is not on the roster of %(team)s.")
                % {"board": board_no, "player": player_id, "team": team.name}
            )
            continue
        category = fmt.category_of(board_no)
        why = ineligibility(player, category, fmt.cutoff_year)
        if why is not None:
            problems.append(
                _("Board %(board)s: %(player)s cannot play a %(category)s board: %(why)s.")
                % {"board": board_no, "player": player.name, "category": category.value, "why": why}
            )
        if player_id in seen:
            problems.append(
                _(
                    "Board %(board)s: %(player)s is already on board %(other)s; "
                    "a player plays at most one board per match."
                )
                % {"board": board_no, "player": player.name, "other": seen[player_id]}
            )
        else:
            seen[player_id] = board_no
    problems.extend(order_problems(boards, players, fmt))
    return problems


def order_problems(boards: Sequence[int | None], players: Sequence[Player], fmt: TeamFormat) -> list[str]:
    """Every pair of players of the lineup out of the event's board order (``TeamFormat.board_order``;
    docs/rules.md §10, "Board order"), naming both players."""
    order = fmt.board_order
    if not order.fixed and order.rating_tolerance is None:
        return []
    ranks = domain_teams.team_ranks(
        [(p.id or 0, p.main_board) for p in sorted(players, key=lambda p: p.id or 0)]
    )
    roster = {p.id or 0: p for p in players}
    seated = [
        domain_teams.Seated(roster[pid].name, ranks[pid], roster[pid].rating)
        if pid is not None and pid in roster
        else None
        for pid in boards
    ]
    problems = []
    for breach in domain_teams.board_order_breaches(order, seated):
        values = {
            "high": breach.above_board,
            "low": breach.below_board,
            "above": breach.above.name,
            "below": breach.below.name,
            "above_rank": breach.above.rank,
            "below_rank": breach.below.rank,
            "above_rating": breach.above.rating,
            "below_rating": breach.below.rating,
            "tolerance": order.rating_tolerance,
        }
        if breach.rule == "fixed":
            problems.append(
                _(
                    "Boards %(high)s and %(low)s: %(above)s (no. %(above_rank)s in the team's board order) "
                    "plays above %(below)s (no. %(below_rank)s); a lineup keeps the team's board order."
                )
                % values
            )
        else:
            problems.append(
                _(
                    "Boards %(high)s and %(low)s: %(below)s (%(below_rating)s) is rated more than "
                    "%(tolerance)s points above %(above)s (%(above_rating)s) on a higher board; a lineup "
                    "keeps rating order within %(tolerance)s points."
                )
                % values
            )
    return problems


def submit_lineup(
    uow: UnitOfWork,
    *,
    match_id: int,
    team_id: int,
    boards: Sequence[int | None],
    user: AuthUser,
    now: datetime | None = None,
) -> int:
    """Store a team's lineup for a match (replacing an earlier one); refused after the deadline."""
    now = now or utcnow()
    _match, rnd, event = _lineup_match(uow, match_id, team_id, user)
    if not lineup_is_open(rnd, now):
        deadline = effective_deadline(rnd)
        name = rnd.name or _("round %(number)s") % {"number": rnd.number}
        if deadline is None:
            raise Conflict(_("Lineups for %(round)s closed.") % {"round": name})
        raise Conflict(
            _("Lineups for %(round)s closed at %(deadline)s.")
            % {"round": name, "deadline": times.said(deadline, event_zone(event))}
        )
    team = uow.teams.get_or_raise(Team, team_id)
    fmt = team_format_of(event)
    players = list(uow.teams.players_of_team(team_id))
    problems = lineup_problems(boards, players, team, fmt)
    if problems:
        raise ValidationFailed(problems)
    lineup = uow.teams.lineup_of(match_id, team_id)
    old = list(lineup.boards) if lineup else None
    if lineup is None:
        lineup = Lineup(match_id=match_id, team_id=team_id, submitted_by=user.username, boards=list(boards))
    else:
        lineup.boards = list(boards)
        lineup.submitted_by = user.username
    lineup.submitted_at = now
    uow.teams.insert(lineup)
    # The audit entry names the match only: the lineup stays private until the deadline.
    uow.audit.change(
        lineup,
        "lineup.submit",
        actor=user.username,
        event_id=event.id,
        new={"match_id": match_id, "team_id": team_id, "replaced": old is not None},
    )
    assert lineup.id is not None
    return lineup.id


@dataclass(frozen=True, slots=True)
class MissingLineup:
    match_id: int
    team_id: int
    team: str
    opponent: str


def missing_lineups(uow: UnitOfWork, *, round_id: int) -> list[MissingLineup]:
    """Teams of a round that have not submitted a lineup (they get the default one)."""
    uow.rounds.get_or_raise(Round, round_id)
    matches = [m for m in uow.rounds.matches_of_round(round_id) if m.leg != 3]
    lineups = uow.teams.lineups_of_matches(m.id for m in matches)
    teams = uow.teams.teams_by_id(t for m in matches for t in (m.first_team_id, m.second_team_id))
    out = []
    for match in matches:
        for own, other in (
            (match.first_team_id, match.second_team_id),
            (match.second_team_id, match.first_team_id),
        ):
            if (match.id or 0, own) not in lineups:
                out.append(MissingLineup(match.id or 0, own, teams[own].name, teams[other].name))
    return out


@dataclass(frozen=True, slots=True)
class RoundDeadline:
    """A round's lineup deadline as staff see it (UTC), whether lineups can still change, and whether staff
    can still move it (until the round's games exist)."""

    round_id: int
    name: str
    starts_at: datetime | None
    deadline: datetime | None
    is_open: bool
    movable: bool

    def as_json(self) -> dict[str, object]:
        return {
            "round_id": self.round_id,
            "name": self.name,
            "starts_at": self.starts_at.isoformat() if self.starts_at else None,
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "open": self.is_open,
            "movable": self.movable,
        }


DEADLINE_ACTION = "round.lineup_deadline"


def round_deadline(uow: UnitOfWork, *, round_id: int, now: datetime | None = None) -> RoundDeadline:
    rnd = uow.rounds.get_or_raise(Round, round_id)
    return RoundDeadline(
        round_id,
        rnd.name or f"Round {rnd.number}",
        rnd.scheduled_at,
        effective_deadline(rnd),
        lineup_is_open(rnd, now or utcnow()),
        rnd.status == RoundStatus.SCHEDULED.value,
    )


def set_lineup_deadline(
    uow: UnitOfWork,
    *,
    round_id: int,
    deadline: datetime,
    expected: datetime | None,
    actor: str,
    reason: str = "",
) -> RoundDeadline:
    """Staff move a round's lineup deadline (e.g. after a game-server outage); audited with the reason.

    ``expected``: the deadline the form showed. If someone changed it since, nothing is saved and
    ``StaleEdit`` names who did. Refused once the round's games exist, or for a deadline after its start.
    """
    rnd = uow.locks.lock(Round, round_id)  # two staff editing: one after the other
    current = effective_deadline(rnd)
    event, _stage = uow.events.event_and_stage(rnd.stage_id)
    zone = event_zone(event)
    if current != expected:
        changes = [a for a in uow.audit.for_entity("round", round_id) if a.action == DEADLINE_ACTION]
        by, at = (changes[-1].actor, changes[-1].at) if changes else ("the event file", rnd.scheduled_at)
        shown = times.said(current, zone) if current else _("none")
        value = CurrentValue("round", round_id, "lineup deadline", shown, 0, by, at or utcnow())
        raise StaleEdit([value])
    name = rnd.name or _("round %(number)s") % {"number": rnd.number}
    if rnd.status != RoundStatus.SCHEDULED.value:
        raise Conflict(
            _("The games of %(round)s exist already: its lineups are closed for good.") % {"round": name}
        )
    if rnd.scheduled_at is not None and deadline > rnd.scheduled_at:
        start = times.said(rnd.scheduled_at, zone)
        raise ValidationFailed(
            [
                _("The deadline must be at or before the start of %(round)s (%(start)s).")
                % {"round": name, "start": start}
            ]
        )
    rnd.lineup_deadline_at = deadline
    uow.rounds.add(rnd)
    uow.audit.change(
        rnd,
        DEADLINE_ACTION,
        actor=actor,
        event_id=event.id,
        old={"deadline": current.isoformat() if current else None},
        new={"deadline": deadline.isoformat()},
        reason=reason or None,
    )
    return round_deadline(uow, round_id=round_id)


def _forfeit_code(white: int | None, black: int | None) -> GameResult:
    if white is None and black is None:
        return GameResult.DOUBLE_FORFEIT
    if white is None:
        return GameResult.BLACK_WINS_FORFEIT
    if black is None:
        return GameResult.WHITE_WINS_FORFEIT
    return GameResult.PENDING


def lineup_of_team(uow: UnitOfWork, match: Match, team_id: int, fmt: TeamFormat) -> list[int | None]:
    """The lineup that plays: the submitted one, else the main players."""
    lineup = uow.teams.lineup_of(match.id or 0, team_id)
    if lineup is not None:
        return (list(lineup.boards) + [None] * fmt.boards)[: fmt.boards]
    return default_lineup(list(uow.teams.players_of_team(team_id)), fmt.boards)


class LineupBoard(ScoredBoard, Protocol):
    """What ``apply_lineups`` reads of a board: an ORM ``Board`` or a plain ``RoundBoard`` row."""

    @property
    def id(self) -> int | None: ...
    @property
    def board_no(self) -> int: ...
    @property
    def game_id(self) -> str | None: ...
    @property
    def result_source(self) -> str | None: ...
    @property
    def version(self) -> int: ...
    @property
    def updated_by(self) -> str: ...


def apply_lineups(
    uow: UnitOfWork,
    *,
    round_id: int,
    actor: str,
    round_boards: Mapping[int, Sequence[LineupBoard]] | None = None,
) -> int:
    """Write each match's lineups onto its boards before the games are created; returns boards changed.

    An empty board is a forfeit loss for the team that left it empty (both empty: ``-/-``). Boards whose
    game already exists on the game server, matches forfeited whole and the Armageddon game are left alone.
    ``round_boards``: the round's boards by match id, when the caller has just read them (else one query).
    """
    rnd = uow.rounds.get_or_raise(Round, round_id)
    event, _stage = uow.events.event_and_stage(rnd.stage_id)
    fmt = team_format_of(event)
    matches = [m for m in uow.rounds.matches_of_round(round_id) if m.leg != 3]
    playing = [m for m in matches if m.forfeit == MatchForfeit.NONE.value]
    boards_by_match = (
        round_boards if round_boards is not None else uow.boards.boards_of_matches(m.id for m in playing)
    )
    # One query each for every match's lineups and every team's roster (not two per team).
    lineups = uow.teams.lineups_of_matches(m.id for m in playing)
    main = uow.teams.main_boards_by_team(t for m in playing for t in (m.first_team_id, m.second_team_id))

    def playing_lineup(match: Match, team_id: int) -> list[int | None]:
        lineup = lineups.get((match.id or 0, team_id))
        if lineup is not None:
            return (list(lineup.boards) + [None] * fmt.boards)[: fmt.boards]
        boards = main.get(team_id, {})
        return [boards.get(board_no) for board_no in range(1, fmt.boards + 1)]  # default_lineup's rule

    changes: list[dict[str, object]] = []  # written in one compare-and-set statement below
    now = utcnow()
    for match in playing:
        first = playing_lineup(match, match.first_team_id)
        second = playing_lineup(match, match.second_team_id)
        colours = board_colours(fmt.boards, first_named=True)
        boards = {b.board_no: b for b in boards_by_match.get(match.id or 0, [])}
        for board_no in range(1, fmt.boards + 1):
            a, b = first[board_no - 1], second[board_no - 1]
            white, black = (a, b) if colours[board_no - 1] == "W" else (b, a)
            board = boards.get(board_no)
            if board is None:
                board = uow.boards.insert(
                    Board(match_id=match.id or 0, board_no=board_no)
                )  # flushed: has its id
            if (change := _board_change(board, white, black, now)) is not None:
                changes.append(change)
        if all(
            _forfeit_code(*((a, b) if c == "W" else (b, a))).is_final
            for a, b, c in zip(first, second, colours, strict=True)
        ):
            match.status = MatchStatus.FINISHED.value
            match.finished_at = match.finished_at or utcnow()
            uow.rounds.add(match)
        live.announce(uow, f"match:{match.id}", match_id=match.id)
    update_boards_or_stale(uow, changes)
    if changes:  # every scheduler pass calls this: a pass that changed nothing leaves no audit entry
        uow.audit.change(
            rnd, "lineup.apply", actor=actor, event_id=event.id, new={"boards_changed": len(changes)}
        )
    return len(changes)


def _board_change(
    board: LineupBoard, white: int | None, black: int | None, now: datetime
) -> dict[str, object] | None:
    """The compare-and-set values that put these players on the board (an empty side forfeits), or None
    when the board already holds them or its game exists."""
    if board.game_id is not None:
        return None  # too late: the game exists
    result, source = board.result, board.result_source
    forfeit = _forfeit_code(white, black)
    current = GameResult(board.result)
    ours = current is GameResult.PENDING or (current.is_forfeit and board.updated_by == LINEUP_ACTOR)
    if ours and forfeit is not current:
        result = forfeit.value
        source = ResultSource.ARBITER.value if forfeit.is_final else None
    if (board.white_player_id, board.black_player_id, result) == (white, black, board.result):
        return None
    return {
        "b_id": board.id or 0,
        "b_version": board.version,
        "white_player_id": white,
        "black_player_id": black,
        "result": result,
        "result_source": source,
        "updated_by": LINEUP_ACTOR,
        "updated_at": now,
    }
