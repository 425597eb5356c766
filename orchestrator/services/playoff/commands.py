"""The play-off: the bracket from the Top division's closed standings, duels, and the Armageddon (docs/rules.md §5).

Rules live in ``orchestrator.domain.knockout`` (docs/knockout.md); this module stores and reloads them:

- ``build_bracket`` creates a duel row per ``DuelSpec`` of the event file and, for each duel whose teams
  are known, its two matches (match 2 with colours reversed: its ``first_team_id`` is the duel's second
  team, so "the match's first team has White on odd boards" holds for every match).
- ``advance_bracket`` (called after every change, and by ``apply_due_deadlines``) decides duels from the
  stored board results, fills later duels and creates their matches. A duel with an open appeal on one of
  its matches keeps its winner provisional and does not feed the next duel.
- The Armageddon: the category lot and the colour lot are committed (hash published) and revealed in two
  steps; nominations are sealed; the game is a third match of the duel (``leg`` 3, one board) in a round
  of its own, so the workers track its game like any other.

Sealing: nothing here returns, logs, audits or announces a nomination before both are in or the deadline
has passed. Views go through the domain's ``public_view`` / ``captain_view``.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from orchestrator.adapters.lichess import BulkSpec
from orchestrator.adapters.repo_playoff import BracketState
from orchestrator.adapters.tables import (
    Armageddon,
    ArmageddonStatus,
    Board,
    Colour,
    Duel,
    DuelStatus,
    Event,
    EventStatus,
    Lot,
    Match,
    MatchStatus,
    Player,
    ResultSource,
    Round,
    RoundStatus,
    Stage,
    StageKind,
    StageStatus,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import knockout as ko
from orchestrator.domain import lots as domain_lots
from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, WinnerOf
from orchestrator.domain.event import EventDefinition, slot_label
from orchestrator.domain.scoring import GameResult, MatchForfeit, format_points
from orchestrator.domain.teams import Category, RosterEntry, TeamFormat
from orchestrator.domain.teams import Team as DomainTeam
from orchestrator.services import live
from orchestrator.services.captains import ensure_team_access
from orchestrator.services.errors import Conflict, Forbidden, NotFound, ValidationFailed
from orchestrator.services.lineups import definition_of, domain_player, ineligibility
from orchestrator.services.users import AuthUser

ARMAGEDDON_LEG = 3  # the Armageddon game is stored as a one-board third match of the duel
ARMAGEDDON_ROUND_BASE = 1000  # its round number: 1000 + the duel's id (never clashes with match rounds)
NOMINATION_MINUTES = 15  # default time for the captains' nominations after the category lot
LotWhich = Literal["category", "colour"]


# ----------------------------------------------------------------------------------------- context


@dataclass
class _Ctx:
    """Everything about one knockout stage, loaded once per use case."""

    event: Event
    stage: Stage
    definition: EventDefinition
    specs: tuple[DuelSpec, ...]
    duels: dict[str, Duel]  # by key
    teams: dict[int, Team]
    matches: dict[int, list[Match]]  # by duel id
    boards: dict[int, list[Board]]  # by match id
    armageddons: dict[int, Armageddon]  # by duel id
    lots: dict[str, Lot]  # by purpose
    open_appeals: set[int]  # match ids
    players: dict[int, Player] = field(default_factory=dict)

    @property
    def fmt(self) -> TeamFormat:
        return self.definition.team_format

    def name(self, team_id: int | None) -> str | None:
        return self.teams[team_id].name if team_id is not None and team_id in self.teams else None

    def team_id(self, name: str | None) -> int | None:
        for team_id, team in self.teams.items():
            if team.name == name:
                return team_id
        return None

    def match(self, duel: Duel, leg: int) -> Match | None:
        return next((m for m in self.matches.get(duel.id or 0, []) if m.leg == leg), None)


def _load(uow: UnitOfWork, stage_id: int, *, all_teams: bool = False, lots: bool = True) -> _Ctx:
    """The stage's bracket; ``teams`` holds the teams the duels name (every team of the event with
    ``all_teams``, for building the bracket from the standings); ``lots`` empty unless asked for."""
    event, stage = uow.playoff.event_of_stage(stage_id)
    if stage.kind != StageKind.KNOCKOUT.value:
        raise Conflict(f"{stage.name} is not a knockout stage.")
    definition = definition_of(event)
    if definition is None or not definition.bracket:
        raise Conflict(f"{event.name} has no valid event file with a bracket: the play-off cannot be built.")
    rows = uow.playoff.bracket_rows(stage_id)
    duels = {d.key: d for d in rows.duels}
    purposes = [
        p
        for spec in definition.bracket
        for p in (_purpose(spec.key, "category"), _purpose(spec.key, "colour"))
    ]
    return _Ctx(
        event=event,
        stage=stage,
        definition=definition,
        specs=definition.bracket,
        duels=duels,
        teams=(
            {t.id or 0: t for t in uow.playoff.teams_of_event(event.id or 0)} if all_teams else rows.teams
        ),
        matches=rows.matches,
        boards=rows.boards,
        armageddons=rows.armageddons,
        lots=uow.playoff.lots_with_purposes(event.id or 0, purposes) if lots else {},
        open_appeals=rows.open_appeals,
    )


def _duel_ctx(uow: UnitOfWork, duel_id: int, *, lock: bool = False) -> tuple[_Ctx, Duel]:
    duel = uow.locks.lock_duel(duel_id) if lock else uow.repo.get(Duel, duel_id)
    if duel is None:
        raise NotFound(f"duel {duel_id} does not exist")
    ctx = _load(uow, duel.stage_id)
    return ctx, ctx.duels[duel.key]


def _purpose(key: str, which: LotWhich) -> str:
    # The domain's purposes, so that anyone recomputes the lot with docs/lots.md.
    return (
        f"Armageddon category, duel {key}" if which == "category" else f"Armageddon colour choice, duel {key}"
    )


def _utc(moment: datetime | None, tz: str) -> datetime | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(tz))
    return moment.astimezone(ZoneInfo("UTC"))


def _topological(specs: Sequence[DuelSpec]) -> list[DuelSpec]:
    by_key = {s.key: s for s in specs}
    order: list[DuelSpec] = []
    seen: set[str] = set()

    def visit(spec: DuelSpec) -> None:
        if spec.key in seen:
            return
        seen.add(spec.key)
        for ref in (spec.first, spec.second):
            if isinstance(ref, WinnerOf | LoserOf) and ref.duel in by_key:
                visit(by_key[ref.duel])
        order.append(spec)

    for spec in specs:
        visit(spec)
    return order


def _round_index(specs: Sequence[DuelSpec]) -> dict[str, int]:
    """0 for the first bracket round, 1 for the next ... (the order of ``rounds_for_display``)."""
    resolved = ko.resolve_bracket(specs, {}, {})
    return {
        duel.spec.key: index
        for index, (_name, duels) in enumerate(ko.rounds_for_display(resolved))
        for duel in duels
    }


# ------------------------------------------------------------------------------------------ records


def _flip(forfeit: MatchForfeit) -> MatchForfeit:
    return {MatchForfeit.A_WINS: MatchForfeit.B_WINS, MatchForfeit.B_WINS: MatchForfeit.A_WINS}.get(
        forfeit, forfeit
    )


def _duel_match(ctx: _Ctx, duel: Duel, match: Match | None) -> ko.DuelMatch:
    if match is None:
        return ko.DuelMatch()
    forfeit = MatchForfeit(match.forfeit)
    if forfeit is not MatchForfeit.NONE:
        # Match codes are from the match's first team; the duel's from its own first team.
        return ko.DuelMatch(forfeit=forfeit if match.first_team_id == duel.first_team_id else _flip(forfeit))
    boards = ctx.boards.get(match.id or 0, [])
    if len(boards) != ctx.fmt.boards:
        return ko.DuelMatch()
    return ko.DuelMatch(tuple(GameResult(b.result) for b in boards))


def _armageddon_game(ctx: _Ctx, duel: Duel) -> tuple[Match, Board] | None:
    match = ctx.match(duel, ARMAGEDDON_LEG)
    if match is None:
        return None
    boards = ctx.boards.get(match.id or 0, [])
    return (match, boards[0]) if boards else None


def _record(ctx: _Ctx, duel: Duel) -> ko.DuelRecord:
    first, second = ctx.name(duel.first_team_id), ctx.name(duel.second_team_id)
    assert first is not None and second is not None
    matches = (_duel_match(ctx, duel, ctx.match(duel, 1)), _duel_match(ctx, duel, ctx.match(duel, 2)))
    game = _armageddon_game(ctx, duel)
    armageddon = None
    if game is not None:
        armageddon = ko.ArmageddonResult(ctx.name(game[0].first_team_id) or "?", GameResult(game[1].result))
    outcome = duel.outcome or {}
    withdrawn = ctx.name(outcome.get("withdrawn_team_id"))
    ruling = None
    if outcome.get("ruling"):
        names = tuple(n for n in (ctx.name(t) for t in outcome["ruling"]["winner_team_ids"]) if n)
        ruling = ko.Ruling(names, outcome["ruling"]["reason"])
    return ko.DuelRecord(
        duel.key, first, second, matches, armageddon, withdrawn, ruling, boards=ctx.fmt.boards
    )


def _is_provisional(ctx: _Ctx, duel: Duel) -> bool:
    return any((m.id or 0) in ctx.open_appeals for m in ctx.matches.get(duel.id or 0, []))


def _decide(ctx: _Ctx, duel: Duel) -> ko.DuelOutcome:
    try:
        return ko.decide_duel(_record(ctx, duel), scoring=ctx.definition.match_scoring)
    except ko.KnockoutError as error:
        raise Conflict(str(error)) from None


# ------------------------------------------------------------------------------------------ bracket


def _places(uow: UnitOfWork, ctx: _Ctx) -> dict[PoolPlace, str]:
    """Teams on the pool places the bracket names, from closed standings only (docs/rules.md §6)."""
    needed = {ref for s in ctx.specs for ref in (s.first, s.second) if isinstance(ref, PoolPlace)}
    places: dict[PoolPlace, str] = {}
    problems: list[str] = []
    for stage_key in sorted({ref.stage for ref in needed}):
        source = uow.playoff.stage_by_key(ctx.event.id or 0, stage_key)
        if source is None:
            problems.append(f"The event has no stage {stage_key!r}.")
            continue
        letters = {p.id: p.letter for p in uow.playoff.pools_of_stage(source.id or 0)}
        standings = uow.playoff.final_standings(source.id or 0)
        if not standings:
            problems.append(
                f"{source.name}: the standings are not closed yet (the bracket needs final standings)."
            )
            continue
        for row in standings:
            letter = letters.get(row.pool_id)
            if letter is not None and row.team_id in ctx.teams:
                places[PoolPlace(stage_key, letter, row.rank)] = ctx.teams[row.team_id].name
    for ref in sorted(needed, key=str):
        if ref not in places and not any(p.startswith(f"{_stage_name(ctx, ref.stage)}:") for p in problems):
            problems.append(
                f"{slot_label(ctx.definition, ref)}: no team holds this place in the final standings."
            )
    if problems:
        raise Conflict(" ".join(problems))
    return places


def _stage_name(ctx: _Ctx, key: str) -> str:
    try:
        return ctx.definition.stage(key).name
    except KeyError:
        return key


def build_bracket(uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None) -> list[int]:
    """Create the play-off's duels from the Top division's closed standings and start the first duels.

    Safe to repeat: existing duels are kept. Returns the duel ids in bracket order.
    """
    uow.locks.lock(Stage, stage_id)  # one bracket writer at a time: a second build then finds the duels
    ctx = _load(uow, stage_id, all_teams=True)
    places = _places(uow, ctx)
    ids: list[int] = []
    for spec in ctx.specs:
        duel = ctx.duels.get(spec.key)
        if duel is None:
            first = places.get(spec.first) if isinstance(spec.first, PoolPlace) else None
            second = places.get(spec.second) if isinstance(spec.second, PoolPlace) else None
            duel = uow.repo.add(
                Duel(
                    stage_id=stage_id,
                    key=spec.key,
                    round_name=spec.round_name,
                    first_source=slot_label(ctx.definition, spec.first)[:80],
                    second_source=slot_label(ctx.definition, spec.second)[:80],
                    first_team_id=ctx.team_id(first),
                    second_team_id=ctx.team_id(second),
                )
            )
            ctx.duels[spec.key] = duel
            uow.audit.record(
                actor=actor,
                action="duel.create",
                entity="duel",
                entity_id=duel.id,
                event_id=ctx.event.id,
                new={"key": spec.key, "first": first, "second": second},
            )
        ids.append(duel.id or 0)
    if ctx.stage.status in (StageStatus.DRAFT.value, StageStatus.PUBLISHED.value):
        ctx.stage.status = StageStatus.RUNNING.value
        uow.session.add(ctx.stage)
    if ctx.event.status in (EventStatus.DRAFT.value, EventStatus.PUBLISHED.value):
        ctx.event.status = EventStatus.RUNNING.value
        uow.session.add(ctx.event)
    uow.flush()
    advance_bracket(uow, stage_id=stage_id, actor=actor, now=now)
    live.announce(uow, f"event:{ctx.event.slug}", stage_id=stage_id)
    live.announce(uow, f"stage:{stage_id}", stage_id=stage_id)
    return ids


def _round_for(uow: UnitOfWork, ctx: _Ctx, number: int, name: str) -> Round:
    rnd = uow.playoff.round_by_number(ctx.stage.id or 0, number)
    if rnd is not None:
        return rnd
    schedule = ctx.definition.stage(ctx.stage.key).schedule if _has_stage(ctx) else ()
    when = _utc(schedule[number - 1], ctx.definition.timezone) if number <= len(schedule) else None
    deadline = ctx.definition.lineup_deadline(when)
    return uow.repo.add(
        Round(
            stage_id=ctx.stage.id or 0,
            number=number,
            name=name,
            scheduled_at=when,
            lineup_deadline_at=deadline,
        )
    )


def _has_stage(ctx: _Ctx) -> bool:
    return any(s.key == ctx.stage.key for s in ctx.definition.stages)


def _add_match(
    uow: UnitOfWork, ctx: _Ctx, duel: Duel, rnd: Round, leg: int, first: int, second: int, boards: int
) -> Match:
    taken = [m.match_no for m in uow.playoff.matches_of_round(rnd.id or 0)]
    match = uow.repo.add(
        Match(
            round_id=rnd.id or 0,
            duel_id=duel.id,
            leg=leg,
            match_no=max(taken, default=0) + 1,
            first_team_id=first,
            second_team_id=second,
        )
    )
    made = [Board(match_id=match.id or 0, board_no=n) for n in range(1, boards + 1)]
    uow.session.add_all(made)
    uow.flush()  # the match's boards in one flush, not one INSERT round trip each
    ctx.matches.setdefault(duel.id or 0, []).append(match)
    ctx.matches[duel.id or 0].sort(key=lambda m: m.leg or 0)
    ctx.boards[match.id or 0] = made
    return match


def _create_duel_matches(uow: UnitOfWork, ctx: _Ctx, duel: Duel, round_index: int) -> None:
    assert duel.first_team_id is not None and duel.second_team_id is not None
    for leg in (1, 2):
        if ctx.match(duel, leg) is not None:
            continue
        rnd = _round_for(uow, ctx, 2 * round_index + leg, f"{duel.round_name}, match {leg}")
        # Match 2 reverses the colours (duel_match_colours): the duel's second team is named first.
        first, second = (
            (duel.first_team_id, duel.second_team_id)
            if leg == 1
            else (duel.second_team_id, duel.first_team_id)
        )
        _add_match(uow, ctx, duel, rnd, leg, first, second, ctx.fmt.boards)


def _status_of(ctx: _Ctx, duel: Duel, outcome: ko.DuelOutcome | None) -> str:
    if duel.first_team_id is None or duel.second_team_id is None:
        return DuelStatus.WAITING.value
    if outcome is not None and outcome.is_decided and not _is_provisional(ctx, duel):
        return DuelStatus.DECIDED.value
    if outcome is not None and outcome.reason in (
        ko.DuelReason.ARMAGEDDON_NEEDED,
        ko.DuelReason.NEEDS_RULING,
    ):
        return DuelStatus.ARMAGEDDON.value
    started = any(
        GameResult(b.result).is_final or b.game_id
        for m in ctx.matches.get(duel.id or 0, [])
        for b in ctx.boards.get(m.id or 0, [])
    )
    return DuelStatus.PLAYING.value if started else DuelStatus.READY.value


def advance_bracket(uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None) -> list[str]:
    """Decide duels from stored results, fill later duels and create their matches; returns changed keys.

    Idempotent: the beat may call it as often as it likes (``apply_due_deadlines`` does).
    """
    return _advance(uow, stage_id=stage_id, actor=actor, now=now).changed


@dataclass
class _Advanced:
    """What one bracket advance did: the duels it changed, those it made level (they now need an
    Armageddon), and how many ``duel.conflict`` entries it wrote."""

    ctx: _Ctx
    changed: list[str] = field(default_factory=list)
    levelled: list[str] = field(default_factory=list)
    conflicts: int = 0


def _advance(uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None) -> _Advanced:
    now = now or utcnow()
    ctx = _load(uow, stage_id, lots=False)  # the advance never reads the lots
    done = _Advanced(ctx)
    if not ctx.duels:
        return done
    order = _topological(ctx.specs)
    round_index = _round_index(ctx.specs)
    # Pool places come from the duels' stored teams (filled from closed standings at build time).
    places: dict[PoolPlace, str] = {}
    for spec in ctx.specs:
        duel = ctx.duels.get(spec.key)
        for ref, team_id in (
            (spec.first, duel.first_team_id if duel else None),
            (spec.second, duel.second_team_id if duel else None),
        ):
            name = ctx.name(team_id)
            if isinstance(ref, PoolPlace) and name is not None:
                places[ref] = name
    outcomes: dict[str, ko.DuelOutcome] = {}
    changed = done.changed
    for index, spec in enumerate(order):
        resolved = ko.resolve_bracket(order[: index + 1], places, outcomes)[-1]
        duel = ctx.duels.get(spec.key)
        if duel is None:
            continue
        before = (duel.first_team_id, duel.second_team_id, duel.status, duel.winner_team_id)
        first_id, second_id = ctx.team_id(resolved.first), ctx.team_id(resolved.second)
        if (duel.first_team_id, duel.second_team_id) != (first_id, second_id):
            if _has_results(ctx, duel):
                # An earlier duel's winner changed after this one started: staff must sort it out.
                uow.audit.record(
                    actor=actor,
                    action="duel.conflict",
                    entity="duel",
                    entity_id=duel.id,
                    event_id=ctx.event.id,
                    reason=f"the bracket now gives {resolved.first} – {resolved.second}",
                )
                done.conflicts += 1
                continue
            _drop_matches(uow, ctx, duel)
            duel.first_team_id, duel.second_team_id = first_id, second_id
        outcome: ko.DuelOutcome | None = None
        if duel.first_team_id is not None and duel.second_team_id is not None:
            outcome = _decide(ctx, duel)
            gone = [
                t for t in (duel.first_team_id, duel.second_team_id) if ctx.teams[t].withdrawn_at is not None
            ]
            if not outcome.is_decided and len(gone) == 1:
                # Withdrew after winning an earlier duel (docs/rules.md §5): the opponent goes through.
                duel.outcome = {**(duel.outcome or {}), "withdrawn_team_id": gone[0]}
                outcome = _decide(ctx, duel)
            if not (outcome.reason is ko.DuelReason.WITHDRAWAL and not ctx.matches.get(duel.id or 0)):
                _create_duel_matches(uow, ctx, duel, round_index.get(spec.key, 0))
            if outcome.is_decided and not _is_provisional(ctx, duel):
                outcomes[spec.key] = outcome
        status = _status_of(ctx, duel, outcome)
        duel.status = status
        if status == DuelStatus.DECIDED.value and outcome is not None:
            duel.winner_team_id = ctx.team_id(outcome.winner)
            duel.decided_at = duel.decided_at or now
        else:
            duel.winner_team_id = None
            duel.decided_at = None
        uow.session.add(duel)
        after = (duel.first_team_id, duel.second_team_id, duel.status, duel.winner_team_id)
        if after != before:
            changed.append(duel.key)
            if status == DuelStatus.ARMAGEDDON.value and before[2] != status:
                done.levelled.append(duel.key)
            uow.audit.record(
                actor=actor,
                action="duel.update",
                entity="duel",
                entity_id=duel.id,
                event_id=ctx.event.id,
                old=dict(
                    zip(("first_team_id", "second_team_id", "status", "winner_team_id"), before, strict=True)
                ),
                new=dict(
                    zip(("first_team_id", "second_team_id", "status", "winner_team_id"), after, strict=True)
                ),
            )
            live.announce(uow, f"duel:{duel.id}", duel_id=duel.id)
    uow.flush()
    if changed:
        live.announce(uow, f"event:{ctx.event.slug}", stage_id=stage_id)
    return done


def _other(outcome: ko.DuelOutcome, team: str) -> str:
    return outcome.second if team == outcome.first else outcome.first


def _has_results(ctx: _Ctx, duel: Duel) -> bool:
    return any(
        GameResult(b.result).is_final or b.game_id
        for m in ctx.matches.get(duel.id or 0, [])
        for b in ctx.boards.get(m.id or 0, [])
    )


def _drop_matches(uow: UnitOfWork, ctx: _Ctx, duel: Duel) -> None:
    for match in ctx.matches.pop(duel.id or 0, []):
        ctx.boards.pop(match.id or 0, None)
        uow.session.delete(match)
    uow.flush()


def advance_after_match(uow: UnitOfWork, *, match_id: int, actor: str) -> list[str]:
    """For results and workers: after a duel match's result changed, move its bracket on (no-op otherwise)."""
    match = uow.repo.get(Match, match_id)
    if match is None or match.duel_id is None:
        return []
    duel = uow.repo.get_or_raise(Duel, match.duel_id)
    if match.leg == ARMAGEDDON_LEG:
        _sync_armageddon_status(uow, duel)
    return advance_bracket(uow, stage_id=duel.stage_id, actor=actor)


