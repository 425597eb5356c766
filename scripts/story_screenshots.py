"""Screenshots of the Olympiad 2026's story pages for docs/spectators.md: the event page, the combined
classification and the Open section's board prizes, on a 390 px phone and a 1280 px desktop, taken with
headless Chromium (``/usr/bin/chromium``, Playwright) from a served event that has finished:

    .venv/bin/olympiad demo --event events/olympiad-2026.yaml --swiss-engine own --minutes 0 --seed 3 &
    .venv/bin/python scripts/story_screenshots.py http://127.0.0.1:8000 olympiad-2026 docs/screenshots

The event page is taken whole; the two long tables as far as the screen shows them. The script prints each
page's width, which must be the screen's (nothing wider than a phone).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
SCREENS = ((390, 844, "phone"), (1280, 900, "desktop"))


def main(base_url: str, slug: str, out: Path) -> None:
    pages = {
        "olympiad-event": (f"/events/{slug}", True),
        "combined": (f"/events/{slug}/combined", False),
        "board-prizes": (f"/events/{slug}/stages/open/board-prizes", False),
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        for name, (path, whole) in pages.items():
            for width, height, screen in SCREENS:
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                page.goto(base_url + path, timeout=120_000)
                page.wait_for_load_state("load")
                shown = page.evaluate("document.documentElement.scrollWidth")
                page.screenshot(path=str(out / f"{name}-{screen}.png"), full_page=whole)
                print(f"{name}-{screen}.png: page width {shown} px on a {width} px screen")
                context.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
