"""A notification e-mail's HTML part as a mail client shows it, at phone (390) and desktop (1280) widths.

The screenshots are copied to ``$OLYMPIAD_SCREENSHOTS`` (e.g. docs/screenshots) when that is set, so a test
run never changes the repository.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from orchestrator.adapters.tables import Outbox
from orchestrator.services.notify.compose import compose
from orchestrator.services.notify.kinds import Kind
from tests.support.server import LiveServer

FACTS = {
    "event_name": "Small Test Cup",
    "team_name": "Norway",
    "account_url": "https://olympiad.example.org/account",
    "round_name": "Round 2",
    "stage_name": "Group",
    "opponent_name": "Sweden",
    "deadline": "Sat 2 Mar 2024, 11:30 Europe/Oslo (10:30 UTC)",
    "deadline_short": "11:30 Europe/Oslo",
}
LINK = "https://olympiad.example.org/captain/matches/7/lineup"


@pytest.mark.parametrize(("width", "height", "name"), [(1280, 800, "desktop"), (390, 844, "phone")])
def test_the_lineup_due_mail_reads_well_on_a_phone_and_a_desktop(
    browser: object, tmp_path: Path, width: int, height: int, name: str
) -> None:
    mail = compose(Kind.LINEUP_DUE, FACTS, link=LINK)
    source = tmp_path / "mail.html"
    source.write_text(mail.html, encoding="utf-8")
    context = browser.new_context(  # type: ignore[attr-defined]
        viewport={"width": width, "height": height}, device_scale_factor=1 if width > 500 else 2
    )
    page = context.new_page()
    page.goto(source.as_uri())
    assert page.title() == mail.subject
    assert page.locator("h1").inner_text() == "Norway: lineup for Round 2 is due at 11:30 Europe/Oslo"
    assert page.locator(f'a[href="{LINK}"]').inner_text() == "Submit the lineup"
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the mail scrolls sideways at {width}px"
    file = tmp_path / f"email-lineup-due-{name}.png"
    page.screenshot(path=str(file), full_page=True)
    assert file.stat().st_size > 5_000
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(file, Path(target) / file.name)
    context.close()


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 900)])
def test_the_account_and_outbox_pages_have_no_serious_accessibility_violation(
    browser: object, live_server: LiveServer, width: int, height: int
) -> None:
    from orchestrator.adapters.tables import Role
    from orchestrator.services.accounts.users import create_user
    from tests.support.accessibility import axe, failing, report, violations
    from tests.support.browser import log_in
    from tests.support.web import PASSWORD

    with live_server.uow_factory() as uow:
        if uow.accounts.get_by_username("mailadmin") is None:
            create_user(uow, username="mailadmin", password=PASSWORD, role=Role.ADMIN)
            mail = compose(Kind.LINEUP_DUE, FACTS, link=LINK)
            # Stored directly: queue_mail would also queue its sending job in this test process.
            uow.outbox.insert(
                Outbox(
                    key="e2e-mail",
                    kind="lineup_due",
                    recipient="nor@example.org",
                    subject=mail.subject,
                    body_text=mail.text,
                    status="failed",
                    attempts=1,
                    last_error="550 5.1.1 Mailbox unavailable",
                )
            )
    runner = axe()
    context = browser.new_context(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
    page = context.new_page()
    log_in(page, live_server.base_url, "mailadmin", PASSWORD)
    found = {
        name: violations(page, live_server.base_url + path, runner)
        for name, path in {"account": "/account", "outbox": "/staff/outbox"}.items()
    }
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    context.close()
    assert not failing(found), report(found, width)
    assert overflow <= 0, f"the outbox page scrolls sideways at {width}px"
