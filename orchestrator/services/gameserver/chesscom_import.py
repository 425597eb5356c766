"""Fill a match's boards from Chess.com's published data (docs/rules.md §8; docs/chesscom.md "Staff
workflow").

- The importer (adapters/chesscom.py) is read-only; this use case records what it proposes through the
  ordinary ingestion use case (``results.ingest_server_result`` with source IMPORT), so an arbiter's
  result is never overwritten and a closed stage is never touched.
- Only matched, unflagged, final results are recorded. A flagged game (``needs_arbiter``) is returned
  with its note and link for the arbiter, never recorded; "not yet" boards are returned too.
- Every Chess.com request happens before the first write, and everything is written in the caller's one
  unit of work: a Chess.com error becomes a ServiceError with a clear message and nothing is recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import replace as _with
from datetime import datetime
from enum import StrEnum
from typing import Literal
from urllib.parse import urlsplit

from orchestrator.adapters import chesscom
from orchestrator.adapters.chesscom import BoardSlot, ChessComClient, ChessComImporter, ImportedGame
from orchestrator.adapters.tables import Board, Match, ResultSource, Stage, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import CHESSCOM_PLACEHOLDER_AGENT, Settings, get_settings
from orchestrator.domain.scoring import GameResult
from orchestrator.errors import Conflict, ServiceError, ValidationFailed
from orchestrator.services.results import results as result_service
from orchestrator.translation import gettext as _
from orchestrator.translation import ngettext

Source = Literal["team_match", "archives"]
SOURCES: tuple[str, ...] = ("team_match", "archives")
TIME_CLASSES: tuple[str, ...] = ("rapid", "blitz", "bullet", "daily")

_USERNAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,50}$")  # what the PubAPI accepts in a player path
_MATCH_PATH_RE = re.compile(r"/(?:club/matches|pub/match)/(?P<live>live/)?(?P<id>\d+)(?:/\d+)?/?$")


class ChessComUnavailable(ServiceError):
    """Chess.com could not be read (rate limit, outage, unexpected answer): nothing was recorded."""

    status_code = 503

    def __init__(self, message: str, *, status_code: int = 503, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retry_after_s = retry_after_s  # the app turns it into a Retry-After header


class Outcome(StrEnum):
    RECORDED = "recorded"  # the import's result is now the board's result
    UNCHANGED = "unchanged"  # the board already held this result (an earlier import or the server)
    ARBITER_KEPT = "arbiter_kept"  # an arbiter's result stands; the import's is only shown
    FLAGGED = "flagged"  # the importer asks an arbiter; nothing recorded
    NOT_YET = "not_yet"  # no finished game yet (not started, running, archives lagging)
    SKIPPED = "skipped"  # the board has no player or an account Chess.com cannot have


@dataclass(frozen=True, slots=True)
class BoardImport:
    """What the import did with one board of our match."""

    board_id: int
    board_no: int
    white: str
    black: str
    white_account: str | None
    black_account: str | None
    outcome: Outcome
    proposed: str  # the importer's result from White's side ("*" when none)
    stored: str  # the board's result after the import
    url: str | None
    note: str


@dataclass(frozen=True, slots=True)
class ImportSummary:
    """Every board of the match, in board order, with what the import did to it."""

    match_id: int
    source: str
    chesscom_match_id: int | None
    live: bool
    window: tuple[datetime, datetime] | None
    time_class: str | None
    boards: tuple[BoardImport, ...]

    def having(self, *outcomes: Outcome) -> list[BoardImport]:
        return [b for b in self.boards if b.outcome in outcomes]

    @property
    def recorded(self) -> list[BoardImport]:
        return self.having(Outcome.RECORDED)

    @property
    def flagged(self) -> list[BoardImport]:
        return self.having(Outcome.FLAGGED)

    @property
    def arbiter_kept(self) -> list[BoardImport]:
        return self.having(Outcome.ARBITER_KEPT)


def parse_team_match(text: str) -> tuple[int, bool]:
    """A Chess.com team match id, or its page / PubAPI URL, as (id, live)."""
    raw = (text or "").strip()
    if raw.isascii() and raw.isdigit() and int(raw) > 0:
        return int(raw), False
    parts = urlsplit(raw if "://" in raw else f"https://{raw}")
    host = (parts.hostname or "").lower()
    found = _MATCH_PATH_RE.search(parts.path)
    if (host == "chess.com" or host.endswith(".chess.com")) and found and int(found["id"]) > 0:
        return int(found["id"]), bool(found["live"])
    raise ValidationFailed(
        [
            _("%(raw)r is not a Chess.com team match: give its number or its URL (…/club/matches/1234567)")
            % {"raw": raw}
        ]
    )


def make_client(settings: Settings) -> ChessComClient:
    """A PubAPI client from the settings; refuses the placeholder User-Agent in production."""
    agent = settings.chesscom_user_agent
    if settings.environment == "production" and agent == CHESSCOM_PLACEHOLDER_AGENT:
        raise Conflict(
            _(
                "Set OLYMPIAD_CHESSCOM_USER_AGENT to a User-Agent naming the operator's contact (e-mail or "
                "URL) before importing from Chess.com."
            )
        )
    try:
        return ChessComClient(settings.chesscom_url, agent)
    except ValueError as error:
        raise Conflict(
            _("OLYMPIAD_CHESSCOM_USER_AGENT is not usable: %(problem)s") % {"problem": error}
        ) from None


def import_chesscom_results(
    uow: UnitOfWork,
    *,
    match_id: int,
    source: Source | str,
    chesscom_match_id: str | None = None,
    window: tuple[datetime, datetime] | None = None,
    actor: str,
    client: ChessComClient | None = None,
    time_class: str = "rapid",
    live: bool = False,
) -> ImportSummary:
    """Read a match's games from Chess.com and record every matched, unflagged, final result.

    ``source`` "team_match" reads ``chesscom_match_id`` (number or URL; a live-match URL sets ``live``);
    "archives" searches the White players' monthly archives in ``window`` for ``time_class`` games.
    """
    cc_match, live, window, time_class = _checked_input(source, chesscom_match_id, window, time_class, live)
    stage = _open_stage_of(uow, match_id)
    boards = sorted(uow.boards.for_match(match_id), key=lambda b: b.board_no)
    slots, lines = _board_lines(uow, boards)

    games = _fetch(slots, source, cc_match, live, window, time_class, client) if slots else []

    by_no = {b.board_no: b for b in boards}
    for game in games:
        lines[game.board_no] = _record(uow, by_no[game.board_no], lines[game.board_no], game, actor)

    summary = ImportSummary(
        match_id=match_id,
        source=source,
        chesscom_match_id=cc_match,
        live=live,
        window=window,
        time_class=time_class if source == "archives" else None,
        boards=tuple(lines[b.board_no] for b in boards),
    )
    uow.audit.record(
        actor=actor,
        action="match.chesscom_import",
        entity="match",
        entity_id=match_id,
        event_id=stage.event_id,
        new={
            "source": source,
            "chesscom_match_id": cc_match,
            "live": live,
            "window": [w.isoformat() for w in window] if window else None,
            "time_class": summary.time_class,
            "recorded": [b.board_no for b in summary.recorded],
            "flagged": [b.board_no for b in summary.flagged],
            "arbiter_kept": [b.board_no for b in summary.arbiter_kept],
        },
    )
    return summary


def _open_stage_of(uow: UnitOfWork, match_id: int) -> Stage:
    """The stage of the match, refused when the match is unknown or its stage closed."""
    stage = uow.rounds.stage_of_match(uow.rounds.get_or_raise(Match, match_id))
    if stage.status == StageStatus.CLOSED.value:
        raise Conflict(
            _("Stage %(stage)s is closed: an import does not change it; enter late corrections by hand.")
            % {"stage": stage.name}
        )
    return stage


def _board_lines(uow: UnitOfWork, boards: list[Board]) -> tuple[list[BoardSlot], dict[int, BoardImport]]:
    """The boards whose games can be looked for, and each board's line of the summary (skipped so far)."""
    players = uow.teams.players_by_id(pid for b in boards for pid in (b.white_player_id, b.black_player_id))
    slots: list[BoardSlot] = []
    lines: dict[int, BoardImport] = {}
    for board in boards:
        white = players.get(board.white_player_id or 0)
        black = players.get(board.black_player_id or 0)
        base = BoardImport(
            board_id=board.id or 0,
            board_no=board.board_no,
            white=white.name if white else "—",
            black=black.name if black else "—",
            white_account=white.account if white else None,
            black_account=black.account if black else None,
            outcome=Outcome.SKIPPED,
            proposed=GameResult.PENDING.value,
            stored=board.result,
            url=None,
            note="",
        )
        if white is None or black is None:
            lines[board.board_no] = _with(base, note="no player on this board: nothing to import")
            continue
        bad = [a for a in (white.account, black.account) if not _USERNAME_RE.match(a)]
        if bad:
            names = ", ".join(repr(a) for a in bad)
            note = f"{names} cannot be a Chess.com username; enter this board by hand"
            lines[board.board_no] = _with(base, note=note)
            continue
        lines[board.board_no] = base
        slots.append(BoardSlot(board.board_no, white.account, black.account))
    return slots, lines


