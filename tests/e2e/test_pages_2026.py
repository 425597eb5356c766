"""The full Olympiad 2026's spectator pages in headless Chromium (the event page, the Open Swiss stage page,
the combined classification and the Open section's board prizes) at 390 px and 1280 px: the page itself
never scrolls sideways (a table may scroll inside its own wrapper), no control is cut off, and axe-core
finds no serious or critical violation. A Portuguese page shows the reader's own time (another zone than
the event's) in Portuguese, in the server's fields: tests/e2e/test_language_switch.py checks the rest of
the language choice.

The event is stored once per test session (the ``full_2026`` fixture, tests/support/full_2026_served.py).
Screenshots are written to ``$OLYMPIAD_SCREENSHOTS`` (docs/screenshots) when that is set.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.accessibility import axe, failing, report, violations
from tests.support.full_2026 import Full2026
from tests.support.full_2026_served import pages_2026
from tests.support.server import LiveServer

pytest.importorskip("playwright.sync_api")
pytestmark = [pytest.mark.timeout(1200)]
WIDTHS = [(390, 844), (1280, 900)]

# Every visible control that is cut off: outside the screen, or beyond the edge of an ancestor that hides
# its overflow, or with its own text hidden by ``overflow``. A control inside a box that scrolls sideways
# (a table's wrapper) is reachable and is judged against that box only; one off the screen is measured
# again with the focus, where a skip link shows itself.
CLIPPED = """() => {
  const kinds = 'a[href], button, input, select, textarea, summary, [role=button]';
  const controls = document.querySelectorAll(kinds);
  const cut = [];
  for (const el of controls) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    const own = getComputedStyle(el);
    let why = null;
    if (own.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) why = 'its text is cut';
    let scroller = null;
    for (let a = el.parentElement; a && a !== document.body && !why; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible') continue;
      const box = a.getBoundingClientRect();
      const beyond = r.left < box.left - 1 || r.right > box.right + 1;
      if (s.overflowX === 'auto' || s.overflowX === 'scroll') { scroller = a; break; }
      if (beyond) why = 'cut by ' + a.tagName.toLowerCase() + '.' + a.className;
    }
    const off = b => b.left < -1 || b.right > window.innerWidth + 1;
    if (!why && !scroller && off(r)) {  // a skip link waits off the screen until it has the focus
      el.focus();
      if (off(el.getBoundingClientRect())) why = 'off the screen';
      el.blur();
    }
    if (why) cut.push(`${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 40)}": ${why}`);
  }
  return cut;
}"""


@pytest.mark.parametrize(("width", "height"), WIDTHS)
def test_the_2026_pages_fit_the_screen_cut_no_control_and_have_no_serious_accessibility_violation(
    browser: Any, full_2026: tuple[LiveServer, Full2026], width: int, height: int
) -> None:
    server, event = full_2026
    runner = axe()
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    page = context.new_page()
    target = os.environ.get("OLYMPIAD_SCREENSHOTS")
    found, wide, cut = {}, {}, {}
    for name, path in pages_2026(event).items():
        found[name] = violations(page, server.base_url + path, runner)
        scroll = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if scroll > 0:
            wide[name] = scroll
        if clipped := page.evaluate(CLIPPED):
            cut[name] = clipped
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            shot = Path(target) / f"{name}-{'phone' if width < 500 else 'desktop'}.png"
            page.screenshot(path=str(shot), full_page=name == "olympiad-event")  # tables: one screen
    context.close()
    text = report(found, width)
    print(text or f"[{width}px] no violation on the 2026 pages")
    assert not wide, f"the page scrolls sideways at {width}px (by px): {wide}"
    assert not cut, f"controls cut off at {width}px: {cut}"
    bad = failing(found)
    assert not bad, f"serious or critical violations: {bad}\n{text}"


def test_a_portuguese_page_shows_the_readers_time_in_portuguese_in_the_servers_fields(
    browser: Any, full_2026: tuple[LiveServer, Full2026]
) -> None:
    server, event = full_2026
    # An English browser in New York reading the Portuguese page of an event in Samarkand: the page's
    # language, not the browser's, writes the reader's time.
    context = browser.new_context(locale="en-US", timezone_id="America/New_York")
    context.add_cookies([{"name": "lang", "value": "pt", "url": server.base_url}])
    page = context.new_page()
    page.goto(server.base_url + pages_2026(event)["olympiad-swiss"])
    assert page.evaluate("document.documentElement.lang") == "pt"
    shown = page.locator("time[data-zone]").first
    yours = page.locator("time[data-zone] + .reader-time").first
    event_text, reader_text = shown.inner_text(), yours.inner_text()
    print(f"event's time: {event_text!r}; the reader's: {reader_text!r}")
    assert "your time" not in reader_text
    assert reader_text.startswith("(a sua hora ") and reader_text.endswith(")")
    assert "America/New_York" in reader_text
    # The same fields as the server's (date_text: "d MMM y, HH:mm" on a round's line, "EEE d MMM y,
    # HH:mm" with the day), then the zone: "4 dez. 2026, 08:00 GMT-5 (America/New_York)".
    fields = r"(\w+\.? )?\d{1,2} \w+\.? \d{4}, \d{2}:\d{2} "
    assert re.fullmatch(fields + r".+ \(Asia/Samarkand\)", event_text), event_text
    assert re.fullmatch(r"\(a sua hora " + fields + r".+\)", reader_text), reader_text
    months = ["jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"]
    month = re.search(r"\d{1,2} (\w+)\.? \d{4}", reader_text)
    assert month is not None and month.group(1) in months, reader_text
    context.close()
