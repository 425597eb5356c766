"""Event definition: team format, stage graph, bracket, schedule, field (docs/rules.md §1, §3, §5).

The model only: frozen dataclasses and the pure helpers the rest of the system needs (entrants of a stage,
bracket rounds, the summary ``olympiad validate`` prints). Reading and checking an event file is
``orchestrator.eventfile`` (the file format is described in docs/event-file.md).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TypeVar

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, SlotRef, WinnerOf
from orchestrator.domain.knockout import ArmageddonClock
from orchestrator.domain.scoring import MatchScoring
from orchestrator.domain.teams import Team, TeamFormat


class StageKind(StrEnum):
    """How a stage is played (docs/rules.md §3; docs/event-file.md); the value is the event file's word
    and the stored ``stage.kind``."""

    POOLS = "pools"  # round-robin pools
    KNOCKOUT = "knockout"  # the play-off bracket of duels (docs/rules.md §5)
    SWISS = "swiss"  # one pool holding every entrant, paired round by round (docs/swiss.md)


# Stages whose teams sit in pools and play rounds of matches with standings (a Swiss stage has one pool).
POOL_KINDS = frozenset({StageKind.POOLS, StageKind.SWISS})

TeamT = TypeVar("TeamT", bound=Hashable)

# --- the model --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimeControl:
    """``minutes`` for the game (or, with ``moves``, for the first ``moves`` moves, then ``then_minutes``
    for the rest), ``increment_seconds`` a move from move 1. Game servers that know one period only get
    the first one (``minutes``)."""

    minutes: int
    increment_seconds: int
    moves: int | None = None
    then_minutes: int = 0

    def __str__(self) -> str:
        if self.moves is None:
            return f"{self.minutes}+{self.increment_seconds}"
        return f"{self.minutes}/{self.moves}+{self.then_minutes}+{self.increment_seconds}"

    @property
    def single_period(self) -> tuple[int, int]:
        """What a game server whose clock has one period plays (Lichess: ``clock.limit`` and
        ``clock.increment``, in seconds): the first period and the increment; the period after move
        ``moves`` cannot be given (docs/gameserver.md, "Clocks with several periods")."""
        return self.minutes * 60, self.increment_seconds

    @property
    def has_periods(self) -> bool:
        """Whether the clock has a second period, which a one-period game server cannot play."""
        return self.moves is not None

    @property
    def description(self) -> str:
        """As people say it: ``90 minutes for 40 moves, then 30 minutes, 30 seconds a move from move 1``."""
        increment = f", {self.increment_seconds} seconds a move from move 1" if self.increment_seconds else ""
        if self.moves is None:
            return f"{self.minutes} minutes{increment}"
        return f"{self.minutes} minutes for {self.moves} moves, then {self.then_minutes} minutes{increment}"


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
    """The top ``places_per_pool`` of every pool of ``stage`` enter this stage (of a Swiss stage, which
    has one standings table: its top ``places_per_pool``).

    ``count`` is the number the rules state, if the file states one; it is checked, never trusted.
    """

    stage: str
    places_per_pool: int
    count: int | None = None


Entrant = SeedRange | Qualifiers


@dataclass(frozen=True, slots=True)
class Section:
    """A section of the event (docs/sections.md): its own field, stages, pairings and standings.
    ``eligibility``: ``open`` (anybody) or ``female`` (female players only)."""

    key: str
    name: str
    eligibility: str = "open"


@dataclass(frozen=True, slots=True)
class StageDef:
    """One stage. For a knockout or Swiss stage pool_count, pool_size and advance are 0; a Swiss stage
    has ``round_count`` rounds paired by ``pairing`` (docs/swiss.md).

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
    # Winners of the previous stage's pools go to different pools (docs/rules.md §3).
    winners_apart: bool = True
    time_control: TimeControl | None = None  # the stage's clock when it differs from the event's
    round_time_controls: tuple[TimeControl | None, ...] = ()  # a round's own clock, by round (schedule order)
    round_count: int = 0  # a Swiss stage's rounds
    pairing: str = ""  # a Swiss stage's pairing system (PAIRING_SYSTEMS in domain/swiss/pairing.py)
    # A Swiss stage whose next round the workers pair and publish as soon as the round before is finished,
    # with no review at the round desk (docs/event-file.md, docs/swiss.md); off: staff publish each round.
    auto_publish: bool = False
    section: str = ""  # the key of the stage's section; "" in an event without sections

    @property
    def is_pools(self) -> bool:
        return self.kind == "pools"

    @property
    def is_swiss(self) -> bool:
        return self.kind == "swiss"

    @property
    def rounds(self) -> int:
        """Round-robin rounds of a pool (C.05 Annex 1: n-1 for even n, n with a bye for odd n), or the
        rounds of a Swiss stage."""
        if self.is_swiss:
            return self.round_count
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
    sections: tuple[Section, ...] = ()  # none: one implicit section holds every team and stage
    rated: bool = False  # FIDE-rated: the rating-change pages are shown (docs/ratings.md)
    organiser: str | None = (
        None  # the organising federation: its B and C teams (Olympiad Pairing Rules 2.1-2.2)
    )
    board_prize_min_games: int = 8  # games played to be eligible for a board prize (docs/board-prizes.md)
    # a lot's commitment is public at least this long before its draw (docs/lots.md; docs/record.md)
    lot_publication_delay_s: int = 0

    def section_list(self) -> tuple[Section, ...]:
        """The event's sections; an event without ``sections`` has one implicit section (key "")."""
        return self.sections or (Section("", self.name),)

    def stages_of(self, section: str) -> tuple[StageDef, ...]:
        return tuple(stage for stage in self.stages if stage.section == section)

    def teams_of(self, section: str) -> tuple[Team, ...]:
        return tuple(team for team in self.teams if team.section == section)

    def lineup_deadline(self, start: datetime | None) -> datetime | None:
        """When the lineups of a round starting at ``start`` close; None: at its start (or no start yet)."""
        if start is None or not self.lineup_deadline_minutes:
            return None
        return start - timedelta(minutes=self.lineup_deadline_minutes)

    def time_control_of(self, stage_key: str, round_number: int) -> TimeControl:
        """The clock of a stage's round: the round's own, else the stage's, else the event's."""
        stage = next((s for s in self.stages if s.key == stage_key), None)
        if stage is None:
            return self.time_control
        index = round_number - 1
        if 0 <= index < len(stage.round_time_controls):
            own = stage.round_time_controls[index]
            if own is not None:
                return own
        return stage.time_control or self.time_control

    def time_controls(self) -> tuple[TimeControl, ...]:
        """Every clock the event plays with: the event's, then the stages' and the rounds' own."""
        clocks = [self.time_control]
        for stage in self.stages:
            clocks.extend(c for c in (stage.time_control, *stage.round_time_controls) if c is not None)
        return tuple(dict.fromkeys(clocks))

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
        pool = f" {ref.pool}" if ref.pool else ""  # a Swiss stage has one table, no pool letter
        return f"{names.get(ref.stage, ref.stage)}{pool} {ordinal(ref.place)}"
    return str(ref)