# --------------------------------------------------------------------- forfeits, withdrawals, rulings


def forfeit_match(
    uow: UnitOfWork, *, match_id: int, absent_team_id: int, actor: str, reason: str = ""
) -> None:
    """A team did not play a match: it loses it 0–6 by forfeit (docs/rules.md §2, §5)."""
    match = uow.repo.get_or_raise(Match, match_id)
    if absent_team_id not in (match.first_team_id, match.second_team_id):
        raise ValidationFailed([f"team {absent_team_id} does not play match {match_id}"])
    if match.leg == ARMAGEDDON_LEG:
        raise Conflict("Record an Armageddon forfeit as the game's result (+/- or -/+).")
    code = MatchForfeit.B_WINS if absent_team_id == match.first_team_id else MatchForfeit.A_WINS
    old = match.forfeit
    match.forfeit = code.value
    match.status = MatchStatus.FINISHED.value
    match.finished_at = match.finished_at or utcnow()
    uow.session.add(match)
    stage_event = uow.playoff.event_of_stage(uow.repo.get_or_raise(Round, match.round_id).stage_id)[0]
    uow.audit.record(
        actor=actor,
        action="match.forfeit",
        entity="match",
        entity_id=match_id,
        event_id=stage_event.id,
        old={"forfeit": old},
        new={"forfeit": code.value, "absent_team_id": absent_team_id},
        reason=reason or None,
    )
    live.announce(uow, f"match:{match_id}", match_id=match_id)
    if match.duel_id is not None:
        duel = uow.repo.get_or_raise(Duel, match.duel_id)
        advance_bracket(uow, stage_id=duel.stage_id, actor=actor)


