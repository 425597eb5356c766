"""Every text of the templates that people read is marked for translation, and every catalogue
translates every message of the templates (docs/translations.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from orchestrator.web import i18n
from orchestrator.web.template_text import scan, unmarked

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
POT = i18n.LOCALE_DIR / "messages.pot"
PLACEHOLDER = re.compile(r"%\((\w+)\)s|\{(\w+)\}")  # gettext's, and the scripts' own ({who})


def test_every_template_text_is_marked_for_translation() -> None:
    """Pages and e-mails alike: the mails' plain-text templates are text without tags for the check."""
    paths = sorted(TEMPLATES.rglob("*.html")) + sorted((TEMPLATES / "email").glob("*.txt"))
    assert any(path.suffix == ".txt" for path in paths)
    found = [
        f"{path.relative_to(TEMPLATES)}:{hit.line}: {hit.text}"
        for path in paths
        for hit in unmarked(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "text not in {% trans %} (python -m orchestrator.web.template_text templates):\n" + (
        "\n".join(found)
    )


def test_the_check_finds_text_and_attributes_and_leaves_numbers_symbols_and_expressions() -> None:
    source = (
        '<th title="Game points">GP</th><td>{{ row.mp }}</td><td>½ – 2.5 &nbsp;#</td>'
        '<a href="/events/{{ slug }}/stages">/events/{{ slug }}</a><script>var x = "Hello";</script>'
        "<p>Round {{ r.number }} of {{ n }}</p><p>{% trans %}Done{% endtrans %}</p>"
    )
    assert [hit.text for hit in unmarked(source)] == ["Game points", "GP", "Round of"]
    marked, _ = scan(source)
    assert "{% trans number=r.number %}Round {{ number }} of {{ n }}{% endtrans %}" in marked
    assert unmarked(marked) == []


def test_the_check_finds_unmarked_text_of_a_mail_template() -> None:
    source = "{% trans %}Deadline: {{ deadline }}.{% endtrans %}\n\nIf no lineup, {{ x }} plays.\n"
    assert [hit.text for hit in unmarked(source)] == ["If no lineup, plays."]


def _messages(path: Path) -> dict[str, tuple[str, ...]]:
    """msgid (a plural's singular) → its forms: the msgid and plural, or the translations."""
    with path.open("rb") as handle:
        catalog = read_po(handle)
    found: dict[str, tuple[str, ...]] = {}
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        found[str(ids[0])] = tuple(str(x) for x in (strings if path.suffix == ".po" else ids))
    return found


def test_the_template_catalogue_is_current() -> None:
    """messages.pot holds exactly the msgids of the templates, the web layer, the services and their errors
    (pybabel extract with babel.cfg, docs/translations.md)."""
    from babel.messages.extract import extract_from_dir

    method_map = [
        ("templates/**.html", "jinja2"),
        ("templates/email/**.txt", "jinja2"),
        ("orchestrator/web/**.py", "python"),
        ("orchestrator/services/**.py", "python"),
        ("orchestrator/errors.py", "python"),
    ]
    options = {
        "templates/**.html": {"extensions": "jinja2.ext.i18n"},
        "templates/email/**.txt": {"extensions": "jinja2.ext.i18n"},
    }
    root = TEMPLATES.parent
    extracted = {
        msgid if isinstance(msgid, str) else msgid[0]
        for _file, _line, msgid, _comments, _context in extract_from_dir(
            str(root), method_map, options_map=options
        )
    }
    assert set(_messages(POT)) == extracted
    assert "Deadline: %(deadline)s." in extracted  # the mails' texts are among them
    assert "Submit the lineup" in extracted  # and the mails' link labels (services/notify/compose.py)


@pytest.mark.parametrize("lang", ["pt", "nb", "tr"])
def test_each_catalogue_translates_every_message_with_its_placeholders(lang: str) -> None:
    template = _messages(POT)
    catalogue = _messages(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po")
    missing = [msgid for msgid in template if not all(catalogue.get(msgid, ("",)))]
    assert missing == [], f"{len(missing)} messages without a {lang} translation"
    broken = [
        msgid
        for msgid, forms in template.items()
        for translated in catalogue[msgid]
        if set(PLACEHOLDER.findall(forms[-1])) != set(PLACEHOLDER.findall(translated))
    ]
    assert broken == [], f"{lang}: placeholders differ"


def test_every_tiebreak_heading_and_meaning_of_the_registry_is_in_the_catalogues() -> None:
    from orchestrator.domain.tiebreaks import TIEBREAKS
    from orchestrator.web.domain_text import TIEBREAK_TEXT

    registry = {entry.short for entry in TIEBREAKS.values()} | {entry.meaning for entry in TIEBREAKS.values()}
    assert registry <= set(TIEBREAK_TEXT)
    assert registry <= set(_messages(POT))


def test_every_staff_page_name_of_the_navigation_is_in_the_catalogues() -> None:
    from orchestrator.services.read.dashboard import EVENT_PAGES
    from orchestrator.web.domain_text import STAFF_PAGES

    names = {label for label, _tail in EVENT_PAGES}
    assert names <= set(STAFF_PAGES)
    assert names <= set(_messages(POT))