def qualifier_count(source: StageDef, entrant: Qualifiers) -> int:
    """How many teams ``entrant`` brings from ``source``: the top N of each pool, or of a Swiss stage."""
    if source.is_swiss:
        return entrant.places_per_pool
    return entrant.places_per_pool * source.pool_count


def places_still_in(ranked: Iterable[tuple[TeamT, int]], withdrawn: Collection[TeamT]) -> dict[TeamT, int]:
    """Each team of a pool's table that did not withdraw from the stage, with its place among those teams:
    one more than the number of them ranked above it (docs/rules.md §6, "Withdrawals").

    A withdrawn team keeps its rank in the table but holds no place, so the qualifying places, and a
    bracket slot such as ``Top A 1st``, pass to the next-placed teams still in. Teams sharing a rank share
    a place. The one rule for who qualifies: the "Q" mark, the next stage's draft and the bracket's pool
    places all read it.
    """
    still_in = [(team, rank) for team, rank in ranked if team not in withdrawn]
    return {team: 1 + sum(1 for _, other in still_in if other < rank) for team, rank in still_in}


def stage_entrants(
    event: EventDefinition, stage_key: str, qualifiers: Mapping[str, Sequence[Sequence[str]]]
) -> list[str]:
    """Team names entering a stage: qualifiers first (all pool winners in pool order, then all 2nds, ...),
    then the seeded teams in seed order.

    ``qualifiers`` maps an earlier stage's key to its final pool standings: one ordered list of team names
    per pool, in pool order (A, B, ...); for a Swiss stage, one list (its final standings).
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
            if source.is_swiss:
                if len(standings) != 1 or len(standings[0]) < entrant.places_per_pool:
                    raise ValueError(
                        f"{source.name} has no top {entrant.places_per_pool} in the standings given"
                    )
                names.extend(standings[0][: entrant.places_per_pool])
                continue
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


def bracket_depths(bracket: Sequence[DuelSpec]) -> dict[str, int]:
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
    depths = bracket_depths(bracket)
    return max(depths.values(), default=0)


def default_round_name(depth: int, rounds: int) -> str:
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
    pools: str  # "5 × 10", "knockout" or "Swiss (fide-team-swiss)"
    rounds: int  # round-robin rounds, or bracket rounds of a knockout
    first_round: datetime | None
    last_round: datetime | None
    advance: str  # "top 3 of each pool (15) → Division 3"
    section: str = ""  # the section's name, in an event with sections


@dataclass(frozen=True, slots=True)
class EventSummary:
    name: str
    slug: str
    teams: int
    time_control: str
    timezone: str
    stages: tuple[StageSummary, ...]
    bracket: tuple[str, ...]  # "I (Preliminary): Top A 2nd – Top B 3rd"
    sections: tuple[str, ...] = ()  # "Women [women]: 160 teams, female players only"

    def __rich__(self) -> str:
        """Consoles that pretty-print dataclasses (rich) show the text instead."""
        return str(self)

    def __str__(self) -> str:
        lines = [
            f"{self.name} ({self.slug}): {self.teams} teams, time control {self.time_control}, "
            f"times in {self.timezone}"
        ]
        if self.sections:
            lines.append("  Sections:")
            lines.extend(f"    {line}" for line in self.sections)
        for stage in self.stages:
            when = ""
            if stage.first_round and stage.last_round:
                when = f", {stage.first_round:%Y-%m-%d %H:%M} – {stage.last_round:%Y-%m-%d %H:%M}"
            rounds = (
                f"{stage.rounds} bracket rounds" if stage.kind == "knockout" else f"{stage.rounds} rounds"
            )
            section = f" ({stage.section} section)" if stage.section else ""
            lines.append(
                f"  {stage.name} [{stage.key}]{section}: {stage.entrants}; {stage.pools}, {rounds}{when}"
            )
            if stage.advance:
                lines.append(f"    advance: {stage.advance}")
        if self.bracket:
            lines.append("  Bracket:")
            lines.extend(f"    {line}" for line in self.bracket)
        return "\n".join(lines)


def summary(event: EventDefinition) -> EventSummary:
    """What ``olympiad validate`` prints: stages, entrants, pools, rounds, dates and the bracket."""
    names = {stage.key: stage.name for stage in event.stages}
    section_names = {section.key: section.name for section in event.sections}
    takers: dict[str, str] = {}
    takers_top: dict[str, int] = {}
    for stage in event.stages:
        for entrant in stage.entrants:
            if isinstance(entrant, Qualifiers):
                takers[entrant.stage] = stage.name
                takers_top[entrant.stage] = entrant.places_per_pool
    stages: list[StageSummary] = []
    for stage in event.stages:
        parts: list[str] = []
        total = 0
        for entrant in stage.entrants:
            if isinstance(entrant, Qualifiers):
                source = event.stage(entrant.stage)
                count = qualifier_count(source, entrant)
                where = (
                    names[entrant.stage]
                    if source.is_swiss
                    else f"{source.pool_count} {names[entrant.stage]} pools"
                )
                parts.append(f"{count} qualifiers (top {entrant.places_per_pool} of {where})")
            else:
                count = entrant.size
                parts.append(f"{entrant} ({count})")
            total += count
        advance = ""
        if stage.is_pools and stage.advance:
            advance = f"top {stage.advance} of each pool ({stage.advancing})"
            if stage.key in takers:
                advance += f" → {takers[stage.key]}"
        elif stage.is_swiss and stage.key in takers:
            advance = f"top {takers_top[stage.key]} → {takers[stage.key]}"
        stages.append(
            StageSummary(
                key=stage.key,
                name=stage.name,
                kind=stage.kind,
                entrants=" + ".join(parts) + f" = {total}",
                entrant_count=total,
                pools=_shape(stage),
                rounds=bracket_rounds(event.bracket) if stage.kind == "knockout" else stage.rounds,
                first_round=stage.schedule[0] if stage.schedule else None,
                last_round=stage.schedule[-1] if stage.schedule else None,
                advance=advance,
                section=section_names.get(stage.section, ""),
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
        time_control=str(event.time_control)
        if event.time_control.moves is None
        else event.time_control.description,
        timezone=event.timezone,
        stages=tuple(stages),
        bracket=bracket,
        sections=tuple(
            f"{section.name} [{section.key}]: {len(event.teams_of(section.key))} teams"
            + (", female players only" if section.eligibility == "female" else "")
            for section in event.sections
        ),
    )


def _shape(stage: StageDef) -> str:
    if stage.is_pools:
        return f"{stage.pool_count} × {stage.pool_size}"
    if stage.is_swiss:
        return f"Swiss ({stage.pairing})"
    return "knockout"