def withdraw_team(
    uow: UnitOfWork, *, team_id: int, actor: str, reason: str, now: datetime | None = None
) -> None:
    """A team withdraws: it loses its remaining matches, and the bracket moves on (docs/rules.md §5)."""
    now = now or utcnow()
    if not reason.strip():
        raise ValidationFailed(["reason: say why the team withdraws"])
    team = uow.repo.get_or_raise(Team, team_id)
    if team.withdrawn_at is not None:
        raise Conflict(f"{team.name} has already withdrawn.")
    team.withdrawn_at = now
    uow.session.add(team)
    uow.audit.record(
        actor=actor,
        action="team.withdraw",
        entity="team",
        entity_id=team_id,
        event_id=team.event_id,
        reason=reason,
    )
    for stage in uow.playoff.knockout_stages(team.event_id):
        for duel in uow.playoff.duels_of_stage(stage.id or 0):
            if team_id not in (duel.first_team_id, duel.second_team_id):
                continue
            if duel.status == DuelStatus.DECIDED.value:
                continue
            duel.outcome = {**(duel.outcome or {}), "withdrawn_team_id": team_id}
            uow.session.add(duel)
            # Its unplayed matches are lost 0–6; finished ones keep their results.
            for match in uow.playoff.matches_of_duels([duel.id])[duel.id or 0]:
                boards = uow.playoff.boards_of_matches([match.id])[match.id or 0]
                if match.leg == ARMAGEDDON_LEG or match.forfeit != MatchForfeit.NONE.value:
                    continue
                if boards and all(GameResult(b.result).is_final for b in boards):
                    continue
                code = MatchForfeit.B_WINS if team_id == match.first_team_id else MatchForfeit.A_WINS
                match.forfeit = code.value
                match.status = MatchStatus.FINISHED.value
                uow.session.add(match)
        uow.flush()
        advance_bracket(uow, stage_id=stage.id or 0, actor=actor, now=now)
        live.announce(uow, f"event:{uow.repo.get_or_raise(Event, team.event_id).slug}", team_id=team_id)


def record_ruling(
    uow: UnitOfWork, *, duel_id: int, winner_team_ids: Sequence[int], reason: str, actor: str
) -> None:
    """Staff record an exceptional outcome with a reason; both teams = joint winners (2020 final)."""
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    teams = {duel.first_team_id, duel.second_team_id}
    problems = []
    if not reason.strip():
        problems.append("reason: an exceptional outcome needs a reason")
    if not winner_team_ids or not set(winner_team_ids) <= teams or None in teams:
        problems.append("winners: name one or both teams of the duel")
    if problems:
        raise ValidationFailed(problems)
    old = duel.outcome
    ruling = {"winner_team_ids": sorted(set(winner_team_ids)), "reason": reason.strip()}
    duel.outcome = {**(duel.outcome or {}), "ruling": ruling}
    uow.session.add(duel)
    uow.audit.record(
        actor=actor,
        action="duel.ruling",
        entity="duel",
        entity_id=duel_id,
        event_id=ctx.event.id,
        old=old,
        new=duel.outcome,
        reason=reason.strip(),
    )
    uow.flush()
    advance_bracket(uow, stage_id=duel.stage_id, actor=actor)
    live.announce(uow, f"duel:{duel_id}", duel_id=duel_id)


# ----------------------------------------------------------------------------------------- Armageddon


def _domain_team(uow: UnitOfWork, team: Team, fmt: TeamFormat) -> DomainTeam:
    entries = []
    for p in uow.playoff.players_of_team(team.id or 0):
        entries.append(RosterEntry(domain_player(p), p.main_board, Category(p.category)))
    return DomainTeam(team.name, team.federation, team.seed, tuple(entries))


def _match2_lineups(uow: UnitOfWork, ctx: _Ctx, duel: Duel) -> tuple[list[Any], list[Any]]:
    """Each team's players of match 2 in board order (None for an empty board)."""
    match = ctx.match(duel, 2)
    sides: tuple[list[Any], list[Any]] = ([None] * ctx.fmt.boards, [None] * ctx.fmt.boards)
    if match is None:
        return sides
    boards = ctx.boards.get(match.id or 0, [])
    players = _players(uow, ctx, (p for b in boards for p in (b.white_player_id, b.black_player_id)))
    for board in boards:
        # The match's first team has White on odd boards.
        first_player = board.white_player_id if board.board_no % 2 == 1 else board.black_player_id
        second_player = board.black_player_id if board.board_no % 2 == 1 else board.white_player_id
        for team_id, player_id in (
            (match.first_team_id, first_player),
            (match.second_team_id, second_player),
        ):
            side = 0 if team_id == duel.first_team_id else 1
            if player_id is not None and player_id in players and board.board_no <= ctx.fmt.boards:
                sides[side][board.board_no - 1] = domain_player(players[player_id])
    return sides


def _players(uow: UnitOfWork, ctx: _Ctx, player_ids: Iterable[int | None]) -> dict[int, Player]:
    """Players by id, read once per context (``bracket_view`` reads every Armageddon's in one query)."""
    wanted = {p for p in player_ids if p is not None}
    missing = wanted - ctx.players.keys()
    if missing:
        ctx.players.update(uow.playoff.players_by_id(missing))
    return {p: ctx.players[p] for p in wanted if p in ctx.players}


def _domain_lot(lot: Lot | None) -> domain_lots.Lot | None:
    if lot is None or lot.seed_hex is None or lot.outcome is None:
        return None
    return domain_lots.Lot(
        lot.purpose,
        domain_lots.LotKind(lot.kind),
        tuple(str(c) for c in lot.candidates),
        lot.commitment,
        lot.seed_hex,
        tuple(str(c) for c in lot.outcome),
    )


