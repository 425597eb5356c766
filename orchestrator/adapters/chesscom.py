"""Read-only importer for Chess.com's Published-Data API: team matches and monthly game archives
(docs/rules.md §8).

A second source of results (the 2020 Online Olympiad was played on Chess.com). Nothing here writes
anywhere: the importer proposes one ``ImportedGame`` per board and the caller records it through the
ordinary result use case. A board that could not be matched to exactly one game never carries a final
result; anything doubtful is ``needs_arbiter``. See docs/chesscom.md for the choices made.

Politeness (PubAPI "General use"): one request at a time, a User-Agent that names a contact, and a
minute's pause after HTTP 429 (``RateLimited.retry_after``; the caller schedules the retry).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from orchestrator.domain.scoring import GameResult

DEFAULT_BASE_URL = "https://api.chess.com"
DEFAULT_TIMEOUT_S = 20.0
MIN_RATE_LIMIT_WAIT_S = 60.0

# PubAPI "Game results codes", per player.
WIN_CODES = frozenset({"win"})
LOSS_CODES = frozenset(
    {
        "checkmated",
        "resigned",
        "timeout",
        "abandoned",
        "lose",
        "kingofthehill",
        "threecheck",
        "bughousepartnerlose",
    }
)
DRAW_CODES = frozenset({"agreed", "repetition", "stalemate", "insufficient", "50move", "timevsinsufficient"})
VARIANT_LOSS_CODES = frozenset({"kingofthehill", "threecheck", "bughousepartnerlose"})

_USERNAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,50}$")
_ARCHIVE_URL_RE = re.compile(r"/games/(?P<year>\d{4})/(?P<month>\d{2})/?$")
_BOARD_URL_RE = re.compile(r"/match/(?:live/)?\d+/(?P<board>\d+)/?$")


# ---------------------------------------------------------------- errors


class ChessComError(Exception):
    """Any failure reading Chess.com's published data."""


class RateLimited(ChessComError):
    """HTTP 429: wait ``retry_after`` seconds (never less than a minute) before the next request."""

    def __init__(self, retry_after: float, path: str) -> None:
        super().__init__(f"Chess.com rate-limited GET {path}; retry after {retry_after:.0f} s")
        self.retry_after = retry_after


