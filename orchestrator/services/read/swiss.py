"""The public view of a Swiss stage (docs/swiss.md, "The server"; docs/spectators.md): its one pool (the
stage's tie-break chain and its stored table, as ``standings.pool_view`` reads any pool), each round's
state, bye and absent teams, what is going on in words, then **one** round's pairings and **one**
standings table: the page and its JSON twin show one round per address (``?round=N``) and one table
(``?after=N``), so that a stage of 190 teams and 11 rounds is not ranked 11 times for every reader.

A draft pairing is not public: a round in review reads as ``unpaired`` until it is published.

- **The round shown** without ``?round``: the one being played or paired (the first published round that
  is not complete), else the latest published one; none before round 1 is paired. Every round of the
  stage is listed (``rounds``, and ``pool.rounds`` in the same order) but only the round shown carries its
  matches.
- **The standings shown**: after ``?after=N`` when given (a complete round); else after the round shown
  when it is complete; else after the last complete round.
- **Standings after round N** rank the teams that had joined by round N on the matches and byes of rounds
  1 to N, by the same engine and chain as the pool's table (``standings.ranked_lines``): each bye worth a
  drawn match's points and half the boards' game points. Teams still level after the whole chain share
  their place: a lot (tie-break (g)) orders them only in the final standings, where the pool's table
  names it; within a shared place the teams are listed by name. When a later stage takes the top N of
  this one (``{from: open, top: 8}``), the places within the top N carry the "Q" mark, by the pool page's
  rule (``places_still_in``: a withdrawn team holds no place).
- **Bonus and penalty points** (``adjustments``; docs/swiss.md, "Bonus and penalty points"): every one of
  the stage, with its team, round, points and reason; the standings after round N count those of round N
  and before, and the standings-only ones in the table after the last complete round
  (services/results/adjustments.py).
- **A team's path** (``team_steps``, shown on the team page, services/read/teams.py): one step per
  published round: the opponent, the team's colour on board 1 (the first-named team has White on the odd
  boards, Olympiad 2026 regulations Art. 4.1), the match score and the match points after the round; or
  the bye, an absence, a withdrawal, or "not entered yet".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from fractions import Fraction
from typing import Annotated

from pydantic import Field

from orchestrator.adapters.tables import PoolEntry, RoundStatus, StageKind, StageStatus, SwissRoundRole
from orchestrator.adapters.tables import SwissRoundTeam as SwissRoundRow
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import Qualifiers, places_still_in
from orchestrator.domain.scoring import MatchForfeit, MatchRecord, MatchScoring
from orchestrator.domain.swiss.systems import system_name
from orchestrator.errors import NotFound, ValidationFailed
from orchestrator.services.read.context import (
    EventData,
    EventRef,
    StageItem,
    TeamRef,
    is_public,
    require_id,
)
from orchestrator.services.read.documents import JsonDocument, Topics
from orchestrator.services.read.formatting import format_score
from orchestrator.services.read.matches import MatchLine, RoundView, round_views
from orchestrator.services.read.standings import (
    PoolData,
    PoolView,
    StandingLine,
    load_pools,
    match_record,
    pool_view_of,
    ranked_lines,
)
from orchestrator.services.results import adjustments as score_adjustments
from orchestrator.services.results.standings import bye_record
from orchestrator.translation import gettext as _
from orchestrator.translation import ngettext

# The rounds whose pairing is public (a draft is staff-only; a cancelled round was never played).
_PUBLISHED = frozenset(
    s.value for s in (RoundStatus.SCHEDULED, RoundStatus.PAIRED, RoundStatus.PLAYING, RoundStatus.FINISHED)
)


@dataclass(frozen=True, slots=True)
class SwissTeamRef:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class SwissRoundLine:
    number: int
    status: str  # unpaired (a draft too), scheduled, paired, playing, finished, cancelled
    scheduled_at: datetime | None
    bye: SwissTeamRef | None
    absent: tuple[SwissTeamRef, ...]
    full_byes: tuple[SwissTeamRef, ...] = ()  # requested full-point byes (docs/trf.md, "Requested byes")
    half_byes: tuple[SwissTeamRef, ...] = ()  # requested half-point byes


@dataclass(frozen=True, slots=True)
class SwissAdjustmentLine:
    """Bonus or penalty points of a team (module docstring): ``mp`` match points and ``gp_half`` game
    half-points added (negative: taken away) from the standings after round ``after_round`` on (0: from the
    start; ``standings_only``: in the standings, never in a pairing), and why."""

    team: SwissTeamRef
    after_round: int
    standings_only: bool
    mp: int
    gp_half: int
    reason: str

    @property
    def points_text(self) -> str:
        """The points as a spectator reads them: "−2 MP, −½ GP"."""
        parts = []
        for value, unit in ((Fraction(self.mp), "MP"), (Fraction(self.gp_half, 2), "GP")):
            if value:
                sign = "+" if value > 0 else "\u2212"
                parts.append(f"{sign}{format_score(int(abs(value) * 2))} {unit}")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class SwissStandingsAfter:
    """The standings after one complete round (module docstring)."""

    round: int
    standings: tuple[StandingLine, ...]


@dataclass(frozen=True, slots=True)
class SwissPathStep:
    """One round of a team's path (module docstring)."""

    round: int
    kind: str  # "match", "bye", "full_bye", "half_bye" (requested), "absent", "withdrawn", "not entered"
    opponent: TeamRef | None = None
    colour: str | None = None  # the team's colour on board 1: "white" (first-named) or "black"
    match_id: int | None = None
    own_half: int | None = None  # None until the match has started
    other_half: int | None = None
    final: bool = False
    forfeit: str = ""  # the match's forfeit code, seen from the first-named team ("+-", "-+", "--")
    mp: int | None = None  # match points of this round, once final
    mp_after: int | None = None  # match points after this round, once it and every earlier one are final

    @property
    def score_text(self) -> str:
        if self.kind != "match" or self.own_half is None or self.other_half is None:
            return ""
        if self.forfeit == MatchForfeit.DOUBLE.value:
            return "−/− (double forfeit)"
        return f"{format_score(self.own_half)}–{format_score(self.other_half)}"

    @property
    def outcome(self) -> str | None:
        if not self.final or self.own_half is None or self.other_half is None:
            return None
        if self.forfeit == MatchForfeit.DOUBLE.value or self.own_half < self.other_half:
            return "loss"
        return "win" if self.own_half > self.other_half else "draw"


