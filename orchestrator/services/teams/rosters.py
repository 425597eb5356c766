"""Importing teams and rosters from a CSV file (docs/rules.md §1, §9): all of it or nothing, every bad line
listed.

Columns (a header row names them; order free, case and spaces ignored):

    team, federation, seed, name, account, sex, birth_year, rating, role

and, optionally, the FIDE data of a rated event (docs/ratings.md): ``fide_id``, ``title`` (GM, IM, WGM, FM,
WIM, CM, WFM, WCM), ``fide_federation`` (the player's federation when it is not the team's) and ``k`` (the
development coefficient of the FIDE list: 10, 20 or 40). A FIDE id is given to one player of the event.
An event with sections (docs/sections.md) needs a ``section`` column naming each team's section: a
federation has at most one team per section, and a female-only section (the Women) admits female players
only, each other player refused with their line.
``role`` is a main board number (``1`` .. boards of the team format) or ``reserve:<category>``
(``reserve:women``). A team listed in the file gets exactly the roster the file gives (its players are
replaced); teams not in the file are left as they are. A team that already plays in a started or published
stage cannot be changed here. Eligibility is the domain's rule (``teams.is_eligible``) with the event's
cut-off year; reserves are limited per category by the event's team format.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from orchestrator.adapters.tables import Event, Player, StageStatus, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import Section
from orchestrator.domain.teams import (
    NOT_ORGANISER,
    TOO_MANY,
    Category,
    RosterEntry,
    TeamFormat,
    extra_team_refusal,
)
from orchestrator.errors import ValidationFailed
from orchestrator.services import live
from orchestrator.services.definitions import definition_of
from orchestrator.services.setup.event_setup import insert_team
from orchestrator.services.teams.roster_lines import (
    COLUMNS,
    MAX_CSV_BYTES,
    Report,
    RosterLine,
    TeamRows,
    group_rows,
    line_text,
    read_header,
    records,
)
from orchestrator.translation import gettext as _

__all__ = ["COLUMNS", "ImportReport", "import_rosters"]  # COLUMNS: the file's columns, read in roster_lines


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did (it either did all of it or raised ValidationFailed listing every bad line)."""

    teams_created: tuple[str, ...]
    teams_replaced: tuple[str, ...]
    players: int
    lines: int


