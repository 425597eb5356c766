"""Lichess-protocol game-server client: bulk pairing, export by ids, stream by ids (docs/rules.md §8).

Works against lichess.org and the project's stand-in server (orchestrator/standin). Every answer is
mapped to the data or one of the errors of lichess_data.py; the retry policy is data (``RetryPolicy``) so
a Celery task can turn it into a countdown. Tokens are secrets: they never reach a log line, a repr or an
error message. One request at a time per account (a lock per token), as the Lichess API asks.
"""

from __future__ import annotations

import email.utils
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from pydantic import SecretStr

from orchestrator.adapters.lichess_data import (
    Bulk,
    BulkGame,
    BulkRejected,
    BulkSpec,
    ExportResult,
    GameServerError,
    NotFound,
    Pairing,
    PlayerLink,
    RateLimited,
    RejectedPlayer,
    RequestRejected,
    SkippedLine,
    TransientError,
    Unauthorized,
    bulk_from_json,
    bulk_rejection,
    epoch_ms,
    parse_ndjson_line,
)
from orchestrator.config import Settings

log = logging.getLogger(__name__)

EXPORT_MAX_IDS = 300  # POST /api/games/export/_ids silently drops ids past 300
STREAM_MAX_IDS = 1000  # POST /api/stream/games/{streamId} with OAuth
MIN_RATE_LIMIT_WAIT_S = 60.0  # Lichess API tips: after a 429, wait a full minute
NDJSON = "application/x-ndjson"

T = TypeVar("T")


# ---------------------------------------------------------------- retry policy


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When to try again after an error; pure data so tasks can use it as a countdown."""

    max_attempts: int = 8
    rate_limit_base_s: float = MIN_RATE_LIMIT_WAIT_S
    transient_base_s: float = 5.0
    factor: float = 2.0
    max_delay_s: float = 15 * 60.0

    def next_retry_delay(self, attempt: int, error: BaseException) -> float | None:
        """Seconds to wait before attempt ``attempt + 1`` (attempts count from 1); None = give up."""
        if attempt >= self.max_attempts:
            return None
        growth = self.factor ** max(0, attempt - 1)
        if isinstance(error, RateLimited):
            backoff = min(self.rate_limit_base_s * growth, self.max_delay_s)
            return max(backoff, error.retry_after, MIN_RATE_LIMIT_WAIT_S)
        if isinstance(error, TransientError):
            return min(self.transient_base_s * growth, self.max_delay_s)
        return None


DEFAULT_RETRY_POLICY = RetryPolicy()


def next_retry_delay(
    attempt: int, error: BaseException, policy: RetryPolicy = DEFAULT_RETRY_POLICY
) -> float | None:
    """Seconds to wait before retrying after ``error`` on attempt ``attempt``; None = do not retry."""
    return policy.next_retry_delay(attempt, error)


def call_with_retries(
    call: Callable[[], T],
    *,
    policy: RetryPolicy = DEFAULT_RETRY_POLICY,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call`` until it succeeds, sleeping per ``policy`` after retryable errors."""
    attempt = 1
    while True:
        try:
            return call()
        except GameServerError as error:
            delay = policy.next_retry_delay(attempt, error)
            if delay is None:
                raise
            log.info("game server: %s; retrying in %.0f s (attempt %d)", error, delay, attempt)
            sleep(delay)
            attempt += 1


def _token_key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_locks_guard = threading.Lock()
_account_locks: dict[str, threading.Lock] = {}


def _account_lock(token: str) -> threading.Lock:
    """One lock per account token (keyed by its hash), shared by every client in the process."""
    key = _token_key(token)
    with _locks_guard:
        return _account_locks.setdefault(key, threading.Lock())


def _retry_after_s(response: httpx.Response, floor: float) -> float:
    """Seconds to wait after a 429: Retry-After (seconds or HTTP date) if longer than ``floor``."""
    header = (response.headers.get("Retry-After") or "").strip()
    wait = floor
    if header:
        try:
            wait = max(wait, float(header))
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(header)
            except (TypeError, ValueError):
                when = None
            if when is not None and when.tzinfo is not None:
                wait = max(wait, when.timestamp() - time.time())
    return max(wait, MIN_RATE_LIMIT_WAIT_S)


