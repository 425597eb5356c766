"""A background thread of the stand-in that renders games for export before anyone asks.

The store hands it game ids when games are planned, start their clocks or end; the thread calls the
store's ``render`` for each, one at a time, in the order given (an id already waiting is not queued
twice). It is a daemon, starts on the first id, stops after ``idle_exit_s`` without work (so a test
process that makes many stand-ins does not keep their threads) and stops for good on ``close``.
While a request ``hold``s it, it starts no new game: the request has the interpreter to itself and
renders what it needs; the thread then finds those games cached. Rendering only fills caches; the export
answers the same, byte for byte, whether it ran or not.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

IDLE_EXIT_S = 10.0


class Prerenderer:
    """A queue of game ids and the daemon thread that renders them with ``render(game_id)``."""

    def __init__(self, render: Callable[[str], None], *, idle_exit_s: float = IDLE_EXIT_S) -> None:
        self._render = render
        self._idle_exit_s = idle_exit_s
        self._cond = threading.Condition()
        self._queue: deque[str] = deque()
        self._queued: set[str] = set()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._busy = False  # the thread is rendering a game
        self._holds = 0  # requests that want the thread to wait

    def submit(self, game_ids: Iterable[str]) -> None:
        """Queue ``game_ids`` (those not waiting already); starts the thread if it is not running."""
        with self._cond:
            if self._closed:
                return
            for game_id in game_ids:
                if game_id not in self._queued:
                    self._queued.add(game_id)
                    self._queue.append(game_id)
            if not self._queue:
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="standin-prerender", daemon=True)
                self._thread.start()
            self._cond.notify_all()  # the thread, not only a wait_idle caller

    @contextmanager
    def hold(self) -> Iterator[None]:
        """While inside, the thread starts no new game (it finishes the one it is rendering)."""
        with self._cond:
            self._holds += 1
        try:
            yield
        finally:
            with self._cond:
                self._holds -= 1
                if not self._holds:
                    self._cond.notify_all()

    def pending(self) -> int:
        """How many ids wait to be rendered."""
        with self._cond:
            return len(self._queue)

    def running(self) -> bool:
        """The thread is alive (it stops when idle and on ``close``)."""
        with self._cond:
            return self._thread is not None

    def wait_idle(self, timeout_s: float) -> bool:
        """Block until nothing is queued or being rendered (tests); False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self, timeout_s: float = 2.0) -> None:
        """Stop taking ids, drop those waiting, and wait for the thread to finish its current game."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._queued.clear()
            thread = self._thread
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)

    def _next(self) -> str | None:
        """The next id, or None when closed or idle too long (the thread then ends)."""
        with self._cond:
            self._busy = False
            if not self._queue:
                self._cond.notify_all()  # wake wait_idle
            while not self._closed and not (self._queue and not self._holds):
                if not self._cond.wait(self._idle_exit_s) and not self._queue:
                    break  # idle too long
            if self._closed or not self._queue:
                self._thread = None
                return None
            game_id = self._queue.popleft()
            self._queued.discard(game_id)
            self._busy = True
            return game_id

    def _run(self) -> None:
        while (game_id := self._next()) is not None:
            try:
                self._render(game_id)
            except Exception:  # pragma: no cover - a bug here must not kill the thread or the server
                log.exception("stand-in: rendering game %s in the background failed", game_id)
