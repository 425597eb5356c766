"""The unit of work: one session, one commit, and tasks sent only after that commit (docs/architecture.md,
habit 4).

    with UnitOfWork() as uow:
        board = uow.boards.update_versioned(...)
        uow.after_commit(push_update, board.match_id)   # runs only if the commit succeeds

Leaving the block normally commits once; an exception rolls back and drops the queued callables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import cached_property
from types import TracebackType
from typing import Any, Self

from sqlmodel import Session

from orchestrator.adapters.repo_accounts import AccountRepository
from orchestrator.adapters.repo_audit import AuditRepository
from orchestrator.adapters.repo_backup import BackupRepository
from orchestrator.adapters.repo_boards import BoardRepository
from orchestrator.adapters.repo_events import EventRepository
from orchestrator.adapters.repo_lots import LotRepository
from orchestrator.adapters.repo_outbox import OutboxRepository
from orchestrator.adapters.repo_playoff import PlayoffRepository
from orchestrator.adapters.repo_read import ReadRepository
from orchestrator.adapters.repo_rounds import RoundRepository
from orchestrator.adapters.repo_teams import TeamRepository
from orchestrator.adapters.repositories import RowLocks
from orchestrator.config import Settings
from orchestrator.db import SessionFactory, get_session_factory

log = logging.getLogger(__name__)


class UnitOfWorkError(RuntimeError):
    pass


class Transaction:
    """A token naming one entry of a unit of work (a key for what is gathered per transaction)."""

    __slots__ = ("__weakref__",)


class UnitOfWork:
    """Owns one transaction; one repository per aggregate is an attribute (``uow.events``, ``uow.rounds``
    ...), created on first use in each entry (docs/architecture.md, "The unit of work").

    Services reach the database only through these repositories and ``flush``, ``refresh`` and
    ``expire_all`` below, never through ``session`` (tests/unit/test_import_graph.py checks it).
    """

    session: Session
    transaction: Transaction

    # Every repository is a cached_property: built on first use, dropped when the unit of work is entered
    # again, so an entry builds only the repositories its use case needs.
    _REPOSITORIES = (
        "events",
        "teams",
        "rounds",
        "boards",
        "playoff",
        "lots",
        "accounts",
        "outbox",
        "audit",
        "locks",
        "read",
        "backup",
    )

    def __init__(self, session_factory: SessionFactory | None = None, *, settings: Settings | None = None):
        self._session_factory = session_factory or get_session_factory(settings)
        self._after_commit: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []
        self._active = False
        self.committed = False

    def __enter__(self) -> Self:
        if self._active:
            raise UnitOfWorkError("a unit of work cannot be entered twice; pass it to the service instead")
        self._active = True
        self.committed = False
        self._after_commit = []
        for name in self._REPOSITORIES:
            self.__dict__.pop(name, None)
        self.session = self._session_factory()
        self.transaction = Transaction()
        return self

    # --- one repository per aggregate --------------------------------------------------------------------

    @cached_property
    def events(self) -> EventRepository:
        return EventRepository(self.session)

    @cached_property
    def teams(self) -> TeamRepository:
        return TeamRepository(self.session)

    @cached_property
    def rounds(self) -> RoundRepository:
        return RoundRepository(self.session)

    @cached_property
    def boards(self) -> BoardRepository:
        return BoardRepository(self.session)

    @cached_property
    def playoff(self) -> PlayoffRepository:
        return PlayoffRepository(self.session)

    @cached_property
    def lots(self) -> LotRepository:
        return LotRepository(self.session)

    @cached_property
    def accounts(self) -> AccountRepository:
        return AccountRepository(self.session)

    @cached_property
    def outbox(self) -> OutboxRepository:
        return OutboxRepository(self.session)

    @cached_property
    def audit(self) -> AuditRepository:
        return AuditRepository(self.session)

    @cached_property
    def locks(self) -> RowLocks:
        return RowLocks(self.session)

    @cached_property
    def read(self) -> ReadRepository:
        return ReadRepository(self.session)

    @cached_property
    def backup(self) -> BackupRepository:
        return BackupRepository(self.session)

    # --- the session's own steps a use case may need ------------------------------------------------------

    def flush(self) -> None:
        """Write the queued rows now (their ids, a constraint checked before the next step)."""
        self.session.flush()

    def refresh(self, row: Any) -> None:
        """Read ``row`` again from the database."""
        self.session.refresh(row)

    def expire_all(self) -> None:
        """Forget every row read so far: the next use reads it again."""
        self.session.expire_all()

    @property
    def database_url(self) -> str:
        """The database this unit of work writes to (a key for per-database caches)."""
        bind: Any = self.session.get_bind()
        return str(bind.url)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        callbacks = self._after_commit
        self._after_commit = []
        try:
            if exc_type is None:
                self.session.commit()
                self.committed = True
            else:
                self.session.rollback()
        except BaseException:
            self.session.rollback()
            raise
        finally:
            self.session.close()
            self._active = False
        if self.committed:
            self._run(callbacks)

    def after_commit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        """Queue ``fn(*args, **kwargs)`` to run once the commit succeeded; dropped on rollback."""
        if not self._active:
            raise UnitOfWorkError("after_commit outside an open unit of work")
        self._after_commit.append((fn, args, kwargs))

    @staticmethod
    def _run(callbacks: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]]) -> None:
        # The data is committed whatever happens here; a failed send is logged (never its arguments,
        # which may carry ids only but could carry more) and the periodic reconciler catches up.
        for fn, args, kwargs in callbacks:
            try:
                fn(*args, **kwargs)
            except Exception:
                log.exception("after-commit callable %s failed", getattr(fn, "__qualname__", repr(fn)))


UnitOfWorkFactory = Callable[[], UnitOfWork]


def unit_of_work_factory(settings: Settings | None = None) -> UnitOfWorkFactory:
    """A factory bound to one database (the web app and workers keep one)."""
    session_factory = get_session_factory(settings)
    return lambda: UnitOfWork(session_factory)