def _json_or_none(response: httpx.Response) -> Any:
    if "json" not in response.headers.get("content-type", ""):
        return None
    try:
        return response.json()
    except ValueError:
        return None


# ---------------------------------------------------------------- client


class LichessClient:
    """Synchronous Lichess-protocol client; inject ``http`` (an httpx.Client) or ``transport`` in tests."""

    def __init__(
        self,
        base_url: str,
        token: SecretStr | str,
        *,
        timeout_s: float = 10.0,
        rate_limit_wait_s: float = MIN_RATE_LIMIT_WAIT_S,
        http: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token if isinstance(token, SecretStr) else SecretStr(token)
        self.rate_limit_wait_s = max(rate_limit_wait_s, MIN_RATE_LIMIT_WAIT_S)
        self._owns_http = http is None
        self._http = http or httpx.Client(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout_s),
            transport=transport,
            headers={"User-Agent": "olympiad-orchestrator"},
        )

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> LichessClient:
        """A client for ``settings.gameserver_url`` with the organiser token."""
        return cls(
            settings.gameserver_url,
            settings.gameserver_admin_token,
            timeout_s=settings.gameserver_timeout_s,
            rate_limit_wait_s=settings.gameserver_rate_limit_wait_s,
            **kwargs,
        )

    def __repr__(self) -> str:
        return f"LichessClient(base_url={self.base_url!r}, token=***)"

    __str__ = __repr__

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> LichessClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------- plumbing

    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _headers(self, token: SecretStr | None, accept: str = "application/json") -> dict[str, str]:
        secret = (token or self._token).get_secret_value()
        headers = {"Accept": accept}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        return headers

    @contextmanager
    def _send(
        self,
        method: str,
        path: str,
        *,
        token: SecretStr | None = None,
        accept: str = "application/json",
        stream: bool = False,
        lock: bool = True,
        **kwargs: Any,
    ) -> Iterator[httpx.Response]:
        """Send one request under the account lock; map transport failures and 429/5xx to errors."""
        secret = (token or self._token).get_secret_value()
        guard = _account_lock(secret) if lock else threading.Lock()
        with guard:
            request = self._http.build_request(
                method, self._url(path), headers=self._headers(token, accept), **kwargs
            )
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TimeoutException as exc:
                log.warning("game server %s %s timed out", method, path)
                raise TransientError(f"{method} {path} timed out") from exc
            except httpx.TransportError as exc:
                log.warning("game server %s %s failed: %s", method, path, type(exc).__name__)
                raise TransientError(f"{method} {path} failed: {type(exc).__name__}") from exc
            try:
                log.debug("game server %s %s -> %s", method, path, response.status_code)
                if response.status_code == 429:
                    # Some 429 answers are HTML pages from the edge: never parse the body.
                    raise RateLimited(_retry_after_s(response, self.rate_limit_wait_s))
                if response.status_code >= 500:
                    raise TransientError(
                        f"{method} {path}: server error {response.status_code}", response.status_code
                    )
                yield response
            finally:
                response.close()

    def _read(self, response: httpx.Response) -> None:
        try:
            response.read()
        except httpx.TimeoutException as exc:
            raise TransientError("answer timed out while reading") from exc
        except httpx.TransportError as exc:
            raise TransientError(f"answer cut off: {type(exc).__name__}") from exc

    def _check(self, response: httpx.Response, what: str) -> Any:
        """The JSON body of a 2xx answer, or the matching error."""
        self._read(response)
        status = response.status_code
        body = _json_or_none(response)
        if 200 <= status < 300:
            if body is None:
                raise TransientError(f"{what}: unreadable answer")
            return body
        error = body.get("error") if isinstance(body, dict) else None
        detail = f": {error}" if isinstance(error, str) else ""
        if status == 404:
            raise NotFound(f"{what}: not found{detail}")
        if status in (401, 403):
            raise Unauthorized(f"{what}: organiser token refused ({status}){detail}")
        raise RequestRejected(f"{what}: rejected ({status}){detail}", status)

    # -------------------------------------------------------- account

    def account(self, token: SecretStr | str | None = None) -> dict[str, Any]:
        """GET /api/account for ``token`` (default: the organiser); checks a freshly linked token."""
        secret = SecretStr(token) if isinstance(token, str) else token
        with self._send("GET", "/api/account", token=secret) as response:
            return dict(self._check(response, "account"))

    # -------------------------------------------------------- bulk pairing

    def create_bulk(self, pairings: Sequence[Pairing], spec: BulkSpec) -> Bulk:
        """POST /api/bulk-pairing; a 400 naming tokens becomes BulkRejected naming the players."""
        form: dict[str, str] = {
            "players": ",".join(
                f"{p.white.token.get_secret_value()}:{p.black.token.get_secret_value()}" for p in pairings
            ),
            "clock.limit": str(spec.clock_limit_s),
            "clock.increment": str(spec.clock_increment_s),
            "rated": "true" if spec.rated else "false",
            "variant": spec.variant,
        }
        if spec.rules:
            form["rules"] = ",".join(spec.rules)
        for name, value in (("pairAt", spec.pair_at), ("startClocksAt", spec.start_clocks_at)):
            millis = epoch_ms(value)
            if millis is not None:
                form[name] = str(millis)
        if spec.message is not None:
            form["message"] = spec.message
        if spec.white_limit_s is not None or spec.black_limit_s is not None:
            form["clock.whiteLimit"] = str(spec.white_limit_s or spec.clock_limit_s)
            form["clock.blackLimit"] = str(spec.black_limit_s or spec.clock_limit_s)
        with self._send("POST", "/api/bulk-pairing", data=form) as response:
            if response.status_code == 400:
                self._read(response)
                raise bulk_rejection(_json_or_none(response), pairings)
            return bulk_from_json(self._check(response, "bulk pairing"))

    def show_bulk(self, bulk_id: str) -> Bulk:
        """GET /api/bulk-pairing/{id}."""
        with self._send("GET", f"/api/bulk-pairing/{bulk_id}") as response:
            return bulk_from_json(self._check(response, f"bulk {bulk_id}"))

    def list_bulks(self) -> list[Bulk]:
        """GET /api/bulk-pairing (the server answers ``{"bulks": [...]}``, the spec says a list)."""
        with self._send("GET", "/api/bulk-pairing") as response:
            body = self._check(response, "bulk list")
        items = body.get("bulks", []) if isinstance(body, dict) else body
        return [bulk_from_json(item) for item in items]

    def user_games(
        self, username: str, *, vs: str | None = None, since: int | None = None
    ) -> list[dict[str, Any]]:
        """GET /api/games/user/{username}: the player's games (ongoing too) against ``vs`` created since
        ``since`` (ms), without moves; unreadable lines are left out (logged)."""
        params: dict[str, str] = {"moves": "false", "ongoing": "true", "finished": "true", "tags": "false"}
        if vs:
            params["vs"] = vs
        if since is not None:
            params["since"] = str(since)
        with self._send(
            "GET", f"/api/games/user/{username}", accept=NDJSON, stream=True, params=params
        ) as response:
            return [g for _n, _l, g in self._games(response, "user games") if not isinstance(g, SkippedLine)]

    def start_clocks(self, bulk_id: str) -> None:
        """POST /api/bulk-pairing/{id}/start-clocks (NotFound while the bulk is not paired yet)."""
        with self._send("POST", f"/api/bulk-pairing/{bulk_id}/start-clocks") as response:
            self._check(response, f"start clocks of bulk {bulk_id}")

    def cancel_bulk(self, bulk_id: str) -> None:
        """DELETE /api/bulk-pairing/{id}: cancels a bulk not yet paired."""
        with self._send("DELETE", f"/api/bulk-pairing/{bulk_id}") as response:
            self._check(response, f"cancel bulk {bulk_id}")

    # -------------------------------------------------------- export and stream

    def export_games(
        self,
        ids: Iterable[str],
        *,
        moves: bool = True,
        pgn_in_json: bool = False,
        clocks: bool = False,
    ) -> ExportResult:
        """POST /api/games/export/_ids as NDJSON, 300 ids per call; bad lines are skipped and reported."""
        wanted = list(dict.fromkeys(ids))
        result = ExportResult()
        for start in range(0, len(wanted), EXPORT_MAX_IDS):
            chunk = wanted[start : start + EXPORT_MAX_IDS]
            self._export_chunk(chunk, result, moves=moves, pgn_in_json=pgn_in_json, clocks=clocks)
        returned = {game["id"] for game in result.games}
        result.missing = [game_id for game_id in wanted if game_id not in returned]
        return result

    def _export_chunk(
        self, chunk: list[str], result: ExportResult, *, moves: bool, pgn_in_json: bool, clocks: bool
    ) -> None:
        params = {
            "moves": str(moves).lower(),
            "pgnInJson": str(pgn_in_json).lower(),
            "clocks": str(clocks).lower(),
            "tags": "true",
        }
        asked = set(chunk)
        with self._send(
            "POST",
            "/api/games/export/_ids",
            accept=NDJSON,
            stream=True,
            params=params,
            content=",".join(chunk).encode(),
        ) as response:
            for number, line, parsed in self._games(response, "export"):
                if isinstance(parsed, SkippedLine):
                    result.skipped.append(parsed)
                elif parsed["id"] not in asked:
                    result.skipped.append(SkippedLine(number, "game id not asked for", line[:60]))
                else:
                    result.games.append(parsed)

    def _games(
        self, response: httpx.Response, what: str
    ) -> Iterator[tuple[int, str, dict[str, Any] | SkippedLine]]:
        """An NDJSON answer line by line (number, text, game or SkippedLine, logged); blank lines left out."""
        if response.status_code != 200:
            self._check(response, what)
        for number, line in self._lines(response):
            parsed = parse_ndjson_line(line, number)
            if parsed is None:
                continue
            if isinstance(parsed, SkippedLine):
                log.warning("%s: skipped line %d: %s", what, number, parsed.reason)
            yield number, line, parsed

    def _lines(self, response: httpx.Response) -> Iterator[tuple[int, str]]:
        number = 0
        try:
            for line in response.iter_lines():
                number += 1
                yield number, line
        except httpx.TimeoutException as exc:
            raise TransientError("answer timed out while streaming") from exc
        except httpx.TransportError as exc:
            raise TransientError(f"answer cut off: {type(exc).__name__}") from exc

    def stream_games(
        self, stream_id: str, ids: Iterable[str], *, skipped: list[SkippedLine] | None = None
    ) -> Iterator[dict[str, Any]]:
        """POST /api/stream/games/{streamId}: yields game events (GameStreamGame) until closed.

        Not under the account lock: a stream stays open for hours, and Lichess limits streams
        separately (4 per IP). Unreadable lines go to ``skipped`` when given.
        """
        body = ",".join(list(dict.fromkeys(ids))[:STREAM_MAX_IDS]).encode()
        with self._send(
            "POST", f"/api/stream/games/{stream_id}", accept=NDJSON, stream=True, lock=False, content=body
        ) as response:
            for _number, _line, parsed in self._games(response, "stream"):
                if not isinstance(parsed, SkippedLine):
                    yield parsed
                elif skipped is not None:
                    skipped.append(parsed)

    def add_to_stream(self, stream_id: str, ids: Iterable[str]) -> None:
        """POST /api/stream/games/{streamId}/add."""
        body = ",".join(dict.fromkeys(ids)).encode()
        with self._send("POST", f"/api/stream/games/{stream_id}/add", content=body) as response:
            self._check(response, "add to stream")


# The client and, from lichess_data.py, the errors and data (a bulk at most once: lichess_bulk.py).
__all__ = [
    "DEFAULT_RETRY_POLICY",
    "EXPORT_MAX_IDS",
    "MIN_RATE_LIMIT_WAIT_S",
    "NDJSON",
    "STREAM_MAX_IDS",
    "Bulk",
    "BulkGame",
    "BulkRejected",
    "BulkSpec",
    "ExportResult",
    "GameServerError",
    "LichessClient",
    "NotFound",
    "Pairing",
    "PlayerLink",
    "RateLimited",
    "RejectedPlayer",
    "RequestRejected",
    "RetryPolicy",
    "SkippedLine",
    "TransientError",
    "Unauthorized",
    "call_with_retries",
    "next_retry_delay",
    "parse_ndjson_line",
]