@dataclass(frozen=True, slots=True)
class SwissView(JsonDocument):
    """One address of a Swiss stage (module docstring): every round's state, the pairings of the round
    shown (``round``) and the standings after round ``after``."""

    pool: Annotated[
        PoolView,
        Field(
            description="The stage's pool: chain, stored standings, tie-break lots; its rounds list every "
            "round but only the round given (`round`) carries its matches; its cross table is empty."
        ),
    ]
    rounds: Annotated[
        tuple[SwissRoundLine, ...], Field(description="Every round: its state, bye and absent teams.")
    ]
    topics: Topics
    summary: str = ""  # what is going on, in words ("Round 3 of 5 is being played.")
    complete_rounds: Annotated[
        tuple[int, ...], Field(description="The complete rounds: the tables `?after=N` may ask for.")
    ] = ()
    ended_early: bool = False
    round: Annotated[
        int | None,
        Field(description="The round whose matches are given (`?round=N`); null before round 1 is paired."),
    ] = None
    current_round: Annotated[
        int | None,
        Field(
            description="The round given without `?round`: the one being played or paired, else the latest."
        ),
    ] = None
    after: Annotated[
        int | None,
        Field(
            description="The round the standings are after (`?after=N`; default: `round` when it is "
            "complete, else the last complete round); null before round 1 is complete."
        ),
    ] = None
    standings_after: Annotated[
        tuple[SwissStandingsAfter, ...],
        Field(description="The one table given: the standings after round `after` (empty before then)."),
    ] = ()
    system: str = system_name(None)  # the stage's pairing system, as pages name it
    qualifying: int = 0  # the top N that a later stage takes (0: none does)
    qualifying_to: str = ""  # the name of that stage
    adjustments: Annotated[
        tuple[SwissAdjustmentLine, ...],
        Field(description="The stage's bonus and penalty points (TRF-2026 record 299), each with why."),
    ] = ()

    def adjustments_of(self, team_id: int) -> tuple[SwissAdjustmentLine, ...]:
        return tuple(a for a in self.adjustments if a.team.id == team_id)

    @property
    def event(self) -> EventRef:
        return self.pool.event

    @property
    def stage(self) -> StageItem:
        return self.pool.stage

    @property
    def last_complete(self) -> int | None:
        return self.complete_rounds[-1] if self.complete_rounds else None

    @property
    def shown(self) -> SwissRoundLine | None:
        return next((r for r in self.rounds if r.number == self.round), None)

    @property
    def standings(self) -> tuple[StandingLine, ...]:
        """The table shown: after round ``after``."""
        return self.standings_after[0].standings if self.standings_after else ()

    def matches_of(self, number: int) -> tuple[MatchLine, ...]:
        return next((r.matches for r in self.pool.rounds if r.number == number), ())


