"""The game-server protocol's errors, request and answer data, and the reading of its JSON answers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import SecretStr

# ---------------------------------------------------------------- errors


class GameServerError(Exception):
    """Any failure talking to the game server."""


class RateLimited(GameServerError):
    """HTTP 429: wait ``retry_after`` seconds (never less than a minute) before the next request."""

    def __init__(self, retry_after: float, message: str = "rate limited by the game server") -> None:
        super().__init__(f"{message}; retry after {retry_after:.0f} s")
        self.retry_after = retry_after


class TransientError(GameServerError):
    """5xx, timeout, dropped connection: try again later."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class NotFound(GameServerError):
    """HTTP 404 (unknown bulk, bulk not paired yet for start-clocks)."""


class Unauthorized(GameServerError):
    """HTTP 401/403: the organiser token is missing, revoked or lacks a scope."""


class RequestRejected(GameServerError):
    """Another 4xx answer; retrying the same request will not help."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


@dataclass(frozen=True, slots=True)
class RejectedPlayer:
    """A player named by a rejected bulk, and why."""

    player_id: str
    account: str
    reason: str


class BulkRejected(GameServerError):
    """HTTP 400 on bulk pairing: nothing was created. ``players`` must re-link their accounts."""

    def __init__(self, message: str, players: Sequence[RejectedPlayer] = (), error: str = "") -> None:
        super().__init__(message)
        self.players = tuple(players)
        self.error = error

    @property
    def player_ids(self) -> tuple[str, ...]:
        return tuple(p.player_id for p in self.players)


# ---------------------------------------------------------------- request and answer data


@dataclass(frozen=True, slots=True)
class PlayerLink:
    """A player's linked game-server account; the token never shows in repr or str."""

    player_id: str
    account: str
    token: SecretStr = field(repr=False)

    def __str__(self) -> str:
        return f"{self.player_id} ({self.account})"


@dataclass(frozen=True, slots=True)
class Pairing:
    white: PlayerLink
    black: PlayerLink


@dataclass(frozen=True, slots=True)
class BulkSpec:
    """Bulk pairing options; ``white_limit_s``/``black_limit_s`` are the stand-in's unequal clocks."""

    clock_limit_s: int
    clock_increment_s: int = 0
    pair_at: datetime | int | None = None
    start_clocks_at: datetime | int | None = None
    rated: bool = False
    variant: str = "standard"
    rules: tuple[str, ...] = ("noAbort",)
    message: str | None = None
    white_limit_s: int | None = None
    black_limit_s: int | None = None


@dataclass(frozen=True, slots=True)
class BulkGame:
    id: str
    white: str
    black: str


@dataclass(frozen=True, slots=True)
class Bulk:
    id: str
    games: tuple[BulkGame, ...]
    pair_at: int | None
    start_clocks_at: int | None
    paired_at: int | None
    scheduled_at: int | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class SkippedLine:
    """An NDJSON line that could not be read; ``excerpt`` is its first characters."""

    line_number: int
    reason: str
    excerpt: str


@dataclass(slots=True)
class ExportResult:
    """Games read from an export; ``missing`` ids were asked for and not returned (or unreadable)."""

    games: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[SkippedLine] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def epoch_ms(value: datetime | int | None) -> int | None:
    """A time as the API takes it, milliseconds since the epoch; None stays None."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return int(value.timestamp() * 1000)
    return int(value)


def parse_ndjson_line(line: str, line_number: int) -> dict[str, Any] | SkippedLine | None:
    """One NDJSON line as a game dict, a SkippedLine when unreadable, or None for keep-alive blanks."""
    text = line.strip()
    if not text:
        return None
    excerpt = text[:60]
    try:
        value = json.loads(text)
    except ValueError:
        return SkippedLine(line_number, "not valid JSON (truncated?)", excerpt)
    if not isinstance(value, dict):
        return SkippedLine(line_number, "not a JSON object", excerpt)
    game_id = value.get("id")
    if not isinstance(game_id, str) or not game_id:
        return SkippedLine(line_number, "no game id", excerpt)
    if "status" not in value:
        return SkippedLine(line_number, "no status", excerpt)
    return value


# ---------------------------------------------------------------- answers


def bulk_from_json(body: Any) -> Bulk:
    """A bulk pairing answer as a ``Bulk``; an unreadable answer is a TransientError."""
    if not isinstance(body, dict) or not isinstance(body.get("id"), str):
        raise TransientError("bulk pairing: unreadable answer")
    games = tuple(
        BulkGame(str(g.get("id")), str(g.get("white")), str(g.get("black")))
        for g in body.get("games") or []
        if isinstance(g, dict)
    )
    return Bulk(
        id=body["id"],
        games=games,
        pair_at=body.get("pairAt"),
        start_clocks_at=body.get("startClocksAt"),
        paired_at=body.get("pairedAt"),
        scheduled_at=body.get("scheduledAt"),
        raw=body,
    )


def _scrub(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def bulk_rejection(body: Any, pairings: Sequence[Pairing]) -> BulkRejected:
    """A 400 body as BulkRejected naming players, never tokens (the body echoes raw tokens)."""
    links = [link for pairing in pairings for link in (pairing.white, pairing.black)]
    by_token = {link.token.get_secret_value(): link for link in links}
    by_account = {link.account.lower(): link for link in links}
    secrets = list(by_token)
    rejected: list[RejectedPlayer] = []
    if not isinstance(body, dict):
        return BulkRejected("bulk pairing rejected (400) with an unreadable answer")
    tokens = body.get("tokens")
    if isinstance(tokens, dict):
        unknown = 0
        for token, why in tokens.items():
            reason = _scrub(str(why), secrets)
            link = by_token.get(str(token))
            if link is None:
                unknown += 1
                continue
            rejected.append(RejectedPlayer(link.player_id, link.account, reason))
        names = "; ".join(f"{p.player_id} ({p.account}): {p.reason}" for p in rejected)
        extra = f"; {unknown} token(s) we did not send" if unknown else ""
        return BulkRejected(
            f"bulk pairing rejected: these players must re-link their game-server account: {names}{extra}",
            rejected,
            "tokens",
        )
    duplicates = body.get("duplicateUsers")
    if isinstance(duplicates, list):
        for name in duplicates:
            link = by_account.get(str(name).lower())
            if link is not None:
                rejected.append(RejectedPlayer(link.player_id, link.account, "paired more than once"))
        names = ", ".join(str(p) for p in rejected) or ", ".join(_scrub(str(n), secrets) for n in duplicates)
        return BulkRejected(
            f"bulk pairing rejected: players paired twice: {names}", rejected, "duplicateUsers"
        )
    error = body.get("error")
    if isinstance(error, str):
        return BulkRejected(f"bulk pairing rejected: {_scrub(error, secrets)}", (), error)
    return BulkRejected(f"bulk pairing rejected: {_scrub(json.dumps(body)[:300], secrets)}", (), "form")
