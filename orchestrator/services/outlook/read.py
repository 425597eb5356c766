"""What the pages and the JSON API show of the stored outlook (docs/needs.md): chances as percentages, the
exact needs of a pool's last rounds, and when they were computed. Nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from orchestrator.adapters.tables import Event, Outlook, Stage, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import NotFound
from orchestrator.services.definitions import definition_of
from orchestrator.services.outlook.compute import (
    SWISS_CHANCES_ROUNDS,
    refuse_unless_running,
    swiss_chances_from,
)
from orchestrator.services.read.documents import JsonDocument, Topics
from orchestrator.services.setup.event_setup import stage_definition
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class OutlookCondition:
    team: str
    at_most: int  # the team ends with at most this many match points


@dataclass(frozen=True, slots=True)
class OutlookLine:
    """What the team's gain of ``gain`` match points (ending on ``final_mp``) gives: ``verdict`` in, out,
    tie-break or open; when open, ``when_in`` lists alternatives that each put it in."""

    gain: int
    final_mp: int
    verdict: str
    when_in: tuple[tuple[OutlookCondition, ...], ...]
    tie_possible: bool


@dataclass(frozen=True, slots=True)
class OutlookPlace:
    """A team and the top ``places``: the chance in percent (None: not simulated) and the exact needs
    (status None: not computed, e.g. more than three rounds left)."""

    places: int
    chance: float | None
    status: str | None
    lines: tuple[OutlookLine, ...]


@dataclass(frozen=True, slots=True)
class OutlookRow:
    team_id: int
    team: str
    pool_id: int | None
    places: tuple[OutlookPlace, ...]


@dataclass(frozen=True, slots=True)
class OutlookView(JsonDocument):
    """A stage's (or a pool's, or one team's) stored outlook, computed after round ``after_round``."""

    stage_id: int
    places: tuple[int, ...]
    rows: tuple[OutlookRow, ...]
    computed_at: datetime | None
    after_round: int
    simulations: int
    has_chances: bool
    has_needs: bool
    topics: Topics = ()
    note: str = ""  # why there is nothing, or no chances, to show (empty when there is)


def _lines(stored: Sequence[Mapping[str, Any]]) -> tuple[OutlookLine, ...]:
    return tuple(
        OutlookLine(
            gain=int(line["gain"]),
            final_mp=int(line["final_mp"]),
            verdict=str(line["verdict"]),
            when_in=tuple(
                tuple(OutlookCondition(str(c["team"]), int(c["at_most"])) for c in alternative)
                for alternative in line["when_in"]
            ),
            tie_possible=bool(line["tie_possible"]),
        )
        for line in stored
    )


def _view(uow: UnitOfWork, stage_id: int, rows: Sequence[Outlook], topics: tuple[str, ...]) -> OutlookView:
    names = uow.teams.names_by_id({r.team_id for r in rows})
    places = tuple(sorted({row.places for row in rows}))
    by_team: dict[int, list[Outlook]] = {}
    for row in rows:
        by_team.setdefault(row.team_id, []).append(row)
    lines = [
        OutlookRow(
            team_id=team_id,
            team=names.get(team_id, str(team_id)),
            pool_id=own[0].pool_id,
            places=tuple(
                OutlookPlace(
                    places=row.places,
                    chance=None if row.chance is None else row.chance / 100,
                    status=row.status,
                    lines=_lines(row.lines),
                )
                for row in sorted(own, key=lambda r: r.places)
            ),
        )
        for team_id, own in by_team.items()
    ]
    lines.sort(key=lambda line: (tuple(-(p.chance or 0) for p in line.places), line.team))
    return OutlookView(
        stage_id=stage_id,
        places=places,
        rows=tuple(lines),
        computed_at=max((row.computed_at for row in rows), default=None),
        after_round=rows[0].after_round if rows else 0,
        simulations=max((row.simulations for row in rows), default=0),
        has_chances=any(row.chance is not None for row in rows),
        has_needs=any(row.status is not None for row in rows),
        topics=topics,
        note=_note(rows),
    )


def _note(rows: Sequence[Outlook]) -> str:
    if not rows:
        return _("Not computed yet: chances are computed once a round is complete.")
    if all(row.chance is None for row in rows):
        return _("No chances: the players have no ratings to simulate with.")
    return ""


def _swiss_pending(uow: UnitOfWork, stage: Stage, event: Event) -> str:
    """For a running Swiss stage whose chances are not computed yet because too many rounds are left,
    the sentence saying after which round they appear; "" otherwise."""
    if stage.kind != StageKind.SWISS.value or stage.status != StageStatus.RUNNING.value:
        return ""
    first = swiss_chances_from(stage_definition(definition_of(event), stage).round_count)
    if first == 0:
        return ""
    return _(
        "Chances appear once round %(round)s is complete: they are computed for the last %(left)s rounds."
    ) % {"round": first, "left": SWISS_CHANCES_ROUNDS}


def pool_outlook(uow: UnitOfWork, *, pool_id: int) -> OutlookView | None:
    """A pool's (or a Swiss stage's pool's) stored outlook; None when nothing is stored, except in a
    running Swiss stage before its last rounds: a view with no rows saying when chances appear."""
    rows = uow.chances.of_pool(pool_id)
    if not rows:
        context = uow.rounds.pool_context(pool_id)
        note = _swiss_pending(uow, context[1], context[2]) if context else ""
        if not context or not note:
            return None
        stage_id = context[1].id or 0
        topics = (f"stage:{stage_id}", f"pool:{pool_id}")
        return OutlookView(stage_id, (), (), None, 0, 0, False, False, topics, note)
    stage_id = rows[0].stage_id
    return _view(uow, stage_id, rows, (f"stage:{stage_id}", f"pool:{pool_id}"))


def team_outlooks(uow: UnitOfWork, *, team_id: int) -> tuple[OutlookView, ...]:
    """One view per stage the team has a stored outlook in (its own line only)."""
    rows = uow.chances.of_team(team_id)
    stages = sorted({row.stage_id for row in rows})
    return tuple(
        _view(uow, stage_id, [row for row in rows if row.stage_id == stage_id], (f"stage:{stage_id}",))
        for stage_id in stages
    )


def stage_outlook(uow: UnitOfWork, *, slug: str, stage_key: str) -> OutlookView:
    """The JSON API's stage outlook; a knockout, a finished stage or one not started is refused plainly."""
    event = uow.events.get_by_slug(slug)
    stage = uow.events.stage_by_key(event.id or 0, stage_key) if event is not None else None
    if event is None or stage is None:
        raise NotFound(
            _("There is no stage %(stage)s in event %(event)s.") % {"stage": stage_key, "event": slug}
        )
    refuse_unless_running(stage)
    stage_id = stage.id or 0
    view = _view(uow, stage_id, uow.chances.of_stage(stage_id), (f"event:{slug}", f"stage:{stage_id}"))
    if not view.rows:
        return replace(view, note=_swiss_pending(uow, stage, event) or view.note)
    return view


def team_outlook_json(uow: UnitOfWork, *, slug: str, team_id: int) -> OutlookView:
    """The JSON API's outlook of one team in the stage it plays now (the latest stored)."""
    event = uow.events.get_by_slug(slug)
    team = uow.teams.teams_by_id({team_id}).get(team_id)
    if event is None or team is None or team.event_id != event.id:
        raise NotFound(_("There is no team %(team)s in event %(event)s.") % {"team": team_id, "event": slug})
    views = team_outlooks(uow, team_id=team_id)
    if not views:
        return OutlookView(0, (), (), None, 0, 0, False, False, (f"event:{slug}",), _note(()))
    return views[-1]
