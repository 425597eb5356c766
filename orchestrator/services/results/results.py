"""Entering, saving and correcting board results (docs/rules.md §6; docs/rules.md §6).

- Every save is a compare-and-set on ``board.version``: when someone else changed the board since the
  user read it, nothing is saved and ``StaleEdit`` says who changed it, when, and what it holds now.
- An arbiter's result (``result_source="arbiter"``) always wins over a later game-server poll:
  ``may_server_overwrite`` is the rule the ingestion workers apply (``ingest_server_result`` applies it).
  Clearing a result back to "no result" also clears its source, so the game server may fill it again.
- The audit log gets every staff entry and every change of a result that was already final (who, when,
  old, new, reason); a game server's first result is not audited (the board itself records it).
- After a change the pool's standings are stored again (provisional) in the same unit of work, and the
  match, pool and event topics are announced after the commit.
- A closed stage's boards change only through ``correct_result``/``save_corrections``, with a reason,
  and always keep a result; the final standings are stored again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from orchestrator.adapters.tables import (
    Board,
    Match,
    MatchStatus,
    ResultSource,
    Round,
    RoundStatus,
    Stage,
    StageStatus,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.scoring import (
    GameResult,
    MatchForfeit,
    ScoreError,
    parse_result,
)
from orchestrator.errors import Conflict, CurrentValue, NotFound, StaleEdit, ValidationFailed
from orchestrator.services import live, times
from orchestrator.services.boards import board_current_value
from orchestrator.services.definitions import event_zone
from orchestrator.services.playoff.sync import advance_after_match
from orchestrator.services.queue import ADVANCE_STAGE, enqueue
from orchestrator.services.results import late_changes
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results.match_sheet import BoardLine, MatchSheet, match_sheet, paired_after
from orchestrator.services.row_views import row_view
from orchestrator.translation import N_
from orchestrator.translation import gettext as _

__all__ = ["BoardLine", "MatchSheet", "match_sheet"]  # the entry page, kept importable from here

# The choices of the result entry page, in the seed's order; "–" is "no result yet". The labels are msgids:
# the page shows them with the ``translated`` filter.
RESULT_CHOICES: tuple[tuple[str, str], ...] = (
    ("1-0", "1-0"),
    ("½-½", "½-½"),
    ("0-1", "0-1"),
    ("+/-", N_("+/- (White wins by forfeit)")),
    ("-/+", N_("-/+ (Black wins by forfeit)")),
    ("-/-", N_("-/- (both lose by forfeit)")),
    ("*", N_("– (no result)")),
)


@dataclass(frozen=True, slots=True)
class BoardState:
    """A board as the entry page and the API show it after a save."""

    board_id: int
    match_id: int
    board_no: int
    result: str
    version: int
    result_source: str | None
    updated_by: str
    updated_at: datetime

    @classmethod
    def of(cls, board: Board) -> BoardState:
        return row_view(cls, board, board_id=board.id or 0)


@dataclass(frozen=True, slots=True)
class ResultEntry:
    """One board of a "Save results" form: the result chosen, the version read and the result shown."""

    board_id: int
    result: str
    expected_version: int
    shown: str | None = None  # the result the page showed; lets a board nobody touched be skipped


class ResultsConflict(StaleEdit):
    """Some boards were changed by someone else: nothing was saved; ``mine`` holds the user's choices."""

    def __init__(
        self, current: Iterable[CurrentValue], mine: dict[int, str], *, zone: str | None = None
    ) -> None:
        """``zone``: the event's time zone, the one the message names the times in (UTC when None)."""
        current = tuple(current)
        super().__init__(current)
        self.mine = dict(mine)
        parts = [
            _("board %(board)s: %(by)s saved %(result)s at %(at)s; yours was %(mine)s")
            % {
                "board": c.entity_id,
                "by": c.changed_by,
                "result": display(c.value),
                "at": times.said(c.changed_at, zone),
                "mine": display(mine.get(c.entity_id, "*")),
            }
            for c in current
        ]
        self.message = _("Changed by someone else, nothing was saved. %(boards)s") % {
            "boards": "; ".join(parts)
        }
        self.args = (self.message,)


