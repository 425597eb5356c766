"""Creating a round's bulk pairing at most once, across timeouts and task retries (docs/gameserver.md).

After a timeout or 5xx the answer may be lost while the bulk exists: the game server may even carry the
request out much later, when it resumes. Before another attempt the earlier bulk is looked for by its
pairings and clock, whatever its state: in the organiser's bulk list while it is scheduled, else among
the players' games (Lichess drops a bulk from the list once its games are paired and clocked).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from orchestrator.adapters.lichess import DEFAULT_RETRY_POLICY, LichessClient, RetryPolicy
from orchestrator.adapters.lichess_data import (
    Bulk,
    BulkGame,
    BulkRejected,
    BulkSpec,
    GameServerError,
    NotFound,
    Pairing,
    RateLimited,
    TransientError,
    epoch_ms,
)

log = logging.getLogger(__name__)

SAME_TIME_ERROR = "A bulk containing the same players is scheduled at the same time"
# A lost request's games are looked for from this long before it was sent (the two clocks may differ by
# that much; longer would reach back to an earlier round's games in an event played at speed).
EARLIER_SLACK_MS = 5_000


def bulk_matches(
    bulk: Bulk,
    pairings: Sequence[Pairing],
    pair_at: int | None = None,
    clock: tuple[int, int] | None = None,
) -> bool:
    """True when ``bulk`` pairs exactly these accounts with these colours (and at ``pair_at``, with the
    clock ``(limit, increment)`` in seconds, if given)."""
    if pair_at is not None and bulk.pair_at != pair_at:
        return False
    if clock is not None and _bulk_clock(bulk) not in (None, clock):
        return False
    ours = sorted((p.white.account.lower(), p.black.account.lower()) for p in pairings)
    theirs = sorted((g.white.lower(), g.black.lower()) for g in bulk.games)
    return ours == theirs


def _bulk_clock(bulk: Bulk) -> tuple[int, int] | None:
    clock = bulk.raw.get("clock") if isinstance(bulk.raw, dict) else None
    if not isinstance(clock, dict):
        return None
    try:
        return int(clock["limit"]), int(clock["increment"])
    except (KeyError, TypeError, ValueError):
        return None


def _game_matches(game: dict[str, Any], pairing: Pairing, spec: BulkSpec) -> bool:
    """A game of a player's export is this pairing's, colours and clock included."""
    players = game.get("players") or {}

    def name(side: str) -> str:
        user = (players.get(side) or {}).get("user") or {}
        return str(user.get("id") or user.get("name") or players.get(side, {}).get("userId") or "").lower()

    clock = game.get("clock") or {}
    return (
        name("white") == pairing.white.account.lower()
        and name("black") == pairing.black.account.lower()
        and clock.get("initial", spec.white_limit_s or spec.clock_limit_s)
        == (spec.white_limit_s or spec.clock_limit_s)
        and clock.get("increment", spec.clock_increment_s) == spec.clock_increment_s
    )


def _unknown(_game_id: str) -> bool:
    return False


def find_earlier_bulk(
    client: LichessClient,
    pairings: Sequence[Pairing],
    spec: BulkSpec,
    since: datetime | int | None = None,
    known: Callable[[str], bool] = _unknown,
    listing: Sequence[Bulk] | None = None,
) -> Bulk | None:
    """The bulk an earlier request for exactly these pairings and clock created, whatever its state.

    First the organiser's bulk list (any ``pairAt``: a retry may compute another). Lichess drops a bulk
    from that list once its games are paired and their clocks started, so when ``since`` (the earliest
    moment the earlier request can have been carried out) is given, the players' games created since then
    are searched too: a game of the first pairing with these colours and clock means the bulk exists, and
    every pairing's game is then read the same way. Such a bulk has no known id; it is named after its
    first game (``games-<id>``), and only its games are used. A game ``known`` says the database already
    holds (an earlier round's, when two players meet again with the same colours and clock within the
    window) is never one of the lost bulk's. ``listing``: the organiser's bulk list as the caller has just
    read it (not asked for again).
    """
    clock = (spec.clock_limit_s, spec.clock_increment_s)
    for bulk in client.list_bulks() if listing is None else listing:
        if bulk_matches(bulk, pairings, clock=clock):
            log.info("bulk %s for these pairings already exists: reusing it", bulk.id)
            return bulk
    since_ms = epoch_ms(since)
    if since_ms is None or not pairings:
        return None
    found: list[BulkGame] = []
    created: list[int] = []
    for pairing in pairings:
        try:
            listed = client.user_games(pairing.white.account, vs=pairing.black.account, since=since_ms)
        except NotFound:
            log.warning("the game server cannot list a player's games: an earlier bulk cannot be looked for")
            return None
        games = [g for g in listed if _game_matches(g, pairing, spec) and not known(str(g["id"]))]
        if not games:
            if found:
                raise GameServerError(
                    f"an earlier bulk holds {len(found)} of these {len(pairings)} games: an arbiter must look"
                )
            return None
        first = min(games, key=lambda g: (int(g.get("createdAt") or 0), str(g["id"])))
        found.append(BulkGame(str(first["id"]), pairing.white.account, pairing.black.account))
        created.append(int(first.get("createdAt") or 0))
    log.warning("bulk for these pairings was created by a lost request (game %s): reusing it", found[0].id)
    return Bulk(
        id=f"games-{found[0].id}",
        games=tuple(found),
        pair_at=None,
        start_clocks_at=None,
        paired_at=min(created),
        scheduled_at=None,
        raw={},
    )


def ensure_bulk(
    client: LichessClient,
    pairings: Sequence[Pairing],
    spec: BulkSpec,
    *,
    policy: RetryPolicy = DEFAULT_RETRY_POLICY,
    sleep: Callable[[float], None] = time.sleep,
    earlier_since: datetime | int | None = None,
    clock: Callable[[], float] = time.time,
    known: Callable[[str], bool] = _unknown,
    listing: Sequence[Bulk] | None = None,
) -> Bulk:
    """Create a bulk with retries, never twice: after a timeout or 5xx the answer may be lost while the
    bulk exists (the server may even carry the request out much later, on resuming), so before each new
    attempt the earlier bulk is looked for by its pairings and clock, whatever its state
    (``find_earlier_bulk``). ``earlier_since``: an earlier call (another task run) may have sent the
    request since then, so look before the first attempt too. ``known``: the games the database already
    holds, which no lost bulk can hold. ``listing``: the bulk list the caller has just read, used by the
    first look instead of reading it again (a retry reads it anew).
    """
    since_ms = epoch_ms(earlier_since)
    if since_ms is not None:
        since_ms -= EARLIER_SLACK_MS
    attempt = 1
    uncertain = since_ms is not None
    while True:
        try:
            read, listing = listing, None  # an attempt after this one reads the list again
            if uncertain:
                earlier = find_earlier_bulk(client, pairings, spec, since_ms, known, read)
                if earlier is not None:
                    return earlier
            if since_ms is None:
                since_ms = int(clock() * 1000) - EARLIER_SLACK_MS
            return client.create_bulk(pairings, spec)
        except TransientError as error:
            uncertain = True
            delay = policy.next_retry_delay(attempt, error)
            if delay is None:
                raise
            sleep(delay)
        except RateLimited as error:
            delay = policy.next_retry_delay(attempt, error)
            if delay is None:
                raise
            sleep(delay)
        except BulkRejected as error:
            # The lost first attempt may be what blocks this one ("same players at the same time").
            if not uncertain or error.error != SAME_TIME_ERROR or attempt >= policy.max_attempts:
                raise
        attempt += 1
