"""A kind of message and its facts → subject, plain text and HTML in the recipient's language, from the
templates in templates/email.

``<kind>.subject.txt`` and ``<kind>.txt`` hold the English wording in ``{% trans %}`` blocks; the catalogues
(orchestrator/locale, docs/translations.md) translate them, with the same Jinja i18n setup as the pages
(orchestrator/translation.py). The HTML part is ``_layout.html`` with the text's paragraphs. Facts arrive
ready to print; a time is a ``Moment`` and a sentence of ours a ``Said``, both written out only when the
template is rendered, so one set of facts serves captains of different languages. Templates hold no logic
beyond a loop.
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
from orchestrator.translation import N_, date_text, gettext, install, speaking

EMAIL_TEMPLATES = REPO_ROOT / "templates" / "email"

LINK_LABELS: dict[Kind, str] = {
    Kind.LINEUP_OPEN: N_("Submit the lineup"),
    Kind.LINEUP_DUE: N_("Submit the lineup"),
    Kind.ARMAGEDDON_DUE: N_("Nominate your player"),
    Kind.PAIRINGS: N_("See your matches"),
    Kind.RESULT_CORRECTED: N_("See the match"),
    Kind.APPEAL_DECIDED: N_("See the match"),
    Kind.LINK_ACCOUNT: N_("Link your account"),
}
NOT_SET = N_("not set")


@dataclass(frozen=True, slots=True)
class Mail:
    subject: str
    text: str
    html: str


@dataclass(frozen=True, slots=True)
class Moment:
    """A time as a mail prints it, in the event's zone and the language the mail is rendered in."""

    at: datetime | None
    zone: ZoneInfo
    short: bool = False

    def __str__(self) -> str:
        return short_when(self.at, self.zone) if self.short else when(self.at, self.zone)


@dataclass(frozen=True, slots=True)
class Said:
    """A sentence of ours (marked with ``N_``) with its values, translated when the mail is rendered."""

    message: str
    values: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        text = gettext(self.message)
        return text % {name: str(value) for name, value in self.values} if self.values else text


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(EMAIL_TEMPLATES),
        autoescape=select_autoescape(["html"], default_for_string=False, default=False),
        undefined=StrictUndefined,  # a missing fact is a bug, not an empty sentence in a captain's inbox
        keep_trailing_newline=False,
        trim_blocks=False,
    )
    install(env)
    return env


def compose(
    kind: Kind, facts: Mapping[str, Any], *, link: str | None = None, lang: str | None = None
) -> Mail:
    """The mail of ``kind`` in ``lang`` (None or unknown: English); ``facts`` fill the templates, ``link`` is
    the one action the mail asks for."""
    with speaking(lang) as code:
        return _compose(kind, facts, link, code)


def _compose(kind: Kind, facts: Mapping[str, Any], link: str | None, lang: str) -> Mail:
    env = _environment()
    subject = " ".join(env.get_template(f"{kind.value}.subject.txt").render(facts).split())
    body = env.get_template(f"{kind.value}.txt").render(facts).strip()
    footer_name = "_player_footer.txt" if kind in PLAYER_KINDS else "_footer.txt"
    footer = env.get_template(footer_name).render(facts).strip()
    label = gettext(LINK_LABELS[kind])
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
        lang=lang,
    )
    return Mail(subject=subject[:255], text=text, html=html)


def zone_of(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def when(at: datetime | None, zone: ZoneInfo) -> str:
    """``Fri 4 Dec 2026, 18:00 Europe/Paris (17:00 UTC)``; UTC alone when the event keeps UTC. The date is
    written in the current language (``sex. 4 dez. 2026, 18:00 Europe/Paris`` in Portuguese)."""
    if at is None:
        return gettext(NOT_SET)
    utc = at.astimezone(UTC)
    local = utc.astimezone(zone)
    text = f"{date_text(local)} {zone.key}"
    if zone.key != "UTC":
        text += f" ({utc:%H:%M} UTC)"
    return text


def short_when(at: datetime | None, zone: ZoneInfo) -> str:
    """``18:00 Europe/Paris`` (for subjects)."""
    if at is None:
        return gettext(NOT_SET)
    local = at.astimezone(zone)
    return f"{local:%H:%M} {zone.key}"
