"""Build the play-off bracket and move it on from stored results (docs/rules.md §5, docs/knockout.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from orchestrator.adapters.tables import (
    Board,
    Duel,
    DuelStatus,
    Event,
    EventStatus,
    Match,
    Round,
    RoundStatus,
    Stage,
    StageKind,
    StageStatus,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import knockout as ko
from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, WinnerOf
from orchestrator.domain.event import slot_label
from orchestrator.domain.scoring import GameResult
from orchestrator.errors import Conflict
from orchestrator.services import live
from orchestrator.services.due_games import queue_due_games
from orchestrator.services.playoff._context import StageContext, decide, is_provisional, load_stage
from orchestrator.services.playoff.storage import ARMAGEDDON_ROUND_BASE
from orchestrator.services.setup import pool_draft
from orchestrator.services.teams.lineups import definition_of
from orchestrator.translation import gettext as _


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
    return {key: index for key, (index, _position) in _round_places(specs).items()}


def _round_places(specs: Sequence[DuelSpec]) -> dict[str, tuple[int, int]]:
    """Each duel's bracket round (``_round_index``) and its place in it, 1 for the first duel shown."""
    resolved = ko.resolve_bracket(specs, {}, {})
    return {
        duel.spec.key: (index, position)
        for index, (_name, duels) in enumerate(ko.rounds_for_display(resolved))
        for position, duel in enumerate(duels, start=1)
    }


def _places(uow: UnitOfWork, ctx: StageContext) -> dict[PoolPlace, str]:
    """Teams on the pool places the bracket names, from closed standings only (docs/rules.md §6): a place
    is a place among the pool's teams that did not withdraw from the stage (``pool_draft.final_places``),
    so ``Top A 1st`` is the best-placed team of pool A still in (docs/knockout.md)."""
    needed = {ref for s in ctx.specs for ref in (s.first, s.second) if isinstance(ref, PoolPlace)}
    places: dict[PoolPlace, str] = {}
    problems: list[str] = []
    unclosed: set[str] = set()  # stages whose problem already covers their places
    for stage_key in sorted({ref.stage for ref in needed}):
        source = uow.events.stage_by_key(ctx.event.id or 0, stage_key)
        if source is None:
            problems.append(_("The event has no stage %(stage)r.") % {"stage": stage_key})
            continue
        letters = {p.id: p.letter for p in uow.rounds.pools_of_stage(source.id or 0)}
        by_pool = pool_draft.final_places(uow, stage_id=source.id or 0)
        if not by_pool:
            unclosed.add(stage_key)
            problems.append(
                _("%(stage)s: the standings are not closed yet (the bracket needs final standings).")
                % {"stage": source.name}
            )
            continue
        for pool_id, teams in by_pool.items():
            letter = letters.get(pool_id)
            for place, team_id in enumerate(teams, start=1):
                if letter is not None and team_id in ctx.teams:
                    places[PoolPlace(stage_key, letter, place)] = ctx.teams[team_id].name
    for ref in sorted(needed, key=str):
        if ref not in places and ref.stage not in unclosed:
            problems.append(
                _("%(slot)s: no team holds this place in the final standings.")
                % {"slot": slot_label(ctx.definition, ref)}
            )
    if problems:
        raise Conflict(" ".join(problems))
    return places


def bracket_places(uow: UnitOfWork, *, stage_id: int) -> dict[PoolPlace, str]:
    """The teams on the bracket's pool places in the final standings now (Conflict while one is missing)."""
    return _places(uow, load_stage(uow, stage_id, all_teams=True))


