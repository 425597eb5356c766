"""Importing an event from TRF-2026 team files (docs/trf.md, "Importing"): ``olympiad import-trf`` and the
staff upload page call ``import_trf``, in the caller's unit of work (one transaction: all or nothing).

One file is an event with one Swiss stage; two files are one event with two sections (Open and Women),
a Swiss stage each. The files are read board by board (``domain.trf.event_read``); a file that is broken
or asks for what the server cannot hold is refused with every problem, its file and line, and nothing is
written. Otherwise the event is created as an event file would create it (``create_event``: the teams,
the players with rating, FIDE id, sex and birth year, in board order), each stage is started
(``start_stage``, the initial colour of record 152) with the file's team pairing numbers, and every round
the file has played is stored as the Swiss desk would have published it: its matches with their boards
(players, colours by record 352, results, board forfeits), whole-match forfeits (record 330), the bye
(record 320), the requested byes (record 240 ``F``, ``H``) and the teams not paired; the bonus and penalty
points of record 299 are stored as the stage's (``score_adjustment``); the standings are computed. The
rounds after the last one played are left unpaired: staff pair and play them on the Swiss desk
(docs/swiss.md).

Each round stored goes to the event's public record as the desk's rounds do (docs/record.md): its
``swiss.publish`` entry (matches, bye, requested byes, teams absent), then a ``board.import_result`` entry a
board with a result and a ``match.forfeit`` entry a forfeited match, so that ``olympiad verify-record``
recomputes the stage's closing from the record alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from orchestrator.adapters.tables import (
    Match,
    MatchStatus,
    ResultSource,
    RoundStatus,
    ScoreAdjustment,
    SwissRound,
    SwissRoundRole,
    SwissRoundTeam,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.domain.trf.event_read import TrfEvent, read_team_event
from orchestrator.domain.trf.swiss_read import TrfNotReadable
from orchestrator.errors import ValidationFailed
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.results.standings import recompute_pool
from orchestrator.services.setup.event_setup import create_event, stage_ids_by_key
from orchestrator.services.setup.stage_start import new_board_row, start_stage
from orchestrator.services.swiss.adjustments import described
from orchestrator.services.swiss.trf_definition import SECTIONS, Section, account, definition_text, slug_of
from orchestrator.translation import gettext as _

MAX_FILES = len(SECTIONS)
_SOURCE = "trf-import"  # the event file written from the files; its line numbers mean nothing to the user
_LINE = re.compile(rf"^{_SOURCE}:\d+: ")


@dataclass(frozen=True, slots=True)
class ImportedStage:
    """What one file became: its stage, teams, players, rounds played and matches stored."""

    stage_id: int
    key: str
    name: str
    source: str
    teams: int
    players: int
    rounds_played: int
    rounds: int
    matches: int


@dataclass(frozen=True, slots=True)
class TrfImport:
    event_id: int
    slug: str
    name: str
    stages: tuple[ImportedStage, ...]


def read_files(files: Sequence[tuple[str, str]]) -> list[Section]:
    """Each file read board by board; ValidationFailed with every problem of every file, by line."""
    if not 1 <= len(files) <= MAX_FILES:
        raise ValidationFailed([_("give one TRF file, or two (the Open and the Women section)")])
    problems: list[str] = []
    sections: list[Section] = []
    for (key, name), (source, text) in zip(SECTIONS, files, strict=False):
        try:
            sections.append(Section(key, name, source, read_team_event(text)))
        except TrfNotReadable as error:
            problems += [f"{source}: {problem}" for problem in error.problems]
    if not problems and len({s.event.state.boards for s in sections}) > 1:
        boards = ", ".join(f"{s.source} {s.event.state.boards}" for s in sections)
        problems.append(_("the files have different numbers of boards (%(boards)s)") % {"boards": boards})
    if problems:
        raise ValidationFailed(problems)
    return sections


def _free_slug(uow: UnitOfWork, name: str) -> str:
    base = slug_of(name)
    slug, n = base, 1
    while uow.events.get_by_slug(slug) is not None:
        n += 1
        slug = f"{base}-{n}"
    return slug


def import_trf(uow: UnitOfWork, *, files: Sequence[tuple[str, str]], actor: str) -> TrfImport:
    """Create an event from TRF-2026 team files (``(file name, text)`` each; module docstring)."""
    sections = read_files(files)
    slug = _free_slug(uow, sections[0].event.name)
    text = definition_text(sections, slug=slug)
    try:
        event_id = create_event(uow, definition_text=text, source=_SOURCE, actor=actor)
    except ValidationFailed as error:  # what the files hold that an event cannot (two teams of one name)
        raise ValidationFailed(
            [_("the event of the files: %(problem)s") % {"problem": _LINE.sub("", p)} for p in error.problems]
        ) from None
    stage_ids = stage_ids_by_key(uow, event_id=event_id)
    players = {p.account: p.id or 0 for p in uow.teams.players_of_event(event_id)}
    teams = {t.name: t.id or 0 for t in uow.teams.teams_of_event(event_id)}
    stored: list[ImportedStage] = []
    for section in sections:
        stage_id = stage_ids[section.key]
        start_stage(
            uow, stage_id=stage_id, actor=actor, initial_colour=section.event.state.initial_colour
        ).raise_refusal()
        team_ids = {team.number: teams[team.name] for team in section.event.teams}
        player_ids = {
            player.number: players[account(section.key, player.number)]
            for team in section.event.teams
            for player in team.players
        }
        pool_id = _number_teams(uow, stage_id, team_ids)
        matches = _store_rounds(uow, event_id, stage_id, pool_id, section.event, team_ids, player_ids, actor)
        _store_adjustments(uow, stage_id, section.event, team_ids, actor)
        recompute_pool(uow, pool_id=pool_id, actor=actor)
        stored.append(
            ImportedStage(
                stage_id=stage_id,
                key=section.key,
                name=section.name,
                source=section.source,
                teams=len(section.event.teams),
                players=len(player_ids),
                rounds_played=section.event.played,
                rounds=section.event.state.rounds,
                matches=matches,
            )
        )
    event = uow.events.get_by_slug(slug)
    assert event is not None
    flush_and_audit(
        uow,
        event,
        "event.import_trf",
        actor=actor,
        event_id=event_id,
        new={
            "files": [s.source for s in sections],
            "stages": {s.key: {"rounds_played": s.rounds_played, "matches": s.matches} for s in stored},
        },
    )
    return TrfImport(event_id, slug, event.name, tuple(stored))


def _number_teams(uow: UnitOfWork, stage_id: int, team_ids: Mapping[int, int]) -> int:
    """The file's team pairing numbers (records 310) replace the initial ranking's; returns the pool."""
    pool = uow.rounds.pools_of_stage(stage_id)[0]
    entries = list(uow.rounds.entries_of_pool(pool.id or 0))
    number_of = {team_id: number for number, team_id in team_ids.items()}
    for entry in entries:  # two steps, so that (pool, pairing number) stays unique while numbers move
        entry.pairing_number = -entry.pairing_number
        uow.rounds.add(entry)
    uow.flush()
    for entry in entries:
        entry.pairing_number = number_of[entry.team_id]
        uow.rounds.add(entry)
    uow.flush()
    return pool.id or 0


def _store_rounds(
    uow: UnitOfWork,
    event_id: int,
    stage_id: int,
    pool_id: int,
    event: TrfEvent,
    team_ids: Mapping[int, int],
    player_ids: Mapping[int, int],
    actor: str,
) -> int:
    """Every round the file played, as the Swiss desk publishes one and the results fill it; the teams
    the file leaves out of the round after are absent from it, or have the bye they asked for in it.
    Returns the matches stored."""
    now = utcnow()
    rounds = {rnd.number: rnd for rnd in uow.rounds.rounds_of_stage(stage_id)}
    count = 0
    for number in range(1, event.played + 1):
        rnd = rounds[number]
        in_round = [m for m in event.matches if m.round == number]
        rows = [
            Match(
                round_id=rnd.id or 0,
                pool_id=pool_id,
                match_no=table,
                first_team_id=team_ids[m.first],
                second_team_id=team_ids[m.second],
                forfeit=m.forfeit.value,
                status=MatchStatus.FINISHED.value,
                finished_at=now,
            )
            for table, m in enumerate(in_round, 1)
        ]
        uow.rounds.add_all(rows)
        uow.flush()
        boards: list[dict[str, object]] = []
        for row, match in zip(rows, in_round, strict=True):
            for board in match.boards:
                first = player_ids.get(board.first or 0)
                second = player_ids.get(board.second or 0)
                white, black = (first, second) if board.board % 2 else (second, first)
                values = new_board_row(row.id or 0, board.board, white, black, actor, now)
                values |= {"result": board.result.value, "result_source": ResultSource.IMPORT.value}
                boards.append(values)
        uow.boards.insert_boards(boards)
        bye = event.byes.get(number)
        if bye is not None:
            uow.rounds.add(
                SwissRoundTeam(
                    round_id=rnd.id or 0,
                    team_id=team_ids[bye],
                    role=SwissRoundRole.BYE.value,
                    recorded_by=actor,
                )
            )
        absent = sorted(event.absent.get(number, ()))
        _absent(uow, rnd.id or 0, [team_ids[n] for n in absent], actor)
        _requested(uow, rnd.id or 0, event.requested.get(number, {}), team_ids, actor)
        uow.rounds.add(
            SwissRound(
                round_id=rnd.id or 0,
                draft={
                    "round": number,
                    "pairings": [[r.first_team_id, r.second_team_id] for r in rows],
                    "bye": None if bye is None else team_ids[bye],
                    "not_paired": [team_ids[n] for n in absent],
                    "overrides": [],
                },
                paired_by=actor,
                paired_at=now,
                published_by=actor,
                published_at=now,
            )
        )
        rnd.status = RoundStatus.FINISHED.value
        uow.rounds.add(rnd)
        uow.flush()
        _record_round(uow, event_id, rnd.id or 0, rows, event.state.boards, now)
        count += len(rows)
    following = rounds.get(event.played + 1)
    if following is not None:
        _absent(
            uow,
            following.id or 0,
            [team_ids[n] for n in sorted(event.absent.get(event.played + 1, ()))],
            actor,
        )
        _requested(uow, following.id or 0, event.requested.get(event.played + 1, {}), team_ids, actor)
    uow.flush()
    return count


def _record_round(
    uow: UnitOfWork, event_id: int, round_id: int, rows: Sequence[Match], boards: int, at: datetime
) -> None:
    """The public record of an imported round, as the desk's publishing and results write it
    (docs/record.md): its publication, each board's result, each whole-match forfeit."""
    stored = uow.boards.boards_of_matches(row.id for row in rows)
    changes: list[dict[str, Any]] = [
        {
            "action": "swiss.publish",
            "entity": "round",
            "entity_id": round_id,
            "event_id": event_id,
            "new": {"boards": boards},
            "at": at,
        }
    ]
    for row in rows:
        for board in sorted(stored.get(row.id or 0, []), key=lambda b: b.board_no):
            if GameResult(board.result).is_final:
                changes.append(
                    {
                        "action": "board.import_result",
                        "entity": "board",
                        "entity_id": board.id,
                        "event_id": event_id,
                        "new": {"result": board.result},
                        "at": at,
                    }
                )
        if row.forfeit != MatchForfeit.NONE.value:
            changes.append(
                {
                    "action": "match.forfeit",
                    "entity": "match",
                    "entity_id": row.id,
                    "event_id": event_id,
                    "new": {"forfeit": row.forfeit},
                    "at": at,
                }
            )
    uow.record.append_changes(changes)