def is_swiss_stage(uow: UnitOfWork, *, slug: str, stage_key: str) -> bool:
    """Whether ``stage_key`` names a Swiss stage of the event (the stage page then shows it as one)."""
    event = uow.events.get_by_slug(slug)
    stage = None if event is None else uow.events.stage_by_key(event.id or 0, stage_key)
    return stage is not None and stage.kind == StageKind.SWISS.value


def swiss_view(
    uow: UnitOfWork, *, slug: str, stage_key: str, round_no: str = "", after: str = ""
) -> SwissView:
    """A Swiss stage for spectators: the round ``round_no`` (``?round=``) and the standings after round
    ``after`` (``?after=``), each chosen as the module docstring says when empty; NotFound for another kind
    of stage, ValidationFailed for a round the stage does not have or a round not complete."""
    data = EventData(uow, slug)
    stage = next((s for s in data.stages if s.key == stage_key), None)
    if stage is None or stage.kind != StageKind.SWISS.value:
        raise NotFound(_("There is no Swiss stage %(key)r in this event.") % {"key": stage_key})
    pool_row = next((p for p in data.pools if p.stage_id == stage.id and is_public(p)), None)
    if pool_row is None:
        raise NotFound(
            _("%(stage)s has not started yet: its teams are numbered when it starts.") % {"stage": stage.name}
        )
    pool = load_pools(data, [pool_row])[0]
    all_rounds = tuple(replace(r, status=_public(r.status)) for r in round_views(pool.rounds, pool.matches))
    complete = tuple(r.number for r in all_rounds if r.status == RoundStatus.FINISHED.value)
    current = _current_round(all_rounds, complete)
    shown = _asked_round(all_rounds, round_no, current)
    standings_round = _standings_round(complete, after, shown)
    view = pool_view_of(data, stage, pool, crosstable=False)
    # Only the round shown carries its matches: the others are one address each.
    view = replace(view, rounds=tuple(r if r.number == shown else replace(r, matches=()) for r in all_rounds))
    extra = uow.rounds.round_teams_of_stage(require_id(stage.id))
    names = {t.id or 0: t.name for t in uow.teams.teams_by_id(row.team_id for row, _n in extra).values()}
    top, taker = _taken_top(data, stage_key)
    stored = score_adjustments.stage_adjustments(uow, require_id(stage.id))
    tables: tuple[SwissStandingsAfter, ...] = ()
    if standings_round is not None:
        entries = [e for e in data.entries if e.pool_id == pool.pool.id]
        lines = ranked_lines(
            data, pool, data.chain(stage), _records_until(pool, _byes(extra, data.boards), standings_round),
            team_ids=[e.team_id for e in entries if (e.joined_round or 1) <= standings_round],
            bye_mp=data.scoring.draw,
            adjustments=_adjusted(stored, standings_round, last=standings_round == complete[-1]),
        )  # fmt: skip
        tables = (SwissStandingsAfter(standings_round, _qualifying(_by_name(lines), pool.withdrawn, top)),)
    shown_matches = next((r.matches for r in all_rounds if r.number == shown), ())
    # Every change of a match is announced on its pool and stage too (services/live.py ``coarse_of``), so
    # the page follows those; the round shown's matches are named for the page cache all the same.
    topics = (
        f"event:{data.ref.slug}",
        f"stage:{stage.id}",
        f"pool:{view.id}",
        *(f"match:{m.id}" for m in shown_matches),
    )
    return SwissView(
        pool=view,
        rounds=tuple(_round_line(r, extra, names) for r in all_rounds),
        topics=topics,
        summary=_summary(view.stage, all_rounds, complete),
        complete_rounds=complete,
        ended_early=any(r.status == RoundStatus.CANCELLED.value for r in all_rounds),
        round=shown,
        current_round=current,
        after=standings_round,
        standings_after=tables,
        system=_(  # the names are msgids of web/domain_text.py
            system_name(
                next((s.pairing for s in data.definition.stages if s.key == stage_key), None)
                if data.definition
                else None
            )
        ),
        qualifying=top,
        qualifying_to=taker,
        adjustments=tuple(
            SwissAdjustmentLine(
                SwissTeamRef(a.team_id, pool.teams[a.team_id].name if a.team_id in pool.teams else ""),
                a.after_round,
                a.standings_only,
                a.mp,
                a.gp_half,
                a.reason,
            )
            for a in stored
        ),
    )


