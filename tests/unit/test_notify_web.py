"""The account page, the staff outbox and the team calendar feed over HTTP (auth, CSRF, JSON twins)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from icalendar import Calendar
from sqlmodel import col, select

from orchestrator.adapters.mailer import MailPermanent
from orchestrator.adapters.tables import Armageddon, AuditLog, Duel, Event, Outbox, Player, Role, Stage, User
from orchestrator.services.accounts.users import create_user
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.notify.outbox import deliver, queue_mail
from tests.support.notify import NotifyEvent, notify_event
from tests.support.web import PASSWORD, form_token, login


@pytest.fixture
def app(app: FastAPI) -> FastAPI:
    with app.state.uow_factory() as uow:
        create_user(uow, username="anna", password=PASSWORD, role=Role.ARBITER)
    return app


@pytest.fixture
def event(app: FastAPI) -> NotifyEvent:
    return notify_event(app.state.uow_factory)


@pytest.fixture
def failed_mail(app: FastAPI, sent: list) -> Iterator[int]:
    facts = {"event_name": "Cup", "team_name": "Norway", "account_url": "x", "match_name": "N v S"}
    facts |= {"round_name": "Round 1", "stage_name": "Group", "outcome": "upheld", "decision": "d"}

    class Refusing:
        def describe(self) -> str:
            return "refusing"

        def send(self, message: object) -> None:
            raise MailPermanent("550 5.1.1 no such user")

    with app.state.uow_factory() as uow:
        row = queue_mail(uow, kind=Kind.APPEAL_DECIDED, key="k1", recipient="nor@example.org", facts=facts)
        assert row is not None
        outbox_id = row.id or 0
    with app.state.uow_factory() as uow:
        deliver(uow, outbox_id=outbox_id, mailer=Refusing(), settings=app.state.settings)  # type: ignore[arg-type]
    yield outbox_id


def test_only_staff_see_the_outbox(app: FastAPI, event: NotifyEvent, failed_mail: int) -> None:
    anonymous, _ = login(app, None)
    assert anonymous.get("/staff/outbox").status_code in (302, 303)
    assert anonymous.get("/api/v1/outbox").status_code == 401
    captain, _ = login(app, "cap-nor")
    assert captain.get("/staff/outbox").status_code == 403
    assert captain.get("/api/v1/outbox").status_code == 403
    staff, _ = login(app, "anna")
    page = staff.get("/staff/outbox?status=failed")
    assert page.status_code == 200
    assert "550 5.1.1 no such user" in page.text and "nor@example.org" in page.text
    assert staff.get("/staff/outbox?status=sent").text.count("nor@example.org") == 0
    assert staff.get("/staff/outbox?status=bogus").status_code == 422
    listing = staff.get("/api/v1/outbox", params={"status": "failed"}).json()
    assert [(m["id"], m["status"], m["attempts"]) for m in listing["mails"]] == [(failed_mail, "failed", 1)]
    assert "body_text" not in listing["mails"][0]


def test_sending_a_failed_mail_again_needs_the_csrf_token_and_is_audited(
    app: FastAPI, event: NotifyEvent, failed_mail: int
) -> None:
    staff, token = login(app, "anna")
    assert staff.post(f"/staff/outbox/{failed_mail}/retry").status_code == 403  # no token
    assert staff.post(f"/api/v1/outbox/{failed_mail}/retry").status_code == 403
    page = staff.get("/staff/outbox")
    answer = staff.post(f"/staff/outbox/{failed_mail}/retry", data={"csrf_token": form_token(page.text)})
    assert answer.status_code == 303
    assert staff.get(answer.headers["location"]).text.count(f"Mail {failed_mail} is queued again.") == 1
    # Queued now: the API refuses a second retry with 409.
    again = staff.post(f"/api/v1/outbox/{failed_mail}/retry", headers={"X-CSRF-Token": token})
    assert again.status_code == 409
    with app.state.uow_factory() as uow:
        entries = uow.session.exec(select(AuditLog).where(AuditLog.action == "outbox.retry")).all()
        assert [(e.actor, e.entity_id) for e in entries] == [("anna", failed_mail)]
        assert uow.outbox.get_or_raise(Outbox, failed_mail).status == "queued"


def test_a_captain_sets_an_address_and_turns_kinds_off_on_the_account_page(
    app: FastAPI, event: NotifyEvent
) -> None:
    captain, token = login(app, "cap-den")
    page = captain.get("/account")
    assert page.status_code == 200 and 'name="email"' in page.text
    assert page.text.count('type="checkbox"') == 6 and page.text.count(" checked") == 6
    form = {
        "csrf_token": form_token(page.text),
        "email": "den@example.org",
        "kind": ["lineup_due", "pairings"],
    }
    assert captain.post("/account/notifications", data={"email": "x@example.org"}).status_code == 403
    saved = captain.post("/account/notifications", data=form)
    assert saved.status_code == 303
    again = captain.get(saved.headers["location"]).text
    assert "Saved." in again and 'value="den@example.org"' in again and again.count(" checked") == 2
    twin = captain.get("/api/v1/account/notifications").json()
    assert twin["email"] == "den@example.org"
    assert [k for k, on in twin["kinds"].items() if on] == ["lineup_due", "pairings"]
    bad = captain.post("/account/notifications", data=form | {"email": "not an address"})
    assert bad.status_code == 422 and "name@example.org" in bad.text
    put = captain.put(
        "/api/v1/account/notifications",
        json={"email": "", "off": ["pairings", "no-such-kind"]},
        headers={"X-CSRF-Token": token},
    )
    assert put.status_code == 200 and put.json()["email"] is None and put.json()["kinds"]["pairings"] is False
    assert (
        captain.put(
            "/api/v1/account/notifications", json={"email": "a@@b"}, headers={"X-CSRF-Token": token}
        ).status_code
        == 422
    )
    with app.state.uow_factory() as uow:
        user = uow.session.exec(select(User).where(User.username == "cap-den")).one()
        assert (user.email, user.notify_off) == (None, ["pairings"])
        actions = uow.session.exec(select(AuditLog.action).where(AuditLog.actor == "cap-den")).all()
        assert actions.count("user.notifications") == 2


def test_staff_set_a_players_address_through_the_api(app: FastAPI, event: NotifyEvent) -> None:
    staff, token = login(app, "anna")
    captain, captain_token = login(app, "cap-nor")
    assert (
        captain.put(
            "/api/v1/players/1/email",
            json={"email": "p@example.org"},
            headers={"X-CSRF-Token": captain_token},
        ).status_code
        == 403
    )
    answer = staff.put(
        "/api/v1/players/1/email", json={"email": "p@example.org"}, headers={"X-CSRF-Token": token}
    )
    assert answer.json() == {"player_id": 1, "email": "p@example.org", "language": None}
    answer = staff.put(
        "/api/v1/players/1/email",
        json={"email": "p@example.org", "language": "pt"},
        headers={"X-CSRF-Token": token},
    )
    assert answer.json() == {"player_id": 1, "email": "p@example.org", "language": "pt"}
    kept = staff.put(
        "/api/v1/players/1/email", json={"email": "q@example.org"}, headers={"X-CSRF-Token": token}
    )
    assert kept.json()["language"] == "pt"  # without "language", the stored one is kept
    assert (
        staff.put(
            "/api/v1/players/1/email",
            json={"email": "p@example.org", "language": "xx"},
            headers={"X-CSRF-Token": token},
        ).status_code
        == 422
    )
    assert (
        staff.put(
            "/api/v1/players/1/email", json={"email": "nope"}, headers={"X-CSRF-Token": token}
        ).status_code
        == 422
    )


def _player_of(app: FastAPI, event: NotifyEvent) -> tuple[str, int, str]:
    """The event's slug, the first player of Finland and their name."""
    with app.state.uow_factory() as uow:
        slug = uow.events.get_or_raise(Event, event.event_id).slug
        player = uow.session.exec(
            select(Player).where(Player.team_id == event.teams["Finland"]).order_by(col(Player.id))
        ).first()
        assert player is not None
        return slug, player.id or 0, player.name


