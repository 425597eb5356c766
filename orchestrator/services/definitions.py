"""The one place that reads an event's stored definition file (docs/event-file.md).

The stored YAML text is parsed once and the frozen ``EventDefinition`` kept, per event, under the digest of
the text the event row carries (``Event.definition_digest``): pages, jobs and use cases that ask again get
the same object without reading the text or parsing it again, and a definition that is stored anew (a new
digest) is read anew. The cache is bounded (least recently used goes first) and
also keeps a failed parse, so a stored file that no longer validates is not parsed on every request.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass

from orchestrator.adapters.tables import Event, definition_digest
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import EventDefinition
from orchestrator.errors import Conflict
from orchestrator.eventfile import EventDefinitionError, Problem, parse_event
from orchestrator.translation import gettext as _

log = logging.getLogger(__name__)

CACHE_SIZE = 32  # events whose parsed definition is kept (a 163-team definition is about 1 MB parsed)


class DefinitionUnavailable(Conflict):
    """An event has no stored definition, or the stored one no longer validates (the reader got stricter)."""

    def __init__(self, message: str, problems: tuple[Problem, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


@dataclass(frozen=True, slots=True)
class CacheStats:
    """How often a stored definition was parsed and how often the parsed one was reused."""

    parses: int
    hits: int
    size: int


class _DefinitionCache:
    """Parsed definitions (or the error of a failed parse) by (event id, digest of the stored text)."""

    def __init__(self, maxsize: int) -> None:
        self._maxsize = maxsize
        self._entries: OrderedDict[tuple[int, str], EventDefinition | EventDefinitionError] = OrderedDict()
        self._lock = threading.Lock()
        self.parses = 0
        self.hits = 0

    def get(self, event_id: int, digest: str) -> EventDefinition | EventDefinitionError | None:
        """The parse kept for this event and digest, or None."""
        key = (event_id, digest)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
            return found

    def parse(
        self, event_id: int, digest: str, text: str, source: str
    ) -> EventDefinition | EventDefinitionError:
        """Parse ``text`` and keep the result under ``digest`` (``get`` found nothing there)."""
        key = (event_id, digest)
        with self._lock:
            self.parses += 1
        parsed: EventDefinition | EventDefinitionError
        try:
            parsed = parse_event(text, source=source)  # outside the lock: other events are not held up
        except EventDefinitionError as error:
            log.warning("the stored definition of event %s no longer validates", event_id)
            parsed = error
        with self._lock:
            self._entries[key] = parsed
            self._entries.move_to_end(key)
            while len(self._entries) > self._maxsize:
                self._entries.popitem(last=False)
        return parsed

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(parses=self.parses, hits=self.hits, size=len(self._entries))


_cache = _DefinitionCache(CACHE_SIZE)


def cache_stats() -> CacheStats:
    """The cache's counters since the process started (the tests read them to see what was parsed)."""
    return _cache.stats()


def definition_of(event: Event) -> EventDefinition:
    """The event's definition; ``DefinitionUnavailable`` (409) when it has none or it no longer validates.

    The event's text is read from the database only when its digest is not in the cache (a deferred
    column: ``Event.definition_text``), so ``event`` must still belong to an open unit of work then.
    """
    event_id = event.id or 0
    digest = event.definition_digest or definition_digest(event.definition_text)  # none stored: the text's
    parsed = _cache.get(event_id, digest)
    if parsed is None:
        text = event.definition_text
        if not text.strip():
            raise DefinitionUnavailable(_("%(event)s has no event definition file") % {"event": event.name})
        parsed = _cache.parse(event_id, digest, text, f"{event.slug}.yaml")
    if isinstance(parsed, EventDefinitionError):
        raise DefinitionUnavailable(
            _("the stored definition of %(slug)s no longer validates: %(problems)s")
            % {"slug": event.slug, "problems": parsed},
            parsed.problems,
        )
    return parsed


def definition_or_none(event: Event) -> EventDefinition | None:
    """The event's definition, or None when it has none or it no longer validates (callers use defaults)."""
    try:
        return definition_of(event)
    except DefinitionUnavailable:
        return None


def event_zone(event: Event) -> str:
    """The event file's ``timezone``, the zone its messages name times in (UTC without a readable file)."""
    definition = definition_or_none(event)
    return definition.timezone if definition is not None else "UTC"


WARM_EVENTS = 8  # definitions a starting worker process reads before its first job (``warm_definitions``)


def warm_definitions(uow: UnitOfWork, *, limit: int = WARM_EVENTS) -> int:
    """Read the definitions of the events in play (not closed; the newest ``limit``) into this process's
    cache; returns how many were read. A worker process calls this before its first job, so that the first
    round it runs does not parse the event file in the middle of its chain (a 350-team file takes about a
    quarter of a second: docs/performance.md). A definition that no longer validates is kept as such."""
    read = 0
    for event in uow.events.events_in_play(limit):
        if event.definition_text.strip():
            definition_or_none(event)
            read += 1
    return read


def event_definition(uow: UnitOfWork, event_id: int) -> EventDefinition:
    """The definition of event ``event_id`` (NotFound, DefinitionUnavailable as ``definition_of``)."""
    return definition_of(uow.events.get_or_raise(Event, event_id))
