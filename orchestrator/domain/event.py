"""Event definition: team format, stage graph, bracket, schedule and field of an event (docs/rules.md §1, §3, §5).

``parse_event`` reads the YAML text of an event file and checks it as a whole: it collects every problem
(schema, counts, seeds, qualifiers, bracket, rosters) with the line it was found on, and raises
``EventDefinitionError`` with all of them, so staff fix a file in one pass. The file format is described in
docs/event-file.md. Reading the file is the caller's job: this module takes text.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

import yaml

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, SlotRef, WinnerOf
from orchestrator.domain.knockout import ArmageddonClock
from orchestrator.domain.scoring import MatchScoring
from orchestrator.domain.teams import Category, Player, RosterEntry, Sex, Team, TeamFormat, is_eligible
from orchestrator.domain.tiebreaks import TieBreakError, parse_chain

StageKind = Literal["pools", "knockout"]

# --- problems ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in an event file: where (line, path such as ``stages[4].entrants[0]``) and what."""

    line: int | None
    path: str
    message: str
    source: str = "event.yaml"
    subject: str = ""  # what the path points at, e.g. the stage key "top" or the duel "IV"

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        target = self.path + (f" ({self.subject})" if self.subject else "")
        return f"{where}: {target}: {self.message}" if target else f"{where}: {self.message}"