class TransientError(ChessComError):
    """5xx, timeout or dropped connection: the same request may succeed later."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class NotFound(ChessComError):
    """HTTP 404 or 410: the match, board, player or month does not exist (410: never ask again)."""


class BadResponse(ChessComError):
    """An answer that is not the JSON shape the PubAPI documents; nothing is read from it."""


# ---------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class BoardSlot:
    """One board of our match: the Chess.com accounts of its White and Black players."""

    board_no: int
    white_account: str
    black_account: str


@dataclass(frozen=True, slots=True)
class MappedResult:
    """A Chess.com game's outcome from White's side, and whether an arbiter must look at it."""

    result: GameResult
    needs_arbiter: bool = False
    note: str = ""


@dataclass(frozen=True, slots=True)
class ImportedGame:
    """The importer's proposal for one board.

    ``url`` is None when no single game could be matched; then ``result`` is always PENDING. A
    result with ``needs_arbiter`` is only a suggestion: it must not be recorded without an arbiter.
    """

    board_no: int
    result: GameResult
    url: str | None
    pgn: str | None
    end_time: datetime | None
    needs_arbiter: bool
    note: str

    @property
    def matched(self) -> bool:
        return self.url is not None


def _unmatched(board_no: int, note: str, *, needs_arbiter: bool) -> ImportedGame:
    return ImportedGame(board_no, GameResult.PENDING, None, None, None, needs_arbiter, note)


# ---------------------------------------------------------------- result mapping (pure)


def map_result(white_code: str | None, black_code: str | None) -> MappedResult:
    """Map the two per-player result codes of a Chess.com game to our result from White's side.

    ``abandoned`` becomes a forfeit loss flagged for the arbiter (played or not is the arbiter's call,
    C.07 Art. 15); variant codes keep their winner but are flagged; anything inconsistent is PENDING.
    """
    white = (white_code or "").strip().lower()
    black = (black_code or "").strip().lower()
    if not white and not black:
        return MappedResult(GameResult.PENDING, note="game not finished")
    known = WIN_CODES | LOSS_CODES | DRAW_CODES
    unknown = [code for code in (white, black) if code and code not in known]
    if unknown:
        return MappedResult(
            GameResult.PENDING, True, f"unknown Chess.com result code {unknown[0]!r}; not guessed"
        )
    if white in WIN_CODES and black in LOSS_CODES:
        return _decisive(GameResult.WHITE_WINS, GameResult.WHITE_WINS_FORFEIT, "Black", black)
    if black in WIN_CODES and white in LOSS_CODES:
        return _decisive(GameResult.BLACK_WINS, GameResult.BLACK_WINS_FORFEIT, "White", white)
    if white in DRAW_CODES and black in DRAW_CODES:
        if white == black:
            return MappedResult(GameResult.DRAW)
        return MappedResult(
            GameResult.DRAW, True, f"draw with differing codes {white!r}/{black!r}; please confirm"
        )
    return MappedResult(
        GameResult.PENDING,
        True,
        f"inconsistent Chess.com result codes white={white or '-'!s} black={black or '-'!s}; not guessed",
    )


def _decisive(played: GameResult, forfeit: GameResult, loser: str, code: str) -> MappedResult:
    if code == "abandoned":
        return MappedResult(
            forfeit,
            True,
            f"{loser} abandoned the game: proposed as a forfeit; the arbiter decides whether it was played",
        )
    if code in VARIANT_LOSS_CODES:
        return MappedResult(played, True, f"variant result code {code!r}: not a standard chess game")
    return MappedResult(played)


# ---------------------------------------------------------------- HTTP client


class ChessComClient:
    """Sequential GETs against the PubAPI; every answer is a parsed JSON object or a ChessComError."""

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        user_agent: str = "",
        client: httpx.Client | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        if "@" not in user_agent and "http" not in user_agent:
            # PubAPI asks for a User-Agent with contact details so they can reach us before blocking.
            raise ValueError("the Chess.com User-Agent must include a contact (an e-mail address or URL)")
        self.base_url = base_url.rstrip("/")
        self._headers = {"User-Agent": user_agent, "Accept": "application/json"}
        self._owns_client = client is None
        self._client = client if client is not None else httpx.Client(timeout=timeout_s)

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> ChessComClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- endpoints

    def get_match(self, match_id: int, *, live: bool = False) -> dict[str, Any]:
        """A team match (``/pub/match/{id}``, or ``/pub/match/live/{id}``)."""
        return self._get(f"{_match_path(match_id, live)}", f"team match {match_id}")

    def get_match_board(self, match_id: int, board: int, *, live: bool = False) -> dict[str, Any]:
        """One board of a team match: ``board_scores`` and its (up to two) games."""
        if board < 1:
            raise ValueError(f"board numbers start at 1, not {board}")
        data = self._get(f"{_match_path(match_id, live)}/{board}", f"board {board} of team match {match_id}")
        _require_list(data, "games", f"board {board} of team match {match_id}")
        return data

    def get_archives(self, username: str) -> list[tuple[int, int]]:
        """The (year, month) pairs for which the player has a monthly archive, oldest first."""
        user = _checked_username(username)
        what = f"game archives of player {username!r}"
        data = self._get(f"/pub/player/{user}/games/archives", what)
        months = []
        for url in _require_list(data, "archives", what):
            match = _ARCHIVE_URL_RE.search(url) if isinstance(url, str) else None
            if match is None:
                raise BadResponse(f"Chess.com {what}: unreadable archive URL {url!r}")
            months.append((int(match["year"]), int(match["month"])))
        return sorted(months)

    def get_month_games(self, username: str, year: int, month: int) -> list[dict[str, Any]]:
        """Finished games of a player that ended in that month (UTC), oldest first."""
        if not 1 <= month <= 12:
            raise ValueError(f"month must be 1..12, not {month}")
        user = _checked_username(username)
        what = f"games of player {username!r} in {year:04d}-{month:02d}"
        data = self._get(f"/pub/player/{user}/games/{year:04d}/{month:02d}", what)
        games = _require_list(data, "games", what)
        for game in games:
            _players(game, what)  # every game must at least name its two players
        return games

    # -- transport

    def _get(self, path: str, what: str) -> dict[str, Any]:
        try:
            response = self._client.get(self.base_url + path, headers=self._headers, follow_redirects=True)
        except httpx.TimeoutException as exc:
            raise TransientError(f"Chess.com timed out on {what} ({type(exc).__name__})") from exc
        except httpx.TransportError as exc:
            raise TransientError(f"Chess.com unreachable for {what} ({type(exc).__name__})") from exc
        status = response.status_code
        if status == 429:
            raise RateLimited(_retry_after(response), path)
        if status in (404, 410):
            raise NotFound(f"Chess.com has no {what} (HTTP {status} on GET {path}); check the id or name")
        if status >= 500:
            raise TransientError(f"Chess.com answered HTTP {status} for {what}", status)
        if status != 200:
            raise ChessComError(f"Chess.com answered HTTP {status} for {what} (GET {path})")
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BadResponse(f"Chess.com sent something that is not JSON for {what} (GET {path})") from exc
        if not isinstance(data, dict):
            raise BadResponse(f"Chess.com sent JSON that is not an object for {what} (GET {path})")
        return data


def _match_path(match_id: int, live: bool) -> str:
    if match_id < 1:
        raise ValueError(f"a Chess.com match id is a positive number, not {match_id}")
    return f"/pub/match/live/{match_id}" if live else f"/pub/match/{match_id}"


def _checked_username(username: str) -> str:
    if not _USERNAME_RE.match(username):
        raise ValueError(f"{username!r} is not a Chess.com username")
    return username.lower()  # the PubAPI wants usernames in lower case


def _retry_after(response: httpx.Response) -> float:
    raw = response.headers.get("Retry-After", "")
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0  # absent, an HTTP date, or an HTML error page: fall back to the minimum
    return max(seconds, MIN_RATE_LIMIT_WAIT_S)


def _require_list(data: dict[str, Any], key: str, what: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise BadResponse(f"Chess.com {what}: expected a {key!r} list in the answer")
    return value


def _players(game: Any, what: str) -> tuple[str, str]:
    """Lower-cased White and Black usernames of a game, or BadResponse."""
    names = []
    for colour in ("white", "black"):
        side = game.get(colour) if isinstance(game, dict) else None
        name = side.get("username") if isinstance(side, dict) else None
        if not isinstance(name, str) or not name:
            raise BadResponse(f"Chess.com {what}: a game without a {colour} username")
        names.append(name.lower())
    return names[0], names[1]


def _end_time(game: dict[str, Any], what: str) -> datetime | None:
    raw = game.get("end_time")
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise BadResponse(f"Chess.com {what}: unreadable end_time {raw!r}")
    return datetime.fromtimestamp(raw, UTC)


# ---------------------------------------------------------------- importer


class ChessComImporter:
    """Fill a match's boards from Chess.com data; one ``ImportedGame`` per board, in the given order."""

    def __init__(self, client: ChessComClient) -> None:
        self.client = client

    def import_team_match(
        self, match_id: int, boards: Sequence[BoardSlot], *, live: bool = False
    ) -> list[ImportedGame]:
        """Take each board's game from a Chess.com team match (two games per board: ours is the one
        where our White had White)."""
        match = self.client.get_match(match_id, live=live)
        what = f"team match {match_id}"
        status = match.get("status")
        if status == "registration":
            return [_unmatched(s.board_no, f"{what} has not started", needs_arbiter=False) for s in boards]
        roster = _match_roster(match, what)
        board_count = match.get("boards")
        board_cache: dict[int, dict[str, Any]] = {}

        def board(number: int) -> dict[str, Any]:
            if number not in board_cache:
                board_cache[number] = self.client.get_match_board(match_id, number, live=live)
            return board_cache[number]

        out = []
        for slot in boards:
            white, black = slot.white_account.lower(), slot.black_account.lower()
            missing = [
                acc
                for acc, key in ((slot.white_account, white), (slot.black_account, black))
                if key not in roster
            ]
            if missing:
                out.append(
                    _unmatched(
                        slot.board_no, f"{', '.join(missing)} not playing in {what}", needs_arbiter=True
                    )
                )
                continue
            (w_team, w_boards, w_codes), (b_team, b_boards, _) = roster[white], roster[black]
            if w_team == b_team:
                out.append(
                    _unmatched(
                        slot.board_no,
                        f"{slot.white_account} and {slot.black_account} play for the same team in {what}",
                        needs_arbiter=True,
                    )
                )
                continue
            candidates = sorted(w_boards & b_boards)
            if not w_boards or not b_boards:
                # No board URL in the roster (seen on some live matches): look board by board.
                candidates = [
                    n
                    for n in _board_numbers(board_count, what)
                    if {white, black} <= _board_usernames(board(n), f"board {n} of {what}")
                ]
            if len(candidates) != 1:
                note = (
                    f"{slot.white_account} and {slot.black_account} are not paired in {what}"
                    if not candidates
                    else f"{slot.white_account} and {slot.black_account} meet on boards {candidates} "
                    f"of {what}"
                )
                out.append(_unmatched(slot.board_no, note, needs_arbiter=True))
                continue
            number = candidates[0]
            out.append(
                self._pick_board_game(slot, board(number), f"board {number} of {what}", status, w_codes)
            )
        return out

    def _pick_board_game(
        self, slot: BoardSlot, data: dict[str, Any], what: str, status: Any, w_codes: dict[str, str]
    ) -> ImportedGame:
        white, black = slot.white_account.lower(), slot.black_account.lower()
        games = [g for g in _require_list(data, "games", what) if _players(g, what) == (white, black)]
        if len(games) > 1:
            return _unmatched(
                slot.board_no,
                f"{len(games)} games with {slot.white_account} as White on {what}; not guessed",
                needs_arbiter=True,
            )
        if not games:
            if status == "finished":
                return _unmatched(
                    slot.board_no, f"no game with {slot.white_account} as White on {what}", needs_arbiter=True
                )
            return _unmatched(
                slot.board_no,
                f"game with {slot.white_account} as White not started on {what}",
                needs_arbiter=False,
            )
        imported = _imported(slot.board_no, games[0], what)
        if status == "finished" and not imported.result.is_final and not imported.needs_arbiter:
            imported = _flag(imported, "the match is finished but this game has no result")
        # The match record can differ from the game after a fair-play adjustment by Chess.com.
        recorded = w_codes.get("played_as_white")
        game_code = (games[0]["white"].get("result") or "").lower()
        if recorded and game_code and recorded.lower() != game_code:
            return _flag(
                imported,
                f"the match record says {recorded!r} for White but the game says "
                f"{game_code!r} (fair-play adjustment?)",
            )
        return imported

    def import_from_archives(
        self,
        boards: Sequence[BoardSlot],
        start: datetime,
        end: datetime,
        time_class: str = "rapid",
    ) -> list[ImportedGame]:
        """Find each board's game in its White player's monthly archives: the game between the two
        accounts, with those colours, of that time class, ending inside [start, end]."""
        if start.tzinfo is None or end.tzinfo is None:
            raise ValueError("start and end must be timezone-aware datetimes")
        if end < start:
            raise ValueError("the window ends before it starts")
        start_ts, end_ts = start.timestamp(), end.timestamp()
        months = list(_months(start.astimezone(UTC), end.astimezone(UTC)))
        archive_cache: dict[str, set[tuple[int, int]]] = {}
        month_cache: dict[tuple[str, int, int], list[dict[str, Any]]] = {}

        out = []
        for slot in boards:
            white, black = slot.white_account.lower(), slot.black_account.lower()
            if white not in archive_cache:
                archive_cache[white] = set(self.client.get_archives(slot.white_account))
            wanted: list[tuple[dict[str, Any], str]] = []
            reversed_colours: list[tuple[dict[str, Any], str]] = []
            for year, month in months:
                if (year, month) not in archive_cache[white]:
                    continue
                key = (white, year, month)
                if key not in month_cache:
                    month_cache[key] = self.client.get_month_games(slot.white_account, year, month)
                what = f"games of {slot.white_account!r} in {year:04d}-{month:02d}"
                for game in month_cache[key]:
                    pair = _players(game, what)
                    if {pair[0], pair[1]} != {white, black} or game.get("time_class") != time_class:
                        continue
                    ended = game.get("end_time")
                    if not isinstance(ended, int) or isinstance(ended, bool):
                        raise BadResponse(f"Chess.com {what}: a game without a readable end_time")
                    if not start_ts <= ended <= end_ts:
                        continue
                    (wanted if pair == (white, black) else reversed_colours).append((game, what))
            if len(wanted) == 1:
                game, what = wanted[0]
                out.append(_imported(slot.board_no, game, what))
            elif wanted:
                urls = ", ".join(str(g.get("url")) for g, _ in wanted)
                out.append(
                    _unmatched(
                        slot.board_no,
                        f"{len(wanted)} {time_class} games with "
                        f"{slot.white_account} as White in the window: {urls}; not guessed",
                        needs_arbiter=True,
                    )
                )
            elif reversed_colours:
                urls = ", ".join(str(g.get("url")) for g, _ in reversed_colours)
                out.append(
                    _unmatched(
                        slot.board_no,
                        f"only found with colours reversed ({slot.black_account} as White): {urls}",
                        needs_arbiter=True,
                    )
                )
            else:
                out.append(
                    _unmatched(
                        slot.board_no,
                        f"no {time_class} game {slot.white_account}–"
                        f"{slot.black_account} in the window yet (archives lag up to a day)",
                        needs_arbiter=False,
                    )
                )
        return out