def display(code: str) -> str:
    return "–" if code in ("*", "", "–") else code


def parse_code(text: str) -> GameResult:
    try:
        return parse_result(text)
    except ScoreError as error:
        raise ValidationFailed([str(error)]) from None


class _HasResultSource(Protocol):
    @property
    def result_source(self) -> str | None: ...


def may_server_overwrite(board: _HasResultSource) -> bool:
    """Whether a game-server result may replace the board's result (an arbiter's entry always wins)."""
    return board.result_source != ResultSource.ARBITER.value


# --- context ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Context:
    board: Board
    match: Match
    round: Round
    stage: Stage

    @property
    def closed(self) -> bool:
        return self.stage.status == StageStatus.CLOSED.value


def _context(uow: UnitOfWork, board: Board) -> _Context:
    match = uow.rounds.get_or_raise(Match, board.match_id)
    return _Context(board, match, uow.rounds.round_of_match(match), uow.rounds.stage_of_match(match))


def _lock(uow: UnitOfWork, match: Match) -> None:
    """Serialise changes to one pool or duel (docs/architecture.md, habit 6): standings are recomputed after
    each. The match's round is locked next, before any match row is written: every writer takes pool or
    duel, then round, then match (``gameserver.settle_round`` takes round, then match), so an arbiter's
    entry and a worker settling the same round wait for each other instead of deadlocking."""
    if match.pool_id is not None:
        uow.locks.lock_pool(match.pool_id)
    elif match.duel_id is not None:
        uow.locks.lock_duel(match.duel_id)
    uow.locks.lock(Round, match.round_id)


def _stale(board: Board) -> StaleEdit:
    return StaleEdit([board_current_value(board)])


def _apply(
    uow: UnitOfWork,
    ctx: _Context,
    new: GameResult,
    *,
    expected_version: int,
    actor: str,
    source: ResultSource,
    reason: str,
    action: str,
    extra: dict[str, object] | None = None,
) -> Board:
    """The compare-and-set itself, its audit entry and the match's status; no recompute here."""
    old_result = ctx.board.result
    old_source = ctx.board.result_source
    values: dict[str, object] = {
        "result": new.value,
        "result_source": source.value if new.is_final else None,
        **(extra or {}),
    }
    board = uow.boards.update_versioned(
        ctx.board.id or 0, expected_version=expected_version, values=values, actor=actor
    )
    if GameResult(old_result).is_final or source is ResultSource.ARBITER:
        uow.audit.change(
            board,
            action,
            actor=actor,
            event_id=ctx.stage.event_id,
            old={"result": old_result, "source": old_source, "version": expected_version},
            new={"result": board.result, "source": board.result_source, "version": board.version},
            reason=reason or None,
        )
    else:  # a first result reported by a captain or the server: not audited, yet public (docs/record.md)
        uow.record.append_change(
            action=action,
            entity="board",
            entity_id=board.id,
            event_id=ctx.stage.event_id,
            old={"result": old_result},
            new={"result": board.result},
        )
    _update_statuses(uow, ctx.match, ctx.round)
    return board


def _update_statuses(uow: UnitOfWork, match: Match, rnd: Round) -> None:
    boards = uow.boards.for_match(match.id or 0)
    complete = standings_service.match_is_complete(match, boards)
    if complete and match.status != MatchStatus.FINISHED.value:
        match.status = MatchStatus.FINISHED.value
        match.finished_at = utcnow()
    elif not complete and match.status == MatchStatus.FINISHED.value:
        match.status = MatchStatus.PLAYING.value
        match.finished_at = None
    uow.rounds.add(match)
    uow.flush()
    in_round = uow.rounds.matches_of_round(rnd.id or 0)
    if all(m.status == MatchStatus.FINISHED.value for m in in_round):
        if rnd.status != RoundStatus.FINISHED.value:
            # What follows a finished round (the next Swiss round of an auto_publish stage, the stage's
            # closing) is queued as when the server's results finish it (gameserver.settle_round).
            enqueue(uow, ADVANCE_STAGE, rnd.stage_id)
        rnd.status = RoundStatus.FINISHED.value
    elif rnd.status == RoundStatus.FINISHED.value:
        rnd.status = RoundStatus.PLAYING.value
    uow.rounds.add(rnd)