def _clock(ctx: _Ctx) -> ko.ArmageddonClock:
    a = ctx.definition.armageddon
    return ko.ArmageddonClock(a.white_minutes * 60, a.black_minutes * 60, a.increment_seconds)


def _state(uow: UnitOfWork, ctx: _Ctx, duel: Duel) -> ko.ArmageddonState:
    """The domain state of a duel's Armageddon, rebuilt from the rows (holds sealed data: never show it)."""
    first, second = ctx.name(duel.first_team_id), ctx.name(duel.second_team_id)
    if first is None or second is None:
        raise Conflict(f"Duel {duel.key} does not have both teams yet.")
    arm = ctx.armageddons.get(duel.id or 0)
    lineups = _match2_lineups(uow, ctx, duel)
    deadline = (
        arm.deadline_at if arm and arm.deadline_at else utcnow() + timedelta(minutes=NOMINATION_MINUTES)
    )
    state = ko.start_armageddon(
        duel_key=duel.key,
        teams=(first, second),
        team_format=ctx.fmt,
        deadline=deadline,
        match2_lineups=(lineups[0], lineups[1]),
        clock=_clock(ctx),
    )
    if arm is None:
        return state
    revealed = arm.status != ArmageddonStatus.NOMINATING.value
    players = _players(uow, ctx, [arm.first_nominee_id, arm.second_nominee_id])
    sealed: list[ko.Nomination | None] = []
    for team, nominee, at in (
        (first, arm.first_nominee_id, arm.first_submitted_at),
        (second, arm.second_nominee_id, arm.second_submitted_at),
    ):
        if nominee is not None and nominee in players:
            sealed.append(ko.Nomination(team, domain_player(players[nominee]), at, by_default=at is None))
        elif revealed:
            sealed.append(ko.Nomination(team, None, None, by_default=True))
        else:
            sealed.append(None)
    game = _armageddon_game(ctx, duel)
    white = ctx.name(game[0].first_team_id) if game else None
    result = GameResult(game[1].result) if game else GameResult.PENDING
    return ko.ArmageddonState(
        duel_key=duel.key,
        teams=(first, second),
        team_format=ctx.fmt,
        deadline=deadline,
        match2_lineups=state.match2_lineups,
        clock=state.clock,
        category_lot=_domain_lot(uow.repo.get(Lot, arm.category_lot_id) if arm.category_lot_id else None),
        sealed=(sealed[0], sealed[1]),
        revealed=revealed,
        chooser_lot=_domain_lot(uow.repo.get(Lot, arm.chooser_lot_id) if arm.chooser_lot_id else None),
        white=white,
        result=result,
    )


def commit_armageddon_lot(
    uow: UnitOfWork, *, duel_id: int, which: LotWhich, actor: str, seed: bytes | None = None
) -> int:
    """Publish the SHA-256 of a fresh secret seed for the category or colour lot (docs/rules.md §7); returns its id.

    ``seed`` is for tests and replays; a staff draw always takes ``secrets.token_bytes(32)``.
    """
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    purpose = _purpose(duel.key, which)
    if which == "category":
        if duel.status != DuelStatus.ARMAGEDDON.value or arm is not None:
            raise Conflict(f"Duel {duel.key} is not waiting for its Armageddon category lot.")
        candidates = [c.value for c in ko.armageddon_categories(ctx.fmt)]
    elif which == "colour":
        if arm is None or arm.status != ArmageddonStatus.CHOOSING.value or arm.chooser_lot_id is not None:
            raise Conflict(
                f"Duel {duel.key} is not waiting for its colour lot (nominations must be revealed)."
            )
        candidates = [ctx.name(duel.first_team_id) or "?", ctx.name(duel.second_team_id) or "?"]
    else:
        raise ValidationFailed([f"lot: 'category' or 'colour', not {which!r}"])
    pending = ctx.lots.get(purpose)
    if pending is not None and pending.seed_hex is None:
        return pending.id or 0  # already committed: the published hash stands
    secret = seed if seed is not None else secrets.token_bytes(32)
    lot = uow.repo.add(
        Lot(
            event_id=ctx.event.id or 0,
            purpose=purpose,
            commitment=domain_lots.commitment(secret),
            sealed_seed_hex=secret.hex(),
            kind=domain_lots.LotKind.ONE.value,
            candidates=candidates,
            drawn_by=actor,
            committed_at=utcnow(),
        )
    )
    uow.audit.record(
        actor=actor,
        action="lot.commit",
        entity="lot",
        entity_id=lot.id,
        event_id=ctx.event.id,
        new={"purpose": purpose, "candidates": candidates, "commitment": lot.commitment},
    )
    live.announce(uow, f"duel:{duel_id}", duel_id=duel_id)
    live.announce(uow, f"event:{ctx.event.slug}", duel_id=duel_id)
    return lot.id or 0


def _seal_out(lot: Lot, drawn: domain_lots.Lot, now: datetime) -> None:
    if drawn.commitment != lot.commitment:
        raise Conflict("The lot's seed does not match its published commitment.")  # pragma: no cover
    lot.seed_hex = drawn.seed_hex
    lot.outcome = list(drawn.outcome)
    lot.sealed_seed_hex = None
    lot.revealed_at = now


def reveal_armageddon_lot(
    uow: UnitOfWork,
    *,
    duel_id: int,
    which: LotWhich,
    actor: str,
    now: datetime | None = None,
    nomination_minutes: int = NOMINATION_MINUTES,
) -> str:
    """Draw a committed lot and publish its seed; returns what was drawn (a category or a team name)."""
    now = now or utcnow()
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    lot = ctx.lots.get(_purpose(duel.key, which))
    if lot is None or lot.seed_hex is not None or lot.sealed_seed_hex is None:
        raise Conflict(f"Duel {duel.key}: publish the {which} lot's hash first.")
    seed = bytes.fromhex(lot.sealed_seed_hex)
    if which == "category":
        if ctx.armageddons.get(duel_id) is not None:
            raise Conflict(f"Duel {duel.key}: the Armageddon category is already drawn.")
        state = ko.draw_category(_state(uow, ctx, duel), seed)
        assert state.category_lot is not None
        _seal_out(lot, state.category_lot, now)
        uow.session.add(lot)
        arm = uow.repo.add(
            Armageddon(
                duel_id=duel_id,
                category=state.category_lot.chosen,
                category_lot_id=lot.id,
                deadline_at=now + timedelta(minutes=nomination_minutes),
            )
        )
        ctx.armageddons[duel_id] = arm
        drawn = state.category_lot.chosen
    else:
        existing = ctx.armageddons.get(duel_id)
        if existing is None:
            raise Conflict(f"Duel {duel.key}: no Armageddon yet.")
        arm = existing
        try:
            state = ko.draw_chooser(_state(uow, ctx, duel), seed)
        except ko.KnockoutError as error:
            raise Conflict(str(error)) from None
        assert state.chooser_lot is not None
        _seal_out(lot, state.chooser_lot, now)
        uow.session.add(lot)
        arm.chooser_lot_id = lot.id
        chooser_side = state.side(state.chooser_lot.chosen)
        arm.chooser_player_id = (arm.first_nominee_id, arm.second_nominee_id)[chooser_side]
        uow.session.add(arm)
        drawn = state.chooser_lot.chosen
    uow.audit.record(
        actor=actor,
        action="lot.draw",
        entity="lot",
        entity_id=lot.id,
        event_id=ctx.event.id,
        new={"purpose": lot.purpose, "seed_hex": lot.seed_hex, "outcome": lot.outcome},
    )
    live.announce(uow, f"duel:{duel_id}", duel_id=duel_id)
    live.announce(uow, f"event:{ctx.event.slug}", duel_id=duel_id)
    return drawn


NOMINATIONS_CLOSED = "Nominations for this Armageddon are closed."


def nominate(
    uow: UnitOfWork,
    *,
    duel_id: int,
    team_id: int,
    account: str,
    actor: AuthUser,
    now: datetime | None = None,
) -> None:
    """A captain's sealed Armageddon nomination (only that team's captain, or staff).

    The answer never depends on the other team's nomination: closed is closed for both, and a player is
    checked against the nominating team's roster and the drawn category only.
    """
    now = now or utcnow()
    ensure_team_access(actor, team_id)
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    if team_id not in (duel.first_team_id, duel.second_team_id):
        raise Forbidden("Your team does not play this duel.")
    arm = ctx.armageddons.get(duel_id)
    if arm is None:
        raise Conflict("The Armageddon category has not been drawn yet.")
    if arm.status != ArmageddonStatus.NOMINATING.value or (arm.deadline_at and now >= arm.deadline_at):
        raise Conflict(NOMINATIONS_CLOSED)
    team = ctx.teams[team_id]
    state = _state(uow, ctx, duel)
    # Hide the other side's nomination from the domain check too, so no message can depend on it.
    side = state.side(team.name)
    own_only = list(state.sealed)
    own_only[1 - side] = None
    state = replace(state, sealed=(own_only[0], own_only[1]))
    try:
        state = ko.nominate(state, _domain_team(uow, team, ctx.fmt), account.strip().lower(), now)
    except ko.NominationError as error:
        raise ValidationFailed([str(error)]) from None
    player = next(p for p in uow.playoff.players_of_team(team_id) if p.account == account.strip().lower())
    if side == 0:
        arm.first_nominee_id, arm.first_submitted_at = player.id, now
    else:
        arm.second_nominee_id, arm.second_submitted_at = player.id, now
    uow.session.add(arm)
    # The audit says that a nomination arrived, not whom.
    uow.audit.record(
        actor=actor.username,
        action="armageddon.nominate",
        entity="armageddon",
        entity_id=arm.id,
        event_id=ctx.event.id,
        new={"team_id": team_id},
    )
    uow.flush()
    if arm.first_nominee_id is not None and arm.second_nominee_id is not None:
        _reveal(uow, ctx, duel, now=now, actor="system")


