"""Reading an event file: YAML text in, the checked ``EventDefinition`` out (docs/event-file.md).

``parse_event`` reads the YAML text of an event file and checks it as a whole: it collects every problem
(schema, counts, seeds, qualifiers, bracket, rosters) with the line it was found on, and raises
``EventDefinitionError`` with all of them, so staff fix a file in one pass. Reading the file is the caller's
job: this module takes text. A stored event's definition is read through services/definitions.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml

from orchestrator.domain.event import EventDefinition, TimeControl
from orchestrator.domain.knockout import ArmageddonClock
from orchestrator.domain.names import MAX_EVENT_NAME
from orchestrator.domain.scoring import MatchScoring
from orchestrator.domain.teams import TeamFormat
from orchestrator.eventfile.nodes import NodeReader
from orchestrator.eventfile.problems import EventDefinitionError, Problem
from orchestrator.eventfile.validate_bracket import check_bracket, read_bracket
from orchestrator.eventfile.validate_entrants import check_entrants
from orchestrator.eventfile.validate_sections import check_sections, read_sections
from orchestrator.eventfile.validate_settings import (
    read_armageddon,
    read_lot_publication_delay,
    read_scoring,
    read_team_format,
    read_time_control,
)
from orchestrator.eventfile.validate_stages import check_schedules, read_stages
from orchestrator.eventfile.validate_teams import read_teams

MAX_LINEUP_DEADLINE_MINUTES = 7 * 24 * 60  # a week before the round at most
MAX_APPEAL_WINDOW_MINUTES = 7 * 24 * 60  # a week after the match at most (a longer one overflows `timedelta`)


def _is_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name longer than a file name
        return False
    return True


_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SLUG_LENGTH = 80  # the event's slug column (adapters/tables.py): PostgreSQL refuses a longer one
_TOP_KEYS_REQUIRED = ("name", "slug", "team_format", "time_control", "stages", "teams")
_TOP_KEYS_OPTIONAL = (
    "timezone",
    "match_scoring",
    "appeal_window_minutes",
    "lineup_deadline_minutes",
    "armageddon",
    "bracket",
    "sections",
    "board_prizes",
    "rated",
    "lot_publication_delay",
    "organiser",
)


@dataclass(slots=True)
class _Settings:
    """The top-level values of the file (None where missing or unreadable)."""

    name: str | None
    slug: str | None
    timezone: str
    team_format: TeamFormat | None
    time_control: TimeControl | None
    scoring: MatchScoring
    appeal: int
    lineup_deadline: int
    armageddon: ArmageddonClock
    board_prize_min_games: int = 8
    rated: bool = False  # FIDE-rated: the rating-change pages are shown (docs/ratings.md)
    lot_delay_s: int = 0  # lot_publication_delay in seconds (docs/lots.md)


def parse_event(text: str, *, source: str = "event.yaml") -> EventDefinition:
    """Read and validate an event definition; raise EventDefinitionError listing every problem found."""
    reader = NodeReader(source)
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        detail = getattr(error, "problem", None) or str(error)
        raise EventDefinitionError([Problem(line, "", f"not valid YAML: {detail}", source)]) from None
    if root is None:
        raise EventDefinitionError([Problem(None, "", "the event file is empty", source)])
    top = reader.mapping(root, "", required=_TOP_KEYS_REQUIRED, optional=_TOP_KEYS_OPTIONAL)
    if top is None:
        raise EventDefinitionError(reader.problems)

    settings = _read_settings(reader, top)
    sections = read_sections(reader, top["sections"]) if "sections" in top else None
    stages = read_stages(reader, top["stages"], settings.timezone, sections) if "stages" in top else []
    duels = read_bracket(reader, top["bracket"]) if "bracket" in top else []
    organiser = _read_organiser(reader, top["organiser"]) if "organiser" in top else None
    teams, captains = (
        read_teams(reader, top["teams"], settings.team_format, sections, organiser)
        if "teams" in top
        else ([], [])
    )

    knockout = check_entrants(reader, stages, teams, has_bracket="bracket" in top)
    check_sections(reader, sections or {}, stages, teams)
    bracket = check_bracket(reader, duels, stages, knockout)
    check_schedules(reader, stages, bracket)

    name, slug, team_format, time_control = (
        settings.name,
        settings.slug,
        settings.team_format,
        settings.time_control,
    )
    if reader.problems or name is None or slug is None or team_format is None or time_control is None:
        problems = sorted(reader.problems, key=lambda p: p.line if p.line is not None else 0)
        raise EventDefinitionError(problems or [Problem(None, "", "incomplete event definition", source)])
    return EventDefinition(
        name=name,
        slug=slug,
        team_format=team_format,
        time_control=time_control,
        stages=tuple(stage.model() for stage in stages),
        bracket=tuple(bracket),
        teams=tuple(teams),
        match_scoring=settings.scoring,
        appeal_window_minutes=settings.appeal,
        lineup_deadline_minutes=settings.lineup_deadline,
        armageddon=settings.armageddon,
        timezone=settings.timezone,
        captains=tuple(captains),
        sections=tuple((sections or {}).values()),
        board_prize_min_games=settings.board_prize_min_games,
        rated=settings.rated,
        lot_publication_delay_s=settings.lot_delay_s,
        organiser=organiser,
    )


def _read_settings(reader: NodeReader, top: dict[str, yaml.Node]) -> _Settings:
    name = (
        reader.name(top["name"], "name", what="event name", limit=MAX_EVENT_NAME) if "name" in top else None
    )
    slug = reader.text(top["slug"], "slug") if "slug" in top else None
    if slug is not None and not _SLUG_RE.match(slug):
        reader.report("slug", f"use lower-case letters, digits and dashes, found {slug!r}", node=top["slug"])
    elif slug is not None and len(slug) > MAX_SLUG_LENGTH:
        reader.report("slug", f"at most {MAX_SLUG_LENGTH} characters, found {len(slug)}", node=top["slug"])
    timezone = "UTC"
    if "timezone" in top:
        timezone = reader.text(top["timezone"], "timezone") or "UTC"
        if not _is_zone(timezone):
            problem = f"not an IANA time zone: {timezone!r} (e.g. Europe/Oslo)"
            reader.report("timezone", problem, node=top["timezone"])
            timezone = "UTC"
    team_format = read_team_format(reader, top["team_format"]) if "team_format" in top else None
    time_control = read_time_control(reader, top["time_control"]) if "time_control" in top else None
    scoring = read_scoring(reader, top["match_scoring"]) if "match_scoring" in top else MatchScoring()
    appeal = 15
    if "appeal_window_minutes" in top:
        appeal_value = reader.integer(
            top["appeal_window_minutes"],
            "appeal_window_minutes",
            minimum=0,
            maximum=MAX_APPEAL_WINDOW_MINUTES,
        )
        appeal = appeal_value if appeal_value is not None else 15
    lineup_deadline = 0
    if "lineup_deadline_minutes" in top:
        deadline_value = reader.integer(
            top["lineup_deadline_minutes"],
            "lineup_deadline_minutes",
            minimum=0,
            maximum=MAX_LINEUP_DEADLINE_MINUTES,
        )
        lineup_deadline = deadline_value if deadline_value is not None else 0
    armageddon = read_armageddon(reader, top["armageddon"]) if "armageddon" in top else ArmageddonClock()
    min_games = _read_board_prizes(reader, top["board_prizes"]) if "board_prizes" in top else 8
    rated = reader.boolean(top["rated"], "rated") if "rated" in top else None
    lot_delay = (
        read_lot_publication_delay(reader, top["lot_publication_delay"])
        if "lot_publication_delay" in top
        else 0
    )
    return _Settings(
        name,
        slug,
        timezone,
        team_format,
        time_control,
        scoring,
        appeal,
        lineup_deadline,
        armageddon,
        min_games,
        bool(rated),
        lot_delay,
    )


def _read_organiser(reader: NodeReader, node: yaml.Node) -> str | None:
    """``organiser: UZB``: the organising federation, which may enter a B team and, in an odd field, a C team
    (Olympiad Pairing Rules 2.1–2.2; docs/event-file.md)."""
    code = reader.text(node, "organiser")
    if code is not None and not re.fullmatch(r"[A-Z]{3}", code):
        reader.report(
            "organiser", f"expected a three-letter federation code such as UZB, found {code!r}", node=node
        )
        return None
    return code


def _read_board_prizes(reader: NodeReader, node: yaml.Node) -> int:
    """``board_prizes: {min_games: N}``: games played a player needs for a board prize (8 if not given)."""
    fields = reader.mapping(node, "board_prizes", optional=("min_games",))
    if not fields or "min_games" not in fields:
        return 8
    value = reader.integer(fields["min_games"], "board_prizes.min_games", minimum=1, maximum=100)
    return value if value is not None else 8