def after_match_change(uow: UnitOfWork, match: Match, stage: Stage, *, actor: str) -> None:
    """Store the pool's standings again, announce the match, duel, pool and event topics, move a duel
    match's bracket on (``playoff.sync.advance_after_match``, idempotent), and on a closed stage record
    what the change means for the later stages (``late_changes``)."""
    if match.pool_id is not None:
        standings_service.recompute_pool(uow, pool_id=match.pool_id, actor=actor)
    if match.duel_id is not None:
        live.announce(uow, f"duel:{match.duel_id}", kind="result")
        if stage.status != StageStatus.CLOSED.value:
            advance_after_match(uow, match_id=match.id or 0, actor=actor)  # the bracket moves on at once
    live.announce(uow, f"match:{match.id}", kind="result")
    late_changes.review_after_match(uow, match=match, stage=stage, actor=actor, cause="correction")
    event = uow.events.event_of_stage(stage)
    live.announce(uow, f"event:{event.slug}", kind="result", match_id=match.id)


def _load(uow: UnitOfWork, board_id: int) -> _Context:
    board = uow.boards.get(Board, board_id)
    if board is None:
        raise NotFound(_("board %(board)s does not exist") % {"board": board_id})
    ctx = _context(uow, board)
    _lock(uow, ctx.match)
    uow.refresh(board)  # re-read under the lock
    return ctx


# --- use cases -------------------------------------------------------------------------------------------


def record_result(
    uow: UnitOfWork,
    *,
    board_id: int,
    result: str,
    expected_version: int,
    actor: str,
    reason: str = "",
    source: ResultSource | str = ResultSource.ARBITER,
) -> BoardState:
    """Save one board's result if nobody changed it since ``expected_version`` (else StaleEdit)."""
    new = parse_code(result)
    source = ResultSource(source)
    ctx = _load(uow, board_id)
    if ctx.closed:
        raise Conflict(
            _("Stage %(stage)s is closed: correct this board with Save corrections and a reason.")
            % {"stage": ctx.stage.name}
        )
    if ctx.board.version != expected_version:
        raise _stale(ctx.board)
    if ctx.board.result == new.value:
        return BoardState.of(ctx.board)  # nothing to change: no new version, no audit entry
    if GameResult(ctx.board.result).is_final:  # a first result of an unfinished game is no correction
        _refuse_late(uow, ctx.round, ctx.stage)
    board = _apply(
        uow,
        ctx,
        new,
        expected_version=expected_version,
        actor=actor,
        source=source,
        reason=reason,
        action="board.result",
    )
    after_match_change(uow, ctx.match, ctx.stage, actor=actor)
    return BoardState.of(board)


def _refuse_late(uow: UnitOfWork, rnd: Round, stage: Stage) -> None:
    """A result of a Swiss round followed by a round already paired changes only by a late correction
    (docs/rules.md §6, "Late corrections")."""
    later = paired_after(uow, rnd, stage)
    if later is not None:
        raise Conflict(
            _(
                "Round %(round)s of %(stage)s is followed by round %(later)s, already paired: a change here "
                "is a late correction. Use Save late correction, with a reason."
            )
            % {"round": rnd.number, "stage": stage.name, "later": later}
        )


