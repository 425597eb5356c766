"""Languages shared by the pages and the e-mails: gettext catalogues, and numbers and dates as the
reader's (or a mail's recipient's) locale writes them.

Catalogues live in ``orchestrator/locale/<lang>/LC_MESSAGES/messages.po`` and are compiled in memory on
first use (Babel's ``read_po``), so a fresh checkout needs no build step. The language of what is being
rendered is a context variable: the web layer sets it per request (web/i18n.py), the notifications per
recipient (``speaking``). ``install`` gives a Jinja environment the ``i18n`` extension bound to it.
docs/translations.md tells how to add a language and update the catalogues.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT = "en"
# Code → the language's own name, as the switch shows it. English is the templates' own text.
LANGUAGES: Mapping[str, str] = {"en": "English", "pt": "Português", "nb": "Norsk bokmål", "tr": "Türkçe"}

_current: ContextVar[str] = ContextVar("olympiad_lang", default=DEFAULT)
# A number as the read models print it (``3.5``, ``-0.25``): shown with the reader's decimal sign.
_DECIMAL_TEXT = re.compile(r"-?\d+\.\d{1,2}")


def current() -> str:
    return _current.get()


def use(lang: str) -> None:
    """Make ``lang`` the language of what this request renders from now on."""
    _current.set(lang if lang in LANGUAGES else DEFAULT)


@contextmanager
def speaking(lang: str | None) -> Iterator[str]:
    """Render in ``lang`` (unknown or None: English) inside the block, then back to the language before."""
    code = lang if lang in LANGUAGES else DEFAULT
    token = _current.set(str(code))
    try:
        yield str(code)
    finally:
        _current.reset(token)


@cache
def translations(lang: str) -> NullTranslations:
    """The compiled catalogue of ``lang`` (English, or a language without a catalogue: the msgids)."""
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if lang == DEFAULT or not po.is_file():
        return NullTranslations()
    with po.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer)


def N_(message: str) -> str:
    """gettext's usual marker: put a message of the web layer in the catalogues; ``gettext`` translates
    it where it is shown."""
    return message


def gettext(message: str) -> str:
    return translations(current()).ugettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current()).ungettext(singular, plural, n)


def number(value: Any) -> str:
    """A decimal number in the reader's locale (``2.5`` → ``2,5`` in Portuguese); others unchanged."""
    if isinstance(value, Fraction):
        value = Decimal(value.numerator) / Decimal(value.denominator)
    try:
        decimal = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    places = max(0, -int(decimal.as_tuple().exponent)) if decimal.is_finite() else 0
    pattern = "0." + "0" * places if places else "0"
    return format_decimal(decimal, format=pattern, locale=_babel_locale(current()))


def localize(value: Any) -> Any:
    """Jinja's ``finalize``: decimal numbers printed by ``{{ }}`` follow the reader's locale.

    Whole numbers (ratings, years, ids) and any other text are left as they are; so is everything in
    English, whose decimal sign the read models already use."""
    if current() == DEFAULT or isinstance(value, bool):
        return value
    if isinstance(value, float | Decimal | Fraction) or (
        isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value)
    ):
        return number(value)
    return value


def date_text(moment: datetime | None, with_day: bool = True) -> str:
    """A moment as the reader's locale writes a date and time (``sex. 4 dez. 2026, 14:00``)."""
    if moment is None:
        return ""
    lang = current()
    if lang == DEFAULT:  # the site's own English style
        return moment.strftime("%a %-d %b %Y, %H:%M" if with_day else "%-d %b %Y, %H:%M")
    pattern = "EEE d MMM y, HH:mm" if with_day else "d MMM y, HH:mm"
    return format_datetime(moment, pattern, locale=_babel_locale(lang))


def day_text(moment: datetime | None) -> str:
    if moment is None:
        return ""
    lang = current()
    if lang == DEFAULT:
        return moment.strftime("%-d %b %Y")
    return format_datetime(moment, "d MMM y", locale=_babel_locale(lang))


@cache
def _babel_locale(lang: str) -> Locale:
    return Locale.parse(lang)


@pass_context
def _template_gettext(context: Context, message: str, /, **variables: Any) -> str:
    """``{% trans %}`` and ``_()``: Jinja's new-style gettext, with decimal variables localized too."""
    text = gettext(message)
    if context.eval_ctx.autoescape:
        text = Markup(text)
    return text % {name: localize(value) for name, value in variables.items()}


@pass_context
def _template_ngettext(context: Context, singular: str, plural: str, count: int, /, **variables: Any) -> str:
    text = ngettext(singular, plural, count)
    if context.eval_ctx.autoescape:
        text = Markup(text)
    variables.setdefault("num", count)
    return text % {name: localize(value) for name, value in variables.items()}


def install(env: Any) -> None:
    """Give a Jinja environment the ``i18n`` extension bound to the current language."""
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(gettext, ngettext, newstyle=True)
    env.globals.update(gettext=_template_gettext, _=_template_gettext, ngettext=_template_ngettext)
    env.finalize = localize
    env.filters["date_text"] = date_text
    env.filters["day_text"] = day_text
    env.filters["number"] = number
    env.filters["translated"] = gettext  # a text from the Python side that is in the catalogues
    env.globals["languages"] = LANGUAGES
    env.globals["current_lang"] = current
