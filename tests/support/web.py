"""Logging in to the web app from a test: every test user has ``PASSWORD``."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

PASSWORD = "correct horse battery"


def form_token(html: str) -> str:
    """The CSRF token of the page's form."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "the page has no CSRF field"
    return found.group(1)


def login(app: FastAPI, username: str | None) -> tuple[TestClient, str]:
    """A client (redirects not followed) logged in as ``username`` by the JSON login, or anonymous for
    None, and its session's CSRF token."""
    client = TestClient(app, follow_redirects=False)
    if username is None:
        return client, form_token(client.get("/login").text)
    answer = client.post("/api/v1/auth/login", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return client, answer.json()["csrf_token"]
