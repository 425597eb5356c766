"""``scan``: what changed or is due → mails in the outbox (the periodic ``notify.scan`` job).

The scan reads the state, not a stream of messages, so it needs no hook in the services that make the
changes, and a scan that runs twice queues nothing twice (every mail has a key, services/notify/outbox.py):

- lineup open: a scheduled round of a running stage whose lineup deadline is within ``notify_lineup_open_s``
  and the team has no lineup yet; lineup due: the same within ``notify_lineup_due_s`` of the deadline;
- Armageddon nomination due: an Armageddon waiting for the team's nomination, before its deadline;
- pairings published, results corrected, appeals decided: audit entries (``stage.start`` of a pool stage,
  ``swiss.publish``, ``board.correction``, ``appeal.decide``) of the last ``notify_lookback_s``;
- link your account: a player with an address and no working link, in a published or running event; in the
  player's language, else the team's first captain's who chose one, else English.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from orchestrator.adapters.tables import (
    Appeal,
    AuditLog,
    Board,
    Event,
    Match,
    Round,
    Stage,
    StageKind,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.gameserver.player_links import link_path
from orchestrator.services.notify.compose import Moment, Said, zone_of
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.notify.outbox import queue_mail
from orchestrator.services.teams.lineups import effective_deadline
from orchestrator.translation import N_

# An appeal's status as the mail says it ("The appeal ... was upheld").
_OUTCOMES = {"upheld": N_("upheld"), "rejected": N_("rejected"), "open": N_("open")}

CHANGE_ACTIONS = ("stage.start", "swiss.publish", "board.correction", "appeal.decide")


@dataclass
class ScanReport:
    queued: dict[str, int] = field(default_factory=dict)

    def count(self, kind: Kind) -> None:
        self.queued[kind.value] = self.queued.get(kind.value, 0) + 1


@dataclass
class _Scan:
    uow: UnitOfWork
    settings: Settings
    now: datetime
    report: ScanReport = field(default_factory=ScanReport)
    mailed: set[int] = field(default_factory=set)  # teams with a captain who has an address
    _zones: dict[int, ZoneInfo] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return self.settings.public_base_url.rstrip("/")

    def zone(self, event: Event) -> ZoneInfo:
        if event.id not in self._zones:
            definition = definition_or_none(event)
            self._zones[event.id or 0] = zone_of(definition.timezone if definition else None)
        return self._zones[event.id or 0]

    def team(self, team_id: int | None) -> Team | None:
        return self.uow.teams.get(Team, team_id) if team_id is not None else None

    def mailed_team(self, team_id: int | None) -> Team | None:
        """The team, if any of its captains can get mail (the others are skipped without a query)."""
        return self.team(team_id) if team_id in self.mailed else None

    def to_captains(
        self, kind: Kind, key: str, team: Team, event: Event, facts: Mapping[str, Any], link: str
    ) -> None:
        """Queue the mail for each captain of ``team`` (the key names the captain too)."""
        full = {
            "event_name": event.name,
            "team_name": team.name,
            "account_url": f"{self.base}/account",
            **facts,
        }
        for captain in self.uow.accounts.enabled_captains_of_team(team.id or 0):
            row = queue_mail(
                self.uow,
                kind=kind,
                key=f"{key}:user:{captain.id}",
                recipient=captain.email,
                facts=full,
                link=link,
                user=captain,
            )
            if row is not None:
                self.report.count(kind)


def scan(uow: UnitOfWork, *, now: datetime, settings: Settings) -> ScanReport:
    """Queue every mail that is due now; safe to run again at any time."""
    run = _Scan(uow, settings, now, mailed=uow.accounts.teams_with_mail())
    if run.mailed:  # the mails below all go to captains: with none who has an address, nothing to read
        _lineups(run)
        _armageddons(run)
        since = now - timedelta(seconds=settings.notify_lookback_s)
        for entry in uow.audit.audit_since(CHANGE_ACTIONS, since):
            _change(run, entry)
    _links(run)
    return run.report


def round_name(rnd: Round) -> str | Said:
    return rnd.name or Said(N_("Round %(number)s"), (("number", rnd.number),))


def _lineups(run: _Scan) -> None:
    settings = run.settings
    until = run.now + timedelta(seconds=max(settings.notify_lineup_open_s, settings.notify_lineup_due_s))
    for rnd, stage, event in run.uow.rounds.upcoming_rounds(run.now, until):
        deadline = effective_deadline(rnd)
        if deadline is None:
            continue
        due = deadline - run.now <= timedelta(seconds=settings.notify_lineup_due_s)
        kind = Kind.LINEUP_DUE if due else Kind.LINEUP_OPEN
        zone = run.zone(event)
        matches = [
            m
            for m in run.uow.rounds.matches_of_round(rnd.id or 0)
            if {m.first_team_id, m.second_team_id} & run.mailed
        ]
        submitted = run.uow.teams.lineups_of_round(rnd.id or 0) if matches else set()
        for match in matches:
            for team_id, opponent_id in (
                (match.first_team_id, match.second_team_id),
                (match.second_team_id, match.first_team_id),
            ):
                team = run.mailed_team(team_id)
                if (match.id, team_id) in submitted or team is None or team.withdrawn_at:
                    continue
                opponent = run.team(opponent_id)
                if opponent is None:
                    continue
                facts = {
                    "round_name": round_name(rnd),
                    "stage_name": stage.name,
                    "opponent_name": opponent.name,
                    "deadline": Moment(deadline, zone),
                    "deadline_short": Moment(deadline, zone, short=True),
                    "start": Moment(rnd.scheduled_at, zone),
                }
                link = f"{run.base}/captain/matches/{match.id}/lineup"
                key = f"{kind.value}:match:{match.id}:team:{team_id}"
                run.to_captains(kind, key, team, event, facts, link)


def _armageddons(run: _Scan) -> None:
    for arm, duel, _stage, event in run.uow.playoff.nominating_armageddons(run.now):
        zone = run.zone(event)
        for first, team_id, opponent_id in (
            (True, duel.first_team_id, duel.second_team_id),
            (False, duel.second_team_id, duel.first_team_id),
        ):
            nominated = arm.first_nominee_id if first else arm.second_nominee_id
            team = run.mailed_team(team_id)
            opponent = run.team(opponent_id) if team is not None else None
            if nominated is not None or team is None or opponent is None:
                continue
            facts = {
                "duel_name": f"{duel.round_name} ({duel.key})",
                "opponent_name": opponent.name,
                "category": arm.category,
                "deadline": Moment(arm.deadline_at, zone),
                "deadline_short": Moment(arm.deadline_at, zone, short=True),
            }
            link = f"{run.base}/captain/duels/{duel.id}/armageddon"
            key = f"armageddon_due:armageddon:{arm.id}:team:{team_id}"
            run.to_captains(Kind.ARMAGEDDON_DUE, key, team, event, facts, link)


def _change(run: _Scan, entry: AuditLog) -> None:
    uow = run.uow
    if entry.entity_id is None:
        return
    if entry.action == "stage.start":
        stage = uow.events.get(Stage, entry.entity_id)
        if stage is not None and stage.kind == StageKind.POOLS.value:
            _stage_pairings(run, stage)
    elif entry.action == "swiss.publish":
        rnd = uow.rounds.get(Round, entry.entity_id)
        if rnd is not None:
            _round_pairings(run, rnd)
    elif entry.action == "board.correction":
        board = uow.boards.get(Board, entry.entity_id)
        if board is not None:
            _corrected(run, entry, board)
    elif entry.action == "appeal.decide":
        appeal = uow.rounds.get(Appeal, entry.entity_id)
        if appeal is not None:
            _appeal(run, appeal)


def _opponent_line(run: _Scan, match: Match, rnd: Round, team_id: int, zone: ZoneInfo) -> Said:
    opponent_id = match.second_team_id if match.first_team_id == team_id else match.first_team_id
    opponent = run.team(opponent_id)
    line = (
        N_("%(round)s, %(when)s: against %(name)s (White on odd boards)")
        if match.first_team_id == team_id
        else N_("%(round)s, %(when)s: against %(name)s (Black on odd boards)")
    )
    name = opponent.name if opponent else "?"
    return Said(line, (("round", round_name(rnd)), ("when", Moment(rnd.scheduled_at, zone)), ("name", name)))


def _stage_pairings(run: _Scan, stage: Stage) -> None:
    event = run.uow.events.get(Event, stage.event_id)
    mailed = [team_id for team_id in run.uow.teams.teams_of_stage(stage.id or 0) if team_id in run.mailed]
    if event is None or not mailed:
        return
    zone = run.zone(event)  # the event file read only when a mail is to be written
    for team_id in mailed:
        team = run.mailed_team(team_id)
        if team is None:
            continue
        lines = [
            _opponent_line(run, match, rnd, team_id, zone)
            for match, rnd, _ in run.uow.rounds.team_schedule(team_id, stage.id)
        ]
        facts = {"what": stage.name, "stage_name": stage.name, "rounds": lines, **_record_facts(run, event)}
        key = f"pairings:stage:{stage.id}:team:{team_id}"
        run.to_captains(Kind.PAIRINGS, key, team, event, facts, f"{run.base}/captain")


def _record_facts(run: _Scan, event: Event) -> dict[str, str]:
    """The public record's head hash and address, printed in every pairing e-mail (docs/record.md): a captain
    can check later that the pairings mailed are those the record holds."""
    last = run.uow.record.last(event.id or 0)
    return {
        "record_head": last.hash if last is not None else "0" * 64,
        "record_url": f"{run.base}/events/{event.slug}/record",
    }


def _round_pairings(run: _Scan, rnd: Round) -> None:
    stage = run.uow.events.get(Stage, rnd.stage_id)
    event = run.uow.events.get(Event, stage.event_id) if stage else None
    if stage is None or event is None:
        return
    zone = run.zone(event)
    for match in run.uow.rounds.matches_of_round(rnd.id or 0):
        for team_id in (match.first_team_id, match.second_team_id):
            team = run.mailed_team(team_id)
            if team is None:
                continue
            facts = {
                "what": round_name(rnd),
                "stage_name": stage.name,
                "rounds": [_opponent_line(run, match, rnd, team_id, zone)],
                **_record_facts(run, event),
            }
            key = f"pairings:round:{rnd.id}:team:{team_id}"
            run.to_captains(Kind.PAIRINGS, key, team, event, facts, f"{run.base}/captain")


def _match_facts(run: _Scan, match: Match) -> tuple[Event, dict[str, Any], str] | None:
    rnd = run.uow.rounds.get(Round, match.round_id)
    stage = run.uow.events.get(Stage, rnd.stage_id) if rnd else None
    event = run.uow.events.get(Event, stage.event_id) if stage else None
    first, second = run.team(match.first_team_id), run.team(match.second_team_id)
    if rnd is None or stage is None or event is None or first is None or second is None:
        return None
    facts = {
        "match_name": f"{first.name} v {second.name}",
        "round_name": round_name(rnd),
        "stage_name": stage.name,
    }
    return event, facts, f"{run.base}/events/{event.slug}/matches/{match.id}"


def _corrected(run: _Scan, entry: AuditLog, board: Board) -> None:
    match = run.uow.rounds.get(Match, board.match_id)
    found = _match_facts(run, match) if match else None
    if match is None or found is None:
        return
    event, facts, link = found
    facts |= {
        "board_no": board.board_no,
        "old_result": (entry.old or {}).get("result", "?"),
        "new_result": (entry.new or {}).get("result", "?"),
        "reason": entry.reason or "none given",
    }
    for team_id in (match.first_team_id, match.second_team_id):
        team = run.mailed_team(team_id)
        if team is not None:
            key = f"result_corrected:audit:{entry.id}:team:{team_id}"
            run.to_captains(Kind.RESULT_CORRECTED, key, team, event, facts, link)


def _appeal(run: _Scan, appeal: Appeal) -> None:
    match = run.uow.rounds.get(Match, appeal.match_id)
    found = _match_facts(run, match) if match else None
    if match is None or found is None:
        return
    event, facts, link = found
    facts |= {"outcome": Said(_OUTCOMES.get(appeal.status, appeal.status)), "decision": appeal.decision or ""}
    for team_id in (match.first_team_id, match.second_team_id):
        team = run.mailed_team(team_id)
        if team is not None:
            key = f"appeal_decided:appeal:{appeal.id}:team:{team_id}"
            run.to_captains(Kind.APPEAL_DECIDED, key, team, event, facts, link)


def _links(run: _Scan) -> None:
    rows = run.uow.teams.players_to_link()
    captains = run.uow.accounts.captain_languages({team.id or 0 for _, team, _ in rows})
    for player, team, event in rows:
        facts = {
            "event_name": event.name,
            "team_name": team.name,
            "player_name": player.name,
            "account": player.account,
        }
        link = run.base + link_path(run.settings, player_id=player.id or 0)
        row = queue_mail(
            run.uow,
            kind=Kind.LINK_ACCOUNT,
            key=f"link_account:player:{player.id}:{player.email}",
            recipient=player.email,
            facts=facts,
            link=link,
            lang=player.language or captains.get(team.id or 0),
        )
        if row is not None:
            run.report.count(Kind.LINK_ACCOUNT)
