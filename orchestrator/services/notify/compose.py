"""A kind of message and its facts → subject, plain text and HTML, from the templates in templates/email.

``<kind>.subject.txt`` and ``<kind>.txt`` hold the English wording; the HTML part is ``_layout.html`` with
the text's paragraphs, so a translation only ever edits the two text templates. Facts arrive formatted
(``when`` formats a time in the event's time zone); templates hold no logic beyond a loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from orchestrator.db import REPO_ROOT
from orchestrator.services.notify.kinds import PLAYER_KINDS, Kind

EMAIL_TEMPLATES = REPO_ROOT / "templates" / "email"

LINK_LABELS: dict[Kind, str] = {
    Kind.LINEUP_OPEN: "Submit the lineup",
    Kind.LINEUP_DUE: "Submit the lineup",
    Kind.ARMAGEDDON_DUE: "Nominate your player",
    Kind.PAIRINGS: "See your matches",
    Kind.RESULT_CORRECTED: "See the match",
    Kind.APPEAL_DECIDED: "See the match",
    Kind.LINK_ACCOUNT: "Link your account",
}


@dataclass(frozen=True, slots=True)
class Mail:
    subject: str
    text: str
    html: str


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(EMAIL_TEMPLATES),
        autoescape=select_autoescape(["html"], default_for_string=False, default=False),
        undefined=StrictUndefined,  # a missing fact is a bug, not an empty sentence in a captain's inbox
        keep_trailing_newline=False,
        trim_blocks=False,
    )


def compose(kind: Kind, facts: Mapping[str, Any], *, link: str | None = None) -> Mail:
    """The mail of ``kind``; ``facts`` fill the templates, ``link`` is the one action the mail asks for."""
    env = _environment()
    subject = " ".join(env.get_template(f"{kind.value}.subject.txt").render(facts).split())
    body = env.get_template(f"{kind.value}.txt").render(facts).strip()
    footer_name = "_player_footer.txt" if kind in PLAYER_KINDS else "_footer.txt"
    footer = env.get_template(footer_name).render(facts).strip()
    label = LINK_LABELS[kind]
    text = body
    if link:
        text += f"\n\n{label}: {link}"
    text += f"\n\n-- \n{footer}\n"
    paragraphs = [part.strip() for part in body.split("\n\n") if part.strip()]
    html = env.get_template("_layout.html").render(
        subject=subject,
        event_name=facts.get("event_name", ""),
        paragraphs=paragraphs,
        link=link,
        link_label=label,
        footer=footer,
    )
    return Mail(subject=subject[:255], text=text, html=html)


def zone_of(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def when(at: datetime | None, zone: ZoneInfo) -> str:
    """``Fri 4 Dec 2026, 18:00 Europe/Paris (17:00 UTC)``; UTC alone when the event keeps UTC."""
    if at is None:
        return "not set"
    utc = at.astimezone(UTC)
    local = utc.astimezone(zone)
    text = f"{local:%a} {local.day} {local:%b %Y, %H:%M} {zone.key}"
    if zone.key != "UTC":
        text += f" ({utc:%H:%M} UTC)"
    return text


def short_when(at: datetime | None, zone: ZoneInfo) -> str:
    """``18:00 Europe/Paris`` (for subjects)."""
    if at is None:
        return "not set"
    local = at.astimezone(zone)
    return f"{local:%H:%M} {zone.key}"
