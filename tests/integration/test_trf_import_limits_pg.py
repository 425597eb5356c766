"""A TRF-2026 file uploaded on the staff import page (web/pages/staff/trf_import.py) with numbers that the
reader's ``fraction`` and ``int`` took but PostgreSQL or Python cannot: the form again with the line named,
never a server error or a busy server (domain/trf/swiss_records.py, docs/input-limits.md "TRF-2026 files").
"""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from orchestrator.adapters.uow import UnitOfWorkFactory
from tests.support.trf_files import fixture
from tests.support.web import admin_client

pytestmark = pytest.mark.integration

PENALTY = "299    -2.0  -1.0    3    3"  # penalty-299.trf: Chile loses 2 match points, 1 game point
CHILE = "310   3 Chile                                            3.0    7.5"
FINLAND = "310   6 Finland                                          0.0    2.0"


@pytest.fixture
def staff(pg_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[tuple[TestClient, str]]:
    yield from admin_client(pg_url, uow_factory)


def upload(staff: tuple[TestClient, str], text: str) -> tuple[int, list[str]]:
    """The answer's status and problems for ``text`` under an event name of its own."""
    client, csrf = staff
    text = text.replace("012 Synthetic Cup", f"012 Limits {secrets.token_hex(3)}", 1)
    answer = client.post(
        "/staff/events/import-trf",
        files={"open_file": ("limits.trf", text.encode("latin-1"), "text/plain")},
        headers={"X-CSRF-Token": csrf},
    )
    items = re.findall(r"<li>(.*?)</li>", answer.text, re.S)
    problems = [html.unescape(re.sub(r"<[^>]+>|\s+", " ", item)).strip() for item in items]
    return answer.status_code, problems


def test_match_points_in_exponent_notation_are_refused_not_stored_past_integer(
    staff: tuple[TestClient, str],
) -> None:
    """``3e9`` fits record 299's four columns; Finland's record 310 agrees, so before the fix the file was
    read and PostgreSQL refused the adjustment (``integer out of range``): a 500."""
    text = fixture("penalty-299.trf")
    text = text.replace(PENALTY, "299    3e9           3    6")
    text = text.replace(CHILE, CHILE.replace("3.0    7.5", "5.0    8.5"))  # no penalty for Chile now
    text = text.replace(FINLAND, FINLAND.replace("   0.0    2.0", "   3e9    2.0"))
    status, problems = upload(staff, text)
    assert status == 422
    assert (
        "limits.trf: line 41: the match points (columns 8-11) '3e9' is not a number of half-points"
        in problems
    )


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("\n142 5", "\n142 ²", "limits.trf: line 5: the number of rounds '²' is not a number"),
        ("\n142 5", "\n142 " + "9" * 5000, "limits.trf: line 5: the number of rounds '9999"),
        (PENALTY, PENALTY[:-1] + "²", "limits.trf: line 41: the team at column 24 '²' is not a number"),
    ],
    ids=["superscript-digit", "thousands-of-digits", "superscript-team"],
)
def test_a_number_int_cannot_read_is_named_not_a_server_error(
    staff: tuple[TestClient, str], old: str, new: str, problem: str
) -> None:
    """``str.isdigit`` holds for ``²``, which ``int`` refuses, and ``int`` refuses more than 4300 digits."""
    status, problems = upload(staff, fixture("penalty-299.trf").replace(old, new, 1))
    assert status == 422
    assert any(p.startswith(problem) for p in problems), problems


@pytest.mark.timeout(60)  # a guard against a hang (pytest-timeout), not a speed target
def test_a_huge_exponent_is_refused_at_once_not_computed(staff: tuple[TestClient, str]) -> None:
    """``Fraction("1e99999999")`` builds a hundred-million-digit integer (many minutes) while the import
    holds the server."""
    status, problems = upload(staff, fixture("penalty-299.trf").replace("362 TW 2.0", "362 TW 1e99999999", 1))
    assert status == 422
    refused = (
        "limits.trf: line 10: record 362: TW 1e99999999 is not a match result (TW, TD, TL) and its points"
    )
    assert refused in problems
