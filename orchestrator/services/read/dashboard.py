"""The staff dashboard of one event: everything that waits for a decision now, most urgent first
(docs/staff-guide.md, "The dashboard").

Each item names its kind, what it is about, why it waits, its deadline if it has one, and the staff page
to act on it. The tiers, most urgent first:

0. ``held``: a game-server result held for an arbiter (fair-play report, aborted game, odd data), with the
   reason the ingestion recorded;
1. ``creation-failed``: a round whose games the game server refused or failed to create;
2. ``appeal``: an open appeal, by its deadline;
3. ``lineups``: a round whose lineup deadline is ahead and some teams have not submitted theirs;
4. ``stale-pull``: a round whose games should be over (its start plus the longest game) with boards still
   without a result and no change from the game server for ``STALE_AFTER``;
5. ``late-change``: a closed stage's standings changed after the next stage was built; staff must rule;
6. ``unlinked``: players not linked to the game server (their games cannot be created);
7. ``close-stage``: a running stage with nothing left that stops it from closing;
8. ``lot``: a lot committed but not drawn yet.

Within a tier, items with a deadline come first, earliest first.

An item's words (its label, title, detail and action) are in the reader's language: the request's
language is set before the route runs (web/i18n.py ``RequestLanguage``), so the page and its JSON twin say
them alike; ``kind`` is the item's fixed name for code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from orchestrator.adapters.tables import BulkStatus, Event, RoundStatus, StageKind
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.errors import NotFound
from orchestrator.services.boards import held_reason
from orchestrator.services.definitions import definition_or_none, event_zone
from orchestrator.services.gameserver import player_links
from orchestrator.services.read.staff import event_by_slug
from orchestrator.services.results import standings as standings_service
from orchestrator.translation import N_, ngettext
from orchestrator.translation import gettext as _

LAG_AFTER = timedelta(minutes=1)  # work waiting longer than this is shown as the jobs' lag (docs/workers.md)
STALE_AFTER = timedelta(minutes=15)  # no board of a round under way changed for this long: pulls are stale
LONG_GAME_MOVES = 60  # moves a long game lasts, for the increments (docs/staff-guide.md, "The dashboard")

KINDS: tuple[str, ...] = (
    "held",
    "creation-failed",
    "appeal",
    "lineups",
    "swiss-round",
    "stale-pull",
    "late-change",
    "unlinked",
    "close-stage",
    "lot",
)
# The kinds' names, in English (the page shows them with the ``translated`` filter; web/domain_text.py
# lists them for the catalogues).
KIND_LABELS = {
    "held": N_("Result held"),
    "creation-failed": N_("Game creation failed"),
    "appeal": N_("Open appeal"),
    "lineups": N_("Lineups missing"),
    "swiss-round": N_("Swiss round to pair"),
    "stale-pull": N_("Results not arriving"),
    "late-change": N_("Ruling needed"),
    "unlinked": N_("Players not linked"),
    "close-stage": N_("Stage ready to close"),
    "lot": N_("Lot to draw"),
}


@dataclass(frozen=True, slots=True)
class DashboardItem:
    kind: str
    title: str
    detail: str
    link: str
    action: str  # the link's words: what to do there
    due_at: datetime | None = None

    @property
    def label(self) -> str:
        return _(KIND_LABELS[self.kind])

    @property
    def tier(self) -> int:
        return KINDS.index(self.kind)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "title": self.title,
            "detail": self.detail,
            "link": self.link,
            "action": self.action,
            "due_at": self.due_at.isoformat() if self.due_at else None,
        }


@dataclass(frozen=True, slots=True)
class Lag:
    """How far the jobs are behind (docs/workers.md, "Lag"): the oldest work that may be waiting, if it
    has waited longer than ``LAG_AFTER``. ``kind`` is ``results`` (a round's results may be on the game
    server since ``since``, no pull has fetched them) or ``mail`` (a queued mail due since ``since``)."""

    kind: str
    since: datetime
    seconds: int
    round_title: str = ""  # the round, for ``results``
    round_link: str = ""

    @property
    def minutes(self) -> int:
        return self.seconds // 60

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "since": self.since.isoformat(),
            "seconds": self.seconds,
            "round": self.round_title or None,
        }


def job_lag(uow: UnitOfWork, event_id: int, now: datetime) -> Lag | None:
    """The oldest unprocessed work of the event's jobs, when it is older than ``LAG_AFTER``: the round
    under way pulled longest ago (or never, since its start), or the oldest mail due in the outbox."""
    candidates: list[Lag] = []
    rounds = uow.read.unpulled_rounds(event_id, now)
    if rounds:
        round_id, stage_name, number, since = rounds[0]
        waited = int((now - since).total_seconds())
        candidates.append(
            Lag(
                "results",
                since,
                waited,
                _round_title(stage_name, number),
                f"/staff/rounds/{round_id}/results",
            )
        )
    mail = uow.outbox.oldest_due_mail(now)
    if mail is not None:
        candidates.append(Lag("mail", mail, int((now - mail).total_seconds())))
    if not candidates:
        return None
    oldest = max(candidates, key=lambda lag: lag.seconds)
    return oldest if oldest.seconds > LAG_AFTER.total_seconds() else None


@dataclass(frozen=True, slots=True)
class Dashboard:
    event_id: int
    slug: str
    name: str
    status: str
    timezone: str
    items: tuple[DashboardItem, ...]
    checked_at: datetime
    swiss: bool = False  # the event has a Swiss stage (else the page leaves out "Swiss round to pair")
    last_pull_at: datetime | None = None  # rounds under way: the game server last answered a pull then
    lag: Lag | None = None  # the jobs are behind by more than LAG_AFTER

    @property
    def last_pull_age_s(self) -> int | None:
        """Seconds since results were last pulled (None with no round under way): it grows when pulls stop."""
        if self.last_pull_at is None:
            return None
        return max(0, int((self.checked_at - self.last_pull_at).total_seconds()))

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(KINDS, 0)
        for item in self.items:
            out[item.kind] += 1
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "event": {"slug": self.slug, "name": self.name, "status": self.status, "timezone": self.timezone},
            "checked_at": self.checked_at.isoformat(),
            "last_pull_at": self.last_pull_at.isoformat() if self.last_pull_at else None,
            "last_pull_age_s": self.last_pull_age_s,
            "lag": self.lag.as_json() if self.lag else None,
            "counts": self.counts(),
            "items": [item.as_json() for item in self.items],
        }


def timezone_of(uow: UnitOfWork, *, kind: str, entity_id: int) -> str:
    """The time zone of the event that stage/round/match/pool/duel/team ``entity_id`` belongs to."""
    event = uow.read.event_of(kind, entity_id)
    if event is None:
        raise NotFound(_("There is no %(kind)s %(id)s.") % {"kind": kind, "id": entity_id})
    return event_zone(event)


def dashboard(uow: UnitOfWork, *, slug: str, now: datetime | None = None) -> Dashboard:
    """What of event ``slug`` waits for a decision at ``now``, most urgent first."""
    now = now or utcnow()
    event = event_by_slug(uow, slug)
    event_id = event.id or 0
    items = [
        *_held(uow, event_id),
        *_creation_failed(uow, event_id, slug),
        *_appeals(uow, event_id, slug),
        *_lineups(uow, event_id, now),
        *_swiss_rounds(uow, event_id),
        *_stale(uow, event, now),
        *_late_changes(uow, event_id, slug),
        *_unlinked(uow, event_id, slug),
        *_closable(uow, event_id, now),
        *_lots(uow, event_id, slug),
    ]
    far = datetime.max.replace(tzinfo=now.tzinfo)
    items.sort(key=lambda i: (i.tier, i.due_at is None, i.due_at or far))
    swiss = any(s.kind == StageKind.SWISS.value for s in uow.events.stages_of_event(event_id))
    return Dashboard(
        event_id,
        event.slug,
        event.name,
        event.status,
        event_zone(event),
        tuple(items),
        now,
        swiss,
        uow.read.last_pull(event_id),
        job_lag(uow, event_id, now),
    )


def _held(uow: UnitOfWork, event_id: int) -> list[DashboardItem]:
    boards = uow.read.held_boards(event_id)
    reasons = uow.read.held_reasons(b.board_id for b in boards)
    return [
        DashboardItem(
            "held",
            _("%(stage)s round %(round)s: %(first)s – %(second)s, board %(board)s")
            % {
                "stage": b.stage_name,
                "round": b.round_number,
                "first": b.first_team,
                "second": b.second_team,
                "board": b.board_no,
            },
            held_reason(reasons.get(b.board_id)),
            f"/staff/matches/{b.match_id}/results#match-{b.match_id}",
            _("Enter the result"),
        )
        for b in boards
    ]


def _round_title(stage_name: str, number: int) -> str:
    return _("%(stage)s round %(round)s") % {"stage": stage_name, "round": number}


def _creation_problem(status: str, error: str | None) -> str:
    """Why the games of a round were not created: the server refused them or creating them failed."""
    if status == BulkStatus.REJECTED.value:
        if error:
            return _("the game server rejected the games: %(error)s") % {"error": error}
        return _("the game server rejected the games")
    if error:
        return _("creating the games on the game server failed: %(error)s") % {"error": error}
    return _("creating the games on the game server failed")


def _creation_failed(uow: UnitOfWork, event_id: int, slug: str) -> list[DashboardItem]:
    return [
        DashboardItem(
            "creation-failed",
            _round_title(stage.name, rnd.number),
            _creation_problem(bulk.status, bulk.error),
            f"/staff/events/{slug}/links",
            _("See the players to re-link"),
            rnd.scheduled_at,
        )
        for stage, rnd, bulk in uow.rounds.bulk_problems(event_id)
    ]


def _appeals(uow: UnitOfWork, event_id: int, slug: str) -> list[DashboardItem]:
    appeals = uow.read.open_appeals(event_id)
    teams = uow.teams.teams_by_id(t for _, m, _ in appeals for t in (m.first_team_id, m.second_team_id))
    items = []
    for appeal, match, rnd in appeals:
        first, second = teams[match.first_team_id].name, teams[match.second_team_id].name
        items.append(
            DashboardItem(
                "appeal",
                _("Round %(round)s: %(first)s – %(second)s")
                % {"round": rnd.number, "first": first, "second": second},
                (_("appeal by %(by)s") % {"by": appeal.opened_by})
                if appeal.opened_by
                else _("appeal by a team"),
                f"/staff/events/{slug}/appeals#appeal-{appeal.id}",
                _("Decide the appeal"),
                appeal.deadline_at,
            )
        )
    return items


def _lineups(uow: UnitOfWork, event_id: int, now: datetime) -> list[DashboardItem]:
    rounds = uow.read.rounds_with_lineups_open(event_id, now)
    missing = uow.read.missing_lineup_counts(r.id or 0 for r, _ in rounds)
    return [
        DashboardItem(
            "lineups",
            _round_title(stage.name, rnd.number),
            ngettext(
                "%(num)d lineup not submitted (the default lineup applies at the deadline)",
                "%(num)d lineups not submitted (the default lineup applies at the deadline)",
                missing[rnd.id or 0],
            )
            % {"num": missing[rnd.id or 0]},
            f"/staff/rounds/{rnd.id}/lineups",
            _("See the teams"),
            rnd.lineup_deadline_at,
        )
        for rnd, stage in rounds
        if missing.get(rnd.id or 0)
    ]


def longest_game(event: Event) -> timedelta:
    """How long a game of the event can last: both clocks run out over ``LONG_GAME_MOVES`` moves (the
    base time of every period plus the increments). A round's results are due once that has passed."""
    definition = definition_or_none(event)
    if definition is None:
        return timedelta(hours=4)
    clock = definition.time_control
    per_side = 60 * (clock.minutes + clock.then_minutes) + LONG_GAME_MOVES * clock.increment_seconds
    return timedelta(seconds=2 * per_side)


