"""The unit of work builds each repository on first use in an entry, on that entry's session
(docs/architecture.md, "The unit of work")."""

from __future__ import annotations

from orchestrator.adapters.repo_events import EventRepository
from orchestrator.adapters.uow import UnitOfWork


class FakeSession:
    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def close(self) -> None: ...


def test_a_repository_is_built_once_per_entry_on_that_entrys_session() -> None:
    sessions: list[FakeSession] = []

    def factory() -> FakeSession:
        sessions.append(FakeSession())
        return sessions[-1]

    uow = UnitOfWork(factory)  # type: ignore[arg-type]
    with uow:
        assert "events" not in vars(uow)  # nothing built until a use case needs it
        first = uow.events
        assert isinstance(first, EventRepository) and uow.events is first
        assert first.session is sessions[0]
    with uow:
        assert uow.events is not first and uow.events.session is sessions[1]
        assert "rounds" not in vars(uow)
