"""axe-core (bundled by the ``axe-playwright-python`` dev dependency, MPL-2.0) run on a page open in
headless Chromium: the violations, a printable report, and the impacts that fail a test."""

from __future__ import annotations

from typing import Any

from tests.support.ci import missing

FAILING = ("serious", "critical")


def axe() -> Any:
    """axe-core's runner (a dev dependency): a missing package fails under CI=true, skips elsewhere."""
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        missing("axe-playwright-python is not installed (pip install -e '.[dev]')")
    return Axe()


def violations(page: Any, url: str, runner: Any) -> list[dict[str, Any]]:
    answer = page.goto(url)
    assert answer is not None and answer.status == 200, f"{url}: {answer.status if answer else None}"
    page.wait_for_load_state("load")
    return list(runner.run(page).response["violations"])


def report(found: dict[str, list[dict[str, Any]]], width: int) -> str:
    """Every violation with its nodes, page by page."""
    lines = []
    for name, items in found.items():
        for v in items:
            head = f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes)"
            lines.append(f"[{width}px] {name}: {head}")
            for node in v["nodes"]:
                summary = " ".join((node.get("failureSummary") or "").split())
                lines.append(f"    {' '.join(map(str, node['target']))}: {node['html'][:200]} | {summary}")
    return "\n".join(lines)


def failing(found: dict[str, list[dict[str, Any]]]) -> list[str]:
    """``page: rule`` for every serious or critical violation."""
    return [f"{name}: {v['id']}" for name, items in found.items() for v in items if v["impact"] in FAILING]
