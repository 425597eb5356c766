"""The combined classification of an event with sections (Olympiad 2026 regulations 4.5.2 and Appendix
2.II; docs/sections.md): the federations ranked by the sum of their teams' places in the sections, then
TB1-TB4 the sums of their teams' match points and tie-breaks.

Each section is ranked by the standings of its last stage (a Swiss stage, or a stage of one pool): the same
standings the stage's public page and ``/api/v1/events/{slug}/stages/{key}/swiss`` show
(``standings.pool_table``: the stored rows, with byes and recorded lots, once the results service has
computed them), from the section's first result on. Nothing is ranked again here: a team's place, match
points and TB1-TB3 are read from those lines, and ``domain/combined.py`` adds them up. During the event
the classification is provisional, "after round N" (the rounds every section has finished); it is final
once every section's last stage is closed with final standings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from orchestrator.adapters.csv_files import write_csv
from orchestrator.adapters.tables import POOL_KINDS, RoundStatus, Stage, StageStatus
from orchestrator.adapters.tables import Pool as PoolRow
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.combined import Number, SectionPlace, combined_classification
from orchestrator.errors import Conflict, NotFound
from orchestrator.services.read.context import EventData, EventRef, StageItem, TeamRef, is_public, require_id
from orchestrator.services.read.documents import JsonDocument, Topics
from orchestrator.services.read.formatting import format_value
from orchestrator.services.read.standings import StandingLine, ValueCell, load_pools, pool_table
from orchestrator.translation import gettext as _

KEY_CODES = ("TB1", "TB2", "TB3", "TB4")  # the classification's tie-breaks, Appendix 2.II


@dataclass(frozen=True, slots=True)
class CombinedSection:
    """One section as the classification reads it: the stage that ranks it and how far it has got."""

    key: str
    name: str
    stage: StageItem | None  # its last stage; None when the section has no stage
    rounds_finished: int  # rounds of that stage whose every match is final
    final: bool  # the stage is closed with final standings


@dataclass(frozen=True, slots=True)
class SectionTeam:
    """A federation's team in one section and its place there."""

    section: str  # the section's key
    team: TeamRef
    place: int


@dataclass(frozen=True, slots=True)
class CombinedLine:
    place: int
    federation: str
    complete: bool  # a team in every section; an incomplete federation is listed after the others
    tied_with_previous: bool  # shares its place with the line above
    teams: tuple[SectionTeam | None, ...]  # one per section, in the sections' order; None: no team
    place_sum: int
    tiebreaks: tuple[ValueCell, ...]  # TB1 (sum of match points) .. TB4 (sum of the teams' TB3)


@dataclass(frozen=True, slots=True)
class CombinedView(JsonDocument):
    event: EventRef
    sections: tuple[CombinedSection, ...]
    final: bool  # every section final
    after_round: int  # the rounds every section has finished (0: none yet)
    lines: tuple[CombinedLine, ...]
    topics: Topics

    @property
    def started(self) -> bool:
        return bool(self.lines)

    @property
    def rounds_differ(self) -> bool:
        """The sections have finished different numbers of rounds (the page names each)."""
        return len({s.rounds_finished for s in self.sections}) > 1


def combined_view(uow: UnitOfWork, *, slug: str) -> CombinedView:
    """The event's combined classification (module docstring); NotFound for an event without sections."""
    data = EventData(uow, slug)
    sections = data.definition.sections if data.definition is not None else ()
    if len(sections) < 2:
        raise NotFound(
            _(
                "This event has no combined classification: it is played in a single section "
                "(the classification adds up a federation's places in several sections, docs/sections.md)."
            )
        )
    lasts = [_last_stage(data, section.key, section.name) for section in sections]
    pools = {require_id(stage.id): _public_pool(data, stage) for stage in lasts if stage is not None}
    loaded = {p.pool.stage_id: p for p in load_pools(data, [p for p in pools.values() if p is not None])}
    stored = list(uow.read.standings_of_pools(require_id(p.id) for p in pools.values() if p is not None))
    heads: list[CombinedSection] = []
    places: dict[str, tuple[SectionPlace, ...]] = {}
    refs: dict[str, TeamRef] = {}
    topics = [f"event:{slug}"]
    for section, stage in zip(sections, lasts, strict=True):
        lines: Sequence[StandingLine] = ()
        final = False
        if stage is not None:
            stage_id = require_id(stage.id)
            pool = loaded.get(stage_id)
            topics.append(f"stage:{stage_id}")
            if pool is not None:
                pool_id = require_id(pool.pool.id)
                table = pool_table(
                    data, stage, data.items[stage_id], pool, [s for s in stored if s.pool_id == pool_id]
                )
                # A section is ranked from its first result on (before it, every team shares place 1).
                lines = table.lines if any(match.final for match in pool.matches) else ()
                final = stage.status == StageStatus.CLOSED.value and not table.provisional
                topics += [f"pool:{pool_id}", *(f"match:{m.id}" for m in pool.matches)]
        heads.append(
            CombinedSection(
                key=section.key,
                name=section.name,
                stage=None if stage is None else data.items[require_id(stage.id)],
                rounds_finished=_rounds_finished(data, stage),
                final=final and bool(lines),
            )
        )
        places[section.key] = tuple(_section_place(line) for line in lines)
        refs.update({str(line.team.id): line.team for line in lines})
    return CombinedView(
        event=data.ref,
        sections=tuple(heads),
        final=all(head.final for head in heads),
        after_round=min(head.rounds_finished for head in heads),
        lines=_lines(places, refs),
        topics=tuple(topics),
    )


