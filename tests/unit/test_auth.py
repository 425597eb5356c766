"""Accounts, password hashing, login throttling and invitations (SQLite in a temporary directory)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from orchestrator.adapters.tables import Event, Role, Team, User
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.errors import Conflict, LoginRefused, LoginThrottled, NotFound, ValidationFailed
from orchestrator.services.accounts import users
from orchestrator.services.teams.captains import create_captain_invitation
from tests.support.accounts import PASSWORD, fail_logins, login, make_owner, settings
from tests.support.factories import make_event
from tests.support.passwords import PRODUCTION_HASHER

__all__ = ["settings"]  # the fixture of tests/support/accounts.py (uow_factory comes from conftest)


def make_team(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        event = uow.events.insert(Event(slug="ev", name="Event"))
        team = uow.teams.insert(Team(event_id=event.id or 0, name="Norway", federation="NOR", seed=1))
        return team.id or 0


def invite_cap(uow_factory: UnitOfWorkFactory, settings: Settings) -> tuple[int, int, str]:
    """Captain "cap" of Norway invited by anna: (team id, user id, invitation token)."""
    team_id = make_team(uow_factory)
    with uow_factory() as uow:
        user_id, token = users.invite_captain(
            uow, username="cap", team_id=team_id, actor="anna", settings=settings
        )
    return team_id, user_id, token


def test_passwords_are_stored_as_argon2id_hashes_that_verify() -> None:
    stored = users.hash_password(PASSWORD)
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert users.verify_password(stored, PASSWORD)
    assert not users.verify_password(stored, PASSWORD + "x")
    assert not users.verify_password(None, PASSWORD)
    assert not users.verify_password("not a hash", PASSWORD)


def test_the_product_hashes_with_argon2_cffis_recommended_parameters() -> None:
    """The tests hash cheaply (tests/support/passwords.py); the product's own hasher is RFC 9106's
    low-memory profile, as argon2-cffi recommends, and its hashes verify through the product's function."""
    stored = PRODUCTION_HASHER.hash(PASSWORD)
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert users.verify_password(stored, PASSWORD)
    assert not users.verify_password(stored, PASSWORD + "x")