def _stale(uow: UnitOfWork, event: Event, now: datetime) -> list[DashboardItem]:
    """Rounds whose games should be over (start + the longest game) with boards still without a result
    and no change from the game server for ``STALE_AFTER``."""
    quiet = now - STALE_AFTER
    event_id, due = event.id or 0, now - longest_game(event)
    return [
        DashboardItem(
            "stale-pull",
            _round_title(stage.name, rnd.number),
            ngettext(
                "%(num)d board without a result; no change from the game server for %(minutes)d minutes",
                "%(num)d boards without a result; no change from the game server for %(minutes)d minutes",
                pending,
            )
            % {"num": pending, "minutes": int((now - last).total_seconds() // 60)},
            f"/staff/rounds/{rnd.id}/results",
            _("Check the round"),
            None,
        )
        for rnd, stage, last, pending in uow.read.stale_rounds(
            event_id, started_before=due, quiet_since=quiet
        )
    ]


def _late_changes(uow: UnitOfWork, event_id: int, slug: str) -> list[DashboardItem]:
    return [
        DashboardItem(
            "late-change",
            _("Standings changed after the next stage was built"),
            change.cause_text or change.cause,
            f"/staff/events/{slug}/results",
            _("Rule on it"),
        )
        for change in uow.read.pending_late_changes(event_id)
    ]


def _unlinked(uow: UnitOfWork, event_id: int, slug: str) -> list[DashboardItem]:
    rows = player_links.players_needing_links(uow, event_id=event_id)
    if not rows:
        return []
    names = ", ".join(f"{r.player.name} ({r.team.name})" for r in rows[:5])
    if len(rows) > 5:
        names = _("%(names)s and %(more)d more") % {"names": names, "more": len(rows) - 5}
    return [
        DashboardItem(
            "unlinked",
            ngettext(
                "%(num)d player not linked to the game server",
                "%(num)d players not linked to the game server",
                len(rows),
            )
            % {"num": len(rows)},
            names,
            f"/staff/events/{slug}/links",
            _("Send their links"),
        )
    ]


def _closable(uow: UnitOfWork, event_id: int, now: datetime) -> list[DashboardItem]:
    items = []
    for stage in uow.read.running_stages(event_id):
        if stage.kind == StageKind.KNOCKOUT.value:
            continue  # a knockout stage ends with its duels (the play-off desk)
        if not standings_service.closing_problems(uow, stage_id=stage.id or 0, now=now):
            items.append(
                DashboardItem(
                    "close-stage",
                    stage.name,
                    _("every result is in and every appeal window has passed"),
                    f"/staff/stages/{stage.id}/close",
                    _("Review and close"),
                )
            )
    return items


def _swiss_rounds(uow: UnitOfWork, event_id: int) -> list[DashboardItem]:
    """A Swiss stage's next round once the round before is finished (pair it), or a drafted pairing
    waiting for review (publish it): the round desk does both (docs/swiss.md)."""
    items = []
    for stage in uow.read.running_stages(event_id):
        if stage.kind != StageKind.SWISS.value:
            continue
        rounds = uow.rounds.rounds_of_stage(stage.id or 0)
        draft = next((r for r in rounds if r.status == RoundStatus.DRAFT.value), None)
        nxt = next((r for r in rounds if r.status == RoundStatus.UNPAIRED.value), None)
        before = [r for r in rounds if nxt is not None and r.number < nxt.number]
        if draft is not None:
            title, detail, action = (
                _round_title(stage.name, draft.number),
                _("paired for review: the teams see nothing until it is published"),
                _("Review and publish"),
            )
        elif nxt is not None and all(r.status == RoundStatus.FINISHED.value for r in before):
            title, detail, action = (
                _round_title(stage.name, nxt.number),
                _("every earlier round is finished: the round can be paired"),
                _("Pair it"),
            )
        else:
            continue
        items.append(DashboardItem("swiss-round", title, detail, f"/staff/swiss/{stage.id}", action))
    return items


def _lots(uow: UnitOfWork, event_id: int, slug: str) -> list[DashboardItem]:
    return [
        DashboardItem(
            "lot",
            lot.purpose,
            _("committed (its hash is public), not drawn yet"),
            f"/staff/events/{slug}/lots",
            _("Draw it"),
        )
        for lot in uow.read.lots_waiting(event_id)
    ]


def live_topics(uow: UnitOfWork, *, event: Event) -> frozenset[str]:
    """Every topic whose change may change the dashboard: the event, its stages, pools and duels."""
    stages, pools, duels = uow.read.topics_of_event(event.id or 0)
    return frozenset(
        {f"event:{event.slug}"}
        | {f"stage:{i}" for i in stages}
        | {f"pool:{i}" for i in pools}
        | {f"duel:{i}" for i in duels}
    )


# --- the staff navigation -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NavLink:
    label: str
    href: str


@dataclass(frozen=True, slots=True)
class StaffNav:
    """The event a staff page belongs to, its time zone and the links to every staff page of the event."""

    slug: str
    name: str
    timezone: str
    links: tuple[NavLink, ...]
    stages: tuple[NavLink, ...]


EVENT_PAGES: tuple[tuple[str, str], ...] = (
    ("Dashboard", ""),
    ("Setup", "/setup"),
    ("Teams and rosters", "/rosters"),
    ("Captains", "/captains"),
    ("Player links", "/links"),
    ("Draws by lot", "/lots"),
    ("Results", "/results"),
    ("Appeals", "/appeals"),
    ("Fair play", "/fairplay"),
    ("Audit log", "/audit"),
)
# Each kind of stage's desk: its address and the navigation's words for it (the stage named in them).
_STAGE_DESKS = {
    StageKind.POOLS.value: ("/staff/stages/{id}/pools", N_("%(stage)s (pools)")),
    StageKind.SWISS.value: ("/staff/swiss/{id}", N_("%(stage)s (Swiss desk)")),
    StageKind.KNOCKOUT.value: ("/staff/playoff/{id}", N_("%(stage)s (play-off desk)")),
}


def staff_nav(uow: UnitOfWork, event: Event) -> StaffNav:
    base = f"/staff/events/{event.slug}"
    stages = []
    for stage in uow.events.stages_of_event(event.id or 0):
        pattern, words = _STAGE_DESKS.get(stage.kind, _STAGE_DESKS[StageKind.POOLS.value])
        stages.append(NavLink(_(words) % {"stage": stage.name}, pattern.format(id=stage.id)))
    links = tuple(NavLink(label, base + tail) for label, tail in EVENT_PAGES)
    return StaffNav(event.slug, event.name, event_zone(event), links, tuple(stages))


def staff_nav_of(
    uow: UnitOfWork, *, slug: str | None = None, kind: str = "", entity_id: int = 0
) -> StaffNav | None:
    """The navigation of the staff page about event ``slug``, or about entity ``kind`` ``entity_id``
    (``stage``, ``round``, ``match``, ``pool``, ``duel``, ``team``, ``event``); None when there is no such
    event (the page itself then says what is missing)."""
    event = uow.events.get_by_slug(slug) if slug else uow.read.event_of(kind, entity_id)
    return staff_nav(uow, event) if event is not None else None


def event_slug_of(uow: UnitOfWork, key: str) -> str:
    """The slug of the event named by ``key``: its slug, or (the old URLs) its numeric id."""
    event = uow.events.get_by_slug(key)
    if event is None and key.isascii() and key.isdigit() and len(key) < 19:
        event = uow.read.event_of("event", int(key))
    if event is None:
        raise NotFound(_("There is no event %(slug)r.") % {"slug": key})
    return event.slug
