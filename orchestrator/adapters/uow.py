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
from types import TracebackType
from typing import Any, Self

from sqlmodel import Session

from orchestrator.adapters.repo_backup import BackupRepository
from orchestrator.adapters.repo_dashboard import DashboardRepository
from orchestrator.adapters.repo_demo import DemoRepository
from orchestrator.adapters.repo_gameserver import GameserverRepository
from orchestrator.adapters.repo_notify import NotifyRepository
from orchestrator.adapters.repo_playoff import PlayoffRepository
from orchestrator.adapters.repo_public import PublicRepository
from orchestrator.adapters.repo_results import ResultsRepository
from orchestrator.adapters.repo_scheduler import SchedulerRepository
from orchestrator.adapters.repo_setup import SetupRepository
from orchestrator.adapters.repo_swiss import SwissRepository
from orchestrator.adapters.repositories import (
    AuditRepository,
    BoardRepository,
    EventRepository,
    HealthRepository,
    LoginAttemptRepository,
    Repository,
    RowLocks,
    UserRepository,
)
from orchestrator.config import Settings
from orchestrator.db import SessionFactory, get_session_factory

log = logging.getLogger(__name__)


class UnitOfWorkError(RuntimeError):
    pass


class UnitOfWork:
    """Owns one transaction; repositories are attributes (``uow.users``, ``uow.boards`` ...)."""

    session: Session
    repo: Repository
    locks: RowLocks
    users: UserRepository
    login_attempts: LoginAttemptRepository
    audit: AuditRepository
    events: EventRepository
    boards: BoardRepository
    health: HealthRepository
    setup: SetupRepository
    results: ResultsRepository
    public: PublicRepository
    gameserver: GameserverRepository
    playoff: PlayoffRepository
    swiss: SwissRepository
    demo: DemoRepository
    backup: BackupRepository
    dashboard: DashboardRepository
    notify: NotifyRepository

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
        self.session = self._session_factory()
        self.repo = Repository(self.session)
        self.locks = RowLocks(self.session)
        self.users = UserRepository(self.session)
        self.login_attempts = LoginAttemptRepository(self.session)
        self.audit = AuditRepository(self.session)
        self.events = EventRepository(self.session)
        self.boards = BoardRepository(self.session)
        self.health = HealthRepository(self.session)
        self.setup = SetupRepository(self.session)
        self.results = ResultsRepository(self.session)
        self.public = PublicRepository(self.session)
        self.gameserver = GameserverRepository(self.session)
        self.playoff = PlayoffRepository(self.session)
        self.swiss = SwissRepository(self.session)
        self.demo = DemoRepository(self.session)
        self.backup = BackupRepository(self.session)
        self.scheduler = SchedulerRepository(self.session)
        self.dashboard = DashboardRepository(self.session)
        self.notify = NotifyRepository(self.session)
        return self

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

    def flush(self) -> None:
        self.session.flush()

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