def build_bracket(uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None) -> list[int]:
    """Create the play-off's duels from the Top division's closed standings and start the first duels.

    Safe to repeat: existing duels are kept. Returns the duel ids in bracket order.
    """
    uow.locks.lock(Stage, stage_id)  # one bracket writer at a time: a second build then finds the duels
    ctx = load_stage(uow, stage_id, all_teams=True)
    places = _places(uow, ctx)
    ids: list[int] = []
    for spec in ctx.specs:
        duel = ctx.duels.get(spec.key)
        if duel is None:
            first = places.get(spec.first) if isinstance(spec.first, PoolPlace) else None
            second = places.get(spec.second) if isinstance(spec.second, PoolPlace) else None
            duel = uow.playoff.insert(
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
            uow.audit.change(
                duel,
                "duel.create",
                actor=actor,
                event_id=ctx.event.id,
                new={"key": spec.key, "first": first, "second": second},
            )
        ids.append(duel.id or 0)
    if ctx.stage.status in (StageStatus.DRAFT.value, StageStatus.PUBLISHED.value):
        ctx.stage.status = StageStatus.RUNNING.value
        uow.events.add(ctx.stage)
    if ctx.event.status in (EventStatus.DRAFT.value, EventStatus.PUBLISHED.value):
        ctx.event.status = EventStatus.RUNNING.value
        uow.events.add(ctx.event)
    uow.flush()
    advance_bracket(uow, stage_id=stage_id, actor=actor, now=now)
    live.announce(uow, f"event:{ctx.event.slug}", stage_id=stage_id)
    live.announce(uow, f"stage:{stage_id}", stage_id=stage_id)
    return ids


def _round_for(uow: UnitOfWork, ctx: StageContext, number: int, name: str) -> Round:
    rnd = uow.rounds.round_by_number(ctx.stage.id or 0, number)
    if rnd is not None:
        return rnd
    schedule = ctx.definition.stage(ctx.stage.key).schedule if _has_stage(ctx) else ()
    when = _utc(schedule[number - 1], ctx.definition.timezone) if number <= len(schedule) else None
    deadline = ctx.definition.lineup_deadline(when)
    return uow.rounds.insert(
        Round(
            stage_id=ctx.stage.id or 0,
            number=number,
            name=name,
            scheduled_at=when,
            lineup_deadline_at=deadline,
        )
    )


def _has_stage(ctx: StageContext) -> bool:
    return any(s.key == ctx.stage.key for s in ctx.definition.stages)


def add_match(
    uow: UnitOfWork,
    ctx: StageContext,
    duel: Duel,
    rnd: Round,
    leg: int,
    first: int,
    second: int,
    boards: int,
    *,
    number: int | None = None,
) -> Match:
    """A duel's match in ``rnd`` with its empty boards: table ``number`` when it is free, else the next."""
    taken = [m.match_no for m in uow.rounds.matches_of_round(rnd.id or 0)]
    match = uow.rounds.insert(
        Match(
            round_id=rnd.id or 0,
            duel_id=duel.id,
            leg=leg,
            match_no=number if number is not None and number not in taken else max(taken, default=0) + 1,
            first_team_id=first,
            second_team_id=second,
        )
    )
    made = [Board(match_id=match.id or 0, board_no=n) for n in range(1, boards + 1)]
    uow.boards.add_all(made)
    uow.flush()  # the match's boards in one flush, not one INSERT round trip each
    ctx.matches.setdefault(duel.id or 0, []).append(match)
    ctx.matches[duel.id or 0].sort(key=lambda m: m.leg or 0)
    ctx.boards[match.id or 0] = made
    return match


def _create_duel_matches(uow: UnitOfWork, ctx: StageContext, duel: Duel, place: tuple[int, int]) -> None:
    """The duel's two matches, in its bracket round's two match rounds (``place``: that round's index and
    the duel's place in it, which is the matches' table number: the same whichever duel is known first)."""
    assert duel.first_team_id is not None and duel.second_team_id is not None
    round_index, position = place
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
        add_match(uow, ctx, duel, rnd, leg, first, second, ctx.fmt.boards, number=position)


def _status_of(ctx: StageContext, duel: Duel, outcome: ko.DuelOutcome | None) -> str:
    if duel.first_team_id is None or duel.second_team_id is None:
        return DuelStatus.WAITING.value
    if outcome is not None and outcome.is_decided and not is_provisional(ctx, duel):
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
    return advance(uow, stage_id=stage_id, actor=actor, now=now).changed


@dataclass
class Advanced:
    """What one bracket advance did: the duels it changed, those it made level (they now need an
    Armageddon), and how many ``duel.conflict`` entries it wrote."""

    ctx: StageContext
    changed: list[str] = field(default_factory=list)
    levelled: list[str] = field(default_factory=list)
    conflicts: int = 0


def advance(uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None) -> Advanced:
    now = now or utcnow()
    ctx = load_stage(uow, stage_id, lots=False)  # the advance never reads the lots
    done = Advanced(ctx)
    if not ctx.duels:
        return done
    order = _topological(ctx.specs)
    round_places = _round_places(ctx.specs)
    places = _stored_places(ctx)
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
                uow.audit.change(
                    duel,
                    "duel.conflict",
                    actor=actor,
                    event_id=ctx.event.id,
                    reason=f"the bracket now gives {resolved.first} – {resolved.second}",
                )
                done.conflicts += 1
                continue
            _drop_matches(uow, ctx, duel)
            duel.first_team_id, duel.second_team_id = first_id, second_id
        outcome: ko.DuelOutcome | None = None
        if duel.first_team_id is not None and duel.second_team_id is not None:
            outcome = decide(ctx, duel)
            gone = [
                t for t in (duel.first_team_id, duel.second_team_id) if ctx.teams[t].withdrawn_at is not None
            ]
            if not outcome.is_decided and len(gone) == 1:
                # Withdrew after winning an earlier duel (docs/rules.md §5): the opponent goes through.
                duel.outcome = {**(duel.outcome or {}), "withdrawn_team_id": gone[0]}
                outcome = decide(ctx, duel)
            if not (outcome.reason is ko.DuelReason.WITHDRAWAL and not ctx.matches.get(duel.id or 0)):
                _create_duel_matches(uow, ctx, duel, round_places.get(spec.key, (0, 1)))
            if outcome.is_decided and not is_provisional(ctx, duel):
                outcomes[spec.key] = outcome
        status = _status_of(ctx, duel, outcome)
        duel.status = status
        if status == DuelStatus.DECIDED.value and outcome is not None:
            duel.winner_team_id = ctx.team_id(outcome.winner)
            duel.decided_at = duel.decided_at or now
        else:
            duel.winner_team_id = None
            duel.decided_at = None
        uow.playoff.add(duel)
        after = (duel.first_team_id, duel.second_team_id, duel.status, duel.winner_team_id)
        if after != before:
            changed.append(duel.key)
            if status == DuelStatus.ARMAGEDDON.value and before[2] != status:
                done.levelled.append(duel.key)
            _record_update(uow, ctx, duel, before, after, actor=actor)
    uow.flush()
    if changed:
        live.announce(uow, f"event:{ctx.event.slug}", stage_id=stage_id)
    return done


def _stored_places(ctx: StageContext) -> dict[PoolPlace, str]:
    """Pool places from the duels' stored teams (filled from closed standings at build time)."""
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
    return places


_DUEL_FIELDS = ("first_team_id", "second_team_id", "status", "winner_team_id")


def _record_update(
    uow: UnitOfWork,
    ctx: StageContext,
    duel: Duel,
    before: tuple[Any, ...],
    after: tuple[Any, ...],
    *,
    actor: str,
) -> None:
    uow.audit.change(
        duel,
        "duel.update",
        actor=actor,
        event_id=ctx.event.id,
        old=dict(zip(_DUEL_FIELDS, before, strict=True)),
        new=dict(zip(_DUEL_FIELDS, after, strict=True)),
    )
    live.announce(uow, f"duel:{duel.id}", duel_id=duel.id)


def _has_results(ctx: StageContext, duel: Duel) -> bool:
    return any(
        GameResult(b.result).is_final or b.game_id
        for m in ctx.matches.get(duel.id or 0, [])
        for b in ctx.boards.get(m.id or 0, [])
    )


def _drop_matches(uow: UnitOfWork, ctx: StageContext, duel: Duel) -> None:
    for match in ctx.matches.pop(duel.id or 0, []):
        ctx.boards.pop(match.id or 0, None)
        uow.rounds.delete(match)
    uow.flush()


def ready_bracket_rounds(uow: UnitOfWork, *, stage_id: int) -> list[Round]:
    """The knockout stage's match rounds still to be paired (scheduled) whose duels all know both teams:
    those ``rounds.create_games`` pairs as soon as they are due (``duels_waiting_for_round`` for every
    round of the stage, with one read of its rounds and duels)."""
    blocked = _waiting_duels(uow, *uow.events.event_and_stage(stage_id))
    return [
        rnd
        for rnd in uow.rounds.rounds_of_stage(stage_id)
        if rnd.number < ARMAGEDDON_ROUND_BASE
        and rnd.status == RoundStatus.SCHEDULED.value
        and (rnd.number - 1) // 2 not in blocked
    ]


def queue_ready_bracket_games(
    uow: UnitOfWork, *, stage_id: int, now: datetime, pair_lead_s: float
) -> list[int]:
    """``rounds.create_games`` queued for the stage's bracket rounds whose duels all know their teams
    (``ready_bracket_rounds``) and whose start is within ``pair_lead_s`` of ``now`` (``queue_due_games``,
    beat's ``rounds.open_due`` rule); their ids. A bracket that was just built or just advanced calls it."""
    ready = ready_bracket_rounds(uow, stage_id=stage_id)
    return queue_due_games(uow, ready, now=now, pair_lead_s=pair_lead_s)


def rounds_waiting_for_duels(uow: UnitOfWork, rounds: Sequence[Round]) -> set[int]:
    """The ids of those of ``rounds`` that are match rounds of a bracket round with a duel still waiting for
    a team (``duels_waiting_for_round`` for many rounds, one read per knockout stage among them): beat's
    ``rounds.open_due`` leaves them to the advance that completes their duels."""
    by_stage: dict[int, list[Round]] = {}
    for rnd in rounds:
        if rnd.number < ARMAGEDDON_ROUND_BASE:
            by_stage.setdefault(rnd.stage_id, []).append(rnd)
    waiting: set[int] = set()
    for stage_id, stage_rounds in by_stage.items():
        blocked = _waiting_duels(uow, *uow.events.event_and_stage(stage_id))
        waiting.update(rnd.id or 0 for rnd in stage_rounds if (rnd.number - 1) // 2 in blocked)
    return waiting


def duels_waiting_for_round(uow: UnitOfWork, *, round_id: int) -> list[str]:
    """Keys of the duels of this match round's bracket round that still wait for a team (empty for a pool
    round or an Armageddon round). The workers pair a bracket round only once all its duels are known, so
    that no duel's matches land in a round whose games were already created."""
    rnd = uow.rounds.get_or_raise(Round, round_id)
    if rnd.number >= ARMAGEDDON_ROUND_BASE:
        return []
    return _waiting_duels(uow, *uow.events.event_and_stage(rnd.stage_id)).get((rnd.number - 1) // 2, [])


def _waiting_duels(uow: UnitOfWork, event: Event, stage: Stage) -> dict[int, list[str]]:
    """The keys of a knockout stage's duels still waiting for a team, by bracket round (``_round_index``);
    empty for any other stage."""
    if stage.kind != StageKind.KNOCKOUT.value:
        return {}
    definition = definition_of(event)
    if definition is None or not definition.bracket:
        return {}
    duels = {d.key: d for d in uow.playoff.duels_of_stage(stage.id or 0)}
    waiting: dict[int, list[str]] = {}
    for key, index in _round_index(definition.bracket).items():
        if key in duels and duels[key].status == DuelStatus.WAITING.value:
            waiting.setdefault(index, []).append(key)
    return waiting