def import_rosters(uow: UnitOfWork, *, event_id: int, csv_text: str, actor: str) -> ImportReport:
    """Create or replace the teams and rosters a CSV lists; refuse the whole file listing every bad line."""
    event = uow.events.get_or_raise(Event, event_id)
    definition = definition_of(event)
    team_format = definition.team_format
    sections = {section.key: section for section in definition.sections}
    if len(csv_text.encode("utf-8", "replace")) > MAX_CSV_BYTES:
        raise ValidationFailed([_("the file is larger than %(mb)s MB") % {"mb": MAX_CSV_BYTES // 1_000_000}])
    problems: list[tuple[int, str]] = []  # (line, message): sorted by line, then written for the reader

    def bad(line: int, message: str) -> None:
        problems.append((line, message))

    reader = records(csv_text)
    columns = read_header(reader, sections)
    teams, lines = group_rows(reader, columns, team_format, sections, bad)
    if lines == 0 and not problems:
        problems.append((0, _("the file has a header but no players")))

    stored = {t.name: t for t in uow.teams.teams_of_event(event_id)}
    kept = {name: t for name, t in stored.items() if name not in teams}
    _check_teams(teams, kept, team_format, sections, bad, organiser=definition.organiser)
    _check_accounts(uow, event_id, teams, kept, bad)
    _check_started(uow, event_id, teams, stored, bad)
    if problems:
        raise ValidationFailed([line_text(line, message) for line, message in sorted(problems)])

    created, replaced = _store_teams(uow, event_id, teams, stored)
    players = _store_players(uow, event_id, teams)
    uow.audit.change(
        event,
        "rosters.import",
        actor=actor,
        event_id=event_id,
        new={"created": created, "replaced": replaced, "players": players, "lines": lines},
    )
    live.announce(uow, f"event:{event.slug}", kind="teams")
    return ImportReport(tuple(created), tuple(replaced), players, lines)


def _store_teams(
    uow: UnitOfWork, event_id: int, teams: dict[str, TeamRows], stored: dict[str, Team]
) -> tuple[list[str], list[str]]:
    """Create the file's new teams and empty the stored ones it lists; the names created and replaced."""
    created: list[str] = []
    replaced: list[str] = []
    # Seeds may move between teams of the file: free the seeds of the stored teams that change first.
    for team in teams.values():
        stored_team = stored.get(team.name)
        if stored_team is not None:
            uow.teams.delete_players_of_team(stored_team.id or 0)
            replaced.append(team.name)
            if stored_team.seed != team.seed:
                stored_team.seed = -(stored_team.id or 0)
                uow.teams.add(stored_team)
    uow.flush()
    for team in teams.values():
        if team.name not in stored:
            insert_team(uow, event_id, team)
            created.append(team.name)
    return created, replaced


def _store_players(uow: UnitOfWork, event_id: int, teams: dict[str, TeamRows]) -> int:
    """Give each of the file's teams its federation, seed and players; how many players were stored."""
    players = 0
    for team in teams.values():
        team_row = uow.teams.team_by_name(event_id, team.name)
        assert team_row is not None and team_row.id is not None
        team_row.federation, team_row.seed, team_row.section = team.federation, team.seed, team.section
        uow.teams.add(team_row)
        for row in team.rows:
            entry = RosterEntry(row.player, row.main_board, row.category)
            uow.teams.add(Player.of(event_id, team_row.id, entry))
            players += 1
    uow.flush()
    return players


def _check_teams(
    teams: dict[str, TeamRows],
    kept: dict[str, Team],
    team_format: TeamFormat,
    sections: Mapping[str, Section],
    bad: Report,
    *,
    organiser: str | None = None,
) -> None:
    report = bad
    seeds: dict[int, str] = {t.seed: t.name for t in kept.values()}
    # A federation enters one team per section (one team in an event without sections), but the organiser
    # its B team, and its C team in an odd field (Olympiad Pairing Rules 2.1-2.2; docs/event-file.md).
    federations: dict[tuple[str, str], list[str]] = defaultdict(list)
    for kept_team in kept.values():
        federations[kept_team.section, kept_team.federation].append(kept_team.name)
    field_sizes = Counter([t.section for t in kept.values()] + [t.section for t in teams.values()])
    allowed = dict(team_format.reserves)
    for team in teams.values():
        if team.seed in seeds:
            report(
                team.first_line,
                _("duplicate seed %(seed)s: team %(team)s already has it")
                % {"seed": team.seed, "team": seeds[team.seed]},
            )
        seeds.setdefault(team.seed, team.name)
        key = (team.section, team.federation)
        entered = federations[key]
        refusal = extra_team_refusal(
            number=len(entered) + 1,
            federation=team.federation,
            organiser=organiser,
            field_size=field_sizes[team.section],
        )
        if refusal is not None:
            why = _refusal_text(refusal, field_sizes[team.section])
            if team.section in sections:
                message = _(
                    "federation %(federation)s already has a team in the %(section)s section (%(team)s): "
                    "%(why)s"
                )
            else:
                message = _("federation %(federation)s already has a team (%(team)s): %(why)s")
            section_name = sections[team.section].name if team.section in sections else ""
            values = {"federation": team.federation, "section": section_name, "team": ", ".join(entered)}
            report(team.first_line, message % {**values, "why": why})
        entered.append(team.name)
        mains: dict[int, list[RosterLine]] = defaultdict(list)
        reserves: dict[Category, list[RosterLine]] = defaultdict(list)
        for row in team.rows:
            if row.main_board is not None:
                mains[row.main_board].append(row)
            else:
                reserves[row.category].append(row)
        for board in range(1, team_format.boards + 1):
            if not mains.get(board):
                category = team_format.category_of(board).value
                report(
                    team.first_line,
                    _(
                        "team %(team)s: missing main board %(board)s (%(category)s): "
                        "no player has role %(board)s"
                    )
                    % {"team": team.name, "board": board, "category": category},
                )
            for extra in mains.get(board, [])[1:]:
                report(
                    extra.line,
                    _("team %(team)s: board %(board)s already has a main player (line %(line)s)")
                    % {"team": team.name, "board": board, "line": mains[board][0].line},
                )
        for reserve_category, rows in reserves.items():
            limit = allowed.get(reserve_category, 0)
            for extra in rows[limit:]:
                report(
                    extra.line,
                    _("team %(team)s: too many %(category)s reserves (at most %(limit)s)")
                    % {"team": team.name, "category": reserve_category.value, "limit": limit},
                )


def _refusal_text(refusal: str, field_size: int) -> str:
    """Why a federation's extra team may not enter (``domain.teams.extra_team_refusal``), in words."""
    if refusal == NOT_ORGANISER:
        return _("only the organising federation may enter a second team (Olympiad Pairing Rules 2.1)")
    if refusal == TOO_MANY:
        return _("the organising federation enters at most 3 teams (A, B, C; Olympiad Pairing Rules 2.1–2.2)")
    return _(
        "a C team is entered only to make an odd field even, and with it the field has %(teams)s teams "
        "(Olympiad Pairing Rules 2.2)"
    ) % {"teams": field_size}


def _check_accounts(
    uow: UnitOfWork, event_id: int, teams: dict[str, TeamRows], kept: dict[str, Team], bad: Report
) -> None:
    kept_ids = {t.id: t.name for t in kept.values()}
    kept_players = [p for p in uow.teams.players_of_event(event_id) if p.team_id in kept_ids]
    taken = {p.account.lower(): kept_ids[p.team_id] for p in kept_players}
    for team in teams.values():
        for row in team.rows:
            if row.account in taken:
                bad(
                    row.line,
                    _("duplicate account %(account)r: already plays for %(team)s")
                    % {"account": row.account, "team": taken[row.account]},
                )
    _check_fide_ids(teams, kept_players, kept_ids, bad)


def _check_fide_ids(
    teams: dict[str, TeamRows], kept_players: list[Player], kept_ids: dict[int | None, str], bad: Report
) -> None:
    """A FIDE id belongs to one player of the event: in the file and among the teams the file keeps."""
    owner = {
        p.fide_id: _("%(player)s of %(team)s") % {"player": p.name, "team": kept_ids[p.team_id]}
        for p in kept_players
        if p.fide_id is not None
    }
    for team in teams.values():
        for row in team.rows:
            fide_id = row.player.fide_id
            if fide_id is None:
                continue
            if fide_id in owner:
                bad(
                    row.line,
                    _("FIDE id %(id)s is already given to %(owner)s")
                    % {"id": fide_id, "owner": owner[fide_id]},
                )
            else:
                owner[fide_id] = _("%(player)s (line %(line)s)") % {
                    "player": row.player.name,
                    "line": row.line,
                }


def _check_started(
    uow: UnitOfWork, event_id: int, teams: dict[str, TeamRows], stored: dict[str, Team], bad: Report
) -> None:
    for stage in uow.events.stages_of_event(event_id):
        if stage.status == StageStatus.DRAFT.value:
            continue
        for pool in uow.rounds.pools_of_stage(stage.id or 0):
            for entry in uow.rounds.entries_of_pool(pool.id or 0):
                for team in teams.values():
                    row = stored.get(team.name)
                    if row is not None and row.id == entry.team_id:
                        bad(
                            team.first_line,
                            _(
                                "team %(team)s already plays in %(stage)s (%(status)s): "
                                "its roster cannot be replaced by an import"
                            )
                            % {"team": team.name, "stage": stage.name, "status": stage.status},
                        )
