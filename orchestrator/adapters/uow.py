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
from typing import Any, Generic, Self, TypeVar, overload

from sqlmodel import Session

from orchestrator.adapters.repo_accounts import AccountRepository
from orchestrator.adapters.repo_adjustments import AdjustmentRepository
from orchestrator.adapters.repo_audit import AuditRepository
from orchestrator.adapters.repo_backup import BackupRepository
from orchestrator.adapters.repo_boards import BoardRepository
from orchestrator.adapters.repo_events import EventRepository
from orchestrator.adapters.repo_lots import LotRepository
from orchestrator.adapters.repo_outbox import OutboxRepository
from orchestrator.adapters.repo_outlook import OutlookRepository
from orchestrator.adapters.repo_playoff import PlayoffRepository
from orchestrator.adapters.repo_read import ReadRepository
from orchestrator.adapters.repo_record import RecordRepository
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


RepositoryT = TypeVar("RepositoryT")


class _Repository(Generic[RepositoryT]):
    """A repository attribute of the unit of work, built on first use in an entry.

    The built repository is stored in the unit of work's ``__dict__`` under the attribute's name, where
    Python finds it before this descriptor; ``__enter__`` drops it, so each entry builds only the
    repositories its use case needs, on its own session. (``functools.cached_property`` does the same but
    takes a lock shared by every unit of work of the process on Python 3.11.)
    """

    def __init__(self, build: Callable[[Session], RepositoryT]) -> None:
        self._build = build
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, uow: None, owner: type) -> Self: ...

    @overload
    def __get__(self, uow: UnitOfWork, owner: type) -> RepositoryT: ...

    def __get__(self, uow: UnitOfWork | None, owner: type) -> Self | RepositoryT:
        if uow is None:
            return self
        repository = self._build(uow.session)
        uow.__dict__[self.name] = repository
        return repository


class UnitOfWork:
    """Owns one transaction; one repository per aggregate is an attribute (``uow.events``, ``uow.rounds``
    ...), created on first use in each entry (docs/architecture.md, "The unit of work").

    Services reach the database only through these repositories and ``flush``, ``refresh`` and
    ``expire_all`` below, never through ``session`` (tests/unit/test_services_reach_no_session.py).
    """

    session: Session
    transaction: Transaction

    # --- one repository per aggregate --------------------------------------------------------------------

    events = _Repository(EventRepository)
    teams = _Repository(TeamRepository)
    rounds = _Repository(RoundRepository)
    boards = _Repository(BoardRepository)
    playoff = _Repository(PlayoffRepository)
    lots = _Repository(LotRepository)
    accounts = _Repository(AccountRepository)
    outbox = _Repository(OutboxRepository)
    audit = _Repository(AuditRepository)
    locks = _Repository(RowLocks)
    read = _Repository(ReadRepository)
    backup = _Repository(BackupRepository)
    record = _Repository(RecordRepository)
    chances = _Repository(OutlookRepository)
    adjustments = _Repository(AdjustmentRepository)

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
        for name in _REPOSITORY_NAMES:  # the repositories of the last entry held its closed session
            self.__dict__.pop(name, None)
        self.session = self._session_factory()
        self.transaction = Transaction()
        return self

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
        """Run the queued callables in order. A callable with a ``batched`` form (``fn.batched``, taking the
        list of every call's ``(args, kwargs)``) is called once, where its first call was queued: a commit
        that announces hundreds of live messages sends them together, not one at a time."""
        # The data is committed whatever happens here; a failed send is logged (never its arguments,
        # which may carry ids only but could carry more) and the periodic reconciler catches up.
        groups: dict[Callable[..., Any], list[tuple[tuple[Any, ...], dict[str, Any]]]] = {}
        for fn, args, kwargs in callbacks:
            if getattr(fn, "batched", None) is not None:
                groups.setdefault(fn, []).append((args, kwargs))
        for fn, args, kwargs in callbacks:
            batched = getattr(fn, "batched", None)
            group = groups.pop(fn, None) if batched is not None else None
            if batched is not None and group is None:
                continue  # run with the first call of its batch
            try:
                if batched is not None:
                    batched(group)
                else:
                    fn(*args, **kwargs)
            except Exception:
                log.exception("after-commit callable %s failed", getattr(fn, "__qualname__", repr(fn)))


_REPOSITORY_NAMES = tuple(name for name, value in vars(UnitOfWork).items() if isinstance(value, _Repository))

UnitOfWorkFactory = Callable[[], UnitOfWork]


def unit_of_work_factory(settings: Settings | None = None) -> UnitOfWorkFactory:
    """A factory bound to one database (the web app and workers keep one)."""
    session_factory = get_session_factory(settings)
    return lambda: UnitOfWork(session_factory)