def _last_stage(data: EventData, key: str, name: str) -> Stage | None:
    """The stage whose standings rank the section: its last; refused when it ranks no single pool."""
    stages = sorted((s for s in data.stages if s.section == key), key=lambda s: s.position)
    if not stages:
        return None
    last = stages[-1]
    if last.kind not in POOL_KINDS:
        raise NotFound(
            _(
                "The %(section)s section ends with a knockout stage (%(stage)s), which has no standings: "
                "the combined classification reads each section's final standings."
            )
            % {"section": name, "stage": last.name}
        )
    return last


def _public_pool(data: EventData, stage: Stage) -> PoolRow | None:
    """The stage's one published pool; None before it is published. A stage of several pools has no one
    ranking of its teams, so it cannot rank a section."""
    pools = [p for p in data.pools if p.stage_id == stage.id]
    if len(pools) > 1:
        raise NotFound(
            _(
                "%(stage)s has %(count)d pools and no one ranking of its teams: the combined "
                "classification reads a section's standings from a Swiss stage or a stage of one pool."
            )
            % {"stage": stage.name, "count": len(pools)}
        )
    return pools[0] if pools and is_public(pools[0]) else None


def _rounds_finished(data: EventData, stage: Stage | None) -> int:
    if stage is None:
        return 0
    rounds = sorted((r for r in data.rounds if r.stage_id == stage.id), key=lambda r: r.number)
    finished = 0
    for rnd in rounds:  # the rounds finished in a row from the first (a cancelled round ends the count)
        if rnd.status != RoundStatus.FINISHED.value:
            break
        finished = rnd.number
    return finished


def _section_place(line: StandingLine) -> SectionPlace:
    """A standings line as the classification reads it: the place, the first value of the chain (match
    points) and the values after it (TB1-TB3 of Appendix 2.I), exactly as the standings hold them."""
    values = [Fraction(cell.exact) for cell in line.values]
    return SectionPlace(
        federation=line.team.federation,
        team=str(line.team.id),
        place=line.rank,
        mp=values[0] if values else Fraction(line.mp),
        tiebreaks=tuple(values[1:]),
    )


def _lines(places: dict[str, tuple[SectionPlace, ...]], refs: dict[str, TeamRef]) -> tuple[CombinedLine, ...]:
    try:
        rows = combined_classification(places)
    except ValueError as exc:  # two teams of a federation in one section (the roster checks refuse it)
        raise Conflict(
            _("The combined classification cannot be computed: %(problem)s.") % {"problem": exc}
        ) from exc
    keys = list(places)
    out: list[CombinedLine] = []
    for row in rows:
        out.append(
            CombinedLine(
                place=row.place,
                federation=row.federation,
                complete=row.complete,
                tied_with_previous=bool(out) and out[-1].place == row.place,
                teams=tuple(
                    None if team is None else SectionTeam(key, refs[team.team], team.place)
                    for key, team in zip(keys, row.teams, strict=True)
                ),
                place_sum=row.place_sum,
                tiebreaks=tuple(_cell(code, value) for code, value in zip(KEY_CODES, row.keys, strict=False)),
            )
        )
    return tuple(out)


def _cell(code: str, value: Number) -> ValueCell:
    exact = Fraction(value)
    return ValueCell(code, format_value(exact), f"{exact.numerator}/{exact.denominator}")


def combined_csv(view: CombinedView) -> str:
    """The classification as CSV: place, federation, each section's team and place, the place sum, TB1-TB4
    (whole and half values as numbers, any other as an exact fraction ``n/d``), complete (yes/no) and the
    status (final, or provisional after round N)."""
    status = "final" if view.final else f"provisional after round {view.after_round}"
    header: list[object] = ["place", "federation"]
    for section in view.sections:
        header += [f"{section.name} team", f"{section.name} place"]
    rows: list[list[object]] = [[*header, "place sum", *KEY_CODES, "complete", "status"]]
    for line in view.lines:
        cells: list[object] = [line.place, line.federation]
        for team in line.teams:
            cells += ["", ""] if team is None else [team.team.name, team.place]
        sums = [_csv_value(cell) for cell in line.tiebreaks] + [""] * (len(KEY_CODES) - len(line.tiebreaks))
        rows.append([*cells, line.place_sum, *sums, "yes" if line.complete else "no", status])
    return write_csv(rows)


def _csv_value(cell: ValueCell) -> str:
    return cell.text if cell.exact.endswith(("/1", "/2")) else cell.exact