def test_a_created_user_can_log_in_with_the_username_in_any_case(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    user_id = make_owner(uow_factory)
    user = login(uow_factory, settings, PASSWORD).accepted_user()
    assert (user.id, user.username, user.role) == (user_id, "anna", Role.OWNER)


def test_creating_a_user_reports_every_problem_at_once(uow_factory: UnitOfWorkFactory) -> None:
    with pytest.raises(ValidationFailed) as raised, uow_factory() as uow:
        users.create_user(uow, username="bad name!", password="short", role="wizard")
    assert len(raised.value.problems) == 3


def test_a_taken_username_is_a_conflict(uow_factory: UnitOfWorkFactory) -> None:
    make_owner(uow_factory)
    with pytest.raises(Conflict), uow_factory() as uow:
        users.create_user(uow, username="ANNA", password=PASSWORD, role="admin")


def test_a_captain_needs_a_team_and_staff_have_none(uow_factory: UnitOfWorkFactory) -> None:
    team_id = make_team(uow_factory)
    with pytest.raises(ValidationFailed, match="needs a team"), uow_factory() as uow:
        users.create_user(uow, username="cap", password=PASSWORD, role="captain")
    with pytest.raises(ValidationFailed, match="Only captain"), uow_factory() as uow:
        users.create_user(uow, username="arb", password=PASSWORD, role="arbiter", team_id=team_id)


def test_creating_a_user_is_audited_without_the_password_or_its_hash(uow_factory: UnitOfWorkFactory) -> None:
    user_id = make_owner(uow_factory)
    with uow_factory() as uow:
        (entry,) = uow.audit.for_entity("user", user_id)
        stored_hash = uow.accounts.get_or_raise(User, user_id).password_hash or ""
    assert entry.action == "user.create"
    assert PASSWORD not in str(entry.new) and stored_hash not in str(entry.new)


def test_a_wrong_password_and_an_unknown_user_get_the_same_answer(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    wrong = login(uow_factory, settings, "wrong password")
    with uow_factory() as uow:
        unknown = users.authenticate(uow, username="nobody", password=PASSWORD, settings=settings)
    assert isinstance(wrong.refusal, LoginRefused) and isinstance(unknown.refusal, LoginRefused)
    assert wrong.refusal.message == unknown.refusal.message == users.WRONG_CREDENTIALS


def test_after_too_many_failures_even_the_right_password_waits_with_a_clear_message(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    now = utcnow()
    for n in range(settings.login_max_failures):
        verdict = login(uow_factory, settings, "wrong password", now=now + timedelta(seconds=n))
        assert isinstance(verdict.refusal, LoginRefused)
    last_failure = now + timedelta(seconds=settings.login_max_failures - 1)
    throttled = login(uow_factory, settings, PASSWORD, now=last_failure + timedelta(milliseconds=500))
    assert isinstance(throttled.refusal, LoginThrottled)
    assert throttled.refusal.message == "Too many failed logins. Try again in 2 seconds."
    assert throttled.refusal.retry_after_s == settings.login_delay_s
    with pytest.raises(LoginThrottled):
        throttled.accepted_user()


def test_failures_older_than_the_window_count_for_nothing(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    now = utcnow()
    fail_logins(uow_factory, settings, settings.login_max_failures + 3, start=now, step=timedelta(seconds=60))
    later = now + timedelta(seconds=settings.login_failure_window_s + 60 * (settings.login_max_failures + 3))
    assert login(uow_factory, settings, "wrong password", now=later).refusal is not None
    assert login(uow_factory, settings, PASSWORD, now=later).user is not None


def test_a_successful_login_clears_the_earlier_failures(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    now = utcnow()
    second = timedelta(seconds=1)
    fail_logins(uow_factory, settings, settings.login_max_failures - 1, start=now, step=second)
    assert login(uow_factory, settings, PASSWORD, now=now + 5 * second).user is not None
    fail_logins(uow_factory, settings, settings.login_max_failures - 1, start=now + 6 * second, step=second)
    assert login(uow_factory, settings, PASSWORD, now=now + timedelta(seconds=20)).user is not None


def test_one_address_trying_many_usernames_is_throttled(
    uow_factory: UnitOfWorkFactory, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path, login_max_failures=100, login_max_failures_per_ip=4)
    make_owner(uow_factory)
    now = utcnow()
    for n in range(4):
        with uow_factory() as uow:
            users.authenticate(
                uow, username=f"guess{n}", password="x" * 12, ip="203.0.113.9", settings=settings, now=now
            )
    with uow_factory() as uow:
        verdict = users.authenticate(
            uow, username="anna", password=PASSWORD, ip="203.0.113.9", settings=settings, now=now
        )
    assert isinstance(verdict.refusal, LoginThrottled)
    with uow_factory() as uow:
        other = users.authenticate(
            uow, username="anna", password=PASSWORD, ip="198.51.100.1", settings=settings
        )
    assert other.user is not None


def session_ended(uow_factory: UnitOfWorkFactory, user_id: int, generation: int) -> bool:
    """A session cookie of ``generation`` no longer loads the user."""
    with uow_factory() as uow:
        return users.load_session_user(uow, user_id=user_id, session_generation=generation) is None


def test_a_disabled_account_cannot_log_in_and_its_sessions_end(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    user_id = make_owner(uow_factory)
    before = login(uow_factory, settings, PASSWORD).accepted_user()
    with uow_factory() as uow:
        users.disable_user(uow, user_id=user_id, actor="root", reason="left the federation")
    verdict = login(uow_factory, settings, PASSWORD)
    assert isinstance(verdict.refusal, LoginRefused) and "disabled" in verdict.refusal.message
    assert session_ended(uow_factory, user_id, before.session_generation)


def test_changing_the_password_ends_existing_sessions(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    user_id = make_owner(uow_factory)
    before = login(uow_factory, settings, PASSWORD).accepted_user()
    with uow_factory() as uow:
        assert users.load_session_user(uow, user_id=user_id, session_generation=before.session_generation)
        users.set_password(uow, user_id=user_id, password="another long password", actor="anna")
    assert session_ended(uow_factory, user_id, before.session_generation)


def test_an_invited_captain_sets_a_password_once_and_can_then_log_in(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    team_id, user_id, token = invite_cap(uow_factory, settings)
    with uow_factory() as uow:
        stored = uow.accounts.get_or_raise(User, user_id)
        assert stored.password_hash is None and stored.invitation_token_hash == users.hash_token(token)
        assert token not in str([e.new for e in uow.audit.for_entity("user", user_id)])
    with uow_factory() as uow:
        assert users.authenticate(uow, username="cap", password=PASSWORD, settings=settings).user is None
    with uow_factory() as uow:
        captain = users.accept_invitation(uow, token=token, password=PASSWORD)
    assert (captain.role, captain.team_id) == (Role.CAPTAIN, team_id)
    with uow_factory() as uow:
        assert users.authenticate(uow, username="cap", password=PASSWORD, settings=settings).user is not None
    with pytest.raises(NotFound), uow_factory() as uow:
        users.accept_invitation(uow, token=token, password="yet another password")


def test_an_expired_invitation_is_refused(uow_factory: UnitOfWorkFactory, settings: Settings) -> None:
    _, _, token = invite_cap(uow_factory, settings)
    too_late = utcnow() + timedelta(seconds=settings.invitation_ttl_s + 1)
    with pytest.raises(NotFound, match="not valid any more"), uow_factory() as uow:
        users.accept_invitation(uow, token=token, password=PASSWORD, now=too_late)


def test_a_new_invitation_replaces_the_previous_link(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    _, user_id, first = invite_cap(uow_factory, settings)
    with uow_factory() as uow:
        second = users.create_invitation(uow, user_id=user_id, actor="anna", settings=settings)
    assert first != second
    with pytest.raises(NotFound), uow_factory() as uow:
        users.find_invitation(uow, token=first)
    with uow_factory() as uow:
        assert users.find_invitation(uow, token=second).id == user_id


def test_login_attempts_older_than_a_day_are_deleted_by_the_next_login(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    now = utcnow()
    login(uow_factory, settings, "wrong password", now=now - timedelta(days=2))
    login(uow_factory, settings, "wrong password", now=now - timedelta(hours=2))
    assert login(uow_factory, settings, PASSWORD, now=now).user is not None
    with uow_factory() as uow:
        left = uow.accounts.delete_login_attempts_before(now + timedelta(seconds=1))  # counts what was left
    assert left == 2  # the failure of two hours ago and today's success; the two-day-old one was gone


def test_a_captain_invited_by_staff_gets_the_name_the_event_file_gives(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
        teams = {t.name: t.id or 0 for t in uow.teams.teams_of_event(event_id)}
        norway, _token = create_captain_invitation(
            uow, team_id=teams["Norway"], actor="staff", actor_role="arbiter"
        )
        sweden, _token = create_captain_invitation(
            uow, team_id=teams["Sweden"], actor="staff", actor_role="arbiter"
        )
    with uow_factory() as uow:
        names = [uow.accounts.get_or_raise(User, i).display_name for i in (norway, sweden)]
    assert names == ["Kari Nordmann", "Captain of Sweden"]  # small.yaml names Norway's captain only


def test_a_stranger_failing_every_two_minutes_cannot_keep_the_owner_out_from_another_address(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    """Throttling is per address and per account-and-address (docs/security.md, "Login throttling"): the
    stranger's failures slow the stranger only; the owner's right password from elsewhere works."""
    make_owner(uow_factory)
    at = utcnow()
    for _ in range(30):  # one failure every two minutes, for an hour
        login(uow_factory, settings, "wrong password", ip="203.0.113.9", now=at)
        at += timedelta(seconds=120)
    stranger = login(uow_factory, settings, PASSWORD, ip="203.0.113.9", now=at - timedelta(seconds=100))
    assert isinstance(stranger.refusal, LoginThrottled)  # the guesser still waits
    owner = login(uow_factory, settings, PASSWORD, ip="198.51.100.1", now=at - timedelta(seconds=100))
    assert owner.refusal is None and owner.user is not None


def test_staff_see_the_recent_failures_per_account_and_per_address(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    make_owner(uow_factory)
    now = utcnow()
    for n in range(3):
        login(uow_factory, settings, "wrong password", ip="203.0.113.9", now=now - timedelta(minutes=n))
    login(uow_factory, settings, "wrong password", ip="198.51.100.1", now=now - timedelta(minutes=1))
    login(uow_factory, settings, "wrong password", ip="198.51.100.1", now=now - timedelta(minutes=90))
    with uow_factory() as uow:
        failures = users.recent_login_failures(uow, now=now)
    assert failures.by_username == (("anna", 4),)
    assert failures.by_ip == (("203.0.113.9", 3), ("198.51.100.1", 1))
