"""Late changes (docs/rules.md §6): a closed stage's final standings changed after a later stage was built
from them, by a correction, a fair-play annulment (docs/rules.md §2) or an appeal decision.

FIDE's Online Olympiad regulations leave such a change to the arbiter and the appeals committee; we never
change a started stage silently. After each change of a closed pool stage, ``review_after_match`` (and
``review_closed_stage``) compares who qualifies now with whom every later stage was built from:

- a later pool stage: the teams drafted into its pools (services/setup/pool_draft.py ``draft_pools``)
  against the entrants the corrected standings give now, and whether two pool winners now share a pool;
- the play-off: the teams on the bracket's pool places (services/playoff/commands.py ``build_bracket``)
  against the places in the corrected standings, duel by duel.

A difference is stored as a ``late_change`` (pending), shown to staff with its consequence in words, until
they rule: re-seed (only while the later stage has no game: its pools are drafted again, or its bracket is
built again, from the corrected standings) or keep (the later stage stays, the reason is shown). Both are
audited. A later change that restores what the stage was built from withdraws a pending one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from orchestrator.adapters.tables import (
    POOL_KINDS,
    Event,
    LateChange,
    LateChangeCause,
    LateChangeStatus,
    Match,
    Round,
    Stage,
    StageKind,
    StageStatus,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.bracket import PoolPlace
from orchestrator.domain.event import EventDefinition, Qualifiers, slot_label
from orchestrator.errors import Conflict, NotFound, ServiceError, ValidationFailed
from orchestrator.services import live
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.playoff import commands as playoff_commands
from orchestrator.services.row_views import row_view
from orchestrator.services.setup import pool_draft
from orchestrator.translation import gettext as _

# --- what changed ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaceChange:
    """One place of a later stage: the team it was built with and the team the standings give now."""

    slot: str  # "Group A 2nd", or "qualifier" for a pool stage's entrants
    built: str | None
    now: str | None
    affects: str  # "duel II (Semi-final)", "pool A of Final"

    def sentence(self) -> str:
        if self.built and self.now:
            return _("%(slot)s: %(now)s instead of %(built)s (%(affects)s).") % {
                "slot": self.slot,
                "now": self.now,
                "built": self.built,
                "affects": self.affects,
            }
        if self.built:
            return _("%(team)s no longer qualifies (%(affects)s).") % {
                "team": self.built,
                "affects": self.affects,
            }
        return _("%(team)s now qualifies (%(affects)s).") % {"team": self.now, "affects": self.affects}


@dataclass(frozen=True, slots=True)
class Consequence:
    now_in: tuple[str, ...] = ()  # teams that would now qualify and were not in the later stage
    now_out: tuple[str, ...] = ()  # teams in the later stage that would no longer qualify
    places: tuple[PlaceChange, ...] = ()
    notes: tuple[str, ...] = ()  # e.g. two pool winners now share a pool

    @property
    def empty(self) -> bool:
        return not (self.now_in or self.now_out or self.places or self.notes)

    def as_json(self) -> dict[str, Any]:
        return {
            "now_in": list(self.now_in),
            "now_out": list(self.now_out),
            "places": [
                {"slot": p.slot, "built": p.built, "now": p.now, "affects": p.affects} for p in self.places
            ],
            "notes": list(self.notes),
        }

    @classmethod
    def of_json(cls, data: Mapping[str, Any]) -> Consequence:
        return cls(
            tuple(data.get("now_in", ())),
            tuple(data.get("now_out", ())),
            tuple(PlaceChange(p["slot"], p["built"], p["now"], p["affects"]) for p in data.get("places", ())),
            tuple(data.get("notes", ())),
        )

    def sentences(self) -> list[str]:
        out: list[str] = []
        if self.now_in:
            out.append(_("Would now qualify: %(teams)s.") % {"teams": ", ".join(self.now_in)})
        if self.now_out:
            out.append(_("Would no longer qualify: %(teams)s.") % {"teams": ", ".join(self.now_out)})
        out.extend(p.sentence() for p in self.places)
        out.extend(self.notes)
        return out


def _fed_from(definition: EventDefinition, source_key: str, later: Stage) -> bool:
    """Whether ``later`` takes qualifiers or bracket places from stage ``source_key``."""
    if later.kind == StageKind.KNOCKOUT.value:
        return any(
            isinstance(ref, PoolPlace) and ref.stage == source_key
            for spec in definition.bracket
            for ref in (spec.first, spec.second)
        )
    try:
        entrants = definition.stage(later.key).entrants
    except KeyError:
        return False
    return any(isinstance(e, Qualifiers) and e.stage == source_key for e in entrants)


def _pool_consequence(uow: UnitOfWork, source: Stage, later: Stage) -> Consequence | None:
    """A later pool stage: its drafted teams against the entrants the final standings give now."""
    pools = uow.rounds.pools_in_letter_order(later.id or 0)
    if not pools:
        return None  # not drafted yet: it will be drafted from the corrected standings
    try:
        names, apart = pool_draft.stage_entrants(uow, stage_id=later.id or 0)
    except ServiceError:
        return None  # an earlier stage has no final standings (yet): nothing to compare
    pool_of = {team.name: pool.letter for pool in pools for team in uow.rounds.teams_of_pool(pool.id or 0)}
    played = {
        t.name
        for pool in uow.rounds.pools_in_letter_order(source.id or 0)
        for t in uow.rounds.teams_of_pool(pool.id or 0)
    }
    built = {name for name in pool_of if name in played}
    now = {name for name in names if name in played}
    where = f"of {later.name}"
    places = [
        PlaceChange("qualifier", team, None, f"pool {pool_of[team]} {where}") for team in sorted(built - now)
    ]
    places += [PlaceChange("qualifier", None, team, f"not in {later.name}") for team in sorted(now - built)]
    notes: list[str] = []
    winners_by_pool: dict[str, list[str]] = {}
    for team in apart:
        if team in pool_of:
            winners_by_pool.setdefault(pool_of[team], []).append(team)
    for letter, winners in sorted(winners_by_pool.items()):
        if len(winners) > 1:
            notes.append(f"Pool winners {' and '.join(winners)} now share pool {letter} {where}.")
    return Consequence(tuple(sorted(now - built)), tuple(sorted(built - now)), tuple(places), tuple(notes))


def _bracket_consequence(
    uow: UnitOfWork, definition: EventDefinition, source: Stage, later: Stage
) -> Consequence | None:
    """The play-off: the teams its duels were built with against the places in the standings now."""
    duels = {d.key: d for d in uow.playoff.duels_of_stage(later.id or 0)}
    if not duels:
        return None  # not built yet
    try:
        now = playoff_commands.bracket_places(uow, stage_id=later.id or 0)
    except ServiceError:
        return None
    team_ids = {tid for d in duels.values() for tid in (d.first_team_id, d.second_team_id) if tid is not None}
    names = uow.teams.names_by_id(team_ids)
    places: list[PlaceChange] = []
    built_teams: set[str] = set()
    now_teams: set[str] = set()
    for spec in definition.bracket:
        duel = duels.get(spec.key)
        if duel is None:
            continue
        for ref, team_id in ((spec.first, duel.first_team_id), (spec.second, duel.second_team_id)):
            if not isinstance(ref, PoolPlace) or ref.stage != source.key:
                continue
            built = names.get(team_id) if team_id is not None else None
            current = now.get(ref)
            built_teams.update([built] if built else [])
            now_teams.update([current] if current else [])
            if built != current:
                affects = f"duel {spec.key}, {spec.round_name}, and the duels after it"
                places.append(PlaceChange(slot_label(definition, ref), built, current, affects))
    return Consequence(
        tuple(sorted(now_teams - built_teams)), tuple(sorted(built_teams - now_teams)), tuple(places)
    )


# --- recording ------------------------------------------------------------------------------------------


def review_after_match(
    uow: UnitOfWork, *, match: Match, stage: Stage, actor: str, cause: LateChangeCause | str
) -> list[LateChange]:
    """After a change of ``match``: review its stage when it is a closed pool stage (else nothing)."""
    if stage.status != StageStatus.CLOSED.value or match.pool_id is None:
        return []
    teams = uow.teams.teams_by_id([match.first_team_id, match.second_team_id])
    rnd = uow.rounds.get_or_raise(Round, match.round_id)
    text = (
        f"{LateChangeCause(cause).value} of {teams[match.first_team_id].name} – "
        f"{teams[match.second_team_id].name} (round {rnd.number}) by {actor}"
    )
    return review_closed_stage(uow, stage_id=stage.id or 0, actor=actor, cause=cause, cause_text=text)


def review_closed_stage(
    uow: UnitOfWork, *, stage_id: int, actor: str, cause: LateChangeCause | str, cause_text: str
) -> list[LateChange]:
    """Compare every later stage built from this closed stage with its final standings now; record (or
    update, or withdraw) a late change for each. Returns the pending ones this review left."""
    source = uow.events.get_or_raise(Stage, stage_id)
    if source.status != StageStatus.CLOSED.value or source.kind not in POOL_KINDS:
        return []
    event = uow.events.event_of_stage(source)
    definition = definition_or_none(event)
    if definition is None:
        return []
    pending: list[LateChange] = []
    for later in uow.events.stages_of_event(event.id or 0):
        if later.position <= source.position or not _fed_from(definition, source.key, later):
            continue
        if later.kind == StageKind.KNOCKOUT.value:
            consequence = _bracket_consequence(uow, definition, source, later)
        else:
            consequence = _pool_consequence(uow, source, later)
        if consequence is None:
            continue
        row = _record(uow, event, source, later, consequence, actor=actor, cause=cause, text=cause_text)
        if row is not None:
            pending.append(row)
    return pending


def _record(
    uow: UnitOfWork,
    event: Event,
    source: Stage,
    later: Stage,
    consequence: Consequence,
    *,
    actor: str,
    cause: LateChangeCause | str,
    text: str,
) -> LateChange | None:
    latest = next(
        (
            c
            for c in uow.rounds.late_changes(source_stage_id=source.id or 0)
            if c.affected_stage_id == later.id
        ),
        None,
    )
    started = uow.rounds.stage_has_games(later.id or 0)
    if consequence.empty:
        if latest is not None and latest.status == LateChangeStatus.PENDING.value:
            latest.status = LateChangeStatus.WITHDRAWN.value
            latest.ruled_by, latest.ruled_at = actor, utcnow()
            latest.ruling_reason = (
                f"the {LateChangeCause(cause).value} restored what {later.name} was built from"
            )
            uow.rounds.add(latest)
            _audit(uow, latest, action="late_change.withdraw", actor=actor, reason=latest.ruling_reason)
            _announce(uow, event, latest)
        return None
    data = consequence.as_json()
    if latest is not None and latest.status == LateChangeStatus.KEPT.value and latest.consequence == data:
        return None  # staff already kept the later stage with exactly this difference
    if latest is not None and latest.status == LateChangeStatus.PENDING.value:
        row = latest
        row.cause, row.cause_text, row.consequence = LateChangeCause(cause).value, text, data
        row.affected_started, row.detected_by, row.detected_at = started, actor, utcnow()
        action = "late_change.update"
    else:
        row = LateChange(
            event_id=event.id or 0,
            source_stage_id=source.id or 0,
            affected_stage_id=later.id or 0,
            cause=LateChangeCause(cause).value,
            cause_text=text,
            consequence=data,
            affected_started=started,
            detected_by=actor,
        )
        action = "late_change.record"
    uow.rounds.add(row)
    uow.flush()
    _audit(uow, row, action=action, actor=actor, reason=text)
    _announce(uow, event, row)
    return row


def _audit(uow: UnitOfWork, row: LateChange, *, action: str, actor: str, reason: str | None) -> None:
    uow.audit.change(
        row,
        action,
        actor=actor,
        event_id=row.event_id,
        new={
            "source_stage_id": row.source_stage_id,
            "affected_stage_id": row.affected_stage_id,
            "status": row.status,
            "started": row.affected_started,
            **row.consequence,
        },
        reason=reason,
    )


def _announce(uow: UnitOfWork, event: Event, row: LateChange) -> None:
    for stage_id in (row.source_stage_id, row.affected_stage_id):
        live.announce(uow, f"stage:{stage_id}", kind="late-change", late_change_id=row.id)
    live.announce(uow, f"event:{event.slug}", kind="late-change", late_change_id=row.id)


# --- rulings --------------------------------------------------------------------------------------------


def _pending(uow: UnitOfWork, late_change_id: int, reason: str) -> tuple[LateChange, str]:
    row = uow.rounds.get(LateChange, late_change_id)
    if row is None:
        raise NotFound(_("late change %(change)s does not exist") % {"change": late_change_id})
    if row.status != LateChangeStatus.PENDING.value:
        raise Conflict(
            _("late change %(change)s was already ruled on (%(status)s by %(by)s)")
            % {"change": late_change_id, "status": row.status, "by": row.ruled_by}
        )
    reason = reason.strip()
    if not reason:
        raise ValidationFailed(
            [_("a ruling needs its reason (it is shown with the stage and kept in the audit log)")]
        )
    return row, reason


def _rule(uow: UnitOfWork, row: LateChange, status: LateChangeStatus, *, actor: str, reason: str) -> None:
    row.status = status.value
    row.ruled_by, row.ruled_at, row.ruling_reason = actor, utcnow(), reason
    uow.rounds.add(row)
    uow.flush()
    _audit(
        uow,
        row,
        action=f"late_change.{'reseed' if status is LateChangeStatus.RESEEDED else 'keep'}",
        actor=actor,
        reason=reason,
    )
    _announce(uow, uow.events.get_or_raise(Event, row.event_id), row)


def keep_later_stage(uow: UnitOfWork, *, late_change_id: int, actor: str, reason: str) -> LateChangeView:
    """Keep the later stage as it was built; the reason is recorded and shown with both stages."""
    row, reason = _pending(uow, late_change_id, reason)
    _rule(uow, row, LateChangeStatus.KEPT, actor=actor, reason=reason)
    return view_of(uow, row)


def reseed_later_stage(uow: UnitOfWork, *, late_change_id: int, actor: str, reason: str) -> LateChangeView:
    """Draft the later stage's pools (or build its bracket) again from the corrected final standings; only
    while it has no game (Conflict otherwise: keep it, with a reason)."""
    row, reason = _pending(uow, late_change_id, reason)
    later = uow.events.get_or_raise(Stage, row.affected_stage_id)
    uow.locks.lock(Stage, later.id or 0)
    if uow.rounds.stage_has_games(later.id or 0) or later.status == StageStatus.CLOSED.value:
        raise Conflict(
            _("%(stage)s has started (a game exists): it can no longer be re-seeded. Keep it, with a reason.")
            % {"stage": later.name}
        )
    if later.kind == StageKind.KNOCKOUT.value:
        for duel in uow.playoff.duels_of_stage(later.id or 0):
            uow.playoff.delete(duel)  # its matches and boards go with it (ON DELETE CASCADE)
        uow.flush()
        uow.expire_all()
        playoff_commands.build_bracket(uow, stage_id=later.id or 0, actor=actor)
    else:
        _redraft(uow, later, actor=actor)
    for other in uow.rounds.late_changes(stage_id=later.id or 0):
        if other.affected_stage_id == later.id and other.status == LateChangeStatus.PENDING.value:
            _rule(uow, other, LateChangeStatus.RESEEDED, actor=actor, reason=reason)
    return view_of(uow, row)


def _redraft(uow: UnitOfWork, stage: Stage, *, actor: str) -> None:
    """Draft a pool stage again and publish it again if it was published or started.

    A stage that had started (without a game) is left published: its new pools' pairing-number lots are
    committed now and drawn when staff start it again, never in the step that committed them (docs/lots.md).
    """
    was = stage.status
    for rnd in uow.rounds.rounds_of_stage(stage.id or 0):
        uow.rounds.delete(rnd)  # no game yet: its matches and boards go with it
    uow.rounds.delete_pools(stage.id or 0)
    stage.status = StageStatus.DRAFT.value
    uow.events.add(stage)
    uow.flush()
    uow.expire_all()
    pool_draft.draft_pools(uow, stage_id=stage.id or 0, actor=actor)
    if was in (StageStatus.PUBLISHED.value, StageStatus.RUNNING.value):
        pool_draft.publish_pools(uow, stage_id=stage.id or 0, actor=actor)


# --- read models ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LateChangeView:
    id: int
    source_stage_id: int
    source_stage: str
    affected_stage_id: int
    affected_stage: str
    cause: str
    cause_text: str
    consequence: Consequence
    affected_started: bool
    status: str
    detected_by: str
    detected_at: datetime
    ruled_by: str | None
    ruled_at: datetime | None
    ruling_reason: str | None

    @property
    def pending(self) -> bool:
        return self.status == LateChangeStatus.PENDING.value

    @property
    def can_reseed(self) -> bool:
        return self.pending and not self.affected_started

    def sentences(self) -> list[str]:
        """The consequence in words, for staff."""
        started = (
            _("%(stage)s has started (a game exists): it can only be kept, with a reason.")
            if self.affected_started
            else _("%(stage)s has not started: it can be re-seeded from the corrected standings.")
        ) % {"stage": self.affected_stage}
        return [*self.consequence.sentences(), started]

    def public_note(self) -> str:
        """What spectators see on both stages' pages."""
        values = {
            "source": self.source_stage,
            "cause": self.cause,
            "stage": self.affected_stage,
            "reason": self.ruling_reason,
        }
        if self.pending:
            text = _(
                "The final standings of %(source)s changed after it closed (%(cause)s); "
                "a ruling on %(stage)s is pending."
            )
        elif self.status == LateChangeStatus.KEPT.value:
            text = _(
                "The final standings of %(source)s changed after it closed (%(cause)s); "
                "%(stage)s stays as it was: %(reason)s"
            )
        elif self.status == LateChangeStatus.RESEEDED.value:
            text = _(
                "The final standings of %(source)s changed after it closed (%(cause)s); "
                "%(stage)s was re-seeded from the corrected standings: %(reason)s"
            )
        else:
            text = _(
                "The final standings of %(source)s changed after it closed (%(cause)s); "
                "a later change restored them."
            )
        return text % values

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source_stage_id": self.source_stage_id,
            "affected_stage_id": self.affected_stage_id,
            "cause": self.cause,
            "cause_text": self.cause_text,
            "consequence": self.consequence.as_json(),
            "sentences": self.sentences(),
            "affected_started": self.affected_started,
            "status": self.status,
            "detected_by": self.detected_by,
            "detected_at": self.detected_at.isoformat(),
            "ruled_by": self.ruled_by,
            "ruled_at": self.ruled_at.isoformat() if self.ruled_at else None,
            "ruling_reason": self.ruling_reason,
        }