def _armageddon_round(uow: UnitOfWork, ctx: _Ctx, duel: Duel) -> Round:
    number = ARMAGEDDON_ROUND_BASE + (duel.id or 0)
    rnd = uow.playoff.round_by_number(ctx.stage.id or 0, number)
    if rnd is None:
        rnd = uow.repo.add(
            Round(
                stage_id=ctx.stage.id or 0,
                number=number,
                name=f"{duel.round_name} {duel.key}, Armageddon",
                status=RoundStatus.SCHEDULED.value,
            )
        )
    return rnd


def _store_game(uow: UnitOfWork, ctx: _Ctx, duel: Duel, state: ko.ArmageddonState) -> None:
    """The Armageddon game as a one-board match: its first team has White."""
    assert state.white is not None
    white_side = state.side(state.white)
    white_team = (duel.first_team_id, duel.second_team_id)[white_side]
    black_team = (duel.first_team_id, duel.second_team_id)[1 - white_side]
    assert white_team is not None and black_team is not None
    arm = ctx.armageddons[duel.id or 0]
    nominees = (arm.first_nominee_id, arm.second_nominee_id)
    rnd = _armageddon_round(uow, ctx, duel)
    match = _add_match(uow, ctx, duel, rnd, ARMAGEDDON_LEG, white_team, black_team, 1)
    board = ctx.boards[match.id or 0][0]
    values: dict[str, Any] = {
        "white_player_id": nominees[white_side],
        "black_player_id": nominees[1 - white_side],
    }
    if state.result.is_final:  # decided by forfeit at the reveal
        values.update(result=state.result.value, result_source=ResultSource.ARBITER.value)
        match.status = MatchStatus.FINISHED.value
        match.finished_at = utcnow()
        uow.session.add(match)
    uow.boards.update_versioned(board.id or 0, expected_version=board.version, values=values, actor="system")
    uow.flush()
    ctx.boards[match.id or 0] = list(uow.playoff.boards_of_matches([match.id])[match.id or 0])


def _reveal(uow: UnitOfWork, ctx: _Ctx, duel: Duel, *, now: datetime, actor: str) -> None:
    arm = ctx.armageddons[duel.id or 0]
    state = ko.reveal(_state(uow, ctx, duel), now)
    accounts = {}
    for side, nomination in enumerate(state.sealed):
        assert nomination is not None
        team_id = (duel.first_team_id, duel.second_team_id)[side]
        player_id = None
        if nomination.player is not None and team_id is not None:
            player_id = next(
                (
                    p.id
                    for p in uow.playoff.players_of_team(team_id)
                    if p.account == nomination.player.account
                ),
                None,
            )
        if side == 0:
            arm.first_nominee_id = player_id
        else:
            arm.second_nominee_id = player_id
        accounts[nomination.team] = {
            "player_id": player_id,
            "by_default": nomination.by_default,
        }
    arm.status = ArmageddonStatus.CHOOSING.value
    uow.session.add(arm)
    uow.audit.record(
        actor=actor,
        action="armageddon.reveal",
        entity="armageddon",
        entity_id=arm.id,
        event_id=ctx.event.id,
        new={"nominations": accounts},
    )
    uow.flush()
    if state.white is not None:  # a team had nobody to field: the game is decided by forfeit
        arm.status = ArmageddonStatus.DECIDED.value
        uow.session.add(arm)
        _store_game(uow, ctx, duel, state)
        advance_bracket(uow, stage_id=duel.stage_id, actor=actor, now=now)
    live.announce(uow, f"duel:{duel.id}", duel_id=duel.id)
    live.announce(uow, f"event:{ctx.event.slug}", duel_id=duel.id)


def reveal_nominations(uow: UnitOfWork, *, duel_id: int, actor: str, now: datetime | None = None) -> None:
    """Unseal at the deadline (missing nominations become the defaults); refused before it."""
    now = now or utcnow()
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    if arm is None or arm.status != ArmageddonStatus.NOMINATING.value:
        raise Conflict(f"Duel {duel.key}: nothing to reveal.")
    both = arm.first_nominee_id is not None and arm.second_nominee_id is not None
    if not both and (arm.deadline_at is None or now < arm.deadline_at):
        raise Conflict(f"Duel {duel.key}: nominations stay sealed until both are in or the deadline passes.")
    _reveal(uow, ctx, duel, now=now, actor=actor)


def choose_colour(uow: UnitOfWork, *, duel_id: int, team_id: int, colour: str, actor: AuthUser) -> None:
    """The colour-lot winner's captain (or staff for them) takes White or Black for their nominee."""
    ensure_team_access(actor, team_id)
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    if arm is None or team_id not in (duel.first_team_id, duel.second_team_id):
        raise NotFound(f"duel {duel_id} has no Armageddon for this team")
    code = {"w": "W", "white": "W", "b": "B", "black": "B"}.get(colour.strip().lower())
    if code is None:
        raise ValidationFailed(["colour: choose White or Black"])
    state = _state(uow, ctx, duel)
    team = ctx.teams[team_id].name
    if state.phase is ko.ArmageddonPhase.CHOOSE_COLOUR and state.chooser != team:
        raise Forbidden(f"{state.chooser} won the colour lot; their nominee chooses.")
    _settle_colour(uow, ctx, duel, arm, state, team_id=team_id, code=code, actor=actor.username)


def _settle_colour(
    uow: UnitOfWork,
    ctx: _Ctx,
    duel: Duel,
    arm: Armageddon,
    state: ko.ArmageddonState,
    *,
    team_id: int,
    code: str,
    actor: str,
    reason: str | None = None,
) -> None:
    team = ctx.teams[team_id].name
    try:
        state = ko.choose_colour(state, team, "W" if code == "W" else "B")
    except ko.KnockoutError as error:
        raise Conflict(str(error)) from None
    arm.colour = Colour.WHITE.value if code == "W" else Colour.BLACK.value
    arm.status = ArmageddonStatus.READY.value
    uow.session.add(arm)
    _store_game(uow, ctx, duel, state)
    uow.audit.record(
        actor=actor,
        action="armageddon.colour",
        entity="armageddon",
        entity_id=arm.id,
        event_id=ctx.event.id,
        new={"team_id": team_id, "colour": arm.colour, "white": state.white},
        reason=reason,
    )
    live.announce(uow, f"duel:{duel.id}", duel_id=duel.id)
    live.announce(uow, f"event:{ctx.event.slug}", duel_id=duel.id)


def apply_default_colour(uow: UnitOfWork, *, duel_id: int, colour: str, actor: str) -> bool:
    """For the tick: the colour-lot winner did not choose in time, so their nominee gets ``colour``.

    Returns False (and changes nothing) when the duel is not waiting for a colour choice.
    """
    code = {"white": "W", "black": "B"}.get(colour.strip().lower())
    if code is None:
        raise ValidationFailed(["colour: white or black"])
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    if arm is None or arm.status != ArmageddonStatus.CHOOSING.value or arm.colour is not None:
        return False
    state = _state(uow, ctx, duel)
    if state.phase is not ko.ArmageddonPhase.CHOOSE_COLOUR or state.chooser is None:
        return False
    team_id = ctx.team_id(state.chooser)
    assert team_id is not None
    reason = f"{state.chooser} did not choose a colour in time: the default ({colour}) applies"
    _settle_colour(uow, ctx, duel, arm, state, team_id=team_id, code=code, actor=actor, reason=reason)
    return True


def duels_waiting_for_round(uow: UnitOfWork, *, round_id: int) -> list[str]:
    """Keys of the duels of this match round's bracket round that still wait for a team (empty for a pool
    round or an Armageddon round). The workers pair a bracket round only once all its duels are known, so
    that no duel's matches land in a round whose games were already created."""
    rnd = uow.repo.get_or_raise(Round, round_id)
    if rnd.number >= ARMAGEDDON_ROUND_BASE:
        return []
    event, stage = uow.playoff.event_of_stage(rnd.stage_id)
    if stage.kind != StageKind.KNOCKOUT.value:
        return []
    definition = definition_of(event)
    if definition is None or not definition.bracket:
        return []
    index = (rnd.number - 1) // 2
    duels = {d.key: d for d in uow.playoff.duels_of_stage(stage.id or 0)}
    return [
        key
        for key, at in _round_index(definition.bracket).items()
        if at == index and key in duels and duels[key].status == DuelStatus.WAITING.value
    ]


def lot_purpose(key: str, which: LotWhich) -> str:
    """The purpose (and lookup key) of a duel's Armageddon lot."""
    return _purpose(key, which)


def advance_stage_bracket(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None
) -> list[str]:
    """For the workers: bring every Armageddon's status in line with its game, then advance the bracket.

    A duel the advance makes level queues a ``playoff.tick`` (after the commit): its category lot can be
    committed at once instead of on the next beat.
    """
    return _advance_for_workers(uow, stage_id=stage_id, actor=actor, now=now).changed


def _advance_for_workers(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None, follow_up: bool = True
) -> _Advanced:
    _sync_armageddons(uow, stage_id)
    uow.flush()
    done = _advance(uow, stage_id=stage_id, actor=actor, now=now)
    if done.levelled and follow_up:
        from orchestrator.services.tasks import PLAYOFF_TICK, enqueue

        enqueue(uow, PLAYOFF_TICK)
    return done


# The workers' fast path: a bracket state (``uow.playoff.bracket_state``) an earlier advance left as it was,
# with no champion yet, per database and stage. The advance is a function of that state alone (the event
# file never changes once the event exists), so the same state needs no advance, view or champion check:
# a tick that has nothing to do reads two queries' worth of plain rows. Per process; a stale entry only
# names a state that has since changed, which never matches again.
_settled: dict[tuple[str, int], BracketState] = {}
_settled_lock = threading.Lock()


