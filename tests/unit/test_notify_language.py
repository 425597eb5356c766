"""Mails in the recipient's language (docs/notifications.md, docs/translations.md): the language a user
keeps (the switch when logged in, the account page and its JSON twin) and the mails written in it.

The event (tests/support/notify.py): round 1 at 09:00 UTC on Saturday 2 March 2024, i.e. 10:00 in the
event's zone Europe/Oslo (UTC+1 in winter); a lineup is due at the round's start. Sweden's captain has an
address and has not submitted a lineup, so ten minutes before round 1 a "lineup due" mail goes to them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI
from sqlmodel import col, select

from orchestrator.adapters.tables import AuditLog, Event, Lineup, Outbox, Player, User
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.notify.compose import compose
from orchestrator.services.notify.kinds import Kind
from orchestrator.services.notify.triggers import scan
from orchestrator.translation import current
from tests.support.notify import NotifyEvent, notify_event
from tests.support.web import form_token, login

ROUND_1 = datetime(2024, 3, 2, 9, 0, tzinfo=UTC)


def _set_language(factory: UnitOfWorkFactory, username: str, language: str | None) -> None:
    with factory() as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        user.language = language
        uow.session.add(user)


def _language_of(factory: UnitOfWorkFactory, username: str) -> str | None:
    with factory() as uow:
        return uow.session.exec(select(User.language).where(User.username == username)).one()


def _lineup_due_mails(factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent) -> list[Outbox]:
    """Norway submits its lineup; the scan ten minutes before round 1 mails Sweden's captain alone."""
    with factory() as uow:
        match = next(
            m
            for m in uow.rounds.matches_of_round(event.rounds[0].id or 0)
            if event.teams["Norway"] in (m.first_team_id, m.second_team_id)
        )
        uow.teams.insert(
            Lineup(match_id=match.id or 0, team_id=event.teams["Norway"], submitted_by="cap-nor")
        )
    with factory() as uow:
        scan(uow, now=ROUND_1 - timedelta(minutes=10), settings=settings)
    with factory() as uow:
        rows = list(uow.session.exec(select(Outbox).where(col(Outbox.kind) == "lineup_due")).all())
        for row in rows:
            uow.session.expunge(row)
        return rows