def _checked_input(
    source: str,
    chesscom_match_id: str | None,
    window: tuple[datetime, datetime] | None,
    time_class: str,
    live: bool,
) -> tuple[int | None, bool, tuple[datetime, datetime] | None, str]:
    if source == "team_match":
        if not chesscom_match_id or not str(chesscom_match_id).strip():
            raise ValidationFailed([_("give the Chess.com team match number or URL")])
        cc_match, live_from_url = parse_team_match(str(chesscom_match_id))
        return cc_match, live or live_from_url, None, time_class
    if source == "archives":
        problems = []
        if window is None:
            problems.append(_("give the time window (start and end, UTC) in which the games were played"))
        else:
            start, end = window
            if start.tzinfo is None or end.tzinfo is None:
                problems.append(_("the window's start and end need a time zone"))
            elif end <= start:
                problems.append(_("the window ends before it starts"))
        if time_class not in TIME_CLASSES:
            problems.append(_("time class must be one of %(classes)s") % {"classes": ", ".join(TIME_CLASSES)})
        if problems:
            raise ValidationFailed(problems)
        return None, False, window, time_class
    raise ValidationFailed(
        [
            _("source must be one of %(sources)s, not %(source)r")
            % {"sources": ", ".join(SOURCES), "source": source}
        ]
    )