def _settled_key(uow: UnitOfWork, stage_id: int) -> tuple[str, int]:
    bind: Any = uow.session.get_bind()
    return (str(bind.url), stage_id)


def _is_settled(uow: UnitOfWork, stage_id: int, state: BracketState) -> bool:
    with _settled_lock:
        return _settled.get(_settled_key(uow, stage_id)) == state


def _remember_settled(key: tuple[str, int], state: BracketState) -> None:
    with _settled_lock:
        _settled[key] = state


def settle_stage_bracket(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None
) -> tuple[str, ...]:
    """For the workers' close: ``advance_stage_bracket``, then the champions (empty until the final is
    decided, or before the bracket is built).

    Skips both when the stored bracket is in a state an earlier call found nothing to change in and no
    champion: the advance is a function of that state, so it would find nothing again.
    """
    return _advance_unless_settled(uow, stage_id=stage_id, actor=actor, now=now)[1]


def _advance_unless_settled(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None, follow_up: bool = True
) -> tuple[list[str], tuple[str, ...]]:
    """``_advance_for_workers`` unless the stage's bracket is settled; (changed duel keys, champions).

    A state is remembered as settled when the advance left it exactly as it was (the state read after it
    equals the one read before), wrote no ``duel.conflict`` (those are written again on every advance
    until staff act) and the final is not decided. Comparing two reads also keeps it safe beside other
    workers: a result another transaction commits while the advance runs (each statement sees the latest
    commits) makes the two reads differ, so a remembered state is always one the advance itself read.
    Remembering the state an advance *produced* instead is not safe for that reason.
    """
    state = uow.playoff.bracket_state(stage_id)
    if not state.duels or _is_settled(uow, stage_id, state):
        return [], ()
    done = _advance_for_workers(uow, stage_id=stage_id, actor=actor, now=now, follow_up=follow_up)
    champions = _champions(uow, done.ctx, now)
    if not champions and not done.conflicts and uow.playoff.bracket_state(stage_id) == state:
        uow.after_commit(_remember_settled, _settled_key(uow, stage_id), state)
    return done.changed, champions


def _champions(uow: UnitOfWork, ctx: _Ctx, now: datetime | None) -> tuple[str, ...]:
    """``bracket_view(...).champions``, without building the view while the final is not decided."""
    final = ko.final_duel(ko.resolve_bracket(ctx.specs, {}, {}))
    duel = ctx.duels.get(final.spec.key) if final is not None else None
    if duel is None or duel.status != DuelStatus.DECIDED.value:
        return ()
    return bracket_view(uow, stage_id=ctx.stage.id or 0, now=now).champions


_LICHESS_ID = re.compile(r"^[A-Za-z0-9]{8}$")


def parse_game_ref(game_ref: str) -> tuple[str, str | None]:
    """A Lichess game id from an id or URL (``abcdefgh``, ``https://lichess.org/abcdefgh/black``, a
    12-character player URL); returns (id, url or None)."""
    text = game_ref.strip()
    url = None
    if "://" in text or text.startswith("lichess.org/"):
        url = text if "://" in text else f"https://{text}"
        path = re.sub(r"^[a-z]+://[^/]+", "", url).split("?")[0].split("#")[0]
        parts = [p for p in path.split("/") if p]
        text = parts[0] if parts else ""
    if len(text) == 12 and text.isalnum():
        text = text[:8]  # a player's link carries 4 more characters
    if not _LICHESS_ID.match(text):
        raise ValidationFailed([f"game: {game_ref!r} is not a Lichess game id or URL"])
    return text, url or f"https://lichess.org/{text}"


def set_armageddon_game(uow: UnitOfWork, *, duel_id: int, game_ref: str, actor: str) -> str:
    """Track the Armageddon game the arbiter set up (Lichess id or URL); the workers pull its result."""
    game_id, url = parse_game_ref(game_ref)
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    game = _armageddon_game(ctx, duel)
    arm = ctx.armageddons.get(duel_id)
    if game is None or arm is None:
        raise Conflict(f"Duel {duel.key}: the Armageddon colours are not settled yet.")
    match, board = game
    if GameResult(board.result).is_final:
        raise Conflict(f"Duel {duel.key}: the Armageddon already has a result.")
    other = uow.boards.get_by_game_id(game_id)
    if other is not None and other.id != board.id:
        raise Conflict(f"Game {game_id} is already tracked for another board.")
    uow.boards.update_versioned(
        board.id or 0,
        expected_version=board.version,
        values={"game_id": game_id, "game_url": url},
        actor=actor,
    )
    rnd = uow.repo.get_or_raise(Round, match.round_id)
    rnd.status = RoundStatus.PAIRED.value
    match.status = MatchStatus.PLAYING.value
    arm.status = ArmageddonStatus.PLAYING.value
    for row in (rnd, match, arm):
        uow.session.add(row)
    uow.audit.record(
        actor=actor,
        action="armageddon.game",
        entity="armageddon",
        entity_id=arm.id,
        event_id=ctx.event.id,
        new={"game_id": game_id},
    )
    live.announce(uow, f"duel:{duel_id}", duel_id=duel_id)
    return game_id


@dataclass(frozen=True, slots=True)
class ArmageddonPairing:
    """What the workers need to create the game on the stand-in (unequal clocks) with create_bulk."""

    duel_id: int
    white_player_id: int
    black_player_id: int
    spec: BulkSpec


def armageddon_pairing(uow: UnitOfWork, *, duel_id: int) -> ArmageddonPairing:
    """The Armageddon game to create: players and clocks (White 5 min, Black 4 min, no increment)."""
    ctx, duel = _duel_ctx(uow, duel_id)
    game = _armageddon_game(ctx, duel)
    if game is None or game[1].white_player_id is None or game[1].black_player_id is None:
        raise Conflict(f"Duel {duel.key}: the Armageddon colours are not settled yet.")
    clock = _clock(ctx)
    spec = BulkSpec(
        clock_limit_s=clock.white_seconds,
        clock_increment_s=clock.increment_seconds,
        white_limit_s=clock.white_seconds,
        black_limit_s=clock.black_seconds,
        message=f"{ctx.event.name}: Armageddon of duel {duel.key}. White must win. {{game}}",
    )
    return ArmageddonPairing(duel_id, game[1].white_player_id, game[1].black_player_id, spec)


def record_armageddon_result(uow: UnitOfWork, *, duel_id: int, result: str, actor: str) -> None:
    """An arbiter enters the Armageddon result (from White's side); the bracket moves on."""
    try:
        code = GameResult("½-½" if result.strip() == "1/2-1/2" else result.strip())
    except ValueError:
        raise ValidationFailed([f"result: {result!r} is not a result code"]) from None
    ctx, duel = _duel_ctx(uow, duel_id, lock=True)
    game = _armageddon_game(ctx, duel)
    if game is None:
        raise Conflict(f"Duel {duel.key}: the Armageddon colours are not settled yet.")
    match, board = game
    old = board.result
    uow.boards.update_versioned(
        board.id or 0,
        expected_version=board.version,
        values={"result": code.value, "result_source": ResultSource.ARBITER.value},
        actor=actor,
    )
    if code.is_final:
        match.status = MatchStatus.FINISHED.value
        match.finished_at = match.finished_at or utcnow()
        uow.session.add(match)
    uow.audit.record(
        actor=actor,
        action="board.result",
        entity="board",
        entity_id=board.id,
        event_id=ctx.event.id,
        old={"result": old},
        new={"result": code.value},
    )
    uow.flush()
    _sync_armageddon_status(uow, duel)
    advance_bracket(uow, stage_id=duel.stage_id, actor=actor)


def _sync_armageddons(uow: UnitOfWork, stage_id: int) -> None:
    """``_sync_armageddon_status`` for every duel of the stage, in three queries."""
    arms = uow.playoff.armageddons_of_duels(d.id for d in uow.playoff.duels_of_stage(stage_id))
    if not arms:
        return
    games = {
        m.duel_id or 0: m
        for ms in uow.playoff.matches_of_duels(arms).values()
        for m in ms
        if m.leg == ARMAGEDDON_LEG
    }
    boards = uow.playoff.boards_of_matches(m.id for m in games.values())
    for duel_id, arm in arms.items():
        match = games.get(duel_id)
        if match is not None:
            _sync_armageddon(uow, arm, boards.get(match.id or 0, []))


def _sync_armageddon(uow: UnitOfWork, arm: Armageddon, boards: Sequence[Board]) -> None:
    if boards and GameResult(boards[0].result).is_final:
        arm.status = ArmageddonStatus.DECIDED.value
    elif boards and boards[0].game_id:
        arm.status = ArmageddonStatus.PLAYING.value
    uow.session.add(arm)


def _sync_armageddon_status(uow: UnitOfWork, duel: Duel) -> None:
    arm = uow.playoff.armageddon_of_duel(duel.id or 0)
    if arm is None:
        return
    match = next(
        (m for m in uow.playoff.matches_of_duels([duel.id])[duel.id or 0] if m.leg == ARMAGEDDON_LEG), None
    )
    if match is None:
        return
    _sync_armageddon(uow, arm, uow.playoff.boards_of_matches([match.id])[match.id or 0])


# --------------------------------------------------------------------------------------- deadlines