def ingest_server_result(
    uow: UnitOfWork,
    *,
    board_id: int,
    result: str,
    game_id: str | None = None,
    game_status: str | None = None,
    pgn: str | None = None,
    actor: str = "worker",
    source: ResultSource | str = ResultSource.SERVER,
    game_url: str | None = None,
) -> BoardState | None:
    """A game server's result for a board; None when it was not applied (arbiter's entry, closed stage).

    Idempotent: the same result and status again change nothing (docs/architecture.md, habit 6). ``source``
    is IMPORT
    for results read from Chess.com (services/gameserver/chesscom_import.py); an arbiter's entry still wins.
    """
    new = parse_code(result)
    source = ResultSource(source)
    if source is ResultSource.ARBITER:
        raise ValueError("an arbiter's result goes through record_result, not ingestion")
    ctx = _load(uow, board_id)
    board = ctx.board
    if not may_server_overwrite(board) or ctx.closed:
        return None
    extra: dict[str, object] = {}
    if game_id is not None and game_id != board.game_id:
        extra["game_id"] = game_id
    if game_status is not None and game_status != board.game_status:
        extra["game_status"] = game_status
    if pgn is not None and pgn != board.pgn:
        extra["pgn"] = pgn
    if game_url is not None and game_url != board.game_url:
        extra["game_url"] = game_url
    if board.result == new.value and not extra:
        return BoardState.of(board)
    if board.result == new.value:
        updated = uow.boards.update_versioned(
            board.id or 0, expected_version=board.version, values=extra, actor=actor
        )
        return BoardState.of(updated)
    updated = _apply(
        uow,
        ctx,
        new,
        expected_version=board.version,
        actor=actor,
        source=source,
        reason="",
        action="board.import_result" if source is ResultSource.IMPORT else "board.server_result",
        extra=extra,
    )
    after_match_change(uow, ctx.match, ctx.stage, actor=actor)
    return BoardState.of(updated)


EntryLike = ResultEntry | tuple[int, str, int] | tuple[int, str, int, str]


def _entries(raw: Sequence[EntryLike]) -> list[ResultEntry]:
    out: list[ResultEntry] = []
    for item in raw:
        out.append(item if isinstance(item, ResultEntry) else ResultEntry(*item))
    return out


def _save_many(
    uow: UnitOfWork,
    *,
    match_id: int,
    entries: Sequence[EntryLike],
    actor: str,
    reason: str,
    correcting: bool,
    late: bool = False,
) -> list[BoardState]:
    match = uow.rounds.get_or_raise(Match, match_id)
    _lock(uow, match)
    rnd = uow.rounds.round_of_match(match)
    stage = uow.rounds.stage_of_match(match)
    closed = stage.status == StageStatus.CLOSED.value
    if closed and not correcting:
        raise Conflict(
            _("Stage %(stage)s is closed: use Save corrections, with a reason.") % {"stage": stage.name}
        )
    if late and paired_after(uow, rnd, stage) is None:
        raise Conflict(
            _(
                "Round %(round)s of %(stage)s is not followed by a paired round: this is no late "
                "correction. Use Save results."
            )
            % {"round": rnd.number, "stage": stage.name}
        )
    boards = {b.id: b for b in uow.boards.for_match(match_id)}
    for b in boards.values():
        uow.refresh(b)
    problems: list[str] = []
    parsed: list[tuple[ResultEntry, GameResult]] = []
    for entry in _entries(entries):
        if entry.board_id not in boards:
            problems.append(
                _("board %(board)s is not a board of match %(match)s")
                % {"board": entry.board_id, "match": match_id}
            )
            continue
        try:
            new = parse_result(entry.result)
        except ScoreError as error:
            problems.append(
                _("board %(board)s: %(error)s") % {"board": boards[entry.board_id].board_no, "error": error}
            )
            continue
        if closed and not new.is_final:
            problems.append(
                _("board %(board)s: a board of a closed stage always keeps a result")
                % {"board": boards[entry.board_id].board_no}
            )
            continue
        if late and not new.is_final and GameResult(boards[entry.board_id].result).is_final:
            problems.append(
                _("board %(board)s: a late correction always leaves a result")
                % {"board": boards[entry.board_id].board_no}
            )
            continue
        parsed.append((entry, new))
    if problems:
        raise ValidationFailed(problems)

    changed: list[tuple[ResultEntry, GameResult, Board]] = []
    conflicts: list[Board] = []
    for entry, new in parsed:
        board = boards[entry.board_id]
        if entry.shown is not None and parse_code(entry.shown) is new:
            continue  # the user did not touch this board
        if board.version == entry.expected_version:
            if board.result != new.value:
                changed.append((entry, new, board))
        elif board.result != new.value:
            conflicts.append(board)
    if conflicts:
        mine = {entry.board_id: new.value for entry, new in parsed}
        zone = event_zone(uow.events.event_of_stage(stage))
        raise ResultsConflict([board_current_value(b) for b in conflicts], mine, zone=zone)
    if not (late or correcting) and any(GameResult(board.result).is_final for _e, _n, board in changed):
        _refuse_late(uow, rnd, stage)  # a first result of an unfinished game is no correction

    saved: list[BoardState] = []
    for entry, new, board in changed:
        ctx = _Context(board, match, rnd, stage)
        updated = _apply(
            uow,
            ctx,
            new,
            expected_version=entry.expected_version,
            actor=actor,
            source=ResultSource.ARBITER,
            reason=reason,
            action="board.late_correction" if late else "board.correction" if correcting else "board.result",
        )
        saved.append(BoardState.of(updated))
    if saved:
        after_match_change(uow, match, stage, actor=actor)
    return saved