def _fetch(
    slots: list[BoardSlot],
    source: str,
    cc_match: int | None,
    live: bool,
    window: tuple[datetime, datetime] | None,
    time_class: str,
    client: ChessComClient | None,
) -> list[ImportedGame]:
    """Every Chess.com request of the import, before anything is written."""
    own = client is None
    cc = make_client(get_settings()) if client is None else client
    try:
        importer = ChessComImporter(cc)
        if source == "team_match":
            assert cc_match is not None
            return importer.import_team_match(cc_match, slots, live=live)
        assert window is not None
        return importer.import_from_archives(slots, window[0], window[1], time_class)
    except chesscom.RateLimited as error:
        wait = int(error.retry_after)
        raise ChessComUnavailable(
            _("Chess.com asked us to slow down (HTTP 429). Nothing was recorded; try again in %(wait)s.")
            % {"wait": _minutes(wait)},
            retry_after_s=wait,
        ) from None
    except chesscom.TransientError as error:
        raise ChessComUnavailable(
            _(
                "Chess.com is not answering right now (%(problem)s). Nothing was recorded; try again in a "
                "few minutes."
            )
            % {"problem": error},
            retry_after_s=60,
        ) from None
    except chesscom.NotFound as error:
        raise ValidationFailed([_("%(problem)s. Nothing was recorded.") % {"problem": error}]) from None
    except chesscom.BadResponse as error:
        raise ChessComUnavailable(
            _(
                "Chess.com sent an answer we cannot read (%(problem)s). Nothing was recorded; enter the "
                "results by hand or try again later."
            )
            % {"problem": error},
            status_code=502,
        ) from None
    except chesscom.ChessComError as error:
        raise ChessComUnavailable(
            _("%(problem)s. Nothing was recorded.") % {"problem": error}, status_code=502
        ) from None
    except ValueError as error:  # the importer's own argument checks (ids, names, window)
        raise ValidationFailed([str(error)]) from None
    finally:
        if own:
            cc.close()


def _minutes(seconds: int) -> str:
    minutes = max(1, -(-seconds // 60))
    return (
        _("a minute")
        if minutes == 1
        else ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}
    )


def _record(uow: UnitOfWork, board: Board, line: BoardImport, game: ImportedGame, actor: str) -> BoardImport:
    line = _with(line, proposed=game.result.value, url=game.url, note=game.note)
    if game.needs_arbiter:
        return _with(line, outcome=Outcome.FLAGGED, note=game.note or "the importer asks an arbiter")
    if not game.matched or not game.result.is_final:
        return _with(line, outcome=Outcome.NOT_YET, note=game.note or "game not finished yet")
    if not result_service.may_server_overwrite(board):
        return _arbiter_kept(line, board)
    before = board.result
    state = result_service.ingest_server_result(
        uow,
        board_id=board.id or 0,
        result=game.result.value,
        pgn=game.pgn,
        game_url=game.url,
        source=ResultSource.IMPORT,
        actor=actor,
    )
    if state is None:  # an arbiter saved it meanwhile (ingestion re-reads the board under the lock)
        return _arbiter_kept(line, board)
    if before == state.result:
        return _with(line, outcome=Outcome.UNCHANGED, stored=state.result, note="the board already held it")
    note = f"replaced {result_service.display(before)}" if GameResult(before).is_final else ""
    return _with(line, outcome=Outcome.RECORDED, stored=state.result, note=note)


def _arbiter_kept(line: BoardImport, board: Board) -> BoardImport:
    same = board.result == line.proposed
    note = "the arbiter's result stands" + ("" if same else f"; Chess.com says {line.proposed}")
    return _with(line, outcome=Outcome.ARBITER_KEPT, stored=board.result, note=note)