def _adjusted(
    stored: Sequence[score_adjustments.Adjustment], after: int, *, last: bool
) -> dict[str, tuple[int, int]]:
    """The bonus and penalty points counted after round ``after``, by team id as text (``ranked_lines``)."""
    keys = {a.team_id: str(a.team_id) for a in stored}
    return score_adjustments.totals(stored, keys, after=after, last=last)


def _current_round(rounds: Sequence[RoundView], complete: Sequence[int]) -> int | None:
    """The round shown without ``?round`` (module docstring)."""
    published = [r.number for r in rounds if r.status in _PUBLISHED]
    going = [n for n in published if n not in complete]
    if going:
        return going[0]
    return published[-1] if published else None


def _asked_round(rounds: Sequence[RoundView], asked: str, current: int | None) -> int | None:
    """``asked`` (``?round=N``) or ``current``; ValidationFailed naming the stage's rounds for anything
    else."""
    text = asked.strip()
    if not text:
        return current
    number = _number(text)
    if number not in [r.number for r in rounds]:
        raise ValidationFailed([_("round: choose a round from 1 to %(last)d") % {"last": len(rounds)}])
    return number


def _standings_round(complete: Sequence[int], after: str, shown: int | None) -> int | None:
    """The round whose standings are shown (module docstring); ValidationFailed naming the complete rounds
    for an ``after`` that is not one of them."""
    text = after.strip()
    if not text:
        if shown is not None and shown in complete:
            return shown
        return complete[-1] if complete else None
    number = _number(text)
    if number not in complete:
        done = ", ".join(map(str, complete)) or _("none yet")
        raise ValidationFailed(
            [_("after: choose a complete round (complete rounds: %(done)s)") % {"done": done}]
        )
    return number


def _number(text: str) -> int | None:
    """A round number as an address writes it (ASCII digits, at most 5 of them), else None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) < 6 else None


def _taken_top(data: EventData, stage_key: str) -> tuple[int, str]:
    """The top N of the stage that a later stage takes, and that stage's name; (0, "") when none does."""
    stages = data.definition.stages if data.definition else ()
    for later in stages:
        for entrant in later.entrants:
            if isinstance(entrant, Qualifiers) and entrant.stage == stage_key:
                return entrant.places_per_pool, later.name
    return 0, ""


def _by_name(lines: Sequence[StandingLine]) -> tuple[StandingLine, ...]:
    """The lines in rank order, teams sharing a place by name; what sets a line apart from the one above
    (``separated_by``, ``tied_with_previous``) stays with its position in the table."""
    ordered = sorted(lines, key=lambda line: (line.rank, line.team.name.casefold(), line.team.id))
    return tuple(
        replace(line, separated_by=at.separated_by, tied_with_previous=at.tied_with_previous)
        for at, line in zip(lines, ordered, strict=True)
    )


def _qualifying(
    lines: Sequence[StandingLine], withdrawn: dict[int, int], top: int
) -> tuple[StandingLine, ...]:
    """The "Q" mark on the places within ``top`` among the teams still in (docs/rules.md §6)."""
    places = places_still_in(((line.team.id, line.rank) for line in lines), withdrawn)
    return tuple(replace(line, qualifies=0 < places.get(line.team.id, 0) <= top) for line in lines)