def apply_due_deadlines(
    uow: UnitOfWork, now: datetime | None = None, *, actor: str = "system"
) -> dict[str, int]:
    """For the beat: unseal Armageddons past their deadline (defaults apply), apply lineups of rounds past
    their lineup deadline, and move running brackets on (each Armageddon's status brought in line with its
    game first; nothing to do for a bracket in a state an earlier advance left as it was). Idempotent;
    returns what it did."""
    from orchestrator.services.lineups import apply_lineups

    now = now or utcnow()
    done = {"armageddons_revealed": 0, "rounds_lined_up": 0, "duels_changed": 0}
    stages = list(uow.playoff.running_knockout_stages())
    for stage in stages:  # the stage, then duels, then rounds: the order every bracket writer takes
        uow.locks.lock(Stage, stage.id or 0)
    for arm in uow.playoff.due_armageddons(now):
        ctx, duel = _duel_ctx(uow, arm.duel_id, lock=True)
        if ctx.armageddons[arm.duel_id].status == ArmageddonStatus.NOMINATING.value:
            _reveal(uow, ctx, duel, now=now, actor=actor)
            done["armageddons_revealed"] += 1
    for rnd in uow.playoff.due_lineup_rounds(now):
        if rnd.number >= ARMAGEDDON_ROUND_BASE:
            continue
        uow.locks.lock(Round, rnd.id or 0)  # as the pairing does: never beside it on the same boards
        apply_lineups(uow, round_id=rnd.id or 0, actor=actor)
        done["rounds_lined_up"] += 1
    for stage in stages:
        changed, _final = _advance_unless_settled(
            uow, stage_id=stage.id or 0, actor=actor, now=now, follow_up=False
        )
        done["duels_changed"] += len(changed)
    return done


# --------------------------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class LotInfo:
    purpose: str
    candidates: tuple[str, ...]
    commitment: str
    seed_hex: str | None
    outcome: str | None
    committed_at: datetime
    revealed_at: datetime | None

    def as_json(self) -> dict[str, Any]:
        return {
            "purpose": self.purpose,
            "candidates": list(self.candidates),
            "commitment": self.commitment,
            "seed_hex": self.seed_hex,
            "outcome": self.outcome,
            "committed_at": self.committed_at.isoformat(),
            "revealed_at": self.revealed_at.isoformat() if self.revealed_at else None,
            "procedure": domain_lots.PROCEDURE,
        }


@dataclass(frozen=True, slots=True)
class NomineeInfo:
    team: str
    player: str
    by_default: bool


@dataclass(frozen=True, slots=True)
class ArmageddonInfo:
    phase: str
    category: str | None
    category_lot: LotInfo | None
    deadline: datetime | None
    sealed: bool
    nominations_in: int  # how many are in while sealed (never which player)
    nominees: tuple[NomineeInfo, ...]  # empty while sealed
    colour_lot: LotInfo | None
    chooser: str | None
    white: str | None
    black: str | None
    white_player: str | None
    black_player: str | None
    clock: str
    result: str | None
    game_url: str | None
    own_nomination: str | None = None  # captain view only

    def as_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "category": self.category,
            "category_lot": self.category_lot.as_json() if self.category_lot else None,
            "nomination_deadline": self.deadline.isoformat() if self.deadline else None,
            "sealed": self.sealed,
            "nominations_in": self.nominations_in,
            "nominees": [
                {"team": n.team, "player": n.player, "by_default": n.by_default} for n in self.nominees
            ],
            "colour_lot": self.colour_lot.as_json() if self.colour_lot else None,
            "chooser": self.chooser,
            "white": self.white,
            "black": self.black,
            "white_player": self.white_player,
            "black_player": self.black_player,
            "clock": self.clock,
            "result": self.result,
            "game_url": self.game_url,
        }


@dataclass(frozen=True, slots=True)
class MatchInfo:
    leg: int
    match_id: int
    first_gp: str | None  # the duel's first team's game points, None before any result
    second_gp: str | None
    first_colour_odd: str  # "White"/"Black": the duel's first team on odd boards
    forfeit: str | None
    finished: bool
    starts_at: datetime | None


@dataclass(frozen=True, slots=True)
class DuelInfo:
    id: int
    key: str
    round_name: str
    first: str  # team or slot label
    second: str
    first_known: bool
    second_known: bool
    status: str
    matches: tuple[MatchInfo, ...]
    mp: tuple[int, int] | None
    reason: str | None
    winners: tuple[str, ...]
    provisional: bool
    sentence: str | None
    armageddon: ArmageddonInfo | None
    pending_lot: LotInfo | None  # a committed lot waiting for its draw

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "round": self.round_name,
            "first": self.first if self.first_known else None,
            "second": self.second if self.second_known else None,
            "first_slot": None if self.first_known else self.first,
            "second_slot": None if self.second_known else self.second,
            "status": self.status,
            "matches": [
                {
                    "leg": m.leg,
                    "match_id": m.match_id,
                    "first_gp": m.first_gp,
                    "second_gp": m.second_gp,
                    "forfeit": m.forfeit,
                    "finished": m.finished,
                    "starts_at": m.starts_at.isoformat() if m.starts_at else None,
                }
                for m in self.matches
            ],
            "match_points": list(self.mp) if self.mp else None,
            "reason": self.reason,
            "winners": list(self.winners),
            "provisional": self.provisional,
            "summary": self.sentence,
            "armageddon": self.armageddon.as_json() if self.armageddon else None,
            "pending_lot": self.pending_lot.as_json() if self.pending_lot else None,
        }


@dataclass(frozen=True, slots=True)
class BracketView:
    event_slug: str
    event_name: str
    stage_id: int
    stage_name: str
    rounds: tuple[tuple[str, tuple[DuelInfo, ...]], ...]
    champions: tuple[str, ...]
    built: bool

    def duels(self) -> list[DuelInfo]:
        return [d for _, duels in self.rounds for d in duels]

    def as_json(self) -> dict[str, Any]:
        return {
            "event": {"slug": self.event_slug, "name": self.event_name},
            "stage": {"id": self.stage_id, "name": self.stage_name},
            "built": self.built,
            "champions": list(self.champions),
            "rounds": [{"name": name, "duels": [d.as_json() for d in duels]} for name, duels in self.rounds],
        }


def _lot_info(lot: Lot | None) -> LotInfo | None:
    if lot is None:
        return None
    return LotInfo(
        purpose=lot.purpose,
        candidates=tuple(str(c) for c in lot.candidates),
        commitment=lot.commitment,
        seed_hex=lot.seed_hex,
        outcome=str(lot.outcome[0]) if lot.outcome else None,
        committed_at=lot.committed_at,
        revealed_at=lot.revealed_at,
    )


def _armageddon_info(
    uow: UnitOfWork, ctx: _Ctx, duel: Duel, now: datetime, viewer_team: int | None = None
) -> ArmageddonInfo | None:
    arm = ctx.armageddons.get(duel.id or 0)
    if arm is None:
        return None
    state = _state(uow, ctx, duel)
    if viewer_team is not None and ctx.name(viewer_team) in state.teams:
        view = ko.captain_view(state, ctx.name(viewer_team) or "", now)
    else:
        view = ko.public_view(state, now)
    nominees: tuple[NomineeInfo, ...] = ()
    if view.nominations is not None:
        nominees = tuple(
            NomineeInfo(team, n.player if n else "nobody (forfeit)", n.by_default if n else True)
            for team, n in zip(view.teams, view.nominations, strict=True)
        )
    game = _armageddon_game(ctx, duel)
    white = view.white
    black = None if white is None else (view.teams[1] if white == view.teams[0] else view.teams[0])
    players = {n.team: n.player for n in nominees}
    clock = view.clock
    clock_text = f"White {clock.white_seconds // 60} min, Black {clock.black_seconds // 60} min" + (
        f", +{clock.increment_seconds} s" if clock.increment_seconds else ", no increment"
    )
    return ArmageddonInfo(
        phase=view.phase.value,
        category=view.category.value if view.category else None,
        category_lot=_lot_info(uow.repo.get(Lot, arm.category_lot_id) if arm.category_lot_id else None),
        deadline=view.deadline,
        sealed=view.nominations is None,
        nominations_in=sum(1 for n in state.sealed if n is not None) if view.nominations is None else 2,
        nominees=nominees,
        colour_lot=_lot_info(uow.repo.get(Lot, arm.chooser_lot_id) if arm.chooser_lot_id else None),
        chooser=view.chooser,
        white=white,
        black=black,
        white_player=players.get(white) if white else None,
        black_player=players.get(black) if black else None,
        clock=clock_text,
        result=view.result.value if view.result.is_final else None,
        game_url=game[1].game_url if game else None,
        own_nomination=view.own_nomination.player if view.own_nomination else None,
    )


def _match_info(ctx: _Ctx, duel: Duel, match: Match, starts_at: datetime | None) -> MatchInfo:
    """A duel match's score from the duel's first team's side (match 2 names the other team first)."""
    boards = ctx.boards.get(match.id or 0, [])
    forfeit = MatchForfeit(match.forfeit)
    duel_first_is_match_first = match.first_team_id == duel.first_team_id
    a = b = 0
    any_result = forfeit is not MatchForfeit.NONE
    if forfeit is not MatchForfeit.NONE:
        full = 2 * ctx.fmt.boards
        a, b = {MatchForfeit.A_WINS: (full, 0), MatchForfeit.B_WINS: (0, full)}.get(forfeit, (0, 0))
        if not duel_first_is_match_first:
            a, b = b, a
    else:
        for board in boards:
            result = GameResult(board.result)
            if result.is_final:
                any_result = True
                first_white = (board.board_no % 2 == 1) == duel_first_is_match_first
                a += result.white_half if first_white else result.black_half
                b += result.black_half if first_white else result.white_half
    finished = forfeit is not MatchForfeit.NONE or (
        bool(boards) and all(GameResult(x.result).is_final for x in boards)
    )
    return MatchInfo(
        leg=match.leg or 0,
        match_id=match.id or 0,
        first_gp=format_points(a) if any_result else None,
        second_gp=format_points(b) if any_result else None,
        first_colour_odd="White" if duel_first_is_match_first else "Black",
        forfeit=forfeit.value or None,
        finished=finished,
        starts_at=starts_at,
    )


