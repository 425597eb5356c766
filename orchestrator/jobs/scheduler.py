"""The play-off without staff, and the periodic jobs in eager mode (docs/workers.md, docs/playoff.md).

``run_playoff_tick`` is the body of the ``playoff.tick`` job (beat, or ``jobs.bodies.periodic_tick``).
Each step runs in its own unit of work, so one duel's problem never holds up the others:

1. **Brackets**: a knockout stage of a running event whose earlier stages are all closed gets its bracket
   (``playoff.commands.build_bracket``), when ``Settings.auto_build_bracket``.
2. **Deadlines**: ``playoff.deadlines.apply_due_deadlines`` (default nominations, lineups, bracket advance).
3. **Lots** (``Settings.auto_draw_lots``): a duel level on match points gets its category lot committed
   (hash published); a later tick, at least ``auto_lot_reveal_delay_s`` after the commitment, draws it and
   publishes the seed (docs/rules.md §7). The same for the colour lot once the nominations are revealed.
4. **Colour**: the colour-lot winner who has not chosen ``armageddon_colour_minutes`` after the lot gets
   ``armageddon_default_colour``.
5. **Armageddon game**: with ``gameserver_unequal_clocks`` a ready Armageddon gets a ``rounds.create_games``
   job for its round (bulk pairing with the event's Armageddon clocks); without, the arbiter gives the game.
6. **Closing**: ``gameserver.advance_stage`` for every running knockout stage (closes it once the final is
   decided and its appeal window has passed).

A duel's Armageddon does not wait for beat between its moves: ``run_duel_steps`` (the ``playoff.duel`` job,
queued by the worker's advance that makes the duel level) makes them one after another, each in its own
transaction, for as long as one makes the next due at once (a lot drawn after its commitment, the default
nominations, the colour lot, the default colour and the game's pairing); a move that must wait (a lot's
reveal delay, a captain's or chooser's time) queues the job again for then. Beat's tick makes the same
moves and is the safety net for a lost job. Steps 2 and 6 cost two plain-row queries per stage when the
bracket is as an earlier advance left it (``playoff.sync.settle_stage_bracket``).

``EagerScheduler`` is the web app's thread that calls ``jobs.bodies.periodic_tick`` in eager mode.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from orchestrator.adapters.tables import DuelStatus, Lot, RoundStatus, StageStatus
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.errors import ServiceError
from orchestrator.jobs.outages import OutageLog, connection_lost
from orchestrator.services.gameserver.gameserver import advance_stage
from orchestrator.services.playoff.armageddon import (
    apply_default_colour,
    commit_armageddon_lot,
    reveal_armageddon_lot,
)
from orchestrator.services.playoff.commands import build_bracket, queue_ready_bracket_games
from orchestrator.services.playoff.deadlines import apply_due_deadlines, unseal_duel_if_due
from orchestrator.services.playoff.storage import ARMAGEDDON_ROUND_BASE, LotWhich, lot_purpose
from orchestrator.services.queue import CREATE_GAMES, PLAYOFF_DUEL, enqueue
from orchestrator.services.setup.draws import drawable_from

log = logging.getLogger(__name__)


@dataclass(slots=True)
class PlayoffTick:
    """What one ``run_playoff_tick`` did (ids and counts, for logs and tests)."""

    brackets_built: list[int] = field(default_factory=list)
    deadlines: dict[str, int] = field(default_factory=dict)
    lots_committed: list[str] = field(default_factory=list)  # "<duel id>:<category|colour>"
    lots_drawn: list[str] = field(default_factory=list)
    default_colours: list[int] = field(default_factory=list)  # duel ids
    armageddon_rounds: list[int] = field(default_factory=list)  # rounds sent to rounds.create_games
    stages_closed: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def run_playoff_tick(
    uow_factory: UnitOfWorkFactory, *, now: datetime, settings: Settings, actor: str
) -> PlayoffTick:
    """One pass of every play-off automation (idempotent: running it twice in a row does nothing more)."""
    tick = PlayoffTick()
    if settings.auto_build_bracket:
        _build_due_brackets(uow_factory, now=now, actor=actor, tick=tick, settings=settings)
    with uow_factory() as uow:
        tick.deadlines = apply_due_deadlines(uow, now, actor=actor)
    for stage_id, duel_id in _armageddon_duels(uow_factory):
        _step(
            tick,
            f"duel {duel_id}",
            _armageddon_step,
            uow_factory,
            stage_id,
            duel_id,
            now,
            settings,
            actor,
            tick,
        )
    _close_knockout_stages(uow_factory, now=now, actor=actor, tick=tick)
    return tick


def _step(tick: PlayoffTick, what: str, fn: Callable[..., None], *args: object) -> None:
    try:
        fn(*args)
    except ServiceError as error:  # refused for a reason staff must see: logged, the next tick tries again
        log.warning("playoff tick, %s: %s", what, error)
        tick.errors.append(f"{what}: {error}")


# ---------------------------------------------------------------- brackets


def _build_due_brackets(
    uow_factory: UnitOfWorkFactory, *, now: datetime, actor: str, tick: PlayoffTick, settings: Settings
) -> None:
    with uow_factory() as uow:
        due = [
            stage.id or 0
            for stage in uow.events.knockout_stages_not_started()
            if _earlier_closed(uow, stage.id or 0)
        ]
    for stage_id in due:
        _step(tick, f"stage {stage_id}", _build, uow_factory, stage_id, now, actor, tick, settings)


def _earlier_closed(uow: UnitOfWork, stage_id: int) -> bool:
    event, stage = uow.events.event_and_stage(stage_id)
    earlier = [s for s in uow.events.stages_of_event(event.id or 0) if s.position < stage.position]
    return bool(earlier) and all(s.status == StageStatus.CLOSED.value for s in earlier)


def _build(
    uow_factory: UnitOfWorkFactory,
    stage_id: int,
    now: datetime,
    actor: str,
    tick: PlayoffTick,
    settings: Settings,
) -> None:
    """Build the bracket; its first rounds whose duels all know their teams get their games queued when
    due, as the advance does for later ones (not at beat's next ``rounds.open_due``)."""
    with uow_factory() as uow:
        build_bracket(uow, stage_id=stage_id, actor=actor, now=now)
        queue_ready_bracket_games(
            uow, stage_id=stage_id, now=now, pair_lead_s=settings.gameserver_pair_lead_s
        )
    tick.brackets_built.append(stage_id)


# ---------------------------------------------------------------- Armageddon

# A duel's moves in one ``run_duel_steps``: category lot (commit, draw), nominations, colour lot (commit,
# draw and default colour) are five; the bound only stops a loop that a bug would make endless.
DUEL_STEPS_AT_MOST = 12


def _armageddon_duels(uow_factory: UnitOfWorkFactory) -> list[tuple[int, int]]:
    with uow_factory() as uow:
        return uow.playoff.armageddon_duels()


def run_duel_steps(
    uow_factory: UnitOfWorkFactory,
    *,
    duel_id: int,
    settings: Settings,
    actor: str,
    clock: Callable[[], datetime],
) -> PlayoffTick:
    """The body of ``playoff.duel``: one duel's Armageddon moves, one transaction each, until none is due.

    The moves are the tick's (``_armageddon_step``, and the unsealing of nominations whose deadline has
    passed, as ``apply_due_deadlines`` does), read at ``clock()`` before each: with no reveal delay a lot
    is drawn in the transaction after its commitment, so its hash is public before its seed is drawn
    (docs/lots.md); with no nomination or colour window the defaults follow at once. Nothing happens for
    a duel that is not level in a running knockout stage.
    """
    tick = PlayoffTick()
    stage_id = dict((duel, stage) for stage, duel in _armageddon_duels(uow_factory)).get(duel_id)
    if stage_id is None:
        return tick
    for _ in range(DUEL_STEPS_AT_MOST):
        moves = _moves(tick)
        what = f"duel {duel_id}"
        _step(tick, what, _unseal_if_due, uow_factory, duel_id, clock(), actor, tick)
        now = clock()
        _step(tick, what, _armageddon_step, uow_factory, stage_id, duel_id, now, settings, actor, tick, True)
        if _moves(tick) == moves or tick.armageddon_rounds:
            break  # nothing more is due, or the game is being paired: the next move is its result
    return tick


def _moves(tick: PlayoffTick) -> int:
    """How many moves ``tick`` holds (a pairing queued is not one: it is queued again while it waits)."""
    revealed = tick.deadlines.get("armageddons_revealed", 0)
    return len(tick.lots_committed) + len(tick.lots_drawn) + len(tick.default_colours) + revealed


def _unseal_if_due(
    uow_factory: UnitOfWorkFactory, duel_id: int, now: datetime, actor: str, tick: PlayoffTick
) -> None:
    with uow_factory() as uow:
        if unseal_duel_if_due(uow, duel_id=duel_id, now=now, actor=actor):
            tick.deadlines["armageddons_revealed"] = tick.deadlines.get("armageddons_revealed", 0) + 1


def _armageddon_step(
    uow_factory: UnitOfWorkFactory,
    stage_id: int,
    duel_id: int,
    now: datetime,
    settings: Settings,
    actor: str,
    tick: PlayoffTick,
    chained: bool = False,
) -> None:
    """One move per duel and call, so a lot's commitment and its draw are never one transaction; the one
    exception is the colour lot's draw when ``armageddon_colour_minutes`` is 0: the chooser it names has no
    time to choose, so the default colour applies in the same transaction.

    A move that makes a later one due queues the duel's ``playoff.duel`` after its commit instead of
    leaving it to the next beat: a lot's draw ``auto_lot_reveal_delay_s`` after its commitment (with a delay
    of 0, the draw is due at once: ``run_duel_steps`` makes it in its next transaction, beat's tick on its
    next pass), the default nominations at once when ``armageddon_nomination_minutes`` is 0 (not when
    ``chained``: ``run_duel_steps`` makes that move next itself). The default colour readies the game: its
    pairing is queued with it.
    """
    with uow_factory() as uow:
        # Locked before anything is read: a second tick at the same time then waits and finds this step
        # done, instead of repeating it from what it read before the first one committed.
        duel = uow.locks.lock_duel(duel_id)
        event, _stage = uow.events.event_and_stage(stage_id)
        arm = uow.playoff.armageddon_of_duel(duel_id)
        if arm is None and duel.status != DuelStatus.ARMAGEDDON.value:
            return  # decided (or re-paired) since the duels were listed
        purposes = {which: lot_purpose(duel.key, which) for which in ("category", "colour")}
        lots = uow.lots.lots_with_purposes(event.id or 0, purposes.values())
        delay = timedelta(seconds=settings.auto_lot_reveal_delay_s)
        which: LotWhich | None = None
        if arm is None:
            which = "category"
        elif arm.phase is ArmageddonPhase.DRAW_CHOOSER:
            which = "colour"
        if which is not None:
            if not settings.auto_draw_lots:
                return
            lot = lots.get(purposes[which])
            if lot is None or lot.sealed_seed_hex is None:
                seed = _replay_seed(settings, event.slug, purposes[which])
                lot_id = commit_armageddon_lot(uow, duel_id=duel_id, which=which, actor=actor, seed=seed)
                tick.lots_committed.append(f"{duel_id}:{which}")
                committed = uow.lots.get_or_raise(Lot, lot_id)
                wait = (
                    max(committed.committed_at + delay, drawable_from(uow, committed))
                    - committed.committed_at
                )
                if wait.total_seconds() > 0:  # the draw is due then
                    enqueue(uow, PLAYOFF_DUEL, duel_id, countdown=wait.total_seconds())
                return  # a commitment ends the transaction: its draw is never in the same one
            if max(lot.committed_at + delay, drawable_from(uow, lot)) <= now:
                # Not before the event's lot publication delay either (docs/lots.md): a draw before it
                # would be refused.
                reveal_armageddon_lot(
                    uow,
                    duel_id=duel_id,
                    which=which,
                    actor=actor,
                    now=now,
                    nomination_minutes=settings.armageddon_nomination_minutes,
                )
                tick.lots_drawn.append(f"{duel_id}:{which}")
                if which == "category":
                    if settings.armageddon_nomination_minutes == 0 and not chained:  # due at once
                        enqueue(uow, PLAYOFF_DUEL, duel_id)
                    return
                if settings.armageddon_colour_minutes != 0:
                    return  # the chooser has that long to choose
                # No time to choose: the draw (revealed at ``now``, which ``arm`` and ``lots`` now hold) makes
                # the default colour due below, in this transaction, and the game's pairing with it.
            else:
                return
        assert arm is not None
        if arm.phase is ArmageddonPhase.CHOOSE_COLOUR:
            chooser_lot = lots.get(purposes["colour"])
            drawn_at = chooser_lot.revealed_at if chooser_lot is not None else None
            waited = timedelta(minutes=settings.armageddon_colour_minutes)
            due = drawn_at is not None and drawn_at + waited <= now
            colour = settings.armageddon_default_colour
            if not (due and apply_default_colour(uow, duel_id=duel_id, colour=colour, actor=actor)):
                return
            tick.default_colours.append(duel_id)  # the Armageddon is ready: its game is paired below
        if arm.phase is ArmageddonPhase.READY and settings.gameserver_unequal_clocks:
            rnd = uow.rounds.round_by_number(stage_id, ARMAGEDDON_ROUND_BASE + duel_id)
            if rnd is not None and rnd.status == RoundStatus.SCHEDULED.value:
                enqueue(uow, CREATE_GAMES, rnd.id or 0)  # idempotent: the round is locked while pairing
                tick.armageddon_rounds.append(rnd.id or 0)


def _replay_seed(settings: Settings, event_slug: str, purpose: str) -> bytes | None:
    """The lot's seed in a replay (``Settings.replay_lot_seed``): one per event and purpose, so every
    commitment differs; None in a real event (the lot takes a fresh secret seed)."""
    replay = settings.replay_lot_seed.get_secret_value()
    if not replay:
        return None
    return hashlib.sha256(f"{replay}|{event_slug}|{purpose}".encode()).digest()


# ---------------------------------------------------------------- closing


def _close_knockout_stages(
    uow_factory: UnitOfWorkFactory, *, now: datetime, actor: str, tick: PlayoffTick
) -> None:
    with uow_factory() as uow:
        stage_ids = [stage.id or 0 for stage in uow.events.running_knockout_stages()]
    for stage_id in stage_ids:
        with uow_factory() as uow:
            if advance_stage(uow, stage_id=stage_id, actor=actor, now=now):
                tick.stages_closed.append(stage_id)


# ---------------------------------------------------------------- eager mode


class EagerScheduler:
    """Beat's role in an eager deployment: a daemon thread calling ``tick(now)`` every ``period_s``."""

    def __init__(self, tick: Callable[[], object], period_s: float) -> None:
        self._tick = tick
        self.period_s = period_s
        self.ticks = 0
        self.outage = OutageLog("eager scheduler", log)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="eager-scheduler", daemon=True)

    def start(self) -> EagerScheduler:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            try:
                self._tick()
            except Exception as error:  # one failing pass must not end the scheduler; the next catches up
                if connection_lost(error):
                    self.outage.failed(error)  # one warning for the whole outage
                else:
                    log.exception("periodic tick failed")
            else:
                self.outage.ok()
            self.ticks += 1

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
