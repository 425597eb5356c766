"""Which message for which change, preferences honoured, and no message queued twice (docs/notifications.md).

The event (tests/support/notify.py): 4 teams in one pool, rounds at 09:00, 10:30 and 12:00 UTC on
2024-03-02 (10:00, 11:30, 13:00 Europe/Oslo), no lineup deadline of their own (a lineup is due at the
round's start). Norway's captain has an address; Sweden's has one and turned "lineup open" off; Denmark's
has none; Finland has no captain.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from jinja2 import UndefinedError
from sqlmodel import col, select

from orchestrator.adapters.tables import (
    Appeal,
    AppealStatus,
    Board,
    Event,
    EventStatus,
    Lineup,
    Match,
    Outbox,
    Player,
)
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.notify.compose import compose, when, zone_of
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.notify.triggers import scan
from orchestrator.services.queue import NOTIFY_SEND
from tests.support.notify import NotifyEvent, notify_event

ROUND_1 = datetime(2024, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def event(uow_factory: UnitOfWorkFactory, sent: list) -> NotifyEvent:
    return notify_event(uow_factory)


def _scan(factory: UnitOfWorkFactory, settings: Settings, now: datetime) -> dict[str, int]:
    with factory() as uow:
        return scan(uow, now=now, settings=settings).queued


def _rows(factory: UnitOfWorkFactory) -> list[Outbox]:
    with factory() as uow:
        rows = list(uow.session.exec(select(Outbox).order_by(col(Outbox.id))).all())
        for row in rows:
            uow.session.expunge(row)
        return rows


def _match_of(factory: UnitOfWorkFactory, round_id: int, team_id: int) -> Match:
    with factory() as uow:
        for match in uow.rounds.matches_of_round(round_id):
            if team_id in (match.first_team_id, match.second_team_id):
                uow.session.expunge(match)
                return match
    raise AssertionError("team plays no match in that round")


def test_an_hour_before_round_1_captains_hear_that_lineups_are_open_and_pairings_published(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    queued = _scan(uow_factory, settings, ROUND_1 - timedelta(hours=1))
    # lineup open: 3 rounds within the 24 h window, 1 match each for Norway = 3 mails; Sweden turned the
    # kind off, Denmark has no address, Finland no captain. Pairings: the stage start, Norway + Sweden = 2.
    assert queued == {"lineup_open": 3, "pairings": 2}
    rows = _rows(uow_factory)
    assert Counter((r.recipient, r.kind) for r in rows) == {
        ("nor@example.org", "lineup_open"): 3,
        ("nor@example.org", "pairings"): 1,
        ("swe@example.org", "pairings"): 1,
    }
    assert all(r.status == "queued" and r.attempts == 0 for r in rows)
    assert sorted(ids for name, ids in sent if name == NOTIFY_SEND) == sorted((r.id,) for r in rows)
    first = next(r for r in rows if r.kind == "lineup_open")
    assert first.subject == "Norway: lineup for Round 1 is open"
    # 09:00 UTC is 10:00 in Oslo (UTC+1 in March): the time is the event's, with UTC beside it.
    assert "Deadline: Sat 2 Mar 2024, 10:00 Europe/Oslo (09:00 UTC)." in first.body_text
    assert (
        f"/captain/matches/{_match_of(uow_factory, event.rounds[0].id or 0, 1).id}/lineup" in first.body_text
    )
    pairings = next(r for r in rows if r.kind == "pairings" and r.recipient == "swe@example.org")
    assert pairings.body_text.count("against") == 3  # one line per round of the stage


def test_ten_minutes_before_the_deadline_the_lineup_is_due_unless_submitted(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    norway_match = _match_of(uow_factory, event.rounds[0].id or 0, event.teams["Norway"])
    with uow_factory() as uow:
        uow.teams.insert(
            Lineup(match_id=norway_match.id or 0, team_id=event.teams["Norway"], submitted_by="cap-nor")
        )
    _scan(uow_factory, settings, ROUND_1 - timedelta(minutes=10))
    due = [r for r in _rows(uow_factory) if r.kind == "lineup_due"]
    # Round 1 is 10 min away (≤ 15 min): due. Norway submitted; Sweden's captain did not (and only turned
    # "lineup open" off), Denmark has no address: one mail, to Sweden.
    assert [(r.recipient, r.subject) for r in due] == [
        ("swe@example.org", "Sweden: lineup for Round 1 is due at 10:00 Europe/Oslo")
    ]


def test_a_second_scan_queues_nothing_again(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    now = ROUND_1 - timedelta(hours=1)
    first = _scan(uow_factory, settings, now)
    before = [(r.id, r.key) for r in _rows(uow_factory)]
    assert _scan(uow_factory, settings, now) == {}
    assert _scan(uow_factory, settings, now + timedelta(minutes=1)) == {}
    assert [(r.id, r.key) for r in _rows(uow_factory)] == before
    assert len(before) == sum(first.values())
    assert len({key for _, key in before}) == len(before)


def test_turning_a_kind_off_stops_it_and_an_empty_address_stops_everything(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    from orchestrator.adapters.tables import User

    with uow_factory() as uow:
        nor = uow.session.exec(select(User).where(User.username == "cap-nor")).one()
        nor.notify_off = ["pairings"]
        swe = uow.session.exec(select(User).where(User.username == "cap-swe")).one()
        swe.email = None
    _scan(uow_factory, settings, ROUND_1 - timedelta(hours=1))
    assert Counter((r.recipient, r.kind) for r in _rows(uow_factory)) == {
        ("nor@example.org", "lineup_open"): 3
    }


def test_with_no_captain_to_mail_a_scan_reads_no_change_and_queues_no_captain_mail(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    """Every mail but "link your account" goes to captains: with no captain who has an address the scan
    leaves the audit log alone (docs/notifications.md), and mails again once one has an address."""
    from sqlalchemy import event as sa_event

    from orchestrator.adapters.tables import User

    with uow_factory() as uow:
        for captain in uow.session.exec(select(User).where(col(User.email).is_not(None))).all():
            captain.email = None
        engine = uow.session.get_bind().engine
    seen: list[str] = []

    def record(_conn, _cursor, statement, _parameters, _context, _many) -> None:
        seen.append(statement)

    sa_event.listen(engine, "before_cursor_execute", record)
    try:
        _scan(uow_factory, settings, ROUND_1 - timedelta(hours=1))
    finally:
        sa_event.remove(engine, "before_cursor_execute", record)
    assert seen and not [sql for sql in seen if "audit_log" in sql]
    assert not [r for r in _rows(uow_factory) if r.kind != Kind.LINK_ACCOUNT.value]
    with uow_factory() as uow:
        uow.session.exec(select(User).where(User.username == "cap-nor")).one().email = "nor@example.org"
    _scan(uow_factory, settings, ROUND_1 - timedelta(hours=1))
    assert {(r.recipient, r.kind) for r in _rows(uow_factory) if r.kind != Kind.LINK_ACCOUNT.value} == {
        ("nor@example.org", "lineup_open"),
        ("nor@example.org", "pairings"),
    }


def test_a_corrected_result_and_a_decided_appeal_reach_both_teams_captains(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    match = _match_of(uow_factory, event.rounds[0].id or 0, event.teams["Norway"])
    with uow_factory() as uow:
        board = uow.session.exec(select(Board).where(Board.match_id == match.id, Board.board_no == 2)).one()
        uow.audit.record(
            actor="arbiter",
            action="board.correction",
            entity="board",
            entity_id=board.id,
            old={"result": "1-0"},
            new={"result": "0-1"},
            reason="wrong result entered",
        )
        appeal = uow.rounds.insert(
            Appeal(
                match_id=match.id or 0,
                deadline_at=ROUND_1,
                status=AppealStatus.REJECTED.value,
                decision="The game ended normally.",
            )
        )
        uow.audit.change(appeal, "appeal.decide", actor="arbiter")
    _scan(uow_factory, settings, ROUND_1 + timedelta(hours=3))  # after round 3: no lineup mail
    rows = [r for r in _rows(uow_factory) if r.kind in ("result_corrected", "appeal_decided")]
    opponent = "Sweden" if event.teams["Sweden"] in (match.first_team_id, match.second_team_id) else "other"
    # Norway's captain always; the opponent's only if it is Sweden (Denmark's captain has no address).
    expected = 2 if opponent == "Sweden" else 1
    assert Counter(r.kind for r in rows) == {"result_corrected": expected, "appeal_decided": expected}
    corrected = next(r for r in rows if r.kind == "result_corrected" and r.recipient == "nor@example.org")
    assert "Before: 1-0\nNow: 0-1\nReason: wrong result entered" in corrected.body_text
    decided = next(r for r in rows if r.kind == "appeal_decided")
    assert "was rejected" in decided.body_text and "The game ended normally." in decided.body_text


def test_a_player_with_an_address_is_asked_once_to_link_their_account(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    with uow_factory() as uow:
        player = uow.session.exec(select(Player).where(Player.team_id == event.teams["Finland"])).first()
        assert player is not None
        player.email = "player@example.org"
        name, account = player.name, player.account
        assert uow.events.get_or_raise(Event, event.event_id).status == EventStatus.RUNNING.value
    now = ROUND_1 + timedelta(hours=3)
    assert _scan(uow_factory, settings, now)["link_account"] == 1  # (besides the stage's pairings)
    assert _scan(uow_factory, settings, now) == {}
    (row,) = [r for r in _rows(uow_factory) if r.kind == "link_account"]
    assert row.recipient == "player@example.org"
    assert f"Hello {name}," in row.body_text and account in row.body_text
    assert f"Link your account: {settings.public_base_url}/link/" in row.body_text


def test_a_template_missing_a_fact_is_an_error_not_an_empty_sentence() -> None:
    with pytest.raises(UndefinedError, match="is undefined"):
        compose(Kind.LINEUP_DUE, {"team_name": "A", "round_name": "Round 1", "stage_name": "Group"})


def test_the_html_part_escapes_what_the_text_holds() -> None:
    facts = {
        "event_name": "Cup",
        "team_name": "<b>A</b>",
        "account_url": "http://x/account",
        "match_name": "A v B",
        "round_name": "Round 1",
        "stage_name": "Group",
        "outcome": "upheld",
        "decision": "x < y & z",
    }
    mail = compose(Kind.APPEAL_DECIDED, facts, link="http://x/m")
    assert "x < y & z" in mail.text
    assert "x &lt; y &amp; z" in mail.html and "<b>A</b>" not in mail.html


def test_times_are_shown_in_the_event_zone_with_utc_beside_them() -> None:
    at = datetime(2024, 7, 1, 12, 0, tzinfo=UTC)
    # July: Oslo is UTC+2, so 12:00 UTC is 14:00 there.
    assert when(at, zone_of("Europe/Oslo")) == "Mon 1 Jul 2024, 14:00 Europe/Oslo (12:00 UTC)"
    assert when(at, zone_of("UTC")) == "Mon 1 Jul 2024, 12:00 UTC"
    assert when(at, zone_of("Not/AZone")) == "Mon 1 Jul 2024, 12:00 UTC"


def test_an_armageddon_waiting_for_a_nomination_mails_the_team_that_has_not_nominated(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    from orchestrator.adapters.tables import Armageddon, Duel

    deadline = ROUND_1 + timedelta(days=1, minutes=15)
    with uow_factory() as uow:
        duel = uow.playoff.insert(
            Duel(
                stage_id=event.stage_id,
                key="I",
                round_name="Final",
                first_team_id=event.teams["Norway"],
                second_team_id=event.teams["Sweden"],
            )
        )
        norway_player = uow.session.exec(
            select(Player).where(Player.team_id == event.teams["Norway"])
        ).first()
        assert norway_player is not None
        uow.playoff.insert(
            Armageddon(
                duel_id=duel.id or 0, category="open", deadline_at=deadline, first_nominee_id=norway_player.id
            )
        )
    now = ROUND_1 + timedelta(days=1)
    assert _scan(uow_factory, settings, now).get("armageddon_due") == 1
    (row,) = [r for r in _rows(uow_factory) if r.kind == "armageddon_due"]
    # Norway (first team) nominated already: only Sweden's captain is asked. 09:15 UTC = 10:15 Oslo.
    assert row.recipient == "swe@example.org"
    assert row.subject == "Sweden: nominate your Armageddon player by 10:15 Europe/Oslo"
    assert f"/captain/duels/{duel.id}/armageddon" in row.body_text
    # After the deadline nothing more is asked (the default nominee plays).
    assert _scan(uow_factory, settings, deadline + timedelta(minutes=1)).get("armageddon_due") is None


def test_a_pairing_mail_prints_the_public_records_head_hash(
    uow_factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, sent: list
) -> None:
    _scan(uow_factory, settings, ROUND_1 - timedelta(hours=1))
    with uow_factory() as uow:
        slug = uow.events.get_or_raise(Event, event.event_id).slug
        last = uow.record.last(event.event_id)
    assert last is not None and last.kind == "stage.start"  # the pairings the mail announces are recorded
    pairings = [r for r in _rows(uow_factory) if r.kind == "pairings"]
    assert pairings and all(last.hash in r.body_text for r in pairings)
    assert all(f"/events/{slug}/record" in r.body_text for r in pairings)
