"""Who notify.scan asks to link their game-server account (``TeamRepository.players_to_link``, SQLite).

Players with an address and no working link, in published or running events only; the events are read
first so that a scan between events asks for no player (docs/workers.md, "Idle ticks").
"""

from __future__ import annotations

from sqlalchemy import event as sa_event

from orchestrator.adapters.tables import Event, EventStatus, LinkStatus, Player, PlayerLink, Team
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory


def _event(uow: UnitOfWork, status: EventStatus) -> tuple[int, int]:
    event = uow.events.insert(Event(slug=status.value, name=f"The {status.value} event", status=status.value))
    team = Team(event_id=event.id or 0, name=f"{status.value} team", federation="NOR", seed=1)
    uow.session.add(team)
    uow.flush()
    return event.id or 0, team.id or 0


def _player(
    uow: UnitOfWork, event_team: tuple[int, int], name: str, *, email: str | None, link: str | None
) -> None:
    event_id, team_id = event_team
    player = Player(
        event_id=event_id,
        team_id=team_id,
        name=name,
        account=name.lower(),
        sex="m",
        birth_year=1990,
        rating=2000,
        category="open",
        email=email,
    )
    uow.session.add(player)
    uow.flush()
    if link is not None:
        uow.session.add(PlayerLink(player_id=player.id or 0, status=link))
        uow.flush()


def test_players_with_an_address_and_no_working_link_in_published_and_running_events(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        events = {status: _event(uow, status) for status in EventStatus}
        for status, event_team in events.items():
            kind = status.value
            _player(uow, event_team, f"{kind}-never", email=f"{kind}-never@example.org", link=None)
            _player(
                uow, event_team, f"{kind}-missing", email=f"{kind}-m@example.org", link=LinkStatus.MISSING
            )
            _player(
                uow, event_team, f"{kind}-refused", email=f"{kind}-r@example.org", link=LinkStatus.REFUSED
            )
            _player(uow, event_team, f"{kind}-linked", email=f"{kind}-l@example.org", link=LinkStatus.LINKED)
            _player(uow, event_team, f"{kind}-no-address", email=None, link=None)
    with uow_factory() as uow:
        rows = uow.teams.players_to_link()
        found = [(player.name, team.name, event.name) for player, team, event in rows]
    assert found == [
        (f"{kind}-{who}", f"{kind} team", f"The {kind} event")
        for kind in ("published", "running")
        for who in ("never", "missing", "refused")
    ]


def test_with_no_published_or_running_event_no_player_is_read(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        for status in (EventStatus.DRAFT, EventStatus.CLOSED):
            _player(uow, _event(uow, status), f"{status.value}-never", email="x@example.org", link=None)
    statements: list[str] = []
    with uow_factory() as uow:
        engine = uow.session.get_bind()

        def seen(conn, cursor, statement, *_):  # type: ignore[no-untyped-def]
            statements.append(statement)

        sa_event.listen(engine, "before_cursor_execute", seen)
        try:
            assert uow.teams.players_to_link() == []
        finally:
            sa_event.remove(engine, "before_cursor_execute", seen)
    assert len(statements) == 1 and "FROM event" in statements[0] and "player" not in statements[0]