class EventDefinitionError(ValueError):
    """An event definition that cannot be used; ``problems`` lists every problem found, in file order."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__(self.problems)

    def __str__(self) -> str:
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in the event definition:"
        return "\n".join([head, *(f"  {problem}" for problem in self.problems)])


# --- the model --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimeControl:
    minutes: int
    increment_seconds: int

    def __str__(self) -> str:
        return f"{self.minutes}+{self.increment_seconds}"


@dataclass(frozen=True, slots=True)
class SeedRange:
    """Teams seeded ``first`` to ``last`` (inclusive) enter this stage."""

    first: int
    last: int

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    def __contains__(self, seed: object) -> bool:
        return isinstance(seed, int) and self.first <= seed <= self.last

    def __str__(self) -> str:
        return f"seeds {self.first}–{self.last}" if self.first != self.last else f"seed {self.first}"


@dataclass(frozen=True, slots=True)
class Qualifiers:
    """The top ``places_per_pool`` of every pool of ``stage`` enter this stage.

    ``count`` is the number the rules state, if the file states one; it is checked, never trusted.
    """

    stage: str
    places_per_pool: int
    count: int | None = None


Entrant = SeedRange | Qualifiers


@dataclass(frozen=True, slots=True)
class StageDef:
    """One stage. For a knockout stage pool_count, pool_size and advance are 0.

    ``schedule`` holds the start of each round (pools) or of each match of the bracket rounds (knockout:
    two matches per bracket round, match 1 then match 2); naive datetimes in the event timezone.
    """

    key: str
    name: str
    kind: StageKind
    pool_count: int
    pool_size: int
    entrants: tuple[Entrant, ...]
    advance: int
    tiebreaks: tuple[str, ...]
    schedule: tuple[datetime, ...]
    winners_apart: bool = True  # winners of the previous stage's pools go to different pools (docs/rules.md §3)

    @property
    def is_pools(self) -> bool:
        return self.kind == "pools"

    @property
    def rounds(self) -> int:
        """Round-robin rounds of a pool (C.05 Annex 1: n-1 for even n, n with a bye for odd n)."""
        if not self.is_pools:
            return 0
        return self.pool_size - 1 if self.pool_size % 2 == 0 else self.pool_size

    @property
    def size(self) -> int:
        return self.pool_count * self.pool_size

    @property
    def advancing(self) -> int:
        return self.pool_count * self.advance


@dataclass(frozen=True, slots=True)
class EventDefinition:
    name: str
    slug: str
    team_format: TeamFormat
    time_control: TimeControl
    stages: tuple[StageDef, ...]
    bracket: tuple[DuelSpec, ...]
    teams: tuple[Team, ...]
    match_scoring: MatchScoring = field(default_factory=MatchScoring)
    appeal_window_minutes: int = 15
    lineup_deadline_minutes: int = 0  # lineups close this long before a round starts (0: at its start)
    armageddon: ArmageddonClock = field(default_factory=ArmageddonClock)
    timezone: str = "UTC"
    captains: tuple[tuple[str, str], ...] = ()  # (team name, captain name)

    def lineup_deadline(self, start: datetime | None) -> datetime | None:
        """When the lineups of a round starting at ``start`` close; None: at its start (or no start yet)."""
        if start is None or not self.lineup_deadline_minutes:
            return None
        return start - timedelta(minutes=self.lineup_deadline_minutes)

    def stage(self, key: str) -> StageDef:
        for stage in self.stages:
            if stage.key == key:
                return stage
        raise KeyError(f"no stage {key!r}; stages are {', '.join(s.key for s in self.stages)}")

    def team(self, name: str) -> Team:
        for team in self.teams:
            if team.name == name:
                return team
        raise KeyError(f"no team {name!r}")

    def team_by_seed(self, seed: int) -> Team:
        for team in self.teams:
            if team.seed == seed:
                return team
        raise KeyError(f"no team seeded {seed}")


# --- small helpers ----------------------------------------------------------------------------------------


def pool_letters(n: int) -> tuple[str, ...]:
    """Pool names A, B, C, ... Z, AA, AB, ... for ``n`` pools."""
    letters: list[str] = []
    for index in range(n):
        name = ""
        i = index + 1
        while i:
            i, rest = divmod(i - 1, 26)
            name = chr(ord("A") + rest) + name
        letters.append(name)
    return tuple(letters)


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def slot_label(event: EventDefinition, ref: SlotRef) -> str:
    """A bracket slot as people write it: ``Top A 2nd``, ``winner IV``."""
    if isinstance(ref, PoolPlace):
        names = {stage.key: stage.name for stage in event.stages}
        return f"{names.get(ref.stage, ref.stage)} {ref.pool} {ordinal(ref.place)}"
    return str(ref)


def stage_entrants(
    event: EventDefinition, stage_key: str, qualifiers: Mapping[str, Sequence[Sequence[str]]]
) -> list[str]:
    """Team names entering a stage: qualifiers first (all pool winners in pool order, then all 2nds, ...),
    then the seeded teams in seed order.

    ``qualifiers`` maps an earlier stage's key to its final pool standings: one ordered list of team names
    per pool, in pool order (A, B, ...).
    """
    stage = event.stage(stage_key)
    by_seed = {team.seed: team.name for team in event.teams}
    names: list[str] = []
    for entrant in stage.entrants:
        if isinstance(entrant, Qualifiers):
            source = event.stage(entrant.stage)
            standings = qualifiers.get(entrant.stage)
            if standings is None:
                raise KeyError(f"{stage.name} needs the final standings of {source.name}")
            if len(standings) != source.pool_count:
                raise ValueError(
                    f"{source.name} has {source.pool_count} pools, standings given for {len(standings)}"
                )
            letters = pool_letters(source.pool_count)
            for place in range(1, entrant.places_per_pool + 1):
                for letter, pool in zip(letters, standings, strict=True):
                    if len(pool) < place:
                        raise ValueError(f"{source.name} pool {letter} has no {ordinal(place)} place")
                    names.append(pool[place - 1])
        else:
            for seed in range(entrant.first, entrant.last + 1):
                names.append(by_seed[seed])
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"{stage.name}: teams entered twice: {', '.join(duplicates)}")
    return names


def _bracket_depths(bracket: Sequence[DuelSpec]) -> dict[str, int]:
    """Bracket round of each duel: 1 for duels between pool places, 1 + the deepest feeding duel else."""
    depths: dict[str, int] = {}
    for duel in bracket:
        depth = 1
        for side in (duel.first, duel.second):
            if isinstance(side, WinnerOf | LoserOf) and side.duel in depths:
                depth = max(depth, depths[side.duel] + 1)
        depths[duel.key] = depth
    return depths


def bracket_rounds(bracket: Sequence[DuelSpec]) -> int:
    depths = _bracket_depths(bracket)
    return max(depths.values(), default=0)


def _default_round_name(depth: int, rounds: int) -> str:
    from_end = rounds - depth
    return {0: "Final", 1: "Semi-final", 2: "Quarter-final"}.get(from_end, f"Round {depth}")


# --- summary ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StageSummary:
    key: str
    name: str
    kind: StageKind
    entrants: str  # "12 qualifiers (top 4 of 3 Base pools) + seeds 96–133 (38) = 50"
    entrant_count: int
    pools: str  # "5 × 10" or "knockout"
    rounds: int  # round-robin rounds, or bracket rounds of a knockout
    first_round: datetime | None
    last_round: datetime | None
    advance: str  # "top 3 of each pool (15) → Division 3"


@dataclass(frozen=True, slots=True)
class EventSummary:
    name: str
    slug: str
    teams: int
    time_control: str
    timezone: str
    stages: tuple[StageSummary, ...]
    bracket: tuple[str, ...]  # "I (Preliminary): Top A 2nd – Top B 3rd"

    def __rich__(self) -> str:
        """Consoles that pretty-print dataclasses (rich) show the text instead."""
        return str(self)

    def __str__(self) -> str:
        lines = [
            f"{self.name} ({self.slug}): {self.teams} teams, time control {self.time_control}, "
            f"times in {self.timezone}"
        ]
        for stage in self.stages:
            when = ""
            if stage.first_round and stage.last_round:
                when = f", {stage.first_round:%Y-%m-%d %H:%M} – {stage.last_round:%Y-%m-%d %H:%M}"
            rounds = f"{stage.rounds} rounds" if stage.kind == "pools" else f"{stage.rounds} bracket rounds"
            lines.append(f"  {stage.name} [{stage.key}]: {stage.entrants}; {stage.pools}, {rounds}{when}")
            if stage.advance:
                lines.append(f"    advance: {stage.advance}")
        if self.bracket:
            lines.append("  Bracket:")
            lines.extend(f"    {line}" for line in self.bracket)
        return "\n".join(lines)


def summary(event: EventDefinition) -> EventSummary:
    """What ``olympiad validate`` prints: stages, entrants, pools, rounds, dates and the bracket."""
    names = {stage.key: stage.name for stage in event.stages}
    takers: dict[str, str] = {}
    for stage in event.stages:
        for entrant in stage.entrants:
            if isinstance(entrant, Qualifiers):
                takers[entrant.stage] = stage.name
    stages: list[StageSummary] = []
    for stage in event.stages:
        parts: list[str] = []
        total = 0
        for entrant in stage.entrants:
            if isinstance(entrant, Qualifiers):
                source = event.stage(entrant.stage)
                count = entrant.places_per_pool * source.pool_count
                parts.append(
                    f"{count} qualifiers (top {entrant.places_per_pool} of {source.pool_count} "
                    f"{names[entrant.stage]} pools)"
                )
            else:
                count = entrant.size
                parts.append(f"{entrant} ({count})")
            total += count
        advance = ""
        if stage.is_pools and stage.advance:
            advance = f"top {stage.advance} of each pool ({stage.advancing})"
            if stage.key in takers:
                advance += f" → {takers[stage.key]}"
        stages.append(
            StageSummary(
                key=stage.key,
                name=stage.name,
                kind=stage.kind,
                entrants=" + ".join(parts) + f" = {total}",
                entrant_count=total,
                pools=f"{stage.pool_count} × {stage.pool_size}" if stage.is_pools else "knockout",
                rounds=stage.rounds if stage.is_pools else bracket_rounds(event.bracket),
                first_round=stage.schedule[0] if stage.schedule else None,
                last_round=stage.schedule[-1] if stage.schedule else None,
                advance=advance,
            )
        )
    bracket = tuple(
        f"{duel.key} ({duel.round_name}): {slot_label(event, duel.first)} – {slot_label(event, duel.second)}"
        for duel in event.bracket
    )
    return EventSummary(
        name=event.name,
        slug=event.slug,
        teams=len(event.teams),
        time_control=str(event.time_control),
        timezone=event.timezone,
        stages=tuple(stages),
        bracket=bracket,
    )


# --- parsing ----------------------------------------------------------------------------------------------

_KEY_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_SEEDS_RE = re.compile(r"^\s*(\d+)\s*(?:[-–—]|\.\.)\s*(\d+)\s*$")
_PLACE_RE = re.compile(
    r"^(?P<stage>.+?)\s+(?:pool\s+)?(?P<pool>[A-Z]{1,2})\s+(?P<place>\d+)(?:st|nd|rd|th)?$"
)
_DUEL_REF_RE = re.compile(r"^(?P<kind>winner|loser)\s+(?:of\s+)?(?:duel\s+)?(?P<duel>\S+)$", re.IGNORECASE)
_TIME_RE = re.compile(r"^(\d+)\s*\+\s*(\d+)$")


def _line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return f"{node.value!r}" if node.value != "" else "nothing"


@dataclass(slots=True)
class _ScheduleSpec:
    rounds: list[datetime] | None = None
    start: datetime | None = None
    rounds_per_day: int | None = None
    minutes_between_rounds: int | None = None


@dataclass(slots=True)
class _StageDraft:
    index: int
    key: str
    name: str
    kind: StageKind
    pool_count: int
    pool_size: int
    entrants: list[tuple[int, Entrant]]  # (index in the file's entrants list, entrant)
    advance: int
    tiebreaks: tuple[str, ...]
    schedule: _ScheduleSpec | None
    winners_apart: bool
    resolved_schedule: tuple[datetime, ...] = ()

    @property
    def size(self) -> int:
        return self.pool_count * self.pool_size

    @property
    def rounds(self) -> int:
        if self.kind != "pools" or not self.pool_size:
            return 0
        return self.pool_size - 1 if self.pool_size % 2 == 0 else self.pool_size


@dataclass(slots=True)
class _SlotDraft:
    text: str
    node: yaml.Node


@dataclass(slots=True)
class _DuelDraft:
    index: int
    key: str
    round_name: str | None
    first: _SlotDraft | None
    second: _SlotDraft | None


class _Reader:
    """Walks the composed YAML nodes, converting values and collecting problems with their lines."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.lines: dict[str, int] = {}
        self.subjects: dict[str, str] = {}
        self._constructor = yaml.constructor.SafeConstructor()

    # reporting

    def report(self, path: str, message: str, *, node: yaml.Node | None = None) -> None:
        line = _line(node) if node is not None else self._line_of(path)
        self.problems.append(Problem(line, path, message, self.source, self._subject_of(path)))

    def _line_of(self, path: str) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None

    def _subject_of(self, path: str) -> str:
        best = ""
        for prefix in self.subjects:
            if (path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")) and len(
                prefix
            ) > len(best):
                best = prefix
        return self.subjects.get(best, "")

    # node readers

    def mapping(
        self, node: yaml.Node, path: str, *, required: Sequence[str] = (), optional: Sequence[str] = ()
    ) -> dict[str, yaml.Node] | None:
        self.lines.setdefault(path, _line(node) or 0)
        if not isinstance(node, yaml.MappingNode):
            self.report(path, f"expected a mapping (key: value), found {_kind(node)}", node=node)
            return None
        known = [*required, *optional]
        out: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.report(path, "keys must be plain words", node=key_node)
                continue
            key_path = _join(path, key)
            if key in out:
                self.report(key_path, f"'{key}' is given twice", node=key_node)
                continue
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(known)}"
                self.report(path, f"unknown key '{key}'{hint}", node=key_node)
                continue
            out[key] = value_node
            self.lines[key_path] = _line(key_node) or 0
        for key in required:
            if key not in out:
                self.report(path, f"missing '{key}'", node=node)
        return out

    def sequence(self, node: yaml.Node, path: str) -> list[yaml.Node] | None:
        self.lines.setdefault(path, _line(node) or 0)
        if not isinstance(node, yaml.SequenceNode):
            self.report(path, f"expected a list, found {_kind(node)}", node=node)
            return None
        for index, item in enumerate(node.value):
            self.lines[f"{path}[{index}]"] = _line(item) or 0
        return list(node.value)

    def scalar(self, node: yaml.Node, path: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            self.report(path, f"expected a single value, found {_kind(node)}", node=node)
            return None
        try:
            return self._constructor.construct_object(node)
        except yaml.YAMLError as error:
            self.report(path, f"unreadable value {node.value!r}: {error}", node=node)
            return None

    def text(self, node: yaml.Node, path: str) -> str | None:
        value = self.scalar(node, path)
        if value is None:
            if isinstance(node, yaml.ScalarNode):
                self.report(path, "must not be empty", node=node)
            return None
        if isinstance(value, bool | dict | list):
            self.report(path, f"expected text, found {node.value!r}", node=node)
            return None
        text = str(node.value).strip() if not isinstance(value, str) else value.strip()
        if not text:
            self.report(path, "must not be empty", node=node)
            return None
        return text

    def integer(
        self, node: yaml.Node, path: str, *, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        value = self.scalar(node, path)
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(node, yaml.ScalarNode):
                self.report(path, f"expected a whole number, found {_kind(node)}", node=node)
            return None
        if minimum is not None and value < minimum:
            self.report(path, f"must be at least {minimum}, found {value}", node=node)
            return None
        if maximum is not None and value > maximum:
            self.report(path, f"must be at most {maximum}, found {value}", node=node)
            return None
        return value

    def boolean(self, node: yaml.Node, path: str) -> bool | None:
        value = self.scalar(node, path)
        if not isinstance(value, bool):
            if isinstance(node, yaml.ScalarNode):
                self.report(path, f"expected true or false, found {_kind(node)}", node=node)
            return None
        return value

    def moment(self, node: yaml.Node, path: str, timezone: str) -> datetime | None:
        value = self.scalar(node, path)
        if isinstance(value, datetime):
            moment = value
        elif isinstance(value, date):
            self.report(path, f"give a time as well as the date, e.g. '{value:%Y-%m-%d} 10:00'", node=node)
            return None
        elif isinstance(value, str):
            try:
                moment = datetime.fromisoformat(value.strip())
            except ValueError:
                self.report(
                    path, f"expected a date and time such as 2020-07-25 10:00, found {value!r}", node=node
                )
                return None
        else:
            if isinstance(node, yaml.ScalarNode):
                self.report(
                    path, f"expected a date and time such as 2020-07-25 10:00, found {_kind(node)}", node=node
                )
            return None
        if moment.tzinfo is not None:
            self.report(
                path,
                f"write the time without a UTC offset: all times are in the event timezone ({timezone})",
                node=node,
            )
            return None
        return moment


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


MAX_LINEUP_DEADLINE_MINUTES = 7 * 24 * 60  # a week before the round at most

_TOP_KEYS_REQUIRED = ("name", "slug", "team_format", "time_control", "stages", "teams")
_TOP_KEYS_OPTIONAL = (
    "timezone",
    "match_scoring",
    "appeal_window_minutes",
    "lineup_deadline_minutes",
    "armageddon",
    "bracket",
)


@lru_cache(maxsize=32)
def parse_stored_event(text: str) -> EventDefinition:
    """``parse_event`` of a stored definition, parsed once per text for the whole process.

    The definition is frozen, so every service shares one copy (a 163-team file takes ~0.3 s to parse).
    Errors are not cached: an invalid text raises ``EventDefinitionError`` each time.
    """
    return parse_event(text, source="stored definition")


def parse_event(text: str, *, source: str = "event.yaml") -> EventDefinition:
    """Read and validate an event definition; raise EventDefinitionError listing every problem found."""
    reader = _Reader(source)
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

    name = reader.text(top["name"], "name") if "name" in top else None
    slug = reader.text(top["slug"], "slug") if "slug" in top else None
    if slug is not None and not _SLUG_RE.match(slug):
        reader.report("slug", f"use lower-case letters, digits and dashes, found {slug!r}", node=top["slug"])
    timezone = "UTC"
    if "timezone" in top:
        timezone = reader.text(top["timezone"], "timezone") or "UTC"
    team_format = _read_team_format(reader, top["team_format"]) if "team_format" in top else None
    time_control = _read_time_control(reader, top["time_control"]) if "time_control" in top else None
    scoring = _read_scoring(reader, top["match_scoring"]) if "match_scoring" in top else MatchScoring()
    appeal = 15
    if "appeal_window_minutes" in top:
        appeal_value = reader.integer(top["appeal_window_minutes"], "appeal_window_minutes", minimum=0)
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
    armageddon = _read_armageddon(reader, top["armageddon"]) if "armageddon" in top else ArmageddonClock()
    stages = _read_stages(reader, top["stages"], timezone) if "stages" in top else []
    duels = _read_bracket(reader, top["bracket"]) if "bracket" in top else []
    teams, captains = _read_teams(reader, top["teams"], team_format) if "teams" in top else ([], [])

    bracket = _check_stages_and_bracket(reader, stages, duels, teams, has_bracket="bracket" in top)
    _check_schedules(reader, stages, bracket)

    if reader.problems or name is None or slug is None or team_format is None or time_control is None:
        problems = sorted(reader.problems, key=lambda p: p.line if p.line is not None else 0)
        raise EventDefinitionError(problems or [Problem(None, "", "incomplete event definition", source)])
    return EventDefinition(
        name=name,
        slug=slug,
        team_format=team_format,
        time_control=time_control,
        stages=tuple(
            StageDef(
                key=s.key,
                name=s.name,
                kind=s.kind,
                pool_count=s.pool_count,
                pool_size=s.pool_size,
                entrants=tuple(entrant for _, entrant in s.entrants),
                advance=s.advance,
                tiebreaks=s.tiebreaks,
                schedule=s.resolved_schedule,
                winners_apart=s.winners_apart,
            )
            for s in stages
        ),
        bracket=tuple(bracket),
        teams=tuple(teams),
        match_scoring=scoring,
        appeal_window_minutes=appeal,
        lineup_deadline_minutes=lineup_deadline,
        armageddon=armageddon,
        timezone=timezone,
        captains=tuple(captains),
    )


def _category(reader: _Reader, node: yaml.Node, path: str) -> Category | None:
    value = reader.text(node, path)
    if value is None:
        return None
    try:
        return Category(value.lower())
    except ValueError:
        names = ", ".join(c.value for c in Category)
        reader.report(path, f"unknown category {value!r}: use one of {names}", node=node)
        return None


def _read_team_format(reader: _Reader, node: yaml.Node) -> TeamFormat | None:
    fields = reader.mapping(node, "team_format", required=("boards", "cutoff_year"), optional=("reserves",))
    if fields is None:
        return None
    boards: list[Category] = []
    ok = True
    if "boards" in fields:
        items = reader.sequence(fields["boards"], "team_format.boards")
        if items is None:
            ok = False
        else:
            if not items:
                reader.report("team_format.boards", "a team needs at least one board", node=fields["boards"])
                ok = False
            for index, item in enumerate(items):
                category = _category(reader, item, f"team_format.boards[{index}]")
                if category is None:
                    ok = False
                else:
                    boards.append(category)
    cutoff = (
        reader.integer(fields["cutoff_year"], "team_format.cutoff_year", minimum=1900, maximum=2100)
        if "cutoff_year" in fields
        else None
    )
    reserves: list[tuple[Category, int]] = []
    if "reserves" in fields:
        entries = reader.mapping(
            fields["reserves"], "team_format.reserves", optional=tuple(c.value for c in Category)
        )
        if entries is None:
            ok = False
        else:
            for key, value_node in entries.items():
                count = reader.integer(value_node, f"team_format.reserves.{key}", minimum=0)
                if count is None:
                    ok = False
                else:
                    reserves.append((Category(key), count))
    if not ok or cutoff is None or not boards:
        return None
    return TeamFormat(board_categories=tuple(boards), cutoff_year=cutoff, reserves=tuple(reserves))


def _read_time_control(reader: _Reader, node: yaml.Node) -> TimeControl | None:
    if isinstance(node, yaml.ScalarNode):
        match = _TIME_RE.match(str(node.value))
        if match is None:
            reader.report(
                "time_control", f"expected minutes+increment such as 15+5, found {node.value!r}", node=node
            )
            return None
        return TimeControl(int(match[1]), int(match[2]))
    fields = reader.mapping(node, "time_control", required=("minutes", "increment_seconds"))
    if fields is None:
        return None
    minutes = (
        reader.integer(fields["minutes"], "time_control.minutes", minimum=1) if "minutes" in fields else None
    )
    increment = (
        reader.integer(fields["increment_seconds"], "time_control.increment_seconds", minimum=0)
        if "increment_seconds" in fields
        else None
    )
    if minutes is None or increment is None:
        return None
    return TimeControl(minutes, increment)


def _read_scoring(reader: _Reader, node: yaml.Node) -> MatchScoring:
    fields = reader.mapping(node, "match_scoring", required=("win", "draw", "loss"))
    if fields is None:
        return MatchScoring()
    values = {
        key: reader.integer(fields[key], f"match_scoring.{key}", minimum=0)
        for key in ("win", "draw", "loss")
        if key in fields
    }
    win, draw, loss = values.get("win"), values.get("draw"), values.get("loss")
    if win is None or draw is None or loss is None:
        return MatchScoring()
    if not win > draw >= loss:
        reader.report(
            "match_scoring",
            f"a win must score more than a draw, a draw no less than a loss (found {win}/{draw}/{loss})",
            node=node,
        )
    return MatchScoring(win=win, draw=draw, loss=loss)


def _read_armageddon(reader: _Reader, node: yaml.Node) -> ArmageddonClock:
    fields = reader.mapping(
        node, "armageddon", required=("white_minutes", "black_minutes"), optional=("increment_seconds",)
    )
    if fields is None:
        return ArmageddonClock()
    white = (
        reader.integer(fields["white_minutes"], "armageddon.white_minutes", minimum=1)
        if "white_minutes" in fields
        else None
    )
    black = (
        reader.integer(fields["black_minutes"], "armageddon.black_minutes", minimum=1)
        if "black_minutes" in fields
        else None
    )
    increment = 0
    if "increment_seconds" in fields:
        increment = (
            reader.integer(fields["increment_seconds"], "armageddon.increment_seconds", minimum=0) or 0
        )
    if white is None or black is None:
        return ArmageddonClock()
    if white <= black:
        reader.report(
            "armageddon", f"White must have more time than Black (found {white} v {black} minutes)", node=node
        )
    return ArmageddonClock(white * 60, black * 60, increment)  # the file gives minutes


_STAGE_REQUIRED = ("key", "name", "kind", "entrants")
_STAGE_OPTIONAL = ("pool_count", "pool_size", "advance", "tiebreaks", "schedule", "winners_apart")


def _read_stages(reader: _Reader, node: yaml.Node, timezone: str) -> list[_StageDraft]:
    items = reader.sequence(node, "stages")
    if items is None:
        return []
    if not items:
        reader.report("stages", "an event needs at least one stage", node=node)
    drafts: list[_StageDraft] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        path = f"stages[{index}]"
        fields = reader.mapping(item, path, required=_STAGE_REQUIRED, optional=_STAGE_OPTIONAL)
        if fields is None:
            continue
        key = reader.text(fields["key"], f"{path}.key") if "key" in fields else None
        if key is not None:
            reader.subjects[path] = key
            if not _KEY_RE.match(key):
                reader.report(
                    f"{path}.key",
                    f"use lower-case letters, digits, '-' or '_', found {key!r}",
                    node=fields["key"],
                )
            if key in seen:
                reader.report(
                    f"{path}.key",
                    f"stage key {key!r} is already used by stages[{seen[key]}]",
                    node=fields["key"],
                )
                key = None
            else:
                seen[key] = index
        name = reader.text(fields["name"], f"{path}.name") if "name" in fields else None
        kind_text = reader.text(fields["kind"], f"{path}.kind") if "kind" in fields else None
        kind: StageKind | None = None
        if kind_text == "pools":
            kind = "pools"
        elif kind_text == "knockout":
            kind = "knockout"
        elif kind_text is not None:
            reader.report(
                f"{path}.kind",
                f"kind must be 'pools' or 'knockout', found {kind_text!r}",
                node=fields["kind"],
            )
        pool_count = pool_size = advance = 0
        if kind == "pools":
            for needed in ("pool_count", "pool_size", "advance"):
                if needed not in fields:
                    reader.report(path, f"a pools stage needs '{needed}'", node=item)
            if "pool_count" in fields:
                pool_count = reader.integer(fields["pool_count"], f"{path}.pool_count", minimum=1) or 0
            if "pool_size" in fields:
                pool_size = reader.integer(fields["pool_size"], f"{path}.pool_size", minimum=2) or 0
            if "advance" in fields:
                advance = reader.integer(fields["advance"], f"{path}.advance", minimum=0) or 0
                if pool_size and advance > pool_size:
                    reader.report(
                        f"{path}.advance",
                        f"{advance} cannot advance from pools of {pool_size}",
                        node=fields["advance"],
                    )
        elif kind == "knockout":
            for unwanted in ("pool_count", "pool_size", "advance", "winners_apart"):
                if unwanted in fields:
                    reader.report(
                        f"{path}.{unwanted}", f"a knockout stage has no '{unwanted}'", node=fields[unwanted]
                    )
        entrants = (
            _read_entrants(reader, fields["entrants"], f"{path}.entrants") if "entrants" in fields else []
        )
        tiebreaks: tuple[str, ...] = ("online-2020",) if kind == "pools" else ()
        if "tiebreaks" in fields:
            tiebreaks = _read_tiebreaks(reader, fields["tiebreaks"], f"{path}.tiebreaks") or tiebreaks
        schedule = (
            _read_schedule(reader, fields["schedule"], f"{path}.schedule", timezone)
            if "schedule" in fields
            else None
        )
        winners_apart = True
        if "winners_apart" in fields:
            value = reader.boolean(fields["winners_apart"], f"{path}.winners_apart")
            winners_apart = True if value is None else value
        if key is None or name is None or kind is None:
            continue
        drafts.append(
            _StageDraft(
                index,
                key,
                name,
                kind,
                pool_count,
                pool_size,
                entrants,
                advance,
                tiebreaks,
                schedule,
                winners_apart,
            )
        )
    return drafts


def _read_entrants(reader: _Reader, node: yaml.Node, path: str) -> list[tuple[int, Entrant]]:
    items = reader.sequence(node, path)
    if items is None:
        return []
    if not items:
        reader.report(path, "a stage needs entrants", node=node)
    out: list[tuple[int, Entrant]] = []
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        if isinstance(item, yaml.MappingNode) and any(
            isinstance(k, yaml.ScalarNode) and k.value == "seeds" for k, _ in item.value
        ):
            fields = reader.mapping(item, item_path, required=("seeds",), optional=("count",))
            if fields is None or "seeds" not in fields:
                continue
            seeds = _read_seed_range(reader, fields["seeds"], f"{item_path}.seeds")
            if seeds is None:
                continue
            if "count" in fields:
                count = reader.integer(fields["count"], f"{item_path}.count", minimum=0)
                if count is not None and count != seeds.size:
                    reader.report(
                        f"{item_path}.count",
                        f"says {count} seeded teams, but {seeds} are {seeds.size}",
                        node=fields["count"],
                    )
            out.append((index, seeds))
            continue
        fields = reader.mapping(item, item_path, required=("from", "top"), optional=("count",))
        if fields is None:
            continue
        stage = reader.text(fields["from"], f"{item_path}.from") if "from" in fields else None
        top = reader.integer(fields["top"], f"{item_path}.top", minimum=1) if "top" in fields else None
        count = (
            reader.integer(fields["count"], f"{item_path}.count", minimum=0) if "count" in fields else None
        )
        if stage is not None and top is not None:
            out.append((index, Qualifiers(stage, top, count)))
    return out


def _read_seed_range(reader: _Reader, node: yaml.Node, path: str) -> SeedRange | None:
    value = reader.scalar(node, path)
    if isinstance(value, int) and not isinstance(value, bool):
        first = last = value
    elif isinstance(value, str) and (match := _SEEDS_RE.match(value)):
        first, last = int(match[1]), int(match[2])
    else:
        if isinstance(node, yaml.ScalarNode):
            reader.report(path, f"expected a seed range such as 26-60, found {_kind(node)}", node=node)
        return None
    if first < 1 or last < first:
        reader.report(path, f"seed range {first}-{last} is empty or starts below 1", node=node)
        return None
    return SeedRange(first, last)


def _tiebreak_problem(codes: tuple[str, ...]) -> str | None:
    """Why a tie-break list is not usable (per orchestrator.domain.tiebreaks), or None."""
    try:
        parse_chain(codes)
    except TieBreakError as error:
        return str(error)
    return None


def _read_tiebreaks(reader: _Reader, node: yaml.Node, path: str) -> tuple[str, ...] | None:
    if isinstance(node, yaml.SequenceNode):
        items = reader.sequence(node, path) or []
        codes = tuple(code for i, item in enumerate(items) if (code := reader.text(item, f"{path}[{i}]")))
        if len(codes) != len(items):
            return None
    else:
        text = reader.text(node, path)
        if text is None:
            return None
        codes = (text,)
    if not codes:
        reader.report(path, "give a preset name or a list of tie-break codes", node=node)
        return None
    message = _tiebreak_problem(codes)
    if message:
        reader.report(path, message, node=node)
        return None
    return codes


def _read_schedule(reader: _Reader, node: yaml.Node, path: str, timezone: str) -> _ScheduleSpec | None:
    fields = reader.mapping(
        node, path, optional=("rounds", "start", "rounds_per_day", "minutes_between_rounds")
    )
    if fields is None:
        return None
    spec = _ScheduleSpec()
    if "rounds" in fields:
        if any(k in fields for k in ("start", "rounds_per_day", "minutes_between_rounds")):
            reader.report(
                path,
                "give either 'rounds' (a list of start times) or 'start', 'rounds_per_day' "
                "and 'minutes_between_rounds', not both",
                node=node,
            )
            return None
        items = reader.sequence(fields["rounds"], f"{path}.rounds")
        if items is None:
            return None
        moments = [reader.moment(item, f"{path}.rounds[{i}]", timezone) for i, item in enumerate(items)]
        if any(m is None for m in moments):
            return None
        spec.rounds = [m for m in moments if m is not None]
        return spec
    missing = [k for k in ("start", "rounds_per_day", "minutes_between_rounds") if k not in fields]
    if missing:
        reader.report(
            path,
            f"give 'rounds' (a list of start times) or 'start', 'rounds_per_day' and "
            f"'minutes_between_rounds' (missing {', '.join(missing)})",
            node=node,
        )
        return None
    spec.start = reader.moment(fields["start"], f"{path}.start", timezone)
    spec.rounds_per_day = reader.integer(fields["rounds_per_day"], f"{path}.rounds_per_day", minimum=1)
    spec.minutes_between_rounds = reader.integer(
        fields["minutes_between_rounds"], f"{path}.minutes_between_rounds", minimum=1
    )
    if spec.start is None or spec.rounds_per_day is None or spec.minutes_between_rounds is None:
        return None
    if (spec.rounds_per_day - 1) * spec.minutes_between_rounds >= 24 * 60:
        reader.report(
            path,
            f"{spec.rounds_per_day} rounds {spec.minutes_between_rounds} minutes apart do not fit in a day",
            node=node,
        )
        return None
    return spec


def _read_bracket(reader: _Reader, node: yaml.Node) -> list[_DuelDraft]:
    items = reader.sequence(node, "bracket")
    if items is None:
        return []
    drafts: list[_DuelDraft] = []
    for index, item in enumerate(items):
        path = f"bracket[{index}]"
        fields = reader.mapping(item, path, required=("duel", "first", "second"), optional=("round",))
        if fields is None:
            continue
        key = reader.text(fields["duel"], f"{path}.duel") if "duel" in fields else None
        if key is None:
            continue
        reader.subjects[path] = f"duel {key}"
        round_name = reader.text(fields["round"], f"{path}.round") if "round" in fields else None
        sides: list[_SlotDraft | None] = []
        for side in ("first", "second"):
            if side not in fields:
                sides.append(None)
                continue
            text = reader.text(fields[side], f"{path}.{side}")
            sides.append(_SlotDraft(text, fields[side]) if text is not None else None)
        drafts.append(_DuelDraft(index, key, round_name, sides[0], sides[1]))
    return drafts


_PLAYER_KEYS = ("name", "account", "sex", "born", "rating")


def _read_teams(
    reader: _Reader, node: yaml.Node, team_format: TeamFormat | None
) -> tuple[list[Team], list[tuple[str, str]]]:
    items = reader.sequence(node, "teams")
    if items is None:
        return [], []
    teams: list[Team] = []
    captains: list[tuple[str, str]] = []
    names: dict[str, int] = {}
    federations: dict[str, int] = {}
    seeds: dict[int, int] = {}
    accounts: dict[str, str] = {}  # lower-case account -> path of the first player with it
    for index, item in enumerate(items):
        path = f"teams[{index}]"
        fields = reader.mapping(
            item, path, required=("name", "federation", "seed", "players"), optional=("captain",)
        )
        if fields is None:
            continue
        name = reader.text(fields["name"], f"{path}.name") if "name" in fields else None
        if name is not None:
            reader.subjects[path] = name
            if name in names:
                reader.report(
                    f"{path}.name", f"team {name!r} is already teams[{names[name]}]", node=fields["name"]
                )
            names.setdefault(name, index)
        federation = (
            reader.text(fields["federation"], f"{path}.federation") if "federation" in fields else None
        )
        if federation is not None:
            if not re.fullmatch(r"[A-Z]{3}", federation):
                reader.report(
                    f"{path}.federation",
                    f"expected a three-letter code such as GEO, found {federation!r}",
                    node=fields["federation"],
                )
            elif federation in federations:
                reader.report(
                    f"{path}.federation",
                    f"federation {federation} already has a team (teams[{federations[federation]}])",
                    node=fields["federation"],
                )
            federations.setdefault(federation, index)
        seed = reader.integer(fields["seed"], f"{path}.seed", minimum=1) if "seed" in fields else None
        if seed is not None:
            if seed in seeds:
                reader.report(
                    f"{path}.seed", f"seed {seed} is also given to teams[{seeds[seed]}]", node=fields["seed"]
                )
            seeds.setdefault(seed, index)
        if "captain" in fields and name is not None:
            captain = reader.text(fields["captain"], f"{path}.captain")
            if captain is not None:
                captains.append((name, captain))
        roster = (
            _read_roster(reader, fields["players"], f"{path}.players", team_format, accounts)
            if "players" in fields
            else None
        )
        if name is not None and federation is not None and seed is not None and roster is not None:
            teams.append(Team(name=name, federation=federation, seed=seed, roster=roster))
    if seeds:
        missing = sorted(set(range(1, len(items) + 1)) - set(seeds))
        if missing:
            reader.report(
                "teams", f"seeds must run 1–{len(items)} without gaps; missing: {_ranges(missing)}", node=node
            )
    return teams, captains


def _ranges(numbers: Sequence[int]) -> str:
    """1, 2, 3, 7 -> '1–3, 7'."""
    parts: list[str] = []
    start = prev = None
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif prev is not None and n == prev + 1:
            prev = n
        else:
            parts.append(f"{start}–{prev}" if start != prev else f"{start}")
            start = prev = n
    if start is not None:
        parts.append(f"{start}–{prev}" if start != prev else f"{start}")
    return ", ".join(parts)


def _eligibility_problem(player: Player, category: Category, cutoff_year: int) -> str:
    if category in (Category.WOMEN, Category.GIRL) and player.sex is not Sex.FEMALE:
        reason = "is not female"
        if category is Category.GIRL and player.birth_year < cutoff_year:
            reason += f" and was born in {player.birth_year}"
    else:
        reason = f"was born in {player.birth_year}"
    born = f", born {cutoff_year} or later" if category in (Category.JUNIOR, Category.GIRL) else ""
    return f"{player.name} {reason}: not eligible for a {category.value} board{born}"


def _read_roster(
    reader: _Reader,
    node: yaml.Node,
    path: str,
    team_format: TeamFormat | None,
    accounts: dict[str, str],
) -> tuple[RosterEntry, ...] | None:
    items = reader.sequence(node, path)
    if items is None:
        return None
    entries: list[RosterEntry] = []
    mains: dict[int, list[str]] = defaultdict(list)
    reserves: dict[Category, int] = defaultdict(int)
    ok = True
    for index, item in enumerate(items):
        player_path = f"{path}[{index}]"
        fields = reader.mapping(item, player_path, required=_PLAYER_KEYS, optional=("board", "reserve"))
        if fields is None:
            ok = False
            continue
        name = reader.text(fields["name"], f"{player_path}.name") if "name" in fields else None
        account = reader.text(fields["account"], f"{player_path}.account") if "account" in fields else None
        sex_text = reader.text(fields["sex"], f"{player_path}.sex") if "sex" in fields else None
        sex: Sex | None = None
        if sex_text is not None:
            try:
                sex = Sex(sex_text.lower())
            except ValueError:
                reader.report(
                    f"{player_path}.sex", f"sex must be m or f, found {sex_text!r}", node=fields["sex"]
                )
        born = (
            reader.integer(fields["born"], f"{player_path}.born", minimum=1900, maximum=2100)
            if "born" in fields
            else None
        )
        rating = (
            reader.integer(fields["rating"], f"{player_path}.rating", minimum=0, maximum=3500)
            if "rating" in fields
            else None
        )
        if account is not None:
            folded = account.lower()
            if folded in accounts:
                reader.report(
                    f"{player_path}.account",
                    f"account {account!r} is already used by "
                    f"{accounts[folded]}: a player belongs to one team",
                    node=fields["account"],
                )
            else:
                accounts[folded] = player_path
        if ("board" in fields) == ("reserve" in fields):
            reader.report(
                player_path,
                "give either 'board' (a main player) or 'reserve' (the category of a reserve)",
                node=item,
            )
            ok = False
            continue
        if name is None or account is None or sex is None or born is None or rating is None:
            ok = False
            continue
        player = Player(name=name, account=account, sex=sex, birth_year=born, rating=rating)
        if team_format is None:
            continue
        if "board" in fields:
            board = reader.integer(fields["board"], f"{player_path}.board", minimum=1)
            if board is None:
                ok = False
                continue
            if board > team_format.boards:
                reader.report(
                    f"{player_path}.board",
                    f"board {board} does not exist: teams play on {team_format.boards} boards",
                    node=fields["board"],
                )
                ok = False
                continue
            category = team_format.category_of(board)
            if not is_eligible(player, category, team_format.cutoff_year):
                reader.report(
                    f"{player_path}.board",
                    f"board {board}: {_eligibility_problem(player, category, team_format.cutoff_year)}",
                    node=fields["board"],
                )
            mains[board].append(name)
            entries.append(RosterEntry(player=player, main_board=board, category=category))
        else:
            reserve_category = _category(reader, fields["reserve"], f"{player_path}.reserve")
            if reserve_category is None:
                ok = False
                continue
            if not is_eligible(player, reserve_category, team_format.cutoff_year):
                reader.report(
                    f"{player_path}.reserve",
                    _eligibility_problem(player, reserve_category, team_format.cutoff_year),
                    node=fields["reserve"],
                )
            reserves[reserve_category] += 1
            entries.append(RosterEntry(player=player, main_board=None, category=reserve_category))
    if team_format is None:
        return None
    for board in range(1, team_format.boards + 1):
        if board not in mains and ok:
            reader.report(
                path, f"board {board} ({team_format.category_of(board).value}) has no main player", node=node
            )
        elif len(mains[board]) > 1:
            reader.report(
                path,
                f"board {board} has {len(mains[board])} main players: {', '.join(mains[board])}",
                node=node,
            )
    allowed = dict(team_format.reserves)
    for category, count in reserves.items():
        if count > allowed.get(category, 0):
            reader.report(
                path,
                f"{count} {category.value} reserves, at most {allowed.get(category, 0)} allowed",
                node=node,
            )
    return tuple(entries) if ok else None


# --- whole-file checks ------------------------------------------------------------------------------------


def _check_stages_and_bracket(
    reader: _Reader,
    stages: list[_StageDraft],
    duels: list[_DuelDraft],
    teams: list[Team],
    *,
    has_bracket: bool,
) -> list[DuelSpec]:
    by_key = {stage.key: stage for stage in stages}
    order = {stage.key: position for position, stage in enumerate(stages)}
    taken: dict[str, list[str]] = defaultdict(list)  # source stage -> stages taking its qualifiers
    seed_owner: dict[int, tuple[str, str]] = {}  # seed -> (stage path, stage name)
    team_count = len(teams) if teams else None

    for stage in stages:
        path = f"stages[{stage.index}]"
        qualifier_count = 0
        seed_count = 0
        counts_known = True
        for position, entrant in stage.entrants:
            entrant_path = f"{path}.entrants[{position}]"
            if isinstance(entrant, SeedRange):
                seed_count += entrant.size
                overlap = [s for s in range(entrant.first, entrant.last + 1) if s in seed_owner]
                if overlap:
                    owners = sorted({seed_owner[s][1] for s in overlap})
                    reader.report(
                        entrant_path,
                        f"{entrant} overlaps seeds already placed in {', '.join(owners)} "
                        f"({_ranges(overlap)}): a team enters one stage only",
                    )
                for s in range(entrant.first, entrant.last + 1):
                    seed_owner.setdefault(s, (path, stage.name))
                if team_count is not None and entrant.last > team_count:
                    reader.report(entrant_path, f"{entrant} goes beyond the {team_count} teams in the list")
                if stage.kind == "knockout":
                    reader.report(
                        entrant_path,
                        "a knockout stage takes qualifiers only; seeded teams cannot be "
                        "placed in the bracket",
                    )
                continue
            source = by_key.get(entrant.stage)
            if source is None:
                known = ", ".join(by_key) or "none"
                reader.report(f"{entrant_path}.from", f"no stage {entrant.stage!r} (stages: {known})")
                counts_known = False
                continue
            if order[entrant.stage] >= order[stage.key]:
                reader.report(
                    f"{entrant_path}.from",
                    f"qualifiers must come from an earlier stage; "
                    f"{source.name} is {'this stage' if source is stage else 'later'}",
                )
                counts_known = False
                continue
            if source.kind != "pools":
                reader.report(f"{entrant_path}.from", f"{source.name} is a knockout: it has no pool places")
                counts_known = False
                continue
            taken[entrant.stage].append(stage.name)
            actual = entrant.places_per_pool * source.pool_count
            if entrant.places_per_pool > source.advance:
                reader.report(
                    f"{entrant_path}.top",
                    f"takes the top {entrant.places_per_pool} of each "
                    f"{source.name} pool, but only the top {source.advance} advance",
                )
            elif entrant.places_per_pool < source.advance:
                reader.report(
                    f"{entrant_path}.top",
                    f"takes the top {entrant.places_per_pool} of each "
                    f"{source.name} pool, but the top {source.advance} advance",
                )
            if entrant.count is not None and entrant.count != actual:
                reader.report(
                    f"{entrant_path}.count",
                    f"says {entrant.count} qualifiers from {source.name}, "
                    f"but the top {entrant.places_per_pool} of {source.pool_count} pools are {actual}",
                )
            qualifier_count += entrant.count if entrant.count is not None else actual
        if stage.kind == "pools" and counts_known and stage.pool_count and stage.pool_size:
            total = qualifier_count + seed_count
            if total != stage.size:
                parts = []
                if qualifier_count:
                    parts.append(f"{qualifier_count} qualifiers")
                if seed_count:
                    parts.append(f"{seed_count} seeds")
                reader.report(
                    f"{path}.entrants",
                    f"{stage.name}: {' + '.join(parts) or 'no teams'} = {total} "
                    f"entrants, but {stage.pool_count} pools of {stage.pool_size} need {stage.size}",
                )
        if stage.kind == "pools" and stage.winners_apart and stage.pool_count:
            # docs/rules.md §3: winners of the previous stage's pools must not share a pool.
            for _, entrant in stage.entrants:
                source = by_key.get(entrant.stage) if isinstance(entrant, Qualifiers) else None
                if source is not None and source.kind == "pools" and source.pool_count > stage.pool_count:
                    reader.report(
                        f"{path}.winners_apart",
                        f"the {source.pool_count} {source.name} pool winners cannot be kept apart in "
                        f"{stage.pool_count} pools; set winners_apart: false",
                    )

    for stage in stages:
        if stage.kind != "pools" or not stage.advance:
            continue
        takers = taken.get(stage.key, [])
        path = f"stages[{stage.index}].advance"
        if not takers:
            reader.report(
                path, f"the top {stage.advance} of each {stage.name} pool advance, but no stage takes them"
            )
        elif len(takers) > 1:
            reader.report(
                path, f"{stage.name}'s qualifiers are taken by {len(takers)} stages: {', '.join(takers)}"
            )

    if team_count is not None and stages:
        placed = set(seed_owner)
        missing = sorted(set(range(1, team_count + 1)) - placed)
        if missing:
            reader.report("stages", f"seeds {_ranges(missing)} enter no stage: every team must enter one")

    knockouts = [s for s in stages if s.kind == "knockout"]
    if len(knockouts) > 1:
        reader.report(f"stages[{knockouts[1].index}]", "only one knockout stage is supported")
    if knockouts and not has_bracket:
        reader.report(
            f"stages[{knockouts[0].index}]",
            f"{knockouts[0].name} is a knockout, but the file has no 'bracket'",
        )
    if has_bracket and not knockouts:
        reader.report("bracket", "a bracket needs a stage of kind 'knockout'")
    knockout = knockouts[0] if knockouts else None
    return _check_bracket(reader, duels, stages, knockout)


def _resolve_slot(reader: _Reader, slot: _SlotDraft, path: str, stages: list[_StageDraft]) -> SlotRef | None:
    text = slot.text.strip()
    ref_match = _DUEL_REF_RE.match(text)
    if ref_match:
        duel = ref_match["duel"]
        if ref_match["kind"].lower() == "winner":
            return WinnerOf(duel)
        return LoserOf(duel)
    place_match = _PLACE_RE.match(text)
    if place_match is None:
        reader.report(
            path,
            f"cannot read {text!r}: write a pool place such as 'Top A 2nd' or 'winner IV'",
            node=slot.node,
        )
        return None
    stage_text = place_match["stage"].strip().lower()
    stage = next(
        (s for s in stages if s.key.lower() == stage_text or s.name.lower() == stage_text),
        None,
    )
    if stage is None:
        reader.report(path, f"no stage {place_match['stage']!r} in {text!r}", node=slot.node)
        return None
    pool = place_match["pool"]
    place = int(place_match["place"])
    label = text
    if stage.kind != "pools":
        reader.report(path, f"{label}: {stage.name} has no pools", node=slot.node)
        return None
    if not stage.pool_count or not stage.pool_size:
        return None  # the stage's own problem is reported already
    letters = pool_letters(stage.pool_count)
    problem = False
    if pool not in letters:
        reader.report(
            path,
            f"{label}: there is no pool {pool}; {stage.name} has {stage.pool_count} pools "
            f"({letters[0]}–{letters[-1]})",
            node=slot.node,
        )
        problem = True
    if place > stage.pool_size or place < 1:
        reader.report(
            path, f"{label}: place {place} does not exist in a pool of {stage.pool_size}", node=slot.node
        )
        problem = True
    elif place > stage.advance:
        reader.report(
            path,
            f"{label} does not qualify: only the top {stage.advance} of each {stage.name} pool advance",
            node=slot.node,
        )
        problem = True
    return None if problem else PoolPlace(stage.key, pool, place)


def _check_bracket(
    reader: _Reader, duels: list[_DuelDraft], stages: list[_StageDraft], knockout: _StageDraft | None
) -> list[DuelSpec]:
    if not duels:
        if knockout is not None:
            reader.report("bracket", "the bracket has no duels")
        return []
    names = {stage.key: stage.name for stage in stages}
    by_key = {stage.key: stage for stage in stages}
    position: dict[str, int] = {}
    for duel in duels:
        if duel.key in position:
            reader.report(f"bracket[{duel.index}].duel", f"duel {duel.key} is defined twice")
        else:
            position[duel.key] = duel.index
    feeding = (
        {e.stage for _, e in knockout.entrants if isinstance(e, Qualifiers) and e.stage in by_key}
        if knockout
        else set()
    )

    resolved: list[tuple[_DuelDraft, SlotRef | None, SlotRef | None]] = []
    used: dict[SlotRef, str] = {}
    for duel in duels:
        path = f"bracket[{duel.index}]"
        sides: list[SlotRef | None] = []
        for side_name, slot in (("first", duel.first), ("second", duel.second)):
            if slot is None:
                sides.append(None)
                continue
            side_path = f"{path}.{side_name}"
            ref = _resolve_slot(reader, slot, side_path, stages)
            if isinstance(ref, WinnerOf | LoserOf):
                if ref.duel not in position:
                    reader.report(side_path, f"{ref}: there is no duel {ref.duel}", node=slot.node)
                    ref = None
                elif position[ref.duel] >= duel.index:
                    reader.report(
                        side_path,
                        f"{ref}: duel {ref.duel} is not played before duel {duel.key}",
                        node=slot.node,
                    )
                    ref = None
            elif isinstance(ref, PoolPlace) and feeding and ref.stage not in feeding:
                reader.report(
                    side_path,
                    f"{slot.text}: the play-off takes its teams from "
                    f"{', '.join(names[s] for s in sorted(feeding))}",
                    node=slot.node,
                )
                ref = None
            if ref is not None:
                if ref in used:
                    label = slot.text if isinstance(ref, PoolPlace) else str(ref)
                    reader.report(
                        side_path,
                        f"{label} is already placed in duel {used[ref]}: a slot is filled once",
                        node=slot.node,
                    )
                else:
                    used[ref] = duel.key
            sides.append(ref)
        first, second = sides
        if (
            isinstance(first, PoolPlace)
            and isinstance(second, PoolPlace)
            and ((first.stage, first.pool) == (second.stage, second.pool))
        ):
            assert duel.first is not None and duel.second is not None
            reader.report(
                path,
                f"duel {duel.key}: {duel.first.text} vs {duel.second.text} are from the same pool",
                node=duel.first.node,
            )
        resolved.append((duel, first, second))

    # every qualifying pool place must be seated
    if knockout is not None:
        entrants = sum(
            e.count if e.count is not None else e.places_per_pool * by_key[e.stage].pool_count
            for _, e in knockout.entrants
            if isinstance(e, Qualifiers) and e.stage in by_key and by_key[e.stage].kind == "pools"
        )
        seats = {ref for ref in used if isinstance(ref, PoolPlace)}
        if entrants and len(seats) != entrants:
            reader.report(
                "bracket",
                f"the bracket seats {len(seats)} teams from pool places, but "
                f"{knockout.name} has {entrants} entrants",
            )
        for stage in stages:
            if stage.key not in feeding or stage.kind != "pools":
                continue
            for letter in pool_letters(stage.pool_count):
                for place in range(1, stage.advance + 1):
                    if PoolPlace(stage.key, letter, place) not in used:
                        reader.report(
                            "bracket",
                            f"{stage.name} {letter} {ordinal(place)} qualifies but is "
                            "never placed in the bracket",
                        )
    # every duel's winner goes on, except the final's; placement duels (losers only) end there too
    placement = {
        duel.key
        for duel, first, second in resolved
        if isinstance(first, LoserOf) and isinstance(second, LoserOf)
    }
    ends = [duel for duel in duels if WinnerOf(duel.key) not in used and duel.key not in placement]
    if len(ends) > 1:
        for duel in ends[:-1]:
            reader.report(
                f"bracket[{duel.index}]",
                f"the winner of duel {duel.key} is never placed in a later "
                f"duel (only the final's winner ends the bracket; the last duel is {ends[-1].key})",
            )
    specs: list[DuelSpec] = []
    if any(first is None or second is None for _, first, second in resolved) or reader.problems:
        return specs
    depths = _bracket_depths([DuelSpec(d.key, "", f, s) for d, f, s in resolved if f and s])
    rounds = max(depths.values(), default=0)
    for duel, first, second in resolved:
        assert first is not None and second is not None
        name = duel.round_name or _default_round_name(depths[duel.key], rounds)
        specs.append(DuelSpec(duel.key, name, first, second))
    return specs


def _check_schedules(reader: _Reader, stages: list[_StageDraft], bracket: list[DuelSpec]) -> None:
    previous: _StageDraft | None = None
    for stage in stages:
        path = f"stages[{stage.index}].schedule"
        if stage.schedule is None:
            continue
        if stage.kind == "pools":
            needed = stage.rounds
            unit = "rounds"
        else:
            needed = 2 * bracket_rounds(bracket)
            unit = "matches (two per bracket round)"
        spec = stage.schedule
        if spec.rounds is not None:
            moments = spec.rounds
            if needed and len(moments) != needed:
                reader.report(
                    f"{path}.rounds", f"{len(moments)} start times, but {stage.name} has {needed} {unit}"
                )
        else:
            assert spec.start is not None and spec.rounds_per_day and spec.minutes_between_rounds
            moments = [
                spec.start
                + timedelta(
                    days=n // spec.rounds_per_day,
                    minutes=(n % spec.rounds_per_day) * spec.minutes_between_rounds,
                )
                for n in range(needed)
            ]
        for n in range(1, len(moments)):
            if moments[n] <= moments[n - 1]:
                reader.report(
                    f"{path}.rounds[{n}]",
                    f"round {n + 1} starts at {moments[n]:%Y-%m-%d %H:%M}, not "
                    f"after round {n} ({moments[n - 1]:%Y-%m-%d %H:%M})",
                )
        if (
            previous is not None
            and previous.resolved_schedule
            and moments
            and moments[0] <= previous.resolved_schedule[-1]
        ):
            reader.report(
                path,
                f"{stage.name} starts at {moments[0]:%Y-%m-%d %H:%M}, before "
                f"{previous.name} ends ({previous.resolved_schedule[-1]:%Y-%m-%d %H:%M})",
            )
        stage.resolved_schedule = tuple(moments)
        previous = stage