def _stored(app: FastAPI, player_id: int) -> tuple[str | None, str | None]:
    with app.state.uow_factory() as uow:
        player = uow.teams.get_or_raise(Player, player_id)
        return player.email, player.language


def test_staff_set_and_clear_a_players_address_on_the_player_links_page(
    app: FastAPI, event: NotifyEvent
) -> None:
    slug, player_id, name = _player_of(app, event)
    staff, _ = login(app, "anna")
    form_url = f"/staff/events/{slug}/players/{player_id}/email"
    links = staff.get(f"/staff/events/{slug}/links")
    assert links.status_code == 200 and f'href="{form_url}"' in links.text
    page = staff.get(form_url)
    assert page.status_code == 200 and name in page.text
    token = form_token(page.text)
    fields = {"csrf_token": token, "expected_email": "", "expected_language": ""}

    answer = staff.post(form_url, data={**fields, "email": "p@example.org", "language": "pt"})
    assert answer.status_code == 303 and answer.headers["location"].startswith(f"/staff/events/{slug}/links?")
    assert _stored(app, player_id) == ("p@example.org", "pt")
    shown = staff.get(answer.headers["location"]).text
    assert "p@example.org" in shown and "Saved the e-mail of" in shown
    # Never on a public page.
    public = TestClient(app).get(f"/events/{slug}/players/{player_id}")
    assert public.status_code == 200 and name in public.text and "p@example.org" not in public.text

    # An address that cannot be one: listed, nothing stored, the typed text kept in the field.
    fields = {"csrf_token": token, "expected_email": "p@example.org", "expected_language": "pt"}
    refused = staff.post(form_url, data={**fields, "email": "nope", "language": "pt"})
    assert refused.status_code == 422
    assert "Please correct the following" in refused.text and "name@example.org" in refused.text
    assert 'value="nope"' in refused.text
    assert _stored(app, player_id) == ("p@example.org", "pt")

    # A form read before someone else's change: refused and says what is stored now.
    stale = {"csrf_token": token, "expected_email": "", "expected_language": ""}
    conflict = staff.post(form_url, data={**stale, "email": "q@example.org", "language": ""})
    assert (
        conflict.status_code == 409 and "changed by someone else" in conflict.text and "anna" in conflict.text
    )
    assert _stored(app, player_id) == ("p@example.org", "pt")

    cleared = staff.post(form_url, data={**fields, "email": "", "language": ""})
    assert cleared.status_code == 303 and _stored(app, player_id) == (None, None)

    with app.state.uow_factory() as uow:
        entries = uow.session.exec(
            select(AuditLog)
            .where(AuditLog.action == "player.email", AuditLog.entity_id == player_id)
            .order_by(col(AuditLog.id))
        ).all()
        assert [(e.actor, e.old, e.new) for e in entries] == [
            ("anna", {"email": None, "language": None}, {"email": "p@example.org", "language": "pt"}),
            ("anna", {"email": "p@example.org", "language": "pt"}, {"email": None, "language": None}),
        ]