def view_of(uow: UnitOfWork, row: LateChange) -> LateChangeView:
    source = uow.events.get_or_raise(Stage, row.source_stage_id)
    later = uow.events.get_or_raise(Stage, row.affected_stage_id)
    started = row.affected_started
    if row.status == LateChangeStatus.PENDING.value:
        started = uow.rounds.stage_has_games(later.id or 0)  # as of now, not as of the detection
    return row_view(
        LateChangeView,
        row,
        id=row.id or 0,
        source_stage_id=source.id or 0,
        source_stage=source.name,
        affected_stage_id=later.id or 0,
        affected_stage=later.name,
        consequence=Consequence.of_json(row.consequence),
        affected_started=started,
    )


def late_changes(
    uow: UnitOfWork, *, event_id: int | None = None, stage_id: int | None = None, shown: bool = False
) -> list[LateChangeView]:
    """An event's or a stage's late changes, newest first; ``shown`` leaves out withdrawn ones."""
    rows = uow.rounds.late_changes(event_id=event_id, stage_id=stage_id)
    views = [view_of(uow, row) for row in rows]
    return [v for v in views if not shown or v.status != LateChangeStatus.WITHDRAWN.value]


def get_late_change(uow: UnitOfWork, *, late_change_id: int) -> LateChangeView:
    row = uow.rounds.get(LateChange, late_change_id)
    if row is None:
        raise NotFound(_("late change %(change)s does not exist") % {"change": late_change_id})
    return view_of(uow, row)


def stages_named(changes: Sequence[LateChange]) -> tuple[int, ...]:
    """The later stages a review left a pending late change on (for reports)."""
    return tuple(sorted({c.affected_stage_id for c in changes}))
