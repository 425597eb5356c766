"""The demo's staff and captains, one ``DemoDriver.step`` at a time, and its progress snapshots."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from random import Random
from typing import Any

from orchestrator.adapters.tables import (
    DuelStatus,
    Event,
    Role,
    Round,
    RoundStatus,
    StageKind,
    StageStatus,
)
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.demo.accounts import OWNER, DemoError
from orchestrator.demo.plan import DemoPlan
from orchestrator.demo.progress import StageProgress, stage_progress
from orchestrator.demo.schedule import compress_rounds, queue_due
from orchestrator.demo.swiss import SwissDesk
from orchestrator.domain.event import Qualifiers
from orchestrator.domain.swiss import SwissPairer
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.errors import ServiceError
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.definitions import definition_of
from orchestrator.services.playoff.read import BracketView, DuelInfo, bracket_view
from orchestrator.services.playoff.storage import ARMAGEDDON_ROUND_BASE
from orchestrator.services.setup import pool_draft, stage_start

log = logging.getLogger(__name__)

STAFF_ACTOR = OWNER  # staff steps are the owner's; jobs act as "worker"
LOG_LINES = 8
SWISS_ENGINES = ("gacrux", "own")


@dataclass(frozen=True, slots=True)
class StageTiming:
    key: str
    name: str
    kind: str
    started_at: datetime
    finished_at: datetime | None = None
    games: int = 0

    @property
    def seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


@dataclass(frozen=True, slots=True)
class DemoStatus:
    """A snapshot for the terminal."""

    phase: str  # "playing", "play-off", "finished"
    event_name: str
    event_url: str | None
    stage_name: str | None
    stage_number: int
    stage_count: int
    round_text: str
    games_done: int
    games_total: int
    pool_url: str | None
    bracket_url: str | None
    champions: tuple[str, ...]
    log: tuple[str, ...]
    elapsed_s: float

    @property
    def finished(self) -> bool:
        return self.phase == "finished"


class DemoDriver:
    """Staff and captains of the demo, one ``step`` at a time (the workers do the rest)."""

    def __init__(
        self,
        *,
        settings: Settings,
        plan: DemoPlan,
        uow_factory: UnitOfWorkFactory,
        event_id: int,
        web_url: str | None,
        rng: Random,
        owner_id: int = 0,
        pairing_seed: bytes | None = None,
        swiss_pairer: SwissPairer | None = None,
    ) -> None:
        self.settings = settings
        # A demo run with --seed draws its pairing lots from it (the same pools play the same games
        # again); without, every lot takes a fresh secret seed as in a real event.
        self.pairing_seed = pairing_seed
        self.plan = plan
        self.uow_factory = uow_factory
        self.event_id = event_id
        self.web_url = web_url.rstrip("/") if web_url else None
        self.rng = rng
        self.staff = AuthUser(
            id=owner_id, username=STAFF_ACTOR, role=Role.OWNER, team_id=None, session_generation=1
        )
        self.timings: dict[str, StageTiming] = {}
        self.champions: tuple[str, ...] = ()
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self._timed_rounds: set[int] = set()
        self._duel_status: dict[str, str] = {}
        self._said: set[str] = set()
        self._started = time.monotonic()
        self._status: DemoStatus | None = None
        self._seen: tuple[Sequence[tuple[int, str, str, str, str, datetime | None]], Any] | None = None
        # The play-off tick's last bracket state (knockout fingerprint) and when its view was last built:
        # the view is built again only when the state changed or it is older than VIEW_MAX_AGE_S.
        self._knockout_seen: dict[int, tuple[tuple[Any, ...], float]] = {}
        with uow_factory() as uow:
            event = uow.events.get_or_raise(Event, event_id)
            self.slug, self.event_name = event.slug, event.name
            definition = definition_of(event)
        # The stages each stage takes qualifiers from: a Swiss stage starts once they are closed.
        self._sources: dict[str, frozenset[str]] = {
            stage.key: frozenset(e.stage for e in stage.entrants if isinstance(e, Qualifiers))
            for stage in definition.stages
        }
        self.swiss = SwissDesk(
            uow_factory=uow_factory,
            plan=plan,
            actor=STAFF_ACTOR,
            say=self.say,
            pairer=swiss_pairer,
            pairing_seed=pairing_seed,
            pair_lead_s=settings.gameserver_pair_lead_s,
        )

    # --- the loop ------------------------------------------------------------------------------

    VIEW_MAX_AGE_S = 1.0  # the bracket view is built at least this often (its sealed parts follow the clock)

    def say(self, text: str, *, once: str | None = None) -> None:
        if once is not None:
            if once in self._said:
                return
            self._said.add(once)
        self.log.append(text)
        log.info("demo: %s", text)

    def step(self, now: datetime | None = None) -> bool:
        """One tick: start what is due, play the play-off's staff and captain parts; True at the end.

        Stages run in the file's order, one at a time, except Swiss stages: every Swiss stage whose entrants
        are known (the stages it takes qualifiers from are closed) runs, side by side with the others.
        """
        now = now or utcnow()
        with self.uow_factory() as uow:
            stages = [
                (s.id or 0, s.key, s.name, s.kind, s.status, s.closed_at)
                for s in uow.events.stages_of_event(self.event_id)
            ]
        closed = {key for _id, key, _n, _k, status, _c in stages if status == StageStatus.CLOSED.value}
        current: tuple[int, str, str, str, str, datetime | None] | None = None
        for stage in stages:
            stage_id, key, name, kind, status, closed_at = stage
            if status == StageStatus.CLOSED.value:
                if kind == StageKind.KNOCKOUT.value:
                    self._playoff_tick(stage_id, key, now)  # closed by the workers once the final is decided
                else:
                    self._closed(stage_id, key, name, kind, closed_at or now)
                continue
            first = current is None
            current = current or stage
            if kind == StageKind.SWISS.value:
                if self._sources.get(key, frozenset()) <= closed:
                    self._swiss_step(stage_id, key, name, kind, status, now)
                    continue  # the next Swiss stages may run side by side with this one
            elif first:
                self._stage_step(stage_id, key, name, kind, status, now)
            break  # this stage (or a Swiss stage still waiting for its entrants) holds the ones after it
        if current is None:
            self._finish_without_playoff(stages, now)
            self._seen, self._status = (stages, None), None
            return True
        self._seen, self._status = (stages, current), None
        return bool(self.champions)

    def _stage_step(self, stage_id: int, key: str, name: str, kind: str, status: str, now: datetime) -> None:
        if kind == StageKind.POOLS.value:
            if status in (StageStatus.DRAFT.value, StageStatus.PUBLISHED.value):
                self._start_pool_stage(stage_id, key, name, kind, status, now)
        else:
            self.timings.setdefault(key, StageTiming(key, name, kind, utcnow()))
            self._playoff_tick(stage_id, key, now)  # beat's playoff.tick builds the bracket, draws lots ...

    def _swiss_step(self, stage_id: int, key: str, name: str, kind: str, status: str, now: datetime) -> None:
        """A Swiss stage at the round desk (orchestrator/demo/swiss.py); a refusal waits for the next tick
        without holding up the Swiss stages beside it."""
        self.timings.setdefault(key, StageTiming(key, name, kind, utcnow()))
        try:
            self.swiss.step(stage_id, name, status, now)
        except ServiceError as error:
            self.say(f"{name}: waiting: {error.message}", once=f"{stage_id}:{error.message}")

    def status(self) -> DemoStatus | None:
        """What the terminal shows, as of the last step (read when asked: a headless run never asks)."""
        if self._status is None and self._seen is not None:
            self._status = self._snapshot(*self._seen)
        return self._status

    # --- pool stages ---------------------------------------------------------------------------

    def _start_pool_stage(
        self, stage_id: int, key: str, name: str, kind: str, status: str, now: datetime
    ) -> None:
        self.timings.setdefault(key, StageTiming(key, name, kind, utcnow()))
        if status == StageStatus.DRAFT.value:
            with self.uow_factory() as uow:
                pool_ids = pool_draft.draft_pools(uow, stage_id=stage_id, actor=STAFF_ACTOR)
            self.say(f"{name}: {len(pool_ids)} pools drafted")
            with self.uow_factory() as uow:
                pool_draft.publish_pools(
                    uow, stage_id=stage_id, actor=STAFF_ACTOR, pairing_seed=self.pairing_seed
                )
            self.say(f"{name}: pools published")
        with self.uow_factory() as uow:
            started = stage_start.start_stage(uow, stage_id=stage_id, actor=STAFF_ACTOR)
            if started.refusal is None:
                # Same transaction: beat never sees the file's real (past) dates, all due at once.
                start = utcnow() + timedelta(seconds=self.plan.lead_s)
                stage_rounds = uow.rounds.rounds_of_stage(stage_id)
                compress_rounds(
                    uow,
                    stage_id=stage_id,
                    rounds=[r for r in stage_rounds if r.status == RoundStatus.SCHEDULED.value],
                    start=start,
                    gap_s=self.plan.round_gap_s,
                    actor=STAFF_ACTOR,
                    pair_lead_s=self.settings.gameserver_pair_lead_s,
                )
        if started.refusal is not None:  # pairing lots committed now: the next step starts the stage
            self.say(f"{name}: {started.refusal.message}")
            return
        rounds = len(started.round_ids)
        self.say(f"{name}: started, {rounds} rounds {self.plan.round_gap_s:.1f} s apart")

    def _closed(self, stage_id: int, key: str, name: str, kind: str, closed_at: datetime) -> None:
        timing = self.timings.get(key)
        if timing is not None and timing.finished_at is None:
            with self.uow_factory() as uow:
                progress = stage_progress(uow, stage_id)
                winners = self._pool_winners(uow, stage_id)
            self.timings[key] = replace(timing, finished_at=closed_at, games=progress.boards_with_game)
            what = "winner" if kind == StageKind.SWISS.value else "pool winners"
            self.say(f"{name} closed; {what}: {', '.join(winners)}")

    @staticmethod
    def _pool_winners(uow: UnitOfWork, stage_id: int) -> list[str]:
        rows = [r for r in uow.rounds.final_standings(stage_id) if r.rank == 1]
        teams = uow.teams.teams_by_id(r.team_id for r in rows)
        return [teams[r.team_id].name for r in rows if r.team_id in teams]

    def _finish_without_playoff(
        self, stages: Sequence[tuple[int, str, str, str, str, datetime | None]], now: datetime
    ) -> None:
        """An event without a play-off: the winner of each last stage (one no other stage takes teams from;
        with several, such as a Swiss Open and Women section, each named with its stage) is a champion."""
        if self.champions or not stages or stages[-1][3] == StageKind.KNOCKOUT.value:
            return
        taken = set().union(*self._sources.values())
        last = [(stage_id, name) for stage_id, key, name, *_rest in stages if key not in taken]
        champions: list[str] = []
        with self.uow_factory() as uow:
            for stage_id, name in last:
                winners = self._pool_winners(uow, stage_id)
                champions += [f"{w} ({name})" if len(last) > 1 else w for w in winners]
        self.champions = tuple(champions)
        self.say(f"Champion: {' and '.join(self.champions) or 'none'}")

    # --- the play-off --------------------------------------------------------------------------

    def _schedule_bracket_rounds(
        self, uow: UnitOfWork, stage_id: int, now: datetime, *, view: BracketView | None = None
    ) -> None:
        """A bracket round's two match rounds start once all its duels are known; until then they wait.

        Rounds are created with the file's real dates as soon as one duel of the bracket round is known;
        with demo time between rounds (a lead or a gap) they are held (no time) until every duel of their
        bracket round is known, then timed from that tick. With none (``DemoPlan.instant``:
        ``bench/whole_event.py``) they are created with past dates (``demo_definition``), timed now at
        first sight and left to the workers, which pair a bracket round in the advance that completes its
        duels (beat and the pairing itself never pair one whose duels are not all known), so no bracket
        round waits for this driver's next tick.
        """
        view = view or bracket_view(uow, stage_id=stage_id, now=now)
        complete = {
            index
            for index, (_name, duels) in enumerate(view.rounds)
            if duels and all(d.first_known and d.second_known for d in duels)
        }
        ready: list[Round] = []  # timed, and every duel of its bracket round known
        for rnd in uow.rounds.rounds_of_stage(stage_id):
            if (
                rnd.number >= ARMAGEDDON_ROUND_BASE
                or rnd.status != RoundStatus.SCHEDULED.value
                or (rnd.id or 0) in self._timed_rounds
            ):
                continue
            index, leg = divmod(rnd.number - 1, 2)
            if index in complete or self.plan.instant:
                rnd.scheduled_at = now + timedelta(seconds=self.plan.lead_s + leg * self.plan.round_gap_s)
                rnd.lineup_deadline_at = (
                    now  # captains keep the default lineups (the deadline check applies them)
                )
                if index in complete:
                    ready.append(rnd)
            elif rnd.scheduled_at is not None:
                rnd.scheduled_at = None  # held: not every duel of this bracket round is known yet
            uow.rounds.insert(rnd)
        if ready:
            # Due now (the demo's lead is shorter than the pairing lead): games queued at once, not at beat's
            # next rounds.open_due.
            queue_due(uow, ready, pair_lead_s=self.settings.gameserver_pair_lead_s, now=now)
            # A round timed before its duels are all known is looked at again on a later tick: the workers
            # may have completed them before its new time was committed (it was not due then), or this
            # tick's view may predate the round (each statement reads the latest commits).
            uow.after_commit(self._timed_rounds.update, [r.id or 0 for r in ready])

    def _playoff_tick(self, stage_id: int, key: str, now: datetime) -> None:
        with self.uow_factory() as uow:
            state = uow.playoff.bracket_state(stage_id)  # duels, Armageddons, matches, boards: plain rows
            fingerprint = (state.duels, state.boards)
            seen = self._knockout_seen.get(stage_id)
            if (
                seen is not None
                and seen[0] == fingerprint
                and time.monotonic() - seen[1] < self.VIEW_MAX_AGE_S
            ):
                return  # the bracket is as the last tick saw it: nothing new to schedule or report
            view = bracket_view(uow, stage_id=stage_id, now=now)
            self._schedule_bracket_rounds(uow, stage_id, now, view=view)
            uow.after_commit(self._knockout_seen.__setitem__, stage_id, (fingerprint, time.monotonic()))
        if view.built:
            self.say(f"{view.stage_name}: bracket built from the final standings", once=f"built:{stage_id}")
        for duel in view.duels():
            self._report_duel(duel)
        if view.champions and not self.champions:
            self.champions = tuple(view.champions)
            timing = self.timings.get(key)
            if timing is not None:
                with self.uow_factory() as uow:
                    games = stage_progress(uow, stage_id).boards_with_game
                self.timings[key] = replace(timing, finished_at=utcnow(), games=games)
            self.say(f"Champion: {' and '.join(self.champions)}")

    def _report_duel(self, duel: DuelInfo) -> None:
        arm = duel.armageddon
        if arm is not None:
            if arm.category:
                self.say(f"Armageddon {duel.key}: category {arm.category} drawn", once=f"{duel.key}:category")
            if arm.nominees:
                names = " v ".join(
                    f"{n.player}{' (default)' if n.by_default else ''} for {n.team}" for n in arm.nominees
                )
                self.say(f"Armageddon {duel.key}: {names}", once=f"{duel.key}:nominees")
            if arm.white and arm.black:
                self.say(
                    f"Armageddon {duel.key}: {arm.white} White, {arm.black} Black ({arm.clock})",
                    once=f"{duel.key}:colours",
                )
        before = self._duel_status.get(duel.key)
        if before == duel.status:
            return
        self._duel_status[duel.key] = duel.status
        if duel.status == DuelStatus.DECIDED.value and duel.sentence:
            self.say(f"{duel.round_name} {duel.key}: {duel.sentence}")
        elif duel.status == DuelStatus.ARMAGEDDON.value:
            self.say(f"{duel.round_name} {duel.key}: {duel.first} – {duel.second} level, Armageddon")

    # --- status --------------------------------------------------------------------------------

    def _snapshot(
        self,
        stages: Sequence[tuple[int, str, str, str, str, datetime | None]],
        current: tuple[int, str, str, str, str, datetime | None] | None,
    ) -> DemoStatus:
        event_url = f"{self.web_url}/events/{self.slug}" if self.web_url else None
        has_playoff = any(kind == StageKind.KNOCKOUT.value for _i, _k, _n, kind, _s, _c in stages)
        bracket_url = f"{event_url}/bracket" if event_url and has_playoff else None
        stage_name, pool_url, round_text = None, None, ""
        done = total = 0
        number = len(stages)
        if current is not None:
            stage_id, key, stage_name, kind, _status, _closed = current
            number = [s[0] for s in stages].index(stage_id) + 1
            # Swiss sections running side by side show as one: their names, rounds and games together.
            side = [
                s
                for s in stages
                if s[3] == kind == StageKind.SWISS.value and s[4] == StageStatus.RUNNING.value
            ]
            together = side if len(side) > 1 else [current]
            with self.uow_factory() as uow:
                progress = {s[2]: stage_progress(uow, s[0]) for s in together}
                pools = uow.rounds.pools_of_stage(stage_id)
            done = sum(p.boards_final for p in progress.values())
            total = sum(p.boards for p in progress.values())
            round_text = "; ".join(
                f"{name}: {_round_text(p, kind)}" if len(progress) > 1 else _round_text(p, kind)
                for name, p in progress.items()
            )
            stage_name = " and ".join(progress)
            if event_url and kind == StageKind.SWISS.value:
                pool_url = f"{event_url}/stages/{key}"  # one table: the stage's page
            elif event_url and pools:
                pool_url = f"{event_url}/stages/{key}/pools/{pools[0].letter}"
        knockout = current is not None and current[3] == StageKind.KNOCKOUT.value
        phase = "finished" if self.champions else ("play-off" if knockout else "playing")
        return DemoStatus(
            phase=phase,
            event_name=self.event_name,
            event_url=event_url,
            stage_name=stage_name,
            stage_number=number,
            stage_count=len(stages),
            round_text=round_text,
            games_done=done,
            games_total=total,
            pool_url=pool_url,
            bracket_url=bracket_url,
            champions=self.champions,
            log=tuple(self.log),
            elapsed_s=time.monotonic() - self._started,
        )


def _round_text(progress: StageProgress, kind: str) -> str:
    if progress.rounds == 0:
        return "no rounds yet"
    what = "match rounds" if kind == StageKind.KNOCKOUT.value else "rounds"
    return f"{progress.rounds_finished} of {progress.rounds} {what} finished, {progress.rounds_open} playing"


def swiss_pairer(engine: str) -> SwissPairer | None:
    """The demo's Swiss engine: None for the server's own default (gacrux for C.04.6), or our C.04.6 engine;
    either way a stage that names another system (the 2026 files: the Olympiad Pairing Rules) is paired by
    that system's engine (docs/swiss.md, "Pairing systems")."""
    if engine not in SWISS_ENGINES:
        raise DemoError(f"unknown Swiss engine {engine!r}: one of {', '.join(SWISS_ENGINES)}")
    return SystemPairer(fide=C046Pairer()) if engine == "own" else None