def _imported(board_no: int, game: dict[str, Any], what: str) -> ImportedGame:
    white_side, black_side = game["white"], game["black"]
    mapped = map_result(white_side.get("result"), black_side.get("result"))
    url = game.get("url")
    if not isinstance(url, str) or not url:
        raise BadResponse(f"Chess.com {what}: a game without a url")
    pgn = game.get("pgn") if isinstance(game.get("pgn"), str) else None
    imported = ImportedGame(
        board_no=board_no,
        result=mapped.result,
        url=url,
        pgn=pgn,
        end_time=_end_time(game, what),
        needs_arbiter=mapped.needs_arbiter,
        note=mapped.note,
    )
    rules = game.get("rules", "chess")
    if rules != "chess":
        imported = _flag(imported, f"played with rules {rules!r}, not standard chess")
    return imported


def _flag(game: ImportedGame, note: str) -> ImportedGame:
    joined = f"{game.note}; {note}" if game.note else note
    return ImportedGame(game.board_no, game.result, game.url, game.pgn, game.end_time, True, joined)


def _match_roster(match: dict[str, Any], what: str) -> dict[str, tuple[str, set[int], dict[str, str]]]:
    """username (lower) -> (team key, board numbers from the board URLs, played_as_* codes)."""
    teams = match.get("teams")
    if not isinstance(teams, dict) or not teams:
        raise BadResponse(f"Chess.com {what}: expected a 'teams' object")
    roster: dict[str, tuple[str, set[int], dict[str, str]]] = {}
    for team_key, team in teams.items():
        if not isinstance(team, dict):
            raise BadResponse(f"Chess.com {what}: team {team_key!r} is not an object")
        for player in _require_list(team, "players", f"{what}, team {team_key!r}"):
            name = player.get("username") if isinstance(player, dict) else None
            if not isinstance(name, str) or not name:
                raise BadResponse(f"Chess.com {what}: a player without a username in team {team_key!r}")
            numbers: set[int] = set()
            board_url = player.get("board")
            if isinstance(board_url, str):
                found = _BOARD_URL_RE.search(board_url)
                if found is None:
                    raise BadResponse(f"Chess.com {what}: unreadable board URL {board_url!r}")
                numbers.add(int(found["board"]))
            codes = {k: v for k, v in player.items() if k.startswith("played_as_") and isinstance(v, str)}
            key = name.lower()
            if key in roster and roster[key][0] != team_key:
                raise BadResponse(f"Chess.com {what}: {name!r} is listed in both teams")
            previous = roster.get(key, (team_key, set(), {}))
            roster[key] = (team_key, previous[1] | numbers, {**previous[2], **codes})
    return roster


def _board_numbers(count: Any, what: str) -> range:
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise BadResponse(f"Chess.com {what}: unreadable number of boards {count!r}")
    return range(1, count + 1)


def _board_usernames(data: dict[str, Any], what: str) -> set[str]:
    names: set[str] = set()
    for game in _require_list(data, "games", what):
        names.update(_players(game, what))
    scores = data.get("board_scores")
    if isinstance(scores, dict):
        names.update(str(k).lower() for k in scores)
    return names


def _months(start: datetime, end: datetime) -> Iterator[tuple[int, int]]:
    year, month = start.year, start.month
    while (year, month) <= (end.year, end.month):
        yield year, month
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
