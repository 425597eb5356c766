"""Headless Chromium for browser tests (Playwright), and logging in through the login form."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.ci import missing

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium() -> Iterator[Any]:
    """A headless Chromium browser, for a fixture to yield from; skipped (failed under CI=true) when
    Playwright or the browser is missing."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        missing(f"{CHROMIUM} is missing")
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield instance
        instance.close()


def log_in(page: Any, base_url: str, username: str, password: str, *, landing: str | None = None) -> None:
    """Log in with the login form (``/login?next=<landing>`` when a landing page is given) and wait for
    the landing page: ``landing``, else the user's home (staff: their dashboard or events, captains: their
    team's page)."""
    page.goto(f"{base_url}/login" if landing is None else f"{base_url}/login?next={landing}")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("form.form button[type=submit]")
    if landing is None:
        page.wait_for_url(lambda url: "/login" not in url)
    else:
        page.wait_for_url(f"{base_url}{landing}")