def _duel_info(
    uow: UnitOfWork,
    ctx: _Ctx,
    spec: DuelSpec,
    now: datetime,
    viewer_team: int | None,
    rounds: dict[int | None, Round],
) -> DuelInfo:
    duel = ctx.duels.get(spec.key)
    first_label, second_label = (
        slot_label(ctx.definition, spec.first),
        slot_label(ctx.definition, spec.second),
    )
    if duel is None:
        return DuelInfo(
            0,
            spec.key,
            spec.round_name,
            first_label,
            second_label,
            False,
            False,
            DuelStatus.WAITING.value,
            (),
            None,
            None,
            (),
            False,
            None,
            None,
            None,
        )
    first, second = ctx.name(duel.first_team_id), ctx.name(duel.second_team_id)
    outcome = _decide(ctx, duel) if first and second else None
    matches = []
    for match in ctx.matches.get(duel.id or 0, []):
        if match.leg == ARMAGEDDON_LEG:
            continue
        rnd = rounds.get(match.round_id)
        matches.append(_match_info(ctx, duel, match, rnd.scheduled_at if rnd else None))
    pending = None
    for which in ("category", "colour"):
        lot = ctx.lots.get(_purpose(spec.key, which))
        if lot is not None and lot.seed_hex is None:
            pending = _lot_info(lot)
    provisional = _is_provisional(ctx, duel) and bool(outcome and outcome.is_decided)
    return DuelInfo(
        id=duel.id or 0,
        key=duel.key,
        round_name=duel.round_name,
        first=first or first_label,
        second=second or second_label,
        first_known=first is not None,
        second_known=second is not None,
        status=duel.status,
        matches=tuple(matches),
        mp=outcome.mp if outcome else None,
        reason=outcome.reason.value if outcome else None,
        winners=outcome.winners if outcome else (),
        provisional=provisional,
        sentence=outcome.sentence if outcome else None,
        armageddon=_armageddon_info(uow, ctx, duel, now, viewer_team),
        pending_lot=pending,
    )


def knockout_stage_of(uow: UnitOfWork, *, slug: str, public: bool = True) -> Stage:
    event = uow.playoff.event_by_slug(slug)
    if event is None or (public and event.status == EventStatus.DRAFT.value):
        raise NotFound("This event does not exist.")
    stages = uow.playoff.knockout_stages(event.id or 0)
    if not stages:
        raise NotFound(f"{event.name} has no play-off.")
    return stages[0]


def bracket_view(
    uow: UnitOfWork, *, stage_id: int, now: datetime | None = None, viewer_team: int | None = None
) -> BracketView:
    """The whole bracket for pages and the API; sealed nominations stay sealed (domain public_view)."""
    now = now or utcnow()
    ctx = _load(uow, stage_id)
    stage_rounds = {r.id: r for r in uow.playoff.rounds_of_stage(stage_id)}
    # Every Armageddon's players (match 2's boards and the nominees) in one query.
    with_armageddon = [d for d in ctx.duels.values() if (d.id or 0) in ctx.armageddons]
    match2 = [m for d in with_armageddon if (m := ctx.match(d, 2)) is not None]
    _players(
        uow,
        ctx,
        [
            *(
                p
                for m in match2
                for b in ctx.boards.get(m.id or 0, [])
                for p in (b.white_player_id, b.black_player_id)
            ),
            *(p for a in ctx.armageddons.values() for p in (a.first_nominee_id, a.second_nominee_id)),
        ],
    )
    duels = [_duel_info(uow, ctx, spec, now, viewer_team, stage_rounds) for spec in ctx.specs]
    by_key = {d.key: d for d in duels}
    resolved = ko.resolve_bracket(ctx.specs, {}, {})
    rounds = tuple(
        (name, tuple(by_key[d.spec.key] for d in group)) for name, group in ko.rounds_for_display(resolved)
    )
    final = ko.final_duel(resolved)
    champions: tuple[str, ...] = ()
    if final is not None:
        info = by_key[final.spec.key]
        if info.status == DuelStatus.DECIDED.value:
            champions = info.winners
    return BracketView(
        event_slug=ctx.event.slug,
        event_name=ctx.event.name,
        stage_id=stage_id,
        stage_name=ctx.stage.name,
        rounds=rounds,
        champions=champions,
        built=bool(ctx.duels),
    )


@dataclass(frozen=True, slots=True)
class NominationForm:
    duel_id: int
    duel_key: str
    team_id: int
    team: str
    opponent: str
    armageddon: ArmageddonInfo | None
    options: tuple[tuple[str, str], ...]  # (account, label) of the team's eligible players
    open: bool
    chooser_is_us: bool


def nomination_form(
    uow: UnitOfWork, *, duel_id: int, team_id: int, user: AuthUser, now: datetime | None = None
) -> NominationForm:
    """The captain's Armageddon page: the category, their own sealed nomination, eligible players."""
    now = now or utcnow()
    ensure_team_access(user, team_id)
    ctx, duel = _duel_ctx(uow, duel_id)
    if team_id not in (duel.first_team_id, duel.second_team_id):
        raise Forbidden("Your team does not play this duel.")
    info = _armageddon_info(uow, ctx, duel, now, viewer_team=team_id)
    arm = ctx.armageddons.get(duel_id)
    options: list[tuple[str, str]] = []
    if arm is not None:
        category = Category(arm.category)
        for p in uow.playoff.players_of_team(team_id):
            if ineligibility(p, category, ctx.fmt.cutoff_year) is None:
                options.append((p.account, f"{p.name} ({p.rating})"))
    is_open = bool(
        arm is not None
        and arm.status == ArmageddonStatus.NOMINATING.value
        and (arm.deadline_at is None or now < arm.deadline_at)
    )
    other = duel.second_team_id if duel.first_team_id == team_id else duel.first_team_id
    return NominationForm(
        duel_id=duel_id,
        duel_key=duel.key,
        team_id=team_id,
        team=ctx.name(team_id) or "?",
        opponent=ctx.name(other) or "?",
        armageddon=info,
        options=tuple(options),
        open=is_open,
        chooser_is_us=bool(info and info.chooser == ctx.name(team_id) and info.white is None),
    )


def duel_stage_id(uow: UnitOfWork, *, duel_id: int) -> int:
    duel = uow.repo.get(Duel, duel_id)
    if duel is None:
        raise NotFound(f"duel {duel_id} does not exist")
    return duel.stage_id


def duel_topics(uow: UnitOfWork, *, stage_id: int) -> list[str]:
    """Live-update topics of a bracket page: the event's and each duel's."""
    event, _stage = uow.playoff.event_of_stage(stage_id)
    return [f"event:{event.slug}", f"stage:{stage_id}"] + [
        f"duel:{d.id}" for d in uow.playoff.duels_of_stage(stage_id)
    ]


def stage_of_match(uow: UnitOfWork, *, match_id: int) -> int:
    match = uow.repo.get(Match, match_id)
    if match is None:
        raise NotFound(f"match {match_id} does not exist")
    return uow.repo.get_or_raise(Round, match.round_id).stage_id


@dataclass(frozen=True, slots=True)
class DeskDuel:
    """What the staff desk needs to offer the next step of a duel (ids, never sealed choices)."""

    duel_id: int
    key: str
    teams: tuple[tuple[int, str], ...]  # (id, name) of the known teams
    matches: tuple[tuple[int, int], ...]  # (leg, match id) of matches 1 and 2
    next_step: str  # "category-commit", "category-reveal", "nominating", "colour-commit", ...
    chooser_team_id: int | None


@dataclass(frozen=True, slots=True)
class StaffDesk:
    stage_id: int
    event_slug: str
    built: bool
    duels: dict[str, DeskDuel]
    withdrawable: tuple[tuple[int, str], ...]  # teams still in the bracket


def staff_desk(uow: UnitOfWork, *, stage_id: int) -> StaffDesk:
    """The staff desk's data: each duel's next Armageddon step and the ids its forms post."""
    ctx = _load(uow, stage_id)
    duels: dict[str, DeskDuel] = {}
    in_bracket: dict[int, str] = {}
    for key, duel in ctx.duels.items():
        teams = tuple(
            (t, ctx.name(t) or "?") for t in (duel.first_team_id, duel.second_team_id) if t is not None
        )
        if duel.status != DuelStatus.DECIDED.value:
            in_bracket.update({t: n for t, n in teams if ctx.teams[t].withdrawn_at is None})
        arm = ctx.armageddons.get(duel.id or 0)
        category_lot = ctx.lots.get(_purpose(key, "category"))
        colour_lot = ctx.lots.get(_purpose(key, "colour"))
        step = ""
        chooser = None
        if duel.status == DuelStatus.ARMAGEDDON.value and arm is None:
            step = (
                "category-reveal"
                if category_lot is not None and category_lot.seed_hex is None
                else "category-commit"
            )
        elif arm is not None:
            if arm.status == ArmageddonStatus.NOMINATING.value:
                step = "nominating"
            elif arm.status == ArmageddonStatus.CHOOSING.value and arm.chooser_lot_id is None:
                step = (
                    "colour-reveal"
                    if colour_lot is not None and colour_lot.seed_hex is None
                    else "colour-commit"
                )
            elif arm.status == ArmageddonStatus.CHOOSING.value:
                step = "choose-colour"
                if colour_lot is not None and colour_lot.outcome:
                    chooser = ctx.team_id(str(colour_lot.outcome[0]))
            elif arm.status in (ArmageddonStatus.READY.value, ArmageddonStatus.PLAYING.value):
                step = "game"
        matches = tuple((m.leg or 0, m.id or 0) for m in ctx.matches.get(duel.id or 0, []) if m.leg in (1, 2))
        duels[key] = DeskDuel(duel.id or 0, key, teams, matches, step, chooser)
    return StaffDesk(
        stage_id=stage_id,
        event_slug=ctx.event.slug,
        built=bool(ctx.duels),
        duels=duels,
        withdrawable=tuple(sorted(in_bracket.items(), key=lambda item: item[1])),
    )