def _public(status: str) -> str:
    return RoundStatus.UNPAIRED.value if status == RoundStatus.DRAFT.value else status


def _round_line(
    rnd: RoundView, extra: Sequence[tuple[SwissRoundRow, int]], names: dict[int, str]
) -> SwissRoundLine:
    here = [row for row, number in extra if number == rnd.number]
    bye = next((row.team_id for row in here if row.role == SwissRoundRole.BYE.value), None)
    return SwissRoundLine(
        number=rnd.number,
        status=rnd.status,
        scheduled_at=rnd.scheduled_at,
        bye=None if bye is None else SwissTeamRef(bye, names[bye]),
        absent=tuple(
            SwissTeamRef(row.team_id, names[row.team_id]) for row in here if row.role == SwissRoundRole.ABSENT
        ),
        full_byes=tuple(
            SwissTeamRef(row.team_id, names[row.team_id])
            for row in here
            if row.role == SwissRoundRole.FULL_BYE
        ),
        half_byes=tuple(
            SwissTeamRef(row.team_id, names[row.team_id])
            for row in here
            if row.role == SwissRoundRole.HALF_BYE
        ),
    )


def _byes(extra: Sequence[tuple[SwissRoundRow, int]], boards: int) -> list[MatchRecord]:
    """Each published bye: half the boards' game points (its match points come from ``bye_mp``), and each
    requested bye (``bye_record``; the callers keep those of the rounds complete)."""
    records = (bye_record(row.role, number, str(row.team_id), boards) for row, number in extra)
    return [record for record in records if record is not None]


def _records_until(pool: PoolData, byes: Sequence[MatchRecord], last: int) -> list[MatchRecord]:
    records = [match_record(m) for m in pool.matches if m.round_number <= last]
    return [r for r in records if r is not None] + [b for b in byes if b.round <= last]


def _summary(stage: StageItem, rounds: Sequence[RoundView], complete: Sequence[int]) -> str:
    """What is going on, in words (in the reader's language)."""
    total = len(rounds)
    last = complete[-1] if complete else 0
    if stage.status == StageStatus.CLOSED.value:
        cancelled = [r.number for r in rounds if r.status == RoundStatus.CANCELLED.value]
        # The stage's rounds are the rounds played now (docs/rules.md §10, "Ending a Swiss early").
        if cancelled:
            return ngettext(
                "Ended early after round %(last)s (round %(listed)s cancelled): the stage has %(last)s "
                "rounds and the standings after round %(last)s are final.",
                "Ended early after round %(last)s (rounds %(listed)s cancelled): the stage has %(last)s "
                "rounds and the standings after round %(last)s are final.",
                len(cancelled),
            ) % {"last": last, "listed": ", ".join(map(str, cancelled))}
        return _("Finished: all %(total)s rounds are complete and the standings are final.") % {
            "total": total
        }
    current = next((r for r in rounds if r.status in _PUBLISHED and r.number not in complete), None)
    if current is not None:
        if current.status == RoundStatus.PLAYING.value or any(m.started for m in current.matches):
            return _("Round %(number)s of %(total)s is being played.") % {
                "number": current.number,
                "total": total,
            }
        return _("Round %(number)s of %(total)s is paired: the pairings are below.") % {
            "number": current.number,
            "total": total,
        }
    if last == 0:
        return _("Round 1 of %(total)s is not paired yet.") % {"total": total}
    if last == total:
        return _("All %(total)s rounds are complete; the standings become final when the stage closes.") % {
            "total": total
        }
    return _("Round %(last)s of %(total)s is complete; round %(next)s is not paired yet.") % {
        "last": last,
        "total": total,
        "next": last + 1,
    }