def save_results(
    uow: UnitOfWork,
    *,
    match_id: int,
    entries: Sequence[EntryLike],
    actor: str,
    reason: str = "",
) -> list[BoardState]:
    """The "Save results" button: save only changed boards, and nothing if one was changed meanwhile."""
    return _save_many(uow, match_id=match_id, entries=entries, actor=actor, reason=reason, correcting=False)


def _need_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise ValidationFailed([_("a correction needs a reason (it goes to the audit log)")])
    return reason


def save_corrections(
    uow: UnitOfWork,
    *,
    match_id: int,
    entries: Sequence[EntryLike],
    actor: str,
    reason: str,
) -> list[BoardState]:
    """The "Save corrections" button of a closed stage: like save_results, with a reason required."""
    reason = _need_reason(reason)
    return _save_many(uow, match_id=match_id, entries=entries, actor=actor, reason=reason, correcting=True)


def save_late_correction(
    uow: UnitOfWork,
    *,
    match_id: int,
    entries: Sequence[EntryLike],
    actor: str,
    reason: str,
) -> list[BoardState]:
    """The "Save late correction" button of a Swiss round followed by a round already paired (docs/rules.md
    §6, "Late corrections"): a reason is required and each changed board gets a ``board.late_correction``
    audit entry; the standings are computed again, the pairings already made stand."""
    reason = _need_reason(reason)
    return _save_many(
        uow, match_id=match_id, entries=entries, actor=actor, reason=reason, correcting=False, late=True
    )


def correct_result(
    uow: UnitOfWork, *, board_id: int, result: str, expected_version: int, actor: str, reason: str
) -> BoardState:
    """A late correction (closed stage allowed): audited with its reason; final standings stored again."""
    reason = _need_reason(reason)
    board = uow.boards.get(Board, board_id)
    if board is None:
        raise NotFound(_("board %(board)s does not exist") % {"board": board_id})
    saved = save_corrections(
        uow,
        match_id=board.match_id,
        entries=[ResultEntry(board_id, result, expected_version)],
        actor=actor,
        reason=reason,
    )
    if saved:
        return saved[0]
    uow.refresh(board)
    return BoardState.of(board)


def set_match_forfeit(
    uow: UnitOfWork, *, match_id: int, forfeit: str, actor: str, reason: str = ""
) -> MatchForfeit:
    """Record (or clear with "") a whole-match forfeit: the absent team loses 0–boards (docs/rules.md §2)."""
    try:
        code = MatchForfeit(forfeit)
    except ValueError:
        raise ValidationFailed([_("forfeit must be '+-' (first team wins), '-+', '--' or ''")]) from None
    match = uow.rounds.get_or_raise(Match, match_id)
    _lock(uow, match)
    rnd = uow.rounds.round_of_match(match)
    stage = uow.rounds.stage_of_match(match)
    if stage.status == StageStatus.CLOSED.value and not reason.strip():
        raise ValidationFailed([_("a correction of a closed stage needs a reason")])
    if paired_after(uow, rnd, stage) is not None and not reason.strip():
        raise ValidationFailed([_("a late correction needs a reason (it goes to the audit log)")])
    old = match.forfeit
    if old == code.value:
        return code
    match.forfeit = code.value
    uow.rounds.add(match)
    uow.audit.change(
        match,
        "match.forfeit",
        actor=actor,
        event_id=stage.event_id,
        old={"forfeit": old},
        new={"forfeit": code.value},
        reason=reason or None,
    )
    _update_statuses(uow, match, rnd)
    after_match_change(uow, match, stage, actor=actor)
    return code