def test_a_portuguese_captain_gets_the_lineup_due_mail_in_portuguese(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    event = notify_event(uow_factory)
    _set_language(uow_factory, "cap-swe", "pt")
    [mail] = _lineup_due_mails(uow_factory, settings, event)
    assert mail.recipient == "swe@example.org"
    # 09:00 UTC is 10:00 in Oslo (UTC+1 on 2 March); "Round 1" is the round's own name in the event file.
    assert mail.subject == "Sweden: a escalação para Round 1 termina às 10:00 Europe/Oslo"
    # Saturday 2 March 2024 in Portuguese (CLDR abbreviations): "sáb." and "mar."
    assert "Prazo: sáb. 2 mar. 2024, 10:00 Europe/Oslo (09:00 UTC)." in mail.body_text
    assert "ainda não foi enviada" in mail.body_text and "Enviar a escalação: " in mail.body_text
    assert "capitão de Sweden" in mail.body_text  # the footer too
    assert '<html lang="pt">' in (mail.body_html or "") and "Enviar a escalação" in (mail.body_html or "")
    assert "Deadline" not in mail.body_text and "Submit" not in mail.body_text
    assert current() == "en"  # the language was the mail's only, not the process's


def test_without_a_language_the_mail_is_english(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    event = notify_event(uow_factory)
    assert _language_of(uow_factory, "cap-swe") is None
    [mail] = _lineup_due_mails(uow_factory, settings, event)
    assert mail.subject == "Sweden: lineup for Round 1 is due at 10:00 Europe/Oslo"
    assert "Deadline: Sat 2 Mar 2024, 10:00 Europe/Oslo (09:00 UTC)." in mail.body_text
    assert '<html lang="en">' in (mail.body_html or "")


def test_an_unknown_language_falls_back_to_english_and_our_own_words_are_translated() -> None:
    facts = {"event_name": "Cup", "team_name": "Norge", "account_url": "x", "match_name": "N v S"}
    facts |= {"round_name": "Runde 1", "stage_name": "Gruppe", "outcome": "upheld", "decision": "d"}
    assert (
        compose(Kind.APPEAL_DECIDED, facts, lang="xx").subject == "Norge: the appeal about N v S was decided"
    )
    norwegian = compose(Kind.APPEAL_DECIDED, facts, link="http://x/m", lang="nb")
    assert norwegian.subject == "Norge: anken om N v S er avgjort"
    assert "Se lagkampen: http://x/m" in norwegian.text


def _link_mail_of_a_swedish_player(
    factory: UnitOfWorkFactory, settings: Settings, event: NotifyEvent, language: str | None
) -> tuple[str, Outbox]:
    """A player of Sweden gets an address (and ``language``); the scan asks them to link their account."""
    with factory() as uow:
        player = uow.session.exec(
            select(Player).where(Player.team_id == event.teams["Sweden"]).order_by(col(Player.id))
        ).first()
        assert player is not None
        player.email, player.language = "player@example.org", language
        uow.session.add(player)
        name = player.name
    with factory() as uow:
        scan(uow, now=ROUND_1 + timedelta(hours=3), settings=settings)
    with factory() as uow:
        row = uow.session.exec(select(Outbox).where(col(Outbox.kind) == "link_account")).one()
        uow.session.expunge(row)
    return name, row


def test_a_player_without_a_language_is_written_to_in_their_captains_language(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    event = notify_event(uow_factory)
    _set_language(uow_factory, "cap-swe", "pt")
    name, mail = _link_mail_of_a_swedish_player(uow_factory, settings, event, None)
    assert mail.recipient == "player@example.org"
    with uow_factory() as uow:
        event_name = uow.events.get_or_raise(Event, event.event_id).name
    facts = {"event_name": event_name, "team_name": "Sweden", "player_name": name, "account": "a"}
    assert mail.subject == f"{event_name}: vincule a sua conta do servidor de partidas"
    assert mail.subject != compose(Kind.LINK_ACCOUNT, facts).subject
    assert '<html lang="pt">' in (mail.body_html or "") and "Vincular a sua conta: " in mail.body_text
    assert "link your game-server account" not in mail.subject


def test_a_players_own_language_wins_over_the_captains(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    event = notify_event(uow_factory)
    _set_language(uow_factory, "cap-swe", "pt")
    _, mail = _link_mail_of_a_swedish_player(uow_factory, settings, event, "nb")
    assert '<html lang="nb">' in (mail.body_html or "")
    assert "vincule" not in mail.subject and "link your game-server account" not in mail.subject


def test_a_player_whose_captains_chose_no_language_gets_english(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list
) -> None:
    event = notify_event(uow_factory)
    _, mail = _link_mail_of_a_swedish_player(uow_factory, settings, event, None)
    assert mail.subject.endswith(": link your game-server account")
    assert '<html lang="en">' in (mail.body_html or "")


@pytest.fixture
def event(app: FastAPI) -> NotifyEvent:
    return notify_event(app.state.uow_factory)


def test_the_switch_sets_only_the_cookie_even_for_a_logged_in_user(app: FastAPI, event: NotifyEvent) -> None:
    """A GET another site can link to changes no account: the e-mail language is the account form's."""
    factory = app.state.uow_factory
    captain, _ = login(app, "cap-nor")
    answer = captain.get("/lang/pt", params={"next": "/account"})
    assert answer.status_code == 303 and "lang=pt" in answer.headers["set-cookie"]
    assert _language_of(factory, "cap-nor") is None
    assert captain.get("/lang/xx").status_code == 404
    with factory() as uow:
        actions = uow.session.exec(select(AuditLog.action).where(AuditLog.actor == "cap-nor")).all()
        assert "user.language" not in actions
        assert uow.session.exec(select(User).where(col(User.language).is_not(None))).all() == []


def test_the_account_page_and_its_twin_choose_the_language(app: FastAPI, event: NotifyEvent) -> None:
    factory = app.state.uow_factory
    captain, token = login(app, "cap-nor")
    page = captain.get("/account").text
    assert '<label for="language">' in page and '<option value="en" lang="en" selected>' in page
    form = {
        "csrf_token": form_token(page),
        "email": "nor@example.org",
        "kind": ["pairings"],
        "language": "tr",
    }
    assert captain.post("/account/notifications", data=form).status_code == 303
    assert _language_of(factory, "cap-nor") == "tr"
    assert '<option value="tr" lang="tr" selected>' in captain.get("/account").text
    bad = captain.post("/account/notifications", data=form | {"language": "xx"})
    assert bad.status_code == 422 and _language_of(factory, "cap-nor") == "tr"
    twin = captain.get("/api/v1/account/notifications").json()
    assert twin["language"] == "tr" and set(twin["languages"]) == {"en", "pt", "nb", "tr"}
    headers = {"X-CSRF-Token": token}
    kept = captain.put("/api/v1/account/notifications", json={"email": "nor@example.org"}, headers=headers)
    assert kept.status_code == 200 and kept.json()["language"] == "tr"  # not given: kept
    put = captain.put(
        "/api/v1/account/notifications", json={"email": "nor@example.org", "language": "nb"}, headers=headers
    )
    assert put.json()["language"] == "nb" and _language_of(factory, "cap-nor") == "nb"
    english = captain.put(
        "/api/v1/account/notifications", json={"email": "nor@example.org", "language": None}, headers=headers
    )
    assert english.json()["language"] is None
    wrong = captain.put(
        "/api/v1/account/notifications", json={"email": "nor@example.org", "language": "xx"}, headers=headers
    )
    assert wrong.status_code == 422