def team_steps(
    entry: PoolEntry,
    rounds: Sequence[RoundView],
    extra: Sequence[tuple[SwissRoundRow, int]],
    scoring: MatchScoring,
) -> tuple[SwissPathStep, ...]:
    """One team's path through the published rounds (module docstring); ``rounds`` carry their matches."""
    team_id = entry.team_id
    roles = {number: row.role for row, number in extra if row.team_id == team_id}
    steps: list[SwissPathStep] = []
    total: int | None = 0
    for rnd in rounds:
        if rnd.status not in _PUBLISHED:
            continue
        match = next((m for m in rnd.matches if team_id in (m.first.id, m.second.id)), None)
        if match is not None:
            step = _match_step(rnd.number, match, team_id, scoring)
        elif roles.get(rnd.number) == SwissRoundRole.BYE.value:
            step = SwissPathStep(rnd.number, "bye", final=True, mp=scoring.draw)
        elif roles.get(rnd.number) == SwissRoundRole.FULL_BYE.value:
            step = SwissPathStep(rnd.number, "full_bye", final=True, mp=scoring.win)
        elif roles.get(rnd.number) == SwissRoundRole.HALF_BYE.value:
            step = SwissPathStep(rnd.number, "half_bye", final=True, mp=scoring.draw)
        elif (entry.joined_round or 1) > rnd.number:
            step = SwissPathStep(rnd.number, "not entered", final=True, mp=0)
        elif entry.withdrawn_round is not None and entry.withdrawn_round <= rnd.number:
            step = SwissPathStep(rnd.number, "withdrawn", final=True, mp=0)
        else:
            step = SwissPathStep(rnd.number, "absent", final=True, mp=0)
        total = None if total is None or step.mp is None else total + step.mp
        steps.append(replace(step, mp_after=total))
    return tuple(steps)


def _match_step(round_no: int, match: MatchLine, team_id: int, scoring: MatchScoring) -> SwissPathStep:
    first = match.first.id == team_id
    own, other = (match.first_half, match.second_half) if first else (match.second_half, match.first_half)
    step = SwissPathStep(
        round_no,
        "match",
        opponent=match.second if first else match.first,
        colour="white" if first else "black",
        match_id=match.id,
        own_half=own if match.started else None,
        other_half=other if match.started else None,
        final=match.final,
        forfeit=match.forfeit,
    )
    if not match.final:
        return step
    double = match.forfeit == MatchForfeit.DOUBLE.value
    return replace(step, mp=scoring.loss if double else scoring.match_points(own, other))


@dataclass(frozen=True, slots=True)
class SwissLeaders:
    """The top of a Swiss stage's standings after its last complete round (the event page's podium or
    leaders): the same table as ``swiss_view``'s, computed for that round only."""

    stage: StageItem
    after_round: int  # 0: no round complete yet (no lines)
    lines: tuple[StandingLine, ...]
    topics: tuple[str, ...]


def swiss_leaders(uow: UnitOfWork, *, slug: str, stage_key: str, top: int = 3) -> SwissLeaders:
    """The first ``top`` places (more when teams share the last of them) after the last complete round."""
    data = EventData(uow, slug)
    stage = next((s for s in data.stages if s.key == stage_key and s.kind == StageKind.SWISS.value), None)
    if stage is None:
        raise NotFound(_("There is no Swiss stage %(key)r in this event.") % {"key": stage_key})
    item = data.items[require_id(stage.id)]
    pool_row = next((p for p in data.pools if p.stage_id == stage.id and is_public(p)), None)
    topics: tuple[str, ...] = (f"event:{slug}", f"stage:{stage.id}")
    if pool_row is None:
        return SwissLeaders(item, 0, (), topics)
    pool = load_pools(data, [pool_row])[0]
    topics = (*topics, f"pool:{pool_row.id}", *(f"match:{m.id}" for m in pool.matches))
    complete = [r.number for r in pool.rounds if r.status == RoundStatus.FINISHED.value]
    if not complete:
        return SwissLeaders(item, 0, (), topics)
    last = max(complete)
    extra = uow.rounds.round_teams_of_stage(require_id(stage.id))
    entries = [e for e in data.entries if e.pool_id == pool.pool.id]
    stored = score_adjustments.stage_adjustments(uow, require_id(stage.id))
    lines = _by_name(
        ranked_lines(
            data,
            pool,
            data.chain(stage),
            _records_until(pool, _byes(extra, data.boards), last),
            team_ids=[e.team_id for e in entries if (e.joined_round or 1) <= last],
            bye_mp=data.scoring.draw,
            adjustments=_adjusted(stored, last, last=True),
        )
    )
    return SwissLeaders(item, last, tuple(line for line in lines if line.rank <= top), topics)