def _store_adjustments(
    uow: UnitOfWork, stage_id: int, event: TrfEvent, team_ids: Mapping[int, int], actor: str
) -> None:
    """Record 299's bonus and penalty points not stored as a bye, each with its line as the reason, and each
    on the event's public record as the desk's are (``swiss.adjustment``, docs/record.md)."""
    rows = [
        ScoreAdjustment(
            stage_id=stage_id,
            team_id=team_ids[item.team],
            after_round=item.round,
            standings_only=not item.pairing,
            mp=item.mp,
            gp_half=item.gp,
            reason=_("record 299 of the imported file, line %(line)s") % {"line": item.line},
            recorded_by=actor,
        )
        for item in event.adjustments
    ]
    for row in rows:
        uow.adjustments.add(row)
    uow.flush()
    stage = uow.events.event_and_stage(stage_id)[1]
    names = {team.id: team.name for team in uow.teams.teams_of_event(stage.event_id)}
    uow.record.append_changes(
        [
            {
                "action": "swiss.adjustment",
                "entity": "score_adjustment",
                "entity_id": row.id,
                "event_id": stage.event_id,
                "new": described(row, team=names[row.team_id], stage=stage.name),
            }
            for row in rows
        ]
    )


def _requested(
    uow: UnitOfWork, round_id: int, byes: Mapping[int, bool], team_ids: Mapping[int, int], actor: str
) -> None:
    """The round's requested byes (record 240 ``F``, ``H``): the team not paired, scoring the bye."""
    for number, full in sorted(byes.items()):
        uow.rounds.add(
            SwissRoundTeam(
                round_id=round_id,
                team_id=team_ids[number],
                role=(SwissRoundRole.FULL_BYE if full else SwissRoundRole.HALF_BYE).value,
                reason=_("requested bye in the imported file"),
                recorded_by=actor,
            )
        )


def _absent(uow: UnitOfWork, round_id: int, team_ids: Sequence[int], actor: str) -> None:
    for team_id in team_ids:
        uow.rounds.add(
            SwissRoundTeam(
                round_id=round_id,
                team_id=team_id,
                role=SwissRoundRole.ABSENT.value,
                reason=_("not paired in the imported file"),
                recorded_by=actor,
            )
        )