def test_only_staff_reach_the_players_address_form(app: FastAPI, event: NotifyEvent) -> None:
    slug, player_id, _ = _player_of(app, event)
    form_url = f"/staff/events/{slug}/players/{player_id}/email"
    captain, captain_token = login(app, "cap-nor")
    assert captain.get(form_url).status_code == 403
    data = {
        "csrf_token": captain_token,
        "email": "x@example.org",
        "expected_email": "",
        "expected_language": "",
    }
    assert captain.post(form_url, data=data).status_code == 403
    anonymous, _ = login(app, None)
    assert anonymous.get(form_url).status_code in (302, 303, 401)
    staff, _ = login(app, "anna")
    assert staff.post(form_url, data={**data, "csrf_token": "forged"}).status_code == 403
    assert staff.get(f"/staff/events/{slug}/players/999999/email").status_code == 404
    assert _stored(app, player_id) == (None, None)


def test_the_team_calendar_lists_rounds_deadlines_and_armageddon_nominations(
    app: FastAPI, event: NotifyEvent
) -> None:
    norway = event.teams["Norway"]
    deadline = datetime(2024, 3, 3, 15, 0, tzinfo=UTC)
    with app.state.uow_factory() as uow:
        stage = uow.events.get_or_raise(Stage, event.stage_id)
        duel = uow.playoff.insert(
            Duel(
                stage_id=stage.id or 0,
                key="I",
                round_name="Final",
                first_team_id=norway,
                second_team_id=event.teams["Sweden"],
            )
        )
        uow.playoff.insert(Armageddon(duel_id=duel.id or 0, category="open", deadline_at=deadline))
    client, _ = login(app, None)
    answer = client.get(f"/teams/{norway}/calendar.ics")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/calendar")
    cal = Calendar.from_ical(answer.content)
    entries = {str(e["summary"]): e for e in cal.walk("VEVENT")}
    # 3 rounds + 3 lineup deadlines + 1 Armageddon nomination.
    assert len(entries) == 7
    round_1 = next(e for s, e in entries.items() if s.startswith("Group, Round 1: Norway v "))
    start = round_1.decoded("dtstart")
    assert start == datetime(2024, 3, 2, 9, 0, tzinfo=UTC)  # 10:00 Oslo
    assert round_1["dtstart"].params["TZID"] == "Europe/Oslo" and start.utcoffset() == timedelta(hours=1)
    lineup = next(e for s, e in entries.items() if s.startswith("Lineup deadline: Group, Round 1"))
    assert lineup.decoded("dtend") == datetime(2024, 3, 2, 9, 0, tzinfo=UTC)  # the round's start
    nomination = entries["Armageddon nomination deadline: Final (I)"]
    assert nomination.decoded("dtend") == deadline
    assert [tz["tzid"] for tz in cal.walk("VTIMEZONE")] == ["Europe/Oslo"]
    # Stable: the same UIDs on every fetch, so a subscribed calendar updates instead of adding copies.
    again = Calendar.from_ical(client.get(f"/teams/{norway}/calendar.ics").content)
    assert sorted(str(e["uid"]) for e in again.walk("VEVENT")) == sorted(
        str(e["uid"]) for e in entries.values()
    )
    assert client.get("/teams/999/calendar.ics").status_code == 404
    # The captain's page links the feed and the account page.
    captain, _ = login(app, "cap-nor")
    home = captain.get("/captain").text
    assert f'href="/teams/{norway}/calendar.ics"' in home and 'href="/account"' in home


def test_staff_may_give_the_captains_address_with_the_invitation(app: FastAPI, event: NotifyEvent) -> None:
    finland = event.teams["Finland"]  # no captain yet
    staff, token = login(app, "anna")
    bad = staff.post(
        f"/staff/teams/{finland}/captain-invitation",
        data={"csrf_token": token, "event_id": str(event.event_id), "email": "no address"},
    )
    assert bad.status_code == 422
    with app.state.uow_factory() as uow:
        assert list(uow.accounts.enabled_captains_of_team(finland)) == []  # refused whole: no account either
    page = staff.post(
        f"/staff/teams/{finland}/captain-invitation",
        data={"csrf_token": token, "event_id": str(event.event_id), "email": "fin@example.org"},
    )
    assert page.status_code == 200 and "/invitation/" in page.text
    with app.state.uow_factory() as uow:
        (captain,) = uow.accounts.enabled_captains_of_team(finland)
        assert captain.email == "fin@example.org"


def test_the_staff_events_page_links_the_outbox(app: FastAPI) -> None:
    staff, _ = login(app, "anna")
    assert 'href="/staff/outbox"' in staff.get("/staff/events").text
