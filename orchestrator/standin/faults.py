"""Fault injection for the stand-in server, switched on by settings (docs/gameserver.md).

``standin_faults`` is a comma list of kinds; each request (HTTP kinds), export line (truncate) or game
(game kinds) draws once against ``standin_fault_rate`` from generators seeded by ``standin_seed``; the
HTTP kinds that fire take turns.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from random import Random

HTTP_FAULTS = ("429", "500", "slow")
LINE_FAULTS = ("truncate",)
GAME_FAULTS = ("aborted", "nostart")
KNOWN_FAULTS = frozenset(HTTP_FAULTS + LINE_FAULTS + GAME_FAULTS)
GAME_STATUS = {"aborted": "aborted", "nostart": "noStart"}

RATE_LIMIT_PAGE = (
    "<!DOCTYPE html><html><head><title>429 Too Many Requests</title></head>"
    "<body><h1>Too Many Requests</h1><p>Please slow down.</p></body></html>"
)


def parse_faults(text: str) -> frozenset[str]:
    """The fault kinds of a ``standin_faults`` setting; unknown names are an error."""
    kinds = frozenset(part.strip().lower() for part in text.split(",") if part.strip())
    unknown = kinds - KNOWN_FAULTS
    if unknown:
        raise ValueError(f"unknown stand-in fault(s) {sorted(unknown)}; known: {sorted(KNOWN_FAULTS)}")
    return kinds


@dataclass
class FaultPlan:
    """Which faults are on, how often, and the seeded generator that decides each draw."""

    kinds: frozenset[str]
    rate: float
    seed: int
    slow_s: float = 12.0
    freeze_on: set[tuple[str, str]] = field(default_factory=set)  # (method, path): admin-armed, once
    _rng: Random = field(init=False, repr=False)
    _fired: dict[tuple[str, ...], int] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = Random(f"{self.seed}/faults")

    @classmethod
    def from_text(cls, text: str, rate: float, seed: int, slow_s: float = 12.0) -> FaultPlan:
        return cls(parse_faults(text), rate, seed, slow_s)

    def _draw(self, options: tuple[str, ...]) -> str | None:
        enabled = [kind for kind in options if kind in self.kinds]
        if not enabled or self.rate <= 0:
            return None
        with self._lock:
            if self._rng.random() >= self.rate:
                return None
            # The kinds take turns (429, then 500, then slow, ...): a short run that draws a few faults
            # meets every enabled kind, whatever the number of requests its timing made.
            fired = self._fired.get(options, 0)
            self._fired[options] = fired + 1
            return enabled[fired % len(enabled)]

    def http_fault(self) -> str | None:
        """ "429", "500", "slow" or None for one API request."""
        return self._draw(HTTP_FAULTS)

    def retry_after(self) -> str | None:
        """Half the injected 429s carry a Retry-After header (Lichess itself sends none)."""
        with self._lock:
            return str(self._rng.randrange(61, 121)) if self._rng.random() < 0.5 else None

    def truncate_line(self, line: str) -> str:
        """The line cut short (at a seeded point) when the truncate fault fires, else unchanged."""
        if self._draw(LINE_FAULTS) is None or len(line) < 2:
            return line
        with self._lock:
            return line[: self._rng.randrange(1, len(line) - 1)]

    def game_fault(self, game_id: str) -> str | None:
        """ "aborted" or "noStart" for a new game, decided by the game id so replays agree."""
        enabled = [kind for kind in GAME_FAULTS if kind in self.kinds]
        if not enabled or self.rate <= 0:
            return None
        rng = Random(f"{self.seed}/{game_id}/fault")
        if rng.random() >= self.rate:
            return None
        return GAME_STATUS[rng.choice(enabled)]

    def take_freeze(self, method: str, path: str) -> bool:
        """True once for the first request to ``method path`` after the admin armed it (``/_standin/freeze``):
        the server then stops its own process before handling it, as a paused or unreachable game server."""
        key = (method.upper(), path)
        with self._lock:
            if key not in self.freeze_on:
                return False
            self.freeze_on.discard(key)
            return True
